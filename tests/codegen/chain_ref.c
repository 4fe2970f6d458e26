/* chain_ref.c - harness for examples/chain.tir:
 * y[i, j] = (max(2 x[i, j], 0) + 1) / sum_k (max(2 x[i, k], 0) + 1), 1e-5. */
#include "harness.h"

TIR_EXTERN int32_t chain(float *x, float *y TIR_STREAM_PARAM);

#define N 1024
TIR_ALIGNED static float x[N * N], got[N * N], want[N * N], c[N * N];

int main(void) {
  fill_f32(x, N * N, -1.0f, 1.0f);
  for (int i = 0; i < N; i++) {
    float d = 0.0f;
    for (int k = 0; k < N; k++) {
      float v = x[i * N + k] * 2.0f;
      c[i * N + k] = (v > 0.0f ? v : 0.0f) + 1.0f;
      d = d + c[i * N + k];
    }
    for (int j = 0; j < N; j++) want[i * N + j] = c[i * N + j] / d;
  }
  int rc = chain((float *)DEV(x, sizeof x), (float *)DEV(got, sizeof got) TIR_STREAM);
  rc |= BACK();
  return report("chain", rc, check_f32("y", got, want, N * N));
}
