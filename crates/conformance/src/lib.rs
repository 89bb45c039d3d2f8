//! wavekit-conformance: the conformance suite, every check generic over a backend, against
//! sequential definitions of docs/SEMANTICS.md written independently of the CPU oracle
//! ([`reference`](mod@reference), the one executable copy of the spec).
//!
//! How it fits: it depends on wavekit-core only. A backend's tests instantiate it in one line,
//! one `#[test]` per case ([`instantiate!`]):
//!
//! ```text
//! wavekit_conformance::instantiate!(cpu_w32, CpuBackend::new(WarpWidth::W32));
//! wavekit_conformance::instantiate!(cuda, cuda::open(0).unwrap(), ignore = "needs a CUDA device");
//! wavekit_conformance::instantiate!(simt_w64, simt::open(W64).unwrap(), scale = Small, after = no_hazards);
//! ```
//!
//! `wavekit verify` runs it as a table through [`run_all`].

#![warn(missing_debug_implementations)]

pub mod cases;
pub(crate) mod check;
pub mod inputs;
pub mod reference;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};
use wavekit_core::RawBackend;

/// How big the inputs are. `Small` runs every case on shrunken inputs (no multi-million
/// element arrays, fewer masks and thread counts) for slow backends such as a CPU-simulated
/// SIMT executor; `Full` is what real devices and the CPU oracle run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scale {
    Full,
    Small,
}

/// One named check and its outcome.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub name: String,
    pub passed: bool,
    /// On failure: the first mismatch (lane or index, expected, got).
    pub detail: String,
    pub elapsed: Duration,
}

/// A conformance case: `Err` carries the first mismatch.
pub type CaseFn<B> = fn(&B, Scale) -> Result<(), String>;

/// Runs one case, turning a panic in the backend into a failure so a table run goes on.
pub fn run_case<B: RawBackend>(
    name: &str,
    backend: &B,
    scale: Scale,
    case: CaseFn<B>,
) -> CaseResult {
    let start = Instant::now();
    let outcome = catch_unwind(AssertUnwindSafe(|| case(backend, scale)));
    let (passed, detail) = match outcome {
        Ok(Ok(())) => (true, String::new()),
        Ok(Err(mismatch)) => (false, format!("{name}: {mismatch}")),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "non-string panic".into());
            (false, format!("{name}: panicked: {msg}"))
        }
    };
    CaseResult {
        name: name.to_string(),
        passed,
        detail,
        elapsed: start.elapsed(),
    }
}

/// Calls `$callback! { [$($args)*] case_a case_b … }` with every case name, once each. The
/// single list behind `run_all`, `case_names` and the per-backend test modules in tests/.
#[macro_export]
macro_rules! conformance_cases {
    ($($callback:ident)::+; $($args:tt)*) => {
        $($callback)::+! { [$($args)*]
            buffers_roundtrip
            empty_inputs
            vote_all_any_uni
            vote_ballot
            shfl_idx
            shfl_up
            shfl_down
            shfl_xor
            match_any
            match_all
            match_bit_patterns
            activemask_guarantee
            syncwarp_transpose
            tile_shfl
            tile_vote
            tile_reduce
            warp_reduce
            warp_reduce_sync
            warp_reduce_sync_specials
            warp_scan_inclusive
            warp_scan_exclusive
            block_reduce
            device_reduce
            device_reduce_three_levels
            device_reduce_min_max_specials
            device_scan_inclusive
            device_scan_exclusive
            device_scan_reused
            half_rounding
            half_order
            half_scan_groups
            segmented_reduce_fixed
            segmented_reduce_offsets
            spmv
            atomic_agg_inc
            count_if
            compact_stable
            compact_unordered
            compact_reused
            histogram
            spmv_balanced
            histogram_wide
            sort_keys
            sort_pairs
            argsort
            segmented_sort_fixed
            segmented_sort_offsets
            segmented_sort_mixed
            top_k
            unique
            unique_by_key
            run_length_encode
            runs_reused
            arg_reduce
            segmented_arg_reduce_fixed
            segmented_arg_reduce_offsets
            warp_arg_reduce
            scan_by_key_inclusive
            scan_by_key_exclusive
            reduce_by_key
            by_key_reused
            partition
            partition3
            partition_reversed
            partition3_reversed
            err_mask_width
            err_sub_width
            err_tile_size
            err_block_size
            err_empty_reduce
            err_scan_length
            err_segments
            err_csr
            err_spmv_untouched
            err_vector_size
            err_bitwise_float
            err_histogram_bins
            err_out_of_memory
            err_atomic_slot
            err_write_untouched
            err_sort
            err_segmented_sort
            err_top_k
            err_runs
            err_arg_reduce
            err_by_key
            err_partition
            err_partition_reversed
        }
    };
}

macro_rules! registry {
    ([$b:ident $backend:ident $scale:ident] $($case:ident)*) => {
        vec![$(run_case(stringify!($case), $backend, $scale, cases::$case::<$b>)),*]
    };
}

macro_rules! names {
    ([] $($case:ident)*) => {
        &[$(stringify!($case)),*]
    };
}

/// Every case name, in run order.
pub fn case_names() -> &'static [&'static str] {
    crate::conformance_cases!(names;)
}

/// Runs every conformance case on `backend`.
pub fn run_all<B: RawBackend>(backend: &B, scale: Scale) -> Vec<CaseResult> {
    crate::conformance_cases!(registry; B backend scale)
}

/// A `#[test]` module `$module` with one test per conformance case, each running on a backend
/// that `$ctor` builds afresh. Options, in this order, each optional:
/// `scale = Small` (default `Full`), `ignore = "reason"` (a device test, never skipped
/// silently), `after = path::to::hook` (a `fn(&B) -> Result<(), String>` run after each case,
/// e.g. to fail on hazards the backend reported).
#[macro_export]
macro_rules! instantiate {
    ($module:ident, $ctor:expr
        $(, scale = $scale:ident)?
        $(, ignore = $reason:literal)?
        $(, after = $after:path)? $(,)?) => {
        mod $module {
            #[allow(unused_imports)]
            use super::*;
            $crate::conformance_cases!($crate::__case_tests;
                ($ctor) ($crate::__scale!($($scale)?)) ($crate::__after!($($after)?)) ($($reason)?));
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __scale {
    () => {
        $crate::Scale::Full
    };
    ($scale:ident) => {
        $crate::Scale::$scale
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __after {
    () => {
        $crate::no_hook
    };
    ($after:path) => {
        $after
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __case_tests {
    ([($ctor:expr) ($scale:expr) ($after:expr) ()] $($case:ident)*) => {
        $(
            #[test]
            fn $case() {
                $crate::__case_body!($ctor, $scale, $after, $case);
            }
        )*
    };
    ([($ctor:expr) ($scale:expr) ($after:expr) ($reason:literal)] $($case:ident)*) => {
        $(
            #[test]
            #[ignore = $reason]
            fn $case() {
                $crate::__case_body!($ctor, $scale, $after, $case);
            }
        )*
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __case_body {
    ($ctor:expr, $scale:expr, $after:expr, $case:ident) => {
        let backend = $ctor;
        let result = $crate::run_case(stringify!($case), &backend, $scale, $crate::cases::$case);
        let after = ($after)(&backend);
        assert!(result.passed, "{}", result.detail);
        if let Err(e) = after {
            panic!("{}: {e}", stringify!($case));
        }
    };
}

/// The `after` hook of a backend that needs none.
pub fn no_hook<B>(_: &B) -> Result<(), String> {
    Ok(())
}
