#!/bin/bash
# Builds lab (the tree's sort.cu) and lab_<v> for sed variants of it, for sm_90.
set -e
cd "$(dirname "$0")"
NVCC=$(ls /work/main/.venv-cuda/lib/python3.11/site-packages/nvidia/cu13/bin/nvcc)
CS=../csrc
FL="-L$(dirname $NVCC)/../lib -std=c++17 -O3 --fmad=false -gencode=arch=compute_90,code=sm_90 -cudart static"
$NVCC $FL -I$CS lab.cu -o lab &
variant() {  # name, python expression transforming s
  rm -rf v_$1 && mkdir -p v_$1/kernels
  python3 -c "import sys; s=open('$CS/kernels/sort.cu').read(); t=$2; assert t!=s; open('v_$1/kernels/sort.cu','w').write(t)"
  for f in $CS/kernels/*.h; do ln -sf "$(realpath $f)" v_$1/kernels/; done
  ln -sfn "$(realpath $CS/wavekit)" v_$1/wavekit
  $NVCC $FL -Iv_$1 -I$CS lab.cu -o lab_$1
}
( $NVCC $FL -Iv_prev -I$CS lab.cu -o lab_prev ) &
( $NVCC $FL -Iv_nohist -I$CS lab.cu -o lab_nohist ) &
variant atomic "s.replace('''before = warp_counts[w * kRadix + dj];
      warp_counts[w * kRadix + dj] = before + (unsigned)arch::popc(peers);''', '''before = atomicAdd(warp_counts + w * kRadix + dj, (unsigned)arch::popc(peers));''')" &
wait
ls -la lab lab_*
