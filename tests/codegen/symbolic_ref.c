/* symbolic_ref.c - B = A * 3 + floordiv(j - 7, 4) - floormod(i - 5, 3) over
 * m x n int32, run for two shapes with one compiled function. */
#include "harness.h"

TIR_EXTERN int32_t symbolic(int32_t *A, int32_t *B, int32_t m, int32_t n TIR_STREAM_PARAM);

TIR_ALIGNED static int32_t A[37 * 53], got[37 * 53], want[37 * 53];

static int32_t fdiv(int32_t a, int32_t b) { return (a - ((a % b) + b) % b) / b; }
static int32_t fmod_(int32_t a, int32_t b) { return ((a % b) + b) % b; }

static int run(int32_t m, int32_t n) {
  fill_bytes(A, sizeof A);
  for (int i = 0; i < m * n; i++) A[i] = A[i] % 100000;
  memset(got, 0, sizeof got);
  memset(want, 0, sizeof want);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) want[i * n + j] = A[i * n + j] * 3 + fdiv(j - 7, 4) - fmod_(i - 5, 3);
  int rc = symbolic((int32_t *)DEV(A, sizeof A), (int32_t *)DEV(got, sizeof got), m, n TIR_STREAM);
  rc |= BACK();
  return report("symbolic", rc, check_bytes("B", got, want, sizeof got));
}

int main(void) { return run(37, 53) | run(5, 3); }
