#!/usr/bin/env bash
# Installs the HIP toolchain wavekit's `hip` feature builds with: Debian's hipcc (clang 15 based,
# ROCm 5.2), the HIP runtime library libamdhip64, and clang 19 with its linker (clang-19,
# lld-19) for the targets ROCm 5.2 predates (gfx942, MI300), plus llvm-19, whose llvm-objdump
# tests/hip_code_objects.rs reads those code objects with. Idempotent: nothing is fetched when
# all are installed. Needs root (or sudo). No AMD GPU is needed to build; device tests need one.
#
# Then says which compiler builds each target csrc/src/hip.rs compiles for
# (WAVEKIT_HIP_ARCHS, default gfx90a,gfx942,gfx1030): hipcc where the AMD device
# libraries have the target, clang-19 (with ROCm's libraries and a generated ISA-version file)
# where they do not.
set -euo pipefail

# libhiprtc-builtins5: hipRTC's device library (wavekit::hip::rtc, tests/hip_rtc.rs); hipRTC itself is
# inside libamdhip64 on ROCm 5.2.
packages=(hipcc libamdhip64-dev libhiprtc-builtins5 clang-19 lld-19 llvm-19)

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
clang_bin=${WAVEKIT_HIP_CLANG:-$(command -v clang++-19 || true)}
if [[ -z $clang_bin || ! -x $clang_bin ]]; then
    echo "setup-hip: clang++-19 is not on PATH after installing ${packages[*]}" >&2
    exit 1
fi

# Without a target hipcc asks rocm_agent_enumerator for the local GPU, which fails without one.
archs=${WAVEKIT_HIP_ARCHS:-gfx90a,gfx942,gfx1030}
export HIP_PLATFORM=amd
version=$(HCC_AMDGPU_TARGET='' "$hipcc_bin" --version)
echo "setup-hip: hipcc at $hipcc_bin"
echo "$version" | head -n 2 | sed 's/^/  /'
echo "setup-hip: clang at $clang_bin"
"$clang_bin" --version | head -n 1 | sed 's/^/  /'

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
        echo "setup-hip: $processor: hipcc (device library $found/oclc_isa_version_$isa.bc)"
    elif "$clang_bin" -x hip --cuda-device-only -nogpulib -nogpuinc "--offload-arch=$processor" \
        -E -o /dev/null /dev/null 2>/dev/null; then
        echo "setup-hip: $processor: clang (no oclc_isa_version_$isa.bc in ${libdirs[*]})"
    else
        echo "setup-hip: $processor: neither ROCm's device libraries nor $clang_bin know it" >&2
        status=1
    fi
done
exit $status
