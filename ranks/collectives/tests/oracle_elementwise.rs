//! Elementwise allreduce, reduce-scatter and allgather at 1..8 ranks against the canonical
//! butterfly over ranks (conformance reference `bfly`).

mod common;

use common::{WORLDS, data, run, same_bits};
use wavekit_conformance::reference;
use wavekit_core::{Backend, Element, ReduceOp, bf16, f16};
use wavekit_dist::Mode;

/// Rank r's buffer.
fn input<T: Element>(n: usize, r: usize) -> Vec<T> {
    data::<T>(n, 1000 + r as u64)
}

/// Element i = bfly over the ranks' element i, padded to a power of two, in the accumulator
/// type (f32 for the 16-bit floats) and rounded once.
fn want<T: Element>(n: usize, world: usize, op: ReduceOp) -> Vec<T> {
    let ins: Vec<Vec<T>> = (0..world).map(|r| input(n, r)).collect();
    (0..n)
        .map(|i| {
            let column: Vec<T::Acc> = ins.iter().map(|v| v[i].to_acc()).collect();
            T::from_acc(reference::bfly_pow2(op, &column))
        })
        .collect()
}

fn check_all_reduce<T: Element>(n: usize, op: ReduceOp) {
    for world in WORLDS {
        let want = want::<T>(n, world, op);
        let got = run(world, |c| {
            let b = c.backend();
            let mut out = b.alloc::<T>(n)?;
            c.all_reduce(
                &b.upload(&input::<T>(n, c.rank()))?,
                &mut out,
                op,
                Mode::Reproducible,
            )?;
            b.download(&out)
        });
        for (rank, g) in got.iter().enumerate() {
            assert!(
                same_bits(g, &want),
                "{} {op:?} world {world} n {n} rank {rank}",
                T::KIND.name()
            );
        }
    }
}

#[test]
fn all_reduce_is_the_butterfly_over_ranks() {
    // 1000 and 840 split evenly over 2, 4 and 8 ranks (the halving in place, in `recv`),
    // the odd lengths do not (the padded halving and a gather).
    for n in [1, 7, 840, 1000, 4099] {
        check_all_reduce::<f32>(n, ReduceOp::Sum);
    }
    check_all_reduce::<f64>(333, ReduceOp::Sum);
    check_all_reduce::<f64>(1024, ReduceOp::Max);
    check_all_reduce::<f64>(333, ReduceOp::Min);
    check_all_reduce::<i32>(333, ReduceOp::Product);
    check_all_reduce::<u32>(333, ReduceOp::BitAnd);
}

/// The 16-bit floats: the butterfly over ranks in f32, each element rounded once, at every
/// world (two ranks and powers of two included, which other types halve) and length.
#[test]
fn the_16_bit_floats_fold_in_f32_and_round_once() {
    for n in [1, 7, 840, 1000, 4099] {
        check_all_reduce::<f16>(n, ReduceOp::Sum);
        check_all_reduce::<bf16>(n, ReduceOp::Sum);
    }
    check_all_reduce::<bf16>(333, ReduceOp::Product);
    check_all_reduce::<f16>(333, ReduceOp::Min);
    check_all_reduce::<bf16>(1024, ReduceOp::Max);
    // Rounding at every level of the butterfly would differ: so the test above can tell.
    let (n, world) = (1000, 4);
    let once = want::<bf16>(n, world, ReduceOp::Sum);
    let each: Vec<bf16> = (0..n)
        .map(|i| {
            let x = |r: usize| input::<bf16>(n, r)[i];
            let s = |a: bf16, b: bf16| bf16::from_f32(a.to_f32() + b.to_f32());
            s(s(x(0), x(2)), s(x(1), x(3)))
        })
        .collect();
    assert!(!same_bits(&once, &each));
    let m = 129;
    for world in WORLDS {
        let want = want::<f16>(m * world, world, ReduceOp::Sum);
        let got = run(world, |c| {
            let b = c.backend();
            let mut out = b.alloc::<f16>(m)?;
            let send = b.upload(&input::<f16>(m * world, c.rank()))?;
            c.reduce_scatter(&send, &mut out, ReduceOp::Sum, Mode::Reproducible)?;
            b.download(&out)
        });
        for (rank, g) in got.iter().enumerate() {
            let chunk = &want[rank * m..(rank + 1) * m];
            assert!(
                same_bits(g, chunk),
                "reduce_scatter f16 world {world} rank {rank}"
            );
        }
    }
}

/// The output may be a view of the caller's memory: the result lands there, and nothing
/// around it is touched, on the in-place path (even splits of power-of-two worlds) and the
/// gathered one.
#[test]
fn all_reduce_writes_into_a_view_of_the_callers_memory() {
    for world in WORLDS {
        for n in [1000, 999] {
            let want = want::<f32>(n, world, ReduceOp::Sum);
            let got = run(world, |c| {
                let b = c.backend();
                let mut mem = vec![-1f32; n + 2];
                {
                    let mut out = b.view_mut(&mut mem[1..=n]);
                    let send = b.upload(&input::<f32>(n, c.rank()))?;
                    c.all_reduce(&send, &mut out, ReduceOp::Sum, Mode::Reproducible)?;
                }
                Ok(mem)
            });
            for (rank, g) in got.iter().enumerate() {
                let what = format!("world {world} n {n} rank {rank}");
                assert!(same_bits(&g[1..=n], &want), "{what}");
                assert_eq!((g[0], g[n + 1]), (-1.0, -1.0), "{what}");
            }
        }
    }
}

/// The butterfly differs from a left fold over ranks, so the test above can tell them apart.
#[test]
fn the_butterfly_is_not_a_left_fold() {
    let (n, world) = (1000, 3);
    let bfly = want::<f32>(n, world, ReduceOp::Sum);
    let fold: Vec<f32> = (0..n)
        .map(|i| (input::<f32>(n, 0)[i] + input::<f32>(n, 1)[i]) + input::<f32>(n, 2)[i])
        .collect();
    assert!(!same_bits(&bfly, &fold));
}

#[test]
fn fast_mode_is_exact_for_integers() {
    let n = 500;
    for world in [2, 3, 8] {
        let want = want::<i64>(n, world, ReduceOp::Sum);
        let got = run(world, |c| {
            let b = c.backend();
            let mut out = b.alloc::<i64>(n)?;
            c.all_reduce(
                &b.upload(&input::<i64>(n, c.rank()))?,
                &mut out,
                ReduceOp::Sum,
                Mode::Fast,
            )?;
            b.download(&out)
        });
        assert!(got.iter().all(|g| *g == want));
    }
}

#[test]
fn reduce_scatter_gives_each_rank_its_chunk() {
    let m = 257;
    for world in WORLDS {
        let want = want::<f32>(m * world, world, ReduceOp::Sum);
        for mode in [Mode::Reproducible, Mode::Fast] {
            let got = run(world, |c| {
                let b = c.backend();
                let mut out = b.alloc::<f32>(m)?;
                c.reduce_scatter(
                    &b.upload(&input::<f32>(m * world, c.rank()))?,
                    &mut out,
                    ReduceOp::Sum,
                    mode,
                )?;
                b.download(&out)
            });
            for (rank, g) in got.iter().enumerate() {
                let chunk = &want[rank * m..(rank + 1) * m];
                if mode == Mode::Reproducible || world <= 2 {
                    assert!(same_bits(g, chunk), "world {world} rank {rank} {mode:?}");
                } else {
                    assert_eq!(g.len(), m);
                }
            }
        }
    }
}

#[test]
fn all_gather_concatenates_in_rank_order() {
    for world in WORLDS {
        let got = run(world, |c| {
            let b = c.backend();
            let mut out = b.alloc::<u64>(3 * world)?;
            c.all_gather(&b.upload(&input::<u64>(3, c.rank()))?, &mut out)?;
            b.download(&out)
        });
        let want: Vec<u64> = (0..world).flat_map(|r| input::<u64>(3, r)).collect();
        assert!(got.iter().all(|g| *g == want));
    }
}
