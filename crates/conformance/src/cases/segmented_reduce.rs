//! segmented_reduce: fixed size (seed 001's REDUCE_SIZE) and CSR-style offsets with empty
//! segments, with every vector size and `VectorSize::Auto`; bad segments and vector sizes
//! refused (the vector rule is segmented_reduce's; spmv shares it).

use crate::Scale;
use crate::check::{expect_err, ok, same_elems};
use crate::inputs::{pick, random_offsets, values, values_with_specials, vector_sizes};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::element::Element;
use wavekit_core::error::WavekitError as E;
use wavekit_core::op::ReduceOp;
use wavekit_core::{Collectives, Csr, Segments, VectorSize};

fn fixed_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    // (segment size, input length): seed 001's REDUCE_SIZE = 8 with a short last segment,
    // single-element segments, sizes around 32, a long segment, and input shorter than one.
    let shapes = pick(
        scale,
        &[
            (8usize, 8 * 37 + 5),
            (8, 8 * 16),
            (1, 50),
            (2, 33),
            (3, 100),
            (31, 31 * 9 + 1),
            (32, 32 * 5),
            (33, 33 * 4 + 32),
            (100, 250),
            (257, 1000),
            (64, 20),
        ],
        &[(8usize, 8 * 9 + 5), (3, 20), (33, 100), (64, 20)],
    );
    for op in ReduceOp::ops_for(T::KIND) {
        for &(size, n) in &shapes {
            for v in vector_sizes() {
                let vals: Vec<T> = if op == ReduceOp::Sum || n % 2 == 0 {
                    values(n, (size * 1000 + n) as u64)
                } else {
                    values_with_specials(n, (size * 1000 + n) as u64)
                };
                let lanes = reference::resolve_vector(v, size.min(n), 1);
                let ctx = format!(
                    "{op:?} {} size={size} n={n} vector={v:?} ({lanes} lanes)",
                    T::KIND.name()
                );
                let segs = ok(&ctx, Segments::<B>::fixed(size, v))?;
                let input = ok(&ctx, b.upload(&vals))?;
                let out = ok(&ctx, b.segmented_reduce(&input, &segs, op))?;
                let got = ok(&ctx, b.download(&out))?;
                let want = reference::segmented_reduce_fixed(&vals, size, lanes, op);
                same_elems(&ctx, "segment", &want, &got)?;
            }
        }
    }
    Ok(())
}

pub fn segmented_reduce_fixed<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(fixed_typed(b, scale));
    each_half!(fixed_typed(b, scale));
    Ok(())
}

fn offsets_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let counts = pick(scale, &[0usize, 1, 2, 7, 40, 150], &[0usize, 1, 7, 40]);
    for op in ReduceOp::ops_for(T::KIND) {
        for &count in counts.iter().filter(|&&c| c < 100 || op == ReduceOp::Sum) {
            for (oname, offsets) in [
                ("random", random_offsets(count, count as u64 + 11, false)),
                ("empty ends", random_offsets(count, count as u64 + 12, true)),
                ("all empty", vec![0u32; count + 1]),
            ] {
                let n = *offsets.last().expect("offsets start with 0") as usize;
                let vals: Vec<T> = if op == ReduceOp::Sum {
                    values(n, count as u64 * 17)
                } else {
                    values_with_specials(n, count as u64 * 17)
                };
                for v in vector_sizes() {
                    let lanes = reference::resolve_vector(v, n, count);
                    let ctx = format!(
                        "{op:?} {} {count} segments ({oname}, n={n}) vector={v:?} ({lanes} lanes)",
                        T::KIND.name()
                    );
                    let segs = ok(&ctx, Segments::from_offsets(b, &offsets, n, v))?;
                    let input = ok(&ctx, b.upload(&vals))?;
                    let out = ok(&ctx, b.segmented_reduce(&input, &segs, op))?;
                    let got = ok(&ctx, b.download(&out))?;
                    let want = reference::segmented_reduce_offsets(&vals, &offsets, lanes, op);
                    same_elems(&ctx, "segment", &want, &got)?;
                }
            }
        }
    }
    Ok(())
}

pub fn segmented_reduce_offsets<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(offsets_typed(b, scale));
    each_half!(offsets_typed(b, scale));
    Ok(())
}

pub fn err_segments<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    expect_err!(
        "fixed(0)",
        Segments::<B>::fixed(0, VectorSize::Lanes(4)).map(drop),
        E::ZeroSegmentSize
    )?;
    let bad_offsets: [(&str, &[u32], usize, usize); 5] = [
        ("no offsets", &[], 0, 0),
        ("non-zero first", &[1, 5, 10], 10, 0),
        ("decreasing", &[0, 6, 4, 10], 10, 2),
        ("last below len", &[0, 4, 9], 10, 2),
        ("last past len", &[0, 4, 11], 10, 2),
    ];
    for (name, offsets, len, index) in bad_offsets {
        let r = Segments::from_offsets(b, offsets, len, VectorSize::Auto).map(drop);
        expect_err!(name, r, E::InvalidOffsets { index: i, .. } if *i == index)?;
    }
    // Offsets built for 10 elements used on 12.
    let segs = ok(
        "segments",
        Segments::from_offsets(b, &[0, 4, 10], 10, VectorSize::Auto),
    )?;
    let input = ok("upload", b.upload(&[1u32; 12]))?;
    expect_err!(
        "offsets for another length",
        b.segmented_reduce(&input, &segs, ReduceOp::Sum).map(drop),
        E::LengthMismatch { .. }
    )
}

pub fn err_vector_size<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let a = ok(
        "csr",
        Csr::new(b, 2, 4, &[0, 1, 3], &[0, 3, 1], &[1.0f64, 2.0, 3.0]),
    )?;
    let x = ok("upload", b.upload(&[1.0f64; 4]))?;
    let mut y = ok("alloc", b.alloc::<f64>(2))?;
    for v in [0u32, 3, 5, 48, 64, 128] {
        let bad = |e: &E| matches!(e, E::InvalidVectorSize(x) if *x == v);
        let lanes = VectorSize::Lanes(v);
        crate::check::fails(
            &format!("fixed vector {v}"),
            Segments::<B>::fixed(8, lanes).map(drop),
            "InvalidVectorSize",
            bad,
        )?;
        let r = Segments::from_offsets(b, &[0, 3, 10], 10, lanes).map(drop);
        crate::check::fails(&format!("offsets vector {v}"), r, "InvalidVectorSize", bad)?;
        crate::check::fails(
            &format!("spmv vector {v}"),
            b.spmv(&a, &x, &mut y, lanes),
            "InvalidVectorSize",
            bad,
        )?;
    }
    Ok(())
}
