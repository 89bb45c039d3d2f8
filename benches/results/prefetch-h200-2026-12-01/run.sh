set -u
mkdir -p /tmp/wk && tar -C /tmp/wk -xJf .gpu-perf/quick.tar.xz
W=/tmp/wk/wavekit
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv | tee $OUT/device.txt
for f in "ahead" "scan inclusive sum f16" "scan inclusive sum bf16" "scan exclusive sum f16" "scan inclusive sum f32" "compact x>0 stable f32"; do
  echo "== $f"; timeout 150 $W bench --backend cuda --sizes 2^20,2^24,2^28 --reps 15 --only "$f" 2>&1 | grep -E '^(scan|compact)|refused|rror'
done 2>&1 | tee $OUT/bench.txt
echo "== conformance_cuda"; timeout 240 /tmp/wk/conformance_cuda --include-ignored 2>&1 | tail -4 | tee $OUT/conf.txt
timeout 90 /tmp/wk/cuda_vs_cpu --include-ignored 2>&1 | tail -3 | tee -a $OUT/conf.txt
