#!/usr/bin/env bash
# Staged run, call 1: issue #25's GPU rows (and the README's), top-k's rows.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
R=/tmp/res1; rm -rf $R; mkdir -p $R
finish() { tar -C /tmp -czf "$OUT/call1.tar.gz" res1; }
trap finish EXIT
G="scan inclusive sum f32;scan inclusive sum i32;scan inclusive sum i64;scan exclusive sum f32;scan exclusive sum i32;scan exclusive sum i64;compact x>0 stable f32;compact x>0 unordered f32;spmv regular 8..64 f32;spmv power-law f32;reduce sum f32;reduce sum i32;reduce sum f64;reduce min f32;reduce min i32;reduce min f64;reduce max f32;reduce max i32;reduce max f64;histogram 65536 uniform;histogram 65536 skewed;histogram 256 skewed u32;histogram 256 uniform vs CUB;histogram 256 skewed vs CUB;warp reduce sum rounds;count_if x<0;segreduce;top_k 1;top_k 1024"
OUT=$R SIZES=2^20,2^24,2^28 REPS=15 STEPS="bench" GROUPS_ONLY="$G" BENCH_TIMEOUT=80 timeout 560 bash "$here/bench.sh" device
