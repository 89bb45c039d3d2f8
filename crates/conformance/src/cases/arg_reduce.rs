//! arg_reduce: argmin / argmax over a buffer, per segment (fixed and offsets, empty segments,
//! every vector size) and per warp segment (every sub-width), for every element type and the
//! 16-bit floats, on inputs with many ties, NaNs, -0.0 and +0.0; empty inputs and wrong
//! outputs refused with nothing written.

use crate::Scale;
use crate::check::{eq, expect_err, ok, show};
use crate::inputs::{pick, random_offsets, sub_widths, thread_counts, values, vector_sizes};
use crate::reference;
use wavekit_core::element::{ElemKind, Element, splitmix};
use wavekit_core::error::WavekitError as E;
use wavekit_core::{ArgOp, ArgReduce, DeviceBuffer, RawBackend, Segments, VectorSize};

/// A few values of `T` that tie often: zeros of both signs, extremes, infinities for floats.
fn pool<T: Element>(nans: bool) -> Vec<T> {
    let bits: Vec<u64> = match T::KIND {
        ElemKind::F32 => {
            let mut f = vec![
                -0.0f32,
                0.0,
                1.5,
                -2.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                7.0,
            ];
            if nans {
                f.push(f32::NAN);
                f.push(f32::from_bits(0xffc0_0001)); // a negative NaN with a payload
            }
            f.iter().map(|x| x.to_bits() as u64).collect()
        }
        ElemKind::F64 => {
            let mut f = vec![
                -0.0f64,
                0.0,
                1.5,
                -2.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                7.0,
            ];
            if nans {
                f.push(f64::NAN);
                f.push(f64::from_bits(0xfff8_0000_0000_0001));
            }
            f.iter().map(|x| x.to_bits()).collect()
        }
        ElemKind::F16 | ElemKind::BF16 => {
            let mut f = [
                -0.0f32,
                0.0,
                1.5,
                -2.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                7.0,
            ]
            .map(|x| match T::KIND {
                ElemKind::F16 => wavekit_core::f16::from_f32(x).to_bits(),
                _ => wavekit_core::bf16::from_f32(x).to_bits(),
            } as u64)
            .to_vec();
            if nans {
                // A positive quiet NaN and a negative NaN with a payload (exponent all ones).
                let exp: u64 = if T::KIND == ElemKind::F16 {
                    0x7C00
                } else {
                    0x7F80
                };
                f.push(exp | (exp >> 1 & !exp));
                f.push(0x8000 | exp | 1);
            }
            f
        }
        // 0, 1, 2, all ones (-1 or MAX), i32::MIN, i64::MIN (0 for 32-bit types), i32::MAX.
        _ => vec![0, 1, 2, u64::MAX, 0x8000_0000, 1 << 63, 0x7fff_ffff],
    };
    bits.into_iter().map(T::from_bits).collect()
}

/// Named inputs of `n` elements: pool values (many ties), pool values with NaNs one in about
/// 40, random values, and random values with two late NaNs (floats).
fn inputs<T: Element>(n: usize, seed: u64) -> Vec<(&'static str, Vec<T>)> {
    let pick_from = |p: Vec<T>, nan_one_in: u64| -> Vec<T> {
        let numbers = if T::KIND.is_float() { 7 } else { p.len() };
        (0..n as u64)
            .map(|i| {
                let r = splitmix(seed ^ i.wrapping_mul(0x9E37));
                if numbers < p.len() && r.is_multiple_of(nan_one_in) {
                    p[numbers + (r >> 20) as usize % (p.len() - numbers)]
                } else {
                    p[(r >> 8) as usize % numbers]
                }
            })
            .collect()
    };
    let mut sets = vec![
        ("ties", pick_from(pool(false), 1)),
        ("ties+nans", pick_from(pool(true), 40)),
        ("random", values(n, seed)),
    ];
    if T::KIND.is_float() && n > 1 {
        let mut late = values::<T>(n, seed ^ 5);
        late[n * 3 / 4] = pool::<T>(true)[8];
        late[n - 1] = pool::<T>(true)[7];
        sets.push(("late nans", late));
    }
    sets
}

fn same_pair<T: Element>(ctx: &str, want: (T, u64), got: (T, u64)) -> Result<(), String> {
    if want.0.same(got.0) && want.1 == got.1 {
        Ok(())
    } else {
        Err(format!(
            "{ctx}: expected ({}, {}), got ({}, {})",
            show(want.0),
            want.1,
            show(got.0),
            got.1
        ))
    }
}

fn device_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let sizes = pick(
        scale,
        &[1usize, 2, 31, 64, 1000, 4097, 20_001, 1_000_003],
        &[1usize, 2, 33, 1000, 5000],
    );
    for &n in &sizes {
        for (name, vals) in inputs::<T>(n, n as u64 * 31 + T::KIND as u64) {
            let input = ok("upload", b.upload(&vals))?;
            for op in ArgOp::ALL {
                let ctx = format!("{} {} n={n} {name}", op.name(), T::KIND.name());
                let (v, i) = reference::arg_reduce(&vals, op).expect("non-empty");
                let want = (v, i as u64);
                same_pair(&ctx, want, ok(&ctx, b.arg_reduce(&input, op))?)?;
                let mut value = ok("upload", b.upload(&[T::from_bits(3)]))?;
                let mut index = ok("upload", b.upload(&[7u64]))?;
                ok(&ctx, b.arg_reduce_into(&input, op, &mut value, &mut index))?;
                let got = (
                    ok(&ctx, b.download(&value))?[0],
                    ok(&ctx, b.download(&index))?[0],
                );
                same_pair(&format!("{ctx} (into)"), want, got)?;
                let conv = match op {
                    ArgOp::Min => b.argmin(&input),
                    ArgOp::Max => b.argmax(&input),
                };
                same_pair(&format!("{ctx} ({})", op.name()), want, ok(&ctx, conv)?)?;
            }
        }
    }
    Ok(())
}

/// argmin / argmax of whole buffers, and the rules on hand-made inputs.
pub fn arg_reduce<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(device_typed(b, scale));
    each_half!(device_typed(b, scale));
    // -0.0 below +0.0; the first of equal values; the first NaN over everything.
    let z = ok("upload", b.upload(&[0.0f32, -0.0, 0.0, -0.0]))?;
    eq("argmin of zeros", 1, ok("argmin", b.argmin(&z))?.1)?;
    eq("argmax of zeros", 0, ok("argmax", b.argmax(&z))?.1)?;
    let nans = [
        1.0f64,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::INFINITY,
        -f64::NAN,
    ];
    let x = ok("upload", b.upload(&nans))?;
    eq("argmin with NaNs", 2, ok("argmin", b.argmin(&x))?.1)?;
    eq("argmax with NaNs", 2, ok("argmax", b.argmax(&x))?.1)?;
    let m = ok(
        "upload",
        b.upload(&[i64::MIN, i64::MAX, i64::MIN, i64::MAX]),
    )?;
    eq("argmin i64", (i64::MIN, 0), ok("argmin", b.argmin(&m))?)?;
    eq("argmax i64", (i64::MAX, 1), ok("argmax", b.argmax(&m))?)?;
    // Every element the type's largest (argmin) or smallest (argmax): the key a lane starts
    // from before it has taken an element. Sizes that end in the vectors' last batch and in
    // the element-wise tail.
    for n in [1usize, 5, 4099, 70_001] {
        all_same(b, n, u32::MAX, ArgOp::Min)?;
        all_same(b, n, 0u32, ArgOp::Max)?;
        all_same(b, n, i32::MAX, ArgOp::Min)?;
        all_same(b, n, i32::MIN, ArgOp::Max)?;
        all_same(b, n, u64::MAX, ArgOp::Min)?;
        all_same(b, n, i64::MIN, ArgOp::Max)?;
    }
    Ok(())
}

/// argmin / argmax of `n` copies of `v`: `v` at index 0.
fn all_same<T: Element, B: RawBackend>(b: &B, n: usize, v: T, op: ArgOp) -> Result<(), String> {
    let ctx = format!("{} of {n} x {} {}", op.name(), show(v), T::KIND.name());
    let input = ok("upload", b.upload(&vec![v; n]))?;
    same_pair(&ctx, (v, 0), ok(&ctx, b.arg_reduce(&input, op))?)
}

fn check_segmented<T: Element, B: RawBackend>(
    b: &B,
    ctx: &str,
    vals: &[T],
    input: &B::Buffer<T>,
    segs: &Segments<B>,
    bounds: &[(usize, usize)],
    op: ArgOp,
) -> Result<(), String> {
    let (want_v, want_i) = reference::segmented_arg_reduce(vals, bounds, op);
    let (v, i) = ok(ctx, b.segmented_arg_reduce(input, segs, op))?;
    let got_v = ok(ctx, b.download(&v))?;
    crate::check::same_elems(ctx, "segment value", &want_v, &got_v)?;
    eq(&format!("{ctx}: indices"), want_i, ok(ctx, b.download(&i))?)
}

fn fixed_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let shapes = pick(
        scale,
        &[
            (8usize, 8 * 37 + 5),
            (1, 50),
            (3, 100),
            (32, 32 * 5),
            (33, 33 * 4 + 32),
            (257, 1000),
            (64, 20),
        ],
        &[(8usize, 8 * 9 + 5), (3, 20), (33, 100), (64, 20)],
    );
    for &(size, n) in &shapes {
        for (name, vals) in inputs::<T>(n, (size * 1000 + n) as u64) {
            let input = ok("upload", b.upload(&vals))?;
            let bounds = reference::fixed_segments(n, size);
            for v in vector_sizes() {
                for op in ArgOp::ALL {
                    let ctx = format!(
                        "{} {} size={size} n={n} {name} vector={v:?}",
                        op.name(),
                        T::KIND.name()
                    );
                    let segs = ok(&ctx, Segments::<B>::fixed(size, v))?;
                    check_segmented(b, &ctx, &vals, &input, &segs, &bounds, op)?;
                }
            }
        }
    }
    Ok(())
}

/// Segmented argmin / argmax over fixed-size segments.
pub fn segmented_arg_reduce_fixed<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(fixed_typed(b, scale));
    each_half!(fixed_typed(b, scale));
    Ok(())
}

fn offsets_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let counts = pick(scale, &[0usize, 1, 2, 7, 40, 150], &[0usize, 1, 7, 40]);
    for &count in &counts {
        for (oname, offsets) in [
            ("random", random_offsets(count, count as u64 + 11, false)),
            ("empty ends", random_offsets(count, count as u64 + 12, true)),
            ("all empty", vec![0u32; count + 1]),
        ] {
            let n = *offsets.last().expect("offsets start with 0") as usize;
            let bounds = reference::offset_segments(&offsets);
            for (name, vals) in inputs::<T>(n, count as u64 * 17) {
                let input = ok("upload", b.upload(&vals))?;
                for v in [VectorSize::Lanes(1), VectorSize::Lanes(8), VectorSize::Auto] {
                    let segs = ok("segments", Segments::from_offsets(b, &offsets, n, v))?;
                    for op in ArgOp::ALL {
                        let ctx = format!(
                            "{} {} {count} segments ({oname}, n={n}) {name} vector={v:?}",
                            op.name(),
                            T::KIND.name()
                        );
                        check_segmented(b, &ctx, &vals, &input, &segs, &bounds, op)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// Segmented argmin / argmax over offsets, empty segments included.
pub fn segmented_arg_reduce_offsets<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(offsets_typed(b, scale));
    each_half!(offsets_typed(b, scale));
    Ok(())
}

fn warp_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    for width in sub_widths(w) {
        for n in thread_counts(w, scale) {
            for (name, vals) in inputs::<T>(n, (width as u64) << 32 | n as u64) {
                for op in ArgOp::ALL {
                    let ctx = format!(
                        "{} {} width={width} n={n} {name}",
                        op.name(),
                        T::KIND.name()
                    );
                    let got = ok(&ctx, b.warp_arg_reduce(&vals, width, op))?;
                    let want = reference::warp_arg_reduce(&vals, width, op);
                    eq(&format!("{ctx}: lanes"), want.len(), got.len())?;
                    for (lane, (&(wv, wi), &(gv, gi))) in want.iter().zip(&got).enumerate() {
                        same_pair(
                            &format!("{ctx}: lane {lane}"),
                            (wv, wi as u64),
                            (gv, gi as u64),
                        )?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// Warp argmin / argmax over every sub-width.
pub fn warp_arg_reduce<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(warp_typed(b, scale));
    each_half!(warp_typed(b, scale));
    Ok(())
}

/// Empty inputs, wrong output lengths, offsets for another length and bad sub-widths are
/// refused, and no output changes.
pub fn err_arg_reduce<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let x = ok("upload", b.upload(&[3.0f32, 1.0, 2.0]))?;
    let empty = ok("alloc", b.alloc::<f32>(0))?;
    let mut v = ok("upload", b.upload(&[5.0f32]))?;
    let mut i = ok("upload", b.upload(&[5u64]))?;
    expect_err!(
        "argmin of nothing",
        b.argmin(&empty).map(drop),
        E::EmptyInput { .. }
    )?;
    expect_err!(
        "into, empty input",
        b.arg_reduce_into(&empty, ArgOp::Max, &mut v, &mut i),
        E::EmptyInput { .. }
    )?;
    let mut v2 = ok("upload", b.upload(&[5.0f32; 2]))?;
    expect_err!(
        "value of two elements",
        b.arg_reduce_into(&x, ArgOp::Min, &mut v2, &mut i),
        E::LengthMismatch { .. }
    )?;
    let mut i0 = ok("alloc", b.alloc::<u64>(0))?;
    expect_err!(
        "index of no element",
        b.arg_reduce_into(&x, ArgOp::Min, &mut v, &mut i0),
        E::LengthMismatch { .. }
    )?;
    eq(
        "value untouched",
        vec![5.0f32],
        ok("download", b.download(&v))?,
    )?;
    eq(
        "index untouched",
        vec![5u64],
        ok("download", b.download(&i))?,
    )?;

    // Segmented: outputs of the wrong length, offsets made for another input length.
    let segs = ok("segments", Segments::<B>::fixed(2, VectorSize::Auto))?;
    let mut sv = ok("upload", b.upload(&[9.0f32; 2]))?;
    let mut si = ok("upload", b.upload(&[9u32; 2]))?;
    let mut si_short = ok("upload", b.upload(&[9u32]))?;
    expect_err!(
        "segment indices too short",
        b.segmented_arg_reduce_into(&x, &segs, ArgOp::Min, &mut sv, &mut si_short),
        E::LengthMismatch { .. }
    )?;
    let mut sv_long = ok("upload", b.upload(&[9.0f32; 3]))?;
    expect_err!(
        "segment values too long",
        b.segmented_arg_reduce_into(&x, &segs, ArgOp::Max, &mut sv_long, &mut si),
        E::LengthMismatch { .. }
    )?;
    let other = ok(
        "segments",
        Segments::from_offsets(b, &[0, 1, 4], 4, VectorSize::Auto),
    )?;
    expect_err!(
        "offsets for another length",
        b.segmented_arg_reduce_into(&x, &other, ArgOp::Max, &mut sv, &mut si),
        E::LengthMismatch { .. }
    )?;
    eq(
        "segment values untouched",
        vec![9.0f32; 2],
        ok("download", b.download(&sv))?,
    )?;
    eq(
        "segment indices untouched",
        vec![9u32; 2],
        ok("download", b.download(&si))?,
    )?;
    // Segmented of nothing: no segments, nothing to write.
    let (nv, ni) = ok(
        "segmented of nothing",
        b.segmented_arg_reduce(&empty, &segs, ArgOp::Min),
    )?;
    eq("no segments", (0, 0), (nv.len(), ni.len()))?;

    // Warp: sub-widths that are no power of two or wider than the warp.
    let lanes = b.warp_width().lanes();
    for width in [0, 3, lanes * 2] {
        expect_err!(
            format!("warp width {width}"),
            b.warp_arg_reduce(&[1u32, 2, 3], width, ArgOp::Min)
                .map(drop),
            E::InvalidSubWidth { .. }
        )?;
    }
    eq(
        "warp of nothing",
        0,
        ok("warp", b.warp_arg_reduce::<u32>(&[], 4, ArgOp::Max))?.len(),
    )
}
