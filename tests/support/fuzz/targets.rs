//! The backends a fuzz family runs on, behind one object-safe face: the CPU oracle and the SIMT
//! executor at 32 and 64 lanes. A family's property is a generic function, called through
//! `on!` for the concrete backend.

use super::{Tally, run_contexts};
use proptest::strategy::Strategy;
use proptest::test_runner::TestCaseError;
use std::sync::OnceLock;
use wavekit::cpu::CpuBackend;
use wavekit::{Backend, WarpWidth};

/// One backend under test.
pub trait Target: Sync {
    /// `cpu/w32`, `simt/w64`, ...
    fn label(&self) -> String;
    /// The backend's warp width.
    fn width(&self) -> WarpWidth;
    /// Calls `f` with the concrete backend.
    fn with(
        &self,
        f: &mut dyn FnMut(Any<'_>) -> Result<Tally, TestCaseError>,
    ) -> Result<Tally, TestCaseError>;
}

/// One concrete backend, named so that a property can match on it and stay generic.
pub enum Any<'a> {
    /// The CPU oracle.
    Cpu(&'a CpuBackend),
    /// The SIMT executor.
    #[cfg(feature = "simt")]
    Simt(&'a wavekit::simt::SimtBackend),
}

/// `$body` (a `Result<Tally, TestCaseError>`) with `$b` bound to the concrete backend of the
/// target `$target`.
#[macro_export]
macro_rules! on {
    ($target:expr, |$b:ident| $body:expr) => {
        $target.with(&mut |any| match any {
            $crate::fuzz::Any::Cpu($b) => $body,
            #[cfg(feature = "simt")]
            $crate::fuzz::Any::Simt($b) => $body,
        })
    };
}

/// A `Target` over one concrete backend type, named by its `Any` variant.
macro_rules! target {
    ($name:ident, $backend:ty, $variant:ident) => {
        struct $name($backend);
        impl Target for $name {
            fn label(&self) -> String {
                format!(
                    "{}/w{}",
                    stringify!($variant).to_lowercase(),
                    self.0.warp_width().lanes()
                )
            }
            fn width(&self) -> WarpWidth {
                self.0.warp_width()
            }
            fn with(
                &self,
                f: &mut dyn FnMut(Any<'_>) -> Result<Tally, TestCaseError>,
            ) -> Result<Tally, TestCaseError> {
                f(Any::$variant(&self.0))
            }
        }
    };
}

target!(CpuTarget, CpuBackend, Cpu);
#[cfg(feature = "simt")]
target!(SimtTarget, wavekit::simt::SimtBackend, Simt);

/// Every backend under test, made once for the process.
pub fn targets() -> Vec<&'static dyn Target> {
    static CPU: OnceLock<[CpuTarget; 2]> = OnceLock::new();
    let cpu = CPU.get_or_init(|| WarpWidth::ALL.map(|w| CpuTarget(CpuBackend::new(w))));
    #[allow(unused_mut)]
    let mut all: Vec<&'static dyn Target> = cpu.iter().map(|t| t as &dyn Target).collect();
    #[cfg(feature = "simt")]
    {
        static SIMT: OnceLock<[SimtTarget; 2]> = OnceLock::new();
        let simt = SIMT
            .get_or_init(|| WarpWidth::ALL.map(|w| SimtTarget(wavekit::simt::open(w).unwrap())));
        all.extend(simt.iter().map(|t| t as &dyn Target));
    }
    all
}

/// Runs `body` on every target for 256 random inputs a round (`run_family`'s case count and
/// soak mode) and prints each target's counts.
pub fn fuzz<S: Strategy>(
    name: &str,
    strategy: S,
    body: impl Fn(&dyn Target, S::Value) -> Result<Tally, TestCaseError>,
) where
    S::Value: std::fmt::Debug,
{
    fuzz_cases(name, 256, strategy, body);
}

/// [`fuzz`] with another bounded case count.
pub fn fuzz_cases<S: Strategy>(
    name: &str,
    default_cases: u32,
    strategy: S,
    body: impl Fn(&dyn Target, S::Value) -> Result<Tally, TestCaseError>,
) where
    S::Value: std::fmt::Debug,
{
    let contexts: Vec<(String, &dyn Target)> =
        targets().into_iter().map(|t| (t.label(), t)).collect();
    run_contexts(name, default_cases, strategy, &contexts, |t, v| body(*t, v));
}
