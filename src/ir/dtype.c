/* dtype.c - data types: parsing, printing, predicates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tir/ir.h"

const tir_dtype TIR_INT8 = {TIR_TC_INT, 8, 1}, TIR_INT16 = {TIR_TC_INT, 16, 1},
                TIR_INT32 = {TIR_TC_INT, 32, 1}, TIR_INT64 = {TIR_TC_INT, 64, 1},
                TIR_UINT8 = {TIR_TC_UINT, 8, 1}, TIR_FLOAT16 = {TIR_TC_FLOAT, 16, 1},
                TIR_FLOAT32 = {TIR_TC_FLOAT, 32, 1}, TIR_FLOAT64 = {TIR_TC_FLOAT, 64, 1},
                TIR_BOOL = {TIR_TC_UINT, 1, 1}, TIR_HANDLE = {TIR_TC_HANDLE, 64, 1},
                TIR_VOID = {TIR_TC_HANDLE, 0, 1};

bool tir_dtype_eq(tir_dtype a, tir_dtype b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
bool tir_dtype_is_bool(tir_dtype t) { return t.code == TIR_TC_UINT && t.bits == 1; }
bool tir_dtype_is_int(tir_dtype t) {
  return (t.code == TIR_TC_INT || t.code == TIR_TC_UINT) && !tir_dtype_is_bool(t);
}
/* TVM's names of the small floats, in tir_type_code order from TIR_TC_F8_E3M4,
 * each with the largest literal TVM 0.27's FloatImm takes (its
 * T.max_value): ml_dtypes' finfo max except float8_e3m4 (31, not 15.5),
 * float8_e4m3 and float8_e4m3fnuz (448, not 240) and float8_e8m0fnu
 * (float32's largest); and whether it holds no negative value (TVM refuses a
 * negative literal of the fnuz types and of float8_e8m0fnu; -0.0 it reads) */
static const struct { const char *name; int bits; double max; bool nonneg; } SMALL[] = {
    {"float8_e3m4", 8, 31.0, false},          {"float8_e4m3", 8, 448.0, false},
    {"float8_e4m3b11fnuz", 8, 30.0, true},     {"float8_e4m3fn", 8, 448.0, false},
    {"float8_e4m3fnuz", 8, 448.0, true},       {"float8_e5m2", 8, 57344.0, false},
    {"float8_e5m2fnuz", 8, 57344.0, true},     {"float8_e8m0fnu", 8, 3.4028234663852886e+38, true},
    {"float6_e2m3fn", 6, 7.5, false},          {"float6_e3m2fn", 6, 28.0, false},
    {"float4_e2m1fn", 4, 6.0, false}};
#define NSMALL ((int)(sizeof SMALL / sizeof SMALL[0]))

bool tir_dtype_is_small_float(tir_dtype t) { return t.code >= TIR_TC_F8_E3M4 && t.code < TIR_TC_F8_E3M4 + NSMALL; }
bool tir_dtype_is_float(tir_dtype t) {
  return t.code == TIR_TC_FLOAT || t.code == TIR_TC_BFLOAT || tir_dtype_is_small_float(t);
}
double tir_dtype_float_max(tir_dtype t) {
  if (tir_dtype_is_small_float(t)) return SMALL[t.code - TIR_TC_F8_E3M4].max;
  if (t.code == TIR_TC_BFLOAT && t.bits == 16) return 3.3895313892515355e+38;
  if (t.code == TIR_TC_FLOAT && t.bits == 32) return 3.4028234663852886e+38; /* FLT_MAX */
  if (t.code == TIR_TC_FLOAT && t.bits == 16) return 65504.0;
  return 0;
}
bool tir_dtype_float_nonneg(tir_dtype t) { return tir_dtype_is_small_float(t) && SMALL[t.code - TIR_TC_F8_E3M4].nonneg; }
bool tir_dtype_is_handle(tir_dtype t) { return t.code == TIR_TC_HANDLE; }
bool tir_dtype_is_scalable(tir_dtype t) { return (t.lanes & TIR_LANES_SCALABLE) != 0; }

tir_dtype tir_dtype_with_lanes(tir_dtype t, int lanes) {
  t.lanes = (uint16_t)lanes;
  return t;
}
int tir_dtype_bytes(tir_dtype t) { return (t.bits * t.lanes + 7) / 8; }

static bool parse_uint(const char *s, long *out) {
  if (!*s) return false;
  long v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return false;
    v = v * 10 + (*s - '0');
    if (v > 65535) return false;
  }
  *out = v;
  return true;
}

bool tir_dtype_parse(const char *s, tir_dtype *out) {
  if (!s) return false;
  if (!strcmp(s, "bool")) { *out = TIR_BOOL; return true; }
  if (!strcmp(s, "handle")) { *out = TIR_HANDLE; return true; }
  if (!strcmp(s, "void")) { *out = TIR_VOID; return true; }
  char base[32];
  size_t n = strlen(s);
  if (n >= sizeof base) return false;
  memcpy(base, s, n + 1);
  long lanes = 1;
  for (int i = 0; i < NSMALL; i++) {
    size_t nl = strlen(SMALL[i].name);
    if (strncmp(base, SMALL[i].name, nl) || (base[nl] && base[nl] != 'x')) continue;
    if (base[nl] && (!parse_uint(base + nl + 1, &lanes) || lanes < 1 || lanes >= TIR_LANES_SCALABLE)) return false;
    *out = (tir_dtype){(uint8_t)(TIR_TC_F8_E3M4 + i), (uint8_t)SMALL[i].bits, (uint16_t)lanes};
    return true;
  }
  char *x = strchr(base, 'x');
  long scalable = 0;
  if (x && !strncmp(x, "xvscalex", 8)) { /* float32xvscalex4: 4 * vscale lanes */
    if (!parse_uint(x + 8, &lanes) || lanes < 1 || lanes >= TIR_LANES_SCALABLE) return false;
    scalable = TIR_LANES_SCALABLE;
    *x = 0;
  } else if (x) {
    if (!parse_uint(x + 1, &lanes) || lanes < 1 || lanes >= TIR_LANES_SCALABLE) return false;
    *x = 0;
  }
  if (!strcmp(base, "bool")) { /* boolx4, boolxvscalex4: TVM's vector masks */
    *out = tir_dtype_with_lanes(TIR_BOOL, (int)(lanes | scalable));
    return true;
  }
  struct { const char *p; tir_type_code c; } pre[] = {
      {"bfloat", TIR_TC_BFLOAT}, {"float", TIR_TC_FLOAT}, {"uint", TIR_TC_UINT}, {"int", TIR_TC_INT}};
  for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
    size_t pl = strlen(pre[i].p);
    if (strncmp(base, pre[i].p, pl)) continue;
    long bits;
    if (!parse_uint(base + pl, &bits)) return false;
    bool ok;
    switch (pre[i].c) {
    case TIR_TC_BFLOAT: ok = bits == 16; break;
    case TIR_TC_FLOAT: ok = bits == 16 || bits == 32 || bits == 64; break;
    default: /* and TVM's integers of any other width 1 to 64 (int4, uint2, int1; uint1 is not bool) */
      ok = bits >= 1 && bits <= 64;
      break;
    }
    if (!ok) return false;
    out->code = (uint8_t)(pre[i].c == TIR_TC_UINT && bits == 1 ? TIR_TC_UINT1 : pre[i].c);
    out->bits = (uint8_t)bits;
    out->lanes = (uint16_t)(lanes | scalable);
    return true;
  }
  return false;
}

char *tir_dtype_str(tir_dtype t, char *buf) {
  const char *base;
  if (t.code == TIR_TC_HANDLE) {
    strcpy(buf, t.bits == 0 ? "void" : "handle");
    return buf;
  }
  const char *vs = tir_dtype_is_scalable(t) ? "vscalex" : "";
  int lanes = t.lanes & ~TIR_LANES_SCALABLE;
  if (tir_dtype_is_bool(t)) {
    if (t.lanes == 1) strcpy(buf, "bool");
    else snprintf(buf, 32, "boolx%s%d", vs, lanes);
    return buf;
  }
  if (tir_dtype_is_small_float(t)) {
    const char *n = SMALL[t.code - TIR_TC_F8_E3M4].name;
    if (t.lanes == 1) snprintf(buf, 32, "%s", n);
    else snprintf(buf, 32, "%sx%s%d", n, vs, lanes);
    return buf;
  }
  switch (t.code) {
  case TIR_TC_INT: base = "int"; break;
  case TIR_TC_UINT: case TIR_TC_UINT1: base = "uint"; break;
  case TIR_TC_FLOAT: base = "float"; break;
  default: base = "bfloat"; break;
  }
  if (t.lanes == 1) snprintf(buf, 32, "%s%d", base, t.bits);
  else snprintf(buf, 32, "%s%dx%s%d", base, t.bits, vs, lanes);
  return buf;
}
