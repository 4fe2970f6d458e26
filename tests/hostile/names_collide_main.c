#include <stdint.h>
#include <stdio.h>
int32_t f(float *a, float *b, float *c);
int main(void) {
  _Alignas(64) float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {0};
  if (f(a, b, c)) return 1;
  for (int i = 0; i < 4; i++)
    if (c[i] != a[i] + 10 * b[i]) { printf("c[%d] = %g\n", i, (double)c[i]); return 1; }
  return 0;
}
