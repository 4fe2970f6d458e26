/* reader_expr.c - expressions: literals, names, operators with TVM's dtype
 * rules and constant folding, subscripts (loads and regions), and the
 * conversions of values to exprs, ints, strings, dtypes and attributes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/const_fold.h"
#include "script/reader.h"

static bool is_pynum(rval v) { return v.k == RV_INT || v.k == RV_FLOAT || v.k == RV_BOOL; }

/* ---- literals ---- */

/* a literal's base from its prefix (0x, 0o, 0b), *p moved past it */
static int literal_base(const char **p) {
  const char *s = *p;
  int base = s[0] != '0' ? 10 : s[1] == 'x' || s[1] == 'X' ? 16 : s[1] == 'o' || s[1] == 'O' ? 8
           : s[1] == 'b' || s[1] == 'B' ? 2 : 10;
  if (base != 10) *p += 2;
  return base;
}

/* a Python integer literal's value, when it is one and fits 64 bits unsigned */
bool rd_uint64_literal(const char *t, uint64_t *out) {
  const char *p = t;
  int base = literal_base(&p);
  uint64_t v = 0;
  for (; *p; p++) {
    if (*p == '_') continue;
    int dg = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
           : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : 99;
    if (dg >= base || v > (UINT64_MAX - (uint64_t)dg) / (uint64_t)base) return false;
    v = v * (uint64_t)base + (uint64_t)dg;
  }
  *out = v;
  return true;
}

static rval int_literal(rd *r, TSNode n) {
  const char *t = rd_text(r, n);
  tir_span sp = rd_span(n);
  const char *p = t;
  int base = literal_base(&p);
  uint64_t v = 0;
  bool over = false;
  /* Python's grammar: an underscore only between digits (or after the
   * base prefix), and no leading zero in a decimal literal but zero's */
  bool bad_us = p[0] == '_' && base == 10;
  for (const char *q = p; *q && !bad_us; q++)
    bad_us = *q == '_' && (!q[1] || q[1] == '_');
  if (bad_us) {
    tir_error(r->d, sp, "invalid integer literal '%s' (an underscore goes between digits)", t);
    return rv_err();
  }
  if (base == 10 && p[0] == '0') {
    for (const char *q = p; *q; q++)
      if (*q != '0' && *q != '_') {
        tir_error(r->d, sp, "leading zeros in a decimal integer literal are not permitted in Python ('%s'; an octal "
                            "integer is written 0o...)", t);
        return rv_err();
      }
  }
  for (; *p; p++) {
    if (*p == '_') continue;
    int dg;
    if (*p >= '0' && *p <= '9') dg = *p - '0';
    else if (*p >= 'a' && *p <= 'f') dg = *p - 'a' + 10;
    else if (*p >= 'A' && *p <= 'F') dg = *p - 'A' + 10;
    else {
      tir_error(r->d, sp, "unsupported numeric literal '%s'", t);
      return rv_err();
    }
    if (dg >= base) {
      tir_error(r->d, sp, "invalid digit in integer literal '%s'", t);
      return rv_err();
    }
    if (v > (UINT64_MAX - (uint64_t)dg) / (uint64_t)base) over = true;
    else v = v * (uint64_t)base + (uint64_t)dg;
  }
  if (over || v > (uint64_t)INT64_MAX) { /* a Python int past int64: in 128 bits */
    unsigned __int128 w = 0;
    const char *q = t;
    int b = literal_base(&q);
    bool wide_over = false;
    for (; *q && !wide_over; q++) {
      if (*q == '_') continue;
      int dg = *q >= '0' && *q <= '9' ? *q - '0' : *q >= 'a' && *q <= 'f' ? *q - 'a' + 10 : *q - 'A' + 10;
      wide_over = w > (((unsigned __int128)1 << 127) - 1 - (unsigned)dg) / (unsigned)b;
      w = w * (unsigned)b + (unsigned)dg;
    }
    if (wide_over) {
      tir_error(r->d, sp, "integer literal %s out of range (tirc holds Python ints to 2**127)", t);
      return rv_err();
    }
    return rd_big_val((__int128)w, sp);
  }
  return (rval){.k = RV_INT, .i = (int64_t)v, .sp = sp};
}

static rval float_literal(rd *r, TSNode n) {
  const char *t = rd_text(r, n);
  tir_span sp = rd_span(n);
  size_t len = strlen(t);
  char *buf = tir_alloc(r->c, len + 1), *q = buf;
  for (const char *p = t; *p; p++)
    if (*p != '_') *q++ = *p;
  *q = 0;
  if (q > buf && (q[-1] == 'j' || q[-1] == 'J')) {
    tir_error(r->d, sp, "complex literals are not supported");
    return rv_err();
  }
  errno = 0;
  char *end;
  double v = strtod(buf, &end);
  /* past double's range is refused (Python would make it inf: write
   * T.float64("inf")); below it, strtod's ERANGE, the value is Python's
   * too: a subnormal, or 0 */
  if (*end || isinf(v)) {
    tir_error(r->d, sp, "float literal %s out of range for a double (write \"inf\" for infinity)", t);
    return rv_err();
  }
  return (rval){.k = RV_FLOAT, .f = v, .sp = sp};
}

static int hexval(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* code point u as UTF-8 at out; its length */
static size_t utf8_put(unsigned long u, char *out) {
  if (u < 0x80) { out[0] = (char)u; return 1; }
  if (u < 0x800) { out[0] = (char)(0xC0 | (u >> 6)); out[1] = (char)(0x80 | (u & 63)); return 2; }
  if (u < 0x10000) {
    out[0] = (char)(0xE0 | (u >> 12)); out[1] = (char)(0x80 | ((u >> 6) & 63)); out[2] = (char)(0x80 | (u & 63));
    return 3;
  }
  out[0] = (char)(0xF0 | (u >> 18)); out[1] = (char)(0x80 | ((u >> 12) & 63));
  out[2] = (char)(0x80 | ((u >> 6) & 63)); out[3] = (char)(0x80 | (u & 63));
  return 4;
}

/* Python's escapes (\xHH, \uXXXX, \UXXXXXXXX, octal, the letters); an
 * unknown one stays as written, as in Python.  out has room for n bytes
 * (no escape grows). */
static int unescape(const char *s, size_t n, char *out) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    if (ch == '\\' && i + 1 < n) {
      char e = s[++i];
      int digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
      if (digits) {
        unsigned long u = 0;
        int got = 0;
        while (got < digits && i + 1 + got < n && hexval(s[i + 1 + got]) >= 0) u = u * 16 + (unsigned long)hexval(s[i + 1 + (got++)]);
        if (got == digits && u <= 0x10FFFF) {
          i += (size_t)digits;
          k += utf8_put(u, out + k);
          continue;
        }
        out[k++] = '\\';
        out[k++] = e;
        continue;
      }
      if (e >= '0' && e <= '7') {
        unsigned u = (unsigned)(e - '0');
        for (int d = 0; d < 2 && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7'; d++) u = u * 8 + (unsigned)(s[++i] - '0');
        k += utf8_put(u, out + k);
        continue;
      }
      switch (e) {
      case 'n': ch = '\n'; break;
      case 't': ch = '\t'; break;
      case 'r': ch = '\r'; break;
      case 'a': ch = '\a'; break;
      case 'b': ch = '\b'; break;
      case 'f': ch = '\f'; break;
      case 'v': ch = '\v'; break;
      case '\\': case '\'': case '"': ch = e; break;
      case '\n': continue;
      default: out[k++] = '\\'; ch = e; break;
      }
    }
    out[k++] = ch;
  }
  out[k] = 0;
  return (int)k;
}

/* a string whose escapes make a NUL character ("a\0b", "\x00"): TVM keeps
 * the whole string, tirc's strings end at a NUL: refused, not cut (NULL) */
static const char *nul_in_string(rd *r, TSNode n) {
  tir_error(r->d, rd_span(n), "a string with a NUL character (\\0, \\x00) is not supported");
  return NULL;
}

/* an f-string's text: its literal parts (`{{` and `}}` are braces) and
 * each {expression} of a Python int, bool or string, as Python formats
 * them (TVM's parser evaluates the f-string in Python); NULL after an error */
static const char *fstring_literal(rd *r, TSNode n, bool raw) {
  const char *src = r->src;
  uint32_t cnt = ts_node_child_count(n), from = 0, to = 0;
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = ts_node_child(n, i);
    if (!strcmp(ts_node_type(c), "string_start")) from = ts_node_end_byte(c);
    if (!strcmp(ts_node_type(c), "string_end")) to = ts_node_start_byte(c);
  }
  if (to < from) return NULL;
  size_t cap = 64, len = 0;
  char *out = malloc(cap);
  if (!out) abort();
  uint32_t at = from;
  for (uint32_t i = 0; i <= cnt; i++) {
    TSNode c = i < cnt ? ts_node_child(n, i) : (TSNode){0};
    bool interp = i < cnt && !strcmp(ts_node_type(c), "interpolation");
    if (!interp && i < cnt) continue;
    uint32_t end = interp ? ts_node_start_byte(c) : to;
    /* the literal part before it: braces doubled, then escapes */
    char *lit = malloc(end - at + 1);
    if (!lit) abort();
    size_t k = 0;
    for (uint32_t j = at; j < end; j++) {
      lit[k++] = src[j];
      if ((src[j] == '{' || src[j] == '}') && j + 1 < end && src[j + 1] == src[j]) j++;
    }
    char *un = malloc(k + 1);
    if (!un) abort();
    size_t ul = raw ? (memcpy(un, lit, k), k) : (size_t)unescape(lit, k, un);
    free(lit);
    if (!raw && ul != strlen(un)) {
      free(un), free(out);
      return nul_in_string(r, n);
    }
    const char *piece = un;
    char num[32];
    rval v = {.k = RV_NONE};
    if (interp) {
      TSNode ex = rd_child(c, 0);
      if (rd_child_count(c) != 1) {
        tir_error(r->d, rd_span(c), "an f-string's conversion or format spec is not supported");
        free(un), free(out);
        return NULL;
      }
      v = rd_eval(r, ex);
      if (v.k == RV_INT) snprintf(num, sizeof num, "%lld", (long long)v.i);
      else if (v.k == RV_BOOL) snprintf(num, sizeof num, "%s", v.i ? "True" : "False");
      else if (v.k != RV_STR) {
        if (v.k != RV_ERR) tir_error(r->d, rd_span(ex), "an f-string takes Python ints, bools and strings here");
        free(un), free(out);
        return NULL;
      }
    }
    const char *val = !interp ? "" : v.k == RV_STR ? v.s : num;
    size_t need = len + ul + strlen(val) + 1;
    if (need > cap) {
      while (cap < need) cap *= 2;
      out = realloc(out, cap);
      if (!out) abort();
    }
    memcpy(out + len, piece, ul), len += ul;
    memcpy(out + len, val, strlen(val)), len += strlen(val);
    free(un);
    if (interp) at = ts_node_end_byte(c);
  }
  const char *res = tir_strndup(r->c, out, len);
  free(out);
  return res;
}

static const char *string_literal(rd *r, TSNode n) {
  const char *t = rd_text(r, n);
  size_t i = 0;
  bool raw = false, f = false;
  for (; t[i] && t[i] != '"' && t[i] != '\''; i++) {
    if (t[i] == 'f' || t[i] == 'F') f = true;
    if (t[i] == 'r' || t[i] == 'R') raw = true;
    if (t[i] == 'b' || t[i] == 'B') { /* Python's bytes, no str: TVM refuses it as a value */
      tir_error(r->d, rd_span(n), "a bytes literal (b\"...\") is not supported: TVMScript takes str");
      return NULL;
    }
  }
  if (f) return fstring_literal(r, n, raw);
  size_t len = strlen(t);
  size_t q = (len - i >= 6 && t[i + 1] == t[i] && t[i + 2] == t[i]) ? 3 : 1;
  if (len < i + 2 * q) return "";
  const char *body = t + i + q;
  size_t blen = len - i - 2 * q;
  if (raw) return tir_strndup(r->c, body, blen);
  for (size_t j = 0; j + 1 < blen; j++) { /* \N{NAME}: Python's named character, which tirc does not know */
    if (body[j] == '\\' && body[j + 1] == '\\') { j++; continue; }
    if (body[j] == '\\' && body[j + 1] == 'N') {
      tir_error(r->d, rd_span(n), "a \\N{...} escape (a character by its Unicode name) is not supported");
      return NULL;
    }
  }
  char *out = tir_alloc(r->c, blen + 1);
  if ((size_t)unescape(body, blen, out) != strlen(out)) return nul_in_string(r, n);
  return out;
}

static rval string_value(rd *r, TSNode n) {
  if (rd_is(n, "concatenated_string")) {
    size_t total = 0, cnt = rd_child_count(n);
    const char **parts = tir_alloc(r->c, sizeof *parts * (cnt + 1));
    for (uint32_t i = 0; i < cnt; i++) {
      parts[i] = string_literal(r, rd_child(n, i));
      if (!parts[i]) return rv_err();
      total += strlen(parts[i]);
    }
    char *s = tir_alloc(r->c, total + 1);
    for (uint32_t i = 0; i < cnt; i++) strcat(s, parts[i]);
    return (rval){.k = RV_STR, .s = s, .sp = rd_span(n)};
  }
  const char *s = string_literal(r, n);
  if (!s) return rv_err();
  rval v = {.k = RV_STR, .s = s, .sp = rd_span(n)};
  /* where the body is the source's text (no prefix, no escape, one line) */
  const char *t = rd_text(r, n);
  size_t len = strlen(t), sl = strlen(s);
  if ((t[0] == '"' || t[0] == '\'') && len == sl + 2 && !memcmp(t + 1, s, sl) && !strchr(s, '\n') && sl) {
    v.lit_at = ts_node_start_byte(n) + 1;
    v.lit_len = (uint32_t)sl;
    v.lit_pt = ts_node_start_point(n);
    v.lit_pt.column++;
  }
  return v;
}

/* ---- conversions ---- */

static tir_expr *with_span(rd *r, tir_expr *e, tir_span sp) {
  if (e && e->kind != TIR_VAR && sp.line) e->span = sp;
  (void)r;
  return e;
}

static tir_expr *region_as_load(rd *r, rval v);

/* a Python float within float32's finite range (not inf or nan), which
 * tvm.tirx.const makes a float32 and TVM's conversion takes */
bool rd_py_float_fits_f32(double f) { return fabs(f) <= tir_dtype_float_max(TIR_FLOAT32); }

/* a Python value as tvm.tirx.const infers its type (a let's value, a
 * local scalar's): a float past float32's range, inf and nan are float64 */
tir_expr *rd_const_expr(rd *r, rval v) {
  if (v.k == RV_FLOAT && !rd_py_float_fits_f32(v.f))
    return with_span(r, tir_float(r->c, TIR_FLOAT64, v.f), v.sp);
  return rd_as_expr(r, v);
}

tir_expr *rd_as_expr(rd *r, rval v) {
  switch (v.k) {
  case RV_EXPR: return v.e;
  case RV_BOOL: return with_span(r, tir_bool(r->c, v.i != 0), v.sp);
  case RV_INT:
    return with_span(r, tir_int(r->c, v.i >= INT32_MIN && v.i <= INT32_MAX ? TIR_INT32 : TIR_INT64, v.i), v.sp);
  case RV_FLOAT: /* TVM's FFI conversion of a Python float (a call's argument, an attr's value, T.evaluate,
                   * T.Cast, T.Broadcast, T.Select, T.exp ...): always a float32, inf and nan too, and past
                   * float32's range refused ("Literal value 1e+300 exceeds maximum of float32"); a let or a
                   * local scalar infers its type instead (rd_const_expr) */
    if (isfinite(v.f) && !rd_py_float_fits_f32(v.f)) {
      tir_error(r->d, v.sp, "the Python float %g is past float32's range, and TVM makes a float32 of it here "
                            "(write T.float64(...))", v.f);
      return NULL;
    }
    return with_span(r, tir_float(r->c, TIR_FLOAT32, v.f), v.sp);
  case RV_STR:
    if (v.llvm_id) {
      tir_error(r->d, v.sp,
                "T.llvm_lookup_intrinsic_id is the LLVM build's number for the intrinsic, which tirc cannot know; "
                "it is read only as the intrinsic of T.call_llvm_intrin / T.call_llvm_pure_intrin");
      return NULL;
    }
    return with_span(r, tir_string(r->c, v.s), v.sp);
  case RV_REGION: /* A[0:4] as a value: TVM 0.27's TensorRegion, which no operator, call or store takes */
    tir_error(r->d, v.sp,
              "a buffer region %s[lo:hi] is not a value: TVM 0.27 reads a slice in an expression as a region "
              "(TensorRegion), which it refuses here; write the vector load as %s[T.Ramp(lo, 1, lanes)]",
              v.region.buf ? v.region.buf->name : "", v.region.buf ? v.region.buf->name : "A");
    return NULL;
  case RV_ERR: return NULL;
  case RV_SLICE:
    tir_error(r->d, v.sp,
              "slice(...) is not a value: it is read only as an index of a store's target (B[slice(0, 4)] = v, "
              "T.buffer_store(B, v, [slice(0, 4)])), the store's vector index, as TVM 0.27 reads it");
    return NULL;
  case RV_BUFFER:
    tir_error(r->d, v.sp, "buffer '%s' cannot be used as a value here; index it or use .data", v.buf->name);
    return NULL;
  case RV_FRESH:
    tir_error(r->d, v.sp, "T.%s() declares a variable: write 'x = T.%s()'", v.s, v.s);
    return NULL;
  case RV_BIGINT: {
    char buf[48];
    rd_big_str(rd_big_of(v), buf);
    tir_error(r->d, v.sp, "the Python int %s is past int64: TVM cannot make it a TIR value", buf);
    return NULL;
  }
  default:
    tir_error(r->d, v.sp, "expected an expression");
    return NULL;
  }
}

/* v is a value of the int (or bool) dtype t */
bool rd_int_fits(tir_dtype t, int64_t v) {
  if (tir_dtype_is_bool(t)) return v == 0 || v == 1;
  if (t.bits >= 64) return t.code == TIR_TC_INT || v >= 0;
  if (t.code == TIR_TC_UINT) return v >= 0 && (t.bits >= 63 || v < ((int64_t)1 << t.bits)); /* uint63: every v >= 0 */
  int64_t lim = (int64_t)1 << (t.bits - 1);
  return v >= -lim && v < lim;
}

/* a literal v of float dtype t: past t's largest finite value it is an
 * error, as TVM's FloatImm refuses it (inf and nan are written as
 * T.float32("inf")) */
static bool float_fits(rd *r, tir_dtype t, double v, tir_span sp) {
  double max = tir_dtype_float_max(t);
  if (tir_dtype_float_nonneg(t) && v < 0) { /* -0.0 TVM reads */
    char b[32];
    tir_error(r->d, sp, "float literal %.9g out of range for %s (it holds no negative value)", v, tir_dtype_str(t, b));
    return false;
  }
  if (max == 0 || !isfinite(v) || fabs(v) <= max) return true;
  /* bfloat16: as TVM, any literal within float32's range (its own
   * T.min_value("bfloat16") is float32's lowest); one past halfway to 2^128
   * is inf in bfloat16 */
  if (t.code == TIR_TC_BFLOAT && fabs(v) <= 3.4028234663852886e+38) return true;
  char b[32];
  if (tir_dtype_is_small_float(t)) /* TVM's bound, not always the format's (tir_dtype_float_max) */
    tir_error(r->d, sp, "float literal %.9g out of range for %s (TVM 0.27 takes up to %.17g)", v, tir_dtype_str(t, b), max);
  else
    tir_error(r->d, sp, "float literal %.9g out of range for %s (largest finite value %.17g)", v, tir_dtype_str(t, b), max);
  return false;
}

/* a constant cast as TVM's tvm::cast folds it (make_const): an int to a
 * float; a float to an int by truncation, to a bool by truncation then != 0;
 * only where TVM's constant holds the value (elsewhere TVM refuses the text,
 * and tirc keeps the Cast) */
static tir_expr *fold_cast(rd *r, tir_dtype t, tir_expr *e) {
  if (t.lanes != 1) return NULL;
  if (e->kind == TIR_INT_IMM) {
    if (tir_dtype_is_float(t)) /* a uint64 past int64's holds its bits: its value is unsigned */
      return tir_float(r->c, t, e->dtype.code == TIR_TC_UINT && e->u.int_val < 0 ? (double)(uint64_t)e->u.int_val
                                                                                : (double)e->u.int_val);
    if (tir_dtype_is_bool(t)) return tir_bool(r->c, e->u.int_val != 0);
    if (tir_dtype_is_int(t) && rd_int_fits(t, e->u.int_val)) return tir_int(r->c, t, e->u.int_val);
  }
  if (e->kind == TIR_FLOAT_IMM) {
    double f = e->u.float_val;
    if (tir_dtype_is_float(t)) {
      /* bfloat16 holds, as TVM's constant, any value within float32's range (float_fits) */
      double lim = t.code == TIR_TC_BFLOAT ? 3.4028234663852886e+38 : tir_dtype_float_max(t);
      return !lim || !isfinite(f) || fabs(f) <= lim ? tir_float(r->c, t, f) : NULL;
    }
    /* uint64 from a float in [2^63, 2^64): the value's bits, as TVM's IntImm holds it */
    if (t.code == TIR_TC_UINT && t.bits == 64 && t.lanes == 1 && f >= 9223372036854775808.0 &&
        f < 18446744073709551616.0)
      return tir_int(r->c, t, (int64_t)(uint64_t)f);
    if (isnan(f) || f >= 9223372036854775807.0 || f <= -9223372036854775808.0) return NULL;
    if (t.code == TIR_TC_UINT && !tir_dtype_is_bool(t) && f < 0) return NULL; /* TVM: a uint from a negative value */
    int64_t v = (int64_t)f;
    if (tir_dtype_is_bool(t)) return v == 0 || v == 1 ? tir_bool(r->c, v != 0) : NULL;
    if (tir_dtype_is_int(t) && rd_int_fits(t, v)) return tir_int(r->c, t, v);
  }
  return NULL;
}

static tir_expr *cast_to(rd *r, tir_dtype t, tir_expr *e) {
  if (tir_dtype_eq(e->dtype, t)) return e;
  if (e->dtype.lanes == 1 && t.lanes > 1) e = tir_broadcast(r->c, cast_to(r, tir_dtype_with_lanes(t, 1), e), t.lanes);
  if (tir_dtype_eq(e->dtype, t)) return e;
  /* as TVM's cast: of a Broadcast, its value; of a Ramp to an integer
   * type, its base and stride (T.Broadcast(T.Cast("float32", n), 4)) */
  if (t.lanes == e->dtype.lanes && e->kind == TIR_BROADCAST)
    return tir_broadcast(r->c, cast_to(r, tir_dtype_with_lanes(t, 1), e->u.bcast.value), e->u.bcast.lanes);
  if (t.lanes == e->dtype.lanes && e->kind == TIR_RAMP && tir_dtype_is_int(t))
    return tir_ramp(r->c, cast_to(r, tir_dtype_with_lanes(t, 1), e->u.ramp.base),
                    cast_to(r, tir_dtype_with_lanes(t, 1), e->u.ramp.stride), e->u.ramp.lanes);
  tir_expr *f = fold_cast(r, t, e);
  return f ? f : tir_cast(r->c, t, e);
}

tir_expr *rd_convert(rd *r, rval v, tir_dtype t) {
  char b[32];
  tir_dtype s = tir_dtype_with_lanes(t, 1);
  switch (v.k) {
  case RV_INT:
  case RV_BOOL:
    if (tir_dtype_is_float(s) && !float_fits(r, s, (double)v.i, v.sp)) return NULL;
    if (tir_dtype_is_float(s)) return with_span(r, cast_to(r, t, tir_float(r->c, s, (double)v.i)), v.sp);
    if (tir_dtype_is_int(s) || tir_dtype_is_bool(s)) {
      if (!rd_int_fits(s, v.i)) {
        tir_error(r->d, v.sp, "integer literal %lld out of range for %s", (long long)v.i, tir_dtype_str(s, b));
        return NULL;
      }
      return with_span(r, cast_to(r, t, tir_int(r->c, s, v.i)), v.sp);
    }
    break;
  case RV_FLOAT:
    if (tir_dtype_is_float(s) && !float_fits(r, s, v.f, v.sp)) return NULL;
    if (tir_dtype_is_float(s)) return with_span(r, cast_to(r, t, tir_float(r->c, s, v.f)), v.sp);
    if (tir_dtype_is_int(s)) return with_span(r, cast_to(r, t, tir_float(r->c, TIR_FLOAT32, v.f)), v.sp);
    break;
  default: {
    tir_expr *e = rd_as_expr(r, v);
    if (!e) return NULL;
    if (tir_dtype_is_handle(e->dtype) != tir_dtype_is_handle(t)) break;
    if (e->dtype.lanes != 1 && e->dtype.lanes != t.lanes) { /* TVM's cast keeps the lanes (or broadcasts one) */
      char b2[32];
      tir_error(r->d, v.sp, "a %s value where a %s is expected: a cast keeps the lanes", tir_dtype_str(e->dtype, b2),
                tir_dtype_str(t, b));
      return NULL;
    }
    /* TVM's cast folds an int constant into the type's constant, and a
     * bool holds 0 or 1 only ("3 exceeds range of bool") */
    if (e->kind == TIR_INT_IMM && e->dtype.lanes == 1 && tir_dtype_is_bool(s) && !tir_dtype_is_bool(e->dtype) &&
        e->u.int_val != 0 && e->u.int_val != 1) {
      tir_error(r->d, v.sp, "%lld as a bool: TVM's cast makes a bool constant of it, which holds 0 or 1 only",
                (long long)e->u.int_val);
      return NULL;
    }
    return cast_to(r, t, e);
  }
  }
  tir_error(r->d, v.sp, "cannot convert this value to %s", tir_dtype_str(t, b));
  return NULL;
}

/* a float value stored into an integer or bool buffer without a cast
 * (issue 11, class 9): TVM casts it with a warning that it may lose
 * precision; tirc refuses it at the value, so the loss is written out */
bool rd_store_kind_ok(rd *r, rval v, tir_dtype t, const char *buf) {
  /* a store is not broadcast (TVM: "Incompatible types in BufferStore"),
   * though an operator's scalar operand is */
  if (t.lanes != 1 && (v.k == RV_INT || v.k == RV_FLOAT || v.k == RV_BOOL || (v.k == RV_EXPR && v.e && v.e->dtype.lanes == 1))) {
    char b[32];
    tir_error(r->d, v.sp, "storing a scalar into %s lanes of buffer '%s' needs an explicit T.Broadcast(value, lanes)",
              tir_dtype_str(t, b), buf);
    return false;
  }
  if (tir_dtype_is_float(t) || tir_dtype_is_handle(t)) return true;
  /* an integer constant of another type stored into an integer buffer:
   * TVM's store conversion makes the constant in the buffer's type, and
   * refuses it where it does not fit (T.uint8(0) - 1 is the int32 -1:
   * "cannot make uint from negative value -1"; T.int32(300) into int8);
   * an explicit T.Cast is kept, as TVM keeps it */
  if (v.k == RV_EXPR && v.e && v.e->kind == TIR_INT_IMM && v.e->dtype.lanes == 1 && t.lanes == 1 &&
      tir_dtype_is_int(t) && !tir_dtype_is_bool(t) && !tir_dtype_eq(v.e->dtype, t) &&
      !(v.e->dtype.code == TIR_TC_UINT && v.e->dtype.bits == 64) && !rd_int_fits(t, v.e->u.int_val)) {
    char b[32];
    tir_error(r->d, v.sp, "storing the constant %lld into %s buffer '%s': it does not fit, and TVM's store "
              "conversion refuses it (write T.Cast)", (long long)v.e->u.int_val, tir_dtype_str(t, b), buf);
    return false;
  }
  tir_dtype s = {0};
  if (v.k == RV_FLOAT) s = TIR_FLOAT32;
  else if (v.k == RV_EXPR && v.e) s = v.e->dtype;
  else return true;
  if (!tir_dtype_is_float(s)) return true;
  char a[32], b[32];
  if (v.k == RV_FLOAT)
    tir_error(r->d, v.sp, "storing the float %g into %s buffer '%s' needs an explicit T.Cast", v.f,
              tir_dtype_str(t, b), buf);
  else
    tir_error(r->d, v.sp, "storing a %s value into %s buffer '%s' needs an explicit T.Cast",
              tir_dtype_str(s, a), tir_dtype_str(t, b), buf);
  return false;
}

/* v's dtype as TVM converts a value it takes as is: a Python number is
 * int32 (int64 past int32's range), float32 or bool; dflt for another value */
tir_dtype rd_natural_dtype(rval v, tir_dtype dflt) {
  if (v.k == RV_EXPR && v.e) return v.e->dtype;
  if (v.k == RV_BOOL) return TIR_BOOL;
  if (v.k == RV_FLOAT) return TIR_FLOAT32;
  if (v.k == RV_INT) return v.i >= INT32_MIN && v.i <= INT32_MAX ? TIR_INT32 : TIR_INT64;
  return dflt;
}

/* v is an integer (a Python int or an expression of an integer type):
 * TVM refuses a float or a bool where it takes an extent */
bool rd_int_valued(rd *r, rval v, const char *what) {
  if (v.k == RV_ERR) return false;
  if (v.k == RV_INT || (v.k == RV_EXPR && v.e && tir_dtype_is_int(v.e->dtype) && v.e->dtype.lanes == 1)) return true;
  char s1[32];
  tir_error(r->d, v.sp, "%s must be an integer, got %s", what,
            v.k == RV_EXPR && v.e ? tir_dtype_str(v.e->dtype, s1) : v.k == RV_FLOAT ? "a float" : v.k == RV_BOOL ? "a bool" : "another value");
  return false;
}

bool rd_as_int(rd *r, rval v, int64_t *out, const char *what) {
  if (v.k == RV_ERR) return false;
  if (v.k == RV_INT) { *out = v.i; return true; }
  if (v.k == RV_EXPR && tir_is_const_int(v.e, out)) return true;
  tir_error(r->d, v.sp, "%s must be a constant integer", what);
  return false;
}

const char *rd_as_str(rd *r, rval v, const char *what) {
  if (v.k == RV_ERR) return NULL;
  if (v.k == RV_STR) return v.s;
  if (v.k == RV_EXPR && v.e->kind == TIR_STRING_IMM) return v.e->u.str;
  tir_error(r->d, v.sp, "%s must be a string", what);
  return NULL;
}

bool rd_parse_dtype(rd *r, rval v, tir_dtype *out) {
  if (v.k == RV_DTYPE) { *out = v.dt; return true; }
  if (v.k == RV_HANDLE_T) { *out = TIR_HANDLE; return true; }
  const char *s = rd_as_str(r, v, "a dtype");
  if (!s) return false;
  /* the other spellings TVM's DataType parses: a type code without its
   * width ("int" is int32, "floatx4" float32x4, "bfloat" bfloat16) and the
   * short codes ("i32", "u8", "f16", "bf16", "i64x4") */
  char canon[48];
  if (!tir_dtype_parse(s, out)) {
    static const struct { const char *p, *code; int bits; } P[] = {
        {"bfloat", "bfloat", 16}, {"uint", "uint", 32}, {"float", "float", 32}, {"int", "int", 32},
        {"bf", "bfloat", 0},      {"i", "int", 0},      {"u", "uint", 0},       {"f", "float", 0}};
    for (size_t i = 0; i < sizeof P / sizeof P[0]; i++) {
      size_t n = strlen(P[i].p);
      if (strncmp(s, P[i].p, n)) continue;
      const char *q = s + n;
      long bits = 0;
      while (*q >= '0' && *q <= '9' && bits < 1000) bits = bits * 10 + (*q++ - '0');
      if (q == s + n) bits = P[i].bits; /* no width: the default, where the code has one */
      if (bits > 0 && (!*q || *q == 'x')) {
        snprintf(canon, sizeof canon, "%s%ld%.16s", P[i].code, bits, q);
        if (tir_dtype_parse(canon, out)) return true;
      }
      break;
    }
  }
  if (!tir_dtype_parse(s, out)) {
    static const char *const DTYPES[] = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                         "uint64", "float16", "float32", "float64", "bfloat16", "handle", NULL};
    const char *near = tir_suggest(s, DTYPES, -1);
    if (near) tir_error(r->d, v.sp, "unknown dtype '%s'; did you mean '%s'?", s, near);
    else tir_error(r->d, v.sp, "unknown dtype '%s'", s);
    return false;
  }
  return true;
}

static tir_attr_val *as_attr(rd *r, rval v, bool nested);

tir_attr_val *rd_as_attr(rd *r, rval v) { return as_attr(r, v, false); }

/* a dict nested in an attribute value with a key that is no string: TVM's
 * Map<Any, Any> ({"p": {1: 2}}), kept in the order written */
static tir_attr_val *as_map(rd *r, rval v) {
  tir_attr_val **items = tir_alloc(r->c, sizeof *items * (size_t)(2 * v.n + 1));
  for (int i = 0; i < v.n; i++) {
    rval k = v.keys[i];
    if ((k.k == RV_TUPLE && k.is_list) || k.k == RV_DICT) { /* Python cannot hash them */
      tir_error(r->d, k.sp, "unhashable type: '%s' as a dict key", k.k == RV_DICT ? "dict" : "list");
      return NULL;
    }
    if (!(items[2 * i] = as_attr(r, k, true))) return NULL;
    if (items[2 * i]->kind == TIR_AV_RANGE || items[2 * i]->kind == TIR_AV_ITER_VAR) { /* as Python's */
      tir_error(r->d, k.sp, "unhashable type: '%s' as a dict key", items[2 * i]->kind == TIR_AV_RANGE ? "Range" : "IterVar");
      return NULL;
    }
    if (!(items[2 * i + 1] = as_attr(r, v.items[i], true))) return NULL;
  }
  tir_attr_val *m = tir_av_list(r->c, items, 2 * v.n);
  m->kind = TIR_AV_MAP;
  return m;
}

static tir_attr_val *as_attr(rd *r, rval v, bool nested) {
  /* a Python float stays a Python float (TVM boxes it as a double): a
   * float64 constant, printed back bare */
  if (v.k == RV_FLOAT) return tir_av_expr(r->c, with_span(r, tir_float(r->c, TIR_FLOAT64, v.f), v.sp));
  /* a Python int likewise (a boxed int64), apart from T.int32(0), an IntImm */
  if (v.k == RV_INT) return tir_av_expr(r->c, with_span(r, tir_int(r->c, TIR_INT64, v.i), v.sp));
  if (v.k == RV_TUPLE) {
    tir_attr_val **items = tir_alloc(r->c, sizeof *items * (size_t)(v.n + 1));
    for (int i = 0; i < v.n; i++)
      if (!(items[i] = as_attr(r, v.items[i], true))) return NULL;
    return tir_av_list(r->c, items, v.n);
  }
  if (v.k == RV_DICT) {
    bool strs = true;
    for (int i = 0; i < v.n; i++) strs = strs && v.keys[i].k == RV_STR;
    if (!strs && nested) return as_map(r, v);
    tir_attr_val **items = tir_alloc(r->c, sizeof *items * (size_t)(v.n + 1));
    const char **keys = tir_alloc(r->c, sizeof *keys * (size_t)(v.n + 1));
    for (int i = 0; i < v.n; i++) {
      if (!(keys[i] = rd_as_str(r, v.keys[i], "an attribute key"))) return NULL;
      if (!(items[i] = as_attr(r, v.items[i], true))) return NULL;
    }
    return tir_av_dict(r->c, keys, items, v.n);
  }
  if (v.k == RV_BUFFER) {
    tir_attr_val *a = tir_av_expr(r->c, v.buf->data);
    a->buf = v.buf; /* the buffer itself, as TVM keeps it */
    return a;
  }
  if (v.k == RV_NONE) {
    tir_attr_val *none = tir_av_list(r->c, NULL, 0);
    none->kind = TIR_AV_NONE;
    return none;
  }
  if (v.k == RV_ATTR) return v.av;
  if (v.k == RV_REGION) { /* TVM holds a BufferRegion here, not the vector load it is in an expression */
    if (!v.region.buf) {
      tir_error(r->d, v.sp, "a buffer region as an attribute value needs its buffer");
      return NULL;
    }
    int n = v.region.n;
    tir_attr_val **items = tir_alloc(r->c, sizeof *items * (size_t)(2 * n + 1));
    for (int i = 0; i < n; i++) {
      items[2 * i] = tir_av_expr(r->c, v.region.region[i].min);
      items[2 * i + 1] = tir_av_expr(r->c, v.region.region[i].extent);
    }
    tir_attr_val *a = tir_av_list(r->c, items, 2 * n);
    a->kind = TIR_AV_REGION;
    a->buf = v.region.buf;
    a->expr = v.region.buf->data;
    return a;
  }
  tir_expr *e = rd_as_expr(r, v);
  tir_attr_val *av = e ? tir_av_expr(r->c, e) : NULL;
  if (av) av->typed = v.k == RV_EXPR;
  return av;
}

/* ---- binary operators ---- */

static int64_t floordiv64(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
/* b != 0 and b != -1 (the caller's); a - floordiv(a, b) * b overflows
 * where a is INT64_MIN, the remainder does not */
static int64_t floormod64(int64_t a, int64_t b) {
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

/* constant folding and identities, as TVM's arith::TryConstFold does; a
 * comparison of two constants is read as the @T.prim_func decorator reads
 * it, a node (from_source's default globals import tvm.script.relax, whose
 * parser makes `<` fold it: docs/syntax.md); the printer writes such a node
 * as T.LT(...), which both read as the node */
static tir_expr *fold(rd *r, tir_expr_kind k, tir_expr *a, tir_expr *b) {
  if (TIR_IS_CMP(k)) return NULL;
  return ir_fold_apply(r->c, ir_const_fold(k, a, b), a, b);
}

/* make a and b one dtype, as TVM's BinaryOpMatchTypes */
/* TVM 0.27's order of the dtypes of a binary operation's operands: the one
 * of lower rank is cast to the other's type (bool < int8 < uint8 < int16 <
 * ... < int64 < uint64 < the small floats < bfloat16 < float16 < float32 <
 * float64: of one width, unsigned over signed and float16 over bfloat16) */
int rd_dtype_rank(tir_dtype t) {
  if (tir_dtype_is_bool(t)) return 0;
  if (tir_dtype_is_float(t)) return 1000 + t.bits * 4 + (t.code == TIR_TC_FLOAT ? 2 : t.code == TIR_TC_BFLOAT ? 1 : 0);
  return t.bits * 2 + (t.code == TIR_TC_UINT ? 1 : 0);
}

bool rd_match_types(rd *r, tir_expr **pa, tir_expr **pb, tir_span sp) {
  tir_expr *a = *pa, *b = *pb;
  if (tir_dtype_eq(a->dtype, b->dtype)) return true;
  if (a->dtype.lanes != b->dtype.lanes) {
    if (a->dtype.lanes == 1) a = tir_broadcast(r->c, a, b->dtype.lanes);
    else if (b->dtype.lanes == 1) b = tir_broadcast(r->c, b, a->dtype.lanes);
    else goto bad;
  }
  tir_dtype ta = a->dtype, tb = b->dtype;
  if (tir_dtype_eq(ta, tb)) goto done;
  if (tir_dtype_is_handle(ta) || tir_dtype_is_handle(tb)) goto bad;
  if (rd_dtype_rank(ta) >= rd_dtype_rank(tb)) b = cast_to(r, ta, b);
  else a = cast_to(r, tb, a);
done:
  *pa = a;
  *pb = b;
  return true;
bad: {
  char x[32], y[32];
  tir_error(r->d, sp.line ? sp : r->eval_sp, "operands have incompatible dtypes %s and %s", tir_dtype_str(a->dtype, x),
            tir_dtype_str(b->dtype, y));
  return false;
}
}

/* an integer division or modulo by a constant zero: an error at the divisor */
static bool div_by_zero(rd *r, tir_expr_kind k, const tir_expr *b) {
  if (k != TIR_DIV && k != TIR_MOD && k != TIR_FLOORDIV && k != TIR_FLOORMOD) return false;
  if (b->kind != TIR_INT_IMM || b->u.int_val != 0 || b->dtype.lanes != 1) return false;
  /* a divisor folded from constants has no place of its own: the statement's */
  tir_span sp = b->span.line ? b->span : r->eval_sp.line ? r->eval_sp : !ts_node_is_null(r->cur_stmt) ? rd_span(r->cur_stmt) : b->span;
  tir_error(r->d, sp, "division by zero");
  return true;
}

/* the operand types TVM 0.27's constructors take: And/Or of bools only,
 * floordiv/floormod (the operators, not the node constructors) of
 * integers only (T.floor(x / y) says a float's) */
bool rd_operand_kinds_ok(rd *r, tir_expr_kind k, const tir_expr *a, const tir_expr *b, bool matched, tir_span sp) {
  char s1[32], s2[32];
  if ((k == TIR_AND || k == TIR_OR) && !matched && (!tir_dtype_is_bool(a->dtype) || !tir_dtype_is_bool(b->dtype))) {
    tir_error(r->d, sp, "'%s' takes bool operands, got %s and %s (TVM refuses any other; compare with 0)",
              k == TIR_AND ? "and" : "or", tir_dtype_str(a->dtype, s1), tir_dtype_str(b->dtype, s2));
    return false;
  }
  if ((k == TIR_FLOORDIV || k == TIR_FLOORMOD) && matched && tir_dtype_is_float(a->dtype)) {
    tir_error(r->d, sp, "%s of %s: TVM defines it on integers only (for a float, write T.floor(x / y))",
              k == TIR_FLOORDIV ? "floordiv (//)" : "floormod (%)", tir_dtype_str(a->dtype, s1));
    return false;
  }
  return true;
}

tir_expr *rd_bin_expr(rd *r, tir_expr_kind k, tir_expr *a, tir_expr *b) {
  if (!rd_match_types(r, &a, &b, a->span)) return NULL;
  if (div_by_zero(r, k, b)) return NULL;
  /* 0 - c of two uint constants, c > 0: TVM's folding refuses it ("Minuend's
   * value is 0U ... which will cause a negative uint"), though it wraps
   * 3 - 5 to 254 */
  if (k == TIR_SUB && a->kind == TIR_INT_IMM && b->kind == TIR_INT_IMM && a->dtype.code == TIR_TC_UINT &&
      b->dtype.code == TIR_TC_UINT && a->dtype.lanes == 1 && !tir_dtype_is_bool(a->dtype) && a->u.int_val == 0 &&
      b->u.int_val != 0) {
    char s1[32];
    tir_error(r->d, r->eval_sp.line ? r->eval_sp : a->span, "0 - %llu of %s: TVM refuses a constant subtraction from an unsigned 0 (a negative uint)",
              (unsigned long long)b->u.int_val, tir_dtype_str(a->dtype, s1));
    return NULL;
  }
  tir_expr *f = fold(r, k, a, b);
  return f ? f : tir_binary(r->c, k, a, b);
}

/* T.Add(a, b) and the other node constructors: the node, never folded */
tir_expr *rd_bin_node(rd *r, tir_expr_kind k, tir_expr *a, tir_expr *b) {
  if (!rd_match_types(r, &a, &b, a->span)) return NULL;
  if (div_by_zero(r, k, b)) return NULL;
  return tir_binary(r->c, k, a, b);
}

/* TVM 0.27's arithmetic (+ - * / // % max min, a comparison with the
 * number on its right, if_then_else): a Python int is an int32 (an int64
 * past int32's range), a float a float32; the operand of lower rank is cast
 * to the other's type, the number converted to it (a bool adopts the
 * other's type). NULL with *other_out unchanged on an error. */
static tir_expr *adopt(rd *r, rval lit, tir_expr *other);

tir_expr *rd_promote_lit(rd *r, rval lit, tir_expr **other) {
  tir_expr *o = *other;
  tir_dtype ot = tir_dtype_with_lanes(o->dtype, 1);
  if (lit.k == RV_BOOL || tir_dtype_is_handle(ot)) return adopt(r, lit, o);
  tir_dtype lt = lit.k == RV_FLOAT ? TIR_FLOAT32 : lit.i >= INT32_MIN && lit.i <= INT32_MAX ? TIR_INT32 : TIR_INT64;
  /* the float is TVM's float32 first, so past float32's range it is refused
   * even beside a float64 */
  if (lit.k == RV_FLOAT && !rd_as_expr(r, lit)) return NULL;
  tir_dtype t = rd_dtype_rank(ot) >= rd_dtype_rank(lt) ? ot : lt;
  if (!tir_dtype_eq(t, ot)) *other = cast_to(r, tir_dtype_with_lanes(t, o->dtype.lanes), o);
  return rd_convert(r, lit, t);
}

bool rd_is_bit_op_name(const char *op) {
  static const char *const OPS[] = {"&", "|", "^", "<<", ">>", "bitwise_and", "bitwise_or", "bitwise_xor",
                                    "shift_left", "shift_right", NULL};
  for (int i = 0; OPS[i]; i++)
    if (!strcmp(op, OPS[i])) return true;
  return false;
}

/* a Python int beside a TIR value in a bitwise operation is, as TVM's
 * operators pass it on, an int32 first: wrapped to 32 bits (L & 4294967295
 * is L & T.int64(-1), 1 << 40 is 0), then converted */
void rd_wrap_bit_literals(rval *v, int n) {
  bool tir = false;
  for (int i = 0; i < n; i++) tir |= v[i].k == RV_EXPR || v[i].k == RV_REGION;
  for (int i = 0; tir && i < n; i++)
    if (v[i].k == RV_INT) v[i].i = (int64_t)(int32_t)(uint32_t)(uint64_t)v[i].i;
}

/* a Python number next to an expr takes the expr's (scalar) dtype */
static tir_expr *adopt(rd *r, rval lit, tir_expr *other) {
  tir_dtype t = tir_dtype_with_lanes(other->dtype, 1);
  if (lit.k == RV_FLOAT && !tir_dtype_is_float(t)) t = TIR_FLOAT32;
  if ((lit.k == RV_INT || lit.k == RV_BOOL) && !(tir_dtype_is_int(t) || tir_dtype_is_float(t) || tir_dtype_is_bool(t)))
    return rd_as_expr(r, lit);
  if (lit.k == RV_BOOL && !tir_dtype_is_bool(t)) return rd_as_expr(r, lit);
  return rd_convert(r, lit, t);
}

static bool py_truthy(rval v) { return v.k == RV_BIGINT || (v.k == RV_FLOAT ? v.f != 0 : v.i != 0); }

/* Python's comparison of two numbers: exact between an int and a float
 * (2**53 + 1 == 2.0**53 is False), which a conversion to double is not;
 * -1, 0, 1, or 2 where a NaN leaves them unordered */
static int py_cmp(rval a, rval b) {
  bool fa = a.k == RV_FLOAT, fb = b.k == RV_FLOAT;
  if (!fa && !fb) return a.i < b.i ? -1 : a.i > b.i;
  if (fa && fb) return isnan(a.f) || isnan(b.f) ? 2 : a.f < b.f ? -1 : a.f > b.f;
  if (fa) {
    int c = py_cmp(b, a);
    return c == 2 ? 2 : -c;
  }
  int64_t i = a.i;
  double f = b.f;
  if (isnan(f)) return 2;
  if (f >= 9223372036854775808.0) return -1;
  if (f < -9223372036854775808.0) return 1;
  double fl = floor(f);
  int64_t k = (int64_t)fl;
  if (i != k) return i < k ? -1 : 1;
  return f > fl ? -1 : 0;
}

__int128 rd_big_of(rval v) {
  if (v.k != RV_BIGINT) return (__int128)v.i;
  return (__int128)(((unsigned __int128)(uint64_t)v.hi << 64) | (uint64_t)v.i);
}

rval rd_big_val(__int128 x, tir_span sp) {
  if (x >= INT64_MIN && x <= INT64_MAX) return (rval){.k = RV_INT, .i = (int64_t)x, .sp = sp};
  unsigned __int128 u = (unsigned __int128)x;
  return (rval){.k = RV_BIGINT, .i = (int64_t)(uint64_t)u, .hi = (int64_t)(uint64_t)(u >> 64), .sp = sp};
}

void rd_big_str(__int128 x, char buf[48]) {
  char t[48];
  int n = 0;
  unsigned __int128 u = x < 0 ? -(unsigned __int128)x : (unsigned __int128)x;
  do t[n++] = (char)('0' + (int)(u % 10)), u /= 10;
  while (u);
  int k = 0;
  if (x < 0) buf[k++] = '-';
  while (n) buf[k++] = t[--n];
  buf[k] = 0;
}

static bool is_pyint(rval v) { return v.k == RV_INT || v.k == RV_BOOL || v.k == RV_BIGINT; }

/* Python's arithmetic on ints of which one is past int64, or whose int64
 * result overflows: in 128 bits (Python's are unbounded: past 2**127 an
 * error); a float beside it takes it as a float */
static rval py_binop(rd *r, const char *op, rval a, rval b, tir_span sp);

static rval big_binop(rd *r, const char *op, rval a, rval b, tir_span sp) {
  if (a.k == RV_FLOAT || b.k == RV_FLOAT) {
    if (a.k == RV_BIGINT) a = (rval){.k = RV_FLOAT, .f = (double)rd_big_of(a), .sp = a.sp};
    if (b.k == RV_BIGINT) b = (rval){.k = RV_FLOAT, .f = (double)rd_big_of(b), .sp = b.sp};
    return py_binop(r, op, a, b, sp);
  }
  __int128 x = rd_big_of(a), y = rd_big_of(b), v;
  rval bl = {.k = RV_BOOL, .sp = sp};
  if (!strcmp(op, "and")) return x ? b : a;
  if (!strcmp(op, "or")) return x ? a : b;
  if (!strcmp(op, "max")) return y > x ? b : a;
  if (!strcmp(op, "min")) return y < x ? b : a;
  if (!strcmp(op, "<")) return bl.i = x < y, bl;
  if (!strcmp(op, "<=")) return bl.i = x <= y, bl;
  if (!strcmp(op, ">")) return bl.i = x > y, bl;
  if (!strcmp(op, ">=")) return bl.i = x >= y, bl;
  if (!strcmp(op, "==")) return bl.i = x == y, bl;
  if (!strcmp(op, "!=")) return bl.i = x != y, bl;
  if (!strcmp(op, "/")) {
    if (!y) goto divzero;
    return (rval){.k = RV_FLOAT, .f = (double)x / (double)y, .sp = sp};
  }
  if (!strcmp(op, "+")) { if (__builtin_add_overflow(x, y, &v)) goto overflow; }
  else if (!strcmp(op, "-")) { if (__builtin_sub_overflow(x, y, &v)) goto overflow; }
  else if (!strcmp(op, "*")) { if (__builtin_mul_overflow(x, y, &v)) goto overflow; }
  else if (!strcmp(op, "//") || !strcmp(op, "%")) {
    if (!y) goto divzero;
    if (y == -1) { /* no C division of the least value by -1 */
      if (!strcmp(op, "%")) v = 0;
      else if (__builtin_sub_overflow((__int128)0, x, &v)) goto overflow;
    } else {
      __int128 q = x / y, m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) q--, m += y;
      v = !strcmp(op, "//") ? q : m;
    }
  }
  else if (!strcmp(op, "&")) v = x & y;
  else if (!strcmp(op, "|")) v = x | y;
  else if (!strcmp(op, "^")) v = x ^ y;
  else if (!strcmp(op, "<<")) { if (y < 0 || y > 126 || __builtin_mul_overflow(x, (__int128)1 << y, &v)) goto overflow; }
  else if (!strcmp(op, ">>")) { if (y < 0) goto overflow; v = y > 127 ? (x < 0 ? -1 : 0) : x >> y; }
  else if (!strcmp(op, "**")) {
    if (y < 0) {
      if (!x) goto divzero;
      return (rval){.k = RV_FLOAT, .f = pow((double)x, (double)y), .sp = sp};
    }
    v = 1;
    for (__int128 i = 0; i < y; i++) {
      if (__builtin_mul_overflow(v, x, &v)) goto overflow;
      if (v == 0 || v == 1 || (v == -1 && i > 200)) { /* 0, 1, -1 to a large power */
        if (v == -1) v = (y - i - 1) % 2 ? -1 : 1;
        break;
      }
    }
  } else {
    tir_error(r->d, sp, "operator '%s' is not supported here", op);
    return rv_err();
  }
  return rd_big_val(v, sp);
divzero:
  tir_error(r->d, sp, "division by zero");
  return rv_err();
overflow:
  tir_error(r->d, sp, "integer overflow in constant expression (tirc holds Python ints to 2**127)");
  return rv_err();
}

static rval py_binop(rd *r, const char *op, rval a, rval b, tir_span sp) {
  bool fl = a.k == RV_FLOAT || b.k == RV_FLOAT;
  double x = a.k == RV_FLOAT ? a.f : (double)a.i, y = b.k == RV_FLOAT ? b.f : (double)b.i;
  int64_t p = a.i, q = b.i;
  rval out = {.k = fl ? RV_FLOAT : RV_INT, .sp = sp};
  rval bl = {.k = RV_BOOL, .sp = sp};
  if (!strcmp(op, "and")) return py_truthy(a) ? b : a;
  int c = py_cmp(a, b);
  if (!strcmp(op, "max")) return c == -1 ? b : a; /* Python's max keeps the first of equals (and of NaNs) */
  if (!strcmp(op, "min")) return c == 1 ? b : a;
  if (!strcmp(op, "or")) return py_truthy(a) ? a : b;
  if (!strcmp(op, "<")) return bl.i = c == -1, bl;
  if (!strcmp(op, "<=")) return bl.i = c == -1 || c == 0, bl;
  if (!strcmp(op, ">")) return bl.i = c == 1, bl;
  if (!strcmp(op, ">=")) return bl.i = c == 1 || c == 0, bl;
  if (!strcmp(op, "==")) return bl.i = c == 0, bl;
  if (!strcmp(op, "!=")) return bl.i = c != 0, bl;
  if (!strcmp(op, "/")) {
    if (y == 0) goto divzero;
    out.k = RV_FLOAT;
    out.f = x / y;
    return out;
  }
  if (fl) {
    if (!strcmp(op, "+")) out.f = x + y;
    else if (!strcmp(op, "-")) out.f = x - y;
    else if (!strcmp(op, "*")) out.f = x * y;
    else if (!strcmp(op, "//")) { if (y == 0) goto divzero; out.f = floor(x / y); }
    else if (!strcmp(op, "%")) { if (y == 0) goto divzero; out.f = x - floor(x / y) * y; }
    else if (!strcmp(op, "**")) {
      /* where Python raises: 0.0 ** -1 (ZeroDivisionError), (-8) ** 0.5
       * (a complex, which TVM cannot take), 10.0 ** 400 (OverflowError) */
      if (x == 0 && y < 0) goto divzero;
      if (x < 0 && isfinite(y) && y != floor(y)) {
        tir_error(r->d, sp, "a negative number to a fractional power is a complex number in Python");
        return rv_err();
      }
      out.f = pow(x, y);
      if (isinf(out.f) && isfinite(x) && isfinite(y)) {
        tir_error(r->d, sp, "float overflow in constant expression (Python raises OverflowError)");
        return rv_err();
      }
    } else goto unsupported;
    return out;
  }
  int64_t v;
  if (!strcmp(op, "+")) { if (__builtin_add_overflow(p, q, &v)) goto overflow; }
  else if (!strcmp(op, "-")) { if (__builtin_sub_overflow(p, q, &v)) goto overflow; }
  else if (!strcmp(op, "*")) { if (__builtin_mul_overflow(p, q, &v)) goto overflow; }
  else if (!strcmp(op, "//")) { if (!q) goto divzero; if (p == INT64_MIN && q == -1) goto overflow; v = floordiv64(p, q); }
  else if (!strcmp(op, "%")) { if (!q) goto divzero; if (q == -1) v = 0; else v = floormod64(p, q); }
  else if (!strcmp(op, "&")) v = p & q;
  else if (!strcmp(op, "|")) v = p | q;
  else if (!strcmp(op, "^")) v = p ^ q;
  else if (!strcmp(op, "<<")) { if (q < 0 || q > 62 || __builtin_mul_overflow(p, (int64_t)1 << q, &v)) goto overflow; } /* p * 2^q: Python's, and no C shift of a negative */
  else if (!strcmp(op, ">>")) { if (q < 0) goto overflow; v = q > 63 ? (p < 0 ? -1 : 0) : p >> q; }
  else if (!strcmp(op, "**")) {
    if (q < 0) {
      if (p == 0) goto divzero; /* 0 ** -1: Python's ZeroDivisionError */
      out.k = RV_FLOAT;
      out.f = pow(x, y);
      return out;
    }
    v = 1;
    for (int64_t i = 0; i < q; i++)
      if (__builtin_mul_overflow(v, p, &v)) goto overflow;
  } else goto unsupported;
  out.i = v;
  return out;
divzero:
  tir_error(r->d, sp, "division by zero");
  return rv_err();
overflow:
  if (!fl && is_pyint(a) && is_pyint(b)) return big_binop(r, op, a, b, sp); /* Python's ints go on */
  tir_error(r->d, sp, "integer overflow in constant expression");
  return rv_err();
unsupported:
  tir_error(r->d, sp, "operator '%s' is not supported here", op);
  return rv_err();
}

/* & | ^ << >> of two int32 or int64 constants, folded as TVM's operators
 * and T.bitwise_* / T.shift_* fold them (TVM_INDEX_CONST_PROPAGATION: the
 * index types only; uint and the narrow ints keep the node), and a shift
 * of an int32 or int64 by 0 (the operand itself); NULL where TVM does not
 * fold (a shift out of int32's range TVM refuses: the node) */
tir_expr *rd_fold_bits(rd *r, const char *name, const tir_expr *a, const tir_expr *b) {
  if (!tir_dtype_eq(a->dtype, b->dtype)) return NULL;
  tir_dtype t = a->dtype;
  if (t.code != TIR_TC_INT || t.lanes != 1 || (t.bits != 32 && t.bits != 64)) return NULL;
  /* x << 0 and x >> 0: x, as TVM's shift operators return it */
  if (!strncmp(name, "shift_", 6) && b->kind == TIR_INT_IMM && b->u.int_val == 0) return (tir_expr *)a;
  if (a->kind != TIR_INT_IMM || b->kind != TIR_INT_IMM) return NULL;
  int64_t x = a->u.int_val, y = b->u.int_val, v;
  if (!strcmp(name, "bitwise_and")) v = x & y;
  else if (!strcmp(name, "bitwise_or")) v = x | y;
  else if (!strcmp(name, "bitwise_xor")) v = x ^ y;
  else if (y < 0 || y >= t.bits) return NULL;
  else if (!strcmp(name, "shift_right")) v = x < 0 ? ~(~x >> y) : x >> y;
  else if (!strcmp(name, "shift_left")) {
    v = (int64_t)((uint64_t)x << y); /* int64: two's complement, as TVM's */
    if (t.bits == 32 && (y >= 32 || v < INT32_MIN || v > INT32_MAX)) return NULL;
  } else {
    return NULL;
  }
  return tir_int(r->c, t, v);
}

tir_expr *rd_bit_call(rd *r, const char *name, tir_expr *a, tir_expr *b, tir_span sp) {
  if (!strncmp(name, "shift_", 6) && (tir_dtype_is_bool(a->dtype) || tir_dtype_is_bool(b->dtype))) {
    tir_error(r->d, sp, "a shift of a bool (TVM shifts integers only)");
    return NULL;
  }
  if (!rd_match_types(r, &a, &b, sp)) return NULL;
  if (!tir_dtype_is_int(a->dtype) && !tir_dtype_is_bool(a->dtype)) {
    tir_error(r->d, sp, "bitwise operators need integer operands");
    return NULL;
  }
  /* a shift by a constant past the width: refused of an int32 or int64,
   * as TVM's parser refuses it; of another dtype (x >> 40 of an int8) read
   * and kept, as TVM reads it, not folded; the code generators refuse it
   * and the interpreter fails on it */
  int64_t v;
  if (!strncmp(name, "shift_", 6) && tir_is_const_int(b, &v) && (v < 0 || v >= a->dtype.bits) &&
      a->dtype.code == TIR_TC_INT && a->dtype.bits >= 32) {
    char t[32];
    tir_error(r->d, b->span.line ? b->span : sp, "'%s' by %lld: a %s shifts by 0 to %d",
              name[6] == 'l' ? "<<" : ">>", (long long)v, tir_dtype_str(a->dtype, t), a->dtype.bits - 1);
    return NULL;
  }
  tir_expr *args[2] = {a, b};
  return tir_call(r->c, a->dtype, name, args, 2);
}

static rval float_cmp_error(rd *r, const char *op, const tir_expr *v, tir_span sp) {
  char t[32];
  tir_error(r->d, sp, "'%s' of a Python float and a value of type %s: TVM refuses it (write the float as "
            "T.float32(...) and the value as T.Cast)", op, tir_dtype_str(v->dtype, t));
  return rv_err();
}

rval rd_binop(rd *r, const char *op, rval a, rval b, tir_span sp) {
  if (a.k == RV_ERR || b.k == RV_ERR) return rv_err();
  if (a.k == RV_STR && b.k == RV_STR && !strcmp(op, "+")) { /* Python's string concatenation */
    size_t la = strlen(a.s), lb = strlen(b.s);
    if (la + lb > (1 << 20)) {
      tir_error(r->d, sp, "a string concatenated to more than %d bytes", 1 << 20);
      return rv_err();
    }
    char *s = tir_alloc(r->c, la + lb + 1);
    memcpy(s, a.s, la), memcpy(s + la, b.s, lb + 1);
    return (rval){.k = RV_STR, .s = s, .sp = sp};
  }
  if (a.k == RV_TUPLE && b.k == RV_TUPLE && a.is_list == b.is_list && !strcmp(op, "+")) { /* list + list */
    if ((int64_t)a.n + b.n > (1 << 20)) {
      tir_error(r->d, sp, "a tuple or list concatenated to more than %d items", 1 << 20);
      return rv_err();
    }
    rval v = {.k = RV_TUPLE, .is_list = a.is_list, .n = a.n + b.n, .sp = sp};
    v.items = tir_alloc(r->c, sizeof *v.items * (size_t)(v.n + 1));
    for (int i = 0; i < a.n; i++) v.items[i] = a.items[i];
    for (int i = 0; i < b.n; i++) v.items[a.n + i] = b.items[i];
    return v;
  }
  if (!strcmp(op, "*") && ((a.k == RV_TUPLE && b.k == RV_INT) || (a.k == RV_INT && b.k == RV_TUPLE))) {
    /* (2,) * 2, [0] * 16: Python's repetition (a count below 0 gives none) */
    rval t = a.k == RV_TUPLE ? a : b;
    int64_t k = a.k == RV_INT ? a.i : b.i;
    if (k < 0) k = 0;
    if (t.n && k > (1 << 20) / t.n) {
      tir_error(r->d, sp, "a tuple or list repeated to more than %d items", 1 << 20);
      return rv_err();
    }
    rval v = {.k = RV_TUPLE, .is_list = t.is_list, .n = (int)(t.n * k), .sp = sp};
    v.items = tir_alloc(r->c, sizeof *v.items * (size_t)(v.n + 1));
    for (int i = 0; i < v.n; i++) v.items[i] = t.items[i % t.n];
    return v;
  }
  if ((a.k == RV_BIGINT && (is_pynum(b) || b.k == RV_BIGINT)) || (b.k == RV_BIGINT && is_pynum(a)))
    return big_binop(r, op, a, b, sp);
  if (a.k == RV_BIGINT || b.k == RV_BIGINT) {
    char buf[48];
    rd_big_str(rd_big_of(a.k == RV_BIGINT ? a : b), buf);
    tir_error(r->d, a.k == RV_BIGINT ? a.sp : b.sp, "the Python int %s is past int64: TVM cannot make it a TIR value", buf);
    return rv_err();
  }
  if (is_pynum(a) && is_pynum(b)) return py_binop(r, op, a, b, sp);
  if (a.k == RV_STR && b.k == RV_STR && (!strcmp(op, "==") || !strcmp(op, "!="))) /* Python's str compare */
    return (rval){.k = RV_BOOL, .i = !strcmp(a.s, b.s) == !strcmp(op, "=="), .sp = sp};
  tir_expr *x, *y;
  /* TVM 0.27 promotes in arithmetic (rd_promote_lit); comparisons and the
   * bitwise operators convert the number to the other side's type. (Its
   * tvm.script.from_source, under its default globals, promotes in a
   * comparison with the number on the right too; its @T.prim_func
   * decorator, which TVM's own code runs, does not: tirc reads as the
   * decorator does, docs/syntax.md) */
  static const char *const promoting[] = {"+", "-", "*", "/", "//", "%", "max", "min", "floordiv", "floormod",
                                          "truncdiv", "truncmod", NULL};
  if (rd_is_bit_op_name(op)) {
    rval ab[2] = {a, b};
    rd_wrap_bit_literals(ab, 2);
    a = ab[0], b = ab[1];
  }
  bool promote = false;
  for (int i = 0; promoting[i]; i++) promote |= !strcmp(op, promoting[i]);
  /* floordiv, floormod and truncdiv of a bool (a Python True too, which TVM
   * makes a T.bool first): TVM's functions take integers only ("b.ty()
   * MatchesCode(kDLInt, kDLUInt)"); truncmod takes one, as TVM's does */
  static const char *const int_only[] = {"//", "%", "floordiv", "floormod", "truncdiv", NULL};
  for (int i = 0; int_only[i]; i++)
    if (!strcmp(op, int_only[i])) {
      for (int j = 0; j < 2; j++) {
        rval v = j ? b : a;
        if (v.k == RV_BOOL || (v.k == RV_EXPR && v.e && tir_dtype_is_bool(v.e->dtype))) {
          tir_error(r->d, v.sp, "%s of a bool: TVM defines it on integers only (write T.Cast)",
                    !strcmp(op, "//") ? "floordiv (//)" : !strcmp(op, "%") ? "floormod (%)" : op);
          return rv_err();
        }
      }
    }
  /* a Python float compared with a value of no float type: TVM refuses a
   * comparison with the float on the left (Python reflects it to the
   * value's operator, which does not convert: "mismatched types") and == or
   * != with it on the right (the float made the value's integer type) */
  bool cmp = !strcmp(op, "<") || !strcmp(op, "<=") || !strcmp(op, ">") || !strcmp(op, ">=");
  bool eq = !strcmp(op, "==") || !strcmp(op, "!=");
  if (is_pynum(a) && b.k != RV_REGION) {
    if (!(y = rd_as_expr(r, b))) return rv_err();
    if (a.k == RV_FLOAT && (cmp || eq) && !tir_dtype_is_float(y->dtype) && !tir_dtype_is_handle(y->dtype))
      return float_cmp_error(r, op, y, sp);
    x = promote ? rd_promote_lit(r, a, &y) : adopt(r, a, y);
  } else if (is_pynum(b) && a.k != RV_REGION) {
    if (!(x = rd_as_expr(r, a))) return rv_err();
    if (b.k == RV_FLOAT && (cmp || eq) && !tir_dtype_is_float(x->dtype) && !tir_dtype_is_handle(x->dtype))
      return float_cmp_error(r, op, x, sp);
    y = promote ? rd_promote_lit(r, b, &x) : adopt(r, b, x);
  } else {
    x = rd_as_expr(r, a);
    y = x ? rd_as_expr(r, b) : NULL; /* one error: the first operand's */
  }
  if (!x || !y) return rv_err();
  /* == and != of two TIR values of different types: TVM's EQ and NE do
   * not promote ("mismatched types"); a Python number adopts the other's */
  if ((eq || cmp) && !is_pynum(a) && !is_pynum(b) &&
      !tir_dtype_eq(tir_dtype_with_lanes(x->dtype, 1), tir_dtype_with_lanes(y->dtype, 1)) &&
      !tir_dtype_is_handle(x->dtype) && !tir_dtype_is_handle(y->dtype)) {
    char s1[32], s2[32];
    tir_error(r->d, sp, "'%s' of %s and %s: TVM compares values of one type (write T.Cast)", op,
              tir_dtype_str(x->dtype, s1), tir_dtype_str(y->dtype, s2));
    return rv_err();
  }
  if (tir_dtype_is_handle(x->dtype) || tir_dtype_is_handle(y->dtype)) {
    tir_error(r->d, sp, "operator '%s' cannot be applied to a %s", op,
              x->kind == TIR_STRING_IMM || y->kind == TIR_STRING_IMM ? "string" : "handle");
    return rv_err();
  }
  static const struct { const char *op; tir_expr_kind k; } ops[] = {
      {"+", TIR_ADD}, {"-", TIR_SUB}, {"*", TIR_MUL}, {"//", TIR_FLOORDIV}, {"%", TIR_FLOORMOD},
      {"<", TIR_LT}, {"<=", TIR_LE}, {">", TIR_GT}, {">=", TIR_GE}, {"==", TIR_EQ}, {"!=", TIR_NE},
      {"and", TIR_AND}, {"or", TIR_OR}, {"/", TIR_DIV},
      {"max", TIR_MAX}, {"min", TIR_MIN}, {"floordiv", TIR_FLOORDIV}, {"floormod", TIR_FLOORMOD},
      {"truncdiv", TIR_DIV}, {"truncmod", TIR_MOD}};
  static const struct { const char *op, *fn; } bits[] = {
      {"&", "bitwise_and"}, {"|", "bitwise_or"}, {"^", "bitwise_xor"}, {"<<", "shift_left"}, {">>", "shift_right"}};
  for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
    if (!strcmp(op, bits[i].op)) {
      tir_expr *e = rd_bit_call(r, bits[i].fn, x, y, sp);
      tir_expr *f = e ? rd_fold_bits(r, bits[i].fn, e->u.call.args[0], e->u.call.args[1]) : NULL;
      return rv_expr(with_span(r, f ? f : e, sp), sp);
    }
  if (!strcmp(op, "**")) {
    tir_error(r->d, sp, "the '**' operator is not supported on TIR expressions; use T.pow");
    return rv_err();
  }
  if (!strcmp(op, "/") && y->kind == TIR_FLOAT_IMM && y->u.float_val == 0 && y->dtype.lanes == 1) {
    tir_error(r->d, sp, "division by zero (TVM's '/' refuses a zero constant divisor; T.Div builds the node)");
    return rv_err();
  }
  if (!strcmp(op, "/") && !tir_dtype_is_float(x->dtype) && !tir_dtype_is_float(y->dtype)) {
    tir_error(r->d, sp, "'/' on integers is ambiguous; use T.floordiv (//), T.truncdiv or T.floormod");
    return rv_err();
  }
  if (!strcmp(op, "truncdiv") && (tir_dtype_is_float(x->dtype) || tir_dtype_is_float(y->dtype))) {
    char s1[32];
    tir_error(r->d, sp, "truncdiv of %s: TVM defines it on integers only (for a float, write T.trunc(x / y))",
              tir_dtype_str(tir_dtype_is_float(x->dtype) ? x->dtype : y->dtype, s1));
    return rv_err();
  }
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(op, ops[i].op)) {
      if (!rd_operand_kinds_ok(r, ops[i].k, x, y, false, sp) ||
          !rd_operand_kinds_ok(r, ops[i].k, tir_dtype_is_float(y->dtype) ? y : x, y, true, sp))
        return rv_err();
      tir_expr *e = rd_bin_expr(r, ops[i].k, x, y);
      return e ? rv_expr(with_span(r, e, sp), sp) : rv_err();
    }
  tir_error(r->d, sp, "operator '%s' is not supported", op);
  return rv_err();
}

/* ---- unary ---- */

static rval unary(rd *r, TSNode n) {
  TSNode opn = rd_field(n, "operator");
  const char *op = ts_node_is_null(opn) ? "-" : ts_node_type(opn);
  tir_span sp = rd_span(n);
  TSNode arg = rd_field(n, "argument");
  /* -9223372036854775808: INT64_MIN, whose magnitude alone is no int64 */
  if (!strcmp(op, "-") && rd_is(arg, "integer") && !strcmp(rd_text(r, arg), "9223372036854775808"))
    return (rval){.k = RV_INT, .i = INT64_MIN, .sp = sp};
  rval a = rd_eval(r, arg);
  if (a.k == RV_ERR) return a;
  if (!strcmp(op, "+")) return a;
  if (a.k == RV_BIGINT || (a.k == RV_INT && a.i == INT64_MIN && (!strcmp(op, "-") || !strcmp(op, "~")))) {
    __int128 x = rd_big_of(a); /* never the least 128-bit value (rd_big_val's range) */
    __int128 neg;
    if (!strcmp(op, "-") && __builtin_sub_overflow((__int128)0, x, &neg)) {
      tir_error(r->d, sp, "integer overflow in constant expression (tirc holds Python ints to 2**127)");
      return rv_err();
    }
    if (!strcmp(op, "-")) return rd_big_val(neg, sp);
    if (!strcmp(op, "~")) return rd_big_val(~x, sp);
    goto bad;
  }
  if (is_pynum(a)) {
    if (!strcmp(op, "-")) {
      if (a.k == RV_FLOAT) a.f = -a.f;
      else a.i = -a.i, a.k = RV_INT;
    } else {
      if (a.k == RV_FLOAT) goto bad;
      a.i = ~a.i, a.k = RV_INT;
    }
    a.sp = sp;
    return a;
  }
  tir_expr *e = rd_as_expr(r, a);
  if (!e) return rv_err();
  if (!strcmp(op, "-") && e->dtype.code == TIR_TC_UINT) { /* TVM: x * -1, "cannot make uint from negative value" */
    char t[32];
    tir_dtype_str(e->dtype, t);
    tir_error(r->d, sp, "unary '-' of a %s value: TVM refuses it (it multiplies by -1, which no unsigned type holds; "
              "write T.%s(0) - x for the wrapped value)", t, t);
    return rv_err();
  }
  if (!strcmp(op, "-")) {
    if (e->kind == TIR_INT_IMM && !tir_dtype_is_bool(e->dtype)) { /* wraps in the dtype, as TVM folds */
      ir_fold f = ir_const_fold(TIR_SUB, tir_int(r->c, e->dtype, 0), e);
      return rv_expr(tir_int(r->c, e->dtype, f.i), sp);
    }
    /* a float constant negated as TVM folds it, x * -1: in float32 for
     * float32 (-T.float32(0.1) is -0.10000000149011612), in double for
     * float64; a NaN stays the NaN it is (the product keeps its operand's
     * sign: -T.float32("nan") is nan, not -nan); float16 and bfloat16 are
     * not folded (x * -1, below) */
    if (e->kind == TIR_FLOAT_IMM && e->dtype.code == TIR_TC_FLOAT && (e->dtype.bits == 32 || e->dtype.bits == 64)) {
      double v = isnan(e->u.float_val) ? e->u.float_val : -e->u.float_val;
      return rv_expr(tir_float(r->c, e->dtype, e->dtype.bits == 32 ? (double)(float)v : v), sp);
    }
    if (!tir_dtype_is_int(e->dtype) && !tir_dtype_is_float(e->dtype)) goto bad;
    tir_dtype s = tir_dtype_with_lanes(e->dtype, 1);
    tir_expr *m1 = tir_dtype_is_float(s) ? tir_float(r->c, s, -1.0) : tir_int(r->c, s, -1);
    return rv_expr(with_span(r, rd_bin_expr(r, TIR_MUL, e, m1), sp), sp);
  }
  /* ~b of a bool: TVM's bitwise_not on a bool, its logical negation */
  if (!tir_dtype_is_int(e->dtype) && !tir_dtype_is_bool(e->dtype)) goto bad;
  return rv_expr(with_span(r, tir_call(r->c, e->dtype, "bitwise_not", &e, 1), sp), sp);
bad:
  tir_error(r->d, sp, "unary '%s' cannot be applied to this operand", op);
  return rv_err();
}

static rval not_op(rd *r, TSNode n) {
  tir_span sp = rd_span(n);
  rval a = rd_eval(r, rd_field(n, "argument"));
  if (a.k == RV_ERR) return a;
  if (is_pynum(a)) return (rval){.k = RV_BOOL, .i = !py_truthy(a), .sp = sp};
  tir_expr *e = rd_as_expr(r, a);
  if (!e) return rv_err();
  /* not T.bool(False) is TVM's Not node, unfolded; an int TVM refuses */
  if (e->kind == TIR_INT_IMM && !tir_dtype_is_bool(e->dtype)) return rv_expr(tir_bool(r->c, e->u.int_val == 0), sp);
  if (!tir_dtype_is_bool(e->dtype)) {
    char s1[32];
    tir_error(r->d, sp, "'not' takes a bool operand, got %s (TVM refuses any other; compare with 0)",
              tir_dtype_str(e->dtype, s1));
    return rv_err();
  }
  return rv_expr(with_span(r, tir_not(r->c, e), sp), sp);
}

/* Python's == on two Python constants: 1, 0, or -1 where one is not such
 * a value (an expr, a buffer) */
static int py_eq(rval a, rval b) {
  if (is_pynum(a) && is_pynum(b)) {
    if (a.k == RV_FLOAT || b.k == RV_FLOAT) return (a.k == RV_FLOAT ? a.f : (double)a.i) == (b.k == RV_FLOAT ? b.f : (double)b.i);
    return a.i == b.i;
  }
  if (a.k == RV_STR && b.k == RV_STR) return !strcmp(a.s, b.s);
  if (a.k == RV_NONE || b.k == RV_NONE) return a.k == b.k;
  if ((a.k == RV_STR) != (b.k == RV_STR) && (is_pynum(a) || a.k == RV_STR) && (is_pynum(b) || b.k == RV_STR)) return 0;
  if (a.k == RV_TUPLE && b.k == RV_TUPLE) {
    if (a.n != b.n || a.is_list != b.is_list) return 0;
    for (int i = 0; i < a.n; i++) {
      int e = py_eq(a.items[i], b.items[i]);
      if (e != 1) return e;
    }
    return 1;
  }
  return -1;
}

/* `x in (1, 2)`, `"a" in s`, `k in d`, `x is None` on Python values, as
 * Python runs them in TVM's parser; -1 where an operand is no such value */
static int py_membership(const char *op, rval a, rval b) {
  if (!strcmp(op, "is") || !strcmp(op, "is not")) {
    if (a.k != RV_NONE && b.k != RV_NONE) return -1; /* identity of other values: not modelled */
    return (a.k == b.k) == !strcmp(op, "is");
  }
  int found = 0;
  if (b.k == RV_STR && a.k == RV_STR) {
    found = strstr(b.s, a.s) != NULL;
  } else if (b.k == RV_TUPLE || b.k == RV_DICT) {
    for (int i = 0; i < b.n && !found; i++) {
      int e = py_eq(a, b.k == RV_DICT ? b.keys[i] : b.items[i]);
      if (e < 0) return -1;
      found = e;
    }
  } else {
    return -1;
  }
  return found == !strcmp(op, "in");
}

/* a < b and a < b < c (Python's chain: (a < b) and (b < c), as TVM reads it) */
static rval comparison(rd *r, TSNode n) {
  tir_span sp = rd_span(n);
  uint32_t cnt = ts_node_child_count(n);
  if (cnt < 3 || cnt % 2 == 0) {
    tir_error(r->d, sp, "unsupported comparison");
    return rv_err();
  }
  rval left = rd_eval(r, ts_node_child(n, 0)), acc = {.k = RV_NONE};
  for (uint32_t i = 1; i + 1 < cnt; i += 2) {
    const char *op = ts_node_type(ts_node_child(n, i));
    if (!strcmp(op, "in") || !strcmp(op, "not in") || !strcmp(op, "is") || !strcmp(op, "is not")) {
      rval right = rd_eval(r, ts_node_child(n, i + 1));
      if (left.k == RV_ERR || right.k == RV_ERR) return rv_err();
      int m = py_membership(op, left, right);
      if (m < 0) {
        tir_error(r->d, rd_span(ts_node_child(n, i)),
                  "operator '%s' is read on Python values only (numbers, strings, None, tuples, lists, dicts)", op);
        return rv_err();
      }
      rval c = {.k = RV_BOOL, .i = m, .sp = sp};
      acc = acc.k == RV_NONE ? c : rd_binop(r, "and", acc, c, sp);
      if (acc.k == RV_ERR) return acc;
      left = right;
      continue;
    }
    /* a < b < c is (a < b) and (b < c): each comparison after the first
     * nests the conjunction one level deeper (counted as a binary chain) */
    if (i > 1 && r->depth + (int)(i / 2) > 200) {
      if (!r->deep_reported)
        tir_error(r->d, rd_span(ts_node_child(n, i)), "expression nested too deeply (more than 200 levels)");
      r->deep_reported = true;
      return rv_err();
    }
    rval right = rd_eval(r, ts_node_child(n, i + 1));
    rval c = rd_binop(r, op, left, right, sp);
    if (c.k == RV_ERR) return c;
    acc = acc.k == RV_NONE ? c : rd_binop(r, "and", acc, c, sp);
    if (acc.k == RV_ERR) return acc;
    left = right;
  }
  return acc;
}

/* ---- names and attributes ---- */

static rval identifier(rd *r, TSNode n) {
  const char *name = rd_text(r, n);
  rd_sym *s = rd_lookup(r, name);
  if (!s) {
    /* the module of a dotted name (I.dummy_global_info, R.dist.device_mesh)
     * that is no name of the reader's: say which name */
    TSNode up = ts_node_parent(n), top = n;
    while (!ts_node_is_null(up) && rd_is(up, "attribute") && ts_node_eq(rd_field(up, "object"), top)) {
      top = up;
      up = ts_node_parent(up);
    }
    if (!ts_node_eq(top, n) && (!strcmp(name, "R") || !strcmp(name, "relax"))) {
      tir_error(r->d, rd_span(top), "%s is Relax, which tirc does not read (it reads TIR only)", rd_text(r, top));
      return rv_err();
    }
    if (!ts_node_eq(top, n) && (!strcmp(name, "I") || !strcmp(name, "T") || !strcmp(name, "ir") || !strcmp(name, "tir"))) {
      tir_error(r->d, rd_span(top), "unknown name '%s'", rd_text(r, top));
      return rv_err();
    }
    const struct rd_macro *mc = rd_macro_of(r, n);
    if (mc) /* a macro as a value: called where it is passed (m(X) in a macro taking f) */
      return (rval){.k = RV_MACRO, .i = mc - r->macros, .s = mc->name, .sp = rd_span(n)};
    tir_error(r->d, rd_span(n), "undefined variable '%s'", name);
    return rv_err();
  }
  if (s->free_decl && s->loop_bound) {
    /* the var is the loop's at bound_at (TVM's print of a pragma attr on a
     * loop var); a use of it outside that loop would leave it free there */
    tir_error(r->d, rd_span(n), "'%s' is declared free above but the loop at %d:%d binds it: it cannot be used outside that loop",
              name, s->bound_at.line, s->bound_at.col);
    return rv_err();
  }
  if (s->free_decl) s->uses++;
  rval v = s->val;
  v.sp = rd_span(n);
  if (v.k == RV_BUFFER && v.buf->scalar) return rv_expr(rd_scalar_load(r, v.buf, v.sp), v.sp);
  return v;
}

static rval tuple_of(rd *r, tir_expr *const *es, int n, tir_span sp) {
  rval v = {.k = RV_TUPLE, .sp = sp, .n = n};
  v.items = tir_alloc(r->c, sizeof *v.items * (size_t)(n + 1));
  for (int i = 0; i < n; i++) v.items[i] = rv_expr(es[i], sp);
  return v;
}

static rval buffer_attr(rd *r, tir_buffer *b, const char *attr, tir_span sp) {
  /* the .data of a T.Buffer without data= (TVM's print after ThreadSync,
   * InferFragment and other passes): a var of its own that nothing binds,
   * which the verifier refuses before a pass, a code generator or a run */
  if (!strcmp(attr, "data")) {
    rval v = rv_expr(b->data, sp);
    v.via = b;
    return v;
  }
  if (!strcmp(attr, "elem_offset")) return rv_expr(b->elem_offset, sp);
  if (!strcmp(attr, "byte_offset")) { /* TVM's Buffer.byte_offset: elem_offset * bits // 8 */
    tir_expr *e = b->elem_offset;
    /* a bool counts its 8 stored bits, as TVM's */
    int eb = tir_dtype_is_bool(b->dtype) ? 8 : b->dtype.bits;
    tir_expr *bits = tir_int(r->c, e->dtype, (int64_t)eb * (b->dtype.lanes & ~TIR_LANES_SCALABLE));
    e = rd_bin_expr(r, TIR_MUL, e, bits);
    e = e ? rd_bin_expr(r, TIR_FLOORDIV, e, tir_int(r->c, e->dtype, 8)) : NULL;
    return e ? rv_expr(e, sp) : rv_err();
  }
  if (!strcmp(attr, "shape")) return tuple_of(r, b->shape, b->ndim, sp);
  if (!strcmp(attr, "strides")) return tuple_of(r, b->strides, b->nstrides, sp);
  if (!strcmp(attr, "dtype")) {
    char s[32];
    return (rval){.k = RV_STR, .s = tir_strdup(r->c, tir_dtype_str(b->dtype, s)), .sp = sp};
  }
  if (!strcmp(attr, "scope")) return (rval){.k = RV_STR, .s = b->scope, .sp = sp};
  if (!strcmp(attr, "ndim")) return (rval){.k = RV_INT, .i = b->ndim, .sp = sp};
  tir_error(r->d, sp, "buffer '%s' has no attribute '%s'", b->name, attr);
  return rv_err();
}

static rval attribute(rd *r, TSNode n) {
  tir_span sp = rd_span(n);
  const char *tn = rd_t_name(r, n);
  if (tn) {
    tir_dtype t;
    if (!strcmp(tn, "handle")) return (rval){.k = RV_HANDLE_T, .sp = sp};
    if (tir_dtype_parse(tn, &t)) return (rval){.k = RV_DTYPE, .dt = t, .sp = sp};
    if (rd_is_known_t_name(r, tn)) {
      tir_error(r->d, sp, "T.%s cannot be used as a value here", tn);
      return rv_err();
    }
    rd_unknown_t(r, tn, sp);
    return rv_err();
  }
  /* T.handle().ty: the type TVM prints as a dtype argument
   * (T.tvm_struct_get(A, 0, 1, T.handle().ty)) */
  TSNode on = rd_field(n, "object");
  if (rd_is(on, "call") && !strcmp(rd_text(r, rd_field(n, "attribute")), "ty")) {
    const char *ctn = rd_t_name(r, rd_field(on, "function"));
    if (ctn && !strcmp(ctn, "handle")) {
      if (!rd_child_count(rd_field(on, "arguments"))) return (rval){.k = RV_HANDLE_T, .sp = sp};
      rval h = rd_eval(r, on); /* T.handle("float32", "global").ty: the typed pointer */
      if (h.k == RV_HANDLE_T || h.k == RV_ERR) return h;
    }
  }
  rval obj = rd_eval(r, on);
  if (obj.k == RV_ERR) return obj;
  const char *attr = rd_text(r, rd_field(n, "attribute"));
  if (obj.k == RV_BUFFER) return buffer_attr(r, obj.buf, attr, rd_span(rd_field(n, "attribute")));
  /* x.source of a local scalar x (whose name reads as x[0]): its buffer, as TVM prints a region over it */
  if (obj.k == RV_EXPR && obj.e && obj.e->kind == TIR_BUFFER_LOAD && obj.e->u.load.buf->scalar && !strcmp(attr, "source"))
    return (rval){.k = RV_BUFFER, .buf = obj.e->u.load.buf, .sp = sp};
  tir_error(r->d, sp, "unsupported attribute '%s'", attr);
  return rv_err();
}

/* ---- containers ---- */

#define RD_MAX_COMPREHENSION 65536

/* the values a comprehension's `for` runs over: a tuple or list, or
 * range(...) of Python ints; false after an error */
/* the byte where each code point of s starts (UTF-8), and strlen(s)
 * after the last: Python's indices into a string; returns their count */
static int64_t code_points(rd *r, const char *s, int64_t **starts) {
  size_t nb = strlen(s);
  int64_t n = 0, *cp = tir_alloc(r->c, sizeof *cp * (nb + 1));
  for (size_t i = 0; i < nb; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80) cp[n++] = (int64_t)i;
  cp[n] = (int64_t)nb;
  *starts = cp;
  return n;
}

bool rd_iter_items(rd *r, TSNode it, rval **items, int *n) {
  TSNode fn = rd_is(it, "call") ? rd_field(it, "function") : (TSNode){0};
  if (!ts_node_is_null(fn) && rd_is(fn, "identifier") && !strcmp(rd_text(r, fn), "range") && !rd_lookup(r, "range")) {
    rd_args a;
    if (!rd_eval_call_args(r, it, &a)) return false;
    int64_t b[3] = {0, 0, 1};
    if (a.nkw || a.npos < 1 || a.npos > 3) {
      tir_error(r->d, rd_span(it), "range expects 1 to 3 Python ints here");
      return false;
    }
    for (int i = 0; i < a.npos; i++)
      if (!rd_as_int(r, a.pos[i], &b[a.npos == 1 ? 1 : i], "a range bound")) return false;
    if (b[2] == 0) {
      tir_error(r->d, rd_span(it), "range() step must not be zero");
      return false;
    }
    int64_t cnt = b[2] > 0 ? (b[1] > b[0] ? (b[1] - b[0] + b[2] - 1) / b[2] : 0)
                           : (b[0] > b[1] ? (b[0] - b[1] - b[2] - 1) / -b[2] : 0);
    if (cnt > RD_MAX_COMPREHENSION) {
      tir_error(r->d, rd_span(it), "a comprehension over %lld values (more than %d)", (long long)cnt, RD_MAX_COMPREHENSION);
      return false;
    }
    *n = (int)cnt;
    *items = tir_alloc(r->c, sizeof **items * (size_t)(cnt + 1));
    for (int64_t i = 0; i < cnt; i++) (*items)[i] = (rval){.k = RV_INT, .i = b[0] + i * b[2], .sp = rd_span(it)};
    return true;
  }
  rval v = rd_eval(r, it);
  if (v.k == RV_ERR) return false;
  if (v.k == RV_STR) { /* a string's characters (code points) */
    size_t nb = strlen(v.s);
    if (nb > RD_MAX_COMPREHENSION) {
      tir_error(r->d, rd_span(it), "a comprehension over a string of %zu bytes (more than %d)", nb, RD_MAX_COMPREHENSION);
      return false;
    }
    int64_t *cp, cnt = code_points(r, v.s, &cp);
    *items = tir_alloc(r->c, sizeof **items * (size_t)(cnt + 1));
    *n = (int)cnt;
    for (int64_t i = 0; i < cnt; i++)
      (*items)[i] = (rval){.k = RV_STR, .s = tir_strndup(r->c, v.s + cp[i], (size_t)(cp[i + 1] - cp[i])), .sp = v.sp};
    return true;
  }
  if (v.k != RV_TUPLE) {
    tir_error(r->d, rd_span(it),
              "a comprehension or a `*` splat runs over a tuple, a list, a string or range(...) of Python ints here");
    return false;
  }
  *items = v.items, *n = v.n;
  return true;
}

/* [body for x in items if cond]: evaluated where it is read, as TVM's parser
 * evaluates it in Python (one `for`, over Python values) */
static bool hashable_key(rd *r, rval k);

static rval list_comprehension(rd *r, TSNode n) {
  TSNode body = rd_field(n, "body"), clause = {0};
  uint32_t cnt = rd_child_count(n), nfor = 0;
  for (uint32_t i = 0; i < cnt; i++)
    if (rd_is(rd_child(n, i), "for_in_clause")) clause = rd_child(n, i), nfor++;
  TSNode target = nfor == 1 ? rd_field(clause, "left") : (TSNode){0};
  if (nfor != 1 || !rd_is(target, "identifier")) {
    tir_error(r->d, rd_span(n), "a comprehension with one `for` over one name is supported");
    return rv_err();
  }
  rval *items;
  int ni;
  if (!rd_iter_items(r, rd_field(clause, "right"), &items, &ni)) return rv_err();
  bool dict = rd_is(n, "dictionary_comprehension"); /* {k: v for x in items}: body a pair */
  rval v = {.k = dict ? RV_DICT : RV_TUPLE, .is_list = !dict, .sp = rd_span(n)};
  v.items = tir_alloc(r->c, sizeof *v.items * (size_t)(ni + 1));
  if (dict) v.keys = tir_alloc(r->c, sizeof *v.keys * (size_t)(ni + 1));
  const char *name = rd_text(r, target);
  if ((r->comp_items += ni) > 4 * RD_MAX_COMPREHENSION) { /* nested comprehensions multiply */
    tir_error(r->d, rd_span(n), "list comprehensions of more than %d values in all", 4 * RD_MAX_COMPREHENSION);
    return rv_err();
  }
  for (int k = 0; k < ni; k++) {
    int mark = r->nsyms;
    rd_push_sym(r, name, items[k]);
    bool keep = true;
    for (uint32_t i = 0; i < cnt && keep; i++) {
      TSNode c = rd_child(n, i);
      if (!rd_is(c, "if_clause")) continue;
      rval cv = rd_eval(r, rd_child(c, 0));
      if (cv.k == RV_ERR) {
        rd_pop_syms(r, mark);
        return rv_err();
      }
      if (cv.k != RV_BOOL && cv.k != RV_INT) {
        tir_error(r->d, rd_span(c), "a comprehension's condition must be a Python bool here");
        rd_pop_syms(r, mark);
        return rv_err();
      }
      keep = cv.i != 0;
    }
    rval key = {.k = RV_NONE};
    if (keep && dict) {
      key = rd_eval(r, rd_field(body, "key"));
      if (key.k == RV_ERR || !hashable_key(r, key)) {
        rd_pop_syms(r, mark);
        return rv_err();
      }
    }
    rval x = keep ? rd_eval(r, dict ? rd_field(body, "value") : body) : (rval){.k = RV_NONE};
    rd_pop_syms(r, mark);
    if (x.k == RV_ERR) return rv_err();
    if (keep && dict) { /* a key again: its first place, the last value (Python's) */
      int same = -1;
      for (int j = 0; j < v.n && same < 0; j++)
        if (py_eq(v.keys[j], key) == 1) same = j;
      if (same >= 0) {
        v.items[same] = x;
        continue;
      }
      v.keys[v.n] = key;
    }
    if (keep) v.items[v.n++] = x;
  }
  return v;
}

static rval sequence(rd *r, TSNode n, bool is_list) {
  uint32_t cnt = rd_child_count(n);
  rval v = {.k = RV_TUPLE, .is_list = is_list, .sp = rd_span(n)};
  int cap = (int)cnt + 1;
  v.items = tir_alloc(r->c, sizeof *v.items * (size_t)cap);
  bool bad = false;
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = rd_child(n, i);
    if (rd_is_extra(c)) continue;
    if (rd_is(c, "list_splat")) { /* (*shape, 2), [128, *dims]: the items of a tuple or list */
      rval s = rd_splat_value(r, c, false);
      if (s.k == RV_ERR) {
        bad = true;
        continue;
      }
      for (int k = 0; k < s.n; k++) {
        v.items = rd_grow(r->c, v.items, v.n, &cap, sizeof *v.items);
        v.items[v.n++] = s.items[k];
      }
      continue;
    }
    v.items = rd_grow(r->c, v.items, v.n, &cap, sizeof *v.items);
    rval x = rd_eval(r, c);
    if (x.k == RV_ERR) bad = true;
    v.items[v.n++] = x;
  }
  return bad ? rv_err() : v;
}

/* Python's hash of a dict key: a list or a dict has none */
static bool hashable_key(rd *r, rval k) {
  if ((k.k == RV_TUPLE && k.is_list) || k.k == RV_DICT) {
    tir_error(r->d, k.sp, "unhashable type: '%s' as a dict key", k.k == RV_DICT ? "dict" : "list");
    return false;
  }
  for (int i = 0; k.k == RV_TUPLE && i < k.n; i++)
    if (!hashable_key(r, k.items[i])) return false;
  return true;
}

static rval dictionary(rd *r, TSNode n) {
  uint32_t cnt = rd_child_count(n);
  rval v = {.k = RV_DICT, .sp = rd_span(n)};
  v.items = tir_alloc(r->c, sizeof *v.items * (cnt + 1));
  v.keys = tir_alloc(r->c, sizeof *v.keys * (cnt + 1));
  bool bad = false;
  /* a key given again: Python keeps its first place and the last value.
   * A string equals only a string: those are found by name (strs), the
   * others (1, True and 1.0 are one key) among the other keys (others) */
  tir_strmap strs = {0};
  int *others = malloc(sizeof *others * (cnt + 1)), nothers = 0;
  if (!others) abort();
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode p = rd_child(n, i);
    if (rd_is_extra(p)) continue;
    if (!rd_is(p, "pair")) {
      tir_error(r->d, rd_span(p), "unsupported dictionary entry");
      bad = true;
      break;
    }
    rval k = rd_eval(r, rd_field(p, "key")), x = rd_eval(r, rd_field(p, "value"));
    if (k.k == RV_ERR || x.k == RV_ERR) bad = true;
    else if (!hashable_key(r, k)) {
      bad = true;
      break;
    }
    int same = -1;
    if (k.k == RV_STR) {
      same = (int)tir_strmap_get(&strs, k.s, 0) - 1;
      if (same < 0) *tir_strmap_at(&strs, k.s, 0) = v.n + 1;
    } else {
      for (int j = 0; j < nothers && same < 0; j++)
        if (py_eq(v.keys[others[j]], k) == 1) same = others[j];
      if (same < 0) others[nothers++] = v.n;
    }
    if (same >= 0) {
      v.items[same] = x;
      continue;
    }
    v.keys[v.n] = k;
    v.items[v.n++] = x;
  }
  tir_strmap_free(&strs);
  free(others);
  return bad ? rv_err() : v;
}

/* ---- subscripts ---- */

typedef struct sub_idx {
  bool is_slice;
  rval lo, hi, step; /* slice parts (RV_NONE when omitted) */
  rval v;            /* a plain index */
  tir_span sp;
} sub_idx;

static sub_idx slice_parts(rd *r, TSNode s) {
  sub_idx x = {.is_slice = true, .sp = rd_span(s)};
  x.lo.k = x.hi.k = x.step.k = RV_NONE;
  int part = 0;
  uint32_t cnt = ts_node_child_count(s);
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = ts_node_child(s, i);
    if (!ts_node_is_named(c)) {
      if (!strcmp(ts_node_type(c), ":")) part++;
      continue;
    }
    if (rd_is_extra(c)) continue;
    rval v = rd_eval(r, c);
    if (part == 0) x.lo = v;
    else if (part == 1) x.hi = v;
    else x.step = v;
  }
  return x;
}

/* the indices, in a heap array the caller frees (scratch: a sub_idx is
 * 520 bytes, and the arena would keep it as long as the IR) */
static int subscript_indices(rd *r, TSNode n, sub_idx **out) {
  TSTreeCursor cur = ts_tree_cursor_new(n);
  int cnt = 0, cap = 0;
  sub_idx *arr = NULL;
  if (ts_tree_cursor_goto_first_child(&cur)) {
    do {
      const char *f = ts_tree_cursor_current_field_name(&cur);
      if (!f || strcmp(f, "subscript")) continue;
      TSNode c = ts_tree_cursor_current_node(&cur);
      if (cnt == cap) {
        cap = cap ? cap * 2 : 4;
        arr = realloc(arr, sizeof *arr * (size_t)cap);
        if (!arr) abort(); /* out of memory is not bad input */
      }
      if (rd_is(c, "slice")) {
        arr[cnt++] = slice_parts(r, c);
      } else if (rd_is(c, "list_splat")) { /* A[*idx], A[*sp, k]: the items as indices */
        rval s = rd_splat_value(r, c, false);
        if (s.k == RV_ERR) {
          arr[cnt++] = (sub_idx){.v = s, .sp = rd_span(c)};
          continue;
        }
        for (int k = 0; k < s.n; k++) {
          if (cnt == cap) {
            cap *= 2;
            arr = realloc(arr, sizeof *arr * (size_t)cap);
            if (!arr) abort();
          }
          arr[cnt++] = (sub_idx){.v = s.items[k], .sp = rd_span(c)};
        }
      } else {
        arr[cnt++] = (sub_idx){.v = rd_eval(r, c), .sp = rd_span(c)};
      }
    } while (ts_tree_cursor_goto_next_sibling(&cur));
  }
  ts_tree_cursor_delete(&cur);
  *out = arr;
  return cnt;
}

/* a Python int index is an int32 (int64 past it) whatever the buffer's
 * shape, as TVM 0.27 reads it; like is the dtype of a slice's other end */
static tir_expr *index_expr(rd *r, rval v, tir_dtype like) {
  if (v.k == RV_ERR) return NULL;
  bool past_int32 = v.k == RV_INT && (v.i < INT32_MIN || v.i > INT32_MAX); /* an int64, as TVM's const makes it */
  if (v.k == RV_INT && tir_dtype_is_int(like) && !(past_int32 && like.bits <= 32)) return rd_convert(r, v, like);
  if (v.k == RV_INT) return rd_as_expr(r, v);
  tir_expr *e = rd_as_expr(r, v);
  if (!e) return NULL;
  if (!tir_dtype_is_int(e->dtype)) {
    char b[32];
    tir_error(r->d, v.sp, "buffer index must be an integer, got %s", tir_dtype_str(e->dtype, b));
    return NULL;
  }
  return e;
}

static bool same_expr(const tir_expr *a, const tir_expr *b);

tir_expr *rd_region_extent(rd *r, tir_expr *lo, tir_expr *hi) {
  int64_t a, b;
  if (tir_is_const_int(lo, &a) && a == 0) return hi;
  if (tir_is_const_int(lo, &a) && tir_is_const_int(hi, &b)) /* wrapping: a negative extent is refused later */
    return tir_int(r->c, hi->dtype, (int64_t)((uint64_t)b - (uint64_t)a));
  /* (x + c1) - (x + c0) and x + c - x, the usual shape of `A[x:x + c]`
   * (and of a printed loop's `range(m, m + e)`) */
  if (hi->kind == TIR_ADD && same_expr(hi->u.bin.a, lo)) return hi->u.bin.b;
  if (hi->kind == TIR_ADD && lo->kind == TIR_ADD && hi->u.bin.a == lo->u.bin.a &&
      tir_is_const_int(hi->u.bin.b, &b) && tir_is_const_int(lo->u.bin.b, &a))
    return tir_int(r->c, hi->dtype, (int64_t)((uint64_t)b - (uint64_t)a));
  return rd_bin_expr(r, TIR_SUB, hi, lo);
}

/* structurally equal simple exprs, for recognising `A[x:x + c]` */
static bool same_expr(const tir_expr *a, const tir_expr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !tir_dtype_eq(a->dtype, b->dtype)) return false;
  if (a->kind == TIR_INT_IMM) return a->u.int_val == b->u.int_val;
  if (a->kind == TIR_FLOAT_IMM) return a->u.float_val == b->u.float_val;
  if (TIR_IS_BINARY(a->kind)) return same_expr(a->u.bin.a, b->u.bin.a) && same_expr(a->u.bin.b, b->u.bin.b);
  if (a->kind == TIR_NOT || a->kind == TIR_CAST) return same_expr(a->u.un.a, b->u.un.a);
  if (a->kind == TIR_SELECT)
    return same_expr(a->u.select.cond, b->u.select.cond) && same_expr(a->u.select.t, b->u.select.t) &&
           same_expr(a->u.select.f, b->u.select.f);
  if (a->kind == TIR_BUFFER_LOAD) {
    if (a->u.load.buf != b->u.load.buf || a->u.load.nidx != b->u.load.nidx) return false;
    for (int i = 0; i < a->u.load.nidx; i++)
      if (!same_expr(a->u.load.idx[i], b->u.load.idx[i])) return false;
    return true;
  }
  if (a->kind == TIR_CALL) { /* T.bitwise_not(x) * 64:T.bitwise_not(x) * 64 + 2 (fuzz_parse) */
    if (strcmp(a->u.call.op, b->u.call.op) || a->u.call.nargs != b->u.call.nargs ||
        a->u.call.written_out != b->u.call.written_out)
      return false;
    for (int i = 0; i < a->u.call.nargs; i++)
      if (!same_expr(a->u.call.args[i], b->u.call.args[i])) return false;
    return true;
  }
  if (a->kind == TIR_STRING_IMM) return !strcmp(a->u.str, b->u.str);
  return false;
}

static tir_expr *slice_extent(rd *r, tir_expr *lo, tir_expr *hi) {
  int64_t c;
  if (hi->kind == TIR_ADD && same_expr(hi->u.bin.a, lo)) return hi->u.bin.b;
  if (hi->kind == TIR_SUB && same_expr(hi->u.bin.a, lo) && tir_is_const_int(hi->u.bin.b, &c))
    return tir_int(r->c, hi->dtype, -c);
  return rd_region_extent(r, lo, hi);
}

static bool check_rank(rd *r, tir_buffer *b, int n, tir_span sp) {
  if (n == b->ndim) return true;
  tir_error(r->d, sp, "buffer '%s' has %d dimension%s but is indexed with %d ind%s", b->name, b->ndim,
            b->ndim == 1 ? "" : "s", n, n == 1 ? "ex" : "ices");
  return false;
}

/* the items of a tuple used as the whole index, as Python passes them */
static int tuple_indices(rval t, sub_idx **out) {
  sub_idx *arr = malloc(sizeof *arr * (size_t)(t.n + 1));
  if (!arr) abort();
  for (int i = 0; i < t.n; i++) arr[i] = (sub_idx){.v = t.items[i], .sp = t.items[i].sp};
  *out = arr;
  return t.n;
}

/* b[idx] with a vector index before the last: TVM 0.27 refuses it ("Only
 * the last index of a buffer access may be a vector type"), and so does
 * tirc (it had read D[T.Ramp(0, 1, 4), 1], which TVM cannot read back) */
static bool vector_not_last(rd *r, const tir_buffer *b, tir_expr **idx, int n, tir_span sp) {
  for (int i = 0; i < n - 1; i++)
    if (idx[i] && idx[i]->dtype.lanes != 1) {
      tir_error(r->d, idx[i]->span.line ? idx[i]->span : sp,
                "only the last index of a buffer access may be a vector: index %d of %s is one (TVM 0.27 refuses it)",
                i + 1, b->name);
      return true;
    }
  return false;
}

static rval buffer_subscript(rd *r, tir_buffer *b, sub_idx *ix, int n, tir_span sp) {
  if (r->region_args && n < b->ndim) { /* T.reads(A[vi]), T.reads(A[()]): the dimensions left out whole */
    sub_idx *all = tir_alloc(r->c, sizeof *all * (size_t)b->ndim);
    memcpy(all, ix, sizeof *all * (size_t)n);
    for (int i = n; i < b->ndim; i++)
      all[i] = (sub_idx){.is_slice = true, .lo = {.k = RV_NONE}, .hi = {.k = RV_NONE}, .step = {.k = RV_NONE}, .sp = sp};
    ix = all;
    n = b->ndim;
  }
  bool any_slice = false;
  for (int i = 0; i < n; i++) {
    /* T.buffer_store(B, v, [slice(0, 4)]), B[slice(0, 4)] = v: B[0:4] = v
     * (a slice object elsewhere is refused by rd_as_expr) */
    rval o = ix[i].v;
    if (!ix[i].is_slice && o.k == RV_SLICE && r->store_target)
      ix[i] = (sub_idx){.is_slice = true, .lo = o.items[0], .hi = o.items[1], .step = o.items[2], .sp = ix[i].sp};
    any_slice |= ix[i].is_slice;
  }
  if (!check_rank(r, b, n, sp)) return rv_err();
  if (!any_slice) {
    tir_expr **idx = tir_alloc(r->c, sizeof *idx * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
      if (!(idx[i] = index_expr(r, ix[i].v, TIR_VOID))) return rv_err();
    if (vector_not_last(r, b, idx, n, sp)) return rv_err();
    return rv_expr(with_span(r, tir_load(r->c, b, idx, n), sp), sp);
  }
  rval v = {.k = RV_REGION, .sp = sp};
  v.region = (tir_buffer_region){.buf = b, .n = n, .span = sp};
  v.region.region = tir_alloc(r->c, sizeof(tir_range) * (size_t)(n + 1));
  int64_t *steps = tir_alloc(r->c, sizeof *steps * (size_t)(n + 1));
  bool stepped = false;
  for (int i = 0; i < n; i++) {
    tir_range *g = &v.region.region[i];
    steps[i] = 1;
    if (!ix[i].is_slice) {
      if (!(g->min = index_expr(r, ix[i].v, TIR_VOID))) return rv_err();
      g->extent = tir_int(r->c, g->min->dtype, 1);
      continue;
    }
    if (r->store_target && (ix[i].lo.k == RV_NONE || ix[i].hi.k == RV_NONE)) {
      tir_error(r->d, ix[i].sp,
                "a store to a slice with a bound left out (%s[:hi], %s[lo:]) is not read: TVM 0.27 computes its lanes "
                "as hi - lo and fails on the missing bound; write both", b->name, b->name);
      return rv_err();
    }
    if (ix[i].step.k != RV_NONE) {
      int64_t st;
      if (!rd_as_int(r, ix[i].step, &st, "a slice step")) return rv_err();
      if (st < 1) {
        tir_error(r->d, ix[i].step.sp, "a slice step must be a positive constant (got %lld)", (long long)st);
        return rv_err();
      }
      steps[i] = st;
      stepped |= st != 1;
    }
    tir_expr *lo = ix[i].lo.k == RV_NONE ? tir_int(r->c, b->shape[i]->dtype, 0) : index_expr(r, ix[i].lo, TIR_VOID);
    /* a Python int end takes the start's type where that is 32 bits or
     * more (A[T.int64(2):16]); else it is an int32, as TVM's 16 - T.uint8(2) */
    tir_expr *hi = ix[i].hi.k == RV_NONE ? b->shape[i]
                                         : index_expr(r, ix[i].hi, lo && lo->dtype.bits >= 32 ? lo->dtype : TIR_VOID);
    if (!lo || !hi) return rv_err();
    tir_expr *lo0 = lo;
    if (!rd_match_types(r, &lo, &hi, ix[i].sp)) return rv_err();
    /* A[0:T.int64(8)], A[vi:vi + T.int64(2)], A[n:T.uint32(8)]: TVM keeps
     * the start as written (a Python int an int32) and the extent in the
     * other type (its inferred whole-dimension regions of int64 buffers
     * print so); the passes take it in the extent's type
     * (tir_module_unify_ranges) */
    g->min = lo0; /* T.int8(0) too: TVM's Ramp base keeps its dtype */
    g->extent = slice_extent(r, lo, hi);
  }
  if (stepped && !r->store_target) {
    tir_error(r->d, sp,
              "a slice with a step, %s[lo:hi:s], is read only as a store's target: TVM 0.27 refuses it as a value "
              "(\"Buffer slices with a non-unit step are not supported\"); write %s[T.Ramp(lo, s, lanes)]",
              b->name, b->name);
    return rv_err();
  }
  if (stepped) { /* B[lo:hi:s] = v: TVM's print of a strided vector store, T.Ramp(lo, s, lanes) */
    tir_expr **idx = tir_alloc(r->c, sizeof *idx * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
      int64_t ext;
      tir_range *g = &v.region.region[i];
      if (!tir_is_const_int(g->extent, &ext) || ext < 1) {
        tir_error(r->d, ix[i].sp, "a strided slice needs a constant extent (a vector of that many lanes)");
        return rv_err();
      }
      int64_t lanes = (ext + steps[i] - 1) / steps[i];
      if (lanes >= TIR_LANES_SCALABLE) {
        tir_error(r->d, ix[i].sp, "a strided slice of %lld lanes is too wide", (long long)lanes);
        return rv_err();
      }
      idx[i] = lanes == 1 ? g->min : tir_ramp(r->c, g->min, tir_int(r->c, g->min->dtype, steps[i]), (int)lanes);
    }
    if (vector_not_last(r, b, idx, n, sp)) return rv_err();
    return rv_expr(with_span(r, tir_load(r->c, b, idx, n), sp), sp);
  }
  return v;
}

/* b[idx...] from index values (T.buffer_store's indices): a load, or RV_ERR */
rval rd_buffer_element(rd *r, tir_buffer *b, const rval *idx, int n, tir_span sp) {
  sub_idx *ix = tir_alloc(r->c, sizeof *ix * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    if (idx[i].k == RV_ERR) return rv_err();
    ix[i] = (sub_idx){.v = idx[i], .sp = idx[i].sp};
  }
  return buffer_subscript(r, b, ix, n, sp);
}

tir_expr *rd_region_load(rd *r, rval v) { return region_as_load(r, v); }

static tir_expr *region_as_load(rd *r, rval v) {
  tir_buffer_region *g = &v.region;
  tir_expr **idx = tir_alloc(r->c, sizeof *idx * (size_t)(g->n + 1));
  for (int i = 0; i < g->n; i++) {
    int64_t ext;
    int k = rd_scalable_lanes(g->region[i].extent);
    if (k) { /* lo:lo + T.vscale() * 4: a scalable vector */
      idx[i] = tir_ramp(r->c, g->region[i].min, tir_int(r->c, g->region[i].min->dtype, 1), TIR_LANES_SCALABLE | k);
      continue;
    }
    if (!tir_is_const_int(g->region[i].extent, &ext) || ext < 1 || ext >= TIR_LANES_SCALABLE) {
      tir_error(r->d, v.sp, "a buffer slice as a store's target needs constant extents (a vector of 1 or more lanes)");
      return NULL;
    }
    idx[i] = ext == 1 ? g->region[i].min
                      : tir_ramp(r->c, g->region[i].min, tir_int(r->c, g->region[i].min->dtype, 1), (int)ext);
  }
  if (vector_not_last(r, g->buf, idx, g->n, v.sp)) return NULL;
  return with_span(r, tir_load(r->c, g->buf, idx, g->n), v.sp);
}

static rval subscript_of(rd *r, TSNode n, rval base, sub_idx *ix, int cnt);

/* T.BufferLoad(buffer, indices): TVM's node constructor, read as
 * buffer[indices] is */
rval rd_buffer_load(rd *r, tir_buffer *b, rval indices, tir_span sp) {
  if (indices.k != RV_TUPLE || (indices.n < 1 && b->ndim)) {
    tir_error(r->d, indices.sp.line ? indices.sp : sp, "T.BufferLoad expects a buffer and a list of indices");
    return rv_err();
  }
  sub_idx *ix = tir_alloc(r->c, sizeof *ix * (size_t)(indices.n + 1));
  for (int i = 0; i < indices.n; i++) ix[i] = (sub_idx){.v = indices.items[i], .sp = indices.items[i].sp};
  return buffer_subscript(r, b, ix, indices.n, sp);
}

/* T.S[8:1], T.S[(4, 8):(8, 1)], T.S[4, 8], T.S[(4, 8)]: the shard iters
 * of a TileLayout on the memory axis, strides row-major where not given
 * (computed as TVM's Layout._get_default_strides: from 1, or 1 of the first
 * extent whose dtype is not int32, times each extent from the last) */
static rval layout_spec(rd *r, TSNode n) {
  sub_idx *ix;
  int cnt = subscript_indices(r, n, &ix);
  tir_span sp = rd_span(n);
  rval ext = {.k = RV_NONE}, str = {.k = RV_NONE};
  bool bad = false;
  for (int i = 0; i < cnt; i++)
    bad |= ix[i].is_slice ? ix[i].lo.k == RV_ERR || ix[i].hi.k == RV_ERR || ix[i].step.k == RV_ERR : ix[i].v.k == RV_ERR;
  if (!bad && cnt == 1 && ix[0].is_slice) {
    if (ix[0].step.k != RV_NONE || ix[0].lo.k == RV_NONE || ix[0].hi.k == RV_NONE) {
      tir_error(r->d, sp, "T.S[extents:strides] expects both parts and no step");
      bad = true;
    }
    ext = ix[0].lo, str = ix[0].hi;
  } else if (!bad && cnt == 1) {
    ext = ix[0].v;
  } else if (!bad) {
    ext = (rval){.k = RV_TUPLE, .n = cnt, .sp = sp, .items = tir_alloc(r->c, sizeof(rval) * (size_t)cnt)};
    for (int i = 0; i < cnt && !bad; i++) {
      if (ix[i].is_slice) {
        tir_error(r->d, ix[i].sp, "T.S[e0, e1, ...] expects extents; write T.S[(e0, e1):(s0, s1)] for strides");
        bad = true;
      }
      ext.items[i] = ix[i].v;
    }
  }
  free(ix);
  if (bad) return rv_err();
  int ne = ext.k == RV_TUPLE ? ext.n : 1, ns = str.k == RV_TUPLE ? str.n : 1;
  if (str.k != RV_NONE && ns != ne) {
    tir_error(r->d, sp, "T.S[extents:strides] has %d extents and %d strides", ne, ns);
    return rv_err();
  }
  if (ne < 1) { /* T.S[()]: no iters, a layout of nothing */
    tir_error(r->d, sp, "T.S[...] needs at least one extent");
    return rv_err();
  }
  rval out = {.k = RV_LAYOUT, .n = ne, .sp = sp, .items = tir_alloc(r->c, sizeof(rval) * (size_t)(2 * ne))};
  for (int i = 0; i < ne; i++) out.items[2 * i] = ext.k == RV_TUPLE ? ext.items[i] : ext;
  if (str.k != RV_NONE) {
    for (int i = 0; i < ne; i++) out.items[2 * i + 1] = str.k == RV_TUPLE ? str.items[i] : str;
  } else {
    rval st = {.k = RV_INT, .i = 1, .sp = sp};
    for (int i = 0; i < ne; i++) {
      rval e = out.items[2 * i];
      if (e.k == RV_EXPR && !tir_dtype_eq(e.e->dtype, TIR_INT32)) {
        st = rv_expr(tir_int(r->c, e.e->dtype, 1), sp);
        break;
      }
    }
    for (int i = ne - 1; i >= 0; i--) {
      out.items[2 * i + 1] = st;
      if (i) st = rd_binop(r, "*", st, out.items[2 * i], sp);
      if (st.k == RV_ERR) return st;
    }
  }
  for (int k = 0; k < 2 * ne; k++) {
    rval v = out.items[k];
    if (v.k == RV_BOOL || v.k == RV_FLOAT || (v.k != RV_INT && v.k != RV_EXPR)) {
      tir_error(r->d, v.sp.line ? v.sp : sp, "T.S[...]: an %s must be an integer on the memory axis (layouts over "
                "thread axes, replicas and offsets are not supported)", k % 2 ? "stride" : "extent");
      return rv_err();
    }
    tir_expr *e = rd_as_expr(r, v);
    if (!e) return rv_err();
    if (!tir_dtype_is_int(e->dtype) || e->dtype.lanes != 1) {
      tir_error(r->d, v.sp.line ? v.sp : sp, "T.S[...]: an %s must be an integer", k % 2 ? "stride" : "extent");
      return rv_err();
    }
    out.items[k] = rv_expr(e, v.sp);
  }
  return out;
}

rval rd_subscript(rd *r, TSNode n) {
  TSNode vn = rd_field(n, "value");
  if (rd_is(vn, "attribute")) {
    const char *tn = rd_t_name(r, vn);
    if (tn && !strcmp(tn, "S")) return layout_spec(r, n);
  }
  bool target = r->store_target; /* this subscript's own slices only, not those in its base or indices */
  r->store_target = false;
  rval base;
  rd_sym *bs = rd_is(vn, "identifier") ? rd_lookup(r, rd_text(r, vn)) : NULL;
  if (bs && bs->val.k == RV_ERR) {
    base = rv_err();
  } else if (rd_is(vn, "identifier") && !bs && !strcmp(rd_text(r, vn), "metadata")) {
    /* `metadata["ir.StringImm"][0]`: TVM's print of an object it keeps in
     * the module's metadata section, which script() leaves out unless
     * show_meta=True (TVM cannot read such a print back either) */
    tir_error(r->d, rd_span(vn),
              "metadata[...] names an object of the module's metadata section, which this print leaves out "
              "(TVM's script(show_meta=False)); neither tirc nor TVM can read it back");
    base = rv_err();
  } else if (rd_is(vn, "identifier") && !bs) {
    tir_error(r->d, rd_span(vn), "undefined buffer '%s'", rd_text(r, vn));
    base = rv_err();
  } else {
    base = rd_eval(r, vn);
  }
  sub_idx *ix;
  int cnt = subscript_indices(r, n, &ix);
  if (base.k != RV_ERR && cnt == 1 && !ix[0].is_slice && ix[0].v.k == RV_TUPLE && base.k == RV_BUFFER) {
    sub_idx *items;
    cnt = tuple_indices(ix[0].v, &items); /* A[()] (rank 0), A[(i, j)], A[[i, j]] (a list, as TVM takes it) */
    free(ix);
    ix = items;
  }
  r->store_target = target;
  rval v = base.k == RV_ERR ? base : subscript_of(r, n, base, ix, cnt);
  r->store_target = false;
  free(ix);
  return v;
}

/* t[lo:hi:step] of a Python tuple, list or string (Python's slice: bounds
 * clamped, negative ones from the end; a string's by code point) */
static rval py_slice(rd *r, rval base, const sub_idx *x, tir_span sp) {
  int64_t b[3] = {0, 0, 1};
  const rval *part[3] = {&x->lo, &x->hi, &x->step};
  bool given[3];
  for (int i = 0; i < 3; i++) {
    given[i] = part[i]->k != RV_NONE;
    if (given[i] && !rd_as_int(r, *part[i], &b[i], "a slice bound")) return rv_err();
  }
  if (b[2] == 0) {
    tir_error(r->d, x->step.sp, "slice step cannot be zero");
    return rv_err();
  }
  int64_t *cp = NULL, len = base.k == RV_STR ? code_points(r, base.s, &cp) : base.n;
  int64_t lo = b[0], hi = b[1], st = b[2];
  if (!given[0]) lo = st > 0 ? 0 : len - 1;
  else if (lo < 0) lo = lo + len < 0 ? (st > 0 ? 0 : -1) : lo + len;
  else if (lo >= len) lo = st > 0 ? len : len - 1;
  if (!given[1]) hi = st > 0 ? len : -1;
  else if (hi < 0) hi = hi + len < 0 ? (st > 0 ? 0 : -1) : hi + len;
  else if (hi >= len) hi = st > 0 ? len : len - 1;
  /* lo and hi are in [-1, len] now: their difference fits; |st| may not */
  uint64_t ast = st > 0 ? (uint64_t)st : (uint64_t)0 - (uint64_t)st;
  int64_t cnt = st > 0 ? (hi > lo ? (int64_t)((uint64_t)(hi - lo - 1) / ast) + 1 : 0)
                       : (lo > hi ? (int64_t)((uint64_t)(lo - hi - 1) / ast) + 1 : 0);
  if (base.k == RV_STR) {
    char *out = tir_alloc(r->c, strlen(base.s) + 1), *o = out;
    for (int64_t k = 0; k < cnt; k++) {
      int64_t c = lo + k * st;
      memcpy(o, base.s + cp[c], (size_t)(cp[c + 1] - cp[c]));
      o += cp[c + 1] - cp[c];
    }
    *o = 0;
    return (rval){.k = RV_STR, .s = out, .sp = sp};
  }
  rval v = {.k = RV_TUPLE, .is_list = base.is_list, .sp = sp, .n = (int)cnt};
  v.items = tir_alloc(r->c, sizeof *v.items * (size_t)(cnt + 1));
  for (int64_t k = 0; k < cnt; k++) v.items[k] = base.items[lo + k * st];
  return v;
}

static rval subscript_of(rd *r, TSNode n, rval base, sub_idx *ix, int cnt) {
  tir_span sp = rd_span(n);
  for (int i = 0; i < cnt; i++)
    if ((!ix[i].is_slice && ix[i].v.k == RV_ERR) ||
        (ix[i].is_slice && (ix[i].lo.k == RV_ERR || ix[i].hi.k == RV_ERR || ix[i].step.k == RV_ERR)))
      return rv_err();
  if (base.k == RV_BUFFER) return buffer_subscript(r, base.buf, ix, cnt, sp);
  if (base.k == RV_REGION && base.region.buf) {
    /* A[lo:hi, c][i, j]: an element of the region, A[lo + i, c + j] (TVM's
     * TensorRegion indexed: each dim's min plus the index, folded) */
    const tir_buffer_region *g = &base.region;
    bool slice = false;
    for (int i = 0; i < cnt; i++) slice |= ix[i].is_slice;
    if (cnt != g->n || slice) {
      tir_error(r->d, sp, "a region of '%s' is indexed %s: one plain index per dimension (%d) is read", g->buf->name,
                slice ? "with a slice" : cnt < g->n ? "with too few indices" : "with too many indices", g->n);
      return rv_err();
    }
    sub_idx *nx = tir_alloc(r->c, sizeof *nx * (size_t)cnt);
    for (int i = 0; i < cnt; i++) {
      nx[i] = ix[i];
      nx[i].v = rd_binop(r, "+", rv_expr(g->region[i].min, ix[i].sp), ix[i].v, ix[i].sp);
      if (nx[i].v.k == RV_ERR) return rv_err();
    }
    return buffer_subscript(r, g->buf, nx, cnt, sp);
  }
  if (base.k == RV_TUPLE && cnt == 1 && !ix[0].is_slice) {
    int64_t k;
    if (!rd_as_int(r, ix[0].v, &k, "a tuple index")) return rv_err();
    if (k < 0) k += base.n;
    if (k < 0 || k >= base.n) {
      tir_error(r->d, ix[0].sp, "index %lld out of range for a tuple of %d", (long long)k, base.n);
      return rv_err();
    }
    return base.items[k];
  }
  if ((base.k == RV_TUPLE || base.k == RV_STR) && cnt == 1 && ix[0].is_slice) return py_slice(r, base, &ix[0], sp);
  if (base.k == RV_DICT && cnt == 1 && !ix[0].is_slice) { /* d["k"]: a dict of Python keys */
    rval key = ix[0].v;
    for (int i = base.n - 1; i >= 0; i--) { /* a key given twice: the later value, as Python keeps it */
      rval k = base.keys[i];
      if ((k.k == RV_STR && key.k == RV_STR && !strcmp(k.s, key.s)) ||
          ((k.k == RV_INT || k.k == RV_BOOL) && (key.k == RV_INT || key.k == RV_BOOL) && k.i == key.i))
        return base.items[i];
    }
    tir_error(r->d, ix[0].sp, "no such key in this dict (a string or int key is looked up)");
    return rv_err();
  }
  tir_error(r->d, sp, "this value cannot be indexed");
  return rv_err();
}

bool rd_as_region(rd *r, rval v, tir_buffer_region *out) {
  if (v.k == RV_ERR) return false;
  if (v.k == RV_REGION) { *out = v.region; return true; }
  if (v.k == RV_EXPR && v.e->kind == TIR_BUFFER_LOAD) {
    const tir_expr *e = v.e;
    *out = (tir_buffer_region){.buf = e->u.load.buf, .n = e->u.load.nidx, .span = v.sp};
    out->region = tir_alloc(r->c, sizeof(tir_range) * (size_t)(e->u.load.nidx + 1));
    for (int i = 0; i < e->u.load.nidx; i++) {
      tir_expr *ix = e->u.load.idx[i];
      if (ix->kind == TIR_RAMP) {
        /* the elements it covers: lanes of stride 1, (lanes - 1) * stride + 1 of a positive stride */
        int64_t st;
        tir_dtype it = ix->u.ramp.base->dtype;
        int lanes = ix->u.ramp.lanes & ~TIR_LANES_SCALABLE;
        bool scalable = ix->u.ramp.lanes & TIR_LANES_SCALABLE;
        if (!tir_is_const_int(ix->u.ramp.stride, &st) || st < 1 || (scalable && st != 1)) {
          tir_error(r->d, v.sp, "a region of a vector index whose stride is not a positive constant%s",
                    scalable ? " (or, scalable, not 1)" : "");
          return false;
        }
        tir_expr *ext = tir_int(r->c, it, (lanes - 1) * st + 1);
        if (scalable) {
          tir_expr *vs = tir_call(r->c, it, "vscale", NULL, 0);
          ext = tir_binary(r->c, TIR_MUL, vs, tir_int(r->c, it, lanes));
        }
        out->region[i] = (tir_range){ix->u.ramp.base, ext};
      } else
        out->region[i] = (tir_range){ix, tir_int(r->c, ix->dtype, 1)};
    }
    return true;
  }
  if (v.k == RV_BUFFER) {
    tir_buffer *b = v.buf;
    *out = (tir_buffer_region){.buf = b, .n = b->ndim, .span = v.sp};
    out->region = tir_alloc(r->c, sizeof(tir_range) * (size_t)(b->ndim + 1));
    for (int i = 0; i < b->ndim; i++) out->region[i] = (tir_range){tir_int(r->c, b->shape[i]->dtype, 0), b->shape[i]};
    return true;
  }
  tir_error(r->d, v.sp, "expected a buffer region such as A[i, 0:16]");
  return false;
}

/* ---- the dispatcher ---- */

/* ---- & and ^ ----
 * tree-sitter-python 0.23's grammar binds ^ tighter than & (its precedences
 * are the other way round from Python's, where & binds tighter than ^):
 * it parses `a ^ b & c` as (a ^ b) & c and `a & b ^ c` as a & (b ^ c).  A
 * chain of & and ^ with no parentheses between them is read again in
 * Python's order: & first, then ^, each from the left. */
static bool is_and_xor(TSNode n) {
  if (ts_node_is_null(n) || strcmp(ts_node_type(n), "binary_operator")) return false;
  const char *op = ts_node_type(ts_node_child_by_field_name(n, "operator", 8));
  return !strcmp(op, "&") || !strcmp(op, "^");
}

#define AND_XOR_MAX 200
/* the operands and operators of the chain at n, in source order (false past
 * AND_XOR_MAX operands or levels) */
static bool and_xor_flatten(TSNode n, TSNode *leaf, const char **op, int *nleaf, int depth) {
  if (depth > AND_XOR_MAX) return false;
  if (!is_and_xor(n)) {
    if (*nleaf >= AND_XOR_MAX) return false;
    leaf[(*nleaf)++] = n;
    return true;
  }
  if (!and_xor_flatten(ts_node_child_by_field_name(n, "left", 4), leaf, op, nleaf, depth + 1)) return false;
  op[*nleaf - 1] = ts_node_type(ts_node_child_by_field_name(n, "operator", 8)); /* after leaf nleaf-1 */
  return and_xor_flatten(ts_node_child_by_field_name(n, "right", 5), leaf, op, nleaf, depth + 1);
}


static rval and_xor_chain(rd *r, TSNode n, tir_span sp) {
  TSNode leaf[AND_XOR_MAX];
  const char *op[AND_XOR_MAX];
  int nleaf = 0;
  if (!and_xor_flatten(n, leaf, op, &nleaf, 0)) {
    if (!r->deep_reported)
      tir_error(r->d, sp, "expression nested too deeply (more than %d levels)", AND_XOR_MAX);
    r->deep_reported = true;
    return rv_err();
  }
  rval acc = rd_eval(r, leaf[0]), group = acc;
  bool in_xor = false;
  for (int i = 1; i < nleaf; i++) {
    rval x = rd_eval(r, leaf[i]);
    if (!strcmp(op[i - 1], "&")) {
      group = rd_binop(r, "&", group, x, sp);
    } else {
      acc = in_xor ? rd_binop(r, "^", acc, group, sp) : group;
      in_xor = true;
      group = x;
    }
  }
  return in_xor ? rd_binop(r, "^", acc, group, sp) : group;
}

/* the i-th named child of n that is no comment (a comment may stand after
 * any token: `(  # note` puts one first in the parentheses) */
static TSNode named_nc(TSNode n, uint32_t i) {
  uint32_t cnt = rd_child_count(n);
  for (uint32_t k = 0; k < cnt; k++) {
    TSNode c = rd_child(n, k);
    if (rd_is_extra(c)) continue;
    if (i-- == 0) return c;
  }
  return (TSNode){0};
}

rval rd_eval(rd *r, TSNode n) {
  if (ts_node_is_null(n)) return rv_err();
  tir_span sp = rd_span(n);
  if (++r->depth > 200) { /* RD_MAX_EXPR_DEPTH; docs/syntax.md */
    r->depth--;
    if (!r->deep_reported) /* once: the enclosing expressions fail with it */
      tir_error(r->d, sp, "expression nested too deeply (more than 200 levels)");
    r->deep_reported = true;
    return rv_err();
  }
  const char *t = ts_node_type(n);
  rval v;
  tir_span outer_sp = r->eval_sp;
  r->eval_sp = sp; /* where an error on a node without a position points */
  if (!strcmp(t, "integer")) v = int_literal(r, n);
  else if (!strcmp(t, "float")) v = float_literal(r, n);
  else if (!strcmp(t, "true") || !strcmp(t, "false")) v = (rval){.k = RV_BOOL, .i = t[0] == 't', .sp = sp};
  else if (!strcmp(t, "none")) v = (rval){.k = RV_NONE, .sp = sp};
  else if (!strcmp(t, "string") || !strcmp(t, "concatenated_string")) v = string_value(r, n);
  else if (!strcmp(t, "identifier")) v = identifier(r, n);
  else if (!strcmp(t, "attribute")) v = attribute(r, n);
  else if (!strcmp(t, "parenthesized_expression")) v = rd_eval(r, named_nc(n, 0)); /* `(  # c` too */
  else if (is_and_xor(n)) /* the whole chain of & and ^ at once, in Python's order */
    v = and_xor_chain(r, n, sp);
  else if (!strcmp(t, "binary_operator"))
    v = rd_binop(r, ts_node_type(rd_field(n, "operator")), rd_eval(r, rd_field(n, "left")),
                 rd_eval(r, rd_field(n, "right")), sp);
  else if (!strcmp(t, "boolean_operator")) {
    const char *op = ts_node_type(rd_field(n, "operator"));
    rval l = rd_eval(r, rd_field(n, "left"));
    /* a Python int beside a TIR value (`0 or c`, `c and 1`): TVM's parser
     * evaluates both and cannot combine them ("'int' object has no
     * attribute 'expr_ty'"); two Python ints are Python's */
    rval rr = l.k == RV_INT || l.k == RV_EXPR ? rd_eval(r, rd_field(n, "right")) : (rval){.k = RV_NONE};
    bool is_or = !strcmp(op, "or");
    if (l.k == RV_EXPR && rr.k == RV_INT && l.e && l.e->dtype.lanes != 1) {
      /* a vector on the left: TVM's parser takes the bitwise operator
       * before it looks at the right (`x and 1` is x & 1) */
      v = rd_binop(r, is_or ? "|" : "&", l, rr, sp);
    } else if ((l.k == RV_INT && rr.k == RV_EXPR) || (l.k == RV_EXPR && rr.k == RV_INT)) {
      tir_error(r->d, (l.k == RV_INT ? l : rr).sp,
                "a Python int in `%s` with a TIR value: TVM's parser cannot combine them (write a bool or a "
                "comparison)", op);
      v = rv_err();
    } else if (l.k == RV_INT) {
      v = (l.i != 0) == !strcmp(op, "or") ? l : rr; /* Python's `5 and 3`, `0 or 7` */
    } else if (l.k == RV_BOOL) {
      /* a Python value on the left: Python's short circuit, as TVM's parser
       * evaluates it (`True or x` is True, `False or x` is x, the right not read) */
      bool truthy = l.i != 0;
      v = truthy == is_or ? l : rd_eval(r, rd_field(n, "right"));
      /* `False or c`, `True and c` with c a TIR bool: TVM's parser keeps the
       * node, T.Or(T.bool(False), c) */
      if (truthy != is_or && v.k == RV_EXPR && v.e) {
        if (v.e->dtype.lanes != 1) /* of a vector: TVM's True & x */
          v = rd_binop(r, is_or ? "|" : "&", l, v, sp);
        else if (tir_dtype_is_bool(v.e->dtype))
          v = rv_expr(with_span(r, tir_binary(r->c, is_or ? TIR_OR : TIR_AND, tir_bool(r->c, truthy), v.e), sp), sp);
        else {
          char ts[64];
          tir_error(r->d, v.sp, "`%s %s` with a value of type %s: TVM makes T.%s(T.bool(%s), value), which takes bools", truthy ? "True" : "False",
                    op, tir_dtype_str(v.e->dtype, ts), is_or ? "Or" : "And", truthy ? "True" : "False");
          v = rv_err();
        }
      }
    } else {
      rval rv = l.k == RV_EXPR ? rr : rd_eval(r, rd_field(n, "right"));
      /* of a vector, TVM's parser makes `a and b` its a & b (T.bitwise_and)
       * and `a or b` its a | b, not T.And / T.Or */
      bool vec = (l.k == RV_EXPR && l.e && l.e->dtype.lanes != 1) || (rv.k == RV_EXPR && rv.e && rv.e->dtype.lanes != 1);
      v = rd_binop(r, vec ? (!strcmp(op, "or") ? "|" : "&") : op, l, rv, sp);
    }
  }
  else if (!strcmp(t, "unary_operator")) v = unary(r, n);
  else if (!strcmp(t, "not_operator")) v = not_op(r, n);
  else if (!strcmp(t, "comparison_operator")) v = comparison(r, n);
  else if (!strcmp(t, "tuple") || !strcmp(t, "expression_list")) v = sequence(r, n, false);
  else if (!strcmp(t, "list")) v = sequence(r, n, true);
  else if (!strcmp(t, "list_comprehension") || !strcmp(t, "dictionary_comprehension")) v = list_comprehension(r, n);
  else if (!strcmp(t, "generator_expression") && r->module_eval) { /* sum(k * k for k in R): Python's */
    v = list_comprehension(r, n);
    v.is_list = false;
  }
  else if (!strcmp(t, "dictionary")) v = dictionary(r, n);
  else if (!strcmp(t, "subscript")) v = rd_subscript(r, n);
  else if (!strcmp(t, "call")) v = rd_eval_call(r, n);
  else if (!strcmp(t, "conditional_expression")) {
    /* `a if c else b`, as TVM's parser reads it: c a Python bool picks a
     * branch (the other is not read); c a TIR bool is T.if_then_else(c, a, b);
     * anything else (a Python int too) is refused */
    rval c = !ts_node_is_null(named_nc(n, 2)) ? rd_eval(r, named_nc(n, 1)) : rv_err();
    if (c.k == RV_BOOL) {
      v = rd_eval(r, named_nc(n, c.i ? 0 : 2));
    } else if (c.k == RV_EXPR && tir_dtype_is_bool(c.e->dtype)) {
      rval pos[3] = {c, rd_eval(r, named_nc(n, 0)), rd_eval(r, named_nc(n, 2))};
      rd_args a = {.pos = pos, .npos = 3, .sp = sp};
      v = pos[1].k == RV_ERR || pos[2].k == RV_ERR ? rv_err() : rd_call_t(r, "if_then_else", n, &a);
    } else {
      if (c.k != RV_ERR)
        tir_error(r->d, c.sp, "the condition of `a if c else b` must be a Python bool or a TIR bool");
      v = rv_err();
    }
  } else {
    tir_error(r->d, sp, "unsupported expression (%s)", t);
    v = rv_err();
  }
  r->eval_sp = outer_sp;
  r->depth--;
  return v;
}
