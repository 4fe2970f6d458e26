/* transpose_shared_ref.c - B[j, i] = A[i, j], 64x96 int32, bit-exact. */
#include "harness.h"

TIR_EXTERN int32_t transpose_shared(int32_t *A, int32_t *B TIR_STREAM_PARAM);

TIR_ALIGNED static int32_t A[64 * 96], got[96 * 64], want[96 * 64];

int main(void) {
  fill_bytes(A, sizeof A);
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 96; j++) want[j * 64 + i] = A[i * 96 + j];
  int rc = transpose_shared((int32_t *)DEV(A, sizeof A), (int32_t *)DEV(got, sizeof got) TIR_STREAM);
  rc |= BACK();
  return report("transpose_shared", rc, check_bytes("B", got, want, sizeof got));
}
