#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
int32_t f(float *A, int32_t *B, int64_t *C);
#define CHECK(c) do { if (!(c)) { printf("failed: %s\n", #c); return 1; } } while (0)
int main(void) {
  _Alignas(64) float A[4] = {1.5f, INFINITY, 0, 2.0f};
  _Alignas(64) int32_t B[12] = {0};
  _Alignas(64) int64_t C[2] = {0, (int64_t)0x00F0F0F0F0F0F0F0LL};
  B[10] = 0x0F0F1234; B[11] = -20;
  f(A, B, C);
  CHECK(B[0] == (0x0F0F1234 & -20));
  CHECK(B[1] == (0x0F0F1234 | -20));
  CHECK(B[2] == (0x0F0F1234 ^ -20));
  CHECK(B[3] == ~0x0F0F1234);
  CHECK(B[4] == (int32_t)((uint32_t)0x0F0F1234 << 4));
  CHECK(B[5] == -5); /* arithmetic shift of a signed int */
  CHECK(B[6] == __builtin_popcount(0x0F0F1234u));
  CHECK(B[7] == 4);
  int32_t bits; float a0 = 1.5f; memcpy(&bits, &a0, 4);
  CHECK(B[8] == bits);
  CHECK(B[9] == 1 + 2 + 4);
  CHECK(fabsf(A[2] - 100.0f) < 1e-3f);
  CHECK(C[0] == 28);
  return 0;
}
