#!/bin/bash
# CPU rows of #25 on the lent machine's cores: repeats, thread scaling, a sampled profile.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O
tar xJf .gpu-perf-h/cpuprof.tar.xz -C /tmp
W=/tmp/cpuprof/wavekit
cat /tmp/cpuprof/commit.txt > $O/commit.txt
lscpu > $O/lscpu.txt 2>&1; nproc >> $O/lscpu.txt
{ echo "perf on machine: $(command -v perf || echo none)"; cat /proc/sys/kernel/perf_event_paranoid; } > $O/perf-env.txt
if command -v perf >/dev/null; then P=perf; else P="/tmp/cpuprof/perfkit/lib/ld-linux-x86-64.so.2 --library-path /tmp/cpuprof/perfkit/lib /tmp/cpuprof/perfkit/perf"; fi
$P stat -e cycles,instructions true >> $O/perf-env.txt 2>&1
b() { $W bench --backend cpu --warp 32 "$@" 2>/dev/null | grep -E "^(scan|histogram)"; }
# 3. Sampled profile at 16 threads (software clock: the VM may expose no PMU), 2^28, 20 reps.
for row in "scan inclusive sum f32" "histogram 256 uniform"; do
  tag=$(echo "$row" | tr ' ' '_')
  $P stat -d -- $W bench --backend cpu --warp 32 --only "$row" --sizes 2^28 --reps 20 > /tmp/stat.txt 2>&1; { echo "== perf stat -d: $row"; cat /tmp/stat.txt; } >> $O/stat.txt
  $P record -e cpu-clock -F 999 -o /tmp/p-$tag.data -- $W bench --backend cpu --warp 32 --only "$row" --sizes 2^28 --reps 20 > /tmp/rec.log 2>&1; { echo "== perf record: $row"; cat /tmp/rec.log; } >> $O/stat.txt
  $P report -i /tmp/p-$tag.data --no-children --sort symbol --stdio 2>/dev/null | grep -v '^$' | head -60 > /tmp/prof.txt; { echo "== profile: $row"; cat /tmp/prof.txt; } >> $O/profile.txt
done
# 1. 16 threads, 2^28, three rounds, the rows alternating, each its own process.
for r in 4 5 6; do for row in "scan inclusive sum f32" "histogram 256 uniform"; do
  echo "== round $r: $row"; b --only "$row" --sizes 2^28 --reps 10; done; done > $O/repeat16.txt
# 2. Thread scaling at 2^26.
for t in 1 2 4 8 12 16; do for row in "scan inclusive sum f32" "histogram 256 uniform"; do
  echo "== threads $t: $row"; RAYON_NUM_THREADS=$t b --only "$row" --sizes 2^26 --reps 10; done; done > $O/scaling.txt
ls -la $O
