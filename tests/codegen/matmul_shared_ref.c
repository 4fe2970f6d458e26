/* matmul_shared_ref.c - C = A @ B, 64x64x64 float32, summed in k order. */
#include "harness.h"

TIR_EXTERN int32_t matmul_shared(float *A, float *B, float *C TIR_STREAM_PARAM);

#define N 64
TIR_ALIGNED static float A[N * N], B[N * N], got[N * N], want[N * N];

int main(void) {
  fill_f32(A, N * N, -1.0f, 1.0f);
  fill_f32(B, N * N, -1.0f, 1.0f);
  fill_f32(got, N * N, 5.0f, 6.0f); /* garbage: the init must clear it */
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float s = 0.0f;
      for (int k = 0; k < N; k++) s = s + A[i * N + k] * B[k * N + j];
      want[i * N + j] = s;
    }
  int rc = matmul_shared((float *)DEV(A, sizeof A), (float *)DEV(B, sizeof B), (float *)DEV(got, sizeof got) TIR_STREAM);
  rc |= BACK();
  return report("matmul_shared", rc, check_f32("C", got, want, N * N));
}
