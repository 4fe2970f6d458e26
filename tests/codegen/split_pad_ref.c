/* split_pad_ref.c - B = A shifted by one with -1 at both ends; C = 1 below
 * 5, 3 at 7, 2 elsewhere; D = a staircase over i (the loop not split). */
#include "harness.h"

TIR_EXTERN int32_t split_pad(float *A, float *B, float *C, float *D TIR_STREAM_PARAM);

TIR_ALIGNED static float A[8], B[10], C[10], D[10], wB[10], wC[10], wD[10];

int main(void) {
  fill_f32(A, 8, -1.0f, 1.0f);
  for (int i = 0; i < 10; i++) {
    wB[i] = 1 <= i && i < 9 ? A[i - 1] : -1.0f;
    wC[i] = i < 5 ? 1.0f : i == 7 ? 3.0f : 2.0f;
    wD[i] = i < 2 ? 0.0f : i < 4 ? 1.0f : i < 6 ? 2.0f : i < 8 ? 3.0f : i < 9 ? 4.0f : 5.0f;
  }
  int rc = split_pad((float *)DEV(A, sizeof A), (float *)DEV(B, sizeof B), (float *)DEV(C, sizeof C),
                     (float *)DEV(D, sizeof D) TIR_STREAM);
  rc |= BACK();
  return report("split_pad", rc, check_f32("B", B, wB, 10) + check_f32("C", C, wC, 10) + check_f32("D", D, wD, 10));
}
