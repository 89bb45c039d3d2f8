//! The concurrent phase of fuzz_streams.rs: both backends at once, each on its own thread,
//! reading shared pool buffers through views and writing into buffers the other backend made.

use super::{Op, World, fail, range};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wavekit::gpu::{GpuBackend, GpuBuffer, GpuRuntime};
use wavekit::{Backend, Collectives, ReduceOp, ScanKind, WavekitError};
use wavekit_conformance::reference;
use wavekit_tests::fuzz::Tally;

/// Calls each thread makes.
const CALLS: u64 = 4;

/// What one thread queued: outputs (made by the other backend) and what they must hold.
type Written<R> = Vec<(GpuBuffer<i32, R>, Vec<i32>)>;

/// One thread's work on `own`, its outputs allocated by `other`.
fn work<R: GpuRuntime>(
    own: &GpuBackend<R>,
    other: &GpuBackend<R>,
    pool: &[(&GpuBuffer<i32, R>, &[i32])],
    t: usize,
    op: &Op,
) -> Result<Written<R>, WavekitError> {
    let mut out = Vec::new();
    for k in 0..CALLS {
        let seed = wavekit::element::splitmix(op.seed ^ (k << 8) ^ t as u64);
        let (buf, host) = pool[seed as usize % pool.len()];
        let r = range(host.len(), (seed >> 3, seed >> 17));
        let input = own.slice(buf, r.clone())?;
        if k % 2 == 0 || r.is_empty() {
            let kind = [ScanKind::Inclusive, ScanKind::Exclusive][(seed >> 40) as usize & 1];
            let mut dst = other.alloc::<i32>(r.len())?;
            own.scan(&input, &mut dst, ReduceOp::Sum, kind)?;
            out.push((dst, reference::device_scan(&host[r], ReduceOp::Sum, kind)));
        } else {
            let mut dst = other.alloc::<i32>(1)?;
            own.reduce_into(&input, ReduceOp::Max, &mut dst)?;
            out.push((dst, vec![reference::device_reduce(&host[r], ReduceOp::Max)]));
        }
    }
    Ok(out)
}

/// Both backends at once, on two threads; then each output read back on the backend that
/// made it.
pub fn both<R: GpuRuntime>(w: &mut World<R>, op: &Op) -> Result<Tally, TestCaseError> {
    // The shared inputs are complete on both streams before either thread reads them.
    for s in w.streams.iter().flatten() {
        s.synchronize().map_err(fail)?;
    }
    w.pool.iter_mut().for_each(|s| s.last = None);
    let [Some(a), Some(b)] = &w.streams else {
        unreachable!("both streams are alive in this phase");
    };
    let pool: Vec<(&GpuBuffer<i32, R>, &[i32])> =
        w.pool.iter().map(|s| (&s.buf, s.host.as_slice())).collect();
    let results = std::thread::scope(|sc| {
        let pool = &pool;
        let ha = sc.spawn(move || work(a, b, pool, 0, op));
        let hb = sc.spawn(move || work(b, a, pool, 1, op));
        [ha.join(), hb.join()]
    });
    for s in [a, b] {
        s.synchronize().map_err(fail)?;
    }
    for (t, r) in results.into_iter().enumerate() {
        let written = r
            .map_err(|_| TestCaseError::fail(format!("thread {t} panicked")))?
            .map_err(fail)?;
        let maker = [b, a][t];
        for (buf, want) in written {
            prop_assert_eq!(maker.download(&buf).map_err(fail)?, want, "thread {}", t);
        }
    }
    Ok(Tally {
        calls: 2 * 2 * CALLS,
        errors: 0,
        deferred: 0,
    })
}
