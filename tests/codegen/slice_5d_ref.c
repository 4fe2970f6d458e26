/* slice_5d_ref.c - B[a, b, c, d, e] = A[a, 1+b, 1+c, 1+d, 2+e], uint8. */
#include "harness.h"

TIR_EXTERN int32_t slice_5d(uint8_t *A, uint8_t *B TIR_STREAM_PARAM);

TIR_ALIGNED static uint8_t A[2 * 3 * 4 * 5 * 6], got[2 * 2 * 3 * 4 * 4], want[2 * 2 * 3 * 4 * 4];

int main(void) {
  fill_bytes(A, sizeof A);
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++)
      for (int c = 0; c < 3; c++)
        for (int d = 0; d < 4; d++)
          for (int e = 0; e < 4; e++)
            want[(((a * 2 + b) * 3 + c) * 4 + d) * 4 + e] = A[(((a * 3 + 1 + b) * 4 + 1 + c) * 5 + 1 + d) * 6 + 2 + e];
  int rc = slice_5d((uint8_t *)DEV(A, sizeof A), (uint8_t *)DEV(got, sizeof got) TIR_STREAM);
  rc |= BACK();
  return report("slice_5d", rc, check_bytes("B", got, want, sizeof got));
}
