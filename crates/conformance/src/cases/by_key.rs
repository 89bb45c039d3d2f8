//! by_key: scan_by_key (inclusive, exclusive) and reduce_by_key bit for bit against the
//! reference, every value type and op, u32 / i64 / f32 keys (and 16-bit keys with 16-bit values) (NaN keys, -0.0 beside 0.0), runs
//! of one, of ~8, across the 4096-element scan tiles, heads on tile edges, one run over
//! everything; float values of mixed magnitudes so another combining order shows. err_by_key:
//! refused arguments leave every output as it was.

use crate::Scale;
use crate::check::{eq, expect_err, ok, same_elems};
use crate::inputs::{pick, run_keys, values, values_with_specials};
use crate::reference;
use wavekit_core::canonical::SCAN_TILE;
use wavekit_core::element::{ElemKind, Element};
use wavekit_core::{ByKey, RawBackend, ReduceOp, ScanKind, WavekitError as E};
use wavekit_core::{bf16, f16};

/// How the keys of a shape are laid out.
#[derive(Clone, Copy, Debug)]
enum Keys {
    /// `run_keys` with this mean run length (pool with NaN, -0.0 and 0.0 for floats).
    Runs(usize),
    /// Heads at each tile's first, second and last position (runs of 1, 1 and 4093).
    TileEdges,
    /// One run: one key (for floats 0.0 and -0.0 alternating, equal under `==`).
    One,
}

/// (n, keys): tiny inputs, runs of one and ~8 over several tiles, runs longer than a tile over
/// more than two tasks of tiles, heads on tile edges, one run.
fn shapes(scale: Scale) -> Vec<(usize, Keys)> {
    let t = SCAN_TILE;
    pick(
        scale,
        &[
            (1, Keys::Runs(1)),
            (2, Keys::Runs(1)),
            (2, Keys::One),
            (31, Keys::Runs(2)),
            (1000, Keys::Runs(1)),
            (3 * t + 17, Keys::Runs(8)),
            (3 * t + 17, Keys::TileEdges),
            (5 * 2 * t + 3, Keys::Runs(3000)),
            (3 * t + 17, Keys::One),
        ],
        &[
            (1, Keys::Runs(1)),
            (31, Keys::Runs(2)),
            (1000, Keys::Runs(8)),
            (2 * t + 5, Keys::Runs(3000)),
            (2 * t + 5, Keys::TileEdges),
            (t + 1, Keys::One),
        ],
    )
}

fn keys_for<K: Element>(n: usize, shape: Keys, seed: u64) -> Vec<K> {
    match shape {
        Keys::Runs(mean) => run_keys::<K>(n, seed, mean),
        Keys::TileEdges => {
            let mut key = 0u64;
            (0..n)
                .map(|i| {
                    if i > 0 && matches!(i % SCAN_TILE, 0 | 1 | 4095) {
                        key += 1;
                    }
                    key_from::<K>(key)
                })
                .collect()
        }
        Keys::One => (0..n)
            .map(|i| match K::KIND {
                ElemKind::F32 | ElemKind::F64 | ElemKind::F16 | ElemKind::BF16 if i % 2 == 1 => {
                    K::from_bits(neg_zero::<K>())
                }
                _ => key_from::<K>(0),
            })
            .collect(),
    }
}

fn neg_zero<K: Element>() -> u64 {
    match K::KIND {
        ElemKind::F32 => (-0.0f32).to_bits() as u64,
        ElemKind::F16 | ElemKind::BF16 => 0x8000,
        _ => (-0.0f64).to_bits(),
    }
}

/// A distinct key for each small `k` (floats: the value k).
fn key_from<K: Element>(k: u64) -> K {
    match K::KIND {
        ElemKind::F32 => K::from_bits((k as f32).to_bits() as u64),
        ElemKind::F64 => K::from_bits((k as f64).to_bits()),
        ElemKind::F16 => K::from_bits(f16::from_f32(k as f32).to_bits() as u64),
        ElemKind::BF16 => K::from_bits(bf16::from_f32(k as f32).to_bits() as u64),
        _ => K::from_bits(k),
    }
}

/// Floats of mixed magnitudes (one in four scaled by 2^24, one in four by 2^-12), so sums
/// absorb small terms and any other association rounds differently; integers with specials
/// (wrapping sums, extremes for min and max).
fn mixed<V: Element>(n: usize, seed: u64) -> Vec<V> {
    let scale = |i: usize| match i % 4 {
        0 => 16_777_216.0,
        1 => 1.0 / 4096.0,
        _ => 1.0,
    };
    match V::KIND {
        ElemKind::F32 => values::<f32>(n, seed)
            .iter()
            .enumerate()
            .map(|(i, &x)| V::from_bits((x * scale(i) as f32).to_bits() as u64))
            .collect(),
        ElemKind::F64 => values::<f64>(n, seed)
            .iter()
            .enumerate()
            .map(|(i, &x)| V::from_bits((x * scale(i)).to_bits()))
            .collect(),
        // The 16-bit floats: by 2^10 and 2^-10 (f32 sums of them round in some orders).
        ElemKind::F16 | ElemKind::BF16 => values::<V>(n, seed)
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let y = x.to_f64() as f32 * (scale(i) as f32).powf(10.0 / 24.0);
                V::from_bits(if V::KIND == ElemKind::F16 {
                    f16::from_f32(y).to_bits() as u64
                } else {
                    bf16::from_f32(y).to_bits() as u64
                })
            })
            .collect(),
        _ => values_with_specials::<V>(n, seed),
    }
}

/// Which collective a case checks.
#[derive(Clone, Copy, Debug)]
enum Which {
    Scan(ScanKind),
    Reduce,
}

/// Every op for V on every shape (the large ones with Sum and Max only, and the slower key
/// types only where the keys' type matters: floats on every shape).
fn typed<V: Element, B: RawBackend>(b: &B, scale: Scale, which: Which) -> Result<(), String> {
    for (s, (n, shape)) in shapes(scale).into_iter().enumerate() {
        for op in ReduceOp::ops_for(V::KIND) {
            if n > 1000 && !matches!(op, ReduceOp::Sum | ReduceOp::Max) {
                continue;
            }
            let seed = (n * 31 + s) as u64 ^ (op as u64) << 40;
            let sets: Vec<(&str, Vec<V>)> = if n <= 1000 || op == ReduceOp::Sum {
                vec![("random", values(n, seed)), ("mixed", mixed(n, seed ^ 1))]
            } else {
                vec![("mixed", mixed(n, seed ^ 1))]
            };
            for (vname, vals) in &sets {
                let ctx = |k: ElemKind| {
                    format!(
                        "{which:?} {op:?} {} values, {} keys n={n} {shape:?} {vname}",
                        V::KIND.name(),
                        k.name()
                    )
                };
                check::<f32, V, B>(b, &ctx(ElemKind::F32), shape, seed, vals, op, which)?;
                if V::KIND.is_half() {
                    // 16-bit keys with the 16-bit values (f16 keys for bf16 values and the
                    // other way round).
                    if V::KIND == ElemKind::F16 {
                        check::<bf16, V, B>(b, &ctx(ElemKind::BF16), shape, seed, vals, op, which)?;
                    } else {
                        check::<f16, V, B>(b, &ctx(ElemKind::F16), shape, seed, vals, op, which)?;
                    }
                }
                if n <= 1000 || s % 2 == 0 {
                    check::<u32, V, B>(b, &ctx(ElemKind::U32), shape, seed, vals, op, which)?;
                } else {
                    check::<i64, V, B>(b, &ctx(ElemKind::I64), shape, seed, vals, op, which)?;
                }
            }
        }
    }
    Ok(())
}

fn check<K: Element, V: Element, B: RawBackend>(
    b: &B,
    ctx: &str,
    shape: Keys,
    seed: u64,
    vals: &[V],
    op: ReduceOp,
    which: Which,
) -> Result<(), String> {
    let n = vals.len();
    let keys = keys_for::<K>(n, shape, seed ^ 0xBE);
    let (kb, vb) = (ok(ctx, b.upload(&keys))?, ok(ctx, b.upload(vals))?);
    match which {
        Which::Scan(kind) => {
            let want = reference::scan_by_key(&keys, vals, op, kind);
            let got = ok(ctx, b.scan_by_key(&kb, &vb, op, kind))?;
            same_elems(ctx, "element", &want, &ok(ctx, b.download(&got))?)
        }
        Which::Reduce => {
            let (wk, wv) = reference::reduce_by_key(&keys, vals, op);
            // Outputs filled beforehand: past the runs they must keep these values.
            let fill_k = vec![key_from::<K>(99); n];
            let fill_v = vec![V::from_bits(0x5A5A); n];
            let mut ko = ok(ctx, b.upload(&fill_k))?;
            let mut vo = ok(ctx, b.upload(&fill_v))?;
            let mut count = ok(ctx, b.upload(&[7u64]))?;
            ok(
                ctx,
                b.reduce_by_key_into(&kb, &vb, &mut ko, &mut vo, &mut count, op),
            )?;
            let runs = ok(ctx, b.download(&count))?[0] as usize;
            eq(&format!("{ctx}: runs"), wk.len(), runs)?;
            let (gk, gv) = (ok(ctx, b.download(&ko))?, ok(ctx, b.download(&vo))?);
            let mut want_k = wk;
            want_k.extend_from_slice(&fill_k[runs..]);
            let mut want_v = wv;
            want_v.extend_from_slice(&fill_v[runs..]);
            same_elems(ctx, "run key", &want_k, &gk)?;
            same_elems(ctx, "run value", &want_v, &gv)?;
            // The convenience form agrees.
            let r = ok(ctx, b.reduce_by_key(&kb, &vb, op))?;
            eq(&format!("{ctx}: reduce_by_key runs"), runs, r.len)?;
            let gv = ok(ctx, b.download(&r.values))?;
            same_elems(ctx, "reduce_by_key value", &want_v[..runs], &gv[..runs])
        }
    }
}

pub fn scan_by_key_inclusive<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(typed(b, scale, Which::Scan(ScanKind::Inclusive)));
    each_half!(typed(b, scale, Which::Scan(ScanKind::Inclusive)));
    Ok(())
}

pub fn scan_by_key_exclusive<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(typed(b, scale, Which::Scan(ScanKind::Exclusive)));
    each_half!(typed(b, scale, Which::Scan(ScanKind::Exclusive)));
    Ok(())
}

pub fn reduce_by_key<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(typed(b, scale, Which::Reduce));
    each_half!(typed(b, scale, Which::Reduce));
    Ok(())
}

/// scan_by_key and reduce_by_key one after another as a caller makes them: new keys at the
/// same length, fewer tiles, more tiles, f64 values and back, scans and reduces on the same
/// scratch. A GPU backend keeps by_key's tile statuses between calls without zeroing them
/// (backends/gpu/src/tagged_pool.rs), so a call that took an earlier call's statuses for its
/// own would come out wrong here.
pub fn by_key_reused<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let t = SCAN_TILE;
    let (mid, few, many) = match scale {
        Scale::Full => (3 * t + 7, t + 1, 6 * t + 333),
        Scale::Small => (2 * t + 5, t + 1, 3 * t + 9),
    };
    let steps = [(mid, 3), (mid, 9), (few, 2), (many, 5), (mid, 700)];
    for (i, (n, mean)) in steps.into_iter().enumerate() {
        let seed = 1300 + i as u64;
        let vals = mixed::<f32>(n, seed);
        let ctx = format!("step {i} n={n} runs of ~{mean}");
        let which = if i % 2 == 0 {
            Which::Reduce
        } else {
            Which::Scan(ScanKind::Inclusive)
        };
        check::<u32, f32, B>(b, &ctx, Keys::Runs(mean), seed, &vals, ReduceOp::Sum, which)?;
        let which = Which::Scan(ScanKind::Exclusive);
        check::<u32, f32, B>(b, &ctx, Keys::Runs(mean), seed, &vals, ReduceOp::Max, which)?;
        if i == 2 {
            // Other values between two f32 calls: other statuses in the same scratch.
            let other = mixed::<f64>(mid, seed ^ 7);
            let ctx = format!("{ctx}, f64 values");
            check::<u32, f64, B>(
                b,
                &ctx,
                Keys::Runs(4),
                seed,
                &other,
                ReduceOp::Sum,
                Which::Reduce,
            )?;
        }
    }
    Ok(())
}

/// Refused arguments (value or output lengths, a count of two, a bitwise op on floats) leave
/// every output as it was; the same calls with good arguments then work; an empty input
/// writes nothing to a scan's output and 0 runs.
pub fn err_by_key<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let keys = ok("upload", b.upload(&[1u32, 1, 2]))?;
    let vals = ok("upload", b.upload(&[7.0f32, 8.0, 9.0]))?;
    let ints = ok("upload", b.upload(&[7i64, 8, 9]))?;
    let mut scan_out = ok("upload", b.upload(&[5.0f32; 3]))?;
    let mut kout = ok("upload", b.upload(&[5u32; 3]))?;
    let mut vout = ok("upload", b.upload(&[5.0f32; 3]))?;
    let mut count = ok("upload", b.upload(&[42u64]))?;
    let incl = ScanKind::Inclusive;
    for len in [2usize, 4] {
        let v = ok("upload", b.upload(&vec![1.0f32; len]))?;
        let ctx = format!("values of length {len} for 3 keys");
        expect_err!(
            format!("scan_by_key_into: {ctx}"),
            b.scan_by_key_into(&keys, &v, &mut scan_out, ReduceOp::Sum, incl),
            E::LengthMismatch { expected: 3, got, .. } if *got == len
        )?;
        expect_err!(
            format!("scan_by_key: {ctx}"),
            b.scan_by_key(&keys, &v, ReduceOp::Sum, incl).map(drop),
            E::LengthMismatch { .. }
        )?;
        expect_err!(
            format!("reduce_by_key_into: {ctx}"),
            b.reduce_by_key_into(&keys, &v, &mut kout, &mut vout, &mut count, ReduceOp::Sum),
            E::LengthMismatch { .. }
        )?;
        expect_err!(
            format!("reduce_by_key: {ctx}"),
            b.reduce_by_key(&keys, &v, ReduceOp::Sum).map(drop),
            E::LengthMismatch { .. }
        )?;
        let mut short_or_long = ok("upload", b.upload(&vec![5.0f32; len]))?;
        let mut keys_wrong = ok("upload", b.upload(&vec![5u32; len]))?;
        expect_err!(
            format!("scan_by_key_into: output of {len}"),
            b.scan_by_key_into(&keys, &vals, &mut short_or_long, ReduceOp::Max, incl),
            E::LengthMismatch { expected: 3, got, .. } if *got == len
        )?;
        expect_err!(
            format!("reduce_by_key_into: keys output of {len}"),
            b.reduce_by_key_into(
                &keys,
                &vals,
                &mut keys_wrong,
                &mut vout,
                &mut count,
                ReduceOp::Sum
            ),
            E::LengthMismatch { .. }
        )?;
        expect_err!(
            format!("reduce_by_key_into: values output of {len}"),
            b.reduce_by_key_into(
                &keys,
                &vals,
                &mut kout,
                &mut short_or_long,
                &mut count,
                ReduceOp::Sum
            ),
            E::LengthMismatch { .. }
        )?;
        eq(
            "wrong-length output untouched",
            vec![5.0f32; len],
            ok("download", b.download(&short_or_long))?,
        )?;
        eq(
            "wrong-length keys output untouched",
            vec![5u32; len],
            ok("download", b.download(&keys_wrong))?,
        )?;
    }
    for count_len in [0usize, 2] {
        let mut c = ok("upload", b.upload(&vec![42u64; count_len]))?;
        expect_err!(
            format!("reduce_by_key_into: count of {count_len}"),
            b.reduce_by_key_into(&keys, &vals, &mut kout, &mut vout, &mut c, ReduceOp::Sum),
            E::LengthMismatch { expected: 1, .. }
        )?;
        eq(
            "count untouched",
            vec![42u64; count_len],
            ok("download", b.download(&c))?,
        )?;
    }
    for op in [ReduceOp::BitAnd, ReduceOp::BitOr, ReduceOp::BitXor] {
        expect_err!(
            format!("scan_by_key_into {op:?} on f32"),
            b.scan_by_key_into(&keys, &vals, &mut scan_out, op, incl),
            E::UnsupportedOp { .. }
        )?;
        expect_err!(
            format!("reduce_by_key_into {op:?} on f32"),
            b.reduce_by_key_into(&keys, &vals, &mut kout, &mut vout, &mut count, op),
            E::UnsupportedOp { .. }
        )?;
        expect_err!(
            format!("reduce_by_key {op:?} on f32"),
            b.reduce_by_key(&keys, &vals, op).map(drop),
            E::UnsupportedOp { .. }
        )?;
    }
    eq(
        "scan output untouched",
        vec![5.0f32; 3],
        ok("download", b.download(&scan_out))?,
    )?;
    eq(
        "keys output untouched",
        vec![5u32; 3],
        ok("download", b.download(&kout))?,
    )?;
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
    // The same calls with good arguments work (so the refusals above were the arguments').
    ok(
        "good scan_by_key_into",
        b.scan_by_key_into(&keys, &vals, &mut scan_out, ReduceOp::Sum, incl),
    )?;
    eq(
        "scan",
        vec![7.0f32, 15.0, 9.0],
        ok("download", b.download(&scan_out))?,
    )?;
    ok(
        "good reduce_by_key_into",
        b.reduce_by_key_into(
            &keys,
            &vals,
            &mut kout,
            &mut vout,
            &mut count,
            ReduceOp::Sum,
        ),
    )?;
    eq("runs", vec![2u64], ok("download", b.download(&count))?)?;
    eq(
        "reduced values, the tail kept",
        vec![15.0f32, 9.0, 5.0],
        ok("download", b.download(&vout))?,
    )?;
    let mut iout = ok("upload", b.upload(&[0i64; 3]))?;
    ok(
        "bitwise op on integers",
        b.scan_by_key_into(
            &keys,
            &ints,
            &mut iout,
            ReduceOp::BitXor,
            ScanKind::Exclusive,
        ),
    )?;
    eq(
        "xor scan",
        vec![0i64, 7, 0],
        ok("download", b.download(&iout))?,
    )?;
    // Empty inputs: nothing to scan, 0 runs.
    let (ek, ev) = (
        ok("alloc", b.alloc::<u32>(0))?,
        ok("alloc", b.alloc::<f32>(0))?,
    );
    let mut eo = ok("alloc", b.alloc::<f32>(0))?;
    let mut eko = ok("alloc", b.alloc::<u32>(0))?;
    ok(
        "scan_by_key_into of nothing",
        b.scan_by_key_into(&ek, &ev, &mut eo, ReduceOp::Sum, incl),
    )?;
    ok(
        "reduce_by_key_into of nothing",
        b.reduce_by_key_into(&ek, &ev, &mut eko, &mut eo, &mut count, ReduceOp::Sum),
    )?;
    eq(
        "runs of nothing",
        vec![0u64],
        ok("download", b.download(&count))?,
    )?;
    let none = ok(
        "reduce_by_key of nothing",
        b.reduce_by_key(&ek, &ev, ReduceOp::Min),
    )?;
    eq("runs of an empty input", 0, none.len)
}
