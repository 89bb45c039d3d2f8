//! argmin / argmax ([`ArgReduce`]): the value and the first index of the smallest or largest
//! element, over a whole buffer, over each segment, and over each segment of a warp's lanes
//! (docs/SEMANTICS.md "arg_reduce").

use super::check_len;
use super::segmented_reduce::{Segments, check_u32_len};
use crate::backend::DeviceBuffer;
use crate::element::Element;
use crate::error::{Result, WavekitError};
use crate::host;
use crate::raw::{RawBackend, SegmentSpec, Validated};

pub use crate::vocab::ArgOp;

/// Checks of the segmented form: the segments over the input, and their number.
fn segmented_checks<'a, B: RawBackend, T: Element>(
    input: &B::Buffer<T>,
    segments: &'a Segments<B>,
) -> Result<(SegmentSpec<'a, B::Buffer<u32>>, usize)> {
    let n = input.len();
    let spec = segments.spec(n, "segmented arg_reduce input (the offsets' last value)")?;
    check_u32_len("segmented arg_reduce input (indices are u32)", n)?;
    Ok((spec, segments.count(n)))
}

/// argmin and argmax (docs/SEMANTICS.md "arg_reduce"): the value and the index of the first
/// element (lowest index) that is the smallest ([`ArgOp::Min`]) or largest ([`ArgOp::Max`]),
/// for every element type. Floats: `-0.0` orders below `+0.0`, and a NaN anywhere makes the
/// result the first NaN (numpy's and torch's rule). The result is a selection in a total order
/// on (value, index), so every backend and every combining tree gives the same bits: there is
/// no canonical order to follow. Three forms: a whole buffer (`argmin`, `argmax`,
/// `arg_reduce_into`), each segment of a buffer (`segmented_arg_reduce`), and each segment of
/// `width` lanes of a warp (`warp_arg_reduce`).
pub trait ArgReduce: RawBackend {
    /// The first smallest element of a non-empty buffer and its index; synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let x = cpu.upload(&[3.0f32, -1.0, 7.0, -1.0])?;
    /// assert_eq!(cpu.argmin(&x)?, (-1.0, 1)); // ties: the lower index
    /// let z = cpu.upload(&[0.0f64, -0.0, 2.0])?;
    /// assert_eq!(cpu.argmin(&z)?.1, 1); // -0.0 below +0.0
    /// assert!(cpu.argmin(&cpu.alloc::<u32>(0)?).is_err()); // EmptyInput
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`arg_reduce_into`](Self::arg_reduce_into), and `OutOfMemory`.
    fn argmin<T: Element>(&self, input: &Self::Buffer<T>) -> Result<(T, u64)> {
        self.arg_reduce(input, ArgOp::Min)
    }

    /// The first largest element of a non-empty buffer and its index; synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W64);
    /// let x = cpu.upload(&[4i64, 9, 9, -2])?;
    /// assert_eq!(cpu.argmax(&x)?, (9, 1));
    /// let n = cpu.upload(&[1.0f32, f32::NAN, 5.0, f32::NAN])?;
    /// let (v, i) = cpu.argmax(&n)?;
    /// assert!(v.is_nan() && i == 1); // the first NaN wins
    /// let logits: Vec<f16> = [0.5f32, 2.25, -3.0, 2.25].map(f16::from_f32).to_vec();
    /// assert_eq!(cpu.argmax(&cpu.upload(&logits)?)?, (f16::from_f32(2.25), 1)); // 16-bit too
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`arg_reduce_into`](Self::arg_reduce_into), and `OutOfMemory`.
    fn argmax<T: Element>(&self, input: &Self::Buffer<T>) -> Result<(T, u64)> {
        self.arg_reduce(input, ArgOp::Max)
    }

    /// [`arg_reduce_into`](Self::arg_reduce_into) read back: `argmin` or `argmax` by `op`;
    /// synchronises. A backend that keeps one-value outputs (the GPU backends) allocates
    /// nothing in steady state.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let x = cpu.upload(&[5u32, 2, 8, 2, 8])?;
    /// assert_eq!(cpu.arg_reduce(&x, ArgOp::Min)?, (2, 1));
    /// assert_eq!(cpu.arg_reduce(&x, ArgOp::Max)?, (8, 2));
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`arg_reduce_into`](Self::arg_reduce_into), and `OutOfMemory`.
    fn arg_reduce<T: Element>(&self, input: &Self::Buffer<T>, op: ArgOp) -> Result<(T, u64)> {
        let mut index = 0;
        let value = self.raw_scalar(Validated::new(), |value| {
            index = self.raw_scalar(Validated::new(), |idx| {
                self.arg_reduce_into(input, op, value, idx)
            })?;
            Ok(())
        })?;
        Ok((value, index))
    }

    /// The first smallest (`ArgOp::Min`) or largest (`ArgOp::Max`) element of a non-empty
    /// buffer into `value` (one element) and its index into `index` (one element). On a GPU
    /// backend it is enqueued on the stream and returns at once.
    ///
    /// ```
    /// use wavekit_core::{ArgOp, ArgReduce, Backend, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let x = b.upload(&[1.5f64, -4.0, 9.25, -4.0])?;
    /// let (mut v, mut i) = (b.alloc::<f64>(1)?, b.alloc::<u64>(1)?);
    /// b.arg_reduce_into(&x, ArgOp::Max, &mut v, &mut i)?;
    /// assert_eq!((b.download(&v)?, b.download(&i)?), (vec![9.25], vec![2]));
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `EmptyInput` for an empty input; `LengthMismatch` when `value` or `index` is not one
    /// element; `ForeignBuffer`; a backend's `Device` error. Nothing is written on an error.
    fn arg_reduce_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        op: ArgOp,
        value: &mut Self::Buffer<T>,
        index: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        check_len("arg_reduce value (one element)", 1, value.len())?;
        check_len("arg_reduce index (one element)", 1, index.len())?;
        if input.is_empty() {
            return Err(WavekitError::EmptyInput {
                what: "arg_reduce input",
            });
        }
        self.raw_arg_reduce(Validated::new(), input, op, value, index)
    }

    /// [`segmented_arg_reduce_into`](Self::segmented_arg_reduce_into) into new buffers (one
    /// value and one index per segment); synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let x = cpu.upload(&[4i32, 1, 1, 9, 7, 3])?;
    /// // Segments [0, 3), [3, 3) (empty) and [3, 6).
    /// let segs = Segments::from_offsets(&cpu, &[0, 3, 3, 6], 6, VectorSize::Auto)?;
    /// let (v, i) = cpu.segmented_arg_reduce(&x, &segs, ArgOp::Min)?;
    /// assert_eq!(cpu.download(&v)?, [1, i32::MAX, 3]); // an empty segment: the identity
    /// assert_eq!(cpu.download(&i)?, [1, u32::MAX, 5]); // indices into the whole input
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`segmented_arg_reduce_into`](Self::segmented_arg_reduce_into), and `OutOfMemory`.
    fn segmented_arg_reduce<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        segments: &Segments<Self>,
        op: ArgOp,
    ) -> Result<(Self::Buffer<T>, Self::Buffer<u32>)> {
        // Every check before the allocations.
        let (_, count) = segmented_checks::<Self, T>(input, segments)?;
        let mut values = self.alloc::<T>(count)?;
        let mut indices = self.alloc::<u32>(count)?;
        self.segmented_arg_reduce_into(input, segments, op, &mut values, &mut indices)?;
        self.synchronize()?;
        Ok((values, indices))
    }

    /// Per segment (the segments of [`segmented_reduce`](super::Collectives::segmented_reduce):
    /// fixed size or offsets), the first smallest or largest element into `values` and its
    /// index **in the whole input** into `indices` (one per segment each). An empty segment
    /// gives the identity of `op` (`op.identity::<T>()`) and the index `u32::MAX`.
    ///
    /// ```
    /// use wavekit_core::{ArgOp, ArgReduce, Backend, Segments, VectorSize, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W64);
    /// let x = b.upload(&[2u64, 8, 8, 5, 0, 6, 6])?;
    /// let segs = Segments::fixed(3, VectorSize::Lanes(2))?; // [0,3) [3,6) [6,7)
    /// let (mut v, mut i) = (b.alloc::<u64>(3)?, b.alloc::<u32>(3)?);
    /// b.segmented_arg_reduce_into(&x, &segs, ArgOp::Max, &mut v, &mut i)?;
    /// assert_eq!(b.download(&v)?, [8, 6, 6]);
    /// assert_eq!(b.download(&i)?, [1, 5, 6]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when offset segments were made for another input length or an output
    /// is not one per segment; `InvalidVectorSize`; `TooLarge` for more than `u32::MAX`
    /// elements; `ForeignBuffer`; a backend's `Device` error. Nothing is written on an error.
    fn segmented_arg_reduce_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        segments: &Segments<Self>,
        op: ArgOp,
        values: &mut Self::Buffer<T>,
        indices: &mut Self::Buffer<u32>,
    ) -> Result<()> {
        let (spec, count) = segmented_checks::<Self, T>(input, segments)?;
        check_len(
            "segmented arg_reduce values (one per segment)",
            count,
            values.len(),
        )?;
        check_len(
            "segmented arg_reduce indices (one per segment)",
            count,
            indices.len(),
        )?;
        if count == 0 {
            return Ok(());
        }
        self.raw_segmented_arg_reduce(Validated::new(), input, spec, op, values, indices)
    }

    /// For each lane, the first smallest or largest value of its segment of `width` lanes and
    /// that element's lane within the segment (0 to `width - 1`), as every lane of a
    /// warp gets it from `wavekit::warp_arg_reduce` in device code. A short last segment
    /// selects among the lanes it has. `width` is a power of two up to the warp width.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let v = [3u32, 1, 4, 1, 5, 9, 2, 6, 5, 3];
    /// let got = cpu.warp_arg_reduce(&v, 4, ArgOp::Min)?;
    /// assert_eq!(got[0], (1, 1)); // lanes 0..4: the first 1 is lane 1
    /// assert_eq!(got[3], (1, 1)); // every lane of the segment gets it
    /// assert_eq!(got[5], (2, 2)); // lanes 4..8: 2 at lane 6, the segment's lane 2
    /// assert_eq!(got[9], (3, 1)); // the short segment 8..10
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidSubWidth`; `OutOfMemory` when one result per lane does not fit in host memory;
    /// a backend's `Device` error.
    fn warp_arg_reduce<T: Element>(
        &self,
        vals: &[T],
        width: u32,
        op: ArgOp,
    ) -> Result<Vec<(T, u32)>> {
        self.warp_width().check_sub_width(width)?;
        host::check::<(T, u64)>(vals.len())?;
        if vals.is_empty() {
            return Ok(vec![]);
        }
        self.raw_warp_arg_reduce(Validated::new(), vals, width, op)
    }
}

impl<B: RawBackend> ArgReduce for B {}
