#include <stdint.h>
#include <stdio.h>
int32_t f(float *A);
int main(void) {
  _Alignas(64) float A[64];
  for (int i = 0; i < 64; i++) A[i] = (float)i;
  if (f(A)) return 1;
  for (int i = 0; i < 64; i++)
    if (A[i] != (float)i + 1) { printf("A[%d] = %g\n", i, (double)A[i]); return 1; }
  return 0;
}
