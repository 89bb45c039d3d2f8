//! Fuzz of the by-key entry points (issue 23) on the CPU backend and the SIMT executor at 32
//! and 64 lanes: `scan_by_key_into` (inclusive, exclusive) and `reduce_by_key_into`, their keys
//! through random chains of views, with random run lengths (NaN keys, -0.0 beside 0.0), f32
//! values, any op (bitwise ones refused on floats), values, outputs and the count of the right
//! length or off by one.
//!
//! The property, as tests/fuzz_api.rs states it: a typed error exactly when this file's reading
//! of the documented rules says the arguments are invalid, every output then as it was;
//! otherwise the reference's result (`wavekit_conformance::reference::{scan_by_key,
//! reduce_by_key}`), bit for bit, a reduce's runs at the outputs' front and the rest of each
//! output as it was.

use proptest::prelude::*;
use wavekit::{Backend, ByKey, DeviceBuffer, Element, ScanKind, WavekitError};
use wavekit_conformance::{inputs, reference};
use wavekit_tests::fuzz::*;
use wavekit_tests::on;

/// One pass over tiles with look-backs on the executor: inputs of at most a few tiles.
const CASES: u32 = 64;

fn by_key_len() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0usize..100, 2 => 100usize..1200, 1 => 4090usize..9000]
}

/// A length: mostly right, sometimes one short or one long.
fn off_by() -> impl Strategy<Value = i8> {
    prop_oneof![6 => Just(0i8), 1 => Just(-1i8), 1 => Just(1i8)]
}

fn sized(n: usize, off: i8) -> usize {
    (n as i64 + off as i64).max(0) as usize
}

fn bits_of<T: Element>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn fuzz_by_key() {
    let strategy = (
        (by_key_len(), any::<u64>(), 1usize..40),
        0u8..3,
        op(),
        chain_arg(),
        (off_by(), off_by(), off_by(), off_by()),
    );
    fuzz_cases(
        "by_key",
        CASES,
        strategy,
        |t, ((n, seed, mean), which, op, kin, (vin_off, o1_off, o2_off, c_off))| {
            let data: Vec<f32> = inputs::run_keys(n, seed, mean);
            on!(t, |b| {
                let base = a_unwrap(b.upload(&data))?;
                let in_r = kin.ranges(n);
                let r = through(b, &base, &in_r, |x| {
                    let m = x.len();
                    let vals: Vec<f32> = inputs::values(sized(m, vin_off), seed ^ 5);
                    let vb = b.upload(&vals)?;
                    let before1 = vec![7.5f32; sized(m, o1_off)];
                    let before2 = vec![9.25f32; sized(m, o2_off)];
                    let mut o1 = b.upload(&before1)?;
                    let mut o2 = b.upload(&before2)?;
                    let mut count = b.upload(&vec![42u64; sized(1, c_off)])?;
                    let r = match which {
                        0 => b.scan_by_key_into(x, &vb, &mut o2, op, ScanKind::Inclusive),
                        1 => b.scan_by_key_into(x, &vb, &mut o2, op, ScanKind::Exclusive),
                        _ => b.reduce_by_key_into(x, &vb, &mut o1, &mut o2, &mut count, op),
                    };
                    let out = (b.download(&o1)?, b.download(&o2)?, b.download(&count)?);
                    Ok::<_, WavekitError>((m, vals, r, out))
                });
                let Ok(inner) = r else {
                    return judged("slice", false, r.map(drop), |()| Ok(()));
                };
                let (m, vals, r, (o1, o2, count)) = a_unwrap(inner)?;
                let right = |off: i8| sized(m, off) == m;
                let valid = op_ok::<f32>(op)
                    && right(vin_off)
                    && right(o2_off)
                    && (which < 2 || (right(o1_off) && c_off == 0));
                if !valid {
                    prop_assert!(o1.iter().all(|&k| k == 7.5), "keys output changed on error");
                    prop_assert!(
                        o2.iter().all(|&v| v == 9.25),
                        "values output changed on error"
                    );
                    prop_assert!(count.iter().all(|&c| c == 42), "count changed on error");
                }
                judged("by_key", valid, r, |()| {
                    let w = window(&in_r, n).expect("a valid chain");
                    let x = &data[w];
                    if which < 2 {
                        let kind = [ScanKind::Inclusive, ScanKind::Exclusive][which as usize];
                        let want = reference::scan_by_key(x, &vals, op, kind);
                        // An empty input writes nothing.
                        return same(&want, &o2);
                    }
                    let (wk, wv) = reference::reduce_by_key(x, &vals, op);
                    prop_assert_eq!(count[0] as usize, wk.len());
                    let mut want_k = bits_of(&vec![7.5f32; m]);
                    want_k[..wk.len()].copy_from_slice(&bits_of(&wk));
                    prop_assert_eq!(bits_of(&o1), want_k);
                    let mut want_v = vec![9.25f32; m];
                    want_v[..wv.len()].copy_from_slice(&wv);
                    same(&want_v, &o2)
                })
            })
        },
    );
}
