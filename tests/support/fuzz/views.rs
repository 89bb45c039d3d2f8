//! Views for the fuzz families: chains of ranges taken one inside the other (a slice of a slice
//! of ...), made from random words, mostly inside their buffer and sometimes not; and calls made
//! through such a chain of `slice`/`slice_mut` views of a backend's buffer.

use proptest::prelude::*;
use std::ops::Range;
use wavekit::{Backend, Element, WavekitError};

/// Up to three nested ranges, as random words; about one level in 12 lies outside the range it
/// is taken from (start past end, or end past the length).
#[derive(Clone, Debug)]
pub struct ChainArg {
    levels: Vec<(u64, u64, u8)>,
}

/// A chain of zero to three levels.
pub fn chain_arg() -> impl Strategy<Value = ChainArg> {
    proptest::collection::vec((any::<u64>(), any::<u64>(), 0u8..24), 0..4)
        .prop_map(|levels| ChainArg { levels })
}

/// Where a chain lands in its base buffer, or the first range that does not fit, as the
/// `InvalidRange` the slice must return.
pub type Window = Result<Range<usize>, WavekitError>;

impl ChainArg {
    /// Levels in the chain.
    pub fn depth(&self) -> usize {
        self.levels.len()
    }

    /// The ranges over a buffer of `len` elements, each inside the previous one's length
    /// (unless the level is one of the rare bad ones).
    pub fn ranges(&self, len: usize) -> Vec<Range<usize>> {
        let mut cur = len as u64;
        self.levels
            .iter()
            .map(|&(a, b, fault)| {
                let r = match fault {
                    0 => {
                        let end = cur + 1 + b % 3;
                        (a % (end + 1)) as usize..end as usize
                    }
                    1 if cur > 0 => {
                        let start = 1 + a % cur;
                        start as usize..(start - 1 - b % start) as usize
                    }
                    _ => {
                        let (x, y) = (a % (cur + 1), b % (cur + 1));
                        x.min(y) as usize..x.max(y) as usize
                    }
                };
                cur = r.end.saturating_sub(r.start) as u64;
                r
            })
            .collect()
    }

    /// Ranges over a buffer of `len` elements whose last one is `want` long where it can be
    /// (`want <= len`), so that an output view has the length a call needs; the rare bad levels
    /// stay bad.
    pub fn ranges_to(&self, len: usize, want: usize) -> Vec<Range<usize>> {
        let mut cur = len as u64;
        let want = want as u64;
        let last = self.levels.len().saturating_sub(1);
        self.levels
            .iter()
            .enumerate()
            .map(|(i, &(a, b, fault))| {
                if fault == 0 || want > cur {
                    let end = cur + 1 + b % 3;
                    cur = 0;
                    return (a % (end + 1)) as usize..end as usize;
                }
                let size = if i == last {
                    want
                } else {
                    want + b % (cur - want + 1)
                };
                let start = a % (cur - size + 1);
                cur = size;
                start as usize..(start + size) as usize
            })
            .collect()
    }
}

/// Where `ranges`, taken one inside the other, land in a buffer of `len` elements.
pub fn window(ranges: &[Range<usize>], len: usize) -> Window {
    let mut w = 0..len;
    for r in ranges {
        let cur = w.len();
        if r.start > r.end || r.end > cur {
            return Err(WavekitError::InvalidRange {
                start: r.start,
                end: r.end,
                len: cur,
            });
        }
        w = w.start + r.start..w.start + r.end;
    }
    Ok(w)
}

/// `f` on the view that `ranges` select of `buf`, through nested `slice`s.
pub fn through<B: Backend, T: Element, R>(
    b: &B,
    buf: &B::Buffer<T>,
    ranges: &[Range<usize>],
    f: impl FnOnce(&B::Buffer<T>) -> R,
) -> Result<R, WavekitError> {
    match ranges.split_first() {
        None => Ok(f(buf)),
        Some((r, rest)) => through(b, &*b.slice(buf, r.clone())?, rest, f),
    }
}

/// `f` on the writable view that `ranges` select of `buf`, through nested `slice_mut`s.
pub fn through_mut<B: Backend, T: Element, R>(
    b: &B,
    buf: &mut B::Buffer<T>,
    ranges: &[Range<usize>],
    f: impl FnOnce(&mut B::Buffer<T>) -> R,
) -> Result<R, WavekitError> {
    match ranges.split_first() {
        None => Ok(f(buf)),
        Some((r, rest)) => through_mut(b, &mut *b.slice_mut(buf, r.clone())?, rest, f),
    }
}

/// `f` on the read-only view that `ranges` select of `buf`: the first `muts` levels are
/// `slice_mut`s (a read-only use of a writable view), the rest `slice`s.
pub fn through_input<B: Backend, T: Element, R>(
    b: &B,
    buf: &mut B::Buffer<T>,
    ranges: &[Range<usize>],
    muts: usize,
    f: impl FnOnce(&B::Buffer<T>) -> R,
) -> Result<R, WavekitError> {
    match ranges.split_first() {
        Some((r, rest)) if muts > 0 => {
            let mut v = b.slice_mut(buf, r.clone())?;
            through_input(b, &mut *v, rest, muts - 1, f)
        }
        _ => through(b, &*buf, ranges, f),
    }
}
