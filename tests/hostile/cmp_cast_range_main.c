#include <stdint.h>
#include <stdio.h>
int32_t f(int64_t *Out, int32_t c, int8_t d);
int main(void) {
  int64_t out[4] __attribute__((aligned(64))) = {0, 0, 0, 0};
  const int32_t cs[] = {INT32_MIN, -1, 0, INT32_MAX};
  for (int i = 0; i < 4; i++) {
    if (f(out, cs[i], (int8_t)-128) || out[0] != 2 || out[1] != 2 || out[2] != 2) {
      printf("c=%d: %lld %lld %lld\n", cs[i], (long long)out[0], (long long)out[1], (long long)out[2]);
      return 1;
    }
  }
  return 0;
}
