#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
int32_t f(bool *A, bool *B, bool *X, bool *N, bool *O);
int main(void) {
  bool a[4] __attribute__((aligned(64))) = {0, 0, 1, 1}, b[4] __attribute__((aligned(64))) = {0, 1, 0, 1};
  bool x[4] __attribute__((aligned(64))), n[4] __attribute__((aligned(64))), o[4] __attribute__((aligned(64)));
  if (f(a, b, x, n, o)) return 1;
  for (int i = 0; i < 4; i++)
    if (x[i] != (a[i] != b[i]) || n[i] != (a[i] && b[i]) || o[i] != (a[i] || b[i])) {
      printf("%d: %d %d %d\n", i, x[i], n[i], o[i]);
      return 1;
    }
  return 0;
}
