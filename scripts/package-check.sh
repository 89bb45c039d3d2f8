#!/usr/bin/env bash
# Builds what a Rust user gets from a registry: packages every publishable crate (`cargo
# package`, which builds each tarball against the others through a local registry), then
# writes a small crate OUTSIDE the workspace that depends on `wavekit = "0.1.0"`, with
# [patch.crates-io] pointing at the tarballs unpacked (never at the repository's folders),
# and runs it:
#   default  default features: a reduce on the CPU backend
#   simt     `features = ["simt"]`: a warp reduce and a device reduce on the SIMT executor
#   gpu      `features = ["cuda", "hip"]`: compiles (needs nvcc and hipcc: scripts/setup-*.sh)
#   cli      `cargo install` of wavekit-cli from its tarball (default features: the executor),
#            the other crates patched to theirs; runs `wavekit verify` on a small size
#
# Usage: scripts/package-check.sh [--no-package] [--release] [--target-dir DIR]
#                                 [--variants default,simt,gpu]
#   --no-package  reuse the .crate files a previous `cargo package` left in target/package/
#   --target-dir  where the outside crate builds; default the workspace's target/, which
#                 shares the registry crates' builds and the kernel cache
#                 (<target>/wavekit-kernel-cache, keyed by sources relative to the package)
#   --release     a release build (how README's install times were measured, with a fresh
#                 --target-dir)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

package=1
profile=()
target=""
variants="default,simt,gpu,cli"
while [ $# -gt 0 ]; do
  case "$1" in
    --no-package) package=0 ;;
    --release) profile=(--release) ;;
    --target-dir) target="$2"; shift ;;
    --variants) variants="$2"; shift ;;
    *) echo "package-check: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
# The workspace's target folder and its publishable packages (name-version).
meta="$(cargo metadata --format-version 1 --no-deps)"
ws_target="$(python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])' <<<"$meta")"
mapfile -t packages < <(python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] != []:
        print(p["name"] + "-" + p["version"])' <<<"$meta")
target="${target:-$ws_target}"

# wavekit-tests (publish = false) reads the repository (examples/, tests/plain).
if [ "$package" = 1 ]; then
  t=$SECONDS
  excluded=()
  while read -r name; do excluded+=(--exclude "$name"); done < <(python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] == []:
        print(p["name"])' <<<"$meta")
  # cargo verifies each tarball against the others through a local registry in
  # target/package/tmp-registry, unpacks what it takes from there into
  # $CARGO_HOME/registry/src/<hash of that path>/NAME-VERSION and builds it in the workspace's
  # target/debug, each once: a registry crate is taken as immutable, so a copy or a build left
  # by an earlier run of this checkout is reused even after the sources changed (a rehearsal
  # built wavekit-cpu against a day-old wavekit-core and failed). Our versions are
  # unpublished, so every such copy is stale: remove them first, and every build of our
  # crates in target/debug with them (the workspace's own rebuild; the kernel cache stays).
  rm -rf "$ws_target/package" "$ws_target"/debug/.fingerprint/wavekit-* \
    "$ws_target"/debug/build/wavekit-* "$ws_target"/debug/deps/libwavekit_* \
    "$ws_target"/debug/deps/wavekit_*
  for name in "${packages[@]}"; do
    rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$name" \
      "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"$name.crate"
  done
  cargo package --workspace "${excluded[@]}"
  echo "package-check: cargo package --workspace: $((SECONDS - t)) s"
fi

dir="$(mktemp -d "${TMPDIR:-/tmp}/wavekit-package-check.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/crates" "$dir/user/src"
patch=""
cli_patch=()
for name in "${packages[@]}"; do
  tar -xzf "$ws_target/package/$name.crate" -C "$dir/crates"
  # `cargo install` takes its patches as --config: every crate but the CLI itself.
  case "$name" in wavekit-cli-*) ;; *) cli_patch+=(--config "patch.crates-io.${name%-*}.path=\"$dir/crates/$name\"") ;; esac
  # The outside crate: only the facade's dependency tree (a patch nothing uses is a warning).
  case "$name" in
    wavekit-bench-* | wavekit-cli-* | wavekit-conformance-* | wavekit-dist-* | wavekit-nccl-*) continue ;;
  esac
  patch+="${name%-*} = { path = \"$dir/crates/$name\" }"$'\n'
done

cat >"$dir/user/Cargo.toml" <<EOF
[package]
name = "wavekit-package-check"
version = "0.1.0"
edition = "2024"
publish = false

[features]
simt = ["wavekit/simt"]
cuda = ["wavekit/cuda"]
hip = ["wavekit/hip"]

[dependencies]
wavekit = "0.1.0"

[patch.crates-io]
$patch
EOF
cat >"$dir/user/src/main.rs" <<'EOF'
use wavekit::prelude::*;

fn main() -> Result<()> {
    let cpu = CpuBackend::new(WarpWidth::W32);
    let data: Vec<u32> = (1..=1000).collect();
    let sum = cpu.reduce(&cpu.upload(&data)?, ReduceOp::Sum)?;
    assert_eq!(sum, 500_500, "the CPU backend's reduce");
    println!("cpu: reduce of 1..=1000 = {sum}");
    #[cfg(feature = "simt")]
    {
        let exec = wavekit::simt::open(WarpWidth::W64)?;
        let lanes: Vec<u32> = (0..64).collect();
        assert_eq!(exec.warp_reduce(&lanes, 64, ReduceOp::Sum)?, [2016]);
        let sum = exec.reduce(&exec.upload(&data)?, ReduceOp::Sum)?;
        assert_eq!(sum, 500_500, "the executor's device reduce");
        println!("simt: warp reduce of 0..64 = 2016, reduce of 1..=1000 = {sum}");
    }
    Ok(())
}
EOF
# The workspace's lock: the registry crates at the versions CI tests (cargo drops the rest).
cp "$root/Cargo.lock" "$dir/user/Cargo.lock"

cd "$dir/user"
export CARGO_TARGET_DIR="$target"
for v in ${variants//,/ }; do
  t=$SECONDS
  case "$v" in
    default) cargo run "${profile[@]}" ;;
    simt) cargo run "${profile[@]}" --features simt ;;
    gpu)
      # Outside the repository its .cargo/config.toml does not apply: name the CUDA wheels.
      if [ -z "${NVCC:-}${WAVEKIT_CUDA_VENV:-}" ] && [ -d "$root/.venv-cuda" ]; then
        export WAVEKIT_CUDA_VENV="$root/.venv-cuda"
      fi
      cargo build "${profile[@]}" --features cuda,hip ;;
    cli)
      # What `cargo install wavekit-cli` does once it is on crates.io: its own lock file is
      # not used (the registry has no wavekit crates yet), the patches stand in for them.
      cli="$(ls -d "$dir"/crates/wavekit-cli-*)"
      install_profile=(--debug)
      [ "${#profile[@]}" -gt 0 ] && install_profile=()
      cargo install --path "$cli" --root "$dir/install" "${install_profile[@]}" "${cli_patch[@]}"
      "$dir/install/bin/wavekit" verify --backend cpu --scale small
      # `check` compiles a user's kernel with the device sources of the installed package:
      # the full-mask warp sum is right at 32 lanes (the sum of 32 ones) and reported at 64.
      out="$("$dir/install/bin/wavekit" check "$root/tests/plain/kernels/warp_sum.cu" \
        --kernel warp_sum --block 64 --arg 0=1 2>&1)" && rc=0 || rc=$?
      printf '%s\n' "$out" | tail -n 5
      if [ "$rc" != 1 ] || ! grep -q 'out arg 1: \[32, 32, 0' <<<"$out" ||
        ! grep -q 'ShflOutsideMask' <<<"$out"; then
        echo "package-check: the installed wavekit check did not give the expected reports" >&2
        exit 1
      fi ;;
    *) echo "package-check: unknown variant $v" >&2; exit 2 ;;
  esac
  echo "package-check: $v: $((SECONDS - t)) s"
done
