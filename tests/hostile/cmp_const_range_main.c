#include <stdint.h>
#include <stdio.h>
int32_t f(int32_t *Out, int32_t a, int32_t m);
int main(void) {
  /* (a, m) with every value of the program in int32 */
  const int32_t as[] = {64, 64, 0, -3, 1};
  const int32_t ms[] = {40, 1, 2, 100, 536870912};
  for (int i = 0; i < 5; i++) {
    int32_t out[64] __attribute__((aligned(64))) = {0};
    int64_t l = (int64_t)as[i] * 33554431, r = ((int64_t)1073741824 - ms[i]) * 2;
    int32_t want = l < r ? 1 : 2;
    if (f(out, as[i], ms[i]) || out[0] != want) {
      printf("a=%d m=%d: %d, want %d\n", as[i], ms[i], out[0], want);
      return 1;
    }
  }
  return 0;
}
