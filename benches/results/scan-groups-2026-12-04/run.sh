#!/usr/bin/env bash
# #23, 2026-12-04: the grouped 16-bit scan on the lent GPU: its conformance and CPU-comparison
# tests, then the two 16-bit scan rows (and their copy) at 2^20 / 2^24 / 2^28, then torch's
# half cumsum at 2^28.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
O=${OUT:-/tmp/out}; mkdir -p $O
R=/tmp/resg; rm -rf $R; mkdir -p $R
tar -C /tmp -xJf "$here/payload.tar.xz" 2>/dev/null || true
mkdir -p /tmp/wavekit-bench && tar -C /tmp/wavekit-bench -xJf "$here/payload.tar.xz" && tar -C /tmp/wavekit-bench -xJf "$here/tests-conformance.tar.xz"
T=/tmp/wavekit-bench/tests/bin
{ date -u; for t in conformance_cuda cuda_vs_cpu cuda_lookback; do echo "== $t"; timeout ${TEST_TIMEOUT:-150} $T/$t --include-ignored ${FILTER:-} 2>&1 | grep -E "^test result|FAILED|panicked|^test .*(scan|half|groups).* ok$"; echo "rc=$?"; done; } > $O/tests.txt 2>&1
cat $O/tests.txt
G="scan inclusive sum f16;scan inclusive sum bf16;scan exclusive sum f16"
OUT=$R SIZES=2^20,2^24,2^28 REPS=15 STEPS="bench" GROUPS_ONLY="$G" BENCH_TIMEOUT=60 timeout 200 bash "$here/bench.sh" device
cp $R/bench.txt $O/bench.txt 2>/dev/null; cp $R/*.csv $O/ 2>/dev/null; cp $R/device.txt $O/device.txt
PYTHONUNBUFFERED=1 timeout 120 python3 /tmp/wavekit-bench/bin/bench_peers.py --only "half cumsum" --sizes 2^28 --reps 15 --csv $O/peers.csv > $O/peers.txt 2>&1
cat $O/bench.txt $O/peers.txt
