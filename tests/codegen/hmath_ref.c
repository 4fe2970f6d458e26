/* hmath_ref.c - float16 on the GPU (built by gpu/run_gpu.sh only: the C
 * target rejects float16, see hmath.tir).  The reference computes in float
 * and rounds to half where the kernel does; results compared to 1e-3
 * relative (a half has 11 significant bits). */
#include "harness.h"
#ifdef TIR_GPU
#include <cuda_fp16.h>

TIR_EXTERN int32_t hmath(__half *A, __half *B, float *C TIR_STREAM_PARAM);

TIR_ALIGNED static __half A[256], B[256];
TIR_ALIGNED static float C[256], wB[256], wC[256];

static int close_to(const char *what, const float *got, const float *want, int n) {
  for (int i = 0; i < n; i++) {
    float d = fabsf(got[i] - want[i]), m = fabsf(want[i]);
    if (!(d <= 1e-3f * (m > 1.0f ? m : 1.0f))) {
      printf("%s: element %d: got %.6g, want %.6g\n", what, i, (double)got[i], (double)want[i]);
      return 1;
    }
  }
  return 0;
}

int main(void) {
  for (int i = 0; i < 256; i++) A[i] = __float2half(rnd_f32(-3.0f, 3.0f));
  for (int i = 0; i < 256; i++) {
    float a = __half2float(A[i]);
    wB[i] = __half2float(__float2half(__half2float(__float2half(a * 2.0f)) + 1.0f));
    if (i % 2 == 0) wC[i] = __half2float(__float2half(expf(a)));
    else wC[i] = __half2float(__float2half((a > 0.0f ? a : 0.0f) - 0.5f));
  }
  int rc = hmath((__half *)DEV(A, sizeof A), (__half *)DEV(B, sizeof B), (float *)DEV(C, sizeof C) TIR_STREAM);
  rc |= BACK();
  float gB[256];
  for (int i = 0; i < 256; i++) gB[i] = __half2float(B[i]);
  return report("hmath", rc, close_to("B", gB, wB, 256) + close_to("C", C, wC, 256));
}
#else
int main(void) {
  printf("hmath: float16 has no C11 type; run it with gpu/run_gpu.sh\n");
  return 0;
}
#endif
