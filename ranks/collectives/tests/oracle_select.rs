//! Distributed count_if, stable compaction and histogram at 1..8 ranks and random shard
//! splits, against the conformance reference.

mod common;

use common::{WORLDS, data, run, shard, split};
use wavekit_conformance::reference;
use wavekit_core::{Backend, Predicate};

#[test]
fn count_if_and_stable_compaction_keep_the_global_order() {
    let all = data::<f32>(20_011, 1);
    let pred = Predicate::Lt(0.0f32);
    let want_count = reference::count_if(&all, &pred);
    let want = reference::compact(&all, &pred);
    assert!(want_count > 0 && (want_count as usize) < all.len());
    for world in WORLDS {
        let layout = split(all.len(), world, world as u64);
        let got = run(world, |c| {
            let s = shard(c, &all, &layout)?;
            let count = c.count_if(&s, pred)?;
            let part = c.compact(&s, pred)?;
            let data = c.backend().download(&part.data)?[..part.len].to_vec();
            Ok((count, part.offset, part.total, data))
        });
        let mut offset = 0;
        let mut joined = Vec::new();
        for (count, off, total, data) in got {
            assert_eq!((count, total), (want_count, want_count));
            assert_eq!(off, offset);
            offset += data.len() as u64;
            joined.extend(data);
        }
        assert_eq!(joined, want);
    }
}

#[test]
fn histogram_sums_every_shard() {
    let keys: Vec<u32> = data::<u32>(30_000, 2)
        .into_iter()
        .map(|k| k % 300)
        .collect();
    let want = reference::histogram(&keys, 256);
    assert!(want.1 > 0);
    for world in WORLDS {
        let layout = split(keys.len(), world, 7 + world as u64);
        let got = run(world, |c| c.histogram(&shard(c, &keys, &layout)?, 256));
        for h in got {
            assert_eq!((h.counts, h.outside), want.clone());
        }
    }
}
