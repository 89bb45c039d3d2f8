#!/usr/bin/env bash
# Installs the HIP toolchain wavekit's `hip` feature builds with: Debian's hipcc (clang based,
# ROCm 5.2) and the HIP runtime library libamdhip64. Idempotent: installed packages are kept.
# Needs root (or sudo). No AMD GPU is needed to build; device tests need one at run time.
set -euo pipefail

packages=(hipcc libamdhip64-dev)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done

if ((${#missing[@]})); then
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
    "${sudo[@]}" apt-get update
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

hipcc_bin=$(command -v hipcc || true)
if [[ -z $hipcc_bin ]]; then
    echo "setup-hip: hipcc is not on PATH after installing ${packages[*]}" >&2
    exit 1
fi
echo "setup-hip: hipcc at $hipcc_bin"
"$hipcc_bin" --version | head -n 3
