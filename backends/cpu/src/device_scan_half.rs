//! The device scan of the 16-bit floats (docs/SEMANTICS.md "Half precision"; T::Acc is f32) in
//! one pass over memory: each chunk of the input is widened to `f32` into its worker's buffer,
//! scanned there by the `f32` chunk kernels (the canonical tiles and the look-back of an `f32`
//! scan, so the same combines in the same order), and each result rounded once into the
//! output. The input is read and the output written once, as a copy does; the `f32` values
//! never leave the core's cache.

use super::combine::with_op;
use super::device_scan_simd;
use super::device_scan_tile::{self, TILES_PER_CHUNK, kept_len};
use super::disjoint::Disjoint;
use super::half_simd::{narrow, widen};
use super::lookback::{chained, workers};
use super::memory;
use super::scratch::Scratch;
use wavekit_core::ScanKind;
use wavekit_core::canonical::{SCAN_HALF_GROUP as GROUP, SCAN_TILE};
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::op::ReduceOp;

/// Half the `f32` scan's chunk: a worker's three `f32` buffers (the widened input, the kept
/// running folds, the scanned output) then take the cache the `f32` scan's input and kept
/// folds take. With whole chunks (768 KiB a worker) the lent machine's 16 cores ran the 16-bit
/// scans 1.0-1.26x slower than with halves (at commit 1b135ea:
/// benches/results/cpu-scan-kept-2026-11-29/run3.log).
const CHUNK: usize = TILES_PER_CHUNK / 2 * SCAN_TILE;
// A chunk starts a group of tiles (the link carries Y of the group it starts).
const _: () = assert!((TILES_PER_CHUNK / 2).is_multiple_of(GROUP));

/// `out` (as long as `input`, which is not empty) gets the scan of `input`; `wide` holds the
/// workers' `f32` buffers.
pub(crate) fn device<T: Element>(
    input: &[T],
    out: &mut [T],
    op: ReduceOp,
    kind: ScanKind,
    wide: &Scratch,
    scratch: &Scratch,
) -> Result<()> {
    debug_assert_eq!(input.len(), out.len());
    let exclusive = kind == ScanKind::Exclusive;
    let chunks = input.len().div_ceil(CHUNK);
    let stream = memory::streams::<T>(input.len());
    let out = Disjoint::new(out);
    // Each of a worker's three buffers holds its longest chunk.
    let len = kept_len(input.len(), CHUNK);
    wide.with_buffers::<T::Acc, _>(workers(chunks), 3 * len, |bufs| {
        with_op!(T::Acc, op, |f| chained(
            chunks,
            scratch,
            || {
                let (x, rest) = bufs.take().split_at_mut(len);
                let (y, kept) = rest.split_at_mut(len);
                (x, y, kept, [T::from_bits(0); SCAN_TILE])
            },
            |(wx, wo, kept, narrowed), c, link| {
                let x = crate::par::chunk(input, CHUNK, c);
                let (wx, wo) = (&mut wx[..x.len()], &mut wo[..x.len()]);
                widen(x, wx);
                // The kernels fetch no input ahead (it is 16-bit): the rounding loop below
                // does.
                if !device_scan_simd::chunk(wx, wo, kept, &[], link, exclusive, false, GROUP, op) {
                    device_scan_tile::chunk(
                        wx,
                        wo,
                        kept,
                        &[],
                        link,
                        exclusive,
                        false,
                        GROUP,
                        op,
                        f,
                    );
                }
                let ahead = link
                    .next()
                    .map_or(&[][..], |a| crate::par::chunk(input, CHUNK, a));
                // SAFETY: chunk c writes exactly its own elements of the output.
                let o = unsafe { out.part(c * CHUNK, x.len()) };
                for (i, (s, o)) in wo
                    .chunks(SCAN_TILE)
                    .zip(o.chunks_mut(SCAN_TILE))
                    .enumerate()
                {
                    let (start, end) = (i * SCAN_TILE, (i + 1) * SCAN_TILE);
                    memory::prefetch(ahead.get(start..ahead.len().min(end)).unwrap_or_default());
                    if stream {
                        let b = &mut narrowed[..s.len()];
                        narrow(s, b);
                        memory::stream_copy(o, b);
                    } else {
                        narrow(s, o);
                    }
                }
                if stream {
                    memory::stream_fence();
                }
            }
        ))
    })?
}
