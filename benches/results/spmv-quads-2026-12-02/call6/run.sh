#!/bin/bash
# Stop 71: the SpMV chunk kernel with rows folded by quads (real build), conformance and sanitizers, then the SpMV rows.
set -u
mkdir -p /tmp/wk && tar -C /tmp/wk -xJf .gpu-perf/quick.tar.xz
W=/tmp/wk/wavekit
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt; date -u | tee -a $OUT/device.txt
export WAVEKIT_CUSPARSE="$(find /usr/local /opt -name 'libcusparse.so.12' 2>/dev/null | head -n 1)"
export LD_LIBRARY_PATH="$(dirname "$WAVEKIT_CUSPARSE"):${LD_LIBRARY_PATH:-}"
echo "== conformance_cuda"; timeout 240 /tmp/wk/conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; grep "test result" $OUT/conformance.txt; grep -iE "^test .*FAIL|panicked" $OUT/conformance.txt | head
timeout 90 /tmp/wk/cuda_vs_cpu --include-ignored 2>&1 | tail -3 | tee -a $OUT/conf.txt
timeout 120 compute-sanitizer --tool memcheck /tmp/wk/conformance_cuda --include-ignored spmv 2>&1 | tail -3 | tee $OUT/memcheck.txt
timeout 120 compute-sanitizer --tool racecheck /tmp/wk/conformance_cuda --include-ignored spmv 2>&1 | tail -3 | tee $OUT/racecheck.txt
date -u
timeout 250 $W bench --backend cuda --sizes 2^20,2^24,2^28 --reps 15 --only "spmv" > $OUT/bench.txt 2>&1
grep -E '^spmv|refused|rror' $OUT/bench.txt | sed 's/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g' | cut -c1-160
date -u
cd .gpu-perf/h && KINDS=1 timeout 120 ncu --clock-control none -k regex:"spmv_chunk_kernel|csrmv" -c 2 --metrics lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_read.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_tag_requests.sum,lts__t_sectors.sum,smsp__inst_executed.sum ./spmv_agg 1 24 > $OUT/ncu-l2-sectors.txt 2>&1
grep -E "^  [a-z].*(spmv|csrmv)|\.sum" $OUT/ncu-l2-sectors.txt | cut -c1-130
date -u
