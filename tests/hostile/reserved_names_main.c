#include <stdint.h>
#include <stdio.h>
int32_t memcpy_fn(float *a, float *b);
int main(void) {
  _Alignas(64) float a[4] = {1, 2, 3, 4}, b[4] = {0};
  memcpy_fn(a, b);
  for (int i = 0; i < 4; i++)
    if (b[i] != 2 * a[i]) return 1;
  return 0;
}
