//! Distributed reduce against the single-device CPU result and the conformance reference, at
//! 1..8 ranks and random shard splits.

mod common;

use common::{WORLDS, data, run, shard, split};
use wavekit_conformance::reference;
use wavekit_core::canonical::REDUCE_TILE;
use wavekit_core::{Backend, Collectives, Element, ReduceOp, WarpWidth, bf16, f16};
use wavekit_cpu::CpuBackend;
use wavekit_dist::{Layout, Mode};

fn check<T: Element>(n: usize, op: ReduceOp, seed: u64) {
    let all = data::<T>(n, seed);
    let one = CpuBackend::new(WarpWidth::W32);
    let single = one.reduce(&one.upload(&all).unwrap(), op).unwrap();
    assert!(single.same(reference::device_reduce(&all, op)));
    for world in WORLDS {
        for split_seed in 0..3 {
            let layout = split(n, world, seed + split_seed);
            let got = run(world, |c| {
                c.all_reduce_value(&shard(c, &all, &layout)?, op, Mode::Reproducible)
            });
            for (rank, g) in got.iter().enumerate() {
                assert!(
                    g.same(single),
                    "{} {op:?} n={n} {layout:?} rank {rank}: {g:?} != {single:?}",
                    T::KIND.name()
                );
            }
        }
    }
}

#[test]
fn float_sums_are_the_single_device_bits_for_any_split() {
    for (n, seed) in [(1, 1), (4095, 2), (4097, 3), (30_000, 4), (100_003, 5)] {
        check::<f32>(n, ReduceOp::Sum, seed);
        check::<f64>(n, ReduceOp::Sum, seed);
    }
}

#[test]
fn other_ops_and_types_match() {
    check::<f32>(20_000, ReduceOp::Product, 7);
    check::<f64>(20_000, ReduceOp::Min, 8);
    check::<f32>(20_000, ReduceOp::Max, 9);
    check::<i32>(20_000, ReduceOp::Sum, 10);
    check::<u64>(20_000, ReduceOp::BitXor, 11);
}

/// The 16-bit floats: each rank's partials are `f32` sums, not rounded, and the result is
/// rounded once after the fold, so any split gives the single-device bits (partials rounded to
/// 16 bits before the fold would not).
#[test]
fn the_16_bit_floats_are_the_single_device_bits_for_any_split() {
    for (n, seed) in [(1, 21), (4097, 22), (30_000, 23), (100_003, 24)] {
        check::<f16>(n, ReduceOp::Sum, seed);
        check::<bf16>(n, ReduceOp::Sum, seed + 10);
    }
    check::<bf16>(20_000, ReduceOp::Product, 31);
    check::<f16>(20_000, ReduceOp::Min, 32);
    check::<bf16>(20_000, ReduceOp::Max, 33);
}

/// 16-bit shards on a multiple of REDUCE_TILE^2: the first rank's partial is a whole level-2
/// chunk's `f32` sum (the top of that chunk's tree, still not rounded), and the fold spans
/// more than one tile of partials.
#[test]
fn the_16_bit_floats_at_level_two() {
    let t = REDUCE_TILE;
    let all = data::<bf16>(t * t + 3 * t + 5, 25);
    let want = reference::device_reduce(&all, ReduceOp::Sum);
    for layout in [
        Layout::from_lens(&[t * t, 3 * t + 5]),
        Layout::from_lens(&[t * t - 7, 3 * t + 12]),
    ] {
        let got = run(2, |c| {
            c.all_reduce_value(&shard(c, &all, &layout)?, ReduceOp::Sum, Mode::Reproducible)
        });
        assert!(
            got.iter().all(|g| g.same(want)),
            "{layout:?}: {got:?} != {want:?}"
        );
    }
}

#[test]
fn tile_aligned_shards_need_no_edge_exchange() {
    let layout = Layout::from_lens(&[REDUCE_TILE, 2 * REDUCE_TILE, 5]);
    assert!(!layout.has_boundary_tiles(REDUCE_TILE));
    check::<f32>(layout.total(), ReduceOp::Sum, 12);
}

/// More than 4096 tiles: the partials themselves span two reduce levels.
#[test]
fn two_level_partials() {
    let n = REDUCE_TILE * (REDUCE_TILE + 3) + 17;
    let all = data::<f32>(n, 13);
    let one = CpuBackend::new(WarpWidth::W32);
    let single = one
        .reduce(&one.upload(&all).unwrap(), ReduceOp::Sum)
        .unwrap();
    let layout = split(n, 3, 14);
    let got = run(3, |c| {
        c.all_reduce_value(&shard(c, &all, &layout)?, ReduceOp::Sum, Mode::Reproducible)
    });
    assert!(got.iter().all(|g| g.to_bits() == single.to_bits()));
}

#[test]
fn root_reduce_and_fast_mode() {
    let all = data::<i64>(10_000, 15);
    let want = reference::device_reduce(&all, ReduceOp::Sum);
    let layout = split(all.len(), 5, 16);
    let got = run(5, |c| {
        let s = shard(c, &all, &layout)?;
        Ok((
            c.reduce_value(&s, ReduceOp::Sum, Mode::Reproducible, 2)?,
            c.all_reduce_value(&s, ReduceOp::Sum, Mode::Fast)?,
        ))
    });
    for (rank, (root, fast)) in got.into_iter().enumerate() {
        assert_eq!(root, (rank == 2).then_some(want));
        // Integers are exact in any order, so the fast mode agrees too.
        assert_eq!(fast, want);
    }
}

/// Shards on multiples of REDUCE_TILE²: each rank reduces whole level-2 chunks of its own.
#[test]
fn level_two_aligned_shards() {
    let big = REDUCE_TILE * REDUCE_TILE;
    let layout = Layout::from_lens(&[big, 0, 3 * REDUCE_TILE + 7]);
    assert_eq!(layout.aligned_chunk(REDUCE_TILE), big);
    let all = data::<f32>(layout.total(), 17);
    let single = reference::device_reduce(&all, ReduceOp::Sum);
    let got = run(3, |c| {
        c.all_reduce_value(&shard(c, &all, &layout)?, ReduceOp::Sum, Mode::Reproducible)
    });
    assert!(got.iter().all(|g| g.to_bits() == single.to_bits()));
}

/// A plan made once serves every array of its layout: two arrays through one plan, each the
/// single-device bits, at every rank count and split (tiles cut by shards or not), both modes.
#[test]
fn a_plan_serves_every_array_of_its_layout() {
    use wavekit_core::DeviceBuffer;
    for (n, op) in [(30_000, ReduceOp::Sum), (9 * REDUCE_TILE, ReduceOp::Max)] {
        let arrays = [data::<f32>(n, 21), data::<f32>(n, 22)];
        let one = CpuBackend::new(WarpWidth::W32);
        let want: Vec<f32> = arrays
            .iter()
            .map(|a| one.reduce(&one.upload(a).unwrap(), op).unwrap())
            .collect();
        for world in WORLDS {
            for layout in [split(n, world, 23), Layout::even(n, world)] {
                let got = run(world, |c| {
                    let b = c.backend();
                    let shards = [
                        shard(c, &arrays[0], &layout)?,
                        shard(c, &arrays[1], &layout)?,
                    ];
                    let mut plan = c.plan_reduce::<f32>(shards[0].len(), op, Mode::Reproducible)?;
                    let mut fast = c.plan_reduce::<f32>(shards[0].len(), op, Mode::Fast)?;
                    let mut out = b.alloc::<f32>(1)?;
                    let mut got = Vec::new();
                    for s in &shards {
                        c.reduce_into(&mut plan, s, &mut out)?;
                        c.synchronize()?;
                        got.push(b.download(&out)?[0]);
                        // Max is exact in any order: the fast mode agrees.
                        if op == ReduceOp::Max {
                            c.reduce_into(&mut fast, s, &mut out)?;
                            c.synchronize()?;
                            got.push(b.download(&out)?[0]);
                        }
                    }
                    Ok(got)
                });
                for (rank, g) in got.iter().enumerate() {
                    let w: Vec<f32> = want
                        .iter()
                        .flat_map(|&v| vec![v; 1 + usize::from(op == ReduceOp::Max)])
                        .collect();
                    assert!(
                        common::same_bits(g, &w),
                        "{op:?} n={n} {layout:?} rank {rank}: {g:?} != {w:?}"
                    );
                }
            }
        }
    }
}

/// One communicator, one-call reduces in a row that change the layout, the op, the mode and
/// the element type (each call may reuse the previous call's plan only where all agree): every
/// result is the single-device one.
#[test]
fn one_call_reduces_in_a_row_on_one_communicator() {
    let n = 3 * REDUCE_TILE + 77;
    let (a, b) = (data::<f32>(n, 31), data::<f32>(n, 32));
    let d = data::<f64>(n, 33);
    let layouts = [split(n, 4, 34), split(n, 4, 35), Layout::even(n, 4)];
    let one = CpuBackend::new(WarpWidth::W32);
    let want = |x: &[f32], op| one.reduce(&one.upload(x).unwrap(), op).unwrap().to_bits();
    let want_d = one
        .reduce(&one.upload(&d).unwrap(), ReduceOp::Sum)
        .unwrap()
        .to_bits();
    // Each layout ends and the next begins with an f32 reproducible sum: only the layout
    // tells the two plans apart.
    let got = run(4, |c| {
        let mut bits = Vec::new();
        for l in &layouts {
            for (x, op, mode) in [
                (&a, ReduceOp::Sum, Mode::Reproducible),
                (&a, ReduceOp::Min, Mode::Reproducible),
                // Min is exact: the fast mode agrees.
                (&a, ReduceOp::Min, Mode::Fast),
                (&b, ReduceOp::Sum, Mode::Reproducible),
            ] {
                let s = shard(c, x, l)?;
                bits.push(c.all_reduce_value(&s, op, mode)?.to_bits() as u64);
            }
        }
        let s = shard(c, &d, &layouts[0])?;
        bits.push(
            c.all_reduce_value(&s, ReduceOp::Sum, Mode::Reproducible)?
                .to_bits(),
        );
        Ok(bits)
    });
    let per_layout = [
        want(&a, ReduceOp::Sum) as u64,
        want(&a, ReduceOp::Min) as u64,
        want(&a, ReduceOp::Min) as u64,
        want(&b, ReduceOp::Sum) as u64,
    ];
    let mut expect: Vec<u64> = (0..layouts.len()).flat_map(|_| per_layout).collect();
    expect.push(want_d);
    for (rank, g) in got.iter().enumerate() {
        assert_eq!(g, &expect, "rank {rank}");
    }
}
