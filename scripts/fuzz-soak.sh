#!/usr/bin/env bash
# The soak run of the whole fuzz harness (tests/support/fuzz): every family of every fuzz test
# binary at once, for a fixed time, at low priority, then the counts of every family and their
# totals. The families share the machine: each binary runs all its tests on threads of their
# own, and every family draws fresh random cases, round after round, until the time is up.
#
#   bash scripts/fuzz-soak.sh SECONDS [LOG_DIR]
#
# A failure (a shrunk failing case and the seed that replays its round) or a hang (the
# watchdog's abort, naming the case) is in LOG_DIR/<binary>.log; the script exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:?usage: scripts/fuzz-soak.sh SECONDS [LOG_DIR]}
logs=${2:-$(mktemp -d /tmp/wavekit-fuzz-soak.XXXXXX)}
mkdir -p "$logs"
binaries=(fuzz_api fuzz_views fuzz_queued fuzz_streams fuzz_dist fuzz_sort)

# Build first (the time limit is for fuzzing), and find each test executable.
args=()
for b in "${binaries[@]}"; do args+=(--test "$b"); done
exes=$(nice -n 10 cargo test -p wavekit-tests "${args[@]}" --no-run --message-format=json \
  | grep -o '"executable":"[^"]*"' | sed 's/"executable":"\(.*\)"/\1/')

echo "fuzz soak: ${secs} s, logs in ${logs}"
pids=()
for exe in $exes; do
  name=$(basename "$exe" | sed 's/-[0-9a-f]*$//')
  WAVEKIT_FUZZ_SECONDS=$secs nice -n 10 "$exe" --nocapture --test-threads=64 \
    >"$logs/$name.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do
  wait "$p" || status=1
done

grep -h '^fuzz ' "$logs"/*.log | sort
# Totals over every family and context: "N calls, M typed errors[, D deferred ...]".
grep -h '^fuzz ' "$logs"/*.log \
  | sed -E 's/.*: ([0-9]+) calls, ([0-9]+) typed errors(, ([0-9]+) deferred)?.*/\1 \2 \4/' \
  | awk '{ f += 1; c += $1; e += $2; d += $3 }
         END { printf "fuzz soak total: %d families x contexts, %d calls, %d typed errors, %d deferred to a synchronisation\n", f, c, e, d }'
if [ "$status" -ne 0 ]; then
  echo "fuzz soak: a binary failed; see ${logs}" >&2
  grep -h -A3 -E 'panicked|Test failed|hung in' "$logs"/*.log >&2 || true
fi
exit "$status"
