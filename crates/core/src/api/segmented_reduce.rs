//! Segmented reduce: [`Segments`] (fixed sizes or checked offsets on the device), the vector
//! size rule, and the checks of `segmented_reduce` / `segmented_reduce_into`.

use super::{Collectives, check_len};
use crate::backend::{Backend, DeviceBuffer};
use crate::canonical::MAX_VECTOR;
use crate::element::Element;
use crate::error::{Result, WavekitError};
use crate::raw::{RawBackend, SegmentSpec, Validated};
use crate::vocab::ReduceOp;

/// How many lanes share one segment or CSR row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VectorSize {
    /// Chosen from the input alone (never from the device): see `auto_vector`.
    Auto,
    /// This many lanes: a power of two from 1 to 32.
    Lanes(u32),
}

/// The documented rule for `VectorSize::Auto`: the power of two at or above half the mean
/// segment length, from 1 to 32 lanes.
pub fn auto_vector(total_items: usize, segments: usize) -> u32 {
    let mean = total_items.div_ceil(segments.max(1));
    (mean.div_ceil(2).max(1).next_power_of_two()).min(MAX_VECTOR as usize) as u32
}

pub(crate) fn resolve_vector(v: VectorSize, total_items: usize, segments: usize) -> Result<u32> {
    match v {
        VectorSize::Auto => Ok(auto_vector(total_items, segments)),
        VectorSize::Lanes(n) if n.is_power_of_two() && n <= MAX_VECTOR => Ok(n),
        VectorSize::Lanes(n) => Err(WavekitError::InvalidVectorSize(n)),
    }
}

/// Checks CSR-style offsets: `offsets[0] == 0`, never decreasing, last equal to `len`.
///
/// # Errors
/// `InvalidOffsets` naming the first offending offset.
pub fn check_offsets(offsets: &[u32], len: usize) -> Result<()> {
    let bad = |index: usize, reason: String| Err(WavekitError::InvalidOffsets { index, reason });
    if offsets.is_empty() {
        return bad(0, "at least one offset (0) is needed".into());
    }
    if offsets[0] != 0 {
        return bad(0, format!("the first offset must be 0, got {}", offsets[0]));
    }
    for (i, w) in offsets.windows(2).enumerate() {
        if w[1] < w[0] {
            return bad(
                i + 1,
                format!("offset {} is below the previous {}", w[1], w[0]),
            );
        }
    }
    let last = *offsets.last().expect("non-empty");
    if last as usize != len {
        return bad(
            offsets.len() - 1,
            format!("the last offset {last} must equal the length {len}"),
        );
    }
    Ok(())
}

pub(crate) fn check_u32_len(what: &'static str, len: usize) -> Result<()> {
    if len > u32::MAX as usize {
        return Err(WavekitError::TooLarge {
            what,
            value: len as u64,
            limit: u32::MAX as u64,
        });
    }
    Ok(())
}

/// Segments whose offsets were validated on the host and now live on the device.
pub struct Segments<B: Backend> {
    kind: SegKind<B>,
    vector: VectorSize,
}

enum SegKind<B: Backend> {
    Fixed(usize),
    Offsets {
        offsets: B::Buffer<u32>,
        count: usize,
        total: usize,
        longest: usize,
    },
}

impl<B: Backend> std::fmt::Debug for Segments<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct("Segments");
        match &self.kind {
            SegKind::Fixed(size) => s.field("size", size),
            SegKind::Offsets {
                offsets,
                count,
                total,
                longest,
            } => s
                .field("offsets", offsets)
                .field("count", count)
                .field("total", total)
                .field("longest", longest),
        };
        s.field("vector", &self.vector).finish()
    }
}

impl<B: Backend> Segments<B> {
    /// Segments of `size` consecutive elements (seed 001's REDUCE_SIZE); the last may be short.
    ///
    /// # Errors
    /// `ZeroSegmentSize` when `size` is 0; `InvalidVectorSize` when `vector` is not a power of two
    /// up to 32.
    pub fn fixed(size: usize, vector: VectorSize) -> Result<Self> {
        if size == 0 {
            return Err(WavekitError::ZeroSegmentSize);
        }
        resolve_vector(vector, size, 1)?;
        Ok(Segments {
            kind: SegKind::Fixed(size),
            vector,
        })
    }

    /// Segment i is `[offsets[i], offsets[i + 1])`; offsets are checked against `len`.
    ///
    /// # Errors
    /// `InvalidOffsets` when the offsets do not start at 0, decrease or do not end at `len`;
    /// `InvalidVectorSize`; `OutOfMemory` or a backend's `Device` error uploading them.
    pub fn from_offsets(
        backend: &B,
        offsets: &[u32],
        len: usize,
        vector: VectorSize,
    ) -> Result<Self> {
        check_offsets(offsets, len)?;
        let count = offsets.len() - 1;
        resolve_vector(vector, len, count)?;
        Ok(Segments {
            kind: SegKind::Offsets {
                offsets: backend.upload(offsets)?,
                count,
                total: len,
                longest: offsets
                    .windows(2)
                    .map(|w| (w[1] - w[0]) as usize)
                    .max()
                    .unwrap_or(0),
            },
            vector,
        })
    }

    /// Segments over an input of `len` elements.
    pub fn count(&self, len: usize) -> usize {
        match &self.kind {
            SegKind::Fixed(size) => len.div_ceil(*size),
            SegKind::Offsets { count, .. } => *count,
        }
    }
}

/// The checked segments of a segmented reduce over `len` elements.
fn segment_spec<B: Backend, T: Element>(
    len: usize,
    segments: &Segments<B>,
    op: ReduceOp,
) -> Result<SegmentSpec<'_, B::Buffer<u32>>> {
    op.check::<T>()?;
    segments.spec(len, "segmented reduce input (the offsets' last value)")
}

impl<B: Backend> Segments<B> {
    /// The checked segments over an input of `len` elements; `what` names that input when
    /// offset segments were built for another length.
    pub(crate) fn spec(
        &self,
        len: usize,
        what: &'static str,
    ) -> Result<SegmentSpec<'_, B::Buffer<u32>>> {
        let count = self.count(len);
        Ok(match &self.kind {
            SegKind::Fixed(size) => SegmentSpec::Fixed {
                size: *size,
                count,
                vector: resolve_vector(self.vector, (*size).min(len), 1)?,
            },
            SegKind::Offsets {
                offsets,
                count,
                total,
                longest,
            } => {
                check_len(what, *total, len)?;
                SegmentSpec::Offsets {
                    offsets,
                    count: *count,
                    vector: resolve_vector(self.vector, len, *count)?,
                    longest: *longest,
                }
            }
        })
    }
}

pub(crate) fn segmented_reduce<B: RawBackend, T: Element>(
    b: &B,
    input: &B::Buffer<T>,
    segments: &Segments<B>,
    op: ReduceOp,
) -> Result<B::Buffer<T>> {
    // Every check before the allocation, empty segment lists included.
    segment_spec::<B, T>(input.len(), segments, op)?;
    let mut output = b.alloc::<T>(segments.count(input.len()))?;
    b.segmented_reduce_into(input, segments, op, &mut output)?;
    b.synchronize()?;
    Ok(output)
}

pub(crate) fn segmented_reduce_into<B: RawBackend, T: Element>(
    b: &B,
    input: &B::Buffer<T>,
    segments: &Segments<B>,
    op: ReduceOp,
    out: &mut B::Buffer<T>,
) -> Result<()> {
    let spec = segment_spec::<B, T>(input.len(), segments, op)?;
    let count = segments.count(input.len());
    check_len(
        "segmented reduce output (one per segment)",
        count,
        out.len(),
    )?;
    if count == 0 {
        return Ok(());
    }
    b.raw_segmented_reduce(Validated::new(), input, spec, op, out)
}
