#include <stdint.h>
#include <stdio.h>
int32_t f(int32_t *Out, int32_t x);
int main(void) {
  int32_t xs[4] = {3, 5, -4, 1000};
  for (int k = 0; k < 4; k++) {
    _Alignas(64) int32_t Out[4] = {0};
    int32_t x = xs[k], y = x * 2, z = x == 5 ? -524288 : x;
    if (f(Out, x)) return 1;
    if (Out[0] != (y > 0 ? y : 0) || Out[1] != (z > 0 ? z : 0) || Out[2] != (z < 1 ? z : 1)) {
      printf("x = %d: %d %d %d\n", x, Out[0], Out[1], Out[2]);
      return 1;
    }
  }
  return 0;
}
