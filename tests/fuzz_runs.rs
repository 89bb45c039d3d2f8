//! Fuzz of the runs entry points (issue 23) on the CPU backend and the SIMT executor at 32 and
//! 64 lanes: `unique_into`, `unique_by_key_into` and `run_length_encode_into`, their keys
//! through random chains of views, with random run lengths (NaN keys, -0.0 beside 0.0), values
//! and outputs of the right length or off by one.
//!
//! The property, as tests/fuzz_api.rs states it: a typed error exactly when this file's reading
//! of the documented rules says the arguments are invalid, every output then as it was;
//! otherwise the reference's runs (`wavekit_conformance::reference::runs`), bit for bit, at
//! the outputs' front and the rest of each output as it was.

use proptest::prelude::*;
use wavekit::{Backend, DeviceBuffer, Element, Runs, WavekitError};
use wavekit_conformance::{inputs, reference};
use wavekit_tests::fuzz::*;
use wavekit_tests::on;

/// A pass over tiles with two look-backs on the executor: inputs of at most a few tiles.
const CASES: u32 = 64;

fn runs_len() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0usize..100, 2 => 100usize..1200, 1 => 4090usize..9000]
}

/// An output length: mostly right, sometimes one short or one long.
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
fn fuzz_runs() {
    let strategy = (
        runs_len(),
        any::<u64>(),
        1usize..40,
        0u8..3,
        chain_arg(),
        (off_by(), off_by(), off_by()),
    );
    fuzz_cases(
        "runs",
        CASES,
        strategy,
        |t, (n, seed, mean, which, kin, (ok_off, ov_off, vin_off))| {
            let data: Vec<f32> = inputs::run_keys(n, seed, mean);
            on!(t, |b| {
                let base = a_unwrap(b.upload(&data))?;
                let in_r = kin.ranges(n);
                let r = through(b, &base, &in_r, |x| {
                    let m = x.len();
                    let vals: Vec<u64> = inputs::values(sized(m, vin_off), seed ^ 5);
                    let vb = b.upload(&vals)?;
                    let kbefore = vec![7.5f32; sized(m, ok_off)];
                    let obefore = vec![9u64; sized(m, ov_off)];
                    let mut ko = b.upload(&kbefore)?;
                    let mut count = b.upload(&[42u64])?;
                    let (r, second) = match which {
                        0 => (b.unique_into(x, &mut ko, &mut count), Vec::new()),
                        1 => {
                            let mut vo = b.upload(&obefore)?;
                            let r = b.unique_by_key_into(x, &vb, &mut ko, &mut vo, &mut count);
                            (r, b.download(&vo)?)
                        }
                        _ => {
                            let lb: Vec<u32> = obefore.iter().map(|&v| v as u32).collect();
                            let mut lo = b.upload(&lb)?;
                            let r = b.run_length_encode_into(x, &mut ko, &mut lo, &mut count);
                            (r, b.download(&lo)?.into_iter().map(u64::from).collect())
                        }
                    };
                    let out = (b.download(&ko)?, second, b.download(&count)?[0]);
                    Ok::<_, WavekitError>((m, vals, r, out))
                });
                let Ok(inner) = r else {
                    return judged("slice", false, r.map(drop), |()| Ok(()));
                };
                let (m, vals, r, (kout, second, count)) = a_unwrap(inner)?;
                let right = |off: i8| sized(m, off) == m;
                let valid = right(ok_off)
                    && (which == 0 || right(ov_off))
                    && (which != 1 || right(vin_off));
                if !valid {
                    prop_assert!(
                        kout.iter().all(|&k| k == 7.5),
                        "keys output changed on error"
                    );
                    prop_assert!(
                        second.iter().all(|&v| v == 9),
                        "second output changed on error"
                    );
                    prop_assert_eq!(count, 42, "count changed on error");
                }
                judged("runs", valid, r, |()| {
                    let w = window(&in_r, n).expect("a valid chain");
                    let x = &data[w];
                    let runs = reference::runs(x);
                    prop_assert_eq!(count as usize, runs.len());
                    let wk: Vec<u64> = runs.iter().map(|r| Element::to_bits(x[r.0])).collect();
                    let mut want_k = bits_of(&vec![7.5f32; m]);
                    want_k[..runs.len()].copy_from_slice(&wk);
                    prop_assert_eq!(bits_of(&kout), want_k);
                    let second_want: Vec<u64> = match which {
                        0 => return Ok(()),
                        1 => runs.iter().map(|r| vals[r.0]).collect(),
                        _ => runs.iter().map(|r| r.1 as u64).collect(),
                    };
                    let mut want = vec![9u64; m];
                    want[..runs.len()].copy_from_slice(&second_want);
                    prop_assert_eq!(second, want);
                    Ok(())
                })
            })
        },
    );
}
