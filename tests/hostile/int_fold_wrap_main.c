#include <stdint.h>
#include <stdio.h>
int32_t f(int32_t *A, uint8_t *B);
int main(void) {
  _Alignas(64) int32_t A[5];
  _Alignas(64) uint8_t B[1];
  f(A, B);
  _Alignas(64) int32_t want[5] = {INT32_MIN, INT32_MIN, 0, INT32_MIN, INT32_MAX};
  for (int i = 0; i < 5; i++)
    if (A[i] != want[i]) { printf("A[%d] = %d, want %d\n", i, A[i], want[i]); return 1; }
  if (B[0] != 4) { printf("B[0] = %d, want 4\n", B[0]); return 1; }
  return 0;
}
