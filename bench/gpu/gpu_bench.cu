/* gpu_bench.cu - tirc's CUDA against TVM's CUDA of the same scheduled TIR
 * (bench/gpu/gen_gpu.py makes both), on one GPU, in one process.
 * Built once per program: -DBENCH_RELU or -DBENCH_MATMUL, with -I the
 * folder gen_gpu.py wrote (TVM's kernel is included from there, tirc's
 * launcher linked from tirc_NAME.cu built on its own, same nvcc flags).
 * Each kernel's result is checked (relu: exactly; matmul: against a double
 * reference at sampled entries, and tirc against TVM), then timed with CUDA
 * events: RUNS trials, alternating tirc / TVM (/ the memcpy baseline), each
 * the mean of REPS launches after a warm-up; the medians are printed. */
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifdef BENCH_RELU /* -DPROG=relu or relu_vec */
#define STR2(x) #x
#define STR(x) STR2(x)
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#include STR(CAT(tvm_, PROG)_launch.h)
#define tirc_relu CAT(tirc_, PROG)
extern "C" int tirc_relu(float *A, float *compute, cudaStream_t stream);
#endif
#ifdef BENCH_MATMUL
#include "tvm_matmul_launch.h"
extern "C" int tirc_matmul(float *X, float *W, float *T_matmul, cudaStream_t stream);
#endif

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));       \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

static const int RUNS = 7;

static unsigned long long rng = 88172645463325252ull;
static float frand() { /* xorshift64, in [-1, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (float)((rng >> 40) * (1.0 / 16777216.0) * 2.0 - 1.0);
}

template <class F> static double time_ms(F launch, int reps) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  launch(); /* warm-up */
  CK(cudaDeviceSynchronize());
  CK(cudaEventRecord(a));
  for (int i = 0; i < reps; i++) launch();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return ms / reps;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int bus = 0, clk = 0;
  cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0);
  cudaDeviceGetAttribute(&clk, cudaDevAttrMemoryClockRate, 0); /* kHz */
  double peak = 2.0 * clk * 1e3 * (bus / 8) / 1e9;              /* GB/s, double data rate */
  printf("device: %s, %d SMs, bus %d bits, memory clock %d MHz (peak %.0f GB/s)\n", prop.name,
         prop.multiProcessorCount, bus, clk / 1000, peak);
  int bad = 0;
#ifdef BENCH_RELU
  const size_t n = 64ull * 1024 * 1024;
  std::vector<float> h(n), out(n);
  for (size_t i = 0; i < n; i++) h[i] = frand();
  float *A, *compute, *copy;
  CK(cudaMalloc(&A, n * 4));
  CK(cudaMalloc(&compute, n * 4));
  CK(cudaMalloc(&copy, n * 4));
  CK(cudaMemcpy(A, h.data(), n * 4, cudaMemcpyHostToDevice));
  const char *who[2] = {"tirc", "TVM"};
  for (int w = 0; w < 2; w++) {
    CK(cudaMemset(compute, 0xff, n * 4));
    if (w == 0) CK((cudaError_t)tirc_relu(A, compute, 0));
    else TVM_LAUNCH(0);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out.data(), compute, n * 4, cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += out[i] != (h[i] > 0.0f ? h[i] : 0.0f);
    printf("%s %s: %zu of %zu elements wrong\n", STR(PROG), who[w], wrong, n);
    bad += wrong != 0;
  }
  std::vector<double> t_tirc, t_tvm, t_copy;
  for (int r = 0; r < RUNS; r++) {
    t_tirc.push_back(time_ms([&] { tirc_relu(A, compute, 0); }, 50));
    t_tvm.push_back(time_ms([&] { TVM_LAUNCH(0); }, 50));
    t_copy.push_back(time_ms([&] { cudaMemcpyAsync(copy, A, n * 4, cudaMemcpyDeviceToDevice, 0); }, 50));
  }
  CK(cudaGetLastError());
  double bytes = 2.0 * n * 4; /* read and written */
  double mt = median(t_tirc), mv = median(t_tvm), mc = median(t_copy);
  printf("%s 64 Mi float32 (%d runs of 50, median): tirc %.4f ms (%.0f GB/s), TVM %.4f ms (%.0f GB/s), "
         "device memcpy %.4f ms (%.0f GB/s)\n",
         STR(PROG), RUNS, mt, bytes / mt / 1e6, mv, bytes / mv / 1e6, mc, bytes / mc / 1e6);
  printf("%s: tirc %.3fx memcpy's bandwidth, TVM %.3fx; tirc/TVM speed %.3fx\n", STR(PROG), mc / mt, mc / mv, mv / mt);
  if (peak > 0) printf("%s: tirc %.3fx the peak bandwidth, TVM %.3fx, memcpy %.3fx\n", STR(PROG), bytes / mt / 1e6 / peak,
                       bytes / mv / 1e6 / peak, bytes / mc / 1e6 / peak);
#endif
#ifdef BENCH_MATMUL
  const int M = 4096;
  const size_t n = (size_t)M * M;
  std::vector<float> hx(n), hw(n), ot(n), ov(n);
  for (size_t i = 0; i < n; i++) hx[i] = frand();
  for (size_t i = 0; i < n; i++) hw[i] = frand();
  float *X, *W, *T_matmul;
  CK(cudaMalloc(&X, n * 4));
  CK(cudaMalloc(&W, n * 4));
  CK(cudaMalloc(&T_matmul, n * 4));
  CK(cudaMemcpy(X, hx.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(W, hw.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(T_matmul, 0xff, n * 4));
  CK((cudaError_t)tirc_matmul(X, W, T_matmul, 0));
  CK(cudaMemcpy(ot.data(), T_matmul, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemset(T_matmul, 0xff, n * 4));
  TVM_LAUNCH(0);
  CK(cudaGetLastError());
  CK(cudaMemcpy(ov.data(), T_matmul, n * 4, cudaMemcpyDeviceToHost));
  /* sampled entries against a double reference; tirc against TVM everywhere */
  double worst[2] = {0, 0};
  for (int s = 0; s < 4096; s++) {
    int i = (int)((s * 2654435761u) % M), j = (int)((s * 40503u + 17) % M);
    if (s < 4) i = s ? M - 1 : 0, j = s & 1 ? M - 1 : 0;
    double ref = 0, mag = 0;
    for (int k = 0; k < M; k++) {
      ref += (double)hx[(size_t)i * M + k] * hw[(size_t)k * M + j];
      mag += fabs((double)hx[(size_t)i * M + k] * hw[(size_t)k * M + j]);
    }
    worst[0] = std::max(worst[0], fabs(ot[(size_t)i * M + j] - ref) / mag);
    worst[1] = std::max(worst[1], fabs(ov[(size_t)i * M + j] - ref) / mag);
  }
  size_t differ = 0;
  for (size_t i = 0; i < n; i++) differ += ot[i] != ov[i];
  printf("matmul: worst error at 4096 sampled entries (relative to sum |x*w|): tirc %.2e, TVM %.2e; "
         "%zu of %zu entries differ between tirc and TVM\n",
         worst[0], worst[1], differ, n);
  bad += !(worst[0] < 1e-4 && worst[1] < 1e-4);
  std::vector<double> t_tirc, t_tvm;
  for (int r = 0; r < RUNS; r++) {
    t_tirc.push_back(time_ms([&] { tirc_matmul(X, W, T_matmul, 0); }, 10));
    t_tvm.push_back(time_ms([&] { TVM_LAUNCH(0); }, 10));
  }
  CK(cudaGetLastError());
  double flop = 2.0 * M * M * M, mt = median(t_tirc), mv = median(t_tvm);
  printf("matmul 4096^3 float32 (%d runs of 10, median): tirc %.3f ms (%.2f TFLOP/s), TVM %.3f ms (%.2f TFLOP/s); "
         "tirc/TVM speed %.3fx\n",
         RUNS, mt, flop / mt / 1e9, mv, flop / mv / 1e9, mv / mt);
  printf("matmul runs: tirc");
  for (double t : t_tirc) printf(" %.3f", t);
  printf("; TVM");
  for (double t : t_tvm) printf(" %.3f", t);
  printf("\n");
#endif
  return bad ? 1 : 0;
}
