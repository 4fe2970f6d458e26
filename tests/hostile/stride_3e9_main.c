#include "big_main_common.h"
int32_t f(float *A);
int main(void) {
  float *A = huge((size_t)3000000004 * sizeof(float));
  if (!A) return 0; /* no address space: nothing to check */
  f(A);
  for (int64_t i = 0; i < 2; i++)
    for (int64_t j = 0; j < 4; j++)
      if (A[i * 3000000000LL + j] != (float)(i * 4 + j + 1)) { printf("A[%lld, %lld] wrong\n", (long long)i, (long long)j); return 1; }
  return 0;
}
