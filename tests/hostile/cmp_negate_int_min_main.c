#include <stdint.h>
#include <stdio.h>
int32_t f(int64_t *Out, int64_t u);
int main(void) {
  int64_t out[4] __attribute__((aligned(64))) = {0, 0, 0, 0};
  /* -18014398509481983 - u == -2^63 exactly when u = 2^63 - 18014398509481983 */
  const int64_t hit = INT64_C(9205357638345293825);
  if (f(out, 0) || out[2] != 2 || out[1] != 2) { printf("u=0: %lld %lld\n", (long long)out[2], (long long)out[1]); return 1; }
  if (f(out, hit) || out[2] != 1 || out[1] != 2) { printf("u=hit: %lld %lld\n", (long long)out[2], (long long)out[1]); return 1; }
  return 0;
}
