/* exec_value.c - values of every dtype: wrapping ints, rounding to
 * float16 / bfloat16 / float32, reading and writing elements in memory,
 * the seeded generator and the hash of --run. */
#include <math.h>
#include <string.h>

#include "exec/exec_internal.h"

int64_t x_wrap(int64_t v, int bits, bool uns) {
  if (bits >= 64) return v;
  if (bits == 1) return v & 1;
  unsigned sh = (unsigned)(64 - bits);
  uint64_t u = (uint64_t)v << sh;
  return uns ? (int64_t)(u >> sh) : (int64_t)u >> sh;
}

/* x rounded (to nearest, ties to even) to a binary float of p bits of
 * precision, normal exponents [emin, emax]; inf past the largest */
static double round_prec(double x, int p, int emin, int emax) {
  if (x != x || x == 0 || isinf(x)) return x;
  double ax = fabs(x);
  int e;
  frexp(ax, &e); /* ax = m * 2^e, m in [0.5, 1): the leading bit is 2^(e-1) */
  int lead = e - 1 < emin ? emin : e - 1;
  double q = ldexp(1.0, lead - (p - 1));
  double r = nearbyint(ax / q) * q;
  if (r >= ldexp(1.0, emax + 1)) r = INFINITY;
  return x < 0 ? -r : r;
}

double x_round_half(double x) { return round_prec(x, 11, -14, 15); }
double x_round_bf16(double x) { return round_prec(x, 8, -126, 127); }

double x_round_to(xek k, double x) {
  switch (k) {
  case EK_F16: return x_round_half(x);
  case EK_BF16: return x_round_bf16(x);
  case EK_F32: return (double)(float)x;
  default: return x;
  }
}

bool x_ek_is_float(xek k) { return k == EK_F16 || k == EK_BF16 || k == EK_F32 || k == EK_F64; }

xek x_elem_kind(tir_dtype t) {
  switch (t.code) {
  case TIR_TC_INT:
    return t.bits == 8 ? EK_I8 : t.bits == 16 ? EK_I16 : t.bits == 32 ? EK_I32 : t.bits == 64 ? EK_I64 : EK_BAD;
  case TIR_TC_UINT:
    return t.bits == 1 ? EK_BOOL : t.bits == 8 ? EK_U8 : t.bits == 16 ? EK_U16 : t.bits == 32 ? EK_U32
           : t.bits == 64 ? EK_U64 : EK_BAD;
  case TIR_TC_FLOAT: return t.bits == 16 ? EK_F16 : t.bits == 32 ? EK_F32 : t.bits == 64 ? EK_F64 : EK_BAD;
  case TIR_TC_BFLOAT: return t.bits == 16 ? EK_BF16 : EK_BAD;
  default: return EK_BAD;
  }
}

int x_ek_bytes(xek k) {
  static const int b[] = {1, 1, 2, 2, 4, 4, 8, 8, 1, 2, 2, 4, 8, 0};
  return b[k];
}

/* float16 bits <-> double (exact both ways for values of the type) */
static double half_to_double(uint16_t h) {
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 31) v = m ? NAN : INFINITY;
  else if (e == 0) v = ldexp((double)m, -24);
  else v = ldexp((double)(m | 1024), e - 25);
  return s ? -v : v;
}

static uint16_t double_to_half(double x) { /* x already rounded to half */
  uint16_t s = signbit(x) ? 0x8000 : 0;
  if (x != x) return 0x7e00;
  double ax = fabs(x);
  if (isinf(ax)) return s | 0x7c00;
  if (ax == 0) return s;
  if (ax < ldexp(1.0, -14)) return s | (uint16_t)(ax * ldexp(1.0, 24));
  int e;
  double m = frexp(ax, &e); /* m in [0.5, 1) */
  return s | (uint16_t)((e + 14) << 10) | (uint16_t)((m * 2 - 1) * 1024);
}

static double bf16_to_double(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static uint16_t double_to_bf16(double x) { /* x already rounded to bfloat16 */
  if (x != x) return 0x7fc0;
  float f = (float)x;
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16);
}

int64_t x_read_int(const uint8_t *p, xek k) {
  switch (k) {
  case EK_I8: return (int8_t)p[0];
  case EK_U8: return p[0];
  case EK_BOOL: return p[0] != 0;
  case EK_I16: { int16_t v; memcpy(&v, p, 2); return v; }
  case EK_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
  case EK_I32: { int32_t v; memcpy(&v, p, 4); return v; }
  case EK_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
  default: { int64_t v; memcpy(&v, p, 8); return v; }
  }
}

double x_read_float(const uint8_t *p, xek k) {
  switch (k) {
  case EK_F16: { uint16_t v; memcpy(&v, p, 2); return half_to_double(v); }
  case EK_BF16: { uint16_t v; memcpy(&v, p, 2); return bf16_to_double(v); }
  case EK_F32: { float v; memcpy(&v, p, 4); return v; }
  default: { double v; memcpy(&v, p, 8); return v; }
  }
}

void x_write_int(uint8_t *p, xek k, int64_t v) {
  switch (k) {
  case EK_I8: case EK_U8: p[0] = (uint8_t)v; break;
  case EK_BOOL: p[0] = v != 0; break;
  case EK_I16: case EK_U16: { uint16_t u = (uint16_t)v; memcpy(p, &u, 2); break; }
  case EK_I32: case EK_U32: { uint32_t u = (uint32_t)v; memcpy(p, &u, 4); break; }
  default: memcpy(p, &v, 8); break;
  }
}

void x_write_float(uint8_t *p, xek k, double v) {
  switch (k) {
  case EK_F16: { uint16_t u = double_to_half(x_round_half(v)); memcpy(p, &u, 2); break; }
  case EK_BF16: { uint16_t u = double_to_bf16(x_round_bf16(v)); memcpy(p, &u, 2); break; }
  case EK_F32: { float f = (float)v; memcpy(p, &f, 4); break; }
  default: memcpy(p, &v, 8); break;
  }
}

uint64_t x_splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t tir_exec_hash(const void *data, size_t bytes) {
  const uint8_t *p = data;
  uint64_t h = (uint64_t)bytes;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w = 0;
    for (int k = 0; k < 8; k++) w |= (uint64_t)p[i + k] << (8 * k);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  if (i < bytes) {
    uint64_t w = 0;
    for (int k = 0; i + (size_t)k < bytes; k++) w |= (uint64_t)p[i + (size_t)k] << (8 * k);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  return h ^ (h >> 32);
}
