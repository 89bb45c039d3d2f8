//! The C ABI of csrc/bench (csrc/bench/bench.h): CUB baselines, same-run baselines, kernel
//! variants and the seed ladder, compiled into the binary with the `cuda` feature.

use std::ffi::{c_char, c_void};

type S = *mut c_void;

unsafe extern "C" {
    pub fn wk_bench_cub_version() -> u32;
    pub fn wk_bench_cub_reduce(
        s: S,
        dtype: u32,
        op: u32,
        input: *const c_void,
        n: u64,
        out: *mut c_void,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_arg_reduce(
        s: S,
        dtype: u32,
        op: u32,
        input: *const c_void,
        n: u64,
        value: *mut c_void,
        index: *mut i64,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_scan(
        s: S,
        dtype: u32,
        op: u32,
        exclusive: u32,
        input: *const c_void,
        out: *mut c_void,
        n: u64,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_segreduce(
        s: S,
        input: *const f32,
        out: *mut f32,
        offsets: *const u32,
        count: u64,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_select_gt(
        s: S,
        dtype: u32,
        input: *const c_void,
        n: u64,
        threshold: f64,
        out: *mut c_void,
        count: *mut i64,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_run_length_encode(
        s: S,
        keys: *const u32,
        keys_out: *mut u32,
        lengths: *mut u32,
        count: *mut i64,
        n: u64,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_reduce_by_key(
        s: S,
        keys: *const u32,
        vals: *const f32,
        keys_out: *mut u32,
        vals_out: *mut f32,
        count: *mut i64,
        n: u64,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_partition_positive(
        s: S,
        dtype: u32,
        input: *const c_void,
        out: *mut c_void,
        count: *mut i64,
        n: u64,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_partition_thirds(
        s: S,
        dtype: u32,
        input: *const c_void,
        out: *mut c_void,
        middle: *mut c_void,
        counts: *mut i64,
        n: u64,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_scan_by_key(
        s: S,
        keys: *const u32,
        vals: *const f32,
        out: *mut f32,
        n: u64,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_unique(
        s: S,
        keys: *const u32,
        keys_out: *mut u32,
        count: *mut i64,
        n: u64,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_sort_keys(
        s: S,
        dtype: u32,
        input: *const c_void,
        out: *mut c_void,
        n: u64,
        descending: u32,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_sort_pairs(
        s: S,
        dtype: u32,
        keys: *const c_void,
        keys_out: *mut c_void,
        vals: *const u32,
        vals_out: *mut u32,
        n: u64,
        descending: u32,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_segmented_sort(
        s: S,
        keys: *const u32,
        out: *mut u32,
        n: u64,
        offsets: *const u32,
        count: u64,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cub_histogram(
        s: S,
        keys: *const u32,
        n: u64,
        bins: u32,
        counts: *mut u32,
        temp: *mut c_void,
        temp_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cusparse_version() -> i32;
    pub fn wk_bench_cusparse_error() -> *const c_char;
    pub fn wk_bench_cusparse_spmv_plan(
        s: S,
        row_offsets: *const u32,
        cols: *const u32,
        vals: *const f32,
        x: *const f32,
        y: *mut f32,
        rows: u64,
        ncols: u64,
        nnz: u64,
        alg: u32,
        plan: *mut *mut c_void,
        buffer_bytes: *mut usize,
    ) -> i32;
    pub fn wk_bench_cusparse_spmv_preprocess(plan: *mut c_void, buffer: *mut c_void) -> i32;
    pub fn wk_bench_cusparse_spmv(plan: *mut c_void, buffer: *mut c_void) -> i32;
    pub fn wk_bench_cusparse_free(plan: *mut c_void);
    pub fn wk_bench_copy(s: S, dst: *mut c_void, src: *const c_void, bytes: u64) -> i32;
    pub fn wk_bench_read(s: S, src: *const c_void, bytes: u64, sink: *mut u32) -> i32;
    pub fn wk_bench_delay(s: S, micros: u32) -> i32;
    pub fn wk_bench_count_atomic(
        s: S,
        input: *const f32,
        n: u64,
        threshold: f32,
        out: *mut u64,
    ) -> i32;
    pub fn wk_bench_reduce_k(
        s: S,
        dtype: u32,
        op: u32,
        input: *const c_void,
        n: u64,
        scratch: *mut c_void,
        scratch_bytes: u64,
        out: *mut c_void,
        k: u32,
    ) -> i32;
    pub fn wk_bench_scan_b(
        s: S,
        dtype: u32,
        exclusive: u32,
        input: *const c_void,
        n: u64,
        scratch: *mut c_void,
        scratch_bytes: u64,
        out: *mut c_void,
        variant: u32,
        tag: u32,
    ) -> i32;
    pub fn wk_bench_histogram_mode(
        s: S,
        keys: *const u32,
        n: u64,
        bins: u32,
        out: *mut u64,
        mode: i32,
    ) -> i32;
    pub fn wk_bench_warp_rounds_count() -> u32;
    pub fn wk_bench_warp_rounds(s: S, input: *const i32, n: u64, out: *mut i32, hw: u32) -> i32;
    pub fn wk_bench_compact_b(
        s: S,
        dtype: u32,
        input: *const c_void,
        n: u64,
        threshold_bits: u64,
        scratch: *mut c_void,
        scratch_bytes: u64,
        out: *mut c_void,
        count: *mut u64,
        stable: u32,
        blocks: u32,
    ) -> i32;
    pub fn wk_bench_partition_b(
        s: S,
        dtype: u32,
        input: *const c_void,
        n: u64,
        threshold_bits: u64,
        scratch: *mut c_void,
        scratch_bytes: u64,
        out: *mut c_void,
        counts: *mut u64,
        blocks: u32,
    ) -> i32;
    pub fn wk_bench_spmv_b(
        s: S,
        row_offsets: *const u32,
        cols: *const u32,
        vals: *const f32,
        x: *const f32,
        rows: u64,
        nnz: u64,
        vector: u32,
        scratch: *mut c_void,
        scratch_bytes: u64,
        y: *mut f32,
        variant: u32,
    ) -> i32;
    pub fn wk_bench_runs_b(
        s: S,
        keys: *const u32,
        n: u64,
        scratch: *mut c_void,
        scratch_bytes: u64,
        keys_out: *mut u32,
        lengths: *mut u32,
        count: *mut u64,
        blocks: u32,
    ) -> i32;
    pub fn wk_bench_reduce_by_key_b(
        s: S,
        keys: *const u32,
        vals: *const f32,
        n: u64,
        scratch: *mut c_void,
        scratch_bytes: u64,
        out: *mut f32,
        keys_out: *mut u32,
        count: *mut u64,
        blocks: u32,
    ) -> i32;
    pub fn wk_bench_ladder(
        s: S,
        step: u32,
        input: *const f32,
        n: u64,
        d_y: *mut f32,
        result: *mut f32,
    ) -> i32;
    pub fn wk_bench_ladder_steps() -> u32;
    pub fn wk_bench_ladder_name(step: u32) -> *const c_char;
}
