//! What each launcher's memory arguments reach, as launchers.def documents it: the table the
//! checked launch methods are generated from (checked.rs). launchers.def says it in prose; here
//! it is a Rust expression a call's arguments are checked against, so that no launch through
//! wavekit-gpu's `Launch` passes memory shorter than its launcher touches.
//!
//! Each expression is the bytes argument `param` must hold, over the launcher's integer
//! parameters (widened to `u128`, so no product overflows) and its host slices, with:
//! `size(d)` the bytes of an element of dtype code `d` (8, the largest, for a code no type
//! has), `acc(d)` of its accumulator type (4 for f16 / bf16), `ceil(a, b)` (a for b = 0),
//! `pow(a, b)` (saturating), `sum(s, k)` of the first k values of host slice `s`, and
//! wavekit-core's `REDUCE_TILE` and `SCAN_TILE`. A parameter written `name?` may be NULL (the
//! launcher then does not touch it); any may be NULL where it reaches 0 bytes.

/// The kind of memory a launcher's `scratch` must be, beyond its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scratch {
    /// None, or any of the backend's scratch (the launcher prepares what it needs).
    Any,
    /// The device reduce's own, whose tickets start at zero and which every such call leaves
    /// zero (device_reduce.cu); arg_reduce keeps its ticket there too (arg_reduce.cu).
    Reduce,
    /// The launcher's own tagged scratch, the tag and the dtype parameter named here agreeing
    /// with what it holds (launchers.def, `device_scan_tagged`): the handle supplies `tag`.
    Tagged(&'static str),
}

/// One launcher's entry.
#[derive(Clone, Copy, Debug)]
pub(super) struct Launcher {
    pub(super) name: &'static str,
    /// `(param, bytes)` for every pointer parameter but the stream and the status word.
    pub(super) reach: &'static [(&'static str, &'static str)],
    pub(super) scratch: Scratch,
    /// Why its method stays `unsafe`: what launchers.def asks of data the launcher reads from
    /// device memory, which the host cannot check without reading it back.
    pub(super) unchecked: Option<&'static str>,
}

const fn l(name: &'static str, reach: &'static [(&'static str, &'static str)]) -> Launcher {
    Launcher {
        name,
        reach,
        scratch: Scratch::Any,
        unchecked: None,
    }
}

const fn reduce(name: &'static str, reach: &'static [(&'static str, &'static str)]) -> Launcher {
    Launcher {
        scratch: Scratch::Reduce,
        ..l(name, reach)
    }
}

const fn tagged(
    name: &'static str,
    dtype: &'static str,
    reach: &'static [(&'static str, &'static str)],
) -> Launcher {
    Launcher {
        scratch: Scratch::Tagged(dtype),
        ..l(name, reach)
    }
}

const fn unchecked(
    name: &'static str,
    why: &'static str,
    reach: &'static [(&'static str, &'static str)],
) -> Launcher {
    Launcher {
        unchecked: Some(why),
        ..l(name, reach)
    }
}

const E: &str = "n * size(dtype)";
const THREADS: &str = "threads * size(dtype)";
const KEYS: &str = "n * size(key_dtype)";
const VALUES: &str = "n * value_size";
const SCRATCH: &str = "scratch_bytes";
const ONE: &str = "size(dtype)";
const COUNT: &str = "8";
const OFFSETS: &str = "(count + 1) * 4";
const ROWS: &str = "(rows + 1) * 4";

/// Every launcher of launchers.def, in its order.
pub(super) const LAUNCHERS: &[Launcher] = &[
    l("vote", &[("preds", "threads"), ("out", "threads * 8")]),
    l("shfl", &[("vals", THREADS), ("out", THREADS)]),
    l(
        "match",
        &[
            ("vals", THREADS),
            ("out_mask", "threads * 8"),
            ("out_pred", "threads"),
        ],
    ),
    l("activemask", &[("out", "threads * 8")]),
    l("syncwarp_transpose", &[("vals", THREADS), ("out", THREADS)]),
    l("tile_shfl", &[("vals", THREADS), ("out", THREADS)]),
    l("tile_vote", &[("preds", "threads"), ("out", "threads * 8")]),
    l("tile_reduce", &[("vals", THREADS), ("out", THREADS)]),
    l(
        "warp_reduce",
        &[("vals", E), ("out", "ceil(n, width) * size(dtype)")],
    ),
    l("warp_scan", &[("vals", E), ("out", E)]),
    l(
        "block_reduce",
        &[("in", E), ("out", "ceil(n, block) * size(dtype)")],
    ),
    reduce(
        "device_reduce",
        &[("in", E), ("scratch", SCRATCH), ("out", ONE)],
    ),
    l(
        "device_scan",
        &[("in", E), ("scratch", SCRATCH), ("out", E)],
    ),
    l(
        "segmented_reduce",
        &[
            ("in", E),
            ("offsets?", OFFSETS),
            ("out", "count * size(dtype)"),
        ],
    ),
    l(
        "spmv",
        &[
            ("row_offsets", ROWS),
            ("cols", "nnz * 4"),
            ("vals", "nnz * size(dtype)"),
            ("x", "x_len * size(dtype)"),
            ("y", "rows * size(dtype)"),
        ],
    ),
    l(
        "atomic_agg_inc",
        &[
            ("slots", "n * 4"),
            ("counters", "ncounters * 4"),
            ("olds", "n * 4"),
        ],
    ),
    l(
        "count_if",
        &[("in", E), ("scratch", SCRATCH), ("out_count", COUNT)],
    ),
    l(
        "compact",
        &[
            ("in", E),
            ("scratch", SCRATCH),
            ("out", E),
            ("out_count", COUNT),
        ],
    ),
    l("histogram", &[("keys", "n * 4"), ("out", "(bins + 1) * 8")]),
    unchecked(
        "look_back_probe",
        "`flags` holds 1 or 2 for every tile and 2 for tile 0: the look-back walks back from \
         tile `tiles` until it meets an inclusive prefix (2), so without one it reads before the \
         statuses",
        &[
            ("flags", "tiles * 4"),
            ("values", "tiles * size(dtype)"),
            ("scratch", SCRATCH),
            ("out", ONE),
        ],
    ),
    l(
        "spmv_balanced",
        &[
            ("row_offsets", ROWS),
            ("cols", "nnz * 4"),
            ("vals", "nnz * size(dtype)"),
            ("x", "x_len * size(dtype)"),
            ("scratch", SCRATCH),
            ("y", "rows * size(dtype)"),
        ],
    ),
    l("warp_reduce_sync", &[("vals", THREADS), ("out", THREADS)]),
    l(
        "sort",
        &[
            ("keys", KEYS),
            ("vals?", VALUES),
            ("scratch", SCRATCH),
            ("keys_out?", KEYS),
            ("vals_out?", VALUES),
        ],
    ),
    unchecked(
        "segmented_sort",
        "the segments lie in the keys: `offsets` (when not NULL) rise and end at most at `n`, \
         or, without them, `count` is at most ceil(n / seg_size); the warp path takes every \
         segment's keys at `offsets[s] + lane` without clamping them, and the size classes' \
         lists in the scratch hold as many segments as lengths that sum to at most `n` make",
        &[
            ("keys", KEYS),
            ("vals?", VALUES),
            ("offsets?", OFFSETS),
            ("scratch", SCRATCH),
            ("keys_out", KEYS),
            ("vals_out?", VALUES),
        ],
    ),
    l(
        "top_k",
        &[
            ("in", E),
            ("scratch", SCRATCH),
            ("values_out", "k * size(dtype)"),
            ("indices_out?", "k * 4"),
        ],
    ),
    l(
        "runs",
        &[
            ("keys", KEYS),
            ("vals?", VALUES),
            ("scratch", SCRATCH),
            ("keys_out?", KEYS),
            ("vals_out?", VALUES),
            ("lengths?", "n * 4"),
            ("count", COUNT),
        ],
    ),
    reduce(
        "arg_reduce",
        &[
            ("in", E),
            ("scratch", SCRATCH),
            ("value_out", ONE),
            ("index_out", COUNT),
        ],
    ),
    l(
        "segmented_arg_reduce",
        &[
            ("in", E),
            ("offsets?", OFFSETS),
            ("values_out", "count * size(dtype)"),
            ("indices_out", "count * 4"),
        ],
    ),
    l(
        "warp_arg_reduce",
        &[("vals", E), ("values_out", E), ("lanes_out", "n * 4")],
    ),
    l(
        "by_key",
        &[
            ("keys", KEYS),
            ("vals", E),
            ("scratch", SCRATCH),
            ("out", E),
            ("keys_out?", KEYS),
            ("count?", COUNT),
        ],
    ),
    l(
        "partition",
        &[
            ("in", E),
            ("scratch", SCRATCH),
            ("out", E),
            ("counts", "(ways.max(2) - 1) * 8"),
        ],
    ),
    l(
        "partition_reversed",
        &[
            ("in", E),
            ("scratch", SCRATCH),
            ("out", E),
            ("second_out?", E),
            ("counts", "(ways.max(2) - 1) * 8"),
        ],
    ),
    reduce(
        "device_reduce_partials",
        &[
            ("in", E),
            ("scratch", SCRATCH),
            (
                "out",
                "ceil(n, pow(REDUCE_TILE, levels)).max(1) * acc(dtype)",
            ),
        ],
    ),
    l("reduce_rows", &[("rows", "m * r * size(dtype)")]),
    l(
        "merge_runs",
        &[
            ("keys", "sum(run_lens, runs) * size(key_dtype)"),
            ("vals?", "sum(run_lens, runs) * value_size"),
            ("run_lens", "runs * 8"),
            ("scratch", SCRATCH),
            ("keys_out", "sum(run_lens, runs) * size(key_dtype)"),
            ("vals_out?", "sum(run_lens, runs) * value_size"),
        ],
    ),
    unchecked(
        "peer_all_reduce",
        "every address in `peers` is a live buffer of `n` elements of `dtype` on a GPU this one \
         can address (the flag buffers `PEER_FLAG_WORDS` words, zeroed before the first call), \
         used as launchers.def says until every rank's launch is done",
        &[("peers", "(3 * ranks + 2) * 8")],
    ),
    l(
        "spmv_plan",
        &[("row_offsets", ROWS), ("plan", "plan_bytes")],
    ),
    l(
        "spmv_planned",
        &[
            ("row_offsets", ROWS),
            ("cols", "nnz * 4"),
            ("vals", "nnz * size(dtype)"),
            ("x", "x_len * size(dtype)"),
            ("plan", "plan_bytes"),
            ("y", "rows * size(dtype)"),
        ],
    ),
    l(
        "device_scan_aggregates",
        &[("in", E), ("out", "ceil(n, SCAN_TILE) * size(dtype)")],
    ),
    l(
        "device_scan_carried",
        &[("in", E), ("carry", ONE), ("scratch", SCRATCH), ("out", E)],
    ),
    l("fold_left", &[("in", E), ("out", ONE)]),
    tagged(
        "device_scan_tagged",
        "dtype",
        &[("in", E), ("scratch", SCRATCH), ("out", E)],
    ),
    tagged(
        "compact_tagged",
        "dtype",
        &[
            ("in", E),
            ("scratch", SCRATCH),
            ("out", E),
            ("out_count", COUNT),
        ],
    ),
    tagged(
        "runs_tagged",
        "key_dtype",
        &[
            ("keys", KEYS),
            ("vals?", VALUES),
            ("scratch", SCRATCH),
            ("keys_out?", KEYS),
            ("vals_out?", VALUES),
            ("lengths?", "n * 4"),
            ("count", COUNT),
        ],
    ),
    tagged(
        "by_key_tagged",
        "dtype",
        &[
            ("keys", KEYS),
            ("vals", E),
            ("scratch", SCRATCH),
            ("out", E),
            ("keys_out?", KEYS),
            ("count?", COUNT),
        ],
    ),
    reduce(
        "device_reduce_acc",
        &[("in", "n * acc(dtype)"), ("scratch", SCRATCH), ("out", ONE)],
    ),
];
