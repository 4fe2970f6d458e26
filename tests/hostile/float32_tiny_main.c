#include <math.h>
#include <stdint.h>
#include <stdio.h>
int32_t f(float *F, double *D);
int main(void) {
  _Alignas(64) float F[3];
  _Alignas(64) double D[1];
  f(F, D);
  volatile double tiny = 1e-45;
  if (F[0] != 0.0f || F[1] != (float)tiny || F[2] != 0.0f || !signbit(F[2])) {
    printf("F = %.9g %.9g %.9g\n", F[0], F[1], F[2]);
    return 1;
  }
  if (D[0] != 1e-320) { printf("D[0] = %.17g\n", D[0]); return 1; }
  return 0;
}
