//! `wavekit check --cooperative`: a cooperative launch, every block of the grid co-resident on
//! the executor, so that `grid.sync()` is a barrier across the grid. Its kernels (tests/plain/
//! kernels/grid_sync.cu) compute what another block's threads read after the barrier, so the
//! outputs checked here are what they are only if every block reached it before any went on;
//! a thread or block that does not reach it is reported as a divergent `__syncthreads` is.

#![cfg(feature = "simt")]

mod common;
use common::{at, check, check_stdout, line_of};

const F: &str = "kernels/grid_sync.cu";

#[test]
fn a_two_phase_grid_sum_reads_every_blocks_partial_after_the_barrier() {
    // 4 blocks of 64 ones: each partial is 64, and block 0's total after the barrier 256
    // (64 had it read the partials before blocks 1 to 3 wrote theirs, as at 64 lanes the blocks
    // take turns in order).
    let (code, t) = check(
        F,
        &[
            "--kernel",
            "grid_sum",
            "--cooperative",
            "--grid",
            "4",
            "--block",
            "64",
            "--arg",
            "0=1",
            "--show",
            "5",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    for lanes in [32, 64] {
        let w = at(&t, "grid_sum", lanes);
        assert!(w.contains("cooperative launch: no hazard"), "{t}");
        assert!(w.contains("out arg 1: [64, 64, 64, 64, 0, ...]"), "{t}");
        assert!(w.contains("out arg 2: [256, 0, 0, 0, 0, ...]"), "{t}");
    }
    // Every schedule: blocks (and their threads) in reverse order, and seeded random orders.
    for schedule in ["reverse", "forward", "random"] {
        let (code, t) = check(
            F,
            &[
                "--kernel",
                "grid_sum",
                "--cooperative",
                "--grid",
                "3",
                "--block",
                "128",
                "--arg",
                "0=2",
                "--show",
                "1",
                "--schedule",
                schedule,
                "--seed",
                "7",
            ],
        );
        assert_eq!(code, Some(0), "{schedule}: {t}");
        assert_eq!(t.matches("out arg 2: [768, ...]").count(), 2, "{t}");
    }
}

#[test]
fn values_move_between_blocks_across_repeated_barriers() {
    // 2 blocks of 64: thread r ends with r + 5 modulo 128; threads 59..63 read block 1's.
    let (code, t) = check(
        F,
        &[
            "--kernel",
            "rotate",
            "--cooperative",
            "--grid",
            "2",
            "--block",
            "64",
            "--arg",
            "1=5",
            "--show",
            "128",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    let want: Vec<String> = (0..128).map(|r| ((r + 5) % 128).to_string()).collect();
    let line = format!("out arg 0: [{}]", want.join(", "));
    assert_eq!(t.matches(&line).count(), 2, "{line}\n{t}");
}

#[test]
fn shared_memory_stays_each_blocks_and_the_grid_barrier_orders_it() {
    // Thread 0 writes the block's value before the barrier, every thread reads it after: no
    // race, and each block its own (is_valid() is true in a cooperative launch: + 1).
    let (code, t) = check(
        F,
        &[
            "--kernel",
            "block_value",
            "--cooperative",
            "--grid",
            "3",
            "--block",
            "32",
            "--show",
            "96",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    let want: Vec<String> = (0..96)
        .map(|r| (100 * (r / 32 + 1) + 1).to_string())
        .collect();
    let line = format!("out arg 0: [{}]", want.join(", "));
    assert_eq!(t.matches(&line).count(), 2, "{line}\n{t}");
}

#[test]
fn a_grid_sync_only_some_threads_reach_is_a_divergent_barrier() {
    let (code, t) = check(
        F,
        &[
            "--kernel",
            "sync_some_threads",
            "--cooperative",
            "--grid",
            "2",
            "--block",
            "64",
        ],
    );
    assert_eq!(code, Some(1), "{t}");
    let line = line_of(F, "// only threads 0-15");
    for lanes in [32, 64] {
        let w = at(&t, "sync_some_threads", lanes);
        let r = w
            .lines()
            .find(|l| l.contains("BarrierDivergence") && l.contains("block (1,0,0)"))
            .unwrap_or_else(|| panic!("no report for block 1 at {lanes} lanes:\n{t}"));
        assert!(
            r.contains("not every thread of the block reached this grid.sync()"),
            "{r}"
        );
        assert!(
            r.contains("threads 0-15 wait at ") && r.contains(&line),
            "{r}"
        );
        assert!(r.contains("threads 16-63 exited"), "{r}");
        // One report a block, nothing else.
        assert_eq!(w.matches("BarrierDivergence in").count(), 2, "{w}");
        assert!(w.contains(": 2 hazards"), "{w}");
    }
}

#[test]
fn a_grid_sync_only_some_blocks_reach_is_reported_in_a_block_that_missed_it() {
    let (code, t) = check(
        F,
        &[
            "--kernel",
            "sync_some_blocks",
            "--cooperative",
            "--grid",
            "3",
            "--block",
            "32",
        ],
    );
    assert_eq!(code, Some(1), "{t}");
    let line = line_of(F, "// only block 0");
    for lanes in [32, 64] {
        let w = at(&t, "sync_some_blocks", lanes);
        let r = w
            .lines()
            .find(|l| l.contains("BarrierDivergence"))
            .unwrap_or_else(|| panic!("no report at {lanes} lanes:\n{t}"));
        assert!(r.contains("block (1,0,0)"), "{r}");
        assert!(
            r.contains(
                "not every block of the grid reached this grid.sync(): blocks (0,0,0) wait at "
            ),
            "{r}"
        );
        assert!(
            r.contains(&format!("{line}; blocks (1,0,0), (2,0,0) exited")),
            "{r}"
        );
        assert!(w.contains(": 1 hazard"), "{w}");
    }
}

#[test]
fn a_cooperative_launch_past_the_limit_is_refused_naming_it() {
    // 17 blocks of 1024 threads: 17408, past the 16384 threads the executor keeps co-resident.
    let (code, out, err) = check_stdout(
        F,
        &[
            "--kernel",
            "grid_sum",
            "--cooperative",
            "--grid",
            "17",
            "--block",
            "1024",
        ],
    );
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("the threads of a cooperative launch")
            && err.contains("is 17408, outside 1..=16384"),
        "{err}"
    );
    // At the limit it runs (16 blocks of 1024: the reduction's `sums` holds 256, so rotate).
    let (code, t) = check(
        F,
        &[
            "--kernel",
            "rotate",
            "--cooperative",
            "--grid",
            "16",
            "--block",
            "1024",
            "--arg",
            "1=1",
            "--show",
            "2",
            "--warp",
            "64",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("out arg 0: [1, 2, ...]"), "{t}");
}

#[test]
fn without_cooperative_grid_sync_is_refused_at_its_line_naming_the_flag() {
    let (code, t) = check(F, &["--kernel", "grid_sum", "--grid", "4", "--block", "64"]);
    assert_eq!(code, Some(1), "{t}");
    assert!(
        t.contains(&format!("{}: `grid.sync()`", line_of(F, "  grid.sync();"))),
        "{t}"
    );
    assert!(t.contains("pass --cooperative"), "{t}");
    // `cg::sync(grid)` is the same barrier.
    let (code, t) = check(F, &["--kernel", "rotate", "--block", "64"]);
    assert_eq!(code, Some(1), "{t}");
    assert!(
        t.contains(&format!("{}: `grid.sync()`", line_of(F, "cg::sync(grid)"))),
        "{t}"
    );
    assert!(t.contains("--cooperative"), "{t}");
}

#[test]
fn a_grid_sync_the_reader_cannot_see_needs_cooperative_to_build() {
    // Through a macro: the build stops at the header's assertion, naming the flag.
    let (code, t) = check(F, &["--kernel", "through_macro", "--block", "32"]);
    assert_eq!(code, Some(1), "{t}");
    assert!(t.contains("does not build for the executor"), "{t}");
    assert!(
        t.contains(&format!(
            "{}:3:   required from here",
            line_of(F, "GRID_BARRIER(grid);")
        )) && t.contains("pass --cooperative to wavekit check"),
        "{t}"
    );
    // With it: thread 0 reads the last thread's value after the barrier.
    let (code, t) = check(
        F,
        &[
            "--kernel",
            "through_macro",
            "--cooperative",
            "--grid",
            "2",
            "--block",
            "32",
            "--show",
            "2",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(t.matches("out arg 0: [63, 1, ...]").count(), 2, "{t}");
}

#[test]
fn a_grid_barrier_in_a_launch_that_is_not_cooperative_abandons_it() {
    // The executor's own barrier, called from a file written against csrc/wavekit.h: the
    // reader refuses nothing there, so only the launch can tell.
    let d = "kernels/grid_sync_dialect.cu";
    let (code, t) = check(
        d,
        &["--kernel", "next_block", "--grid", "3", "--block", "32"],
    );
    assert_eq!(code, Some(1), "{t}");
    for lanes in [32, 64] {
        let w = at(&t, "next_block", lanes);
        assert!(w.contains(": 1 hazard"), "{w}");
        assert!(
            w.contains("BarrierDivergence in next_block")
                && w.contains("grid.sync() at ")
                && w.contains(&line_of(d, "// the barrier"))
                && w.contains("in a launch that is not cooperative"),
            "{w}"
        );
        assert!(
            w.contains("launch abandoned: ") && w.contains("not cooperative"),
            "{w}"
        );
    }
    // Cooperative: block b reads block b + 1's values (modulo 3), written before the barrier.
    let (code, t) = check(
        d,
        &[
            "--kernel",
            "next_block",
            "--cooperative",
            "--grid",
            "3",
            "--block",
            "32",
            "--show",
            "96",
        ],
    );
    assert_eq!(code, Some(0), "{t}");
    let want: Vec<&str> = ["2", "3", "1"]
        .iter()
        .flat_map(|v| std::iter::repeat_n(*v, 32))
        .collect();
    let line = format!("out arg 0: [{}]", want.join(", "));
    assert_eq!(t.matches(&line).count(), 2, "{line}\n{t}");
}
