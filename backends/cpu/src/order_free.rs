//! Device reduces whose result does not depend on the combining order, bit for bit, computed
//! in whatever order streams memory fastest: every integer op (wrapping arithmetic, min, max,
//! bitwise) as a plain parallel fold, and float Min/Max (the 16-bit floats too) through
//! integer keys.
//!
//! Float Min/Max is a selection in a total order (-0.0 below +0.0, docs/SEMANTICS.md), so the
//! canonical tree picks the same element bit for bit as any other order: the extreme element
//! of the input, or a NaN when there is one (payloads are not compared). Mapping each float to
//! `bits ^ (sign ? magnitude_mask : 0)` orders it as a signed integer, and integer min/max
//! vectorises where the float op's NaN and signed-zero branches do not (measured about three
//! times slower than a read loop on 16 cores, BENCHMARKS.md "CPU").

use super::combine::with_op;
use super::memory;
use crate::par;
use wavekit_core::element::{ElemKind, Element};
use wavekit_core::op::ReduceOp;

/// Elements one rayon task folds.
const CHUNK: usize = 1 << 16;

/// The reduce of a non-empty slice when `op` is order-free for `T`; `None` for float Sum and
/// Product, which must follow the canonical tree.
pub(crate) fn reduce<T: Element>(vals: &[T], op: ReduceOp) -> Option<T> {
    if T::KIND.is_float() {
        return float_min_max(vals, op);
    }
    let id = T::identity(op);
    Some(with_op!(T, op, |f| par::fold_chunks(
        vals,
        CHUNK,
        1,
        id,
        |c| fold_ints(c, id, f),
        f
    )))
}

/// The fold of `c` from `id` in any association: for ops where every association gives the same bits.
pub(crate) fn fold_ints<T: Element>(c: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    #[cfg(target_arch = "x86_64")]
    if crate::features::avx2() {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { fold_ints_avx2(c, id, f) };
    }
    fold_ints_body(c, id, f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn fold_ints_avx2<T: Element>(c: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    fold_ints_body(c, id, f)
}

/// Eight independent accumulators, so the loop is vector-wide and not one long chain.
#[inline(always)]
fn fold_ints_body<T: Element>(c: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    let mut total = id;
    memory::read_ahead(c, |p| total = f(total, fold_piece(p, id, f)));
    total
}

#[inline(always)]
fn fold_piece<T: Element>(c: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    let mut acc = [id; 8];
    let (rows, rest) = c.as_chunks::<8>();
    for row in rows {
        for (a, &x) in acc.iter_mut().zip(row) {
            *a = f(*a, x);
        }
    }
    rest.iter()
        .fold(acc.into_iter().fold(id, f), |a, &x| f(a, x))
}

/// The Min/Max of a non-empty float slice, or `None` for any other op.
fn float_min_max<T: Element>(vals: &[T], op: ReduceOp) -> Option<T> {
    let min = match op {
        ReduceOp::Min => true,
        ReduceOp::Max => false,
        _ => return None,
    };
    let bits = match T::KIND {
        ElemKind::F32 => {
            // SAFETY: T is f32 (its KIND says so): u32's size and alignment, every bit pattern
            // valid, and the slice is only read.
            let u = unsafe { std::slice::from_raw_parts(vals.as_ptr().cast::<u32>(), vals.len()) };
            fold_u32(u, min) as u64
        }
        ElemKind::F64 => {
            // SAFETY: as above, f64 and u64.
            let u = unsafe { std::slice::from_raw_parts(vals.as_ptr().cast::<u64>(), vals.len()) };
            fold_u64(u, min)
        }
        ElemKind::F16 | ElemKind::BF16 => {
            // SAFETY: as above, a 16-bit float and u16.
            let u = unsafe { std::slice::from_raw_parts(vals.as_ptr().cast::<u16>(), vals.len()) };
            let inf = half_inf::<T>();
            // Through f32 and back: a NaN comes back quiet, as the f32 reduce of the widened
            // input gives it; any other value is unchanged.
            let v = T::from_bits(fold_u16(u, min, inf) as u64);
            return Some(T::from_acc(v.to_acc()));
        }
        _ => return None,
    };
    Some(T::from_bits(bits))
}

/// The element that Min (`min`) or Max selects from a non-empty chunk, on one thread: the
/// extreme in the order above, or the chunk's first NaN (its own bits). argmin / argmax then
/// look for its first position.
pub(crate) fn chunk_extreme<T: Element>(c: &[T], min: bool) -> T {
    /// The first NaN of the chunk: some element's bits past +inf in magnitude.
    fn first_nan<U: Copy + Into<u64>>(c: &[U], abs: u64, inf: u64) -> u64 {
        let nan = c.iter().find(|&&b| b.into() & abs > inf);
        (*nan.expect("the fold saw a NaN")).into()
    }
    let bits = match T::KIND {
        ElemKind::F32 => {
            // SAFETY: T is f32 (its KIND says so): u32's size and alignment, every bit pattern
            // valid, and the slice is only read.
            let u = unsafe { std::slice::from_raw_parts(c.as_ptr().cast::<u32>(), c.len()) };
            match chunk_u32(u, min) {
                (_, true) => first_nan(u, u32::ABS as u64, u32::INF as u64),
                (key, false) => key_of(key as u32) as u64,
            }
        }
        ElemKind::F64 => {
            // SAFETY: as above, f64 and u64.
            let u = unsafe { std::slice::from_raw_parts(c.as_ptr().cast::<u64>(), c.len()) };
            match chunk_u64(u, min) {
                (_, true) => first_nan(u, u64::ABS, u64::INF),
                (key, false) => key_of(key as u64),
            }
        }
        ElemKind::F16 | ElemKind::BF16 => {
            // SAFETY: as above, a 16-bit float and u16.
            let u = unsafe { std::slice::from_raw_parts(c.as_ptr().cast::<u16>(), c.len()) };
            let inf = half_inf::<T>();
            match chunk_u16(u, min) {
                (_, top) if top > inf => first_nan(u, 0x7fff, inf as u64),
                (key, _) => key16(key as u16) as u64,
            }
        }
        // Integers: their own min / max (only these two ops, not with_op!'s seven folds).
        _ if min => {
            let id = T::identity(ReduceOp::Min);
            return fold_ints(c, id, |a, b| T::combine(ReduceOp::Min, a, b));
        }
        _ => {
            let id = T::identity(ReduceOp::Max);
            return fold_ints(c, id, |a, b| T::combine(ReduceOp::Max, a, b));
        }
    };
    T::from_bits(bits)
}

/// +inf of a 16-bit float type: magnitudes above it are NaNs.
fn half_inf<T: Element>() -> u16 {
    if T::KIND == ElemKind::F16 {
        0x7c00
    } else {
        0x7f80
    }
}

/// Two (extreme key, NaN evidence) results of a Min or Max key fold, of pieces or chunks, as
/// one: the smaller or larger key, and the larger evidence (the largest magnitude, or whether
/// either saw a NaN).
fn merge<K: Ord, N: Ord>(min: bool, a: (K, N), b: (K, N)) -> (K, N) {
    (if min { a.0.min(b.0) } else { a.0.max(b.0) }, a.1.max(b.1))
}

/// The 16-bit floats' key fold: the bits of the extreme element, or of the first NaN (`inf`
/// is the type's +inf; magnitudes above it are NaNs).
fn fold_u16(bits: &[u16], min: bool, inf: u16) -> u16 {
    let start = if min { i16::MAX } else { i16::MIN };
    let (key, top) = par::fold_chunks(
        bits,
        CHUNK,
        1,
        (start, 0),
        |c| chunk_u16(c, min),
        |a, b| merge(min, a, b),
    );
    if top > inf {
        return *bits
            .iter()
            .find(|&&b| b & 0x7fff > inf)
            .expect("a chunk saw a NaN");
    }
    key16(key as u16)
}

/// (extreme key, largest magnitude) of one chunk, read a piece at a time
/// (`memory::read_ahead`).
fn chunk_u16(c: &[u16], min: bool) -> (i16, u16) {
    let mut all = (if min { i16::MAX } else { i16::MIN }, 0);
    memory::read_ahead(c, |c| all = merge(min, all, piece(c, min)));
    return all;

    fn piece(c: &[u16], min: bool) -> (i16, u16) {
        #[cfg(target_arch = "x86_64")]
        if crate::features::avx2() {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { chunk_u16_avx2(c, min) };
        }
        chunk_u16_body(c, min)
    }
}

/// The u16 key fold compiled with 256-bit vectors (16-bit min and max, 16 keys a vector).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn chunk_u16_avx2(c: &[u16], min: bool) -> (i16, u16) {
    chunk_u16_body(c, min)
}

/// (extreme key, largest magnitude) of one chunk, each op its own branch-free loop.
#[inline(always)]
fn chunk_u16_body(c: &[u16], min: bool) -> (i16, u16) {
    let mut top = 0u16;
    let mut key = if min { i16::MAX } else { i16::MIN };
    if min {
        for &b in c {
            key = key.min(key16(b) as i16);
            top = top.max(b & 0x7fff);
        }
    } else {
        for &b in c {
            key = key.max(key16(b) as i16);
            top = top.max(b & 0x7fff);
        }
    }
    (key, top)
}

/// `Key::key` for 16-bit float bits.
#[inline(always)]
fn key16(b: u16) -> u16 {
    b ^ (((b as i16) >> 15) as u16 >> 1)
}

macro_rules! key_fold {
    ($fold:ident, $chunk:ident, $chunk_avx2:path, $chunk_body:ident, $u:ty, $i:ty) => {
        /// The bits of the extreme element, or of the first NaN.
        fn $fold(bits: &[$u], min: bool) -> $u {
            let (key, nan) = par::fold_chunks(
                bits,
                CHUNK,
                1,
                (if min { <$i>::MAX } else { <$i>::MIN }, false),
                |c| $chunk(c, min),
                |a, b| merge(min, a, b),
            );
            if nan {
                let first = bits.iter().find(|&&b| b & <$u>::ABS > <$u>::INF);
                return *first.expect("a chunk saw a NaN");
            }
            // The key map is its own inverse: the sign bit is unchanged.
            key_of(key as $u) as $u
        }

        /// (extreme key, any NaN) of one chunk, read a piece at a time (`memory::read_ahead`).
        fn $chunk(c: &[$u], min: bool) -> ($i, bool) {
            let mut all = (if min { <$i>::MAX } else { <$i>::MIN }, false);
            memory::read_ahead(c, |c| all = merge(min, all, piece(c, min)));
            return all;

            fn piece(c: &[$u], min: bool) -> ($i, bool) {
                #[cfg(target_arch = "x86_64")]
                if crate::features::avx2() {
                    // SAFETY: the CPU has AVX2, checked just above.
                    return unsafe { $chunk_avx2(c, min) };
                }
                $chunk_body(c, min)
            }
        }

        /// (extreme key, any NaN) of one chunk; the two ops are separate loops so each is a
        /// branch-free vector loop.
        #[inline(always)]
        fn $chunk_body(c: &[$u], min: bool) -> ($i, bool) {
            let abs = <$u>::ABS;
            let mut top: $u = 0;
            let mut key = if min { <$i>::MAX } else { <$i>::MIN };
            if min {
                for &b in c {
                    key = key.min(key_of(b) as $i);
                    top = top.max(b & abs);
                }
            } else {
                for &b in c {
                    key = key.max(key_of(b) as $i);
                    top = top.max(b & abs);
                }
            }
            (key, top > <$u>::INF)
        }
    };
}

/// The u32 key fold compiled with 256-bit vectors (AVX2 has 32-bit min and max; the u64 fold
/// is written with vector compares in `order_free_simd`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn chunk_u32_avx2(c: &[u32], min: bool) -> (i32, bool) {
    chunk_u32_body(c, min)
}

/// Order-preserving key (as a signed integer of the same width) of a float's bits; applied to
/// a key it gives the bits back.
trait Key: Copy {
    /// Every bit but the sign.
    const ABS: Self;
    /// +inf; magnitudes above it are NaNs.
    const INF: Self;
    fn key(self) -> Self;
}
impl Key for u32 {
    const ABS: u32 = 0x7fff_ffff;
    const INF: u32 = 0x7f80_0000;
    #[inline(always)]
    fn key(self) -> u32 {
        self ^ (((self as i32) >> 31) as u32 >> 1)
    }
}
impl Key for u64 {
    const ABS: u64 = 0x7fff_ffff_ffff_ffff;
    const INF: u64 = 0x7ff0_0000_0000_0000;
    #[inline(always)]
    fn key(self) -> u64 {
        self ^ (((self as i64) >> 63) as u64 >> 1)
    }
}
#[inline(always)]
fn key_of<U: Key>(b: U) -> U {
    b.key()
}

key_fold!(
    fold_u32,
    chunk_u32,
    chunk_u32_avx2,
    chunk_u32_body,
    u32,
    i32
);
key_fold!(
    fold_u64,
    chunk_u64,
    super::order_free_simd::keys_u64,
    chunk_u64_body,
    u64,
    i64
);
