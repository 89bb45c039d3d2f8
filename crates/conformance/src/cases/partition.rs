//! partition: stable two-way and three-way partition bit for bit against the reference, every
//! element type, predicates around present values, NaN and ±0.0 thresholds (with NaN and -0.0
//! in the inputs), predicates that select none and all, sizes from 0 to several tiles of every
//! backend. err_partition: refused arguments leave every output as it was.

use crate::Scale;
use crate::check::{eq, expect_err, ok, same_elems};
use crate::inputs::{pick, predicates, specials, values, values_with_specials};
use crate::reference;
use wavekit_core::element::Element;
use wavekit_core::{Partition, Predicate, RawBackend, WavekitError as E};

/// Sizes: empty, one, below a warp, a few tiles of 2048 and of 4096 with a partial last one.
fn sizes(scale: Scale) -> Vec<usize> {
    pick(
        scale,
        &[0, 1, 31, 1000, 3 * 4096 + 17, 11 * 2048 + 5],
        &[0, 1, 31, 1000, 3 * 4096 + 17],
    )
}

/// The input of `n` elements (half the sizes with specials: NaN, ±inf, ±0.0, extremes).
pub(super) fn input<T: Element>(n: usize) -> Vec<T> {
    if n % 2 == 1 {
        values_with_specials::<T>(n, n as u64 + 11)
    } else {
        values::<T>(n, n as u64 + 11)
    }
}

/// The predicates for `data`: around its values, and the special thresholds (for floats
/// `Eq(NaN)` selects none and `Ne(NaN)` all; for integers `Lt(MIN)` none and `Ge(MIN)` all).
pub(super) fn preds<T: Element>(data: &[T]) -> Vec<Predicate<T>> {
    let sp = specials::<T>();
    let mut p = if data.is_empty() {
        vec![Predicate::Lt(T::default())]
    } else {
        predicates(data)
    };
    p.extend([
        Predicate::Eq(sp[0]),
        Predicate::Ne(sp[0]),
        Predicate::Lt(sp[0]),
        Predicate::Ge(sp[0]),
        Predicate::Eq(T::default()),
    ]);
    p
}

fn partition_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    for n in sizes(scale) {
        let data = input::<T>(n);
        let buf = ok("upload", b.upload(&data))?;
        let ps = preds(&data);
        let ps = if n > 5000 {
            &ps[ps.len() - 10..]
        } else {
            &ps[..]
        };
        for &pred in ps {
            let ctx = format!("partition {} n={n} {pred:?}", T::KIND.name());
            let (want, selected) = reference::partition(&data, &pred);
            let got = ok(&ctx, b.partition(&buf, pred))?;
            eq(&format!("{ctx}: selected"), selected, got.selected)?;
            same_elems(
                &ctx,
                "output",
                &want,
                &ok("download", b.download(&got.data))?,
            )?;
            // The _into form over outputs holding other values: every element rewritten.
            let mut out = ok("upload", b.upload(&vec![T::from_seed(7); n]))?;
            let mut count = ok("upload", b.upload(&[u64::MAX]))?;
            ok(&ctx, b.partition_into(&buf, pred, &mut out, &mut count))?;
            eq(
                &format!("{ctx}: _into count"),
                vec![selected as u64],
                ok("download", b.download(&count))?,
            )?;
            same_elems(
                &ctx,
                "_into output",
                &want,
                &ok("download", b.download(&out))?,
            )?;
        }
    }
    Ok(())
}

fn partition3_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    for n in sizes(scale) {
        let data = input::<T>(n);
        let buf = ok("upload", b.upload(&data))?;
        let ps = preds(&data);
        let pairs: Vec<_> = (0..ps.len())
            .map(|i| (ps[i], ps[(i * 5 + 3) % ps.len()]))
            .collect();
        let pairs = if n > 5000 { &pairs[..6] } else { &pairs[..] };
        for &(first, second) in pairs {
            let ctx = format!("partition3 {} n={n} {first:?} {second:?}", T::KIND.name());
            let (want, counts) = reference::partition3(&data, &first, &second);
            let got = ok(&ctx, b.partition3(&buf, first, second))?;
            eq(&format!("{ctx}: counts"), counts, [got.first, got.second])?;
            same_elems(
                &ctx,
                "output",
                &want,
                &ok("download", b.download(&got.data))?,
            )?;
            let mut out = ok("upload", b.upload(&vec![T::from_seed(3); n]))?;
            let mut c = ok("upload", b.upload(&[u64::MAX, u64::MAX]))?;
            ok(
                &ctx,
                b.partition3_into(&buf, first, second, &mut out, &mut c),
            )?;
            eq(
                &format!("{ctx}: _into counts"),
                counts.map(|c| c as u64).to_vec(),
                ok("download", b.download(&c))?,
            )?;
            same_elems(
                &ctx,
                "_into output",
                &want,
                &ok("download", b.download(&out))?,
            )?;
        }
    }
    Ok(())
}

pub fn partition<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(partition_typed(b, scale));
    each_half!(partition_typed(b, scale));
    Ok(())
}

pub fn partition3<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(partition3_typed(b, scale));
    each_half!(partition3_typed(b, scale));
    Ok(())
}

pub fn err_partition<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let xs = ok("upload", b.upload(&[3.0f32, -1.0, 2.0]))?;
    let (p, q) = (Predicate::Gt(0.0), Predicate::Lt(0.0));
    let mut out = ok("upload", b.upload(&[5.0f32; 3]))?;
    let mut count = ok("upload", b.upload(&[42u64]))?;
    let mut counts = ok("upload", b.upload(&[42u64; 2]))?;
    for len in [0usize, 2, 4] {
        let mut wrong = ok("upload", b.upload(&vec![5.0f32; len]))?;
        expect_err!(
            format!("partition_into: output of {len}"),
            b.partition_into(&xs, p, &mut wrong, &mut count),
            E::LengthMismatch { expected: 3, got, .. } if *got == len
        )?;
        expect_err!(
            format!("partition3_into: output of {len}"),
            b.partition3_into(&xs, p, q, &mut wrong, &mut counts),
            E::LengthMismatch { expected: 3, got, .. } if *got == len
        )?;
        eq(
            "wrong-length output untouched",
            vec![5.0f32; len],
            ok("download", b.download(&wrong))?,
        )?;
    }
    for len in [0usize, 2] {
        let mut c = ok("upload", b.upload(&vec![42u64; len]))?;
        expect_err!(
            format!("partition_into: count of {len}"),
            b.partition_into(&xs, p, &mut out, &mut c),
            E::LengthMismatch { expected: 1, .. }
        )?;
        eq(
            "count untouched",
            vec![42u64; len],
            ok("download", b.download(&c))?,
        )?;
    }
    for len in [0usize, 1, 3] {
        let mut c = ok("upload", b.upload(&vec![42u64; len]))?;
        expect_err!(
            format!("partition3_into: counts of {len}"),
            b.partition3_into(&xs, p, q, &mut out, &mut c),
            E::LengthMismatch { expected: 2, .. }
        )?;
        eq(
            "counts untouched",
            vec![42u64; len],
            ok("download", b.download(&c))?,
        )?;
    }
    eq(
        "output untouched",
        vec![5.0f32; 3],
        ok("download", b.download(&out))?,
    )?;
    eq(
        "count untouched",
        vec![42u64],
        ok("download", b.download(&count))?,
    )?;
    eq(
        "counts untouched",
        vec![42u64; 2],
        ok("download", b.download(&counts))?,
    )?;
    Ok(())
}
