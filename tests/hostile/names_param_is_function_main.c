#include <stdint.h>
#include <stdio.h>
#include <string.h>
int32_t f(float *a, float *b);
int32_t f_packed(const void *args, void *workspace);
int main(void) {
  _Alignas(64) float a[4] = {1, 2, 3, 4}, b[4] = {0};
  if (f(a, b)) return 1;
  for (int i = 0; i < 4; i++)
    if (b[i] != a[i] + 1) return 1;
  float *ptrs[2] = {b, a}; /* through the packed entry point: a = b + 1 */
  char packed[16];
  memcpy(packed, ptrs, sizeof packed);
  if (f_packed(packed, NULL)) return 1;
  for (int i = 0; i < 4; i++)
    if (a[i] != (float)i + 3) { printf("a[%d] = %g\n", i, (double)a[i]); return 1; }
  return 0;
}
