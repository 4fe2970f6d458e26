/* slice_1d_ref.c - B[13:63] = A[7:57], float32, the rest of B untouched. */
#include "harness.h"

TIR_EXTERN int32_t slice_1d(float *A, float *B TIR_STREAM_PARAM);

TIR_ALIGNED static float A[100], got[80], want[80];

int main(void) {
  fill_f32(A, 100, -1.0f, 1.0f);
  fill_f32(got, 80, 2.0f, 3.0f);
  memcpy(want, got, sizeof want);
  for (int i = 0; i < 50; i++) want[13 + i] = A[7 + i];
  int rc = slice_1d((float *)DEV(A, sizeof A), (float *)DEV(got, sizeof got) TIR_STREAM);
  rc |= BACK();
  return report("slice_1d", rc, check_bytes("B", got, want, sizeof got));
}
