#!/usr/bin/env bash
# Staged run, call 4: every missed GPU row twice more (each its own process), then Nsight
# Compute on the misses, ours and the vendor's kernel, at the clocks the bench runs at.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
R=/tmp/res4; rm -rf $R; mkdir -p $R
finish() { tar -C /tmp -czf "$OUT/call4.tar.gz" res4; }
trap finish EXIT
mkdir -p /tmp/wavekit-bench && tar -C /tmp/wavekit-bench -xJf "$here/payload.tar.xz"
B=/tmp/wavekit-bench/bin/wavekit
export WAVEKIT_CUSPARSE=/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcusparse.so.12
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
start=$(date +%s)
for round in 1 2; do
  for row in "compact x>0 stable f32" "spmv regular 8..64 f32" "spmv power-law f32" "partition f64" "argmax f64" "scan inclusive sum f16" "scan inclusive sum bf16" "top_k 1024"; do
    [ $(( $(date +%s) - start )) -lt 230 ] || break 2
    echo "== round $round: $row"
    timeout 60 $B bench --backend cuda --sizes 2^20,2^24,2^28 --reps 15 --only "$row" 2>/dev/null | grep -E 'cuda:0 \(|refused' | grep -v '^\['
  done
done > $R/repeat.txt 2>&1
cat $R/repeat.txt
OUT=$R NCU_ARGS="--clock-control none" NCU_CASES="compact_kernel|compact x>0 stable f32|2^28;DeviceSelectSweepKernel|compact x>0 stable f32|2^28;scan_pairs_kernel|scan inclusive sum f16|2^28;spmv_chunk_kernel|spmv regular 8..64 f32|2^24;csrmv_v3_kernel|spmv regular 8..64 f32|2^24;spmv_chunk_kernel|spmv power-law f32|2^20;csrmv_v3_kernel|spmv power-law f32|2^20;partition_kernel|partition f64|2^28;span_count_kernel|partition f64|2^28;DeviceSelectSweepKernel|partition f64|2^28;arg_partials_kernel|argmax f64|2^28;DeviceReduceKernel|argmax f64|2^28;select_pass|top_k 1024|2^28" STEPS=ncu timeout 300 bash "$here/bench.sh" device
