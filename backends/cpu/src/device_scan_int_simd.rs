//! The integer Sum scan of a chunk with AVX2: each 256-bit vector is scanned in registers
//! (shifted adds within the 128-bit halves, then the low half's total into the high half), the
//! running total is added, and the total moves on by the vector's own sum, so the chain from
//! one vector to the next is a single add. Wrapping integer addition is associative, so this
//! association gives the same bits as any other; an exclusive value is the inclusive one minus
//! the element, exact in two's complement.

use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

/// Writes the scan of `x` from `carry` to `out` and returns the carry after `x` for an integer
/// Sum on a CPU with AVX2; returns None, writing nothing, otherwise.
pub(crate) fn sum<T: Element>(
    x: &[T],
    out: &mut [T],
    carry: T,
    exclusive: bool,
    op: ReduceOp,
) -> Option<T> {
    assert_eq!(x.len(), out.len());
    #[cfg(target_arch = "x86_64")]
    if op == ReduceOp::Sum && !T::KIND.is_float() && crate::features::avx2() {
        let bits = carry.to_bits();
        // SAFETY: the CPU has AVX2 (checked above); T is a 4- or 8-byte integer, which the arms
        // view as i32 or i64 (same size, every bit pattern valid, wrapping add the same bits).
        let after = unsafe {
            match size_of::<T>() {
                4 => x86::scan_32(
                    x.as_ptr().cast(),
                    out.as_mut_ptr().cast(),
                    x.len(),
                    bits as i32,
                    exclusive,
                ) as u32 as u64,
                _ => x86::scan_64(
                    x.as_ptr().cast(),
                    out.as_mut_ptr().cast(),
                    x.len(),
                    bits as i64,
                    exclusive,
                ) as u64,
            }
        };
        return Some(T::from_bits(after));
    }
    let _ = (x, out, carry, exclusive, op);
    None
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// # Safety
    /// AVX2; `x` readable and `out` writable for `n` values.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn scan_32(
        x: *const i32,
        out: *mut i32,
        n: usize,
        carry: i32,
        exclusive: bool,
    ) -> i32 {
        let mut c = _mm256_set1_epi32(carry);
        let last = _mm256_set1_epi32(7);
        let whole = n / 8 * 8;
        for i in (0..whole).step_by(8) {
            // SAFETY: i + 8 <= n.
            let v = unsafe { _mm256_loadu_si256(x.add(i).cast()) };
            let mut s = _mm256_add_epi32(v, _mm256_slli_si256::<4>(v));
            s = _mm256_add_epi32(s, _mm256_slli_si256::<8>(s));
            // The low half's total (its element 3) into every element of the high half.
            let low = _mm256_shuffle_epi32::<0xff>(s);
            s = _mm256_add_epi32(s, _mm256_permute2x128_si256::<0x08>(low, low));
            let mut o = _mm256_add_epi32(s, c);
            if exclusive {
                o = _mm256_sub_epi32(o, v);
            }
            // SAFETY: i + 8 <= n.
            unsafe { _mm256_storeu_si256(out.add(i).cast(), o) };
            c = _mm256_add_epi32(c, _mm256_permutevar8x32_epi32(s, last));
        }
        let mut c = _mm256_cvtsi256_si32(c);
        for i in whole..n {
            // SAFETY: i < n.
            unsafe {
                let v = *x.add(i);
                let next = c.wrapping_add(v);
                *out.add(i) = if exclusive { c } else { next };
                c = next;
            }
        }
        c
    }

    /// # Safety
    /// AVX2; `x` readable and `out` writable for `n` values.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn scan_64(
        x: *const i64,
        out: *mut i64,
        n: usize,
        carry: i64,
        exclusive: bool,
    ) -> i64 {
        let mut c = _mm256_set1_epi64x(carry);
        let whole = n / 4 * 4;
        for i in (0..whole).step_by(4) {
            // SAFETY: i + 4 <= n.
            let v = unsafe { _mm256_loadu_si256(x.add(i).cast()) };
            let mut s = _mm256_add_epi64(v, _mm256_slli_si256::<8>(v));
            // The low half's total (its element 1) into both elements of the high half.
            let low = _mm256_permute4x64_epi64::<0b01_01_01_01>(s);
            s = _mm256_add_epi64(s, _mm256_blend_epi32::<0xf0>(_mm256_setzero_si256(), low));
            let mut o = _mm256_add_epi64(s, c);
            if exclusive {
                o = _mm256_sub_epi64(o, v);
            }
            // SAFETY: i + 4 <= n.
            unsafe { _mm256_storeu_si256(out.add(i).cast(), o) };
            c = _mm256_add_epi64(c, _mm256_permute4x64_epi64::<0b11_11_11_11>(s));
        }
        let mut c = _mm256_extract_epi64::<0>(c);
        for i in whole..n {
            // SAFETY: i < n.
            unsafe {
                let v = *x.add(i);
                let next = c.wrapping_add(v);
                *out.add(i) = if exclusive { c } else { next };
                c = next;
            }
        }
        c
    }
}
