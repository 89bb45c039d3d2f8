#!/usr/bin/env bash
# Starts N processes of a command on this host, one per GPU, the way torchrun does: each gets
# RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT (wavekit-nccl reads them and shares
# the NCCL unique id on MASTER_PORT + 1). If one process fails, the others are stopped; the
# script exits with the first non-zero status.
#
#   bash scripts/launch-local.sh 2 target/release/examples/nccl_per_process [args...]
set -uo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 N command [args...]" >&2
  exit 2
fi
n="$1"
shift
export WORLD_SIZE="$n"
export MASTER_ADDR="${MASTER_ADDR:-127.0.0.1}"
# A free port pair unless the caller chose one.
export MASTER_PORT="${MASTER_PORT:-$((20000 + RANDOM % 20000))}"
# NVLink multicast stays off (see docs/dist.md).
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"

pids=()
for ((r = 0; r < n; r++)); do
  RANK=$r LOCAL_RANK=$r "$@" &
  pids+=("$!")
done

status=0
remaining=$n
while [ "$remaining" -gt 0 ]; do
  # Any of our background ranks (naming finished ones again would be "no such job").
  wait -n -p done_pid
  rc=$?
  remaining=$((remaining - 1))
  if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then
    status=$rc
    echo "launch-local: process $done_pid exited with $rc; stopping the others" >&2
    for p in "${pids[@]}"; do
      [ "$p" != "$done_pid" ] && kill "$p" 2>/dev/null
    done
  fi
done
exit "$status"
