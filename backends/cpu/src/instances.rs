//! Every element type's instance of the CPU backend's generic entry points, compiled here once.
//!
//! Debug builds (opt-level 1 and below) share generic instances between crates: a crate that
//! calls `<CpuBackend as RawBackend>::raw_sort_keys::<f32>` links the one its dependency already
//! compiled instead of compiling its own. Without this table each crate that runs the oracle
//! (the command line, the conformance and fuzz tests, the examples) compiled every instance it
//! called itself, with everything below it: most of `cargo test`'s build on two cores. Release
//! builds (opt-level 3) do not share instances, so the module is compiled in debug builds only.

use crate::CpuBackend;
use wavekit_core::{Backend, RawBackend, bf16, f16};

/// The address of every instance for each element type: taking it makes this crate compile (and
/// export) the instance.
macro_rules! single {
    ($($t:ty),*) => {
        [$(
            <CpuBackend as Backend>::alloc::<$t> as *const () as usize,
            <CpuBackend as Backend>::upload::<$t> as *const () as usize,
            <CpuBackend as Backend>::download::<$t> as *const () as usize,
            <CpuBackend as Backend>::write::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_shfl::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_match::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_syncwarp_transpose::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_tile_shfl::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_tile_reduce::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_warp_reduce::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_warp_reduce_sync::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_warp_scan::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_block_reduce::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_device_reduce::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_device_scan::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_segmented_reduce::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_spmv::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_spmv_planned::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_count_if::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_compact::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_sort_keys::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_top_k::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_partition::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_arg_reduce::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_segmented_arg_reduce::<$t> as *const () as usize,
            <CpuBackend as RawBackend>::raw_warp_arg_reduce::<$t> as *const () as usize,
            pairs!($t; u32, f64),
        )*]
    };
}

/// The key-value entry points for key type `$k` and the value types callers pair most (u32: the
/// indices of argsort and the counts of runs; f64). Other pairs are compiled where they are
/// called, as before: every pair of every key made this crate's build the longest of all.
macro_rules! pairs {
    ($k:ty; $($v:ty),*) => {
        [$(
            <CpuBackend as RawBackend>::raw_sort_pairs::<$k, $v> as *const () as usize,
            <CpuBackend as RawBackend>::raw_segmented_sort::<$k, $v> as *const () as usize,
            <CpuBackend as RawBackend>::raw_runs::<$k, $v> as *const () as usize,
            <CpuBackend as RawBackend>::raw_by_key::<$k, $v> as *const () as usize,
        )*]
        .iter()
        .fold(0, |a, &f| a ^ f)
    };
}

/// The instances' addresses folded into one word. Nothing needs to call it: it is public (and
/// its value depends on every address) so that the table is compiled and never optimised away.
#[doc(hidden)]
pub fn instances() -> usize {
    single!(i32, u32, i64, u64, f32, f64, f16, bf16)
        .iter()
        .fold(0, |a, &f| a ^ f)
}
