//! Distributed inclusive and exclusive scan against the single-device CPU scan and the
//! conformance reference, at 1..8 ranks and random shard splits.

mod common;

use common::{WORLDS, data, run, same_bits, shard, split};
use wavekit_conformance::reference;
use wavekit_core::canonical::SCAN_TILE;
use wavekit_core::{
    Backend, Collectives, DeviceBuffer, Element, ReduceOp, ScanKind, WarpWidth, bf16, f16,
};
use wavekit_cpu::CpuBackend;
use wavekit_dist::Layout;

fn check<T: Element>(n: usize, op: ReduceOp, kind: ScanKind, seed: u64) {
    let all = data::<T>(n, seed);
    let one = CpuBackend::new(WarpWidth::W32);
    let mut out = one.alloc::<T>(n).unwrap();
    one.scan(&one.upload(&all).unwrap(), &mut out, op, kind)
        .unwrap();
    let single = one.download(&out).unwrap();
    assert!(same_bits(&single, &reference::device_scan(&all, op, kind)));
    for world in WORLDS {
        for split_seed in 0..2 {
            let layout = split(n, world, seed + split_seed);
            check_layout(&all, &single, &layout, op, kind);
        }
    }
}

fn check_layout<T: Element>(
    all: &[T],
    single: &[T],
    layout: &Layout,
    op: ReduceOp,
    kind: ScanKind,
) {
    let parts = run(layout.world(), |c| {
        let s = shard(c, all, layout)?;
        let mut out = c.backend().alloc::<T>(s.len())?;
        c.scan(&s, &mut out, op, kind)?;
        c.backend().download(&out)
    });
    let got: Vec<T> = parts.concat();
    if let Some(i) = (0..got.len()).find(|&i| !got[i].same(single[i])) {
        panic!(
            "{} {op:?} {kind:?} {layout:?}: element {i}: {:?} != {:?}",
            T::KIND.name(),
            got[i],
            single[i]
        );
    }
    assert_eq!(got.len(), single.len());
}

#[test]
fn float_scans_are_the_single_device_bits_for_any_split() {
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        for (n, seed) in [(1, 1), (4097, 2), (25_000, 3)] {
            check::<f32>(n, ReduceOp::Sum, kind, seed);
            check::<f64>(n, ReduceOp::Sum, kind, seed);
        }
    }
}

/// The 16-bit floats: tile scans and aggregates in f32, tile prefixes in groups of
/// SCAN_HALF_GROUP tiles as the single-device scan folds them, each output rounded once. Past
/// eight tiles a left fold of the aggregates would give other bits; tile-aligned shards too.
#[test]
fn the_16_bit_floats_are_the_single_device_bits_for_any_split() {
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        for (n, seed) in [(1, 11), (4097, 12), (100_003, 13)] {
            check::<f16>(n, ReduceOp::Sum, kind, seed);
            check::<bf16>(n, ReduceOp::Sum, kind, seed + 10);
        }
        check::<bf16>(40_000, ReduceOp::Product, kind, 14);
        check::<f16>(40_000, ReduceOp::Max, kind, 15);
        let all = data::<bf16>(9 * SCAN_TILE + 123, 16);
        let want = reference::device_scan(&all, ReduceOp::Sum, kind);
        for lens in [
            [4 * SCAN_TILE, 5 * SCAN_TILE + 123],
            [SCAN_TILE, 8 * SCAN_TILE + 123],
        ] {
            check_layout(&all, &want, &Layout::from_lens(&lens), ReduceOp::Sum, kind);
        }
    }
}

#[test]
fn other_ops_and_types_match() {
    check::<f32>(9000, ReduceOp::Max, ScanKind::Inclusive, 4);
    check::<i32>(9000, ReduceOp::Sum, ScanKind::Exclusive, 5);
    check::<u64>(9000, ReduceOp::BitOr, ScanKind::Inclusive, 6);
}

/// Shards that start exactly on a tile boundary: the exclusive value there is the previous
/// tile's prefix, which no rank touching this tile scanned.
#[test]
fn shards_on_tile_boundaries() {
    let all = data::<f32>(3 * SCAN_TILE + 10, 7);
    let layout = Layout::from_lens(&[SCAN_TILE, 0, SCAN_TILE + 1, SCAN_TILE - 1, 10]);
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let single = reference::device_scan(&all, ReduceOp::Sum, kind);
        check_layout(&all, &single, &layout, ReduceOp::Sum, kind);
    }
}

/// Shards on multiples of the tile (empty ones too): the device path (tile aggregates, one
/// allgather, the left fold of the earlier tiles, a scan from that prefix), at every rank
/// count, both kinds, several ops and types, one-call and planned.
#[test]
fn tile_aligned_shards_take_the_device_path() {
    let n = 9 * SCAN_TILE + 123;
    let f = data::<f32>(n, 41);
    let i = data::<i64>(n, 42);
    for world in WORLDS {
        for seed in 0..3u64 {
            let cut = |k: u64| {
                let r = wavekit_core::element::splitmix(seed * 97 + k) as usize;
                (r % (n / SCAN_TILE + 1)) * SCAN_TILE
            };
            let mut cuts: Vec<usize> = (1..world as u64).map(cut).collect();
            cuts.sort_unstable();
            let mut lens = Vec::new();
            let mut prev = 0;
            for c in cuts.into_iter().chain([n]) {
                lens.push(c - prev);
                prev = c;
            }
            let layout = Layout::from_lens(&lens);
            assert!(layout.aligned_chunk(SCAN_TILE) >= SCAN_TILE);
            for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
                for op in [ReduceOp::Sum, ReduceOp::Max] {
                    check_layout(&f, &reference::device_scan(&f, op, kind), &layout, op, kind);
                }
                let want = reference::device_scan(&i, ReduceOp::BitXor, kind);
                check_layout(&i, &want, &layout, ReduceOp::BitXor, kind);
                // Planned, run twice.
                let want = reference::device_scan(&f, ReduceOp::Sum, kind);
                let parts = run(world, |c| {
                    let s = shard(c, &f, &layout)?;
                    let b = c.backend();
                    let mut plan = c.plan_scan::<f32>(s.len(), ReduceOp::Sum, kind)?;
                    let mut out = b.alloc::<f32>(s.len())?;
                    c.scan_into(&mut plan, &s, &mut out)?;
                    c.scan_into(&mut plan, &s, &mut out)?;
                    c.synchronize()?;
                    b.download(&out)
                });
                assert!(
                    same_bits(&parts.concat(), &want),
                    "planned {kind:?} {layout:?}"
                );
            }
        }
    }
}
