/* harness.h - shared by the tests/codegen/NAME_ref.c harnesses: random
 * data, comparisons (bit-exact for ints, 1e-5 relative for floats), and
 * the calling convention of the generated code:
 *  - built as C (run.sh): the kernel is the generated C function;
 *  - built as CUDA with -DTIR_GPU (gpu/run_gpu.sh): the kernel is the
 *    generated extern "C" launcher; DEV(p, bytes) copies a host array to
 *    the device, BACK() copies every DEV array back and frees it. */
#ifndef TIR_CODEGEN_HARNESS_H
#define TIR_CODEGEN_HARNESS_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef TIR_GPU
#include <cuda_runtime.h>
#define TIR_EXTERN extern "C"
#define TIR_STREAM_PARAM , cudaStream_t stream
#define TIR_STREAM , (cudaStream_t)0
typedef struct { void *host, *dev; size_t n; } tir_dev_buf;
static tir_dev_buf tir_dev_bufs[16];
static int tir_ndev;
static inline void *DEV(void *host, size_t n) {
  void *d = NULL;
  if (cudaMalloc(&d, n) != cudaSuccess || tir_ndev == 16) { fprintf(stderr, "cudaMalloc failed\n"); return NULL; }
  cudaMemcpy(d, host, n, cudaMemcpyHostToDevice);
  tir_dev_bufs[tir_ndev].host = host; tir_dev_bufs[tir_ndev].dev = d; tir_dev_bufs[tir_ndev].n = n; tir_ndev++;
  return d;
}
static inline int BACK(void) {
  cudaError_t e = cudaDeviceSynchronize();
  for (int i = 0; i < tir_ndev; i++) {
    cudaMemcpy(tir_dev_bufs[i].host, tir_dev_bufs[i].dev, tir_dev_bufs[i].n, cudaMemcpyDeviceToHost);
    cudaFree(tir_dev_bufs[i].dev);
  }
  tir_ndev = 0;
  if (e != cudaSuccess) fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
#else
#define TIR_EXTERN
#define TIR_STREAM_PARAM
#define TIR_STREAM
#define DEV(p, n) ((void)(n), (p))
static inline int BACK(void) { return 0; }
#endif

/* the generated C's calling convention: each buffer's data aligned to its
 * data_alignment (64 bytes unless the TIR says align=) */
#ifdef __cplusplus
#define TIR_ALIGNED alignas(64)
#else
#define TIR_ALIGNED _Alignas(64)
#endif

static uint32_t tir_rng = 12345u;
static inline uint32_t rnd(void) {
  tir_rng ^= tir_rng << 13;
  tir_rng ^= tir_rng >> 17;
  tir_rng ^= tir_rng << 5;
  return tir_rng;
}
/* uniform in [lo, hi) */
static inline float rnd_f32(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() >> 8) / 16777216.0f; }

static inline void fill_f32(float *p, size_t n, float lo, float hi) {
  for (size_t i = 0; i < n; i++) p[i] = rnd_f32(lo, hi);
}
static inline void fill_bytes(void *p, size_t n) {
  unsigned char *b = (unsigned char *)p;
  for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(rnd() >> 24);
}

static inline int check_f32(const char *what, const float *got, const float *want, size_t n) {
  for (size_t i = 0; i < n; i++) {
    float d = fabsf(got[i] - want[i]), m = fabsf(want[i]);
    if (!(d <= 1e-5f * (m > 1.0f ? m : 1.0f))) {
      printf("%s: element %zu: got %.9g, want %.9g\n", what, i, (double)got[i], (double)want[i]);
      return 1;
    }
  }
  return 0;
}
static inline int check_bytes(const char *what, const void *got, const void *want, size_t n) {
  const unsigned char *g = (const unsigned char *)got, *w = (const unsigned char *)want;
  for (size_t i = 0; i < n; i++)
    if (g[i] != w[i]) {
      printf("%s: byte %zu differs: got %u, want %u\n", what, i, g[i], w[i]);
      return 1;
    }
  return 0;
}
static inline int report(const char *name, int rc, int fails) {
  if (rc != 0) printf("%s: kernel returned %d\n", name, rc);
  printf("%s: %s\n", name, rc == 0 && fails == 0 ? "ok" : "MISMATCH");
  return rc == 0 && fails == 0 ? 0 : 1;
}
#endif
