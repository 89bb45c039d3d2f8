//! Stream compaction: the elements for which the predicate holds, written to the front of the
//! output. Each chunk is read from memory once: its selected elements are gathered into the
//! worker's own buffer (a store every element, the write position advanced by the predicate,
//! no branch), then copied out. Stable compaction places chunks by the look-back (a chunk's
//! offset is its predecessor's offset plus count, chained in input order); unordered
//! compaction reserves room with one fetch_add per chunk, so chunk order varies by run.

use super::compact_simd;
use super::disjoint::Disjoint;
use super::lookback::chained;
use super::memory;
use super::pred::with_pred;
use super::scratch::Scratch;
use crate::par;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicUsize, Ordering};
use wavekit_core::Predicate;
use wavekit_core::element::Element;
use wavekit_core::error::Result;

/// Elements per chunk (a power of two): 64 KiB of f32, whose gathered copy stays in L1/L2.
const CHUNK: usize = 1 << 14;

/// Stable compaction of `input` into `out` (at least as long); returns how many were kept.
///
/// # Errors
/// `OutOfMemory` when the look-back's links do not fit in the scratch; `out` is untouched then.
pub(crate) fn stable<T: Element>(
    input: &[T],
    pred: Predicate<T>,
    out: &mut [T],
    scratch: &Scratch,
) -> Result<usize> {
    assert!(out.len() >= input.len(), "the output holds the input");
    let chunks = input.len().div_ceil(CHUNK);
    let stream = memory::streams::<T>(input.len());
    let dst = Disjoint::new(out);
    let kept = AtomicUsize::new(0);
    with_pred!(pred, |p| chained(
        chunks,
        scratch,
        Buffer::new,
        |buf, c, link| {
            let chunk = par::chunk(input, CHUNK, c);
            let picked = buf.gather(chunk, p);
            let n = picked.map_or_else(|| chunk.iter().filter(|&&x| p(x)).count(), <[T]>::len);
            let offset = link.wait().unwrap_or(0) as usize;
            let end = offset + n;
            link.publish(end as u64);
            // SAFETY: chunk c owns out[offset..end]: chunk c - 1 ends at `offset`, and chunk
            // c + 1 starts at `end`.
            let dst = unsafe { dst.part(offset, n) };
            match picked {
                Some(picked) => put(dst, picked, stream),
                None => put_unbuffered(dst, chunk, p),
            }
            if c + 1 == chunks {
                kept.store(end, Ordering::Relaxed);
            }
        }
    ))?;
    Ok(kept.into_inner())
}

/// Unordered compaction in one pass: each chunk reserves room for what it kept with one
/// fetch_add on a shared cursor.
pub(crate) fn unordered<T: Element>(input: &[T], pred: Predicate<T>, out: &mut [T]) -> usize {
    assert!(out.len() >= input.len(), "the output holds the input");
    let cursor = AtomicUsize::new(0);
    let stream = memory::streams::<T>(input.len());
    let dst = Disjoint::new(out);
    with_pred!(pred, |p| par::for_each_init(
        input.len().div_ceil(CHUNK),
        1,
        Buffer::new,
        |buf, i| {
            let c = par::chunk(input, CHUNK, i);
            let picked = buf.gather(c, p);
            let n = picked.map_or_else(|| c.iter().filter(|&&x| p(x)).count(), <[T]>::len);
            let base = cursor.fetch_add(n, Ordering::Relaxed);
            // SAFETY: the cursor hands each chunk a range no other chunk gets; the ranges add
            // up to the number kept, at most `input.len() <= out.len()`.
            let dst = unsafe { dst.part(base, n) };
            match picked {
                Some(picked) => put(dst, picked, stream),
                None => put_unbuffered(dst, c, p),
            }
        }
    ));
    cursor.into_inner()
}

/// Writes a chunk's picked elements to their place in the output, streamed (and fenced, so
/// the chunk is complete when its worker moves on) when the output is large.
fn put<T: Element>(dst: &mut [T], picked: &[T], stream: bool) {
    if stream {
        memory::stream_copy(dst, picked);
        memory::stream_fence();
    } else {
        dst.copy_from_slice(picked);
    }
}

/// The elements of `chunk` that satisfy `p`, in order, written straight to `dst` (exactly
/// their number long): the path of a worker whose buffer could not be allocated.
fn put_unbuffered<T: Element>(dst: &mut [T], chunk: &[T], p: impl Fn(T) -> bool + Copy) {
    let picked = chunk.iter().copied().filter(|&x| p(x));
    for (o, x) in dst.iter_mut().zip(picked) {
        *o = x;
    }
}

/// A worker's gathering buffer, one chunk long, never read before it is written; `None` when
/// the allocator refused it (a process near its memory limit): that worker then counts each
/// chunk first and writes its elements straight to the output, slower but with no allocation.
struct Buffer<T>(Option<Box<[MaybeUninit<T>]>>);

impl<T: Element> Buffer<T> {
    fn new() -> Self {
        let mut v = Vec::new();
        if v.try_reserve_exact(CHUNK).is_err() {
            return Buffer(None);
        }
        v.resize_with(CHUNK, MaybeUninit::uninit);
        Buffer(Some(v.into_boxed_slice()))
    }

    /// The elements of `chunk` (at most CHUNK) that satisfy `p`, in order; `None` without a
    /// buffer.
    fn gather(&mut self, chunk: &[T], p: impl Fn(T) -> bool + Copy) -> Option<&[T]> {
        assert!(chunk.len() <= CHUNK, "a chunk fits the buffer");
        let buf = self.0.as_mut()?.as_mut_ptr().cast::<T>();
        // SAFETY: the buffer holds CHUNK elements, at least the chunk's.
        let n = match unsafe { compact_simd::gather(chunk, buf, p) } {
            Some(n) => n,
            None => {
                let mut n = 0;
                for &x in chunk {
                    // SAFETY: n is at most x's index in the chunk, below CHUNK.
                    unsafe { buf.add(n).write(x) };
                    n += p(x) as usize;
                }
                n
            }
        };
        // SAFETY: both paths wrote buf[..n], and n <= chunk.len() <= CHUNK.
        Some(unsafe { std::slice::from_raw_parts(buf, n) })
    }
}
