#include <stdint.h>
#include <stdio.h>
int32_t f(int64_t *A);
int main(void) {
  _Alignas(64) int64_t A[2] = {0, 0};
  f(A);
  if (A[0] != INT64_MIN || A[1] != INT64_MIN) { printf("%lld %lld\n", (long long)A[0], (long long)A[1]); return 1; }
  return 0;
}
