//! Distributed sort at 1..8 ranks and random shard splits (empty shards included), against
//! the conformance reference's stable sort of the whole array: keys of several types and
//! orders (floats with NaN and -0.0, bit ranges, descending) and pairs whose many equal keys
//! show any loss of stability.

mod common;

use common::{WORLDS, data, joined, run, same_bits, shard, split};
use wavekit_conformance::reference;
use wavekit_core::{Backend, DeviceBuffer, Element, SortOrder, WavekitError};
use wavekit_dist::Comm;

/// The thread transport's oracle: ranks on the CPU backend.
type ThreadWorld = wavekit_dist::ThreadWorld<wavekit_cpu::CpuBackend>;

fn keys_match<K: Element>(all: &[K], order: SortOrder, seed: u64) {
    let want: Vec<K> = reference::sort_permutation(all, order)
        .into_iter()
        .map(|i| all[i])
        .collect();
    for world in WORLDS {
        let layout = split(all.len(), world, seed + world as u64);
        let parts = run(world, |c| {
            let s = c.sort_keys(&shard(c, all, &layout)?, order)?;
            assert_eq!(s.len, s.keys.len());
            Ok((s.offset, s.total, c.backend().download(&s.keys)?))
        });
        let got = joined(parts, all.len());
        assert!(
            same_bits(&got, &want),
            "{} keys, {order:?}, {world} ranks",
            K::KIND.name()
        );
    }
}

/// Shards past a million keys: the splitters' search narrows its bracket over two rounds of
/// probes before reading it whole (ranks/collectives/src/sort.rs), also through long runs of equal
/// keys (a 4-bit range) that straddle the probes.
#[test]
fn large_shards_search_in_rounds() {
    let n = (1 << 21) + 3;
    let all = data::<u32>(n, 5);
    for order in [SortOrder::ASCENDING, SortOrder::DESCENDING.bits(0, 4)] {
        let want: Vec<u32> = reference::sort_permutation(&all, order)
            .into_iter()
            .map(|i| all[i])
            .collect();
        for world in [2, 3] {
            let layout = wavekit_dist::Layout::even(n, world);
            let parts = run(world, |c| {
                let s = c.sort_keys(&shard(c, &all, &layout)?, order)?;
                Ok((s.offset, s.total, c.backend().download(&s.keys)?))
            });
            assert!(joined(parts, n) == want, "{order:?}, {world} ranks");
        }
    }
}

#[test]
fn sorted_keys_are_the_single_device_sort() {
    keys_match(&data::<u32>(20_000, 1), SortOrder::ASCENDING, 10);
    keys_match(&data::<i64>(9_001, 2), SortOrder::DESCENDING, 20);
    // Only the low byte counts: long runs of equal ranks across every rank.
    keys_match(&data::<u32>(12_345, 3), SortOrder::ASCENDING.bits(0, 8), 30);
    let mut floats = data::<f32>(15_000, 4);
    for (i, v) in [
        f32::NAN,
        -0.0,
        0.0,
        f32::INFINITY,
        -f32::NAN,
        f32::NEG_INFINITY,
    ]
    .into_iter()
    .enumerate()
    {
        for k in 0..50 {
            floats[(i * 977 + k * 131) % 15_000] = v;
        }
    }
    keys_match(&floats, SortOrder::ASCENDING, 40);
    keys_match(&floats, SortOrder::DESCENDING, 50);
}

#[test]
fn sorted_pairs_keep_equal_keys_in_input_order() {
    // Sixteen distinct keys over 30 000 pairs: every rank's part holds long runs of equal keys,
    // and the values (input positions) show their order.
    let keys: Vec<u32> = data::<u32>(30_000, 5).into_iter().map(|k| k % 16).collect();
    let vals: Vec<u64> = (0..keys.len() as u64).collect();
    for order in [SortOrder::ASCENDING, SortOrder::DESCENDING] {
        let perm = reference::sort_permutation(&keys, order);
        let want_k: Vec<u32> = perm.iter().map(|&i| keys[i]).collect();
        let want_v: Vec<u64> = perm.iter().map(|&i| vals[i]).collect();
        for world in WORLDS {
            let layout = split(keys.len(), world, 60 + world as u64);
            let parts = run(world, |c| {
                let k = shard(c, &keys, &layout)?;
                let v = shard(c, &vals, &layout)?;
                let (s, v) = c.sort_pairs(&k, &v, order)?;
                let b = c.backend();
                Ok((s.offset, s.total, b.download(&s.keys)?, b.download(&v)?))
            });
            let (mut got_k, mut got_v) = (Vec::new(), Vec::new());
            let mut at = 0u64;
            for (offset, total, k, v) in parts {
                assert_eq!((offset, total), (at, keys.len() as u64));
                assert_eq!(k.len(), v.len());
                at += k.len() as u64;
                got_k.extend(k);
                got_v.extend(v);
            }
            assert_eq!(got_k, want_k, "{order:?}, {world} ranks");
            assert_eq!(got_v, want_v, "{order:?}, {world} ranks");
        }
    }
}

#[test]
fn an_empty_array_and_a_single_key() {
    for world in WORLDS {
        let parts = run(world, |c| {
            let s = c.sort_keys(&c.backend().upload::<f64>(&[])?, SortOrder::ASCENDING)?;
            Ok((s.offset, s.total, c.backend().download(&s.keys)?))
        });
        assert!(joined(parts, 0).is_empty());
        let one = [7i32];
        let layout = split(1, world, 3);
        let parts = run(world, |c| {
            let s = c.sort_keys(&shard(c, &one, &layout)?, SortOrder::DESCENDING)?;
            Ok((s.offset, s.total, c.backend().download(&s.keys)?))
        });
        assert_eq!(joined(parts, 1), one);
    }
}

#[test]
fn bad_arguments_fail_on_every_rank() {
    // One rank's bit range past its keys: it gets InvalidBitRange, the others RankMismatch.
    let got = ThreadWorld::run(3, |r| {
        let c = Comm::new(r);
        let keys = c.backend().upload(&[1u32, 2, 3]).unwrap();
        let order = if c.rank() == 1 {
            SortOrder::ASCENDING.bits(0, 40)
        } else {
            SortOrder::ASCENDING
        };
        c.sort_keys(&keys, order).map(|s| s.len)
    });
    for (rank, r) in got.into_iter().enumerate() {
        match (rank, r.unwrap()) {
            (1, Err(WavekitError::InvalidBitRange { end: 40, .. })) => {}
            (_, Err(WavekitError::RankMismatch { .. })) if rank != 1 => {}
            (rank, other) => panic!("rank {rank}: {other:?}"),
        }
    }
    // Ranks that disagree on the direction, and pairs with a value short.
    let got = ThreadWorld::run(2, |r| {
        let c = Comm::new(r);
        let b = c.backend();
        let keys = b.upload(&[1u32, 2, 3]).unwrap();
        let order = [SortOrder::ASCENDING, SortOrder::DESCENDING][c.rank()];
        let dir = c.sort_keys(&keys, order).map(|s| s.len);
        let vals = b.upload(&[1u8 as u32; 2]).unwrap();
        let short = c
            .sort_pairs(&keys, &vals, SortOrder::ASCENDING)
            .map(|s| s.0.len);
        (dir, short)
    });
    for r in got {
        let (dir, short) = r.unwrap();
        match dir {
            Err(WavekitError::RankMismatch { what, .. }) => assert_eq!(what, "sort order"),
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(short, Err(WavekitError::LengthMismatch { .. })),
            "{short:?}"
        );
    }
}
