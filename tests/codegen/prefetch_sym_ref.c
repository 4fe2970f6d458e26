/* prefetch_sym_ref.c - C[i] = sum over c < min(16 * kt, 250) of A[i, c] * B[c],
 * A int8, B in eighths (exact in any order), for kt = 16, 1 and 0. */
#include "harness.h"

TIR_EXTERN int32_t prefetch_sym(int8_t *A, float *B, float *C, int32_t kt TIR_STREAM_PARAM);

TIR_ALIGNED static int8_t A[64 * 256];
TIR_ALIGNED static float B[256], got[64], want[64];

static int run(int32_t kt) {
  fill_bytes(A, sizeof A);
  for (int c = 0; c < 256; c++) B[c] = (float)((int)(rnd() % 17) - 8) / 8.0f;
  fill_f32(got, 64, 5.0f, 6.0f);
  for (int i = 0; i < 64; i++) {
    float s = 0.0f;
    for (int c = 0; c < 16 * kt && c < 250; c++) s += (float)A[i * 256 + c] * B[c];
    want[i] = s;
  }
  int rc = prefetch_sym((int8_t *)DEV(A, sizeof A), (float *)DEV(B, sizeof B), (float *)DEV(got, sizeof got), kt TIR_STREAM);
  rc |= BACK();
  return report("prefetch_sym", rc, check_f32("C", got, want, 64));
}

int main(void) { return run(16) | run(1) | run(0); }
