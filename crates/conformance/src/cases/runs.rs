//! runs: unique, unique_by_key and run_length_encode over keys in runs of many lengths, every
//! key type (NaN keys, -0.0 beside 0.0), runs that cross the kernels' 4096-key tiles.

use crate::Scale;
use crate::check::{eq, expect_err, ok, same_elems};
use crate::inputs::{pick, run_keys, values};
use crate::reference;
use wavekit_core::element::Element;
use wavekit_core::{RawBackend, Runs, WavekitError as E};

/// (n, mean run length): one key, a warp, tiles of short runs, runs longer than a tile, one
/// run over several tiles.
fn shapes(scale: Scale) -> Vec<(usize, usize)> {
    pick(
        scale,
        &[
            (1, 1),
            (31, 2),
            (1000, 1),
            (4097, 8),
            (20_001, 3),
            (20_001, 5000),
            (70_000, 70_000),
        ],
        &[(1, 1), (31, 2), (1000, 4), (9000, 3000)],
    )
}

fn inputs<K: Element>(scale: Scale) -> Vec<(String, Vec<K>)> {
    let mut all: Vec<(String, Vec<K>)> = shapes(scale)
        .into_iter()
        .enumerate()
        .map(|(i, (n, mean))| {
            let keys = run_keys::<K>(n, 77 + i as u64, mean);
            (format!("{} n={n} runs of ~{mean}", K::KIND.name()), keys)
        })
        .collect();
    all.push((
        format!("{} runs open at tile starts", K::KIND.name()),
        open_at_tile_starts(),
    ));
    all
}

/// Keys in short runs, except that the run open where tile k + 1 starts began `OPEN_BEFORE[k]`
/// keys before it: a kernel that reads the keys back a few warps' worth to find that run's
/// start (csrc/kernels/runs.cu) is tried on each side of its last window at both widths.
const OPEN_BEFORE: [usize; 13] = [1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257];

fn open_at_tile_starts<K: Element>() -> Vec<K> {
    let tile = wavekit_core::canonical::SCAN_TILE;
    let mut keys = run_keys::<K>((OPEN_BEFORE.len() + 1) * tile, 91, 4);
    for (k, &before) in OPEN_BEFORE.iter().enumerate() {
        let (start, end) = ((k + 1) * tile - before, (k + 1) * tile + 5);
        // A key unlike the keys on either side (and not NaN, which never equals itself and so
        // would start a run at every position).
        let key = values::<K>(64, 500 + k as u64)
            .into_iter()
            .find(|v| !v.to_f64().is_nan() && !(*v == keys[start - 1]) && !(*v == keys[end]))
            .expect("a key unlike two others among 64");
        keys[start..end].fill(key);
    }
    keys
}

fn unique_typed<K: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    for (ctx, keys) in inputs::<K>(scale) {
        let want: Vec<K> = reference::runs(&keys).iter().map(|r| keys[r.0]).collect();
        let buf = ok(&ctx, b.upload(&keys))?;
        let got = ok(&ctx, b.unique(&buf))?;
        eq(&format!("{ctx}: runs"), want.len(), got.len)?;
        let all = ok(&ctx, b.download(&got.data))?;
        same_elems(&ctx, "unique keys", &want, &all[..got.len.min(all.len())])?;
    }
    Ok(())
}

fn unique_by_key_typed<K: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    for (i, (ctx, keys)) in inputs::<K>(scale).into_iter().enumerate() {
        // Values of both sizes, a different type from the keys.
        let runs = reference::runs(&keys);
        if i % 2 == 0 {
            check_by_key::<K, u32, B>(b, &ctx, &keys, &runs)?;
        } else {
            check_by_key::<K, f64, B>(b, &ctx, &keys, &runs)?;
        }
    }
    Ok(())
}

fn check_by_key<K: Element, V: Element, B: RawBackend>(
    b: &B,
    ctx: &str,
    keys: &[K],
    runs: &[(usize, usize)],
) -> Result<(), String> {
    let vals = values::<V>(keys.len(), keys.len() as u64 + 3);
    let (kb, vb) = (ok(ctx, b.upload(keys))?, ok(ctx, b.upload(&vals))?);
    let got = ok(ctx, b.unique_by_key(&kb, &vb))?;
    eq(&format!("{ctx}: runs"), runs.len(), got.len)?;
    let (gk, gv) = (
        ok(ctx, b.download(&got.keys))?,
        ok(ctx, b.download(&got.values))?,
    );
    let wk: Vec<K> = runs.iter().map(|r| keys[r.0]).collect();
    let wv: Vec<V> = runs.iter().map(|r| vals[r.0]).collect();
    let m = got.len.min(gk.len());
    same_elems(ctx, "unique keys", &wk, &gk[..m])?;
    same_elems(ctx, "values at run starts", &wv, &gv[..m])
}

fn rle_typed<K: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    for (ctx, keys) in inputs::<K>(scale) {
        let runs = reference::runs(&keys);
        let buf = ok(&ctx, b.upload(&keys))?;
        let got = ok(&ctx, b.run_length_encode(&buf))?;
        eq(&format!("{ctx}: runs"), runs.len(), got.len)?;
        let (gk, gl) = (
            ok(&ctx, b.download(&got.keys))?,
            ok(&ctx, b.download(&got.lengths))?,
        );
        let wk: Vec<K> = runs.iter().map(|r| keys[r.0]).collect();
        let wl: Vec<u32> = runs.iter().map(|r| r.1 as u32).collect();
        let m = got.len.min(gk.len());
        same_elems(&ctx, "run keys", &wk, &gk[..m])?;
        eq(&format!("{ctx}: run lengths"), &wl[..], &gl[..m])?;
    }
    Ok(())
}

pub fn unique<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(unique_typed(b, scale));
    each_half!(unique_typed(b, scale));
    Ok(())
}

pub fn unique_by_key<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(unique_by_key_typed(b, scale));
    each_half!(unique_by_key_typed(b, scale));
    // 16-bit values, beside 32-bit and 16-bit keys.
    for (ctx, keys) in inputs::<u32>(scale) {
        check_by_key::<u32, wavekit_core::f16, B>(b, &ctx, &keys, &reference::runs(&keys))?;
    }
    for (ctx, keys) in inputs::<wavekit_core::bf16>(scale) {
        check_by_key::<wavekit_core::bf16, wavekit_core::f16, B>(
            b,
            &ctx,
            &keys,
            &reference::runs(&keys),
        )?;
    }
    Ok(())
}

pub fn run_length_encode<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(rle_typed(b, scale));
    each_half!(rle_typed(b, scale));
    Ok(())
}

/// Runs one after another as a caller makes them: run_length_encode and unique of new keys at
/// the same length, fewer tiles, more tiles, another key type and back. A GPU backend keeps the
/// runs' tile statuses between calls without zeroing them (backends/gpu/src/tagged_pool.rs), so
/// a call that took an earlier call's statuses for its own would come out wrong here.
pub fn runs_reused<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let t = wavekit_core::canonical::SCAN_TILE;
    let (mid, few, many) = match scale {
        Scale::Full => (3 * t + 7, t + 1, 6 * t + 333),
        Scale::Small => (2 * t + 5, t + 1, 3 * t + 9),
    };
    for (i, (n, mean)) in [(mid, 3), (mid, 5), (few, 2), (many, 4), (mid, 7)]
        .into_iter()
        .enumerate()
    {
        let keys = run_keys::<u32>(n, 900 + i as u64, mean);
        let ctx = format!("u32 step {i} n={n} runs of ~{mean}");
        let runs = reference::runs(&keys);
        let buf = ok(&ctx, b.upload(&keys))?;
        let got = ok(&ctx, b.run_length_encode(&buf))?;
        eq(&format!("{ctx}: runs"), runs.len(), got.len)?;
        let (gk, gl) = (
            ok(&ctx, b.download(&got.keys))?,
            ok(&ctx, b.download(&got.lengths))?,
        );
        let m = got.len.min(gk.len());
        let wk: Vec<u32> = runs.iter().map(|r| keys[r.0]).collect();
        let wl: Vec<u32> = runs.iter().map(|r| r.1 as u32).collect();
        same_elems(&ctx, "run keys", &wk, &gk[..m])?;
        eq(&format!("{ctx}: run lengths"), &wl[..], &gl[..m])?;
        let got = ok(&ctx, b.unique(&buf))?;
        let all = ok(&ctx, b.download(&got.data))?;
        eq(&format!("{ctx}: unique runs"), runs.len(), got.len)?;
        same_elems(&ctx, "unique keys", &wk, &all[..got.len.min(all.len())])?;
        if i == 2 {
            // Another key type between two u32 calls: other statuses in the same scratch.
            let other = run_keys::<f64>(mid, 950, 3);
            let want: Vec<f64> = reference::runs(&other).iter().map(|r| other[r.0]).collect();
            let ob = ok(&ctx, b.upload(&other))?;
            let got = ok(&ctx, b.unique(&ob))?;
            let all = ok(&ctx, b.download(&got.data))?;
            eq(&format!("{ctx}: f64 runs"), want.len(), got.len)?;
            same_elems(
                &ctx,
                "f64 unique keys",
                &want,
                &all[..got.len.min(all.len())],
            )?;
        }
    }
    Ok(())
}

/// Bad lengths are refused before any work and leave every output as it was; an empty input
/// has no runs.
pub fn err_runs<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let keys = ok("upload", b.upload(&[1u32, 1, 2]))?;
    let vals = ok("upload", b.upload(&[7.0f32, 8.0, 9.0]))?;
    let short_vals = ok("upload", b.upload(&[7.0f32, 8.0]))?;
    let mut kout = ok("upload", b.upload(&[5u32; 3]))?;
    let mut vout = ok("upload", b.upload(&[5.0f32; 3]))?;
    let mut lens = ok("upload", b.upload(&[5u32; 3]))?;
    let mut short = ok("upload", b.upload(&[5u32; 2]))?;
    let mut count = ok("upload", b.upload(&[42u64]))?;
    let mut two = ok("upload", b.upload(&[42u64, 42]))?;
    expect_err!(
        "unique: short output",
        b.unique_into(&keys, &mut short, &mut count),
        E::LengthMismatch { .. }
    )?;
    expect_err!(
        "unique: two-element count",
        b.unique_into(&keys, &mut kout, &mut two),
        E::LengthMismatch { .. }
    )?;
    expect_err!(
        "unique_by_key: short values",
        b.unique_by_key(&keys, &short_vals).map(drop),
        E::LengthMismatch { .. }
    )?;
    expect_err!(
        "unique_by_key_into: short values",
        b.unique_by_key_into(&keys, &short_vals, &mut kout, &mut vout, &mut count),
        E::LengthMismatch { .. }
    )?;
    expect_err!(
        "run_length_encode: short lengths",
        b.run_length_encode_into(&keys, &mut kout, &mut short, &mut count),
        E::LengthMismatch { .. }
    )?;
    let untouched =
        |what: &str, got: Vec<u32>| eq(&format!("{what} untouched"), vec![5u32; 3], got);
    untouched("keys output", ok("download", b.download(&kout))?)?;
    untouched("lengths output", ok("download", b.download(&lens))?)?;
    eq(
        "values output untouched",
        vec![5.0f32; 3],
        ok("download", b.download(&vout))?,
    )?;
    eq(
        "count untouched",
        vec![42u64],
        ok("download", b.download(&count))?,
    )?;
    // The same calls with good lengths work (so the refusals above were the lengths').
    ok(
        "good run_length_encode",
        b.run_length_encode_into(&keys, &mut kout, &mut lens, &mut count),
    )?;
    eq("runs", vec![2u64], ok("download", b.download(&count))?)?;
    ok(
        "good unique_by_key",
        b.unique_by_key_into(&keys, &vals, &mut kout, &mut vout, &mut count),
    )?;
    eq(
        "values at run starts",
        vec![7.0f32, 9.0],
        ok("download", b.download(&vout))?[..2].to_vec(),
    )?;
    let empty = ok("alloc", b.alloc::<i64>(0))?;
    let none = ok("unique of nothing", b.unique(&empty))?;
    eq("runs of an empty input", 0, none.len)?;
    let none = ok("run_length_encode of nothing", b.run_length_encode(&empty))?;
    eq("runs of an empty input", 0, none.len)
}
