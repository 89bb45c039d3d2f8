//! The fuzz harness every tests/fuzz_*.rs file shares: how many cases a family runs, the soak
//! mode, a watchdog per family, and one runner that prints each family's counts.
//!
//! - `WAVEKIT_FUZZ_CASES=N` scales every family: a family whose bounded CI pass is `d` cases
//!   runs `d * N / 256` (fuzz_api's families have `d = 256`, so N is their case count).
//! - `WAVEKIT_FUZZ_SECONDS=N` is the soak mode: each family runs round after round of fresh
//!   random cases, its contexts (backends, widths) taking turns, until N seconds after the
//!   first family of the process started (a family that starts later runs one round). Run
//!   every family at once so that they share the time: `scripts/fuzz-soak.sh N` runs each fuzz
//!   binary with a test thread per family.
//! - `WAVEKIT_FUZZ_SEED=S` makes `S` the seed of every family's first round; a failure prints
//!   the seed of its round, which replays it (proptest also prints the shrunk input).
//! - `WAVEKIT_FUZZ_HANG_S=N` (default 120): a family whose case has not finished for N seconds
//!   aborts the process, naming the family and the case in flight (the property's "never a
//!   hang"), even while the other families keep going.

pub mod args;
pub mod targets;
pub mod views;

pub use args::*;
pub use targets::{Any, Target, fuzz, fuzz_cases, targets};
pub use views::*;

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::cell::RefCell;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

fn env_u64(name: &str) -> Option<u64> {
    let s = std::env::var(name).ok()?;
    let s = s.trim();
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// The cases of one round of a family whose bounded pass is `default` cases.
pub fn cases(default: u32) -> u32 {
    match env_u64("WAVEKIT_FUZZ_CASES") {
        Some(n) => ((u64::from(default) * n / 256).max(1)).min(u64::from(u32::MAX)) as u32,
        None => default,
    }
}

/// The soak mode's end, if `WAVEKIT_FUZZ_SECONDS` is set: N seconds after the first family of
/// this process started.
fn soak_deadline() -> Option<Instant> {
    static START: OnceLock<Instant> = OnceLock::new();
    let secs = env_u64("WAVEKIT_FUZZ_SECONDS")?;
    Some(*START.get_or_init(Instant::now) + Duration::from_secs(secs))
}

/// Whether the soak mode is on (families that size their cases by it can ask).
pub fn soaking() -> bool {
    soak_deadline().is_some()
}

/// What a family's cases did: calls made, how many came back as a typed error at the call, and
/// how many as a typed error at a later `synchronize`/`download` (queued work).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Calls made (a case may make several).
    pub calls: u64,
    /// Calls refused with a typed error when made.
    pub errors: u64,
    /// Kernel-reported errors that came back at the next synchronisation.
    pub deferred: u64,
}

impl Tally {
    /// One call whose result equalled the reference.
    pub const MATCHED: Tally = Tally {
        calls: 1,
        errors: 0,
        deferred: 0,
    };
    /// One call refused with a typed error, where the rules say its arguments are invalid.
    pub const REFUSED: Tally = Tally {
        calls: 1,
        errors: 1,
        deferred: 0,
    };
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        self.calls += o.calls;
        self.errors += o.errors;
        self.deferred += o.deferred;
    }
}

// ---- the watchdog -------------------------------------------------------------------------

/// A family in flight: what it is running and since when.
struct Slot {
    family: String,
    case: String,
    since: Instant,
    live: bool,
}

static SLOTS: Mutex<Vec<Slot>> = Mutex::new(Vec::new());

fn slots() -> std::sync::MutexGuard<'static, Vec<Slot>> {
    SLOTS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Aborts the process, naming the family and the case, when one case of a live family has not
/// finished for the hang limit. One thread for the process, started by the first family.
fn watchdog() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        let limit = Duration::from_secs(env_u64("WAVEKIT_FUZZ_HANG_S").unwrap_or(120));
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_secs(1));
                if let Some(s) = slots().iter().find(|s| s.live && s.since.elapsed() > limit) {
                    eprintln!(
                        "fuzz: {} has not finished a case for {} s; hung in: {}",
                        s.family,
                        limit.as_secs(),
                        s.case
                    );
                    std::process::abort();
                }
            }
        });
    });
}

/// A family's slot in the watchdog's table, retired when dropped (also by a panic).
struct Watch(usize);

impl Watch {
    fn new(family: String) -> Watch {
        watchdog();
        let mut s = slots();
        s.push(Slot {
            family,
            case: String::new(),
            since: Instant::now(),
            live: true,
        });
        Watch(s.len() - 1)
    }

    /// A case starts.
    fn case(&self, case: String) {
        let mut s = slots();
        s[self.0].case = case;
        s[self.0].since = Instant::now();
        s[self.0].live = true;
    }

    /// No case runs until the next `case` (another context's round runs meanwhile).
    fn idle(&self) {
        slots()[self.0].live = false;
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        slots()[self.0].live = false;
    }
}

// ---- the runner ---------------------------------------------------------------------------

/// The seed of round `round` of `family`: `WAVEKIT_FUZZ_SEED` for the first round if set,
/// otherwise fresh.
fn round_seed(family: &str, round: u64) -> u64 {
    if round == 0
        && let Some(s) = env_u64("WAVEKIT_FUZZ_SEED")
    {
        return s;
    }
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write(family.as_bytes());
    h.write_u64(round);
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

fn rng(seed: u64) -> TestRng {
    let mut bytes = [0u8; 32];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        let word = wavekit::element::splitmix(seed.wrapping_add(i as u64));
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// One family on one context (a backend, a world): its watchdog slot and its counts so far.
struct Run {
    name: String,
    watch: Watch,
    total: Tally,
    cases: u64,
    rounds: u64,
    time: Duration,
}

impl Run {
    fn new(name: String) -> Run {
        Run {
            watch: Watch::new(name.clone()),
            name,
            total: Tally::default(),
            cases: 0,
            rounds: 0,
            time: Duration::ZERO,
        }
    }

    /// One round of `cases(default_cases)` random values; panics with the shrunk failing value
    /// and the round's seed if a case fails.
    fn round<S: Strategy>(
        &mut self,
        default_cases: u32,
        strategy: &S,
        body: impl Fn(S::Value) -> Result<Tally, TestCaseError>,
    ) where
        S::Value: std::fmt::Debug,
    {
        let started = Instant::now();
        let seed = round_seed(&self.name, self.rounds);
        let config = Config {
            cases: cases(default_cases),
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner = TestRunner::new_with_rng(config, rng(seed));
        let round = RefCell::new((Tally::default(), 0u64));
        let result = runner.run(strategy, |v| {
            self.watch.case(format!("{v:?}"));
            let t = body(v)?;
            let mut r = round.borrow_mut();
            r.0 += t;
            r.1 += 1;
            Ok(())
        });
        if let Err(e) = result {
            let (name, rounds) = (&self.name, self.rounds);
            panic!("{name}: {e} (round {rounds}, WAVEKIT_FUZZ_SEED={seed:#x} replays it)");
        }
        self.watch.idle();
        let (t, n) = round.into_inner();
        self.total += t;
        self.cases += n;
        self.rounds += 1;
        self.time += started.elapsed();
    }

    /// Prints the counts.
    fn report(self, soak: bool) -> Tally {
        let t = self.total;
        let deferred = match t.deferred {
            0 => String::new(),
            d => format!(", {d} deferred to a synchronisation"),
        };
        let rounds = match soak {
            true => format!(
                " ({} rounds, {} cases, {:.0} s)",
                self.rounds,
                self.cases,
                self.time.as_secs_f64()
            ),
            false => String::new(),
        };
        eprintln!(
            "fuzz {}: {} calls, {} typed errors{deferred}{rounds}",
            self.name, t.calls, t.errors
        );
        t
    }
}

/// Runs `body` on each context in `contexts` for `cases(default_cases)` random values of
/// `strategy`, and in the soak mode round after round, the contexts taking turns, until the
/// soak ends; prints each context's counts. A failing case panics with its shrunk value and
/// the seed that replays its round. Each context is named by its label (a backend, a world).
pub fn run_contexts<S: Strategy, C>(
    family: &str,
    default_cases: u32,
    strategy: S,
    contexts: &[(String, C)],
    body: impl Fn(&C, S::Value) -> Result<Tally, TestCaseError>,
) -> Tally
where
    S::Value: std::fmt::Debug,
{
    let deadline = soak_deadline();
    let mut runs: Vec<Run> = contexts
        .iter()
        .map(|(label, _)| Run::new(format!("{family} on {label}")))
        .collect();
    loop {
        for (run, (_, ctx)) in runs.iter_mut().zip(contexts) {
            run.round(default_cases, &strategy, |v| body(ctx, v));
        }
        if deadline.is_none_or(|d| Instant::now() >= d) {
            break;
        }
    }
    let mut total = Tally::default();
    for run in runs {
        total += run.report(deadline.is_some());
    }
    total
}

/// [`run_contexts`] with one context.
pub fn run_family<S: Strategy>(
    family: &str,
    label: &str,
    default_cases: u32,
    strategy: S,
    body: impl Fn(S::Value) -> Result<Tally, TestCaseError>,
) -> Tally
where
    S::Value: std::fmt::Debug,
{
    let contexts = [(label.to_string(), ())];
    run_contexts(family, default_cases, strategy, &contexts, |(), v| body(v))
}
