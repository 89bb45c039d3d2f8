#!/usr/bin/env bash
# The benchmark pipeline behind BENCHMARKS.md, in three steps:
#
#   scripts/bench.sh stage [DEST]      here (no GPU needed): builds the CUDA `wavekit` binary, the
#                                      criterion bench and the CUDA test binaries for sm_90 and
#                                      packs them with this script into DEST (default
#                                      <checkout>/.gpu-perf; it must sit in, and be ignored by,
#                                      the checkout the device tool sends).
#   bash .gpu-perf/bench.sh device     on the lent GPU, from that checkout's root: unpacks, runs
#                                      the steps named in STEPS (default: all) and writes the
#                                      results to $OUT (at most 8 files).
#   scripts/bench.sh render DIR        here: BENCHMARKS.md from the results fetched into DIR.
#
# Device steps (STEPS, space separated): smoke (every case once, small sizes), tests (every CUDA test binary, --include-ignored),
# bench (wavekit bench on the GPU, CSV + SVG), ladder (seed 003's ladder), cpu (the CPU
# backend's reduce against the host's read bandwidth, all cores), criterion (cargo bench
# binary, short), ncu (Nsight Compute on the device reduce and scan at 2^28).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mode="${1:-}"

stage() {
  local root dest
  root="$(cd "$here/.." && pwd)"
  dest="${1:-$root/.gpu-perf}"
  export WAVEKIT_CUDA_ARCHS="${WAVEKIT_CUDA_ARCHS:-90}"
  if [ -z "${CUDA_HOME:-}" ] || [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
    "$root/scripts/setup-cuda.sh" >/dev/null
  fi
  cd "$root"
  local target="${CARGO_TARGET_DIR:-$root/target}"
  local work
  work="$(mktemp -d)"
  mkdir -p "$work/bin" "$dest"
  cargo build --release --features cuda --bin wavekit
  cp "$target/release/wavekit" "$work/bin/"
  cargo bench --features cuda --no-run --message-format=json --bench collectives \
    | python3 -c '
import json, shutil, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    exe = m.get("executable")
    if m.get("reason") == "compiler-artifact" and exe and m["target"]["kind"] == ["bench"]:
        shutil.copy2(exe, sys.argv[1])
' "$work/bin/collectives"
  "$root/scripts/gpu-test.sh" "$work/tests" >/dev/null
  strip "$work"/bin/* 2>/dev/null || true
  git -C "$root" log -1 --format='%H %cd' >"$work/commit.txt"
  tar -C "$work" -cJf "$dest/payload.tar.xz" bin tests commit.txt
  cp "$here/bench.sh" "$dest/bench.sh"
  rm -rf "$work"
  du -sh "$dest"/* | sed 's/^/staged: /'
}

device() {
  local out="${OUT:-/tmp/wavekit-bench-out}"
  local wk=/tmp/wavekit-bench
  local steps="${STEPS:-tests bench ladder cpu criterion ncu}"
  local sizes="${SIZES:-2^16,2^18,2^20,2^22,2^24,2^26,2^28}"
  local reps="${REPS:-25}"
  mkdir -p "$out" "$wk"
  tar -C "$wk" -xJf "$(dirname "${BASH_SOURCE[0]}")/payload.tar.xz"
  local bin="$wk/bin"
  {
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "commit: $(cat "$wk/commit.txt")"
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,clocks.max.sm,clocks.max.mem --format=csv
    echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  } >"$out/device.txt" 2>&1
  cat "$out/device.txt"
  local status=0
  for step in $steps; do
    echo "===== $step"
    case "$step" in
      smoke)
        # One pass of every case at a small and an odd size: a kernel that hangs or is wrong
        # shows here in seconds rather than eating the whole run.
        timeout 90 "$bin/wavekit" bench --backend cuda --sizes 2^20,1000003 --reps 3 || status=1
        ;;
      tests)
        for t in "$wk"/tests/bin/*; do
          echo "== $(basename "$t")"
          timeout "${TEST_TIMEOUT:-240}" "$t" --include-ignored 2>&1 | tail -n 40 || status=1
        done >"$out/tests.log" 2>&1
        grep -E '^== |^test result|FAILED|panicked' "$out/tests.log" || true
        ;;
      bench)
        timeout "${BENCH_TIMEOUT:-420}" "$bin/wavekit" bench --backend cuda --sizes "$sizes" \
          --reps "$reps" --csv "$out/bench-cuda.csv" --plot "$out/bench-cuda.svg" \
          ${ONLY:+--only "$ONLY"} || status=1
        ;;
      ladder)
        timeout 240 "$bin/wavekit" bench --ladder --reps "$reps" --csv "$out/ladder.csv" || status=1
        ;;
      cpu)
        timeout 300 "$bin/wavekit" bench --backend cpu --warp 32 --only "reduce" \
          --sizes "${CPU_SIZES:-2^24,2^26,2^28}" --reps 10 --csv "$out/bench-cpu.csv" || status=1
        ;;
      criterion)
        WAVEKIT_BENCH_SIZES="${CRITERION_SIZES:-20}" timeout 300 "$bin/collectives" --bench \
          ${CRITERION_FILTER:-} 2>&1 | grep -vE '^\s*$|Warming|Collecting|Analyzing' \
          >"$out/criterion.txt" || status=1
        tail -n 30 "$out/criterion.txt"
        ;;
      ncu)
        local ncu
        ncu="$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1 || true)"
        if [ -z "$ncu" ]; then
          echo "ncu not found" | tee "$out/ncu.txt"
        else
          # The kernel's third launch (after the check and the warm-up) at 2^28 is profiled.
          local cases=("scan_kernel|scan inclusive sum" "compact_kernel|compact x>0 stable")
          [ -n "${NCU_REDUCE:-}" ] && cases+=("reduce_kernel|reduce max")
          for pair in "${cases[@]}"; do
            timeout 200 "$ncu" --kernel-name "regex:${pair%%|*}" --launch-skip 2 --launch-count 1 \
              --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
              --section WarpStateStats \
              "$bin/wavekit" bench --backend cuda --sizes 2^28 --reps 3 --only "${pair#*|}"
          done >"$out/ncu.txt" 2>&1 || status=1
          grep -E 'reduce_kernel|scan_kernel|compact_kernel|DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Registers Per' "$out/ncu.txt" | head -n 40
        fi
        ;;
      *) echo "unknown step $step"; status=1 ;;
    esac
  done
  return $status
}

case "$mode" in
  stage) shift; stage "$@" ;;
  device) device ;;
  render)
    shift
    python3 "$here/bench_report.py" "$@"
    ;;
  *)
    sed -n '2,20p' "${BASH_SOURCE[0]}"
    exit 2
    ;;
esac
