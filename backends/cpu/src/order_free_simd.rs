//! The f64 Min/Max key fold of `order_free` with AVX2. AVX2 has no 64-bit min, max or
//! arithmetic shift, so the compiler turns the plain loop into a compare and a branch-free
//! select per element, one at a time; written with vector compares and blends it takes four
//! elements per handful of instructions. Same keys, same selection, same result.
#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::*;

/// (extreme key, any NaN) of `c`, as `order_free`'s scalar loop computes them.
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn keys_u64(c: &[u64], min: bool) -> (i64, bool) {
    const ABS: i64 = i64::MAX;
    const INF: i64 = 0x7ff0_0000_0000_0000;
    let zero = _mm256_setzero_si256();
    let (abs, inf) = (_mm256_set1_epi64x(ABS), _mm256_set1_epi64x(INF));
    let start = if min { i64::MAX } else { i64::MIN };
    // Two accumulators, so consecutive vectors do not wait on each other's select.
    let mut key = [_mm256_set1_epi64x(start); 2];
    let mut nan = zero;
    let (vectors, tail) = c.as_chunks::<8>();
    for v in vectors {
        for (half, key) in key.iter_mut().enumerate() {
            // SAFETY: 4 values of `v` from 4 * half.
            let b = unsafe { _mm256_loadu_si256(v[4 * half..].as_ptr().cast()) };
            // key = bits ^ (sign ? magnitude mask : 0).
            let k = _mm256_xor_si256(b, _mm256_srli_epi64::<1>(_mm256_cmpgt_epi64(zero, b)));
            let take = if min {
                _mm256_cmpgt_epi64(*key, k)
            } else {
                _mm256_cmpgt_epi64(k, *key)
            };
            *key = _mm256_blendv_epi8(*key, k, take);
            nan = _mm256_or_si256(nan, _mm256_cmpgt_epi64(_mm256_and_si256(b, abs), inf));
        }
    }
    let mut lanes = [0i64; 8];
    // SAFETY: `lanes` holds the two vectors.
    unsafe {
        _mm256_storeu_si256(lanes.as_mut_ptr().cast(), key[0]);
        _mm256_storeu_si256(lanes[4..].as_mut_ptr().cast(), key[1]);
    }
    let mut any_nan = _mm256_movemask_epi8(nan) != 0;
    let mut best = start;
    for k in lanes {
        best = if min { best.min(k) } else { best.max(k) };
    }
    for &b in tail {
        let k = (b ^ (((b as i64) >> 63) as u64 >> 1)) as i64;
        best = if min { best.min(k) } else { best.max(k) };
        any_nan |= (b & ABS as u64) > INF as u64;
    }
    (best, any_nan)
}
