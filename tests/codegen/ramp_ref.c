/* ramp_ref.c - the vector stores of ramp.tir, lane by lane in plain C:
 * float results must match to 1e-5 relative, int8 ones bit-exactly. */
#include "harness.h"

TIR_EXTERN int32_t ramp(float *X, float *Y, float *Z, float *S, int8_t *P, int8_t *Q, float *W TIR_STREAM_PARAM);

TIR_ALIGNED static float X[32], Y[32], Z[16], S[32], W[8], wY[32], wZ[16], wS[32], wW[8];
TIR_ALIGNED static int8_t P[32], Q[32], wQ[32];

int main(void) {
  fill_f32(X, 32, -4.0f, 4.0f);
  fill_f32(W, 8, -4.0f, 4.0f);
  fill_bytes(P, sizeof P);
  memcpy(wW, W, sizeof W);
  for (int i = 0; i < 8; i++)
    for (int l = 0; l < 4; l++) {
      wY[i * 4 + l] = X[i * 4 + l] * 2.0f + 1.0f;
      wS[i + 8 * l] = X[i * 4 + l];
      wQ[i * 4 + l] = P[i * 4 + l] > 0 ? P[i * 4 + l] : 0;
    }
  for (int i = 0; i < 3; i++)
    for (int l = 0; l < 4; l++) wZ[i * 4 + 1 + l] = X[i * 4 + l];
  /* a vector store reads every lane before it writes any */
  float old[4] = {W[0], W[1], W[2], W[3]};
  for (int l = 0; l < 4; l++) wW[1 + l] = old[l] + 1.0f;
  int rc = ramp((float *)DEV(X, sizeof X), (float *)DEV(Y, sizeof Y), (float *)DEV(Z, sizeof Z),
                (float *)DEV(S, sizeof S), (int8_t *)DEV(P, sizeof P), (int8_t *)DEV(Q, sizeof Q),
                (float *)DEV(W, sizeof W) TIR_STREAM);
  rc |= BACK();
  int fails = check_f32("Y", Y, wY, 32) + check_f32("Z", Z, wZ, 16) + check_f32("S", S, wS, 32) +
              check_bytes("Q", Q, wQ, sizeof Q) + check_f32("W", W, wW, 8);
  return report("ramp", rc, fails);
}
