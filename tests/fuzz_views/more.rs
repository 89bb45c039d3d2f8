//! The collectives of fuzz_views.rs with more than one output (compaction, warp-aggregated
//! atomics), the returning conveniences on views, and reads through nested views.

use super::{Case, asked, base_len, check_base, fail, floats, sentinel, verdict};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wavekit::{Collectives, DeviceBuffer, Element, Segments, WavekitError};
use wavekit_conformance::cases::check_agg_inc;
use wavekit_conformance::reference;
use wavekit_tests::fuzz::*;

/// Stable or unordered compaction through an input view into an output view and a count view
/// of two other buffers: the selected elements first (in order when stable, as a multiset
/// otherwise), the rest of the output view as it was.
pub fn compact_into<B: Collectives>(b: &B, c: &Case) -> Result<Tally, TestCaseError> {
    let vals = floats(c);
    let mut inb = b.upload(&vals).map_err(fail)?;
    let in_r = c.input.ranges(vals.len());
    let in_w = window(&in_r, vals.len());
    let n = in_w.as_ref().map_or(0, |w| w.len());
    let out_before: Vec<f32> = sentinel(base_len(&c.out, n, c), c.seed);
    let count_before: Vec<u64> = sentinel(1 + (c.out2.depth() > 0) as usize * c.extra % 3, c.seed);
    let mut outb = b.upload(&out_before).map_err(fail)?;
    let mut countb = b.upload(&count_before).map_err(fail)?;
    let out_r = c.out.ranges_to(out_before.len(), asked(n, c.delta));
    let count_r = c.out2.ranges_to(count_before.len(), 1);
    let (out_w, count_w) = (
        window(&out_r, out_before.len()),
        window(&count_r, count_before.len()),
    );
    let stable = c.flag;
    let r = through_input(b, &mut inb, &in_r, c.muts, |x| {
        through_mut(b, &mut outb, &out_r, |y| {
            through_mut(b, &mut countb, &count_r, |k| {
                b.compact_into(x, c.pred, stable, y, k)
            })
        })
    })
    .and_then(|r| r)
    .and_then(|r| r)
    .and_then(|r| r);
    let ok = r.is_ok();
    let valid =
        out_w.as_ref().is_ok_and(|w| w.len() == n) && count_w.as_ref().is_ok_and(|w| w.len() == 1);
    let tally = verdict("compact_into", &[&in_w, &out_w, &count_w], valid, r, |()| {
        Ok(())
    })?;
    let out_after = b.download(&outb).map_err(fail)?;
    let count_after = b.download(&countb).map_err(fail)?;
    let host = in_w.as_ref().map_or(&[][..], |w| &vals[w.clone()]);
    let want = reference::compact(host, &c.pred);
    let k = want.len();
    check_base(
        "compact_into count",
        &count_before,
        &count_after,
        &count_w,
        ok.then_some(&[k as u64][..]),
    )?;
    let (Ok(w), true) = (out_w.clone(), ok) else {
        return check_base("compact_into", &out_before, &out_after, &out_w, None).map(|()| tally);
    };
    // Outside the selected prefix: as before.
    let mut expected = out_before.clone();
    expected[w.start..w.start + k].copy_from_slice(&out_after[w.start..w.start + k]);
    same(&expected, &out_after)?;
    let bits = |v: &[f32]| {
        let mut b: Vec<u32> = v.iter().map(|x| x.to_bits()).collect();
        if !stable {
            b.sort_unstable();
        }
        b
    };
    prop_assert_eq!(bits(&want), bits(&out_after[w.start..w.start + k]));
    Ok(tally)
}

/// Slots through an input view, counters and old values through views of two other buffers.
pub fn atomic_agg_inc_into<B: Collectives>(b: &B, c: &Case) -> Result<Tally, TestCaseError> {
    let ncounters = (c.size as usize % 12).max(1);
    let counters_before: Vec<u32> =
        sentinel(ncounters + (c.out2.depth() > 0) as usize * c.extra, c.seed);
    let counters_r = c.out2.ranges_to(counters_before.len(), ncounters);
    let counters_w = window(&counters_r, counters_before.len());
    let live = counters_w.as_ref().map_or(0, |w| w.len());
    // Mostly slots below the counters the view holds, sometimes one past them.
    let slots: Vec<u32> = (0..c.len as u64)
        .map(|i| wavekit::element::splitmix(c.seed ^ i) % (live as u64 + c.flag as u64).max(1))
        .map(|s| s as u32)
        .collect();
    let mut slotsb = b.upload(&slots).map_err(fail)?;
    let in_r = c.input.ranges(slots.len());
    let in_w = window(&in_r, slots.len());
    let host_slots = in_w.as_ref().map_or(&[][..], |w| &slots[w.clone()]);
    let n = host_slots.len();
    let olds_before: Vec<u32> = sentinel(base_len(&c.out, n, c), c.seed + 1);
    let olds_r = c.out.ranges_to(olds_before.len(), asked(n, c.delta));
    let olds_w = window(&olds_r, olds_before.len());
    let mut countersb = b.upload(&counters_before).map_err(fail)?;
    let mut oldsb = b.upload(&olds_before).map_err(fail)?;
    let r = through_input(b, &mut slotsb, &in_r, c.muts, |s| {
        through_mut(b, &mut countersb, &counters_r, |k| {
            through_mut(b, &mut oldsb, &olds_r, |o| b.atomic_agg_inc_into(s, k, o))
        })
    })
    .and_then(|r| r)
    .and_then(|r| r)
    .and_then(|r| r);
    let ok = r.is_ok();
    let valid = olds_w.as_ref().is_ok_and(|w| w.len() == n)
        && (n == 0 || live > 0)
        && host_slots.iter().all(|&s| (s as usize) < live);
    let tally = verdict(
        "atomic_agg_inc_into",
        &[&in_w, &counters_w, &olds_w],
        valid,
        r,
        |()| Ok(()),
    )?;
    let counters_after = b.download(&countersb).map_err(fail)?;
    let olds_after = b.download(&oldsb).map_err(fail)?;
    let (Ok(kw), Ok(ow), true) = (&counters_w, &olds_w, ok) else {
        check_base(
            "counters",
            &counters_before,
            &counters_after,
            &counters_w,
            None,
        )?;
        return check_base("olds", &olds_before, &olds_after, &olds_w, None).map(|()| tally);
    };
    // The views hold what the guarantees allow; outside them, nothing moved.
    let lanes = b.warp_width().lanes() as usize;
    check_agg_inc(
        "views",
        lanes,
        host_slots,
        &counters_before[kw.clone()],
        &olds_after[ow.clone()],
        &counters_after[kw.clone()],
    )
    .map_err(TestCaseError::fail)?;
    let keep = |before: &[u32], after: &[u32], w: &std::ops::Range<usize>| {
        before[..w.start] == after[..w.start] && before[w.end..] == after[w.end..]
    };
    prop_assert!(
        keep(&counters_before, &counters_after, kw),
        "counters outside the view"
    );
    prop_assert!(keep(&olds_before, &olds_after, ow), "olds outside the view");
    Ok(tally)
}

/// The returning forms on a (nested) input view: reduce, count_if, compact, segmented and block
/// reduce, histogram, each against the reference of the viewed range.
pub fn conveniences<B: Collectives>(b: &B, c: &Case) -> Result<Tally, TestCaseError> {
    let vals = floats(c);
    let mut inb = b.upload(&vals).map_err(fail)?;
    let in_r = c.input.ranges(vals.len());
    let in_w = window(&in_r, vals.len());
    let host = in_w.as_ref().map_or(&[][..], |w| &vals[w.clone()]);
    let n = host.len();
    let op = c.op;
    let which = c.size % 5;
    let seg = (c.size as usize % 70).max(1);
    let r = through_input(
        b,
        &mut inb,
        &in_r,
        c.muts,
        |x| -> Result<(), TestCaseError> {
            let t = match which {
                0 => judged(
                    "reduce",
                    n > 0 && op_ok::<f32>(op),
                    b.reduce(x, op),
                    |got| {
                        let want = reference::device_reduce(host, op);
                        prop_assert!(want.same(got), "want {:?}, got {:?}", want, got);
                        Ok(())
                    },
                ),
                1 => judged("count_if", true, b.count_if(x, c.pred), |got| {
                    prop_assert_eq!(reference::count_if(host, &c.pred), got);
                    Ok(())
                }),
                2 => judged("compact", true, b.compact(x, c.pred, true), |got| {
                    let data = b.download(&got.data).map_err(fail)?;
                    same(&reference::compact(host, &c.pred), &data[..got.len])
                }),
                3 => {
                    let valid = vector_ok(c.vector) && op_ok::<f32>(op);
                    let r =
                        Segments::fixed(seg, c.vector).and_then(|s| b.segmented_reduce(x, &s, op));
                    judged("segmented_reduce", valid, r, |out| {
                        let got = b.download(&out).map_err(fail)?;
                        let lanes = reference::resolve_vector(c.vector, seg.min(n), 1);
                        same(
                            &reference::segmented_reduce_fixed(host, seg, lanes, op),
                            &got,
                        )
                    })
                }
                _ => {
                    let block = (c.size % 33) * 32;
                    let valid = block > 0 && op_ok::<f32>(op);
                    judged("block_reduce", valid, b.block_reduce(x, block, op), |got| {
                        same(&reference::block_reduce(host, block, op), &got)
                    })
                }
            }?;
            prop_assert_eq!(t.calls, 1);
            Ok(())
        },
    );
    match r {
        Ok(r) => r.map(|()| Tally::MATCHED),
        Err(e) => verdict("convenience", &[&in_w], false, Err::<(), _>(e), |()| Ok(())),
    }
}

/// Nested views read back: every level's download equals the host range it views, a histogram
/// of a view of keys counts only those keys, and a range past a view's own length (not its
/// base's) is refused.
pub fn nested_reads<B: Collectives>(b: &B, c: &Case) -> Result<Tally, TestCaseError> {
    let keys: Vec<u32> = (0..c.len as u64)
        .map(|i| (wavekit::element::splitmix(c.seed ^ i) % 70) as u32)
        .collect();
    let mut base = b.upload(&keys).map_err(fail)?;
    let in_r = c.input.ranges(keys.len());
    let in_w = window(&in_r, keys.len());
    let bins = (c.size % 80).max(1);
    let r = through_input(
        b,
        &mut base,
        &in_r,
        c.muts,
        |x| -> Result<Tally, TestCaseError> {
            let w = in_w.as_ref().map_err(|e| fail(e.clone()))?;
            let host = &keys[w.clone()];
            prop_assert_eq!(x.len(), host.len());
            prop_assert_eq!(&b.download(x).map_err(fail)?, host);
            let h = b.histogram(x, bins).map_err(fail)?;
            let (counts, outside) = reference::histogram(host, bins);
            prop_assert!(
                h.counts == counts && h.outside == outside,
                "histogram of a view"
            );
            // One past the view's own end, although its base may be longer.
            let past = b.slice(x, 0..x.len() + 1).err();
            prop_assert_eq!(
                past,
                Some(WavekitError::InvalidRange {
                    start: 0,
                    end: host.len() + 1,
                    len: host.len()
                })
            );
            Ok(Tally {
                calls: 3,
                errors: 1,
                deferred: 0,
            })
        },
    );
    match r {
        Ok(t) => t,
        Err(e) => verdict("nested slices", &[&in_w], false, Err::<(), _>(e), |()| {
            Ok(())
        }),
    }
}
