//! partition_reversed: the one-read partition whose rest is reversed (two-way) and its
//! three-way form, bit for bit against the reference, every element type, the stable
//! partition's predicates (around present values, NaN and ±0.0 thresholds, none and all), sizes
//! from 0 to several of every backend's tiles (a GPU's look-back crosses blocks from three
//! blocks of two tiles). Slots no part reaches keep what the outputs held.
//! err_partition_reversed: refused arguments leave every output as it was.

use super::partition::{input, preds};
use crate::Scale;
use crate::check::{eq, expect_err, ok, same_elems};
use crate::inputs::pick;
use crate::reference;
use wavekit_core::element::Element;
use wavekit_core::{PartitionReversed, Predicate, RawBackend, WavekitError as E};

/// Sizes: empty, one, below a warp, three blocks of two 4096-item tiles with a partial last
/// one, and at full scale more blocks of one tile (8-byte elements).
fn sizes(scale: Scale) -> Vec<usize> {
    pick(
        scale,
        &[0, 1, 31, 1000, 5 * 4096 + 3, 11 * 2048 + 5],
        &[0, 1, 31, 1000, 5 * 4096 + 3],
    )
}

fn partition_reversed_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
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
            let ctx = format!("partition_reversed {} n={n} {pred:?}", T::KIND.name());
            let (want, selected) = reference::partition_reversed(&data, &pred);
            let got = ok(&ctx, b.partition_reversed(&buf, pred))?;
            eq(&format!("{ctx}: selected"), selected, got.selected)?;
            same_elems(
                &ctx,
                "output",
                &want,
                &ok("download", b.download(&got.data))?,
            )?;
            let mut out = ok("upload", b.upload(&vec![T::from_seed(7); n]))?;
            let mut count = ok("upload", b.upload(&[u64::MAX]))?;
            ok(
                &ctx,
                b.partition_reversed_into(&buf, pred, &mut out, &mut count),
            )?;
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

fn partition3_reversed_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    for n in sizes(scale) {
        let data = input::<T>(n);
        let buf = ok("upload", b.upload(&data))?;
        let ps = preds(&data);
        let pairs: Vec<_> = (0..ps.len())
            .map(|i| (ps[i], ps[(i * 5 + 3) % ps.len()]))
            .collect();
        let pairs = if n > 5000 { &pairs[..6] } else { &pairs[..] };
        for &(first, second) in pairs {
            let ctx = format!(
                "partition3_reversed {} n={n} {first:?} {second:?}",
                T::KIND.name()
            );
            let (one, two, rest) = reference::partition3_reversed(&data, &first, &second);
            let counts = [one.len(), two.len()];
            // The outputs as the parts leave them over `fill`: the first part and the
            // reversed rest in `out`, the middle part at the front of `middle`.
            let layout = |fill: T| {
                let mut out = one.clone();
                out.resize(one.len() + two.len(), fill);
                out.extend(&rest);
                let mut middle = two.clone();
                middle.resize(n, fill);
                (out, middle)
            };
            let got = ok(&ctx, b.partition3_reversed(&buf, first, second))?;
            eq(&format!("{ctx}: counts"), counts, [got.first, got.second])?;
            let (want, want_mid) = layout(T::default());
            same_elems(
                &ctx,
                "output",
                &want,
                &ok("download", b.download(&got.data))?,
            )?;
            same_elems(
                &ctx,
                "middle",
                &want_mid,
                &ok("download", b.download(&got.middle))?,
            )?;
            let fill = T::from_seed(3);
            let mut out = ok("upload", b.upload(&vec![fill; n]))?;
            let mut mid = ok("upload", b.upload(&vec![fill; n]))?;
            let mut c = ok("upload", b.upload(&[u64::MAX, u64::MAX]))?;
            ok(
                &ctx,
                b.partition3_reversed_into(&buf, first, second, &mut out, &mut mid, &mut c),
            )?;
            eq(
                &format!("{ctx}: _into counts"),
                counts.map(|c| c as u64).to_vec(),
                ok("download", b.download(&c))?,
            )?;
            let (want, want_mid) = layout(fill);
            same_elems(
                &ctx,
                "_into output",
                &want,
                &ok("download", b.download(&out))?,
            )?;
            same_elems(
                &ctx,
                "_into middle",
                &want_mid,
                &ok("download", b.download(&mid))?,
            )?;
        }
    }
    Ok(())
}

pub fn partition_reversed<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(partition_reversed_typed(b, scale));
    each_half!(partition_reversed_typed(b, scale));
    Ok(())
}

pub fn partition3_reversed<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(partition3_reversed_typed(b, scale));
    each_half!(partition3_reversed_typed(b, scale));
    Ok(())
}

pub fn err_partition_reversed<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let xs = ok("upload", b.upload(&[3.0f32, -1.0, 2.0]))?;
    let (p, q) = (Predicate::Gt(0.0), Predicate::Lt(0.0));
    let mut out = ok("upload", b.upload(&[5.0f32; 3]))?;
    let mut mid = ok("upload", b.upload(&[6.0f32; 3]))?;
    let mut count = ok("upload", b.upload(&[42u64]))?;
    let mut counts = ok("upload", b.upload(&[42u64; 2]))?;
    for len in [0usize, 2, 4] {
        let mut wrong = ok("upload", b.upload(&vec![5.0f32; len]))?;
        expect_err!(
            format!("partition_reversed_into: output of {len}"),
            b.partition_reversed_into(&xs, p, &mut wrong, &mut count),
            E::LengthMismatch { expected: 3, got, .. } if *got == len
        )?;
        expect_err!(
            format!("partition3_reversed_into: output of {len}"),
            b.partition3_reversed_into(&xs, p, q, &mut wrong, &mut mid, &mut counts),
            E::LengthMismatch { expected: 3, got, .. } if *got == len
        )?;
        expect_err!(
            format!("partition3_reversed_into: middle of {len}"),
            b.partition3_reversed_into(&xs, p, q, &mut out, &mut wrong, &mut counts),
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
            format!("partition_reversed_into: count of {len}"),
            b.partition_reversed_into(&xs, p, &mut out, &mut c),
            E::LengthMismatch { expected: 1, .. }
        )?;
    }
    for len in [0usize, 1, 3] {
        let mut c = ok("upload", b.upload(&vec![42u64; len]))?;
        expect_err!(
            format!("partition3_reversed_into: counts of {len}"),
            b.partition3_reversed_into(&xs, p, q, &mut out, &mut mid, &mut c),
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
        "middle untouched",
        vec![6.0f32; 3],
        ok("download", b.download(&mid))?,
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
