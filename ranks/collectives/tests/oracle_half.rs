//! The 16-bit floats across ranks, at 1..8 ranks and random shard splits, against the
//! conformance reference: the collectives that move, compare or order them (allgather,
//! count_if, stable compaction, the sort of keys and of pairs) and the transport's own
//! arithmetic (`Mode::Fast`). The reproducible reduce, scan and elementwise reduce refuse them
//! (tests/bad_input.rs).

mod common;

use common::{WORLDS, data, joined, run, same_bits, shard, split};
use wavekit_conformance::reference;
use wavekit_core::{Backend, DeviceBuffer, Element, Predicate, ReduceOp, SortOrder, bf16, f16};
use wavekit_dist::{Layout, Mode};

/// Random 16-bit floats with NaNs of both signs, both zeros and both infinities planted.
fn floats<T: Element<Acc = f32>>(n: usize, seed: u64) -> Vec<T> {
    let mut v = data::<T>(n, seed);
    let special = [
        f32::NAN,
        -f32::NAN,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    for (i, s) in special.into_iter().enumerate() {
        for k in 0..40 {
            v[(i * 613 + k * 149) % n] = T::from_acc(s);
        }
    }
    v
}

fn selections<T: Element<Acc = f32>>(seed: u64) {
    let all = floats::<T>(20_011, seed);
    let pred = Predicate::Lt(T::from_acc(0.0));
    let want_count = reference::count_if(&all, &pred);
    let want = reference::compact(&all, &pred);
    assert!(want_count > 0 && (want_count as usize) < all.len());
    for world in WORLDS {
        let layout = split(all.len(), world, seed + world as u64);
        let got = run(world, |c| {
            let s = shard(c, &all, &layout)?;
            let count = c.count_if(&s, pred)?;
            let part = c.compact(&s, pred)?;
            let kept = c.backend().download(&part.data)?[..part.len].to_vec();
            Ok((part.offset, count, kept))
        });
        let mut joined = Vec::new();
        for (offset, count, kept) in got {
            assert_eq!((offset as usize, count), (joined.len(), want_count));
            joined.extend(kept);
        }
        let what = T::KIND.name();
        assert!(
            same_bits(&joined, &want),
            "{what} compaction, {world} ranks"
        );
    }
}

fn sorts<T: Element<Acc = f32>>(seed: u64) {
    let all = floats::<T>(15_000, seed);
    for order in [SortOrder::ASCENDING, SortOrder::DESCENDING] {
        let want: Vec<T> = reference::sort_permutation(&all, order)
            .into_iter()
            .map(|i| all[i])
            .collect();
        for world in WORLDS {
            let layout = split(all.len(), world, seed + 10 + world as u64);
            let parts = run(world, |c| {
                let s = c.sort_keys(&shard(c, &all, &layout)?, order)?;
                Ok((s.offset, s.total, c.backend().download(&s.keys)?))
            });
            let got = joined(parts, all.len());
            let what = T::KIND.name();
            assert!(
                same_bits(&got, &want),
                "{what} keys, {order:?}, {world} ranks"
            );
        }
    }
    // Sixteen distinct keys, 16-bit values that are their input positions' bits: any loss of
    // stability shows.
    let keys: Vec<T> = (0..30_000)
        .map(|i| T::from_acc((i * 7 % 16) as f32 - 8.0))
        .collect();
    let vals: Vec<T> = (0..keys.len()).map(|i| T::from_bits(i as u64)).collect();
    let perm = reference::sort_permutation(&keys, SortOrder::DESCENDING);
    let want_v: Vec<T> = perm.iter().map(|&i| vals[i]).collect();
    for world in WORLDS {
        let layout = split(keys.len(), world, seed + 20 + world as u64);
        let parts = run(world, |c| {
            let (s, v) = c.sort_pairs(
                &shard(c, &keys, &layout)?,
                &shard(c, &vals, &layout)?,
                SortOrder::DESCENDING,
            )?;
            Ok((s.offset, s.total, c.backend().download(&v)?))
        });
        let got = joined(parts, keys.len());
        let what = T::KIND.name();
        assert!(same_bits(&got, &want_v), "{what} pairs, {world} ranks");
    }
}

#[test]
fn count_if_and_compaction_compare_the_16_bit_floats() {
    selections::<f16>(1);
    selections::<bf16>(2);
}

#[test]
fn sorts_order_the_16_bit_floats_as_the_single_device_sort() {
    sorts::<f16>(3);
    sorts::<bf16>(4);
}

fn gather_and_fast<T: Element<Acc = f32>>() {
    let n = 37;
    for world in WORLDS {
        let got = run(world, |c| {
            let b = c.backend();
            let r = c.rank();
            // NaN payloads and -0.0 travel as bits.
            let mine: Vec<T> = (0..n)
                .map(|i| T::from_bits((0x7C01 + 97 * r + i) as u64 & 0xFFFF))
                .collect();
            let mut all = b.alloc::<T>(n * c.world())?;
            c.all_gather(&b.upload(&mine)?, &mut all)?;
            // Small integers: every sum is exact in f16 and bf16, whatever the order.
            let ints: Vec<T> = (0..n)
                .map(|i| T::from_acc(((r + i) % 8) as f32 - 3.0))
                .collect();
            let send = b.upload(&ints)?;
            let mut sum = b.alloc::<T>(n)?;
            c.all_reduce(&send, &mut sum, ReduceOp::Sum, Mode::Fast)?;
            let mut max = b.alloc::<T>(n)?;
            c.all_reduce(&send, &mut max, ReduceOp::Max, Mode::Fast)?;
            let total = c.all_reduce_value(&send, ReduceOp::Sum, Mode::Fast)?;
            Ok((
                b.download(&all)?,
                b.download(&sum)?,
                b.download(&max)?,
                total,
            ))
        });
        let v = |r: usize, i: usize| ((r + i) % 8) as f32 - 3.0;
        let want_all: Vec<T> = (0..world)
            .flat_map(|r| (0..n).map(move |i| T::from_bits((0x7C01 + 97 * r + i) as u64 & 0xFFFF)))
            .collect();
        let want_sum: Vec<T> = (0..n)
            .map(|i| T::from_acc((0..world).map(|r| v(r, i)).sum()))
            .collect();
        let want_max: Vec<T> = (0..n)
            .map(|i| T::from_acc((0..world).map(|r| v(r, i)).fold(f32::MIN, f32::max)))
            .collect();
        let want_total = T::from_acc(want_sum.iter().map(|x| x.to_acc()).sum());
        let what = T::KIND.name();
        for (all, sum, max, total) in got {
            assert!(
                same_bits(&all, &want_all),
                "{what} allgather, {world} ranks"
            );
            assert!(same_bits(&sum, &want_sum), "{what} fast sum, {world} ranks");
            assert!(same_bits(&max, &want_max), "{what} fast max, {world} ranks");
            assert!(total.same(want_total), "{what} fast reduce, {world} ranks");
        }
    }
}

#[test]
fn allgather_moves_the_bits_and_fast_mode_combines_them() {
    gather_and_fast::<f16>();
    gather_and_fast::<bf16>();
}

#[test]
fn planned_count_if_takes_them() {
    let all = floats::<bf16>(9_000, 5);
    let pred = Predicate::InRange(bf16::from_f32(-1.0), bf16::from_f32(1.0));
    let want = reference::count_if(&all, &pred);
    for world in WORLDS {
        let layout = Layout::even(all.len(), world);
        let got = run(world, |c| {
            let s = shard(c, &all, &layout)?;
            let mut plan = c.plan_count_if::<bf16>(s.len(), pred)?;
            let mut out = c.backend().alloc::<u64>(1)?;
            c.count_if_into(&mut plan, &s, &mut out)?;
            c.synchronize()?;
            Ok(c.backend().download(&out)?[0])
        });
        assert!(got.iter().all(|&g| g == want), "{world} ranks: {got:?}");
    }
}
