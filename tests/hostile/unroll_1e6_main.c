#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int32_t f(float *A);
int main(void) {
  float *A = aligned_alloc(64, sizeof *A * 1000000); /* the calling convention: 64-byte aligned */
  if (!A) return 1;
  for (int i = 0; i < 1000000; i++) A[i] = (float)(i % 100);
  if (f(A)) return 1;
  for (int i = 0; i < 1000000; i++)
    if (A[i] != (float)(i % 100) + 1) { printf("A[%d] = %g\n", i, (double)A[i]); return 1; }
  free(A);
  return 0;
}
