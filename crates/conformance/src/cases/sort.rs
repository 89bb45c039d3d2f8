//! sort: keys, pairs and argsort of every key type, ascending, descending and by bit ranges,
//! on random keys with every special value (both NaN signs, signed zeros, extremes) and on
//! keys with many ties (stability shows in the values); bad arguments refused untouched.

use crate::Scale;
use crate::check::{eq, expect_err, ok};
use crate::inputs::{pick, values, values_with_specials};
use crate::reference;
use wavekit_core::element::{ElemKind, Element, splitmix};
use wavekit_core::error::WavekitError as E;
use wavekit_core::{RawBackend, Sort, SortOrder};

/// Sizes past one GPU tile (4096 keys alone, 6144 pairs of 4-byte keys and values, 2048 pairs
/// with an 8-byte side: csrc/kernels/sort_tuning.h) and several, so the look-back between tiles
/// runs.
pub(crate) fn sort_sizes(scale: Scale) -> Vec<usize> {
    pick(
        scale,
        &[1, 31, 1000, 4097, 20_001, 100_003],
        &[1, 1000, 9_001],
    )
}

/// The (size, key kind, order) runs of one type: every combination at full scale; at small
/// scale (the SIMT executor, which runs the real kernels a fiber per thread) every order on
/// one size and one run on each other size, the kinds and orders turning over with `salt`
/// (the type), so that every kind and order still meets every type across the suite.
pub(crate) fn sort_plan(scale: Scale, salt: usize) -> Vec<(usize, u32, usize)> {
    let sizes = sort_sizes(scale);
    let mut runs = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        for kind in 0..3u32 {
            for order in 0..4 {
                let keep = match scale {
                    Scale::Full => true,
                    Scale::Small if n == 1000 => kind as usize == salt % 3,
                    Scale::Small => kind as usize == (i + salt) % 3 && order == (i + salt) % 4,
                };
                if keep {
                    runs.push((n, kind, order));
                }
            }
        }
    }
    runs
}

/// Keys of type `K`: `kind` 0 spread over the type with every special value and both NaN
/// signs; 1 only five distinct values (long runs of ties); 2 keys that differ only in their
/// low byte (the other digits are one value: the passes that would move nothing).
pub(crate) fn sort_keys_of<K: Element>(n: usize, seed: u64, kind: u32) -> Vec<K> {
    match kind {
        0 => {
            let mut k = values_with_specials::<K>(n, seed);
            if K::KIND.is_float() {
                // -NaN with a payload, and a +NaN with another: both ends of the order.
                let (neg_nan, pos_nan) = match K::KIND {
                    ElemKind::F32 => (0xFFC0_0001, 0x7FC0_0002),
                    ElemKind::F16 => (0xFE01, 0x7E02),
                    ElemKind::BF16 => (0xFFC1, 0x7FC2),
                    _ => (0xFFF8_0000_0000_0001, 0x7FF8_0000_0000_0002),
                };
                for (i, x) in k.iter_mut().enumerate() {
                    match splitmix(seed ^ i as u64) % 23 {
                        0 => *x = K::from_bits(neg_nan),
                        1 => *x = K::from_bits(pos_nan),
                        _ => {}
                    }
                }
            }
            k
        }
        1 => {
            let five = values::<K>(5, seed);
            (0..n as u64)
                .map(|i| five[(splitmix(seed ^ i) % 5) as usize])
                .collect()
        }
        _ => (0..n as u64)
            .map(|i| K::from_bits(0x4000 | (splitmix(seed ^ i) & 0xFF)))
            .collect(),
    }
}

/// The orders every key type is sorted by: both directions, a range inside the key, its top
/// byte only.
pub(crate) fn sort_orders<K: Element>() -> Vec<SortOrder> {
    let bits = K::KIND.size() as u32 * 8;
    vec![
        SortOrder::ASCENDING,
        SortOrder::DESCENDING,
        SortOrder::ASCENDING.bits(3, 14),
        SortOrder::DESCENDING.bits(bits - 8, bits),
    ]
}

fn bits_of<T: Element>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn gather<T: Element>(v: &[T], perm: &[usize]) -> Vec<u64> {
    perm.iter().map(|&i| v[i].to_bits()).collect()
}

fn sort_keys_typed<K: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let orders = sort_orders::<K>();
    for (n, kind, order) in sort_plan(scale, K::KIND as usize) {
        let keys = sort_keys_of::<K>(n, n as u64 * 7 + kind as u64, kind);
        let buf = ok("upload", b.upload(&keys))?;
        let order = orders[order];
        let ctx = format!("{} n={n} keys={kind} {order:?}", K::KIND.name());
        let want = gather(&keys, &reference::sort_permutation(&keys, order));
        let out = ok(&ctx, b.sort_keys(&buf, order))?;
        eq(&ctx, want, bits_of(&ok(&ctx, b.download(&out))?))?;
    }
    Ok(())
}

pub fn sort_keys<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(sort_keys_typed(b, scale));
    each_half!(sort_keys_typed(b, scale));
    Ok(())
}

fn sort_pairs_typed<K: Element, V: Element, B: RawBackend>(
    b: &B,
    scale: Scale,
) -> Result<(), String> {
    let orders = [SortOrder::ASCENDING, SortOrder::DESCENDING.bits(2, 9)];
    let salt = K::KIND as usize * 6 + V::KIND as usize;
    for (i, n) in sort_sizes(scale).into_iter().enumerate() {
        for kind in [0, 1] {
            for (o, &order) in orders.iter().enumerate() {
                if scale == Scale::Small && (kind + o) != (i + salt) % 3 {
                    continue;
                }
                let keys = sort_keys_of::<K>(n, n as u64 * 11 + kind as u64, kind as u32);
                // Values that name their position: a stability error cannot hide.
                let vals: Vec<V> = (0..n as u64).map(|i| V::from_bits(i * 3 + 1)).collect();
                let (kb, vb) = (
                    ok("upload", b.upload(&keys))?,
                    ok("upload", b.upload(&vals))?,
                );
                let ctx = format!(
                    "{}+{} n={n} keys={kind} {order:?}",
                    K::KIND.name(),
                    V::KIND.name()
                );
                let perm = reference::sort_permutation(&keys, order);
                let (ko, vo) = ok(&ctx, b.sort_pairs(&kb, &vb, order))?;
                let got_k = bits_of(&ok(&ctx, b.download(&ko))?);
                eq(&format!("{ctx}: keys"), gather(&keys, &perm), got_k)?;
                let got_v = bits_of(&ok(&ctx, b.download(&vo))?);
                eq(&format!("{ctx}: values"), gather(&vals, &perm), got_v)?;
            }
        }
    }
    Ok(())
}

fn pairs_with<V: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    sort_pairs_typed::<u32, V, B>(b, scale)?;
    sort_pairs_typed::<f64, V, B>(b, scale)?;
    sort_pairs_typed::<i64, V, B>(b, scale)
}

pub fn sort_pairs<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    pairs_with::<u32, B>(b, scale)?;
    pairs_with::<f64, B>(b, scale)?;
    sort_pairs_typed::<f32, i32, B>(b, scale)?;
    sort_pairs_typed::<i32, u64, B>(b, scale)?;
    sort_pairs_typed::<u64, f32, B>(b, scale)?;
    // 16-bit keys, 16-bit values, both.
    sort_pairs_typed::<wavekit_core::f16, u32, B>(b, scale)?;
    sort_pairs_typed::<u32, wavekit_core::bf16, B>(b, scale)?;
    sort_pairs_typed::<wavekit_core::bf16, wavekit_core::f16, B>(b, scale)
}

fn argsort_typed<K: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    for (i, n) in sort_sizes(scale).into_iter().enumerate() {
        let keys = sort_keys_of::<K>(n, n as u64 * 13, (n % 3) as u32);
        let buf = ok("upload", b.upload(&keys))?;
        for (o, order) in [SortOrder::ASCENDING, SortOrder::DESCENDING]
            .into_iter()
            .enumerate()
        {
            if scale == Scale::Small && o != (i + K::KIND as usize) % 2 {
                continue;
            }
            let ctx = format!("{} n={n} {order:?}", K::KIND.name());
            let want: Vec<u32> = reference::sort_permutation(&keys, order)
                .into_iter()
                .map(|i| i as u32)
                .collect();
            let got = ok(&ctx, b.argsort(&buf, order))?;
            eq(&ctx, want, ok(&ctx, b.download(&got))?)?;
        }
    }
    Ok(())
}

pub fn argsort<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(argsort_typed(b, scale));
    each_half!(argsort_typed(b, scale));
    Ok(())
}

/// Bit ranges outside the key, and outputs of the wrong length, are refused before any work:
/// the outputs keep what they held.
pub fn err_sort<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let keys = ok("upload", b.upload(&[3u32, 1, 2]))?;
    let vals = ok("upload", b.upload(&[1.0f32, 2.0, 3.0]))?;
    let mut out = ok("upload", b.upload(&[7u32, 7, 7]))?;
    let mut vout = ok("upload", b.upload(&[7.0f32, 7.0, 7.0]))?;
    for (begin, end) in [(0, 33), (8, 8), (9, 4), (32, 40)] {
        let order = SortOrder::ASCENDING.bits(begin, end);
        expect_err!(
            &format!("bits {begin}..{end} of u32"),
            b.sort_keys_into(&keys, &mut out, order),
            E::InvalidBitRange { .. }
        )?;
        expect_err!(
            &format!("pairs, bits {begin}..{end}"),
            b.sort_pairs_into(&keys, &vals, &mut out, &mut vout, order),
            E::InvalidBitRange { .. }
        )?;
    }
    let wide = ok("upload", b.upload(&[1u64, 2]))?;
    let mut wide_out = ok("alloc", b.alloc::<u64>(2))?;
    ok(
        "bits 0..64 of u64",
        b.sort_keys_into(&wide, &mut wide_out, SortOrder::ASCENDING.bits(0, 64)),
    )?;
    let mut short = ok("alloc", b.alloc::<u32>(2))?;
    expect_err!(
        "short keys out",
        b.sort_keys_into(&keys, &mut short, SortOrder::ASCENDING),
        E::LengthMismatch { .. }
    )?;
    let short_vals = ok("upload", b.upload(&[1.0f32]))?;
    expect_err!(
        "values not one per key",
        b.sort_pairs_into(
            &keys,
            &short_vals,
            &mut out,
            &mut vout,
            SortOrder::ASCENDING
        ),
        E::LengthMismatch { .. }
    )?;
    let mut short_idx = ok("alloc", b.alloc::<u32>(4))?;
    expect_err!(
        "argsort indices",
        b.argsort_into(&keys, &mut short_idx, SortOrder::ASCENDING),
        E::LengthMismatch { .. }
    )?;
    eq(
        "keys out untouched",
        vec![7u32, 7, 7],
        ok("download", b.download(&out))?,
    )?;
    eq(
        "values out untouched",
        vec![7.0f32, 7.0, 7.0],
        ok("download", b.download(&vout))?,
    )?;
    // Empty keys sort to nothing, with no error.
    let empty = ok("alloc", b.alloc::<f64>(0))?;
    let mut empty_out = ok("alloc", b.alloc::<f64>(0))?;
    ok(
        "empty",
        b.sort_keys_into(&empty, &mut empty_out, SortOrder::DESCENDING),
    )
}
