#include <stdint.h>
#include <stdio.h>
int32_t f(float *A);
int main(void) {
  _Alignas(64) float A[64], B[64];
  for (int i = 0; i < 64; i++) A[i] = B[i] = (float)i;
  if (f(A)) return 1;
  for (int i = 0; i < 3400; i++) B[i % 64] = B[(i * 7 + 1) % 64] + (float)(i % 10);
  for (int i = 0; i < 64; i++)
    if (A[i] != B[i]) { printf("A[%d] = %g, want %g\n", i, (double)A[i], (double)B[i]); return 1; }
  return 0;
}
