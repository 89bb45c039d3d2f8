//! Fuzz of queued work and its deferred errors (issue 28), on the SIMT executor at 32 and 64
//! lanes (and, `#[ignore]`d, on a CUDA device): random sequences of `_into` calls queued back
//! to back on one backend, some with arguments the host refuses at once, some with arguments
//! that are only wrong when a kernel reads them (an SpMV column past x, a segment offset past
//! the input: raw calls past the host checks, through the test hook), and synchronisation
//! points in between (`synchronize`, a `download` of an earlier output, a returning
//! convenience, a warp primitive).
//!
//! The property, after docs/COLLECTIVES.md: a host-checked error comes back from the call and
//! leaves its outputs as they were; a kernel-found error comes back at the next
//! synchronisation point, and it is the first such launch's error since the last one (its
//! `IndexOutOfRange`, whatever was queued around it), after which the next one is clean; every
//! other launch's outputs, before and after the failing one, hold the reference result; no
//! launch writes outside its output (each lies inside a larger buffer whose guard elements are
//! read back). Never a panic, an abort or a hang (tests/support/fuzz).

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use wavekit::gpu::{GpuBackend, GpuBuffer, GpuRuntime};
use wavekit::{Backend, Element, Predicate, ReduceOp, WavekitError};
use wavekit_conformance::inputs;
use wavekit_core::Validated;
use wavekit_tests::fuzz::*;

/// One step of a sequence: what it does (`kind`), whether its host-checked arguments are
/// wrong (`bad`), and the numbers its arguments are made from.
#[derive(Clone, Debug)]
struct Step {
    kind: u8,
    bad: bool,
    len: usize,
    size: u32,
    op: ReduceOp,
    pred: Predicate<f32>,
    seed: u64,
}

fn step() -> impl Strategy<Value = Step> {
    let len = prop_oneof![3 => 1usize..300, 1 => 300usize..3000, 1 => Just(0usize)];
    let bad = prop_oneof![5 => Just(false), 1 => Just(true)];
    (0u8..15, bad, len, 1u32..60, op(), predicate(), any::<u64>()).prop_map(
        |(kind, bad, len, size, op, pred, seed)| Step {
            kind,
            bad,
            len,
            size,
            op,
            pred,
            seed,
        },
    )
}

fn fail(e: WavekitError) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// SAFETY of the raw calls: `GpuBackend` checks every length against the buffers it gets; the
/// kernels check the SpMV columns and segment offsets, the two arguments left wrong here.
fn token() -> Validated {
    // SAFETY: see above: the backends check every length and index again, so a token for
    // arguments the validated API did not check reaches no memory outside the buffers.
    unsafe { Validated::assume_checked() }
}

/// Guard elements on each side of every output.
const GUARD: usize = 5;

/// An output of `len` elements in the middle of a buffer of guards, all holding `sentinel`
/// values; `view` is the part a call writes.
struct Out<T: Element, R: GpuRuntime> {
    base: GpuBuffer<T, R>,
    before: Vec<T>,
    len: usize,
}

impl<T: Element, R: GpuRuntime> Out<T, R> {
    fn new(b: &GpuBackend<R>, len: usize, seed: u64) -> Result<Self, TestCaseError> {
        let before: Vec<T> = inputs::values(len + 2 * GUARD, seed ^ 0x0b7);
        Ok(Out {
            base: b.upload(&before).map_err(fail)?,
            before,
            len,
        })
    }

    fn view<X>(
        &mut self,
        b: &GpuBackend<R>,
        f: impl FnOnce(&mut GpuBuffer<T, R>) -> X,
    ) -> Result<X, WavekitError> {
        let mut v = b.slice_mut(&mut self.base, GUARD..GUARD + self.len)?;
        Ok(f(&mut v))
    }

    /// Reads the whole buffer: `Err` is the read's own error (a deferred one), `Ok` the check
    /// that the guards are untouched and the view holds `want` (or, with `None`, what was
    /// there before; `Some(None)`: anything).
    fn read(
        &self,
        b: &GpuBackend<R>,
        want: &Expect<T>,
    ) -> Result<Result<(), TestCaseError>, WavekitError> {
        let after = b.download(&self.base)?;
        let mut expected = self.before.clone();
        let view = GUARD..GUARD + self.len;
        match want {
            Expect::Untouched => {}
            Expect::Anything => expected[view.clone()].copy_from_slice(&after[view]),
            Expect::Exactly(w) => expected[view].copy_from_slice(w),
        }
        Ok(same(&expected, &after))
    }
}

/// What an output must hold at the end.
enum Expect<T> {
    /// The call was refused: nothing written.
    Untouched,
    /// A kernel-found error: unspecified inside the view (never outside it).
    Anything,
    /// The reference result.
    Exactly(Vec<T>),
}

/// The checks of everything a sequence wrote, one per output, run at a download
/// synchronisation point and at the end.
type Check<'a> = Box<dyn Fn() -> Result<Result<(), TestCaseError>, WavekitError> + 'a>;

/// The model of one sequence: the first kernel-found error since the last synchronisation.
struct Run<'a, R: GpuRuntime> {
    b: &'a GpuBackend<R>,
    pending: Option<WavekitError>,
    checks: Vec<(String, Check<'a>)>,
    tally: Tally,
}

impl<'a, R: GpuRuntime> Run<'a, R> {
    /// A call whose host checks pass exactly when `valid`: refused at once otherwise.
    fn call(
        &mut self,
        what: &str,
        valid: bool,
        r: Result<(), WavekitError>,
    ) -> Result<(), TestCaseError> {
        self.tally += judged(what, valid, r, |()| Ok(()))?;
        Ok(())
    }

    /// A launch whose kernel will report `error`: accepted now, reported later.
    fn fault(
        &mut self,
        what: &str,
        r: Result<(), WavekitError>,
        error: WavekitError,
    ) -> Result<(), TestCaseError> {
        r.map_err(|e| TestCaseError::fail(format!("{what} refused at the call: {e}")))?;
        self.tally.calls += 1;
        self.pending.get_or_insert(error);
        Ok(())
    }

    /// A synchronisation point: `r` is the pending error if there is one, else `ok` checks it.
    fn sync<X>(
        &mut self,
        what: &str,
        r: Result<X, WavekitError>,
        ok: impl FnOnce(X) -> Result<(), TestCaseError>,
    ) -> Result<(), TestCaseError> {
        self.tally.calls += 1;
        match (self.pending.take(), r) {
            (Some(want), Err(got)) if want == got => {
                self.tally.deferred += 1;
                Ok(())
            }
            (Some(want), r) => Err(TestCaseError::fail(format!(
                "{what}: expected the deferred {want:?}, got {:?}",
                r.err()
            ))),
            (None, Ok(x)) => ok(x),
            (None, Err(e)) => Err(TestCaseError::fail(format!("{what}: {e:?}"))),
        }
    }

    fn keep(&mut self, what: String, check: Check<'a>) {
        self.checks.push((what, check));
    }
}

#[path = "fuzz_queued/steps.rs"]
mod steps;

/// Runs one sequence on `b`, then a final synchronisation and every output's check.
fn sequence<R: GpuRuntime>(b: &GpuBackend<R>, seq: &[Step]) -> Result<Tally, TestCaseError> {
    let mut run = Run {
        b,
        pending: None,
        checks: Vec::new(),
        tally: Tally::default(),
    };
    for (i, s) in seq.iter().enumerate() {
        steps::step(&mut run, i, s)?;
    }
    let r = b.synchronize();
    run.sync("final synchronize", r, |()| Ok(()))?;
    prop_assert_eq!(
        b.synchronize(),
        Ok(()),
        "a second synchronize after the error"
    );
    for (what, check) in &run.checks {
        check()
            .map_err(|e| TestCaseError::fail(format!("{what}: reading it back: {e}")))?
            .map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?;
    }
    Ok(run.tally)
}

fn fuzz_on<R: GpuRuntime>(backends: &[(String, GpuBackend<R>)], default_cases: u32) {
    let seq = proptest::collection::vec(step(), 1..10);
    run_contexts("queued", default_cases, seq, backends, |b, seq| {
        sequence(b, &seq)
    });
}

#[test]
fn fuzz_queued() {
    // A backend of each width, of its own: no other test's queued work shares its status slots.
    let backends: Vec<_> = wavekit::WarpWidth::ALL
        .map(|w| {
            (
                format!("simt/w{}", w.lanes()),
                wavekit::simt::open(w).unwrap(),
            )
        })
        .into();
    fuzz_on(&backends, 256);
}

#[test]
#[ignore = "needs a CUDA device"]
#[cfg(feature = "cuda")]
fn fuzz_queued_cuda() {
    let b = wavekit::cuda::open(0).expect("CUDA device 0");
    fuzz_on(&[("cuda:0".to_string(), b)], 96);
}
