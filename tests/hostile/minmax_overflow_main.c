#include <stdint.h>
#include <stdio.h>
int32_t f(int64_t *A, int64_t n);
int main(void) {
  _Alignas(64) int64_t A[16];
  if (f(A, 5)) return 1;
  for (int i = 0; i < 16; i++) {
    int64_t want = (int64_t)i * 65536 * 65536 > 5 ? (int64_t)i * 65536 * 65536 : 5;
    if (A[i] != want) { printf("A[%d] = %lld, want %lld\n", i, (long long)A[i], (long long)want); return 1; }
  }
  return 0;
}
