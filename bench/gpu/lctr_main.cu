// lctr_main.cu - on a GPU: tirc's CUDA of tests/passes/lower_cross_thread/writeback_spatial_conjunct.tir
// (k.cu, make bench-gpu-gen) run on O preset to -1: blocks 3 and 4, which the block predicate
// bx < 3 excludes, must leave O[3], O[4] alone (28 28 28 -1 -1).
#include <cstdio>
#include <cuda_runtime.h>
#include "k.cu"
int main(){int32_t hA[35],hO[5],*A,*O;for(int i=0;i<35;i++)hA[i]=i%7+1;
cudaMalloc(&A,sizeof hA);cudaMalloc(&O,sizeof hO);cudaMemcpy(A,hA,sizeof hA,cudaMemcpyHostToDevice);
for(int i=0;i<5;i++)hO[i]=-1;cudaMemcpy(O,hO,sizeof hO,cudaMemcpyHostToDevice);
k_kernel0<<<5,4>>>(A,O);
cudaMemcpy(hO,O,sizeof hO,cudaMemcpyDeviceToHost);printf("tirc_lctr (fixed):");for(int i=0;i<5;i++)printf(" %d",hO[i]);printf("\n");
int ok = hO[0]==28&&hO[1]==28&&hO[2]==28&&hO[3]==-1&&hO[4]==-1; printf("expected 28 28 28 -1 -1: %s\n", ok?"OK":"WRONG"); return !ok;}
