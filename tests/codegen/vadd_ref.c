/* vadd_ref.c - C = A + B over 4096 int32 (wrapping), bit-exact. */
#include "harness.h"

TIR_EXTERN int32_t vadd(int32_t *A, int32_t *B, int32_t *C TIR_STREAM_PARAM);

TIR_ALIGNED static int32_t A[4096], B[4096], got[4096], want[4096];

int main(void) {
  for (int i = 0; i < 4096; i++) {
    A[i] = (int32_t)(rnd() % 2000001u) - 1000000;
    B[i] = (int32_t)(rnd() % 2000001u) - 1000000;
    want[i] = A[i] + B[i];
  }
  int rc = vadd((int32_t *)DEV(A, sizeof A), (int32_t *)DEV(B, sizeof B), (int32_t *)DEV(got, sizeof got) TIR_STREAM);
  rc |= BACK();
  return report("vadd", rc, check_bytes("C", got, want, sizeof got));
}
