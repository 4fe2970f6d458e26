// TVM 0.27's CUDA codegen (tvm.compile, target {"kind": "cuda", "arch": "sm_80"})
// of nvvm13_loop_min_hang.tir, its kernel alone: nvcc 13.0 (V13.0.88) at -O2/-O3
// does not finish (tirc's CUDA of the same TIR neither); -Xcicc -O1 compiles it.
extern "C" __global__ void main_kernel(int* __restrict__ Out_ptr, int x) {
  for (int s = 0; s < 2; ++s) {
    Out_ptr[s] = min(min((s + 49601), (256 - (x * 134217728))), ((0 - (x * 32)) - 1));
  }
}
