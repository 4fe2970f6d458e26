#include <stdint.h>
#include <stdio.h>
int32_t f(float *A, float *B, int32_t n);
int main(void) {
  _Alignas(64) float A[64], B[64];
  for (int i = 0; i < 64; i++) A[i] = (float)i, B[i] = -1;
  if (f(A, B, -5)) return 1; /* nothing */
  for (int i = 0; i < 64; i++)
    if (B[i] != -1) return 1;
  if (f(A, B, 10)) return 1;
  for (int i = 0; i < 64; i++)
    if (B[i] != (i < 10 ? (float)i : -1)) { printf("B[%d] = %g\n", i, (double)B[i]); return 1; }
  return 0;
}
