//! arg_reduce (docs/SEMANTICS.md "arg_reduce"): argmin / argmax as the smallest
//! (`ArgOp::key`, index) pair, a total order, so chunks can be reduced in any order.

use super::CpuBuffer;
use super::segmented_reduce::{Bounds, SEGMENTS_PER_TASK};
use crate::disjoint::Disjoint;
use crate::{order_free, par};
use wavekit_core::api::check_len;
use wavekit_core::element::Element;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::{ArgOp, DeviceBuffer, SegmentSpec};

/// Elements handed to one rayon task of the device form.
const CHUNK: usize = 1 << 16;

/// Lanes' segments handed to one rayon task of the warp form.
const WARP_SEGMENTS_PER_TASK: usize = 1024;

/// The (key, offset) of the selected element of a non-empty slice: the first of the smallest
/// key (a sequential scan that replaces only on a strictly smaller key).
#[inline]
fn select<T: Element>(data: &[T], op: ArgOp) -> (u64, usize) {
    let mut best = (op.key(data[0]), 0);
    for (i, &x) in data.iter().enumerate().skip(1) {
        let k = op.key(x);
        if k < best.0 {
            best = (k, i);
        }
    }
    best
}

/// [`select`] of a chunk in two passes, both vector loops: the selected element by the
/// order-free Min / Max fold (keys of the element's own width), then its first position (the
/// chunk is in cache by then). One pass comparing 64-bit keys ran at 13-59% of a read on 16
/// cores (benches/history/2026-11.md, "CPU argmin / argmax").
fn select_chunk<T: Element>(data: &[T], op: ArgOp) -> (u64, usize) {
    let target = order_free::chunk_extreme(data, op == ArgOp::Min);
    (op.key(target), first_with_bits(data, target.to_bits()))
}

/// The first position of an element with these bits, which `data` holds.
fn first_with_bits<T: Element>(data: &[T], bits: u64) -> usize {
    const BLOCK: usize = 32;
    let (blocks, _) = data.as_chunks::<BLOCK>();
    // Whole blocks tested without an early exit inside, so the test is one vector loop.
    let block = blocks
        .iter()
        .position(|b| b.iter().fold(false, |a, x| a | (x.to_bits() == bits)))
        .unwrap_or(blocks.len());
    let from = block * BLOCK;
    let at = data[from..].iter().position(|x| x.to_bits() == bits);
    from + at.expect("the chunk holds the element it selected")
}

/// The first selected element of a non-empty `input` and its index.
pub(crate) fn device<T: Element>(input: &[T], op: ArgOp) -> Result<(T, u64)> {
    let (_, i) = par::map_chunks(input, CHUNK, 1, |c, chunk| {
        let (k, i) = select_chunk(chunk, op);
        (k, c * CHUNK + i)
    })?
    .into_iter()
    .min()
    .expect("a non-empty input");
    Ok((input[i], i as u64))
}

/// Per segment, the selected element and its input index; an empty segment gives the op's
/// identity and `u32::MAX`.
pub(crate) fn segmented<T: Element>(
    input: &[T],
    bounds: Bounds<'_>,
    op: ArgOp,
    values: &mut [T],
    indices: &mut [u32],
) {
    debug_assert_eq!(values.len(), bounds.count());
    debug_assert_eq!(indices.len(), bounds.count());
    let indices = Disjoint::new(indices);
    par::chunks_mut(values, SEGMENTS_PER_TASK, 1, |c, vs| {
        let first = c * SEGMENTS_PER_TASK;
        // SAFETY: the indices of chunk c's segments, disjoint from every other chunk's.
        let is = unsafe { indices.part(first, vs.len()) };
        for (k, (v, i)) in vs.iter_mut().zip(is).enumerate() {
            let range = bounds.segment(first + k);
            if range.is_empty() {
                *v = op.identity();
                *i = u32::MAX;
            } else {
                let (_, at) = select(&input[range.clone()], op);
                *v = input[range.start + at];
                *i = (range.start + at) as u32;
            }
        }
    });
}

/// Every lane gets its segment's (of `width` lanes) selected value and lane within it.
pub(crate) fn warp<T: Element>(vals: &[T], width: u32, op: ArgOp) -> Result<Vec<(T, u32)>> {
    let w = width as usize;
    let mut out = wavekit_core::host::filled(vals.len(), (T::default(), 0u32))?;
    par::chunks_mut_with(vals, &mut out, w, WARP_SEGMENTS_PER_TASK, |_, seg, o| {
        let (_, at) = select(seg, op);
        o.fill((seg[at], at as u32));
    });
    Ok(out)
}

/// `RawBackend::raw_arg_reduce` on the CPU: the lengths checked again, then [`device`].
pub(crate) fn raw_device<T: Element>(
    input: &CpuBuffer<T>,
    op: ArgOp,
    value: &mut CpuBuffer<T>,
    index: &mut CpuBuffer<u64>,
) -> Result<()> {
    check_len("arg_reduce value (one element)", 1, value.len())?;
    check_len("arg_reduce index (one element)", 1, index.len())?;
    let data = input.data()?;
    if data.is_empty() {
        return Err(WavekitError::EmptyInput {
            what: "arg_reduce input",
        });
    }
    let (v, i) = device(data, op)?;
    value.data_mut()?[0] = v;
    index.data_mut()?[0] = i;
    Ok(())
}

/// `RawBackend::raw_segmented_arg_reduce` on the CPU: the segments resolved and the output
/// lengths checked again, then [`segmented`].
pub(crate) fn raw_segmented<T: Element>(
    input: &CpuBuffer<T>,
    segments: SegmentSpec<'_, CpuBuffer<u32>>,
    op: ArgOp,
    values: &mut CpuBuffer<T>,
    indices: &mut CpuBuffer<u32>,
) -> Result<()> {
    let bounds = match segments {
        SegmentSpec::Fixed {
            size,
            count,
            vector,
        } => Bounds::Fixed {
            size,
            count,
            len: input.len(),
            vector,
        },
        SegmentSpec::Offsets {
            offsets,
            count,
            vector,
            ..
        } => Bounds::Offsets {
            offsets: &offsets.data()?[..=count],
            vector,
        },
    };
    check_len(
        "segmented arg_reduce values (one per segment)",
        bounds.count(),
        values.len(),
    )?;
    check_len(
        "segmented arg_reduce indices (one per segment)",
        bounds.count(),
        indices.len(),
    )?;
    segmented(
        input.data()?,
        bounds,
        op,
        values.data_mut()?,
        indices.data_mut()?,
    );
    Ok(())
}
