/* matmul_dlight_ref.c - T_matmul = X @ W, 64x64x64 float32, summed in k order. */
#include "harness.h"

TIR_EXTERN int32_t matmul_dlight(float *X, float *W, float *T_matmul TIR_STREAM_PARAM);

#define N 64
TIR_ALIGNED static float X[N * N], W[N * N], got[N * N], want[N * N];

int main(void) {
  fill_f32(X, N * N, -1.0f, 1.0f);
  fill_f32(W, N * N, -1.0f, 1.0f);
  fill_f32(got, N * N, 5.0f, 6.0f); /* garbage: the init must clear it */
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float s = 0.0f;
      for (int k = 0; k < N; k++) s = s + X[i * N + k] * W[k * N + j];
      want[i * N + j] = s;
    }
  int rc = matmul_dlight((float *)DEV(X, sizeof X), (float *)DEV(W, sizeof W), (float *)DEV(got, sizeof got) TIR_STREAM);
  rc |= BACK();
  return report("matmul_dlight", rc, check_f32("T_matmul", got, want, N * N));
}
