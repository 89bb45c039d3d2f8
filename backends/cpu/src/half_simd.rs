//! The 16-bit floats widened to `f32` and rounded back a slice at a time: F16C for f16 and AVX2
//! integer ops for bf16 where the CPU has them, eight values an instruction, else
//! `Element::to_acc` / `from_acc` one by one. Both give the same bits for every input (the
//! tests run all 2^16 values of each type and f32 edge cases through both): the `half` crate's
//! software conversions, which `to_acc` / `from_acc` run in this no-std build, round to nearest
//! even and keep a NaN's leading payload bits with the quiet bit set, as F16C does.

use wavekit_core::element::{ElemKind, Element};

/// `out[i] = x[i].to_acc()`; the vectors serve f16 and bf16.
pub(crate) fn widen<T: Element>(x: &[T], out: &mut [T::Acc]) {
    assert_eq!(x.len(), out.len(), "widen of equal lengths");
    #[cfg(target_arch = "x86_64")]
    let done = match x86::kind::<T>() {
        // SAFETY: `kind` says the CPU has the features and T is that 16-bit type, whose Acc
        // is f32.
        Some(kind) => unsafe {
            let out = std::slice::from_raw_parts_mut(out.as_mut_ptr().cast(), out.len());
            x86::widen(kind, x.as_ptr().cast(), out)
        },
        None => 0,
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    for (o, &v) in out[done..].iter_mut().zip(&x[done..]) {
        *o = v.to_acc();
    }
}

/// `out[i] = T::from_acc(x[i])`; the vectors serve f16 and bf16.
pub(crate) fn narrow<T: Element>(x: &[T::Acc], out: &mut [T]) {
    assert_eq!(x.len(), out.len(), "narrow of equal lengths");
    #[cfg(target_arch = "x86_64")]
    let done = match x86::kind::<T>() {
        // SAFETY: as in `widen`.
        Some(kind) => unsafe {
            let x = std::slice::from_raw_parts(x.as_ptr().cast(), x.len());
            x86::narrow(kind, x, out.as_mut_ptr().cast())
        },
        None => 0,
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    for (o, &v) in out[done..].iter_mut().zip(&x[done..]) {
        *o = T::from_acc(v);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{ElemKind, Element};
    use std::arch::x86_64::*;

    /// Values a vector step converts.
    const L: usize = 8;

    /// T's 16-bit kind when the CPU can convert it with vectors.
    pub(super) fn kind<T: Element>() -> Option<ElemKind> {
        let kind = T::KIND;
        let ok = match kind {
            ElemKind::F16 => crate::features::avx2() && std::arch::is_x86_feature_detected!("f16c"),
            ElemKind::BF16 => crate::features::avx2(),
            _ => false,
        };
        ok.then_some(kind)
    }

    /// Widens the whole vectors of the input and returns how many values that was; the caller
    /// converts the rest.
    ///
    /// # Safety
    /// AVX2 (and F16C for F16); `x` readable for `out.len()` values of the 16-bit type `kind`.
    #[target_feature(enable = "avx2,f16c")]
    pub(super) unsafe fn widen(kind: ElemKind, x: *const u16, out: &mut [f32]) -> usize {
        let done = out.len() / L * L;
        for i in (0..done).step_by(L) {
            // SAFETY: i + L <= out.len() (the caller's promise for `x`).
            unsafe {
                let h = _mm_loadu_si128(x.add(i).cast());
                let w = if kind == ElemKind::F16 {
                    _mm256_cvtph_ps(h)
                } else {
                    bf16_to_f32(h)
                };
                _mm256_storeu_ps(out.as_mut_ptr().add(i), w);
            }
        }
        done
    }

    /// Rounds the whole vectors of the input and returns how many values that was; the caller
    /// converts the rest.
    ///
    /// # Safety
    /// AVX2 (and F16C for F16); `out` writable for `x.len()` values of the 16-bit type `kind`.
    #[target_feature(enable = "avx2,f16c")]
    pub(super) unsafe fn narrow(kind: ElemKind, x: &[f32], out: *mut u16) -> usize {
        let done = x.len() / L * L;
        for i in (0..done).step_by(L) {
            // SAFETY: i + L <= x.len() (the caller's promise for `out`).
            unsafe {
                let w = _mm256_loadu_ps(x.as_ptr().add(i));
                let h = if kind == ElemKind::F16 {
                    _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(w)
                } else {
                    f32_to_bf16(_mm256_castps_si256(w))
                };
                _mm_storeu_si128(out.add(i).cast(), h);
            }
        }
        done
    }

    /// bf16 to f32: the bits moved up 16, a NaN's quiet bit set (as `half` does).
    #[inline(always)]
    fn bf16_to_f32(h: __m128i) -> __m256 {
        // SAFETY: AVX2 (the callers are compiled with it).
        unsafe {
            let x = _mm256_cvtepu16_epi32(h);
            let nan = _mm256_cmpgt_epi32(
                _mm256_and_si256(x, _mm256_set1_epi32(0x7fff)),
                _mm256_set1_epi32(0x7f80),
            );
            let x = _mm256_or_si256(x, _mm256_and_si256(nan, _mm256_set1_epi32(0x40)));
            _mm256_castsi256_ps(_mm256_slli_epi32::<16>(x))
        }
    }

    /// f32 bits to bf16, rounded to nearest even by adding 0x7fff plus the kept part's lowest
    /// bit; a NaN keeps its top bits with the quiet bit set (as `half` does).
    #[inline(always)]
    fn f32_to_bf16(x: __m256i) -> __m128i {
        // SAFETY: AVX2 (the callers are compiled with it).
        unsafe {
            let hi = _mm256_srli_epi32::<16>(x);
            let odd = _mm256_and_si256(hi, _mm256_set1_epi32(1));
            let bias = _mm256_add_epi32(_mm256_set1_epi32(0x7fff), odd);
            let rounded = _mm256_srli_epi32::<16>(_mm256_add_epi32(x, bias));
            let nan = _mm256_cmpgt_epi32(
                _mm256_and_si256(x, _mm256_set1_epi32(0x7fff_ffff)),
                _mm256_set1_epi32(0x7f80_0000),
            );
            let quiet = _mm256_or_si256(hi, _mm256_set1_epi32(0x40));
            let r = _mm256_blendv_epi8(rounded, quiet, nan);
            // Eight 32-bit values of at most 0xffff to eight 16-bit ones, in order.
            let packed = _mm256_packus_epi32(r, r);
            _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0b1000>(packed))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{narrow, widen};
    use crate::features::{Vectors, with_vectors};
    use wavekit_core::element::{Element, bf16, f16};

    /// f32 values around every rounding case: all 2^16 bf16 patterns in the top half with
    /// several bottom halves (below, at and above the halfway point), and a stride through all
    /// 2^32 patterns (f16's rounding points among them).
    fn f32_cases() -> Vec<f32> {
        let mut v = Vec::new();
        for top in 0..=u16::MAX as u32 {
            for low in [0u32, 1, 0x7fff, 0x8000, 0x8001, 0xffff] {
                v.push(f32::from_bits(top << 16 | low));
            }
        }
        for bits in (0..=u32::MAX).step_by(4099) {
            v.push(f32::from_bits(bits));
        }
        v
    }

    fn check<T: Element<Acc = f32>>(from_bits: impl Fn(u16) -> T) {
        let all: Vec<T> = (0..=u16::MAX).map(from_bits).collect();
        let cases = f32_cases();
        for cap in [Vectors::Scalar, Vectors::Widest] {
            with_vectors(cap, || {
                // Odd lengths leave a tail past the last whole vector.
                let mut w = vec![0f32; all.len() - 3];
                widen(&all[3..], &mut w);
                for (&x, &y) in all[3..].iter().zip(&w) {
                    assert_eq!(x.to_acc().to_bits(), y.to_bits(), "widen {cap:?}");
                }
                let mut h = vec![T::from_bits(0); cases.len() - 5];
                narrow(&cases[5..], &mut h);
                for (&x, &y) in cases[5..].iter().zip(&h) {
                    assert_eq!(
                        T::from_acc(x).to_bits(),
                        y.to_bits(),
                        "narrow {x:e} {cap:?}"
                    );
                }
            });
        }
    }

    #[test]
    fn vector_conversions_are_the_scalar_bits() {
        check(f16::from_bits);
        check(bf16::from_bits);
    }
}
