/* softmax_ref.c - row softmax over 32x100 float32, 1e-5 relative. */
#include "harness.h"

TIR_EXTERN int32_t softmax(float *A, float *B TIR_STREAM_PARAM);

TIR_ALIGNED static float A[32 * 100], got[32 * 100], want[32 * 100];

int main(void) {
  fill_f32(A, 32 * 100, -4.0f, 4.0f);
  for (int i = 0; i < 32; i++) {
    float m = -3.40282347e38f, s = 0.0f;
    for (int k = 0; k < 100; k++) m = A[i * 100 + k] > m ? A[i * 100 + k] : m;
    for (int k = 0; k < 100; k++) s = s + expf(A[i * 100 + k] - m);
    for (int j = 0; j < 100; j++) want[i * 100 + j] = expf(A[i * 100 + j] - m) / s;
  }
  int rc = softmax((float *)DEV(A, sizeof A), (float *)DEV(got, sizeof got) TIR_STREAM);
  rc |= BACK();
  return report("softmax", rc, check_f32("B", got, want, 32 * 100));
}
