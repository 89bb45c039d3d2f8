//! The device scan (docs/SEMANTICS.md, "Device scan") in one pass over memory: chunks of the
//! input chained in order through the look-back (`lookback`), each read from memory once and
//! finished from cache (an integer chunk scanned again, a float chunk from the running folds
//! its first pass kept).
//!
//! Floats follow the canonical tiles (`device_scan_tile`). Every integer op (wrapping arithmetic,
//! min, max, bitwise) is associative and commutative bit for bit, so any association gives the
//! canonical bits: a chunk is summed with vector-wide accumulators and then scanned left to
//! right from the incoming prefix.

use super::combine::with_op;
use super::device_scan_int_simd;
use super::device_scan_simd;
use super::device_scan_tile::{self, TILES_PER_CHUNK, kept_len};
use super::disjoint::Disjoint;
use super::lookback::{chained, workers};
use super::memory;
use super::order_free::fold_ints;
use super::scratch::Scratch;
use wavekit_core::ScanKind;
use wavekit_core::canonical::SCAN_TILE;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::op::ReduceOp;

/// Bytes of input in one chunk of the integer scan.
const CHUNK_BYTES: usize = 1 << 18;
/// Elements of an integer chunk scanned between two prefetches of the next chunk's input.
const PIECE: usize = 1 << 12;

/// `out` (as long as `input`, which is not empty) gets the scan of `input`; `wide` holds the
/// workers' buffers.
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
    let id = T::identity(op);
    let chunk = if T::KIND.is_float() {
        TILES_PER_CHUNK * SCAN_TILE
    } else {
        CHUNK_BYTES / size_of::<T>()
    };
    let stream = memory::streams::<T>(input.len());
    let out = Disjoint::new(out);
    let chunks = input.len().div_ceil(chunk);
    // A float chunk keeps its tiles' running folds in the worker's buffer; an integer piece is
    // scanned into it only when the output is streamed.
    let buffer = if T::KIND.is_float() {
        kept_len(input.len(), chunk)
    } else if stream {
        PIECE
    } else {
        0
    };
    wide.with_buffers::<T, _>(workers(chunks), buffer, |bufs| {
        with_op!(T, op, |f| chained(
            chunks,
            scratch,
            || bufs.take(),
            |buf, c, link| {
                let part = |c: usize| crate::par::chunk(input, chunk, c);
                let x = part(c);
                let ahead = link.next().map_or(&[][..], part);
                // SAFETY: chunk c writes exactly its own elements of the output.
                let o = unsafe { out.part(c * chunk, x.len()) };
                if T::KIND.is_float() {
                    // The vector kernels where the CPU, type and op have one; else the portable.
                    if !device_scan_simd::chunk(x, o, buf, ahead, link, exclusive, stream, 1, op) {
                        device_scan_tile::chunk(
                            x, o, buf, ahead, link, exclusive, stream, 1, op, f,
                        );
                    }
                } else {
                    // The total first, while the predecessor may still be working: only the
                    // publish waits for it.
                    let total = fold_ints(x, id, f);
                    let mut carry = link.wait().map_or(id, T::from_bits);
                    link.publish(f(carry, total).to_bits());
                    for (i, (x, o)) in x.chunks(PIECE).zip(o.chunks_mut(PIECE)).enumerate() {
                        memory::prefetch(
                            ahead
                                .get(i * PIECE..)
                                .map_or(&[][..], |a| &a[..a.len().min(PIECE)]),
                        );
                        let scan = |o: &mut [T]| {
                            device_scan_int_simd::sum(x, o, carry, exclusive, op)
                                .unwrap_or_else(|| left_to_right(x, o, carry, exclusive, f))
                        };
                        if stream {
                            let b = &mut buf[..x.len()];
                            carry = scan(b);
                            memory::stream_copy(o, b);
                        } else {
                            carry = scan(o);
                        }
                    }
                }
                if stream {
                    memory::stream_fence();
                }
            }
        ))
    })?
}

/// The scan of `x` from `carry`, one element after another; returns the carry after `x`.
fn left_to_right<T: Element>(
    x: &[T],
    out: &mut [T],
    mut carry: T,
    exclusive: bool,
    f: impl Fn(T, T) -> T,
) -> T {
    if exclusive {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = carry;
            carry = f(carry, v);
        }
    } else {
        for (o, &v) in out.iter_mut().zip(x) {
            carry = f(carry, v);
            *o = carry;
        }
    }
    carry
}
