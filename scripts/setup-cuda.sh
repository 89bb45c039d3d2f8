#!/usr/bin/env bash
# Installs the pinned CUDA 13.0 compiler (and cuSPARSE) wheels into .venv-cuda/ (git-ignored) so that
# `cargo build --features cuda` works on a machine with no CUDA toolkit and no GPU.
# Idempotent: a second run only checks that the pinned versions are there.
#
# Pins matter: an unpinned nvidia-nvvm emits PTX that ptxas 13.0 rejects. The NCCL runtime
# (for the `nccl` feature, ranks/nccl) is the release built for CUDA 13.0; wavekit loads its
# libnccl.so.2 from here at run time (ranks/nccl/src/library.rs), no symlink needed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv-cuda"
python="${PYTHON:-python3}"
pins=(
  nvidia-cuda-nvcc==13.0.88
  nvidia-nvvm==13.0.88
  nvidia-cuda-crt==13.0.88
  nvidia-cuda-runtime==13.0.96
  nvidia-cuda-cccl==13.0.85
  # NVRTC of the compiler's release: users' kernel sources compiled at run time
  # (wavekit::cuda::rtc; tests/cuda_rtc.rs compiles to PTX with it in CI, no device needed).
  nvidia-cuda-nvrtc==13.0.88
  # cuSPARSE of CUDA 13.0 (12.6.3.3): its header for the bench's in-process cusparseSpMV
  # baseline (csrc/bench/cusparse.cu). The library is loaded at run time, so nothing that is
  # built needs it to start; nvJitLink is its dependency, pinned to the compiler's release.
  nvidia-cusparse==12.6.3.3
  nvidia-nvjitlink==13.0.88
  nvidia-nccl-cu13==2.27.7
)

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi

installed() {
  local spec name want have
  for spec in "${pins[@]}"; do
    name="${spec%%==*}"
    want="${spec##*==}"
    have="$("$venv/bin/python" -m pip show "$name" 2>/dev/null | sed -n 's/^Version: //p')"
    [ "$have" = "$want" ] || return 1
  done
}

if installed; then
  echo "setup-cuda: pinned wheels already installed in $venv"
else
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir "${pins[@]}"
fi

cu="$("$venv/bin/python" -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13"))')"
nvcc="$cu/bin/nvcc"
if [ ! -x "$nvcc" ]; then
  echo "setup-cuda: expected nvcc at $nvcc, not found" >&2
  exit 1
fi
"$nvcc" --version | tail -n 2
nccl="$("$venv/bin/python" -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "nccl", "lib", "libnccl.so.2"))')"
if [ ! -f "$nccl" ]; then
  echo "setup-cuda: expected NCCL at $nccl, not found" >&2
  exit 1
fi
echo "NCCL runtime: $nccl"

cat <<MSG

CUDA toolchain ready under $cu
The build finds it in .venv-cuda/ by itself inside this repository (.cargo/config.toml sets
WAVEKIT_CUDA_VENV); a crate outside it sets WAVEKIT_CUDA_VENV=$venv, or points to nvcc:
  export NVCC=$nvcc
Then:
  cargo build --features cuda
  scripts/gpu-test.sh            # builds the device test binaries and prints the device command
MSG
