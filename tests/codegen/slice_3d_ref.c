/* slice_3d_ref.c - B[1+i, j, k] = A[1+i, 2+j, k] for the 2x3x16 box, int16,
 * the rest of B untouched. */
#include "harness.h"

TIR_EXTERN int32_t slice_3d(int16_t *A, int16_t *B TIR_STREAM_PARAM);

TIR_ALIGNED static int16_t A[4 * 8 * 16], got[3 * 4 * 16], want[3 * 4 * 16];

int main(void) {
  fill_bytes(A, sizeof A);
  fill_bytes(got, sizeof got);
  memcpy(want, got, sizeof want);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 16; k++) want[((1 + i) * 4 + j) * 16 + k] = A[((1 + i) * 8 + 2 + j) * 16 + k];
  int rc = slice_3d((int16_t *)DEV(A, sizeof A), (int16_t *)DEV(got, sizeof got) TIR_STREAM);
  rc |= BACK();
  return report("slice_3d", rc, check_bytes("B", got, want, sizeof got));
}
