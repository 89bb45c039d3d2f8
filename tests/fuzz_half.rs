//! Fuzz of the 16-bit floats (issue 23) on the CPU backend and the SIMT executor at 32 and 64
//! lanes: `reduce` and `scan` of `f16` and `bf16` (random lengths, every op, specials among the
//! values, outputs of the right length or off by a few), and collectives that do not take them
//! yet, which must refuse them with `UnsupportedType`.
//!
//! The property, as tests/fuzz_api.rs states it: a typed error exactly when this file's reading
//! of the documented rules says the arguments are invalid (a bitwise op, an empty reduce, an
//! output of another length, a collective that does not take the type), every output then as
//! it was; otherwise `wavekit_conformance::reference` bit for bit.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wavekit::{Backend, Collectives, Element, Predicate, ScanKind, WavekitError, bf16, f16};
use wavekit_conformance::{inputs, reference};
use wavekit_tests::fuzz::*;
use wavekit_tests::on;

fn reduce_and_scan<T: Element>(name: &str) {
    let out_delta = prop_oneof![4 => Just(0i64), 1 => -3i64..4];
    let s = (op(), len(), out_delta, any::<bool>(), any::<u64>());
    fuzz(name, s, |t, (op, n, delta, excl, seed)| {
        let kind = if excl {
            ScanKind::Exclusive
        } else {
            ScanKind::Inclusive
        };
        let vals: Vec<T> = inputs::values_with_specials(n, seed);
        let out_len = (n as i64 + delta).max(0) as usize;
        let sentinel: Vec<T> = (0..out_len as u64)
            .map(|i| T::from_bits(0x3C00 + i))
            .collect();
        let fail = |e: WavekitError| TestCaseError::fail(e.to_string());
        on!(t, |b| {
            let input = b.upload(&vals).map_err(fail)?;
            let mut tally = judged(
                "reduce",
                n > 0 && op_ok::<T>(op),
                b.reduce(&input, op),
                |got| {
                    let want = reference::device_reduce(&vals, op);
                    prop_assert!(want.same(got), "want {:?}, got {:?}", want, got);
                    Ok(())
                },
            )?;
            let mut out = b.upload(&sentinel).map_err(fail)?;
            let r = b.scan(&input, &mut out, op, kind);
            let after = b.download(&out).map_err(fail)?;
            if r.is_err() {
                same(&sentinel, &after)?;
            }
            tally += judged("scan", out_len == n && op_ok::<T>(op), r, |()| {
                same(&reference::device_scan(&vals, op, kind), &after)
            })?;
            // Not taken yet: refused whatever the other arguments are.
            let refused = b.count_if(&input, Predicate::Gt(T::from_bits(0x3C00)));
            prop_assert!(
                matches!(
                    refused,
                    Err(WavekitError::UnsupportedType {
                        collective: "count_if",
                        ..
                    })
                ),
                "count_if of {}: {:?}",
                T::KIND.name(),
                refused
            );
            let refused = b.block_reduce(&input, 64, op);
            prop_assert!(
                matches!(
                    refused,
                    Err(WavekitError::UnsupportedType {
                        collective: "block_reduce",
                        ..
                    })
                ),
                "block_reduce of {}: {:?}",
                T::KIND.name(),
                refused
            );
            tally += Tally::REFUSED;
            tally += Tally::REFUSED;
            Ok(tally)
        })
    });
}

#[test]
fn fuzz_half_f16() {
    reduce_and_scan::<f16>("f16 reduce/scan");
}

#[test]
fn fuzz_half_bf16() {
    reduce_and_scan::<bf16>("bf16 reduce/scan");
}
