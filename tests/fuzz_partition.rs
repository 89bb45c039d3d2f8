//! Fuzz of the partition entry points (issue 23) on the CPU backend and the SIMT executor at 32
//! and 64 lanes: `partition_into`, `partition3_into` and their reversed forms, their input
//! through random chains of views, f32 values with specials (NaN, ±inf, ±0.0), random
//! predicates, the output and the count(s) of the right length or off by one.
//!
//! The property, as tests/fuzz_api.rs states it: a typed error exactly when this file's reading
//! of the documented rules says the arguments are invalid, every output then as it was;
//! otherwise the reference's result (`wavekit_conformance::reference::{partition,
//! partition3}`), bit for bit, counts included.

use proptest::prelude::*;
use wavekit::{Backend, DeviceBuffer, Element, Partition, PartitionReversed, WavekitError};
use wavekit_conformance::{inputs, reference};
use wavekit_tests::fuzz::*;
use wavekit_tests::on;

/// Three launches over tiles on the executor: inputs of at most a few tiles.
const CASES: u32 = 64;

fn part_len() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0usize..100, 2 => 100usize..2100, 1 => 4090usize..9000]
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
fn fuzz_partition() {
    let strategy = (
        (part_len(), any::<u64>()),
        any::<bool>(),
        (predicate(), predicate()),
        chain_arg(),
        (off_by(), off_by()),
    );
    fuzz_cases(
        "partition",
        CASES,
        strategy,
        |t, ((n, seed), three, (first, second), kin, (o_off, c_off))| {
            let data: Vec<f32> = inputs::values_with_specials(n, seed);
            on!(t, |b| {
                let base = a_unwrap(b.upload(&data))?;
                let in_r = kin.ranges(n);
                let r = through(b, &base, &in_r, |x| {
                    let m = x.len();
                    let parts = if three { 2 } else { 1 };
                    let mut out = b.upload(&vec![7.5f32; sized(m, o_off)])?;
                    let mut count = b.upload(&vec![42u64; sized(parts, c_off)])?;
                    let r = if three {
                        b.partition3_into(x, first, second, &mut out, &mut count)
                    } else {
                        b.partition_into(x, first, &mut out, &mut count)
                    };
                    let got = (b.download(&out)?, b.download(&count)?);
                    Ok::<_, WavekitError>((m, r, got))
                });
                let Ok(inner) = r else {
                    return judged("slice", false, r.map(drop), |()| Ok(()));
                };
                let (m, r, (out, count)) = a_unwrap(inner)?;
                let valid = sized(m, o_off) == m && c_off == 0;
                if !valid {
                    prop_assert!(out.iter().all(|&v| v == 7.5), "output changed on error");
                    prop_assert!(count.iter().all(|&c| c == 42), "count changed on error");
                }
                judged("partition", valid, r, |()| {
                    let w = window(&in_r, n).expect("a valid chain");
                    let x = &data[w];
                    let (want, counts) = if three {
                        let (v, c) = reference::partition3(x, &first, &second);
                        (v, vec![c[0] as u64, c[1] as u64])
                    } else {
                        let (v, c) = reference::partition(x, &first);
                        (v, vec![c as u64])
                    };
                    prop_assert_eq!(count, counts);
                    prop_assert_eq!(bits_of(&out), bits_of(&want));
                    Ok(())
                })
            })
        },
    );
}

/// The reversed forms: `partition_reversed_into` and `partition3_reversed_into` (its `middle`
/// of the right length or off by one too); slots no part reaches keep the fill.
#[test]
fn fuzz_partition_reversed() {
    let strategy = (
        (part_len(), any::<u64>()),
        any::<bool>(),
        (predicate(), predicate()),
        chain_arg(),
        (off_by(), off_by(), off_by()),
    );
    fuzz_cases(
        "partition_reversed",
        CASES,
        strategy,
        |t, ((n, seed), three, (first, second), kin, (o_off, m_off, c_off))| {
            let data: Vec<f32> = inputs::values_with_specials(n, seed);
            on!(t, |b| {
                let base = a_unwrap(b.upload(&data))?;
                let in_r = kin.ranges(n);
                let r = through(b, &base, &in_r, |x| {
                    let m = x.len();
                    let parts = if three { 2 } else { 1 };
                    let mut out = b.upload(&vec![7.5f32; sized(m, o_off)])?;
                    let mut mid = b.upload(&vec![7.5f32; sized(m, m_off)])?;
                    let mut count = b.upload(&vec![42u64; sized(parts, c_off)])?;
                    let r = if three {
                        b.partition3_reversed_into(x, first, second, &mut out, &mut mid, &mut count)
                    } else {
                        b.partition_reversed_into(x, first, &mut out, &mut count)
                    };
                    let got = (b.download(&out)?, b.download(&mid)?, b.download(&count)?);
                    Ok::<_, WavekitError>((m, r, got))
                });
                let Ok(inner) = r else {
                    return judged("slice", false, r.map(drop), |()| Ok(()));
                };
                let (m, r, (out, mid, count)) = a_unwrap(inner)?;
                let valid = sized(m, o_off) == m && c_off == 0 && (!three || sized(m, m_off) == m);
                if !valid {
                    prop_assert!(out.iter().all(|&v| v == 7.5), "output changed on error");
                    prop_assert!(mid.iter().all(|&v| v == 7.5), "middle changed on error");
                    prop_assert!(count.iter().all(|&c| c == 42), "count changed on error");
                }
                judged("partition_reversed", valid, r, |()| {
                    let w = window(&in_r, n).expect("a valid chain");
                    let x = &data[w];
                    let (want, want_mid, counts) = if three {
                        let (one, two, rest) = reference::partition3_reversed(x, &first, &second);
                        let counts = vec![one.len() as u64, two.len() as u64];
                        let mut o = one;
                        o.resize(o.len() + two.len(), 7.5);
                        o.extend(rest);
                        let mut md = two;
                        md.resize(m, 7.5);
                        (o, md, counts)
                    } else {
                        let (v, c) = reference::partition_reversed(x, &first);
                        (v, mid.clone(), vec![c as u64])
                    };
                    prop_assert_eq!(count, counts);
                    prop_assert_eq!(bits_of(&out), bits_of(&want));
                    prop_assert_eq!(bits_of(&mid), bits_of(&want_mid));
                    Ok(())
                })
            })
        },
    );
}
