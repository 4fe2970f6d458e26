/* exp_f32_check.c - tir_exp_f32, the float32 e^x of tirc's generated C
 * (src/codegen_c/c_emit.c), against e^x correctly rounded, on every one of
 * the 2^32 floats (make check-exp; a few minutes on two cores), or on every
 * STRIDE-th of them (-DSTRIDE=N: make test's codegen target).
 *
 * Built with the C tirc generates for tests/exp/exp_f32.tir #included, so the
 * function checked is the one the code generator prints.  Its double result
 * before the last rounding is within 2^-50 (relative) of e^x; so is glibc's
 * exp in double.  Where exp(x) lies further than 2^-46 from a midpoint
 * between two floats, its rounding to float is the correct one and
 * tir_exp_f32 must give it; the few nearer a midpoint (and the ranges that
 * overflow, underflow or are ~1) are decided by expl (64-bit mantissa).
 * Counts glibc's expf against the same answers for comparison.  Exit 1 on
 * any float tir_exp_f32 rounds otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include EXP_C /* the generated C, with tir_exp_f32 */

#ifndef STRIDE
#define STRIDE 1
#endif

static float correct(float x, int *hard) {
  if (x > 89.0f || x < -104.0f || (x > -1e-9f && x < 1e-9f)) return (float)expl((long double)x);
  double e = exp((double)x);
  float f = (float)e, up = nextafterf(f, INFINITY), dn = nextafterf(f, 0.0f);
  double m1 = ((double)f + (double)up) / 2, m0 = ((double)f + (double)dn) / 2;
  if (fmin(fabs(e - m1), fabs(e - m0)) / fabs(e) >= 0x1p-46) return f;
  ++*hard;
  return (float)expl((long double)x);
}

int main(void) {
  long hard = 0, wrong = 0, glibc_wrong = 0;
#pragma omp parallel for reduction(+ : hard, wrong, glibc_wrong) schedule(dynamic, 1)
  for (long hi = 0; hi < 65536; hi++) {
    int h = 0;
    for (long lo = hi % STRIDE; lo < 65536; lo += STRIDE) {
      uint32_t u = (uint32_t)(hi << 16 | lo);
      float x;
      memcpy(&x, &u, sizeof x);
      float o = tir_exp_f32(x), g = expf(x);
      if (x != x) {
        wrong += o == o;
        continue;
      }
      float c = correct(x, &h);
      if (memcmp(&o, &c, sizeof o)) {
        if (wrong < 10) printf("x = %a: tir_exp_f32 %a, e^x rounded %a\n", x, o, c);
        wrong++;
      }
      glibc_wrong += memcmp(&g, &c, sizeof g) != 0;
    }
    hard += h;
  }
  printf("tir_exp_f32 on %s: %ld not correctly rounded (%ld near a midpoint, decided by expl); "
         "glibc's expf: %ld not correctly rounded\n",
         STRIDE == 1 ? "all 2^32 floats" : "every STRIDE-th float", wrong, hard, glibc_wrong);
  return wrong != 0;
}
