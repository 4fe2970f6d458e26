#include <stdint.h>
#include <stdio.h>
int32_t f(int64_t *Out, int64_t u);
int main(void) {
  const int64_t us[] = {3, 0, -7, 100, 1000000};
  for (int i = 0; i < 5; i++) {
    int64_t out[64] __attribute__((aligned(64))) = {0};
    int64_t u = us[i], v = INT64_C(-2305843009213693953);
    if (u < v) v = u;
    /* the program's order (u u K v u v u K v u u u v u*7 after Out[0]):
     * every partial sum is in range for these u */
    const char *seq = "uKvuvuKvuuuvuuuuuuu";
    int64_t want = 0;
    for (const char *p = seq; *p; p++) want += *p == 'u' ? u : *p == 'v' ? v : INT64_C(1152921504606846976);
    if (f(out, u) || out[0] != want) { printf("u=%lld: %lld, want %lld\n", (long long)u, (long long)out[0], (long long)want); return 1; }
  }
  return 0;
}
