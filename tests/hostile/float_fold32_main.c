#include <math.h>
#include <stdint.h>
#include <stdio.h>
int32_t f(float *A, double *C);
/* what the same arithmetic gives at run time, in float32 (volatile: not
 * folded by this compiler) */
int main(void) {
  _Alignas(64) float A[6];
  _Alignas(64) double C[1];
  volatile float big = 100000000.0f, one = 1.0f, max = 3.4028234663852886e+38f, a = 0.1f, b = 0.2f,
                 tiny = 1e-45f, two24 = 16777216.0f;
  f(A, C);
  float want[6] = {big + one - big, max * 2.0f, a + b, 1.0f, tiny * one, two24 + one};
  for (int i = 0; i < 6; i++)
    if (!(A[i] == want[i])) { printf("A[%d] = %.9g, want %.9g\n", i, A[i], want[i]); return 1; }
  if (A[0] != 0.0f || !isinf(A[1])) { printf("A[0] = %.9g, A[1] = %.9g\n", A[0], A[1]); return 1; }
  if (C[0] != 1.0) { printf("C[0] = %.17g, want 1\n", C[0]); return 1; }
  return 0;
}
