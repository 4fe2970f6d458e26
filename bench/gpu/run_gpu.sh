#!/bin/sh
# run_gpu.sh DIR - build and run the GPU benchmark from what gen_gpu.py wrote
# to DIR (on a machine with a GPU and nvcc; run from the repository root).
# Each program: tirc's CUDA and TVM's, the same nvcc flags, one process.
set -e
D=${1:-build/gpu}
ARCH=${ARCH:-sm_90}
FLAGS="-O3 -arch=$ARCH -std=c++17"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
nvcc --version | tail -1
for p in relu relu_vec matmul; do
  nvcc $FLAGS -c -o "$D/tirc_$p.o" "$D/tirc_$p.cu"
  case $p in relu*) def="-DBENCH_RELU -DPROG=$p" ;; *) def=-DBENCH_MATMUL ;; esac
  nvcc $FLAGS -w -I"$D" $def -o "$D/bench_$p" bench/gpu/gpu_bench.cu "$D/tirc_$p.o"
done
st=0
for p in relu relu_vec matmul; do
  echo "== $p"
  "$D/bench_$p" || st=1
done
exit $st
