//! The scan's look-back against a plain left fold, over status chains a real scan rarely
//! produces (long runs of aggregates that reach past the float stash): shared by the executor,
//! CUDA and HIP test files. Expected values come from `Element::combine` alone.

use wavekit::gpu::{GpuBackend, GpuRuntime, TileStatus};
use wavekit::{Backend, Element, ReduceOp, WavekitError};

/// Windows of one warp's statuses the float look-back keeps in shared memory (look_back.h).
const STASH_WINDOWS: usize = 8;

/// The canonical exclusive prefix: the nearest inclusive prefix, then every aggregate after
/// it folded in from the left.
fn expected<T: Element>(op: ReduceOp, st: &[TileStatus<T>]) -> T {
    let start = st
        .iter()
        .rposition(|s| matches!(s, TileStatus::Inclusive(_)))
        .expect("tile 0 is inclusive");
    let TileStatus::Inclusive(mut acc) = st[start] else {
        unreachable!()
    };
    for s in &st[start + 1..] {
        let TileStatus::Aggregate(v) = *s else {
            unreachable!()
        };
        acc = T::combine(op, acc, v);
    }
    acc
}

/// `tiles` statuses with seeded values, inclusive at tile 0 and at `inclusive`.
fn chain<T: Element>(tiles: usize, inclusive: &[usize], seed: u64) -> Vec<TileStatus<T>> {
    (0..tiles)
        .map(|i| {
            let v = T::from_seed(seed * 7919 + i as u64);
            if i == 0 || inclusive.contains(&i) {
                TileStatus::Inclusive(v)
            } else {
                TileStatus::Aggregate(v)
            }
        })
        .collect()
}

/// (tiles, inclusive tiles besides 0) reaching every path at warp width `w`.
fn shapes(w: usize) -> Vec<(usize, Vec<usize>)> {
    let stash = STASH_WINDOWS * w;
    vec![
        (1, vec![]),            // tile 1 reads tile 0 only
        (w - 1, vec![]),        // one window
        (w + 3, vec![]),        // into a second window
        (100, vec![99]),        // the predecessor itself is inclusive
        (300, vec![250, 280]),  // the nearest inclusive wins
        (stash - 1, vec![]),    // the stash full to its last slot
        (stash + 40, vec![]),   // past the stash: the fold forward
        (stash + 40, vec![30]), // past the stash, from a later inclusive
        (3 * stash + 7, vec![5, stash, stash + 1]),
    ]
}

fn check_type<T: Element, R: GpuRuntime>(b: &GpuBackend<R>, w: usize) {
    for (tiles, inclusive) in shapes(w) {
        for op in ReduceOp::ops_for(T::KIND) {
            let st = chain::<T>(tiles, &inclusive, tiles as u64);
            let want = expected(op, &st);
            let got = b.probe_look_back(op, &st).unwrap();
            assert!(
                got.same(want) || (got.to_f64().is_nan() && want.to_f64().is_nan()),
                "{} {op:?}, {tiles} tiles, inclusive at 0 and {inclusive:?}: got {got:?} ({:#x}), \
                 want {want:?} ({:#x})",
                T::KIND.name(),
                got.to_bits(),
                want.to_bits(),
            );
        }
    }
}

/// Every element type and op over every shape.
pub fn matches_a_plain_fold<R: GpuRuntime>(b: &GpuBackend<R>) {
    let w = b.warp_width().lanes() as usize;
    check_type::<f32, R>(b, w);
    check_type::<f64, R>(b, w);
    check_type::<i32, R>(b, w);
    check_type::<u32, R>(b, w);
    check_type::<i64, R>(b, w);
    check_type::<u64, R>(b, w);
}

/// Statuses a scan never publishes are refused before anything is launched.
pub fn refuses_bad_statuses<R: GpuRuntime>(b: &GpuBackend<R>) {
    assert!(matches!(
        b.probe_look_back::<f32>(ReduceOp::Sum, &[]),
        Err(WavekitError::EmptyInput { .. })
    ));
    let starts_with_aggregate = [TileStatus::Aggregate(1.0f32), TileStatus::Inclusive(2.0)];
    assert!(matches!(
        b.probe_look_back(ReduceOp::Sum, &starts_with_aggregate),
        Err(WavekitError::InvalidStatus { tile: 0, .. })
    ));
    assert!(matches!(
        b.probe_look_back(ReduceOp::BitXor, &[TileStatus::Inclusive(1.0f64)]),
        Err(WavekitError::UnsupportedOp { .. })
    ));
}
