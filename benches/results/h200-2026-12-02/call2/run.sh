#!/usr/bin/env bash
# Staged run, call 2: issue #23's GPU rows, then the torch / cupy peers.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
R=/tmp/res2; rm -rf $R; mkdir -p $R
finish() { tar -C /tmp -czf "$OUT/call2.tar.gz" res2; }
trap finish EXIT
G="reduce_by_key runs of 8 f32;scan_by_key runs of 8 f32;run_length_encode runs of 8 u32;unique runs of 8 u32;partition f32;partition f64;argmin f32;argmax f64;argmax f16;argmax bf16;reduce sum f16;reduce sum bf16;reduce min f16;reduce max f16;reduce max bf16;scan inclusive sum f16;scan inclusive sum bf16"
OUT=$R SIZES=2^20,2^24,2^28 REPS=15 STEPS="bench" GROUPS_ONLY="$G" BENCH_TIMEOUT=60 timeout 330 bash "$here/bench.sh" device
OUT=$R/p REPS=15 STEPS="peers" PEERS_TIMEOUT=220 timeout 230 bash "$here/bench.sh" device
