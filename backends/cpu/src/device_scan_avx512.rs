//! AVX-512 tile kernel of the canonical scan for f32 Sum and Product (`device_scan_tile`): the
//! AVX2 kernel's scheme (`device_scan_simd`) on 512-bit vectors. A block is 16 threads, lanes
//! `2m` and `2m + 1` of the 8 groups, whose per-thread values lie side by side in a
//! `PerThread`; each thread's 16 items are one vector, so a block comes item-major by one
//! 16 x 16 transpose (a quarter of a shuffle an item, against three eighths for the AVX2
//! kernel's two 8 x 8 halves) and every step of the fold is one instruction for 16 threads, on
//! the same pairs in the same order as the scalar definition. `device_scan_simd::chunk` picks
//! it for f32 where the CPU has AVX-512F.

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use super::super::device_scan_tile::{GROUP, GROUPS, ITEMS, PerThread, TileKernel, chunk_with};
    use super::super::lookback::Link;
    use super::super::vector::{Op, Raw};
    use std::arch::x86_64::*;
    use std::marker::PhantomData;
    use wavekit_core::canonical::SCAN_TILE;
    use wavekit_core::element::Element;

    /// Threads of a block, and items of a thread: one vector each.
    const B: usize = 16;
    const _: () = assert!(ITEMS == B && GROUPS * 2 == B && GROUP.is_multiple_of(2));

    /// Rows in, columns out: `out[k][j] = r[j][k]`, 16 x 16 of 32 bits.
    #[inline(always)]
    pub(crate) fn t16x16(r: [__m512; B]) -> [__m512; B] {
        // SAFETY: AVX-512F (every caller is compiled with it).
        unsafe {
            // Pairs of rows interleaved, then pairs of pairs: 4 x 4 blocks transposed within
            // each 128-bit quarter.
            let t: [__m512; B] = std::array::from_fn(|i| {
                let (a, b) = (r[i & !1], r[i | 1]);
                if i % 2 == 0 {
                    _mm512_unpacklo_ps(a, b)
                } else {
                    _mm512_unpackhi_ps(a, b)
                }
            });
            let u: [__m512; B] = std::array::from_fn(|i| {
                // i = 4q + 2s + h: rows 4q + s and 4q + s + 2 of t, low or high pairs.
                let (q, s, h) = (i / 4, (i / 2) % 2, i % 2);
                let (a, b) = (t[4 * q + s], t[4 * q + s + 2]);
                if h == 0 {
                    _mm512_shuffle_ps::<0x44>(a, b)
                } else {
                    _mm512_shuffle_ps::<0xee>(a, b)
                }
            });
            // Then the 128-bit quarters: even and odd quarters of rows i and i + 4 of each
            // eight, then of rows i and i + 8.
            let w: [__m512; B] = std::array::from_fn(|i| {
                let (o, k) = (i / 8 * 8, i % 8);
                let (a, b) = (u[o + k % 4], u[o + k % 4 + 4]);
                if k < 4 {
                    _mm512_shuffle_f32x4::<0x88>(a, b)
                } else {
                    _mm512_shuffle_f32x4::<0xdd>(a, b)
                }
            });
            std::array::from_fn(|i| {
                let (a, b) = (w[i % 8], w[i % 8 + 8]);
                if i < 8 {
                    _mm512_shuffle_f32x4::<0x88>(a, b)
                } else {
                    _mm512_shuffle_f32x4::<0xdd>(a, b)
                }
            })
        }
    }

    /// Offsets of the items of block m: vector lane j is thread `32 (j % 8) + 2m + j / 8`,
    /// the order of the block's values in a `PerThread` from `[2m][0]` on.
    #[inline(always)]
    fn rows(m: usize) -> [usize; B] {
        std::array::from_fn(|j| ITEMS * (GROUP * (j % GROUPS) + 2 * m + j / GROUPS))
    }

    /// Block m's threads' items, item-major.
    ///
    /// # Safety
    /// AVX-512F; `tile` readable for a whole tile.
    #[inline(always)]
    unsafe fn load(tile: *const f32, m: usize) -> [__m512; B] {
        let rows = rows(m);
        // SAFETY: every row is a thread of the tile, ITEMS values (the caller's promise).
        t16x16(std::array::from_fn(|j| unsafe {
            <__m512 as Raw>::load(tile.add(rows[j]))
        }))
    }

    struct Kernel<O>(PhantomData<O>);

    impl<O: Op<__m512>> TileKernel<f32> for Kernel<O> {
        #[inline(always)]
        fn op(&self, a: f32, b: f32) -> f32 {
            O::s(a, b)
        }

        /// Keeps block m's s_k, item-major, as the 16 vectors from `kept[256 m]` on.
        #[inline(always)]
        fn totals(&self, tile: &[f32], kept: &mut [f32]) -> PerThread<f32> {
            assert!(tile.len() == SCAN_TILE && kept.len() == SCAN_TILE);
            let mut totals = [[0.0; GROUPS]; GROUP];
            let flat = totals.as_mut_ptr().cast::<f32>();
            for m in 0..GROUP / 2 {
                // SAFETY: the tile is whole (asserted above).
                let mut v = unsafe { load(tile.as_ptr(), m) };
                for k in 1..B {
                    v[k] = O::v(v[k - 1], v[k]);
                }
                for (k, v) in v.iter().enumerate() {
                    // SAFETY: block m's 256 values lie inside the whole `kept` (asserted).
                    unsafe { v.store(kept.as_mut_ptr().add(B * (B * m + k))) };
                }
                // SAFETY: threads 2m and 2m + 1 of every group: 16 values inside `totals`.
                unsafe { v[B - 1].store(flat.add(2 * m * GROUPS)) };
            }
            totals
        }

        #[inline(always)]
        fn scan(&self, kept: &[f32], prefixes: &PerThread<f32>, x: Option<f32>, out: &mut [f32]) {
            assert!(kept.len() == SCAN_TILE && out.len() == SCAN_TILE);
            let x = x.map(<__m512 as Raw>::splat);
            let flat = prefixes.as_ptr().cast::<f32>();
            for m in 0..GROUP / 2 {
                // SAFETY: as in `totals`.
                let p = unsafe { <__m512 as Raw>::load(flat.add(2 * m * GROUPS)) };
                // SAFETY: block m's s_k as `totals` kept them, inside the whole `kept`.
                let mut v: [__m512; B] = std::array::from_fn(|k| unsafe {
                    <__m512 as Raw>::load(kept.as_ptr().add(B * (B * m + k)))
                });
                match x {
                    Some(x) => v.iter_mut().for_each(|v| *v = O::v(x, O::v(p, *v))),
                    None => v.iter_mut().for_each(|v| *v = O::v(p, *v)),
                }
                let rows = rows(m);
                for (r, &row) in t16x16(v).into_iter().zip(&rows) {
                    // SAFETY: every row is a thread of the whole output tile (asserted above).
                    unsafe { r.store(out.as_mut_ptr().add(row)) };
                }
            }
        }
    }

    /// # Safety
    /// The CPU has AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn chunk<O: Op<__m512>>(
        x: &[f32],
        out: &mut [f32],
        kept: &mut [f32],
        ahead: &[f32],
        link: &mut Link,
        exclusive: bool,
        stream: bool,
        group: usize,
    ) {
        let k = Kernel::<O>(PhantomData);
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
            f32::identity(O::OP),
        );
    }
}
