#!/usr/bin/env bash
# Builds the CUDA test binaries here (no GPU needed) and stages them, with a runner, in a folder
# that the device tool carries to the lent GPU; prints the exact device invocation.
#
#   scripts/gpu-test.sh [DEST]     DEST defaults to <repo>/.gpu (git-ignored). The device tool
#                                  sends the session's main checkout, so stage into that
#                                  checkout's .gpu when working from another worktree.
# On the device, in the checkout root:
#   bash .gpu/run.sh test          every test binary with --include-ignored (log: $OUT/tests.log)
#   bash .gpu/run.sh sanitize      tests/cuda_sanitize.rs under compute-sanitizer memcheck,
#                                  synccheck and initcheck, tests/cuda_probes.rs under
#                                  memcheck, then racecheck (much slower per
#                                  launch) over JOBS parallel processes (logs: $OUT/sanitize-*.log)
#   bash .gpu/run.sh racecheck     racecheck alone, the tests split over JOBS processes
#   bash .gpu/run.sh streams       memcheck, then racecheck (TOOLS picks), over the interop tests
#                                  (tests/cuda_interop.rs) and the CUDA fuzz families of two
#                                  streams sharing buffers and of queued kernel-time errors
#                                  (tests/fuzz_streams.rs, tests/fuzz_queued.rs; logs:
#                                  $OUT/streams-*.log)
#   bash .gpu/run.sh all           test and sanitize
#   bash .gpu/run.sh examples      the CUDA builds of the examples in EXAMPLES (log: $OUT/examples.log)
# TEST_TIMEOUT / SANITIZE_TIMEOUT (seconds) bound each binary / each tool; FILTER picks tests.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$root/.gpu}"
examples=(reduce_overhead pipeline cuda_stream nvrtc_warp)
# The lent GPUs are Hopper (sm_90); building only what runs there keeps the carried binaries
# small. Override with WAVEKIT_CUDA_ARCHS for other devices.
export WAVEKIT_CUDA_ARCHS="${WAVEKIT_CUDA_ARCHS:-90}"

"$root/scripts/setup-cuda.sh" >/dev/null
cd "$root"
# The device test binaries, read from the test package itself (scripts/device-tests.py): every
# test target of wavekit-tests that names CUDA (a `cuda` feature gate, a CUDA device test) and
# needs no feature but `cuda`, so that a new test file is never left out. The NCCL ones
# (`nccl` feature) are staged by scripts/bench-dist.sh.
mapfile -t tests < <(python3 "$root/scripts/device-tests.py" list)
[ "${#tests[@]}" -gt 0 ] || { echo "no device test targets found" >&2; exit 1; }
echo "device test binaries (${#tests[@]}): ${tests[*]}"
args=()
for t in "${tests[@]}"; do args+=(--test "$t"); done
# The tests are the targets of the wavekit-tests package (tests/Cargo.toml).
json="$(cargo test --release -p wavekit-tests --features cuda --no-run --message-format=json "${args[@]}")"

rm -rf "$dest/bin"
mkdir -p "$dest/bin"
printf '%s\n' "$json" | python3 -c '
import json, os, shutil, sys
dest = sys.argv[1]
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    exe = m.get("executable")
    if m.get("reason") == "compiler-artifact" and exe and m["target"]["kind"] == ["test"]:
        shutil.copy2(exe, os.path.join(dest, "bin", m["target"]["name"]))
' "$dest"
strip "$dest"/bin/* 2>/dev/null || true
# Tests that need several GPUs ("binary test-name" lines): run.sh skips them, by name and
# aloud, on a machine with one.
python3 "$root/scripts/device-tests.py" several >"$dest/several-gpus.txt"

ex_args=()
for e in "${examples[@]}"; do ex_args+=(--example "$e"); done
cargo build --release -p wavekit --features cuda "${ex_args[@]}"
rm -rf "$dest/examples"
mkdir -p "$dest/examples"
for e in "${examples[@]}"; do cp "target/release/examples/$e" "$dest/examples/$e"; done
strip "$dest"/examples/* 2>/dev/null || true

cat > "$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the device machine from the checkout root: bash .gpu/run.sh test|sanitize|all
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/wavekit-gpu-out}"
mkdir -p "$out"
mode="${1:-test}"
status=0
echo "== device"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || status=1
ldd --version | head -n 1
gpus="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')"
if [ "$mode" = test ] || [ "$mode" = all ]; then
  for b in "$here"/bin/*; do
    name="$(basename "$b")"
    echo "== $name"
    skip=()
    if [ "$gpus" -lt 2 ]; then
      while read -r bin t; do
        if [ "$bin" = "$name" ]; then
          skip+=(--skip "$t")
          echo "skipped (needs several GPUs, $gpus here): $name $t" | tee -a "$out/tests.log"
        fi
      done <"$here/several-gpus.txt"
    fi
    timeout "${TEST_TIMEOUT:-300}" "$b" --include-ignored "${skip[@]}" ${FILTER:-} 2>&1 | tee -a "$out/tests.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
  echo "== totals"
  grep '^test result' "$out/tests.log"
fi
if [ "$mode" = examples ]; then
  for e in "$here"/examples/*; do
    echo "== example $(basename "$e")"
    timeout "${TEST_TIMEOUT:-300}" "$e" 2>&1 | tee -a "$out/examples.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
fi
if [ "$mode" = sanitize ] || [ "$mode" = all ]; then
  cs="$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)"
  if [ -z "$cs" ]; then echo "compute-sanitizer not found"; exit 1; fi
  # The out-of-memory cases (err_out_of_memory, the probes) ask the driver for more memory than
  # the device has on purpose and check that wavekit returns OutOfMemory; compute-sanitizer
  # would count each refused cuMemAlloc as an error. wavekit checks every API return code
  # itself, so the tools report memory and synchronisation errors only.
  for tool in memcheck synccheck initcheck; do
    echo "== compute-sanitizer --tool $tool"
    timeout "${SANITIZE_TIMEOUT:-100}" "$cs" --tool "$tool" --report-api-errors no --error-exitcode 9 --print-limit 20 \
      "$here/bin/cuda_sanitize" --include-ignored --test-threads=1 ${FILTER:-} >"$out/sanitize-$tool.log" 2>&1
    rc=$?
    grep -E '^test result|SUMMARY|^test .*FAILED' "$out/sanitize-$tool.log"
    echo "exit code $rc"
    [ "$rc" -eq 0 ] || status=1
  done
  # Issue 11's bad calls (tests/cuda_probes.rs): no access past a device allocation.
  echo "== compute-sanitizer --tool memcheck: cuda_probes"
  timeout "${SANITIZE_TIMEOUT:-100}" "$cs" --tool memcheck --report-api-errors no --error-exitcode 9 --print-limit 20 \
    "$here/bin/cuda_probes" --include-ignored --test-threads=1 ${FILTER:-} >"$out/sanitize-probes.log" 2>&1
  rc=$?
  grep -E '^test result|SUMMARY|^test .*FAILED' "$out/sanitize-probes.log"
  echo "exit code $rc"
  [ "$rc" -eq 0 ] || status=1
fi
if [ "$mode" = streams ]; then
  # Memory shared by two streams, adopted from cudarc, and queued launches whose kernels find
  # bad indices: no access outside an allocation (memcheck), no shared-memory race (racecheck).
  # The fuzz families run their CUDA variant only, at a quarter of their cases (the tools
  # serialise every launch); cuda_streams.rs is left out: it times two streams overlapping,
  # which the tools prevent.
  cs="$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)"
  if [ -z "$cs" ]; then echo "compute-sanitizer not found"; exit 1; fi
  for tool in ${TOOLS:-memcheck racecheck}; do
    for t in "cuda_interop:" "fuzz_streams:fuzz_streams_cuda" "fuzz_queued:fuzz_queued_cuda"; do
      bin="${t%%:*}"
      only="${t#*:}"
      echo "== compute-sanitizer --tool $tool: $bin $only"
      WAVEKIT_FUZZ_CASES="${WAVEKIT_FUZZ_CASES:-64}" timeout "${SANITIZE_TIMEOUT:-600}" \
        "$cs" --tool "$tool" --report-api-errors no --error-exitcode 9 --print-limit 20 \
        "$here/bin/$bin" --include-ignored --test-threads=1 --nocapture $only \
        >"$out/streams-$tool-$bin.log" 2>&1
      rc=$?
      grep -E '^test result|SUMMARY|^test .*FAILED|^fuzz ' "$out/streams-$tool-$bin.log"
      echo "exit code $rc"
      [ "$rc" -eq 0 ] || status=1
    done
  done
fi
if [ "$mode" = racecheck ] || [ "$mode" = sanitize ] || [ "$mode" = all ]; then
  # racecheck costs much more per launch than the other tools: the cases run as JOBS parallel
  # processes (one GPU), each its own compute-sanitizer instance over a share of the tests.
  cs="$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)"
  jobs="${JOBS:-8}"
  tmp="$(mktemp -d)"
  "$here/bin/cuda_sanitize" --list --include-ignored 2>/dev/null | sed -n 's/: test$//p' >"$tmp/tests.list"
  echo "== racecheck: $(wc -l <"$tmp/tests.list") tests in $jobs processes"
  for j in $(seq 0 $((jobs - 1))); do
    awk -v j="$j" -v n="$jobs" 'NR % n == j' "$tmp/tests.list" >"$tmp/chunk-$j"
    (timeout "${SANITIZE_TIMEOUT:-400}" "$cs" --tool racecheck --error-exitcode 9 --print-limit 20 \
      "$here/bin/cuda_sanitize" --include-ignored --test-threads=1 --exact $(cat "$tmp/chunk-$j") \
      >"$tmp/racecheck-$j.log" 2>&1; echo "exit code $?" >>"$tmp/racecheck-$j.log") &
  done
  wait
  for j in $(seq 0 $((jobs - 1))); do
    grep -E '^test result|SUMMARY|^exit code|FAILED' "$tmp/racecheck-$j.log" | sed "s/^/[$j] /"
    grep -q '^exit code 0$' "$tmp/racecheck-$j.log" || status=1
  done
  cat "$tmp"/racecheck-*.log >"$out/sanitize-racecheck.log"
fi
exit $status
RUN
chmod +x "$dest/run.sh"

du -sh "$dest" | sed 's/^/staged: /'
ls -l "$dest/bin"
rel="$(realpath --relative-to="$(git -C "$dest/.." rev-parse --show-toplevel 2>/dev/null || dirname "$dest")" "$dest")"
cat <<MSG

Device invocation (run tool; the staged folder must sit in the checkout the tool sends):
  run(kind="nvidia-h100-x1", carry=["$rel"], timeout_s=600,
      command="set -o pipefail; bash $rel/run.sh all 2>&1 | tee \$OUT/run.log")
MSG
