#!/usr/bin/env bash
# The multi-GPU measurements behind BENCHMARKS.md's "Across GPUs" table, in three steps (as
# scripts/bench.sh does for one GPU):
#
#   scripts/bench-dist.sh stage [DEST]   here (no GPU needed): builds examples/nccl_bench
#                                        (feature nccl, sm_90) and packs it with this script
#                                        and scripts/launch-local.sh into DEST (default
#                                        <checkout>/.gpu-dist, ignored by git, sent by the
#                                        device tool with the checkout).
#   bash .gpu-dist/bench-dist.sh device  on the lent multi-GPU machine, from the checkout's
#                                        root: every GPU count 1, 2, 4, ... up to the GPUs
#                                        present, in both launch modes; logs to $OUT/dist.
#   scripts/bench-dist.sh render DIR     here: the table in BENCHMARKS.md from those logs.
#
# Device knobs: LOG2 (reproducibility size, default 30), REPS (default 100), SCALE_LOG2
# (sharded reduce for the scaling rows, default 32), GPUS (the counts, default 1 2 4 8 up to
# the GPUs present). NCCL_NVLS_ENABLE stays 0 (the lent machines require it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

stage() {
  local root dest target
  root="$(cd "$here/.." && pwd)"
  dest="${1:-$root/.gpu-dist}"
  export WAVEKIT_CUDA_ARCHS="${WAVEKIT_CUDA_ARCHS:-90}"
  "$root/scripts/setup-cuda.sh" >/dev/null
  cd "$root"
  target="${CARGO_TARGET_DIR:-$root/target}"
  cargo build --release --features nccl --example nccl_bench
  mkdir -p "$dest"
  cp "$target/release/examples/nccl_bench" "$dest/"
  strip "$dest/nccl_bench" 2>/dev/null || true
  cp "$here/bench-dist.sh" "$here/launch-local.sh" "$dest/"
  git -C "$root" log -1 --format='%H %cd' >"$dest/commit.txt"
  echo "staged in $dest ($(du -sh "$dest" | cut -f1)); on the device: bash ${dest#"$root"/}/bench-dist.sh device"
}

device() {
  local out="${OUT:-/tmp/wavekit-dist}/dist" bin="$here/nccl_bench"
  mkdir -p "$out"
  export NCCL_NVLS_ENABLE=0
  local present
  present="$(nvidia-smi -L | wc -l)"
  local counts="${GPUS:-}"
  if [ -z "$counts" ]; then
    for g in 1 2 4 8; do [ "$g" -le "$present" ] && counts="$counts $g"; done
  fi
  {
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit=$(cat "$here/commit.txt")"
    echo "gpus_present=$present"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/gpu=/'
    nvidia-smi topo -m | sed 's/^/topo: /'
  } >"$out/meta.txt"
  local log2="${LOG2:-30}" reps="${REPS:-100}" scale="${SCALE_LOG2:-32}" g bw
  for g in $counts; do
    bw=""
    [ "$g" -gt 1 ] && bw="--bw"
    echo "== one process, $g GPUs"
    "$bin" --gpus "$g" --log2 "$log2" --reps "$reps" --scale-log2 "$scale" $bw \
      2>&1 | tee "$out/one-process-$g.log"
    echo "== process per GPU, $g GPUs"
    bash "$here/launch-local.sh" "$g" "$bin" --log2 "$log2" --reps "$reps" --scale-log2 "$scale" $bw \
      2>&1 | tee "$out/per-process-$g.log"
  done
}

case "${1:-}" in
  stage) shift; stage "$@" ;;
  device) device ;;
  render) shift; python3 "$here/bench_dist_report.py" "$@" ;;
  *) echo "usage: $0 stage [DEST] | device | render DIR" >&2; exit 2 ;;
esac
