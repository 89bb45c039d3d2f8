//! 256-bit vectors of f32 and f64 (and 512-bit of f32) and the float Sum and Product on them,
//! for the AVX2 kernels of the canonical scan (`device_scan_simd`) and reduce
//! (`device_reduce_simd`) and the AVX-512 scan kernel (`device_scan_avx512`). Vector add and multiply
//! round every lane exactly as the scalar op does (IEEE, round to nearest, no fused
//! multiply-add), so a kernel that combines the same pairs in the same order gets the same bits.
//!
//! Every function here is only called from inside a function compiled with AVX2 (AVX-512F for
//! `__m512`), entered after detecting it; that is what each `SAFETY: AVX2` (`AVX-512F`) below
//! refers to.
#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::*;
use wavekit_core::element::Element;
use wavekit_core::op::ReduceOp;

/// A vector of `L` values of `E`.
pub(crate) trait Raw: Copy {
    type E: Element;
    const L: usize;
    fn splat(x: Self::E) -> Self;
    /// # Safety
    /// `p` readable for L values.
    unsafe fn load(p: *const Self::E) -> Self;
    /// # Safety
    /// `p` writable for L values.
    unsafe fn store(self, p: *mut Self::E);
}

/// The op on vectors (lane by lane) and on scalars, rounding alike.
pub(crate) trait Op<R: Raw> {
    const OP: ReduceOp;
    fn v(a: R, b: R) -> R;
    #[inline(always)]
    fn s(a: R::E, b: R::E) -> R::E {
        R::E::combine(Self::OP, a, b)
    }
}

pub(crate) struct Add;
pub(crate) struct Mul;

impl Raw for __m256 {
    type E = f32;
    const L: usize = 8;
    #[inline(always)]
    fn splat(x: f32) -> Self {
        // SAFETY: AVX2.
        unsafe { _mm256_set1_ps(x) }
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        // SAFETY: AVX2; `p` readable (the caller's promise).
        unsafe { _mm256_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        // SAFETY: AVX2; `p` writable (the caller's promise).
        unsafe { _mm256_storeu_ps(p, self) }
    }
}

impl Raw for __m256d {
    type E = f64;
    const L: usize = 4;
    #[inline(always)]
    fn splat(x: f64) -> Self {
        // SAFETY: AVX2.
        unsafe { _mm256_set1_pd(x) }
    }
    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self {
        // SAFETY: AVX2; `p` readable (the caller's promise).
        unsafe { _mm256_loadu_pd(p) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f64) {
        // SAFETY: AVX2; `p` writable (the caller's promise).
        unsafe { _mm256_storeu_pd(p, self) }
    }
}

impl Raw for __m512 {
    type E = f32;
    const L: usize = 16;
    #[inline(always)]
    fn splat(x: f32) -> Self {
        // SAFETY: AVX-512F.
        unsafe { _mm512_set1_ps(x) }
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        // SAFETY: AVX-512F; `p` readable (the caller's promise).
        unsafe { _mm512_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        // SAFETY: AVX-512F; `p` writable (the caller's promise).
        unsafe { _mm512_storeu_ps(p, self) }
    }
}

impl Op<__m512> for Add {
    const OP: ReduceOp = ReduceOp::Sum;
    #[inline(always)]
    fn v(a: __m512, b: __m512) -> __m512 {
        // SAFETY: AVX-512F.
        unsafe { _mm512_add_ps(a, b) }
    }
}

impl Op<__m512> for Mul {
    const OP: ReduceOp = ReduceOp::Product;
    #[inline(always)]
    fn v(a: __m512, b: __m512) -> __m512 {
        // SAFETY: AVX-512F.
        unsafe { _mm512_mul_ps(a, b) }
    }
}

impl Op<__m256> for Add {
    const OP: ReduceOp = ReduceOp::Sum;
    #[inline(always)]
    fn v(a: __m256, b: __m256) -> __m256 {
        // SAFETY: AVX2.
        unsafe { _mm256_add_ps(a, b) }
    }
}

impl Op<__m256> for Mul {
    const OP: ReduceOp = ReduceOp::Product;
    #[inline(always)]
    fn v(a: __m256, b: __m256) -> __m256 {
        // SAFETY: AVX2.
        unsafe { _mm256_mul_ps(a, b) }
    }
}

impl Op<__m256d> for Add {
    const OP: ReduceOp = ReduceOp::Sum;
    #[inline(always)]
    fn v(a: __m256d, b: __m256d) -> __m256d {
        // SAFETY: AVX2.
        unsafe { _mm256_add_pd(a, b) }
    }
}

impl Op<__m256d> for Mul {
    const OP: ReduceOp = ReduceOp::Product;
    #[inline(always)]
    fn v(a: __m256d, b: __m256d) -> __m256d {
        // SAFETY: AVX2.
        unsafe { _mm256_mul_pd(a, b) }
    }
}

/// Runs `$body` with `$r` and `$o` naming the vector type and op of element type `$t` and
/// `$op` as a kernel's type parameters, with `$x` cast to the matching scalar slice; evaluates
/// to None for any other type or op (integers, float Min/Max).
macro_rules! with_float_op {
    ($t:ty, $op:expr, |$r:ident, $o:ident| $body:expr) => {{
        use std::arch::x86_64::{__m256, __m256d};
        use $crate::vector::{Add, Mul};
        match (<$t as wavekit_core::element::Element>::KIND, $op) {
            (wavekit_core::element::ElemKind::F32, wavekit_core::op::ReduceOp::Sum) => {
                type $r = __m256;
                type $o = Add;
                Some($body)
            }
            (wavekit_core::element::ElemKind::F32, wavekit_core::op::ReduceOp::Product) => {
                type $r = __m256;
                type $o = Mul;
                Some($body)
            }
            (wavekit_core::element::ElemKind::F64, wavekit_core::op::ReduceOp::Sum) => {
                type $r = __m256d;
                type $o = Add;
                Some($body)
            }
            (wavekit_core::element::ElemKind::F64, wavekit_core::op::ReduceOp::Product) => {
                type $r = __m256d;
                type $o = Mul;
                Some($body)
            }
            _ => None,
        }
    }};
}
pub(crate) use with_float_op;

/// `x` as a slice of `U`.
///
/// # Safety
/// T is U.
pub(crate) unsafe fn cast<T, U>(x: &[T]) -> &[U] {
    // SAFETY: the caller's promise.
    unsafe { std::slice::from_raw_parts(x.as_ptr().cast(), x.len()) }
}

/// `x` as a mutable slice of `U`.
///
/// # Safety
/// T is U.
pub(crate) unsafe fn cast_mut<T, U>(x: &mut [T]) -> &mut [U] {
    // SAFETY: the caller's promise.
    unsafe { std::slice::from_raw_parts_mut(x.as_mut_ptr().cast(), x.len()) }
}
