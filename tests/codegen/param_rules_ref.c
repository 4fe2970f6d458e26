/* param_rules_ref.c - B over A's data: B[i + 1] = A[i] * 0.5 + C[i] in
 * place, in order (each step reads what the one before wrote), then
 * D = A.  In C also the entry checks of the calling convention: another
 * pointer for B, or A, C or D off their alignment, returns -1 and writes
 * nothing. */
#include "harness.h"

TIR_EXTERN int32_t param_rules(float *A, float *B, float *C, float *D TIR_STREAM_PARAM);

#ifdef __cplusplus
alignas(128) static float A[256], C[256], D[256], want[256], wantD[256];
#else
_Alignas(128) static float A[256], C[256], D[256], want[256], wantD[256];
#endif
#ifndef TIR_GPU /* the entry checks are C's */
_Alignas(128) static float other[256 + 32], keep[256];
#endif

int main(void) {
  fill_f32(A, 256, -1.0f, 1.0f);
  fill_f32(C, 256, -1.0f, 1.0f);
  memcpy(want, A, sizeof A);
  for (int i = 0; i < 255; i++) want[i + 1] = want[i] * 0.5f + C[i];
  memcpy(wantD, want, sizeof want);
  int fails = 0;
#ifndef TIR_GPU
  memcpy(keep, A, sizeof A);
  /* B not A's data, A one float off 64 bytes, C 64 bytes off 128, D one float off */
  if (param_rules(A, other, C, D) != -1) fails++, printf("param_rules: B != A accepted\n");
  if (param_rules(A + 1, A + 1, C, D) != -1) fails++, printf("param_rules: A misaligned accepted\n");
  if (param_rules(A, A, other + 16, D) != -1) fails++, printf("param_rules: C misaligned accepted\n");
  if (param_rules(A, A, C, other + 1) != -1) fails++, printf("param_rules: D misaligned accepted\n");
  fails += check_bytes("A untouched by refused calls", A, keep, sizeof A);
#endif
  float *a = (float *)DEV(A, sizeof A);
  int rc = param_rules(a, a, (float *)DEV(C, sizeof C), (float *)DEV(D, sizeof D) TIR_STREAM);
  rc |= BACK();
  return report("param_rules", rc, fails + check_f32("A", A, want, 256) + check_f32("D", D, wantD, 256));
}
