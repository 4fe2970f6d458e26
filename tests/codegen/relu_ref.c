/* relu_ref.c - harness for examples/relu.tir: compute = max(relu_a, 0) over
 * int8[256, 256, 64, 64], bit-exact. */
#include "harness.h"

TIR_EXTERN int32_t relu(int8_t *relu_a, int8_t *compute TIR_STREAM_PARAM);

#define N (256u * 256u * 64u * 64u)
TIR_ALIGNED static int8_t a[N], got[N], want[N];

int main(void) {
  fill_bytes(a, sizeof a);
  memset(got, 0x55, sizeof got);
  for (size_t i = 0; i < N; i++) want[i] = a[i] > 0 ? a[i] : 0;
  int rc = relu((int8_t *)DEV(a, sizeof a), (int8_t *)DEV(got, sizeof got) TIR_STREAM);
  rc |= BACK();
  return report("relu", rc, check_bytes("compute", got, want, sizeof got));
}
