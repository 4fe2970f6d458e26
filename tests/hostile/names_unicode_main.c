#include <stdint.h>
#include <stdio.h>
int32_t f(float *a, float *b);
int main(void) {
  _Alignas(64) float a[4] = {1, 2, 3, 4}, b[4] = {0};
  if (f(a, b)) return 1;
  for (int i = 0; i < 4; i++)
    if (b[i] != 2 * a[i]) { printf("b[%d] = %g\n", i, (double)b[i]); return 1; }
  return 0;
}
