/* prefetch_ref.c - C[i] = sum over c < 250 of A[i, c] * B[c], A int8, B in
 * eighths: every product and sum is exact, so the result is the same in
 * any order and with fused multiply-adds. */
#include "harness.h"

TIR_EXTERN int32_t prefetch(int8_t *A, float *B, float *C TIR_STREAM_PARAM);

TIR_ALIGNED static int8_t A[64 * 256];
TIR_ALIGNED static float B[256], got[64], want[64];

int main(void) {
  fill_bytes(A, sizeof A);
  for (int c = 0; c < 256; c++) B[c] = (float)((int)(rnd() % 17) - 8) / 8.0f;
  fill_f32(got, 64, 5.0f, 6.0f);
  for (int i = 0; i < 64; i++) {
    float s = 0.0f;
    for (int c = 0; c < 250; c++) s += (float)A[i * 256 + c] * B[c];
    want[i] = s;
  }
  int rc = prefetch((int8_t *)DEV(A, sizeof A), (float *)DEV(B, sizeof B), (float *)DEV(got, sizeof got) TIR_STREAM);
  rc |= BACK();
  return report("prefetch", rc, check_f32("C", got, want, 64));
}
