//! tile: cooperative-group tiles at every size from 2 to the warp width (tile_shfl, tile_vote,
//! tile_reduce), and tile sizes refused. Lanes of a trailing partial tile are undefined (`None`).
//! Tile shuffles take every argument CUDA's tiles take: past the tile (`src % tile`, a delta of
//! the tile or more keeps the caller's value, a Xor may name an earlier tile: `None`), past the
//! warp and negative.

use crate::Scale;
use crate::check::{eq_lanes, ok, same_lanes};
use crate::inputs::{pick, pred_patterns, tile_sizes, value_sets, values};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::api::WarpPrimitives;
use wavekit_core::element::Element;
use wavekit_core::error::WavekitError as E;
use wavekit_core::op::ReduceOp;
use wavekit_core::width::WarpWidth;
use wavekit_core::{Shfl, Vote};

/// Launch sizes around tile and warp boundaries, with partial trailing tiles.
fn tile_threads(w: WarpWidth, tile: u32, scale: Scale) -> Vec<usize> {
    let (n, t) = (w.lanes() as usize, tile as usize);
    let mut v = pick(
        scale,
        &[1, t - 1, t, t + 1, n, 3 * n + 5, 4 * n + t / 2],
        &[1, t + 1, 3 * n + 5],
    );
    v.sort_unstable();
    v.dedup();
    v
}

fn tile_shfl_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    for tile in tile_sizes(w) {
        for kind in [Shfl::Idx, Shfl::Up, Shfl::Down, Shfl::Xor] {
            let (t, n) = (tile as i32, w.lanes() as i32);
            let mut args = vec![
                0,
                1,
                t / 2,
                t - 1,
                t / 2 + 1,
                t,
                t + 1,
                2 * t + 1,
                -1,
                n + 1,
            ];
            args.extend(pick(
                scale,
                &[-t - 1, n, 3 * n - 1, i32::MAX, i32::MIN],
                &[i32::MIN],
            ));
            args.sort_unstable();
            args.dedup();
            for arg in args {
                for threads in tile_threads(w, tile, scale) {
                    let vals = values::<T>(threads, (tile as u64) << 32 | threads as u64);
                    let ctx = format!(
                        "{kind:?} {} tile={tile} arg={arg} threads={threads}",
                        T::KIND.name()
                    );
                    let got = ok(&ctx, b.tile_shfl(tile, kind, &vals, arg))?;
                    same_lanes(&ctx, &reference::tile_shfl(tile, kind, &vals, arg, w), &got)?;
                }
            }
        }
    }
    Ok(())
}

pub fn tile_shfl<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    tile_shfl_typed::<u32, _>(b, scale)?;
    tile_shfl_typed::<f64, _>(b, scale)?;
    tile_shfl_typed::<i64, _>(b, scale)?;
    tile_shfl_typed::<wavekit_core::f16, _>(b, scale)?;
    tile_shfl_typed::<wavekit_core::bf16, _>(b, scale)
}

pub fn tile_vote<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    for tile in tile_sizes(w) {
        for kind in [Vote::All, Vote::Any, Vote::Uni, Vote::Ballot] {
            for threads in tile_threads(w, tile, scale) {
                for (pname, preds) in pred_patterns(threads, threads as u64 + tile as u64) {
                    let ctx = format!("{kind:?} tile={tile} threads={threads} preds={pname}");
                    let got = ok(&ctx, b.tile_vote(tile, kind, &preds))?;
                    eq_lanes(&ctx, &reference::tile_vote(tile, kind, &preds, w), &got)?;
                }
            }
        }
    }
    Ok(())
}

fn tile_reduce_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    for op in ReduceOp::ops_for(T::KIND) {
        for tile in tile_sizes(w) {
            for threads in tile_threads(w, tile, scale) {
                let seed = (tile as u64) << 32 | threads as u64;
                for (vname, vals) in value_sets::<T>(threads, seed, true) {
                    let ctx = format!(
                        "{op:?} {} tile={tile} threads={threads} {vname}",
                        T::KIND.name()
                    );
                    let got = ok(&ctx, b.tile_reduce(tile, op, &vals))?;
                    same_lanes(&ctx, &reference::tile_reduce(tile, op, &vals), &got)?;
                }
            }
        }
    }
    Ok(())
}

pub fn tile_reduce<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(tile_reduce_typed(b, scale));
    each_half!(tile_reduce_typed(b, scale));
    Ok(())
}

pub fn err_tile_size<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let w = b.warp_width();
    let v = vec![1i32; 256];
    let mut sizes = vec![0, 1, 3, 6, 128, 2 * w.lanes()];
    sizes.dedup();
    for tile in sizes {
        let bad = |e: &E| matches!(e, E::InvalidTileSize { tile: t, .. } if *t == tile);
        let ctx = format!("tile={tile}");
        crate::check::fails(
            &format!("tile_shfl {ctx}"),
            b.tile_shfl(tile, Shfl::Xor, &v, 0),
            "InvalidTileSize",
            bad,
        )?;
        crate::check::fails(
            &format!("tile_vote {ctx}"),
            b.tile_vote(tile, Vote::All, &[true; 8]),
            "InvalidTileSize",
            bad,
        )?;
        crate::check::fails(
            &format!("tile_reduce {ctx}"),
            b.tile_reduce(tile, ReduceOp::Max, &v),
            "InvalidTileSize",
            bad,
        )?;
    }
    Ok(())
}
