#include <stdint.h>
#include <stdio.h>
int32_t f(int32_t *A, float *B);
int main(void) {
  _Alignas(64) int32_t A[4];
  _Alignas(64) float B[4] = {1.5f, -2.5f, 3.99f, -0.5f};
  _Alignas(64) int32_t want[4] = {1, -2, 3, 0};
  if (f(A, B)) return 1;
  for (int i = 0; i < 4; i++)
    if (A[i] != want[i]) { printf("A[%d] = %d\n", i, A[i]); return 1; }
  return 0;
}
