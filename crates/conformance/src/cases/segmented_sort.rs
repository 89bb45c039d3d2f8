//! segmented_sort: fixed segments of sizes around the warp widths and past a GPU tile, and
//! offsets whose lengths run from empty to many tiles, or to 8 keys only, alone and mixed in one call (the GPU
//! kernels' size classes: warp, block network, radix tile, long, device-wide), keys and pairs,
//! both directions; offsets built for another length refused.

use super::sort::{sort_keys_of, sort_orders};
use crate::Scale;
use crate::check::{eq, expect_err, ok};
use crate::inputs::pick;
use crate::reference;
use wavekit_core::element::{Element, splitmix};
use wavekit_core::error::WavekitError as E;
use wavekit_core::{RawBackend, SegmentedSort, Segments, SortOrder, VectorSize};

/// Offsets of `count` segments with lengths from 0 to `longest`, most short, a few long.
fn skewed_offsets(count: usize, seed: u64, longest: u64) -> Vec<u32> {
    let mut offsets = vec![0u32];
    for i in 0..count as u64 {
        let r = splitmix(seed ^ i << 12);
        let len = match r % 10 {
            0..=2 => r >> 8 & 3,
            3..=6 => 3 + (r >> 8) % 62,
            7..=8 => 65 + (r >> 8) % 600,
            _ => 1000 + (r >> 8) % longest.saturating_sub(1000).max(1),
        };
        offsets.push(offsets[i as usize] + len as u32);
    }
    offsets
}

/// Keys and pairs of each segment sorted by every order in `orders`, against the reference.
fn check<K: Element, V: Element, B: RawBackend>(
    b: &B,
    keys: &[K],
    bounds: &[(usize, usize)],
    segs: &Segments<B>,
    orders: &[SortOrder],
    ctx: &str,
) -> Result<(), String> {
    let n = keys.len();
    let vals: Vec<V> = (0..n as u64).map(|i| V::from_bits(i + 5)).collect();
    let (kb, vb) = (
        ok("upload", b.upload(keys))?,
        ok("upload", b.upload(&vals))?,
    );
    let bits = |v: Vec<K>| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    for &order in orders {
        let ctx = format!("{ctx} {order:?}");
        let perm = reference::segmented_permutation(keys, bounds, order);
        let want_k: Vec<u64> = perm.iter().map(|&i| keys[i].to_bits()).collect();
        let got = ok(&ctx, b.segmented_sort_keys(&kb, segs, order))?;
        eq(
            &format!("{ctx}: keys"),
            want_k.clone(),
            bits(ok(&ctx, b.download(&got))?),
        )?;
        let (ko, vo) = ok(&ctx, b.segmented_sort_pairs(&kb, &vb, segs, order))?;
        eq(
            &format!("{ctx}: pair keys"),
            want_k,
            bits(ok(&ctx, b.download(&ko))?),
        )?;
        let want_v: Vec<u64> = perm.iter().map(|&i| vals[i].to_bits()).collect();
        let got_v: Vec<u64> = ok(&ctx, b.download(&vo))?
            .iter()
            .map(|x| x.to_bits())
            .collect();
        eq(&format!("{ctx}: pair values"), want_v, got_v)?;
    }
    Ok(())
}

/// Every order at full scale; one, turning over with `salt`, at small scale.
fn orders_for<K: Element>(scale: Scale, salt: usize) -> Vec<SortOrder> {
    let all = sort_orders::<K>();
    match scale {
        Scale::Full => all,
        Scale::Small => vec![all[salt % all.len()]],
    }
}

fn fixed_typed<K: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let base = pick(scale, &[20_011usize], &[2_001])[0];
    // Each backend's paths by the segment size: a warp (up to 32 or 64), a block in the GPU
    // kernels (a network up to 1024, a radix tile up to 4096), one a block through memory past
    // it (4097: its last segment is shorter), and on the executor the device-wide one (9000).
    let sizes = pick(
        scale,
        &[1usize, 7, 32, 33, 64, 100, 1000, 4096, 4097, 9000],
        &[7, 64, 1500, 4097],
    );
    for (i, size) in sizes.into_iter().enumerate() {
        let n = base.max(size + size / 2);
        let keys = sort_keys_of::<K>(n, size as u64, (size % 3) as u32);
        let bounds: Vec<(usize, usize)> = (0..n.div_ceil(size))
            .map(|s| (s * size, n.min((s + 1) * size)))
            .collect();
        let segs = ok("segments", Segments::fixed(size, VectorSize::Auto))?;
        let orders = orders_for::<K>(scale, i + K::KIND as usize);
        let ctx = format!("{} n={n} size={size}", K::KIND.name());
        check::<K, u32, B>(b, &keys, &bounds, &segs, &orders, &ctx)?;
    }
    Ok(())
}

pub fn segmented_sort_fixed<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(fixed_typed(b, scale));
    each_half!(fixed_typed(b, scale));
    Ok(())
}

/// The segments `offsets` names over `keys` (the last offset is their length), checked as
/// `check` does.
fn check_offsets<K: Element, V: Element, B: RawBackend>(
    b: &B,
    keys: &[K],
    offsets: &[u32],
    orders: &[SortOrder],
    ctx: &str,
) -> Result<(), String> {
    let bounds: Vec<(usize, usize)> = offsets
        .windows(2)
        .map(|w| (w[0] as usize, w[1] as usize))
        .collect();
    let segs = ok(
        "segments",
        Segments::from_offsets(b, offsets, keys.len(), VectorSize::Auto),
    )?;
    check::<K, V, B>(b, keys, &bounds, &segs, orders, ctx)
}

fn offsets_typed<K: Element, V: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let (count, longest) = pick(scale, &[(300usize, 12_000u64)], &[(40, 2_500)])[0];
    for seed in pick(scale, &[0u64, 1], &[K::KIND as u64 % 2]) {
        let offsets = skewed_offsets(count, seed + count as u64, longest);
        let n = *offsets.last().expect("count + 1 offsets") as usize;
        let keys = sort_keys_of::<K>(n, seed, seed as u32);
        let orders = orders_for::<K>(scale, V::KIND as usize);
        let ctx = format!(
            "{}+{} n={n} offsets seed={seed}",
            K::KIND.name(),
            V::KIND.name()
        );
        check_offsets::<K, V, B>(b, &keys, &offsets, &orders, &ctx)?;
    }
    Ok(())
}

/// Offsets of segments of 0 to 8 keys only: the GPU kernels sort them one a thread, their keys
/// and values staged through shared memory a block of segments at a time (more than one block's
/// worth, the last block part full).
fn short_typed<K: Element, V: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let count = pick(scale, &[5_000usize], &[700])[0];
    let mut offsets = vec![0u32];
    for i in 0..count as u64 {
        offsets.push(offsets[i as usize] + (splitmix(K::KIND as u64 ^ i << 8) % 9) as u32);
    }
    let n = *offsets.last().expect("count + 1 offsets") as usize;
    let keys = sort_keys_of::<K>(n, K::KIND as u64, (V::KIND as u32) % 3);
    let orders = orders_for::<K>(scale, V::KIND as usize);
    let ctx = format!("{}+{} n={n} short offsets", K::KIND.name(), V::KIND.name());
    check_offsets::<K, V, B>(b, &keys, &offsets, &orders, &ctx)
}

pub fn segmented_sort_offsets<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    short_typed::<u32, u64, B>(b, scale)?;
    short_typed::<f64, wavekit_core::bf16, B>(b, scale)?;
    short_typed::<wavekit_core::f16, f32, B>(b, scale)?;
    offsets_typed::<u32, f64, B>(b, scale)?;
    offsets_typed::<f32, u32, B>(b, scale)?;
    offsets_typed::<i64, i32, B>(b, scale)?;
    offsets_typed::<f64, u64, B>(b, scale)?;
    offsets_typed::<wavekit_core::f16, wavekit_core::bf16, B>(b, scale)?;
    offsets_typed::<u32, wavekit_core::f16, B>(b, scale)
}

/// Offsets of 400 segments, most of up to 69 keys (empty, a warp's and past it), with a few
/// of each longer class of the GPU kernels among them every 50 segments: 100 (a block's
/// network), 1025 and 4096 (a radix tile's), then `long` ones.
fn mixed_offsets(seed: u64, long: &[u32]) -> Vec<u32> {
    let mut others = [100u32, 1025, 4096].into_iter().chain(long.iter().copied());
    let mut offsets = vec![0u32];
    for i in 0..400u64 {
        let len = match i % 50 {
            25 => others.next().unwrap_or(1),
            _ => (splitmix(seed ^ i << 8) % 70) as u32,
        };
        offsets.push(offsets[i as usize] + len);
    }
    offsets
}

fn mixed_typed<K: Element, V: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    // Segments past a radix tile among short ones: up to 7000 keys the GPU kernels sort every
    // class in one call (two tiles and more: the long kernel's passes through memory); 9000
    // keys, a third of the input, send the executor's build down the device-wide path (its
    // floor is twice a tile there).
    for (i, long) in [&[4097u32, 7000][..], &[9000]].into_iter().enumerate() {
        let seed = K::KIND as u64 + i as u64;
        let offsets = mixed_offsets(seed, long);
        let n = *offsets.last().expect("count + 1 offsets") as usize;
        let keys = sort_keys_of::<K>(n, seed, (seed % 3) as u32);
        let orders = orders_for::<K>(scale, i + V::KIND as usize);
        let ctx = format!(
            "{}+{} n={n} mixed longest={}",
            K::KIND.name(),
            V::KIND.name(),
            long.iter().max().copied().unwrap_or(0)
        );
        check_offsets::<K, V, B>(b, &keys, &offsets, &orders, &ctx)?;
    }
    Ok(())
}

/// Short segments and long ones in one call (a power-law's shape): every size class of the GPU
/// kernels at once, and a segment long enough for the device-wide path among short ones.
pub fn segmented_sort_mixed<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    mixed_typed::<u32, u64, B>(b, scale)?;
    mixed_typed::<wavekit_core::f16, u32, B>(b, scale)?;
    if scale == Scale::Full {
        mixed_typed::<i64, f32, B>(b, scale)?;
        mixed_typed::<f64, i32, B>(b, scale)?;
    }
    Ok(())
}

pub fn err_segmented_sort<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let keys = ok("upload", b.upload(&[3u32, 1, 2, 0]))?;
    let mut out = ok("upload", b.upload(&[9u32; 4]))?;
    let other = ok(
        "segments",
        Segments::from_offsets(b, &[0, 2, 5], 5, VectorSize::Auto),
    )?;
    expect_err!(
        "offsets built for 5 keys",
        b.segmented_sort_keys_into(&keys, &other, &mut out, SortOrder::ASCENDING),
        E::LengthMismatch { .. }
    )?;
    let segs = ok("segments", Segments::fixed(2, VectorSize::Auto))?;
    expect_err!(
        "bits past the key",
        b.segmented_sort_keys_into(&keys, &segs, &mut out, SortOrder::ASCENDING.bits(0, 40)),
        E::InvalidBitRange { .. }
    )?;
    let vals = ok("upload", b.upload(&[1i32, 2, 3]))?;
    let mut vout = ok("alloc", b.alloc::<i32>(4))?;
    expect_err!(
        "values not one per key",
        b.segmented_sort_pairs_into(
            &keys,
            &vals,
            &segs,
            &mut out,
            &mut vout,
            SortOrder::ASCENDING
        ),
        E::LengthMismatch { .. }
    )?;
    expect_err!(
        "decreasing offsets",
        Segments::from_offsets(b, &[0, 3, 2, 4], 4, VectorSize::Auto).map(drop),
        E::InvalidOffsets { .. }
    )?;
    eq(
        "output untouched",
        vec![9u32; 4],
        ok("download", b.download(&out))?,
    )
}
