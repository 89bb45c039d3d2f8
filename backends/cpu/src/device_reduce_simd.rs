//! AVX2 tile partials of the canonical device reduce for float Sum and Product (`reduce`).
//!
//! Lane l of a tile folds, chunk by chunk, its V = 16 / sizeof(T) consecutive elements: one
//! 256-bit load holds whole lanes' slots side by side. A few unpack instructions turn the loads
//! of a run of lanes into one vector per slot (lanes in a fixed shuffled order), and the lanes'
//! accumulators then take slot after slot as vector ops: the same pairs combined in the same
//! order as the scalar definition (`vector`), for a fraction of the instructions.

use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

/// The partial of a full tile by a vector kernel, or None where none applies (another CPU, a
/// short tile, another type or op).
pub(crate) fn tile_partial<T: Element>(tile: &[T], op: ReduceOp) -> Option<T> {
    #[cfg(target_arch = "x86_64")]
    if tile.len() == wavekit_core::canonical::REDUCE_TILE && crate::features::avx2() {
        use super::vector::{cast, with_float_op};
        // SAFETY: the CPU has AVX2 (checked above), and each arm views T as the type its KIND
        // names, which T is.
        return with_float_op!(T, op, |R, O| unsafe {
            T::from_bits(Element::to_bits(x86::partial::<R, O>(cast(tile))))
        });
    }
    let _ = (tile, op);
    None
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::combine::bfly;
    use super::super::vector::{Op, Raw};
    use std::arch::x86_64::*;
    use wavekit_core::canonical::{REDUCE_TILE, REDUCE_TILE_LANES};
    use wavekit_core::element::Element;
    use wavekit_core::width::LOGICAL_GROUP;

    const GROUP: usize = LOGICAL_GROUP as usize;

    /// How a vector type's loads become slot vectors.
    pub(crate) trait Slots: Raw {
        /// Elements per lane per chunk (V).
        const V: usize;
        /// `PERM[i]`: the lane (within the run of L) a slot vector holds at position i.
        const PERM: [usize; 8];
        /// Folds the V slots at `p` (L lanes' worth, V loads) into `acc`, slot by slot.
        ///
        /// # Safety
        /// AVX2; `p` readable for `L * V` values.
        unsafe fn fold(acc: Self, p: *const Self::E, f: impl Fn(Self, Self) -> Self) -> Self;
    }

    impl Slots for __m256 {
        const V: usize = 4;
        const PERM: [usize; 8] = [0, 2, 4, 6, 1, 3, 5, 7];
        #[inline(always)]
        unsafe fn fold(acc: Self, p: *const f32, f: impl Fn(Self, Self) -> Self) -> Self {
            // SAFETY: AVX2; 32 values at p (the caller's promise).
            unsafe {
                let (r0, r1) = (_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(8)));
                let (r2, r3) = (_mm256_loadu_ps(p.add(16)), _mm256_loadu_ps(p.add(24)));
                // a: lanes 0 and 2 (slots 0, 1) and 1 and 3 in the upper half; b: slots 2, 3.
                let a = _mm256_castps_pd(_mm256_unpacklo_ps(r0, r1));
                let b = _mm256_castps_pd(_mm256_unpackhi_ps(r0, r1));
                let c = _mm256_castps_pd(_mm256_unpacklo_ps(r2, r3));
                let d = _mm256_castps_pd(_mm256_unpackhi_ps(r2, r3));
                let s0 = _mm256_castpd_ps(_mm256_unpacklo_pd(a, c));
                let s1 = _mm256_castpd_ps(_mm256_unpackhi_pd(a, c));
                let s2 = _mm256_castpd_ps(_mm256_unpacklo_pd(b, d));
                let s3 = _mm256_castpd_ps(_mm256_unpackhi_pd(b, d));
                f(f(f(f(acc, s0), s1), s2), s3)
            }
        }
    }

    impl Slots for __m256d {
        const V: usize = 2;
        const PERM: [usize; 8] = [0, 2, 1, 3, 0, 0, 0, 0];
        #[inline(always)]
        unsafe fn fold(acc: Self, p: *const f64, f: impl Fn(Self, Self) -> Self) -> Self {
            // SAFETY: AVX2; 8 values at p (the caller's promise).
            unsafe {
                let (r0, r1) = (_mm256_loadu_pd(p), _mm256_loadu_pd(p.add(4)));
                let s0 = _mm256_unpacklo_pd(r0, r1);
                let s1 = _mm256_unpackhi_pd(r0, r1);
                f(f(acc, s0), s1)
            }
        }
    }

    /// Runs of lanes whose accumulators are folded side by side, for instruction-level
    /// parallelism across the otherwise sequential chains.
    const RUNS: usize = 4;

    /// # Safety
    /// The CPU has AVX2; `tile` is a full tile.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn partial<R: Slots, O: Op<R>>(tile: &[R::E]) -> R::E {
        assert_eq!(tile.len(), REDUCE_TILE);
        let id = R::E::identity(O::OP);
        let chunk = REDUCE_TILE_LANES * R::V;
        let run = R::L * R::V;
        let mut lanes = [id; REDUCE_TILE_LANES];
        for first in (0..REDUCE_TILE_LANES / R::L).step_by(RUNS) {
            let mut acc = [R::splat(id); RUNS];
            for c in 0..REDUCE_TILE / chunk {
                for (k, acc) in acc.iter_mut().enumerate() {
                    // SAFETY: AVX2; run `first + k` of chunk c lies inside the tile.
                    *acc = unsafe {
                        R::fold(*acc, tile[c * chunk + (first + k) * run..].as_ptr(), O::v)
                    };
                }
            }
            for (k, acc) in acc.into_iter().enumerate() {
                let mut v = [id; 8];
                // SAFETY: `v` holds at least L values.
                unsafe { acc.store(v.as_mut_ptr()) };
                let base = (first + k) * R::L;
                for (i, &x) in v[..R::L].iter().enumerate() {
                    lanes[base + R::PERM[i]] = x;
                }
            }
        }
        let mut groups = [id; REDUCE_TILE_LANES / GROUP];
        for (g, lanes) in groups.iter_mut().zip(lanes.chunks_exact_mut(GROUP)) {
            *g = bfly(lanes, O::s);
        }
        bfly(&mut groups, O::s)
    }
}
