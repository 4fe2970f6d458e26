#include <stdint.h>
#include <stdio.h>
int32_t f(int32_t *Out, int32_t v, int32_t w);
int main(void) {
  int32_t out[4] __attribute__((aligned(64)));
  if (f(out, 5, 9)) return 1; /* s < 2: 5 >= 9 is false (2); s >= 2: 5 >= 5 (1) */
  for (int s = 0; s < 4; s++)
    if (out[s] != (s > 1 ? 1 : 2)) { printf("Out[%d] = %d\n", s, out[s]); return 1; }
  return 0;
}
