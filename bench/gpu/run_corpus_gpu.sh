#!/bin/sh
# run_corpus_gpu.sh DIR - on a GPU machine: build and run what
# gen_corpus_gpu.py wrote to DIR (each program: tirc's CUDA and TVM's on the
# same inputs, every buffer compared after).
D=${1:-build/gpu/corpus}
ARCH=${ARCH:-sm_90}
pass=0; fail=0
for p in $(cat "$D/programs.txt"); do
  if nvcc -O2 -arch=$ARCH -w -o "$D/run_$p" "$D/main_$p.cu" "$D/tirc_$p.cu" "$D/tvm_$p.cu" 2>"$D/$p.log" && "$D/run_$p"; then
    pass=$((pass+1))
  else
    fail=$((fail+1)); echo "FAIL $p"; head -5 "$D/$p.log"
  fi
done
echo "corpus-gpu: $pass passed, $fail failed"
[ $fail -eq 0 ]
