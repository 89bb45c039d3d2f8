#!/usr/bin/env bash
# Checks that the layers' normal dependencies point down only (the layout at the top of
# Cargo.toml): wavekit-dist, the collectives across ranks, asks a backend for wavekit-core's
# SliceDevice and a communicator for its own Transport, so it depends on no backend and no
# transport (those depend on it: wavekit-nccl); wavekit-core depends on no other wavekit crate.
# Dev-dependencies (tests, doc-tests) may name anything. Each package is checked with its
# default features and with all of them. Exits non-zero, naming the offending path, if a rule
# is broken.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
# forbid PACKAGE REGEX WHY: no crate matching REGEX in PACKAGE's normal dependency tree.
forbid() {
  local pkg="$1" pattern="$2" why="$3" features tree bad
  for features in "" "--all-features"; do
    # One crate a line ("name vX.Y.Z (...)"), the package itself left out.
    tree="$(cargo tree -p "$pkg" -e normal $features --prefix none --format '{p}' --quiet)"
    bad="$(grep -E "^($pattern) v" <<<"$tree" | grep -v "^$pkg v" | sort -u || true)"
    if [ -n "$bad" ]; then
      echo "check-layers: $pkg (${features:-default features}) depends on what it must not: $why" >&2
      sed 's/^/  /' <<<"$bad" >&2
      # Which dependency brings each in: the inverted tree from the package down to it.
      while read -r name _; do
        cargo tree -p "$pkg" -e normal $features --invert "$name" --quiet >&2 || true
      done <<<"$bad"
      status=1
    fi
  done
}

forbid wavekit-dist 'wavekit-(cpu|gpu|simt|cuda|hip|nccl|kernels)' \
  "a backend or a transport (wavekit-dist names none: they implement wavekit-core's SliceDevice and its Transport in their own crates)"
forbid wavekit-core 'wavekit-[a-z]+' \
  "another wavekit crate (wavekit-core is the bottom layer)"

if [ "$status" = 0 ]; then
  echo "check-layers: wavekit-dist depends on no backend or transport; wavekit-core on no wavekit crate"
fi
exit "$status"
