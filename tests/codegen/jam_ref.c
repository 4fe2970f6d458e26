/* jam_ref.c - the reductions of jam.tir, each in its order: row max and
 * row sum of squares of a (12, 70) float32 A, the product of A and a (70,
 * 16) W, and the column sums of A. */
#include "harness.h"

TIR_EXTERN int32_t jam(float *A, float *W, float *M, float *S, float *P, float *C TIR_STREAM_PARAM);

TIR_ALIGNED static float A[12 * 70], W[70 * 16];
TIR_ALIGNED static float M[12], S[12], P[12 * 16], C[70];
TIR_ALIGNED static float wM[12], wS[12], wP[12 * 16], wC[70];

int main(void) {
  fill_f32(A, sizeof A / sizeof *A, -2.0f, 2.0f);
  fill_f32(W, sizeof W / sizeof *W, -2.0f, 2.0f);
  for (int i = 0; i < 12; i++) {
    float m = -3.40282347e+38f, s = 0.0f;
    for (int k = 0; k < 70; k++) m = A[i * 70 + k] > m ? A[i * 70 + k] : m;
    for (int k = 0; k < 70; k++) s = s + A[i * 70 + k] * A[i * 70 + k];
    wM[i] = m;
    wS[i] = s;
    for (int j = 0; j < 16; j++) {
      float p = 0.0f;
      for (int k = 0; k < 70; k++) p = p + A[i * 70 + k] * W[k * 16 + j];
      wP[i * 16 + j] = p;
    }
  }
  for (int j = 0; j < 70; j++) {
    float c = 0.0f;
    for (int i = 0; i < 12; i++) c = c + A[i * 70 + j];
    wC[j] = c;
  }
  int rc = jam((float *)DEV(A, sizeof A), (float *)DEV(W, sizeof W), (float *)DEV(M, sizeof M),
               (float *)DEV(S, sizeof S), (float *)DEV(P, sizeof P), (float *)DEV(C, sizeof C) TIR_STREAM);
  rc |= BACK();
  int bad = check_f32("M", M, wM, 12) + check_f32("S", S, wS, 12) + check_f32("P", P, wP, 12 * 16) +
            check_f32("C", C, wC, 70);
  return report("jam", rc, bad);
}
