#include "big_main_common.h"
int32_t f(int8_t *A);
int main(void) {
  int8_t *A = huge((size_t)65536 * 65536);
  if (!A) return 0;
  f(A);
  for (int64_t i = 0; i < 2; i++)
    for (int64_t j = 0; j < 3; j++)
      if (A[(65535 - i) * 65536 + 65533 + j] != 7) { printf("element %lld, %lld not written\n", (long long)i, (long long)j); return 1; }
  return 0;
}
