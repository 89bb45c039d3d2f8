#!/usr/bin/env bash
# Issue 13 GPU run (helper gpuperf): tests, then bench rows, on the lent GPU.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/out}"; mkdir -p "$out"
{ date -u '+date: %Y-%m-%d %H:%M UTC'; cat "$here/commit.txt";
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.max.sm,clocks.max.mem --format=csv,noheader; } | tee "$out/device.txt"
lib="$(find /usr/local /opt -name 'libcusparse.so.12' 2>/dev/null | head -n 1)"
[ -z "$lib" ] && lib="$(python3 -c 'import nvidia,os,glob;print((glob.glob(os.path.join(nvidia.__path__[0],"**","libcusparse.so.12"),recursive=True)+[""])[0])' 2>/dev/null)"
echo "cusparse: $lib" | tee -a "$out/device.txt"
export LD_LIBRARY_PATH="$(dirname "${lib:-/x/x}"):${LD_LIBRARY_PATH:-}"
export WAVEKIT_CUSPARSE="$lib"
if [ "${TESTS:-1}" = 1 ]; then
  for t in "$here"/tests/*; do
    echo "== $(basename "$t")"; timeout 120 "$t" --include-ignored ${FILTER:-} 2>&1 | tail -n 25
  done > "$out/tests.log" 2>&1
  grep -E '^== |^test result|FAILED|panicked' "$out/tests.log" | head -40
fi
B="$here/wavekit"
SIZES="${SIZES:-2^20,2^24,2^28}"
IFS=';' read -ra list <<< "${ONLY:-spmv;histogram 65536;histogram 256 uniform vs CUB;histogram 256 skewed vs CUB;compact x>0 stable;reduce min;reduce max;warp reduce;scan inclusive sum@2^28}"
for item in "${list[@]}"; do
  only="${item%@*}"; sizes="$SIZES"; [ "$item" != "$only" ] && sizes="${item#*@}"
  echo "===== $only ($sizes)"
  timeout "${BENCH_TIMEOUT:-150}" "$B" bench --backend cuda --sizes "$sizes" --reps "${REPS:-15}" --only "$only" --csv "/tmp/b-$(echo "$only" | tr -c 'a-zA-Z0-9' '_').csv" 2>&1 | grep -v '^\s*$'
done 2>&1 | tee "$out/bench.txt" | grep -vE '^(median|backend)'
first=1; for f in /tmp/b-*.csv; do [ -f "$f" ] || continue; if [ $first = 1 ]; then cat "$f"; first=0; else tail -n +2 "$f"; fi; done > "$out/bench.csv"
