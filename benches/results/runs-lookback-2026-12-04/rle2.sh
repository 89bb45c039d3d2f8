#!/usr/bin/env bash
# #23, 2026-12-04 (third session): run_length_encode with its two look-backs in two warps, and
# two or four tiles a block; tests first, then the runs rows and shapes, the 16-bit scans, and
# torch's unique_consecutive / half cumsum in the same call.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
O=${OUT:-/tmp/out}; mkdir -p $O
mkdir -p /tmp/wavekit-bench && tar -C /tmp/wavekit-bench -xJf "$here/payload.tar.xz" && tar -C /tmp/wavekit-bench -xJf "$here/tests-conformance.tar.xz"
T=/tmp/wavekit-bench/tests/bin
B=/tmp/wavekit-bench/bin/wavekit
{ date -u; cat /tmp/wavekit-bench/bin/commit.txt 2>/dev/null; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; } > $O/device.txt 2>&1
if [ -z "${SKIP_TESTS:-}" ]; then
{ for t in conformance_cuda cuda_vs_cpu cuda_lookback; do echo "== $t"; timeout ${TEST_TIMEOUT:-150} $T/$t --include-ignored ${FILTER:-} 2>&1 | grep -E "^test result|FAILED|panicked|^test .*(runs|unique|run_length).* ok$"; done; } > $O/tests.txt 2>&1
cat $O/tests.txt
fi
IFS=';' read -ra rows <<<"${ROWS:-run_length_encode runs of 8;unique runs of 8;scan inclusive sum bf16;scan inclusive sum f16}"
for row in "${rows[@]}"; do
  echo "== $row"
  timeout ${BENCH_TIMEOUT:-120} $B bench --backend cuda --sizes ${SIZES:-2^20,2^24,2^28} --reps 15 --only "$row" 2>/dev/null | grep -E 'cuda:0 \(|refused|cub|CUB|copy' | grep -v '^\['
done > $O/bench.txt 2>&1
cat $O/bench.txt
PYTHONUNBUFFERED=1 timeout ${PEERS_TIMEOUT:-150} python3 /tmp/wavekit-bench/bin/bench_peers.py --only "${PEERS:-run_length_encode;half cumsum}" --sizes ${SIZES:-2^20,2^24,2^28} --reps 15 --csv $O/peers.csv > $O/peers.txt 2>&1
cat $O/peers.txt
