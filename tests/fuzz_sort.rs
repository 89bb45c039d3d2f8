//! Fuzz of the sorting entry points (issue 21) on the CPU backend and the SIMT executor at 32
//! and 64 lanes: `sort_keys_into`, `sort_pairs_into`, `argsort_into`, the segmented sorts and
//! top-k, their inputs and outputs through random chains of views, with random lengths, bit
//! ranges (inside the key or not), output lengths off by one, segments (fixed sizes, offsets
//! valid or corrupted) and k from 0 to past n.
//!
//! The property, as tests/fuzz_api.rs states it: a typed error exactly when this file's reading
//! of the documented rules says the arguments are invalid, the output base buffer then as it
//! was; otherwise the reference's permutation (`wavekit_conformance::reference`), bit for bit,
//! inside the output view and nothing changed outside it.

use proptest::prelude::*;
use std::ops::Range;
use wavekit::{
    Backend, DeviceBuffer, Element, SegmentedSort, Segments, Sort, TopK, VectorSize, WavekitError,
};
use wavekit_conformance::reference;
use wavekit_tests::fuzz::*;
use wavekit_tests::on;

/// Sorts run several kernel passes on the executor: fewer cases than the other families, and
/// inputs of at most a few tiles.
const CASES: u32 = 48;

fn sort_len() -> impl Strategy<Value = usize> {
    prop_oneof![4 => 0usize..100, 2 => 100usize..1200, 1 => 4090usize..4200]
}

/// Keys with ties and, for floats, every special value and both NaN signs.
fn keys<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let sp = wavekit_conformance::inputs::specials::<T>();
    (0..n as u64)
        .map(|i| {
            let r = wavekit::element::splitmix(seed ^ i);
            match r % 7 {
                0 => sp[(r >> 8) as usize % sp.len()],
                1 => T::from_bits(0xFFC0_0001 & ((r >> 3) | 0xFFC0_0000)),
                2 | 3 => T::from_seed(r % 5),
                _ => T::from_seed(r),
            }
        })
        .collect()
}

fn bits_of<T: Element>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The output base after a call into `window` of it: `want` there, `before` elsewhere.
fn expect_window<T: Element>(before: &[T], window: &Range<usize>, want: &[u64]) -> Vec<u64> {
    let mut all = bits_of(before);
    all[window.clone()].copy_from_slice(want);
    all
}

#[test]
fn fuzz_sort_keys_pairs_argsort() {
    let strategy = (
        sort_len(),
        any::<u64>(),
        order_arg(),
        0u8..3,
        (chain_arg(), chain_arg(), chain_arg()),
        prop_oneof![6 => Just(0i64), 1 => Just(1i64), 1 => Just(-1i64)],
    );
    fuzz_cases(
        "sort",
        CASES,
        strategy,
        |t, (n, seed, order, kind, (kin, kout, vout), skew)| {
            let data: Vec<f32> = keys(n, seed);
            on!(t, |b| {
                let in_base = a_unwrap(b.upload(&data))?;
                let in_r = kin.ranges(n);
                let Ok(in_w) = window(&in_r, n) else {
                    let r = through(b, &in_base, &in_r, |_| ());
                    return judged("slice", false, r, |_| Ok(()));
                };
                let x = &data[in_w.clone()];
                let m = x.len();
                let out_len = (m as i64 + skew).max(0) as usize;
                let poison = |len: usize, s: u64| -> Vec<u32> {
                    (0..len as u32).map(|i| i ^ s as u32 ^ 0x5A5A).collect()
                };
                let base_len = out_len.max(m) + 3;
                let perm = || reference::sort_permutation(x, order);
                let valid_order = order_ok(order, 32);
                match kind {
                    0 => {
                        let before: Vec<f32> = poison(base_len, seed)
                            .iter()
                            .map(|&p| f32::from_bits(p))
                            .collect();
                        let mut ob = a_unwrap(b.upload(&before))?;
                        let out_r = kout.ranges_to(base_len, out_len.min(base_len));
                        let out_r = kout_for(&out_r, base_len, out_len);
                        let r = through(b, &in_base, &in_r, |xin| {
                            through_mut(b, &mut ob, &out_r, |o| b.sort_keys_into(xin, o, order))
                        });
                        let ow = window(&out_r, base_len);
                        let valid = valid_order && ow.as_ref().is_ok_and(|w| w.len() == m);
                        let r = r.and_then(|r| r).and_then(|r| r);
                        let after = bits_of(&a_unwrap(b.download(&ob))?);
                        if !valid {
                            prop_assert_eq!(&after, &bits_of(&before), "output changed on error");
                        }
                        judged("sort_keys_into", valid, r, |()| {
                            let w = ow.clone().expect("valid");
                            let want: Vec<u64> =
                                perm().iter().map(|&i| Element::to_bits(x[i])).collect();
                            prop_assert_eq!(after.clone(), expect_window(&before, &w, &want));
                            Ok(())
                        })
                    }
                    1 => {
                        let vals: Vec<u32> = (0..m as u32).map(|i| i * 7 + 1).collect();
                        let vb = a_unwrap(b.upload(&vals))?;
                        let mut ko = a_unwrap(b.alloc::<f32>(m))?;
                        let before = poison(base_len, seed);
                        let mut vo = a_unwrap(b.upload(&before))?;
                        let out_r = kout_for(
                            &vout.ranges_to(base_len, out_len.min(base_len)),
                            base_len,
                            out_len,
                        );
                        let r = through(b, &in_base, &in_r, |xin| {
                            through_mut(b, &mut vo, &out_r, |o| {
                                b.sort_pairs_into(xin, &vb, &mut ko, o, order)
                            })
                        });
                        let ow = window(&out_r, base_len);
                        let valid = valid_order && ow.as_ref().is_ok_and(|w| w.len() == m);
                        let r = r.and_then(|r| r).and_then(|r| r);
                        let after = bits_of(&a_unwrap(b.download(&vo))?);
                        if !valid {
                            prop_assert_eq!(
                                &after,
                                &bits_of(&before),
                                "values out changed on error"
                            );
                        }
                        judged("sort_pairs_into", valid, r, |()| {
                            let p = perm();
                            let want: Vec<u64> = p.iter().map(|&i| vals[i] as u64).collect();
                            prop_assert_eq!(
                                after.clone(),
                                expect_window(&before, &ow.clone().expect("valid"), &want)
                            );
                            let want_k: Vec<u64> =
                                p.iter().map(|&i| Element::to_bits(x[i])).collect();
                            prop_assert_eq!(bits_of(&a_unwrap(b.download(&ko))?), want_k);
                            Ok(())
                        })
                    }
                    _ => {
                        let before = poison(base_len, seed);
                        let mut io = a_unwrap(b.upload(&before))?;
                        let out_r = kout_for(
                            &kout.ranges_to(base_len, out_len.min(base_len)),
                            base_len,
                            out_len,
                        );
                        let r = through(b, &in_base, &in_r, |xin| {
                            through_mut(b, &mut io, &out_r, |o| b.argsort_into(xin, o, order))
                        });
                        let ow = window(&out_r, base_len);
                        let valid = valid_order && ow.as_ref().is_ok_and(|w| w.len() == m);
                        let r = r.and_then(|r| r).and_then(|r| r);
                        let after = bits_of(&a_unwrap(b.download(&io))?);
                        if !valid {
                            prop_assert_eq!(&after, &bits_of(&before), "indices changed on error");
                        }
                        judged("argsort_into", valid, r, |()| {
                            let want: Vec<u64> = perm().iter().map(|&i| i as u64).collect();
                            prop_assert_eq!(
                                after.clone(),
                                expect_window(&before, &ow.clone().expect("valid"), &want)
                            );
                            Ok(())
                        })
                    }
                }
            })
        },
    );
}

/// The output chain: the drawn one, or (when it is empty) the first `out_len` elements, so
/// that an output of the wrong length is drawn too.
fn kout_for(drawn: &[Range<usize>], base_len: usize, out_len: usize) -> Vec<Range<usize>> {
    if drawn.is_empty() {
        std::iter::once(0..out_len.min(base_len)).collect()
    } else {
        drawn.to_vec()
    }
}

#[test]
fn fuzz_segmented_sort() {
    let strategy = (
        sort_len(),
        any::<u64>(),
        order_arg(),
        prop_oneof![2 => (0usize..80).prop_map(Some), 3 => Just(None)],
        0u8..6,
        any::<bool>(),
    );
    fuzz_cases(
        "segmented_sort",
        CASES,
        strategy,
        |t, (n, seed, order, fixed, fault, pairs)| {
            let data: Vec<u32> = keys(n, seed);
            // Offsets of random lengths, then one fault of five kinds (or none).
            let mut offsets = vec![0u32];
            let mut at = 0usize;
            let mut i = 0u64;
            while at < n {
                at = (at + (wavekit::element::splitmix(seed ^ i << 20) % 90) as usize).min(n);
                offsets.push(at as u32);
                i += 1;
            }
            let built_for = match fault {
                // Valid offsets, built for one key more than the call gets.
                0 => {
                    *offsets.last_mut().expect("at least 0") = n as u32 + 1;
                    n + 1
                }
                1 if offsets.len() > 2 => {
                    offsets.swap(1, 2);
                    n
                }
                _ => n,
            };
            on!(t, |b| {
                let segs = match fixed {
                    Some(size) => Segments::fixed(size, VectorSize::Auto),
                    None => Segments::from_offsets(b, &offsets, built_for, VectorSize::Auto),
                };
                let segs_ok = match fixed {
                    Some(size) => size > 0,
                    None => offsets_ok(&offsets, built_for),
                };
                let Ok(segs) = segs else {
                    prop_assert!(!segs_ok, "valid segments refused");
                    return Ok(Tally::REFUSED);
                };
                prop_assert!(segs_ok, "invalid segments accepted");
                let kb = a_unwrap(b.upload(&data))?;
                let before = vec![0xABCD_u32; n];
                let mut ko = a_unwrap(b.upload(&before))?;
                let valid = order_ok(order, 32) && (fixed.is_some() || built_for == n);
                let r = if pairs {
                    let vals: Vec<u64> = (0..n as u64).collect();
                    let vb = a_unwrap(b.upload(&vals))?;
                    let mut vo = a_unwrap(b.alloc::<u64>(n))?;
                    b.segmented_sort_pairs_into(&kb, &vb, &segs, &mut ko, &mut vo, order)
                } else {
                    b.segmented_sort_keys_into(&kb, &segs, &mut ko, order)
                };
                let after = a_unwrap(b.download(&ko))?;
                if !valid {
                    prop_assert!(after == before, "output changed on error");
                }
                judged("segmented sort", valid, r, |()| {
                    let bounds: Vec<(usize, usize)> = match fixed {
                        Some(s) => (0..n.div_ceil(s))
                            .map(|i| (i * s, n.min(i * s + s)))
                            .collect(),
                        None => offsets
                            .windows(2)
                            .map(|w| (w[0] as usize, w[1] as usize))
                            .collect(),
                    };
                    let want: Vec<u32> = reference::segmented_permutation(&data, &bounds, order)
                        .into_iter()
                        .map(|i| data[i])
                        .collect();
                    prop_assert!(after == want, "segments differ");
                    Ok(())
                })
            })
        },
    );
}

#[test]
fn fuzz_top_k() {
    let strategy = (
        sort_len(),
        any::<u64>(),
        order_arg(),
        any::<u64>(),
        chain_arg(),
        any::<bool>(),
    );
    fuzz_cases(
        "top_k",
        CASES,
        strategy,
        |t, (n, seed, order, kw, kin, with_indices)| {
            let data: Vec<f64> = keys(n, seed);
            let k = (kw % (n as u64 + 3)) as usize;
            on!(t, |b| {
                let base = a_unwrap(b.upload(&data))?;
                let in_r = kin.ranges(n);
                let r = through(b, &base, &in_r, |x| {
                    let m = x.len();
                    let before = vec![7.5f64; k];
                    let mut vo = b.upload(&before)?;
                    let mut io = b.alloc::<u32>(k)?;
                    let r = if with_indices {
                        b.top_k_with_indices_into(x, k, order, &mut vo, &mut io)
                    } else {
                        b.top_k_into(x, k, order, &mut vo)
                    };
                    Ok::<_, WavekitError>((m, r, b.download(&vo)?, b.download(&io)?))
                });
                let Ok(inner) = r else {
                    return judged("slice", false, r.map(drop), |()| Ok(()));
                };
                let (m, r, vals, idx) = a_unwrap(inner)?;
                let valid = order_ok(order, 64) && k >= 1 && k <= m;
                if !valid {
                    prop_assert!(vals.iter().all(|&v| v == 7.5), "values changed on error");
                }
                judged("top_k", valid, r, |()| {
                    let w = window(&in_r, n).expect("a valid chain");
                    let x = &data[w];
                    let p = reference::sort_permutation(x, order);
                    let want: Vec<u64> = p[..k].iter().map(|&i| Element::to_bits(x[i])).collect();
                    prop_assert_eq!(bits_of(&vals), want);
                    if with_indices {
                        let want_i: Vec<u32> = p[..k].iter().map(|&i| i as u32).collect();
                        prop_assert_eq!(idx, want_i);
                    }
                    Ok(())
                })
            })
        },
    );
}
