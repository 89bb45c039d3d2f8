#!/usr/bin/env bash
# Installs the HIP toolchain wavekit's `hip` feature builds with: Debian's hipcc (clang 15 based,
# ROCm 5.2) and the HIP runtime library libamdhip64. Idempotent: nothing is fetched when both
# are installed. Needs root (or sudo). No AMD GPU is needed to build; device tests need one.
#
# Then checks that the AMD device libraries exist for every target crates/build/src/hip.rs compiles for
# (WAVEKIT_HIP_ARCHS, default gfx90a,gfx940,gfx1030; Debian's ROCm 5.2 has none for gfx1100).
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
else
    echo "setup-hip: ${packages[*]} already installed"
fi

hipcc_bin=$(command -v hipcc || true)
if [[ -z $hipcc_bin ]]; then
    echo "setup-hip: hipcc is not on PATH after installing ${packages[*]}" >&2
    exit 1
fi

# Without a target hipcc asks rocm_agent_enumerator for the local GPU, which fails without one.
archs=${WAVEKIT_HIP_ARCHS:-gfx90a,gfx940,gfx1030}
first=${archs%%,*}
export HIP_PLATFORM=amd
version=$(HCC_AMDGPU_TARGET=${first%%:*} "$hipcc_bin" --version)
echo "setup-hip: hipcc at $hipcc_bin"
echo "$version" | head -n 2 | sed 's/^/  /'

# The device library directory clang uses: <llvm>/lib/clang/<v>/../../amdgcn/bitcode on
# AMD's layout, /usr/lib/<triple>/amdgcn/bitcode on Debian's.
libdirs=("${ROCM_PATH:-/opt/rocm}/amdgcn/bitcode" /usr/lib/*/amdgcn/bitcode)
status=0
IFS=',' read -r -a targets <<<"$archs"
for target in "${targets[@]}"; do
    processor=${target%%:*}
    isa=${processor#gfx}
    found=""
    for d in "${libdirs[@]}"; do
        if [[ -f "$d/oclc_isa_version_$isa.bc" ]]; then found="$d"; break; fi
    done
    if [[ -n $found ]]; then
        echo "setup-hip: device library for $processor: $found/oclc_isa_version_$isa.bc"
    else
        echo "setup-hip: no device library for $processor (oclc_isa_version_$isa.bc) in ${libdirs[*]}" >&2
        status=1
    fi
done
exit $status
