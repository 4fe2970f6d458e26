#include <math.h>
#include <stdint.h>
#include <stdio.h>
int32_t f(float *A, int32_t n, int32_t m, int32_t k, _Bool p);
int32_t g(void);
int32_t g_packed(const void *args, void *workspace);
int main(void) {
  float a[4] __attribute__((aligned(64))) = {9, 9, 9, 9};
  if (f(a, 1, 2, 3, 1) || g() || g_packed(0, 0)) return 1;
  float s = 1.0f / (1.0f + expf(2.5f));
  if (fabsf(a[0] - s) > 1e-6f || a[1] != 1 || a[2] != 1 || a[3] != 0) {
    printf("%g %g %g %g (sigmoid(-2.5) = %g)\n", a[0], a[1], a[2], a[3], s);
    return 1;
  }
  return 0;
}
