//! AVX2 tile kernels of the canonical scan for float Sum and Product (`device_scan_tile`): a block is
//! one lane of 8 groups (f32) or of 4 groups (f64), one 256-bit vector, and its threads' items
//! are brought item-major by in-register transposes, so each step of a thread's sequential
//! fold, `op(P_t, s_k)` and `op(X, L_e)` is one vector instruction for the whole block, on the
//! same pairs in the same order as the scalar definition (`vector`).

use super::lookback::Link;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

/// Scans the chunk with a vector kernel (AVX-512 where the CPU, type and op have one, else
/// AVX2) through `kept` (a tile for each of the chunk's tiles) and returns true, or returns
/// false where none applies (another CPU, another type or op), leaving the chunk untouched.
#[allow(clippy::too_many_arguments)]
pub(crate) fn chunk<T: Element>(
    x: &[T],
    out: &mut [T],
    kept: &mut [T],
    ahead: &[T],
    link: &mut Link,
    exclusive: bool,
    stream: bool,
    group: usize,
    op: ReduceOp,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if crate::features::avx512() && T::KIND == wavekit_core::element::ElemKind::F32 {
        use super::device_scan_avx512::x86::chunk as avx512;
        use super::vector::{Add, Mul, cast, cast_mut};
        // The casts below reinterpret the slices as f32, which T is (checked above): the same
        // length, size, alignment and bit validity; each keeps its own borrow, so the four stay
        // as disjoint as they were.
        let (x, out, kept, ahead) = (
            // SAFETY: T is f32 (checked above).
            unsafe { cast(x) },
            // SAFETY: T is f32 (checked above).
            unsafe { cast_mut(out) },
            // SAFETY: T is f32 (checked above).
            unsafe { cast_mut(kept) },
            // SAFETY: T is f32 (checked above).
            unsafe { cast(ahead) },
        );
        match op {
            // SAFETY: the CPU has AVX-512F (checked above), the one requirement of the
            // target-feature kernel; its slices are the safe ones just made.
            ReduceOp::Sum => unsafe {
                avx512::<Add>(x, out, kept, ahead, link, exclusive, stream, group)
            },
            // SAFETY: as for Sum.
            ReduceOp::Product => unsafe {
                avx512::<Mul>(x, out, kept, ahead, link, exclusive, stream, group)
            },
            _ => return false,
        }
        return true;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::features::avx2() {
        use super::vector::{cast, cast_mut, with_float_op};
        // SAFETY: the CPU has AVX2 (checked above), and each arm views T as the type its KIND
        // names, which T is.
        return with_float_op!(T, op, |R, O| unsafe {
            x86::chunk::<R, O>(
                cast(x),
                cast_mut(out),
                cast_mut(kept),
                cast(ahead),
                link,
                exclusive,
                stream,
                group,
            )
        })
        .is_some();
    }
    let _ = (x, out, kept, ahead, link, exclusive, stream, group, op);
    false
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::device_scan_tile::{GROUP, GROUPS, ITEMS, PerThread, TileKernel, chunk_with};
    use super::super::lookback::Link;
    use super::super::vector::{Op, Raw};
    use std::arch::x86_64::*;
    use std::marker::PhantomData;
    use wavekit_core::canonical::SCAN_TILE;
    use wavekit_core::element::Element;

    /// Items of a half block: a thread's 16 items go through in two halves.
    const HALF: usize = 8;

    /// A vector of one lane of `L` groups, moved to and from the threads' items.
    pub(crate) trait Halves: Raw {
        /// Items `8h .. 8h + 8` of the threads whose items start at `tile + rows[j]`, j < L,
        /// item-major.
        ///
        /// # Safety
        /// AVX2; each row readable for `8h + 8` values.
        unsafe fn load_half(tile: *const Self::E, rows: &[usize; HALF], h: usize) -> [Self; HALF];
        /// The inverse of `load_half`.
        ///
        /// # Safety
        /// AVX2; each row writable for `8h + 8` values.
        unsafe fn store_half(tile: *mut Self::E, rows: &[usize; HALF], h: usize, v: [Self; HALF]);
    }

    /// Rows in, columns out: `out[k][j] = r[j][k]`, 8×8 of 32 bits.
    #[inline(always)]
    fn t8x8(r: [__m256; 8]) -> [__m256; 8] {
        // SAFETY: AVX2 (see Halves).
        unsafe {
            let t0 = _mm256_unpacklo_ps(r[0], r[1]);
            let t1 = _mm256_unpackhi_ps(r[0], r[1]);
            let t2 = _mm256_unpacklo_ps(r[2], r[3]);
            let t3 = _mm256_unpackhi_ps(r[2], r[3]);
            let t4 = _mm256_unpacklo_ps(r[4], r[5]);
            let t5 = _mm256_unpackhi_ps(r[4], r[5]);
            let t6 = _mm256_unpacklo_ps(r[6], r[7]);
            let t7 = _mm256_unpackhi_ps(r[6], r[7]);
            let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
            let u1 = _mm256_shuffle_ps::<0xee>(t0, t2);
            let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
            let u3 = _mm256_shuffle_ps::<0xee>(t1, t3);
            let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
            let u5 = _mm256_shuffle_ps::<0xee>(t4, t6);
            let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
            let u7 = _mm256_shuffle_ps::<0xee>(t5, t7);
            [
                _mm256_permute2f128_ps::<0x20>(u0, u4),
                _mm256_permute2f128_ps::<0x20>(u1, u5),
                _mm256_permute2f128_ps::<0x20>(u2, u6),
                _mm256_permute2f128_ps::<0x20>(u3, u7),
                _mm256_permute2f128_ps::<0x31>(u0, u4),
                _mm256_permute2f128_ps::<0x31>(u1, u5),
                _mm256_permute2f128_ps::<0x31>(u2, u6),
                _mm256_permute2f128_ps::<0x31>(u3, u7),
            ]
        }
    }

    /// Rows in, columns out, 4×4 of 64 bits.
    #[inline(always)]
    fn t4x4(r: [__m256d; 4]) -> [__m256d; 4] {
        // SAFETY: AVX2 (see Halves).
        unsafe {
            let t0 = _mm256_unpacklo_pd(r[0], r[1]);
            let t1 = _mm256_unpackhi_pd(r[0], r[1]);
            let t2 = _mm256_unpacklo_pd(r[2], r[3]);
            let t3 = _mm256_unpackhi_pd(r[2], r[3]);
            [
                _mm256_permute2f128_pd::<0x20>(t0, t2),
                _mm256_permute2f128_pd::<0x20>(t1, t3),
                _mm256_permute2f128_pd::<0x31>(t0, t2),
                _mm256_permute2f128_pd::<0x31>(t1, t3),
            ]
        }
    }

    impl Halves for __m256 {
        #[inline(always)]
        unsafe fn load_half(tile: *const f32, rows: &[usize; HALF], h: usize) -> [Self; HALF] {
            let mut r = [<Self as Raw>::splat(0.0); 8];
            for (r, &row) in r.iter_mut().zip(rows) {
                // SAFETY: the caller's promise.
                *r = unsafe { <Self as Raw>::load(tile.add(row + HALF * h)) };
            }
            t8x8(r)
        }
        #[inline(always)]
        unsafe fn store_half(tile: *mut f32, rows: &[usize; HALF], h: usize, v: [Self; HALF]) {
            for (r, &row) in t8x8(v).into_iter().zip(rows) {
                // SAFETY: the caller's promise.
                unsafe { r.store(tile.add(row + HALF * h)) };
            }
        }
    }

    impl Halves for __m256d {
        #[inline(always)]
        unsafe fn load_half(tile: *const f64, rows: &[usize; HALF], h: usize) -> [Self; HALF] {
            let mut v = [<Self as Raw>::splat(0.0); HALF];
            for q in 0..2 {
                let mut r = [<Self as Raw>::splat(0.0); 4];
                for (r, &row) in r.iter_mut().zip(rows) {
                    // SAFETY: the caller's promise.
                    *r = unsafe { <Self as Raw>::load(tile.add(row + HALF * h + 4 * q)) };
                }
                v[4 * q..][..4].copy_from_slice(&t4x4(r));
            }
            v
        }
        #[inline(always)]
        unsafe fn store_half(tile: *mut f64, rows: &[usize; HALF], h: usize, v: [Self; HALF]) {
            for q in 0..2 {
                let c = [v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]];
                for (r, &row) in t4x4(c).into_iter().zip(rows) {
                    // SAFETY: the caller's promise.
                    unsafe { r.store(tile.add(row + HALF * h + 4 * q)) };
                }
            }
        }
    }

    /// Offsets of the items of block `(lane, b)`: lane `lane` of groups `L b .. L b + L`.
    #[inline(always)]
    fn rows<R: Raw>(lane: usize, b: usize) -> [usize; HALF] {
        std::array::from_fn(|j| {
            if j < R::L {
                ITEMS * (GROUP * (R::L * b + j) + lane)
            } else {
                0
            }
        })
    }

    struct Kernel<R, O>(PhantomData<(R, O)>);

    impl<R: Halves, O: Op<R>> TileKernel<R::E> for Kernel<R, O> {
        #[inline(always)]
        fn op(&self, a: R::E, b: R::E) -> R::E {
            O::s(a, b)
        }

        /// Keeps block `(lane, b)`'s s_k, item-major, as the 16 vectors from `kept[16 L n]`
        /// on, n the block's place in the loops' order.
        #[inline(always)]
        fn totals(&self, tile: &[R::E], kept: &mut [R::E]) -> PerThread<R::E> {
            assert!(tile.len() == SCAN_TILE && kept.len() == SCAN_TILE);
            let mut totals = [[tile[0]; GROUPS]; GROUP];
            let mut slot = kept.as_mut_ptr();
            for (lane, a) in totals.iter_mut().enumerate() {
                for (b, a) in a.chunks_exact_mut(R::L).enumerate() {
                    let rows = rows::<R>(lane, b);
                    let mut s = R::splat(tile[0]);
                    for h in 0..ITEMS / HALF {
                        // SAFETY: every row is a thread of the full tile (asserted above).
                        let v = unsafe { R::load_half(tile.as_ptr(), &rows, h) };
                        for (k, x) in v.into_iter().enumerate() {
                            s = if h == 0 && k == 0 { x } else { O::v(s, x) };
                            // SAFETY: the blocks' 16 L values each fill the whole `kept`
                            // (asserted above) once, in order.
                            unsafe {
                                s.store(slot);
                                slot = slot.add(R::L);
                            }
                        }
                    }
                    // SAFETY: `a` holds L values.
                    unsafe { s.store(a.as_mut_ptr()) };
                }
            }
            totals
        }

        #[inline(always)]
        fn scan(
            &self,
            kept: &[R::E],
            prefixes: &PerThread<R::E>,
            x: Option<R::E>,
            out: &mut [R::E],
        ) {
            assert!(kept.len() == SCAN_TILE && out.len() == SCAN_TILE);
            let x = x.map(R::splat);
            let mut slot = kept.as_ptr();
            for (lane, p) in prefixes.iter().enumerate() {
                for (b, p) in p.chunks_exact(R::L).enumerate() {
                    let rows = rows::<R>(lane, b);
                    // SAFETY: `p` holds L values.
                    let p = unsafe { R::load(p.as_ptr()) };
                    for h in 0..ITEMS / HALF {
                        // SAFETY: the blocks' s_k as `totals` kept them, in the same order.
                        let mut v: [R; HALF] = std::array::from_fn(|_| unsafe {
                            let v = R::load(slot);
                            slot = slot.add(R::L);
                            v
                        });
                        match x {
                            Some(x) => v.iter_mut().for_each(|v| *v = O::v(x, O::v(p, *v))),
                            None => v.iter_mut().for_each(|v| *v = O::v(p, *v)),
                        }
                        // SAFETY: every row is a thread of the full output tile.
                        unsafe { R::store_half(out.as_mut_ptr(), &rows, h, v) };
                    }
                }
            }
        }
    }

    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn chunk<R: Halves, O: Op<R>>(
        x: &[R::E],
        out: &mut [R::E],
        kept: &mut [R::E],
        ahead: &[R::E],
        link: &mut Link,
        exclusive: bool,
        stream: bool,
        group: usize,
    ) {
        let k = Kernel::<R, O>(PhantomData);
        chunk_with(
            &k,
            x,
            out,
            kept,
            ahead,
            link,
            exclusive,
            stream,
            group,
            R::E::identity(O::OP),
        );
    }
}
