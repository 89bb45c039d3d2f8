#!/usr/bin/env bash
# The benchmark pipeline behind BENCHMARKS.md, in three steps:
#
#   scripts/bench.sh stage [DEST]      here (no GPU needed): builds the CUDA `wavekit` binary
#                                      (crates/cli), the criterion bench (crates/bench) and the
#                                      CUDA test binaries (package wavekit-tests) for sm_90 and
#                                      packs them with this script and the torch/cupy peers
#                                      script into DEST (default
#                                      <checkout>/.gpu-perf; it must sit in, and be ignored by,
#                                      the checkout the device tool sends): payload.tar.xz (the
#                                      binaries) and the test binaries, needed only by the tests
#                                      and sanitize steps, in four tests-*.tar.xz archives that
#                                      each fit beside the payload in what the device tool
#                                      carries; carry each by name.
#   bash .gpu-perf/bench.sh device     on the lent GPU, from that checkout's root: unpacks, runs
#                                      the steps named in STEPS (default: all) and writes the
#                                      results to $OUT (at most 8 files).
#   scripts/bench.sh render DIR        here: BENCHMARKS.md from the results fetched into DIR.
#
# Device steps (STEPS, space separated): smoke (every case once, small sizes), tests (every
# CUDA test binary, --include-ignored), sanitize (compute-sanitizer memcheck, synccheck,
# initcheck and racecheck over tests/cuda_sanitize.rs, as scripts/gpu-test.sh's runner does),
# bench (wavekit bench on the GPU, CSV + SVG; CUB, cuSPARSE and the copy/read kernels in the
# same process), peers (torch and cupy on the same GPU: sum, cumsum, masked select, bincount,
# CSR SpMV; scripts/bench_peers.py), ladder (seed 003's ladder), cpu (the CPU backend against
# the host's copy/read bandwidth, all cores), criterion (cargo bench binary, short), ncu
# (Nsight Compute on the scan, compaction, SpMV and wide-histogram kernels at 2^28, or the
# kernels, rows and sizes named in NCU_CASES).
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
  cargo build --release -p wavekit-cli --features cuda --bin wavekit
  cp "$target/release/wavekit" "$work/bin/"
  # CRITERION=0 skips the criterion binary (the `criterion` step then has nothing to run).
  [ "${CRITERION:-1}" = 0 ] || cargo bench -p wavekit-bench --features cuda --no-run --message-format=json --bench collectives \
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
  cp "$here/bench_peers.py" "$work/bin/"
  # xz's strongest preset: the binaries share most of their code, which its larger window
  # finds (the CLI and four test binaries: 59 MiB at the default level, 30 MiB here), and the
  # device tool carries at most 64 MiB with the checkout.
  # The test binaries go in archives of their own: with them the payload passed the 64 MiB
  # the device tool carries (102 MiB on 2026-11-29), and all fifteen in one archive still did
  # (77 MB on 2026-12-02). So a bench run carries payload.tar.xz and bench.sh, and a run of the
  # `tests` or `sanitize` steps also some of: tests-conformance (the suite, the CPU comparison,
  # the look-back test: 18 MB on 2026-12-02), tests-cuda (the other cuda_* binaries and the
  # sanitize runner: 13 MB), tests-host (zero_alloc, threads and the fuzz binaries: 21 MB),
  # tests-examples (the examples the runner's tests mode runs: 23 MB). Each fits beside the
  # payload (21 MB); the steps run the binaries that were carried.
  # pack NAME PATH...: the paths (under $work) as $dest/NAME.tar.xz.
  pack() {
    local name="$1"
    shift
    tar -C "$work" -cf - "$@" | xz -T0 -9e >"$dest/$name.tar.xz"
  }
  pack payload bin commit.txt
  rm -f "$dest"/tests*.tar.xz
  local conformance=(conformance_cuda cuda_vs_cpu cuda_lookback) f
  local cuda=(tests/run.sh tests/several-gpus.txt) host=()
  for f in "$work"/tests/bin/*; do
    f="$(basename "$f")"
    case " ${conformance[*]} " in *" $f "*) continue ;; esac
    case "$f" in cuda_*) cuda+=("tests/bin/$f") ;; *) host+=("tests/bin/$f") ;; esac
  done
  pack tests-conformance "${conformance[@]/#/tests/bin/}"
  pack tests-cuda "${cuda[@]}"
  pack tests-host "${host[@]}"
  pack tests-examples tests/examples
  cp "$here/bench.sh" "$dest/bench.sh"
  rm -rf "$work"
  du -sh "$dest"/* | sed 's/^/staged: /'
}

device() {
  local out="${OUT:-/tmp/wavekit-bench-out}"
  local wk=/tmp/wavekit-bench
  local steps="${STEPS:-tests sanitize bench peers ladder cpu criterion ncu}"
  local sizes="${SIZES:-2^16,2^18,2^20,2^22,2^24,2^26,2^28}"
  local reps="${REPS:-25}"
  mkdir -p "$out" "$wk"
  tar -C "$wk" -xJf "$(dirname "${BASH_SOURCE[0]}")/payload.tar.xz"
  local archive
  for archive in "$(dirname "${BASH_SOURCE[0]}")"/tests*.tar.xz; do
    if [ -f "$archive" ]; then tar -C "$wk" -xJf "$archive"; fi
  done
  local bin="$wk/bin"
  # cuSPARSE for the SpMV baseline is opened at run time: the device's toolkit copy, else the
  # one in the image's Python wheels.
  if [ -z "${WAVEKIT_CUSPARSE:-}" ]; then
    WAVEKIT_CUSPARSE="$(find /usr/local /opt -name 'libcusparse.so.12' 2>/dev/null | head -n 1)"
    [ -n "$WAVEKIT_CUSPARSE" ] || WAVEKIT_CUSPARSE="$(python3 -c 'import nvidia, glob, os; print((glob.glob(os.path.join(nvidia.__path__[0], "**", "libcusparse.so.12"), recursive=True) + [""])[0])' 2>/dev/null)"
    export WAVEKIT_CUSPARSE
    [ -n "$WAVEKIT_CUSPARSE" ] && export LD_LIBRARY_PATH="$(dirname "$WAVEKIT_CUSPARSE"):${LD_LIBRARY_PATH:-}"
  fi
  {
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "commit: $(cat "$wk/commit.txt")"
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,clocks.max.sm,clocks.max.mem --format=csv
    echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
    echo "cusparse: ${WAVEKIT_CUSPARSE:-not found}"
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
      tests | sanitize)
        if [ ! -d "$wk/tests/bin" ]; then
          echo "step $step: no test binaries (carry some of .gpu-perf/tests-*.tar.xz as well)"
          status=1
          continue
        fi
        ;;&
      tests)
        for t in "$wk"/tests/bin/*; do
          echo "== $(basename "$t")"
          timeout "${TEST_TIMEOUT:-240}" "$t" --include-ignored 2>&1 | tail -n 40 || status=1
        done >"$out/tests.log" 2>&1
        grep -E '^== |^test result|FAILED|panicked' "$out/tests.log" || true
        ;;
      sanitize)
        OUT="$out" bash "$wk/tests/run.sh" sanitize 2>&1 | tee "$out/sanitize.txt" || status=1
        ;;
      peers)
        # torch and cupy from the device image's python3 (no L2 or launch advantage either way:
        # the same flush, delay kernel and events as the wavekit rows).
        PYTHONUNBUFFERED=1 timeout "${PEERS_TIMEOUT:-300}" python3 "$bin/bench_peers.py" \
          --sizes "${PEER_SIZES:-2^20,2^24,2^28}" --reps "$reps" --csv "$out/peers.csv" \
          2>&1 | tee "$out/peers.txt" || status=1
        ;;
      bench)
        # One process per group (GROUPS, ';'-separated name filters; each row's copy/read and
        # vendor baselines are timed in its process right after it), so that a group that runs
        # long loses only itself; the rows stream to bench.txt as they are measured.
        # A warm machine keeps /tmp between calls: an earlier call's CSVs would join this one's.
        local i=0
        rm -f "$wk"/gpu-*.csv
        IFS=';' read -ra groups <<<"${GROUPS_ONLY:-reduce;scan;compact;spmv;histogram;warp reduce;count_if;segreduce}"
        for only in "${groups[@]}"; do
          echo "===== $only"
          timeout "${BENCH_TIMEOUT:-200}" "$bin/wavekit" bench --backend cuda --sizes "$sizes" \
            --reps "$reps" --only "$only" --csv "$wk/gpu-$i.csv" || status=1
          i=$((i + 1))
        done 2>&1 | tee "$out/bench.txt" | grep -vE '^\[backend'
        awk 'FNR > 1 || NR == 1' "$wk"/gpu-*.csv >"$out/bench-cuda.csv"
        ;;
      ladder)
        timeout 240 "$bin/wavekit" bench --ladder --reps "$reps" --csv "$out/ladder.csv" || status=1
        ;;
      cpu)
        # Issue 13's CPU rows: every reduce op against read, scan, stable compaction and the
        # 256-bin histogram against copy; each invocation measures its own same-run baselines.
        local i=0
        rm -f "$wk"/cpu-*.csv
        IFS=';' read -ra cpu_only <<<"${CPU_ONLY:-reduce;scan;compact x>0 stable;histogram 256 uniform}"
        for only in "${cpu_only[@]}"; do
          timeout "${CPU_TIMEOUT:-150}" "$bin/wavekit" bench --backend cpu --warp 32 --only "$only" \
            --sizes "${CPU_SIZES:-2^24,2^28}" --reps 10 --csv "$wk/cpu-$i.csv" || status=1
          i=$((i + 1))
        done
        awk 'FNR > 1 || NR == 1' "$wk"/cpu-*.csv >"$out/bench-cpu.csv"
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
          # The kernel's third launch (after the check and the warm-up) is profiled. NCU_CASES
          # (';'-separated KERNEL-REGEX|ONLY|SIZE) replaces the default cases, so that a run can
          # profile each miss beside its vendor kernel (CUB's, cuSPARSE's) at the size it misses.
          local cases=("scan_kernel|scan inclusive sum|2^28" "compact_kernel|compact x>0 stable|2^28"
            "spmv_chunk_kernel|spmv regular|2^28" "histogram_slice_kernel|histogram 65536 uniform|2^28")
          [ -n "${NCU_REDUCE:-}" ] && cases+=("reduce_kernel|reduce max|2^28")
          [ -n "${NCU_CASES:-}" ] && IFS=';' read -ra cases <<<"$NCU_CASES"
          for c in "${cases[@]}"; do
            IFS='|' read -r kernel only size <<<"$c"
            echo "===== ncu $kernel, --only \"$only\" --sizes $size"
            # NCU_ARGS, e.g. "--clock-control none", profiles at the clocks the bench runs at.
            # shellcheck disable=SC2086
            timeout 200 "$ncu" ${NCU_ARGS:-} --kernel-name "regex:$kernel" --launch-skip 2 --launch-count 1 \
              --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
              --section WarpStateStats --section LaunchStats \
              "$bin/wavekit" bench --backend cuda --sizes "$size" --reps 3 --only "$only" || status=1
          done >"$out/ncu.txt" 2>&1
          grep -E '_kernel|DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Registers Per' "$out/ncu.txt" | head -n 40
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
