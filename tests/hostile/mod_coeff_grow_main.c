#include <stdint.h>
#include <stdio.h>
int32_t f(int32_t *Out, int32_t m);
static int64_t fmod_(int64_t a, int64_t b) { int64_t r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
int main(void) {
  const int32_t ms[] = {2, 0, -7, 100, 3000000};
  for (int i = 0; i < 5; i++) {
    int32_t out[64] __attribute__((aligned(64))) = {0};
    int64_t m = ms[i], x = -15 + 5 * m, y = m - 1073741823 + m;
    int64_t want = fmod_(x < y ? x : y, -4097);
    if (f(out, ms[i]) || out[0] != want) { printf("m=%d: %d, want %lld\n", ms[i], out[0], (long long)want); return 1; }
  }
  return 0;
}
