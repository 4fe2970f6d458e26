#include <stdint.h>
#include <stdio.h>
int32_t f(float *a, float *b, float *c, float *d, int32_t x, int32_t y, int32_t z, int32_t w);
float scale2(float x) { return 2 * x; }
int main(void) {
  _Alignas(64) float a[4] = {1, 2, 3, 4}, b[4] = {0}, c[4] = {0}, d[4] = {10, 20, 30, 40};
  if (f(a, b, c, d, 1, 2, 3, 4)) return 1;
  for (int i = 0; i < 4; i++)
    if (b[i] != 2 * a[i] + d[i] || c[i] != 10) { printf("b[%d] = %g, c = %g\n", i, (double)b[i], (double)c[i]); return 1; }
  return 0;
}
