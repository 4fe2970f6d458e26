#include <stdint.h>
#include <stdio.h>
int32_t f(float *A, float *B, float *C, int32_t n);
int main(void) {
  float A[128] __attribute__((aligned(64))), B[130] __attribute__((aligned(64))), C[128] __attribute__((aligned(64)));
  for (int i = 0; i < 128; i++) A[i] = (float)i;
  if (f(A, B, C, 0)) return 1; /* n = 0: the last loop runs no iteration */
  for (int i = 0; i < 130; i++)
    if (B[i] != (i >= 1 && i < 129 ? (float)(i - 1) : 0.0f)) { printf("B[%d] = %g\n", i, (double)B[i]); return 1; }
  for (int i = 0; i < 128; i++)
    if (C[i] != 2.0f * (float)i + 1.0f) { printf("C[%d] = %g\n", i, (double)C[i]); return 1; }
  return 0;
}
