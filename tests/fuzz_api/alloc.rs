//! The allocation-failure family of fuzz_api.rs (issue #80): collectives called with the host
//! allocation limit of the calling thread lowered (`wavekit::host::with_limit`, a test hook of
//! wavekit-core) to a random size, from nothing to more than the call needs, as if the host
//! had no more memory. The property: the call gives exactly what it gives unlimited, or fails
//! with `OutOfMemory` and its output holds what it held before; never another error, a panic
//! or an abort. The limit reaches the allocations made on the calling thread (the CPU backend's
//! scratch, tables and results, the executor's device memory); tests/oom.rs limits the whole
//! process instead.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wavekit::{
    Backend, Collectives, Element, LaneMask, ReduceOp, ScanKind, Sort, SortOrder, TopK, Vote,
    WarpPrimitives, WavekitError, host,
};
use wavekit_conformance::inputs;
use wavekit_tests::fuzz::*;
use wavekit_tests::on;

/// What the outputs hold before each call.
const SENTINEL: u64 = 0xA5A5_5A5A_A5A5_5A5A;

/// A limit: none at all, below a scratch buffer, around the sizes of the inputs, or past them.
fn limit() -> impl Strategy<Value = usize> {
    prop_oneof![
        1 => Just(0usize),
        2 => 1usize..4096,
        3 => 4096usize..(1 << 20),
        1 => (1usize << 20)..(1 << 26),
    ]
}

/// `call` into an output of `len` elements filled with the sentinel, unlimited and then under
/// `limit`: the limited call gives the unlimited one's output, or `OutOfMemory` and the
/// sentinel untouched. `Tally::MATCHED` or `Tally::REFUSED`.
fn limited<B: Backend, T: Element>(
    b: &B,
    limit: usize,
    len: usize,
    call: &dyn Fn(&mut B::Buffer<T>) -> wavekit::Result<()>,
) -> Result<Tally, TestCaseError> {
    let fresh = || a_unwrap(b.upload(&vec![T::from_bits(SENTINEL); len]));
    let mut out = fresh()?;
    a_unwrap(call(&mut out))?;
    let want = a_unwrap(b.download(&out))?;
    let mut out = fresh()?;
    let r = host::with_limit(limit, || call(&mut out));
    let got = a_unwrap(b.download(&out))?;
    match r {
        Ok(()) => same(&want, &got).map(|()| Tally::MATCHED),
        Err(WavekitError::OutOfMemory { .. }) => {
            let untouched = got.iter().all(|x| x.same(T::from_bits(SENTINEL)));
            prop_assert!(untouched, "OutOfMemory, but the output was written");
            Ok(Tally::REFUSED)
        }
        Err(e) => Err(TestCaseError::fail(format!("not OutOfMemory: {e}"))),
    }
}

/// A result the call returns: the unlimited one's, or `OutOfMemory`.
fn limited_result<R: PartialEq + std::fmt::Debug>(
    limit: usize,
    call: &dyn Fn() -> wavekit::Result<R>,
) -> Result<Tally, TestCaseError> {
    let want = a_unwrap(call())?;
    match host::with_limit(limit, call) {
        Ok(got) => {
            prop_assert_eq!(want, got);
            Ok(Tally::MATCHED)
        }
        Err(WavekitError::OutOfMemory { .. }) => Ok(Tally::REFUSED),
        Err(e) => Err(TestCaseError::fail(format!("not OutOfMemory: {e}"))),
    }
}

#[test]
fn fuzz_allocation_failures() {
    // Sizes the executor runs twice a case in moments; 64 cases a target by default.
    let s = (0u8..7, limit(), 1usize..5000, any::<u64>());
    fuzz_cases(
        "allocation failures",
        64,
        s,
        |t, (which, limit, n, seed)| {
            let vals: Vec<f32> = inputs::values_with_specials(n, seed);
            let keys: Vec<u32> = vals.iter().map(|v| v.to_bits() % 70_000).collect();
            on!(t, |b| {
                let input = a_unwrap(b.upload(&vals))?;
                let kb = a_unwrap(b.upload(&keys))?;
                match which {
                    0 => {
                        limited::<_, f32>(b, limit, 1, &|o| b.reduce_into(&input, ReduceOp::Sum, o))
                    }
                    1 => limited::<_, f32>(b, limit, n, &|o| {
                        b.scan(&input, o, ReduceOp::Sum, ScanKind::Exclusive)
                    }),
                    // A few bins (private tables on the CPU) and many (one shared table).
                    2 | 3 => {
                        let bins = if which == 2 { 300 } else { 65_536 + 1000 };
                        limited::<_, u64>(b, limit, bins as usize + 1, &|o| {
                            b.histogram_into(&kb, bins, o)
                        })
                    }
                    4 => limited::<_, u32>(b, limit, n, &|o| {
                        b.sort_keys_into(&kb, o, SortOrder::ASCENDING)
                    }),
                    5 => limited::<_, u32>(b, limit, n.div_ceil(3), &|o| {
                        b.top_k_into(&kb, n.div_ceil(3), SortOrder::DESCENDING, o)
                    }),
                    _ => {
                        let preds: Vec<bool> = keys.iter().map(|k| k % 3 == 0).collect();
                        let mask = LaneMask::full(b.warp_width());
                        limited_result(limit, &|| b.vote(Vote::Ballot, &preds, mask))
                    }
                }
            })
        },
    );
}
