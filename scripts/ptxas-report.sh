#!/usr/bin/env bash
# Registers and local-memory spills of every kernel in one csrc/kernels/*.cu, as ptxas reports
# them for sm_90 with the build's own flags (csrc/src/cuda.rs; --device-c as well, which
# cc adds when it compiles more than one CUDA file: relocatable device code, which changes the
# register counts of some kernels, e.g. the SpMV's 44 -> 66): one line per kernel,
# "<spill stores>/<spill loads> bytes spilled, <n> registers, <f> bytes stack frame  <kernel>",
# spilling kernels first. A stack frame with nothing spilled is a register array indexed at run
# time (a per-lane pointer choice, say), which lives in local memory: as costly as a spill.
# Needs nvcc (scripts/setup-cuda.sh). Usage: scripts/ptxas-report.sh csrc/kernels/runs.cu [regex]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="${1:?usage: $0 csrc/kernels/<file>.cu [kernel-name regex]}"
filter="${2:-.}"
nvcc="${NVCC:-}"
[ -n "$nvcc" ] || nvcc="$(ls "$root"/.venv-cuda/lib/python3*/site-packages/nvidia/cu13/bin/nvcc 2>/dev/null | head -n 1)"
[ -x "$nvcc" ] || { echo "no nvcc: run scripts/setup-cuda.sh or set NVCC" >&2; exit 2; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$nvcc" -std=c++17 -O3 --fmad=false --ftz=false --prec-div=true --prec-sqrt=true \
  -I"$root/csrc" -gencode=arch=compute_90,code=sm_90 -Xptxas -v --device-c "$src" -o "$out/k.o" 2>&1 |
  perl -ne 'if (/Compiling entry function .([^\x27]+)/) { ($k = $1) =~ s/^__nv_static_\w*?_(_Z)/$1/ }
    if (/(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads/) { ($fr, $st, $ld) = ($1, $2, $3) }
    if (/Used (\d+) registers/) { print "$st/$ld bytes spilled, $1 registers, $fr bytes stack frame  $k\n" }' |
  (c++filt 2>/dev/null || cat) | grep -E -- "$filter" | sort -t/ -k1,1nr -s
