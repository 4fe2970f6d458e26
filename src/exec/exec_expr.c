/* exec_expr.c - expressions compiled to closures: one evaluator per node
 * kind and value class (int, float, handle), vectors lane by lane. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_eval.h"

/* ------------------------------------------------------------------ */
/* ints                                                                 */

static int64_t i_const(const xe *e, xframe *fr) { (void)fr; return e->k; }
static int64_t i_var(const xe *e, xframe *fr) { return fr->slots[e->k].i; }

#define IBIN(name, expr)                                                     \
  static int64_t name(const xe *e, xframe *fr) {                             \
    uint64_t a = (uint64_t)EVI(e->a), b = (uint64_t)EVI(e->b);               \
    return x_wrapk(e, (int64_t)(expr));                                      \
  }
IBIN(i_add, a + b)
IBIN(i_sub, a - b)
IBIN(i_mul, a * b)
IBIN(i_band, a & b)
IBIN(i_bor, a | b)
IBIN(i_bxor, a ^ b)

/* var + const and var * const, the commonest index parts */
static int64_t i_add_vc(const xe *e, xframe *fr) {
  return x_wrapk(e, (int64_t)((uint64_t)fr->slots[e->a->k].i + (uint64_t)e->k));
}
static int64_t i_mul_vc(const xe *e, xframe *fr) {
  return x_wrapk(e, (int64_t)((uint64_t)fr->slots[e->a->k].i * (uint64_t)e->k));
}
static int64_t i_add_xc(const xe *e, xframe *fr) { return x_wrapk(e, (int64_t)((uint64_t)EVI(e->a) + (uint64_t)e->k)); }
static int64_t i_mul_xc(const xe *e, xframe *fr) { return x_wrapk(e, (int64_t)((uint64_t)EVI(e->a) * (uint64_t)e->k)); }

/* a sum of constant multiples of vars and other terms, plus a constant:
 * index arithmetic in one node.  Wrapping once at the end is exact: the
 * ints of a width are a ring, and + - * commute with the reduction. */
typedef struct xlin {
  int nv, nx;
  const int *vslot;
  const uint64_t *vcoef;
  const xe **x;
  const uint64_t *xcoef;
  uint64_t c0;
} xlin;

static int64_t i_lin(const xe *e, xframe *fr) {
  const xlin *l = e->aux;
  uint64_t acc = l->c0;
  for (int k = 0; k < l->nv; k++) acc += l->vcoef[k] * (uint64_t)fr->slots[l->vslot[k]].i;
  for (int k = 0; k < l->nx; k++) acc += l->xcoef[k] * (uint64_t)EVI(l->x[k]);
  return x_wrapk(e, (int64_t)acc);
}
static int64_t i_lin_v(const xe *e, xframe *fr) { /* vars only */
  const xlin *l = e->aux;
  uint64_t acc = l->c0;
  for (int k = 0; k < l->nv; k++) acc += l->vcoef[k] * (uint64_t)fr->slots[l->vslot[k]].i;
  return x_wrapk(e, (int64_t)acc);
}

static bool div_zero(const xe *e, xframe *fr, int64_t b) {
  if (b != 0) return false;
  x_fail(fr, e->span, "integer division by zero");
  return true;
}

static int64_t i_div(const xe *e, xframe *fr) {
  int64_t a = EVI(e->a), b = EVI(e->b);
  if (div_zero(e, fr, b)) return 0;
  if (e->uns && !e->sh) return (int64_t)((uint64_t)a / (uint64_t)b);
  if (b == -1) return x_wrapk(e, (int64_t)(0 - (uint64_t)a));
  return x_wrapk(e, a / b);
}
static int64_t i_mod(const xe *e, xframe *fr) {
  int64_t a = EVI(e->a), b = EVI(e->b);
  if (div_zero(e, fr, b)) return 0;
  if (e->uns && !e->sh) return (int64_t)((uint64_t)a % (uint64_t)b);
  if (b == -1) return 0;
  return a % b;
}
static int64_t i_floordiv(const xe *e, xframe *fr) {
  int64_t a = EVI(e->a), b = EVI(e->b);
  if (div_zero(e, fr, b)) return 0;
  if (e->uns && !e->sh) return (int64_t)((uint64_t)a / (uint64_t)b);
  if (b == -1) return x_wrapk(e, (int64_t)(0 - (uint64_t)a));
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return x_wrapk(e, q);
}
static int64_t i_floormod(const xe *e, xframe *fr) {
  int64_t a = EVI(e->a), b = EVI(e->b);
  if (div_zero(e, fr, b)) return 0;
  if (e->uns && !e->sh) return (int64_t)((uint64_t)a % (uint64_t)b);
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
/* by a positive constant (the common index form) */
static int64_t i_floordiv_c(const xe *e, xframe *fr) {
  int64_t a = EVI(e->a), b = e->k;
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
static int64_t i_floormod_c(const xe *e, xframe *fr) {
  int64_t a = EVI(e->a), b = e->k;
  int64_t r = a % b;
  return r < 0 ? r + b : r;
}
static int64_t i_min(const xe *e, xframe *fr) {
  int64_t a = EVI(e->a), b = EVI(e->b);
  if (e->uns && !e->sh) return (uint64_t)a < (uint64_t)b ? a : b;
  return a < b ? a : b;
}
static int64_t i_max(const xe *e, xframe *fr) {
  int64_t a = EVI(e->a), b = EVI(e->b);
  if (e->uns && !e->sh) return (uint64_t)a > (uint64_t)b ? a : b;
  return a > b ? a : b;
}

/* comparisons: e->k is 1 when the operands are uint64 */
#define ICMP(name, op)                                                          \
  static int64_t name(const xe *e, xframe *fr) {                                \
    int64_t a = EVI(e->a), b = EVI(e->b);                                       \
    return e->k ? ((uint64_t)a op (uint64_t)b) : (a op b);                      \
  }
ICMP(i_eq, ==)
ICMP(i_ne, !=)
ICMP(i_lt, <)
ICMP(i_le, <=)
ICMP(i_gt, >)
ICMP(i_ge, >=)
#define FCMP(name, op)                                                          \
  static int64_t name(const xe *e, xframe *fr) { return EVF(e->a) op EVF(e->b); }
FCMP(f_eq, ==)
FCMP(f_ne, !=)
FCMP(f_lt, <)
FCMP(f_le, <=)
FCMP(f_gt, >)
FCMP(f_ge, >=)
static int64_t h_eq(const xe *e, xframe *fr) {
  xval a = EVH(e->a), b = EVH(e->b);
  return a.h.st == b.h.st && a.h.off == b.h.off;
}
static int64_t h_ne(const xe *e, xframe *fr) { return !h_eq(e, fr); }

/* && and || as C evaluates them: the right side only when needed */
static int64_t i_and(const xe *e, xframe *fr) { return EVI(e->a) && EVI(e->b); }
static int64_t i_or(const xe *e, xframe *fr) { return EVI(e->a) || EVI(e->b); }
static int64_t i_not(const xe *e, xframe *fr) { return !EVI(e->a); }
static int64_t i_select(const xe *e, xframe *fr) { return EVI(e->c) ? EVI(e->a) : EVI(e->b); }

static int64_t i_cast_i(const xe *e, xframe *fr) {
  int64_t v = EVI(e->a);
  if (e->dt.bits == 1) return v != 0;
  return x_wrapk(e, v);
}
static int64_t i_cast_f(const xe *e, xframe *fr) {
  double v = EVF(e->a);
  if (e->dt.bits == 1) return v != 0;
  /* the value must fit the type (C leaves it undefined otherwise) */
  double lo = e->uns ? 0.0 : -ldexp(1.0, e->dt.bits - 1), hi = e->uns ? ldexp(1.0, e->dt.bits) : ldexp(1.0, e->dt.bits - 1);
  double t = trunc(v);
  if (!(t >= lo && t < hi)) {
    char b[32];
    x_fail(fr, e->span, "float value %g does not fit %s (conversion out of range)", v, tir_dtype_str(e->dt, b));
    return 0;
  }
  if (e->uns && e->dt.bits == 64) return (int64_t)(uint64_t)t;
  return (int64_t)t;
}

static int64_t i_shl(const xe *e, xframe *fr) {
  int64_t a = EVI(e->a), b = EVI(e->b);
  if (b < 0 || b >= e->dt.bits) {
    x_fail(fr, e->span, "shift by %lld: a %d-bit value shifts by 0 to %d", (long long)b, e->dt.bits, e->dt.bits - 1);
    return 0;
  }
  return x_wrapk(e, (int64_t)((uint64_t)a << b));
}
static int64_t i_shr(const xe *e, xframe *fr) {
  int64_t a = EVI(e->a), b = EVI(e->b);
  if (b < 0 || b >= e->dt.bits) {
    x_fail(fr, e->span, "shift by %lld: a %d-bit value shifts by 0 to %d", (long long)b, e->dt.bits, e->dt.bits - 1);
    return 0;
  }
  /* a is sign- or zero-extended: the shift of the wide value is the narrow one's */
  if (e->uns) return (int64_t)((uint64_t)a >> b);
  return a >> b;
}
static int64_t i_bnot(const xe *e, xframe *fr) { return x_wrapk(e, ~EVI(e->a)); }
/* popcount and clz count the operand's bits (an int64's 64 where the
 * result is an int32: T.clz(T.int64(0)) is 64) */
static int64_t i_popcount(const xe *e, xframe *fr) {
  uint64_t a = (uint64_t)EVI(e->a);
  int bits = e->a->dt.bits;
  if (bits < 64) a &= (1ull << bits) - 1;
  return __builtin_popcountll(a);
}
static int64_t i_clz(const xe *e, xframe *fr) {
  uint64_t a = (uint64_t)EVI(e->a);
  int bits = e->a->dt.bits;
  if (bits < 64) a &= (1ull << bits) - 1;
  if (!a) return bits;
  return __builtin_clzll(a) - (64 - bits);
}
static int64_t i_isnan(const xe *e, xframe *fr) { double v = EVF(e->a); return v != v; }
static int64_t i_isinf(const xe *e, xframe *fr) { return isinf(EVF(e->a)) != 0; }
static int64_t i_isfinite(const xe *e, xframe *fr) { return isfinite(EVF(e->a)) != 0; }
static int64_t i_isnull(const xe *e, xframe *fr) { return EVH(e->a).h.st == NULL; }
static int64_t i_reinterp_f(const xe *e, xframe *fr) {
  double v = EVF(e->a);
  uint8_t buf[8] = {0};
  x_write_float(buf, e->a->ek, v);
  return x_read_int(buf, e->ek);
}
static int64_t i_abs(const xe *e, xframe *fr) {
  int64_t v = EVI(e->a);
  return v < 0 ? x_wrapk(e, (int64_t)(0 - (uint64_t)v)) : v;
}

/* T.let / Let in expressions: bind, then the body */
static void let_bind(const xe *e, xframe *fr) {
  for (int l = 0; l < e->nargs; l++) {
    const xe *v = e->args[l];
    if (v->vc == XV_INT) fr->slots[e->k + l].i = EVI(v);
    else if (v->vc == XV_FLOAT) fr->slots[e->k + l].f = EVF(v);
    else fr->slots[e->k + l] = EVH(v);
  }
}
static int64_t i_let(const xe *e, xframe *fr) { let_bind(e, fr); return EVI(e->a); }
static double f_let(const xe *e, xframe *fr) { let_bind(e, fr); return EVF(e->a); }
static xval h_let(const xe *e, xframe *fr) { let_bind(e, fr); return EVH(e->a); }

/* ------------------------------------------------------------------ */
/* loads                                                                */

static inline int64_t *eval_idx(const xacc *a, xframe *fr, int64_t *out) {
  for (int d = 0; d < a->ndim; d++) out[d] = EVI(a->idx[d]);
  return out;
}

static int64_t i_load(const xe *e, xframe *fr) {
  int64_t idx[32];
  xstore *st;
  const uint8_t *p = x_addr_fast(e->acc, fr, eval_idx(e->acc, fr, idx), false, &st);
  return p ? x_read_int(p, e->acc->ek) : 0;
}
static double f_load(const xe *e, xframe *fr) {
  int64_t idx[32];
  xstore *st;
  const uint8_t *p = x_addr_fast(e->acc, fr, eval_idx(e->acc, fr, idx), false, &st);
  return p ? x_read_float(p, e->acc->ek) : 0;
}
/* one index, int32 elements: the hot case */
static int64_t i_load1_i32(const xe *e, xframe *fr) {
  const xacc *a = e->acc;
  int64_t i = EVI(a->idx[0]);
  const xbuf *b = &fr->bufs[a->buf];
  if (b->view_src < 0 && b->st && !a->derive) {
    const int64_t *sh = fr->dims + a->dimoff;
    int64_t off = i >= 0 && i < sh[0] ? b->base + i * sh[1] * 4 : -1; /* (i checked first: i * stride may overflow) */
    if (off >= 0 && off + 4 <= b->st->size) {
      const uint8_t *in = b->st->init;
      uint32_t w = 0x01010101u;
      if (in && fr->run->check_uninit) memcpy(&w, in + off, 4);
      if (w == 0x01010101u) {
        int32_t v;
        memcpy(&v, b->st->data + off, 4);
        return v;
      }
    }
  }
  xstore *st;
  const uint8_t *p = x_addr(a, fr, &i, false, &st);
  return p ? x_read_int(p, a->ek) : 0;
}

/* ------------------------------------------------------------------ */
/* floats                                                               */

static double f_const(const xe *e, xframe *fr) { (void)fr; return e->fk; }
static double f_var(const xe *e, xframe *fr) { return fr->slots[e->k].f; }

#define FBIN(name, expr)                                                                  \
  static double name##_64(const xe *e, xframe *fr) { double a = EVF(e->a), b = EVF(e->b); return (expr); } \
  static double name##_32(const xe *e, xframe *fr) { double a = EVF(e->a), b = EVF(e->b); return (float)(expr); } \
  static double name##_16(const xe *e, xframe *fr) { double a = EVF(e->a), b = EVF(e->b); return x_round_to(e->ek, (expr)); }
FBIN(f_add, a + b)
FBIN(f_sub, a - b)
FBIN(f_mul, a * b)
FBIN(f_div, a / b)
FBIN(f_mod, fmod(a, b))
static double f_min(const xe *e, xframe *fr) { double a = EVF(e->a), b = EVF(e->b); return a < b ? a : b; }
static double f_max(const xe *e, xframe *fr) { double a = EVF(e->a), b = EVF(e->b); return a > b ? a : b; }
/* as the C code computes them: each operation rounded to the type */
static double f_floordiv(const xe *e, xframe *fr) {
  double a = EVF(e->a), b = EVF(e->b);
  if (e->ek == EK_F32) return floorf((float)(a / b));
  return x_round_to(e->ek, floor(x_round_to(e->ek == EK_F64 ? EK_F64 : EK_F32, a / b)));
}
static double f_floormod(const xe *e, xframe *fr) {
  double a = EVF(e->a), b = EVF(e->b);
  if (e->ek == EK_F32) {
    float q = floorf((float)(a / b));
    float m = (float)((double)q * b);
    return (float)(a - (double)m);
  }
  if (e->ek == EK_F64) return a - floor(a / b) * b;
  float x = (float)a, y = (float)b;
  float q = floorf(x / y);
  float m = q * y;
  return x_round_to(e->ek, (double)(x - m));
}
static double f_select(const xe *e, xframe *fr) { return EVI(e->c) ? EVF(e->a) : EVF(e->b); }
static double f_cast_i(const xe *e, xframe *fr) {
  int64_t v = EVI(e->a);
  bool u64 = e->a->uns && !e->a->sh;
  switch (e->ek) {
  case EK_F32: return u64 ? (float)(uint64_t)v : (float)v;
  case EK_F64: return u64 ? (double)(uint64_t)v : (double)v;
  default: return x_round_to(e->ek, u64 ? (double)(uint64_t)v : (double)v);
  }
}
static double f_cast_f(const xe *e, xframe *fr) { return x_round_to(e->ek, EVF(e->a)); }
static double f_reinterp_i(const xe *e, xframe *fr) {
  int64_t v = EVI(e->a);
  uint8_t buf[8] = {0};
  x_write_int(buf, e->a->ek, v);
  return x_read_float(buf, e->ek);
}

/* math: aux is the table entry */
typedef struct mathfn {
  const char *name;                 /* the TIR op */
  const char *c32, *c64;            /* the C names (call_extern) */
  int nargs;
  float (*f1)(float);
  double (*d1)(double);
  float (*f2)(float, float);
  double (*d2)(double, double);
} mathfn;

static float exp10_f(float x) { return powf(10.0f, x); }
static double exp10_d(double x) { return pow(10.0, x); }
static float sigmoid_f(float x) { return 1.0f / (1.0f + expf(-x)); }
static double sigmoid_d(double x) { return 1.0 / (1.0 + exp(-x)); }
static float rsqrt_f(float x) { return 1.0f / sqrtf(x); }
static double rsqrt_d(double x) { return 1.0 / sqrt(x); }
static float fmax_f(float a, float b) { return fmaxf(a, b); }
static float fmin_f(float a, float b) { return fminf(a, b); }

#define M1(n, fn) {n, #fn "f", #fn, 1, fn##f, fn, NULL, NULL}
#define M2(n, fn) {n, #fn "f", #fn, 2, NULL, NULL, fn##f, fn}
static const mathfn MATH[] = {
    M1("exp", exp), M1("exp2", exp2), M1("expm1", expm1), M1("log", log), M1("log2", log2), M1("log10", log10),
    M1("log1p", log1p), M1("sqrt", sqrt), M1("tanh", tanh), M1("sin", sin), M1("cos", cos), M1("tan", tan),
    M1("sinh", sinh), M1("cosh", cosh), M1("asin", asin), M1("acos", acos), M1("atan", atan), M1("asinh", asinh),
    M1("acosh", acosh), M1("atanh", atanh), M1("erf", erf), M1("floor", floor), M1("ceil", ceil),
    M1("trunc", trunc), M1("nearbyint", nearbyint), M1("fabs", fabs), M1("cbrt", cbrt), M1("erfc", erfc),
    M1("lgamma", lgamma), M1("tgamma", tgamma),
    /* T.round is round-half-even in TVM (LLVM's nearbyint; the C code prints
     * nearbyint); call_extern("roundf") is C's round, half away from zero
     * (its own entry, under a name no T.* intrinsic has) */
    {"round", NULL, NULL, 1, nearbyintf, nearbyint, NULL, NULL},
    {"c.round", "roundf", "round", 1, roundf, round, NULL, NULL},
    {"exp10", NULL, NULL, 1, exp10_f, exp10_d, NULL, NULL},
    {"sigmoid", NULL, NULL, 1, sigmoid_f, sigmoid_d, NULL, NULL},
    /* call_extern("rsqrtf"): CUDA's (TVM's LowerIntrin writes it for T.rsqrt) */
    {"rsqrt", "rsqrtf", "rsqrt", 1, rsqrt_f, rsqrt_d, NULL, NULL},
    M2("pow", pow), M2("fmod", fmod), M2("atan2", atan2), M2("copysign", copysign), M2("hypot", hypot),
    M2("nextafter", nextafter), {"fmax", "fmaxf", "fmax", 2, NULL, NULL, fmax_f, fmax},
    {"fmin", "fminf", "fmin", 2, NULL, NULL, fmin_f, fmin},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

static double f_math1(const xe *e, xframe *fr) {
  const mathfn *m = e->aux;
  double a = EVF(e->args[0]);
  if (e->ek == EK_F64) return m->d1(a);
  return x_round_to(e->ek, (double)m->f1((float)a));
}
static double f_math2(const xe *e, xframe *fr) {
  const mathfn *m = e->aux;
  double a = EVF(e->args[0]), b = EVF(e->args[1]);
  if (e->ek == EK_F64) return m->d2(a, b);
  return x_round_to(e->ek, (double)m->f2((float)a, (float)b));
}
static double f_abs(const xe *e, xframe *fr) { return fabs(EVF(e->a)); }

/* ------------------------------------------------------------------ */
/* handles                                                              */

static xval h_var(const xe *e, xframe *fr) { return fr->slots[e->k]; }
static xval h_null(const xe *e, xframe *fr) { (void)e; (void)fr; return (xval){.h = {NULL, 0}}; }
static xval h_select(const xe *e, xframe *fr) { return EVI(e->c) ? EVH(e->a) : EVH(e->b); }

/* tvm_access_ptr(type_annotation(t), data, offset, extent, mask): k = bytes of t */
static xval h_access_ptr(const xe *e, xframe *fr) {
  xval d = EVH(e->args[1]);
  int64_t off = EVI(e->args[2]), ext = EVI(e->args[3]);
  if (!d.h.st) {
    x_fail(fr, e->span, "T.tvm_access_ptr of a null pointer");
    return d;
  }
  /* the start must lie in the storage; the extent is a promise about what
   * the callee touches (TVM's default, shape[0] * strides[0], may reach
   * past the end of a strided view), checked where it is used */
  int64_t lo = d.h.off + off * e->k;
  (void)ext;
  if (lo < 0 || lo > d.h.st->size) {
    x_fail(fr, e->span, "T.tvm_access_ptr: element %lld of %s is outside its %lld elements", (long long)(lo / e->k),
           d.h.st->name, (long long)(d.h.st->size / e->k));
    return (xval){.h = {NULL, 0}};
  }
  d.h.off = lo;
  return d;
}
/* address_of(B[i...]) */
static xval h_address_of(const xe *e, xframe *fr) {
  int64_t idx[32];
  const xacc *a = e->acc;
  xstore *st;
  uint8_t *p = x_addr(a, fr, eval_idx(a, fr, idx), true, &st);
  if (!p) return (xval){.h = {NULL, 0}};
  return (xval){.h = {st, p - st->data}};
}

/* slice_tensor(e_0..e_{n-1}, dst, d_0..d_{n-2}, src, s_0..s_{n-2}, dtype): k = n, aux esize */
static xval h_slice_tensor(const xe *e, xframe *fr) {
  int n = (int)e->k, es = (int)(intptr_t)e->aux;
  int64_t ext[5], ds[5], ss[5];
  for (int i = 0; i < n; i++) ext[i] = EVI(e->args[i]);
  xval dst = EVH(e->args[n]), src = EVH(e->args[2 * n]);
  for (int i = 0; i < n - 1; i++) ds[i] = EVI(e->args[n + 1 + i]), ss[i] = EVI(e->args[2 * n + 1 + i]);
  ds[n - 1] = ss[n - 1] = 1;
  if (fr->run->stop) return dst;
  if (!dst.h.st || !src.h.st) {
    x_fail(fr, e->span, "T.slice_tensor of a null pointer");
    return dst;
  }
  int64_t total = 1;
  for (int i = 0; i < n; i++) {
    if (ext[i] < 0) {
      x_fail(fr, e->span, "T.slice_tensor extent %d is negative (%lld)", i, (long long)ext[i]);
      return dst;
    }
    total *= ext[i];
  }
  if (!total) return dst;
  /* element by element, in row-major order of the box */
  int64_t it[5] = {0};
  bool check = fr->run->check_uninit && src.h.st->init;
  for (int64_t c = 0; c < total; c++) {
    int64_t so = 0, d_o = 0;
    for (int i = 0; i < n; i++) so += it[i] * ss[i], d_o += it[i] * ds[i];
    int64_t sb = src.h.off + so * es, db = dst.h.off + d_o * es;
    if (sb < 0 || sb + es > src.h.st->size) {
      x_fail(fr, e->span, "T.slice_tensor reads element %lld of %s, outside its %lld elements", (long long)(sb / es),
             src.h.st->name, (long long)(src.h.st->size / es));
      return dst;
    }
    if (db < 0 || db + es > dst.h.st->size) {
      x_fail(fr, e->span, "T.slice_tensor writes element %lld of %s, outside its %lld elements", (long long)(db / es),
             dst.h.st->name, (long long)(dst.h.st->size / es));
      return dst;
    }
    if (check)
      for (int k = 0; k < es; k++)
        if (!src.h.st->init[sb + k]) {
          x_fail(fr, e->span, "T.slice_tensor reads element %lld of %s, which was never written", (long long)(sb / es),
                 src.h.st->name);
          return dst;
        }
    memmove(dst.h.st->data + db, src.h.st->data + sb, (size_t)es);
    if (dst.h.st->init) memset(dst.h.st->init + db, 1, (size_t)es);
    for (int i = n - 1; i >= 0; i--) {
      if (++it[i] < ext[i]) break;
      it[i] = 0;
    }
  }
  return dst;
}

/* An extern function the interpreter does not know runs as an opaque but
 * deterministic one: a hash of its name, its scalar arguments and the bytes
 * it may read (the regions of its tvm_access_ptr arguments with the read
 * bit) fills the regions it may write (the write bit) and gives its result.
 * Two stages of a program agree on it exactly when they hand the extern
 * the same things, which is what a pass must keep.  args[i] of the call;
 * aux: per argument 0 (scalar), 1 (an access_ptr region), 2 (another pointer). */
typedef struct xextern {
  const char *name;
  const xe **args;   /* compiled args (access_ptr: the pointer) */
  const xe **exts;   /* access_ptr: its extent */
  int *kind, *mask, *esize;
  xek *ek;
  int n, lane;
} xextern;

static uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

static uint64_t run_extern(const xe *e, xframe *fr) {
  const xextern *x = e->aux;
  uint64_t h = 1469598103934665603ull;
  for (const char *c = x->name; *c; c++) h = mix(h, (uint8_t)*c);
  uint64_t hl = mix(h, (uint64_t)x->lane); /* the result's lane */
  xval ptr[16];
  int64_t ext[16];
  for (int i = 0; i < x->n && i < 16; i++) {
    const xe *a = x->args[i];
    if (x->kind[i] == 0) {
      if (a->vc == XV_FLOAT) {
        double v = EVF(a);
        uint64_t u;
        memcpy(&u, &v, 8);
        h = mix(h, u);
      } else {
        h = mix(h, (uint64_t)EVI(a));
      }
      continue;
    }
    ptr[i] = EVH(a);
    if (x->kind[i] != 1) continue; /* a raw pointer: the interpreter cannot see what the callee does with it */
    ext[i] = EVI(x->exts[i]);
    if (fr->run->stop || !ptr[i].h.st) return 0;
    int64_t room = (ptr[i].h.st->size - ptr[i].h.off) / x->esize[i];
    if (ext[i] > room) ext[i] = room; /* the promise may overshoot the end (TVM's default extent) */
    if (ext[i] < 0) ext[i] = 0;
    if (x->mask[i] & 1) h = mix(h, tir_exec_hash(ptr[i].h.st->data + ptr[i].h.off, (size_t)(ext[i] * x->esize[i])));
  }
  if (fr->run->stop) return 0;
  for (int i = 0; i < x->n && i < 16; i++) {
    if (x->kind[i] != 1 || !(x->mask[i] & 2)) continue;
    xstore *st = ptr[i].h.st;
    for (int64_t k = 0; k < ext[i]; k++) {
      uint8_t *p = st->data + ptr[i].h.off + k * x->esize[i];
      uint64_t r = mix(mix(h, (uint64_t)i), (uint64_t)k);
      if (x_ek_is_float(x->ek[i])) x_write_float(p, x->ek[i], (double)(int64_t)(r >> 11) / 4503599627370496.0 - 1.0);
      else x_write_int(p, x->ek[i], (int64_t)(r % 128) - 64);
    }
    if (st->init) memset(st->init + ptr[i].h.off, 1, (size_t)(ext[i] * x->esize[i]));
  }
  (void)hl;
  return mix(mix(h, (uint64_t)x->lane), 0x5bd1e995);
}
static int64_t i_extern(const xe *e, xframe *fr) { return x_wrapk(e, (int64_t)(run_extern(e, fr) % 128) - 64); }
static double f_extern(const xe *e, xframe *fr) {
  return x_round_to(e->ek, (double)(int64_t)(run_extern(e, fr) >> 11) / 4503599627370496.0 - 1.0);
}
static xval h_extern(const xe *e, xframe *fr) {
  (void)run_extern(e, fr);
  return (xval){.h = {NULL, 0}};
}

static xval h_storage_sync(const xe *e, xframe *fr) {
  (void)e;
  x_barrier(fr);
  return (xval){.h = {NULL, 0}};
}
static int64_t i_storage_sync(const xe *e, xframe *fr) {
  (void)e;
  x_barrier(fr);
  return 0;
}

/* ------------------------------------------------------------------ */
/* the compiler                                                         */

xvc xc_class(tir_dtype t) {
  if (t.code == TIR_TC_HANDLE) return t.bits == 0 ? XV_VOID : XV_HANDLE;
  if (tir_dtype_is_float(t)) return XV_FLOAT;
  return XV_INT;
}

static xe *node(xc *c, const tir_expr *src, tir_dtype t) {
  xe *e = x_alloc(c->p, sizeof *e);
  e->dt = tir_dtype_with_lanes(t, 1);
  e->vc = xc_class(t);
  e->span = src ? src->span : (tir_span){0, 0};
  if (e->vc == XV_INT) {
    int bits = t.bits ? t.bits : 32;
    e->sh = (uint8_t)(bits >= 64 ? 0 : 64 - bits);
    e->uns = t.code == TIR_TC_UINT;
    e->ek = x_elem_kind(tir_dtype_with_lanes(t, 1));
  } else if (e->vc == XV_FLOAT) {
    e->ek = x_elem_kind(tir_dtype_with_lanes(t, 1));
  }
  return e;
}

static bool supported(xc *c, tir_dtype t, tir_span sp) {
  xvc k = xc_class(t);
  if (k == XV_HANDLE || k == XV_VOID) return true;
  if (x_elem_kind(tir_dtype_with_lanes(t, 1)) != EK_BAD) return true;
  char b[32];
  xc_error(c, sp, "cannot run %s values (no such type in the interpreter)", tir_dtype_str(t, b));
  return false;
}

static const xe *const_i(xc *c, const tir_expr *src, tir_dtype t, int64_t v) {
  xe *e = node(c, src, t);
  e->fn.i = i_const;
  e->k = x_wrapk(e, v);
  return e;
}

const xe *xc_const_int(xc *c, tir_dtype t, int64_t v) { return const_i(c, NULL, t, v); }

static const xe *bad(xc *c, const tir_expr *src) {
  xe *e = node(c, src, src ? src->dtype : TIR_INT32);
  if (e->vc == XV_FLOAT) e->fn.f = f_const;
  else if (e->vc == XV_INT) e->fn.i = i_const;
  else e->fn.h = h_null;
  c->failed = true;
  return e;
}

static const xe *compile_var(xc *c, const tir_expr *v, int lane) {
  long s = tir_ptrmap_get(&c->vars, v, 0);
  if (!s || !c->defd[s - 1]) {
    xc_error(c, v->span.line ? v->span : c->stmt_span, "cannot run: '%s' is used where it has no value", v->u.var.name);
    return bad(c, v);
  }
  xe *e = node(c, v, v->dtype);
  e->k = s - 1 + lane;
  if (e->vc == XV_INT) e->fn.i = i_var;
  else if (e->vc == XV_FLOAT) e->fn.f = f_var;
  else e->fn.h = h_var;
  return e;
}

typedef struct lin_acc {
  int *vslot;
  uint64_t *vcoef;
  const xe **x;
  uint64_t *xcoef;
  int nv, nx, cap;
  uint64_t c0;
  int ops;
} lin_acc;

static void lin_term(lin_acc *L, int slot, const xe *x, uint64_t coef) {
  if (x == NULL)
    for (int k = 0; k < L->nv; k++)
      if (L->vslot[k] == slot) {
        L->vcoef[k] += coef;
        return;
      }
  if ((x ? L->nx : L->nv) == L->cap) return; /* caller checks room */
  if (x) L->x[L->nx] = x, L->xcoef[L->nx++] = coef;
  else L->vslot[L->nv] = slot, L->vcoef[L->nv++] = coef;
}

static const xe *compile_binary_basic(xc *c, const tir_expr *e, int lane);

static bool lin_collect(xc *c, const tir_expr *e, int lane, uint64_t coef, tir_dtype t, lin_acc *L) {
  if (L->nv >= L->cap - 1 || L->nx >= L->cap - 1) return false;
  if (!tir_dtype_eq(tir_dtype_with_lanes(e->dtype, 1), tir_dtype_with_lanes(t, 1))) {
    lin_term(L, 0, xc_expr(c, e, e->dtype.lanes > 1 ? lane : 0), coef);
    return true;
  }
  int64_t k;
  switch (e->kind) {
  case TIR_ADD:
  case TIR_SUB:
    L->ops++;
    return lin_collect(c, e->u.bin.a, lane, coef, t, L) &&
           lin_collect(c, e->u.bin.b, lane, e->kind == TIR_SUB ? 0 - coef : coef, t, L);
  case TIR_MUL:
    if (tir_is_const_int(e->u.bin.b, &k)) {
      L->ops++;
      return lin_collect(c, e->u.bin.a, lane, coef * (uint64_t)k, t, L);
    }
    if (tir_is_const_int(e->u.bin.a, &k)) {
      L->ops++;
      return lin_collect(c, e->u.bin.b, lane, coef * (uint64_t)k, t, L);
    }
    break;
  case TIR_INT_IMM: L->c0 += coef * (uint64_t)e->u.int_val; return true;
  case TIR_VAR: {
    long sl = tir_ptrmap_get(&c->vars, e, 0);
    if (sl && c->defd[sl - 1]) {
      lin_term(L, (int)sl - 1 + (e->dtype.lanes > 1 ? lane : 0), NULL, coef);
      return true;
    }
    break;
  }
  case TIR_BROADCAST: return lin_collect(c, e->u.bcast.value, 0, coef, t, L);
  case TIR_RAMP:
    L->ops++;
    return lin_collect(c, e->u.ramp.base, 0, coef, t, L) &&
           lin_collect(c, e->u.ramp.stride, 0, coef * (uint64_t)lane, t, L);
  default: break;
  }
  /* a term: an ADD/SUB/MUL node itself is not linear here (its operands may be) */
  const xe *x = TIR_IS_BINARY(e->kind) ? compile_binary_basic(c, e, e->dtype.lanes > 1 ? lane : 0)
                                       : xc_expr(c, e, e->dtype.lanes > 1 ? lane : 0);
  lin_term(L, 0, x, coef);
  return true;
}

/* an ADD/SUB/MUL tree of ints as one linear node, or NULL */
static const xe *compile_linear(xc *c, const tir_expr *e, int lane) {
  enum { CAP = 32 };
  int vslot[CAP];
  uint64_t vcoef[CAP], xcoef[CAP];
  const xe *x[CAP];
  lin_acc L = {vslot, vcoef, x, xcoef, 0, 0, CAP, 0, 0};
  if (!lin_collect(c, e, lane, 1, e->dtype, &L) || L.ops < 2) return NULL;
  xlin *l = x_alloc(c->p, sizeof *l);
  int *vs = x_alloc(c->p, sizeof *vs * (size_t)(L.nv + 1));
  uint64_t *vc = x_alloc(c->p, sizeof *vc * (size_t)(L.nv + 1)), *xc_ = x_alloc(c->p, sizeof *xc_ * (size_t)(L.nx + 1));
  const xe **xs_ = x_alloc(c->p, sizeof *xs_ * (size_t)(L.nx + 1));
  int nv = 0;
  for (int k = 0; k < L.nv; k++)
    if (vcoef[k]) vs[nv] = vslot[k], vc[nv++] = vcoef[k];
  memcpy(xs_, x, sizeof *xs_ * (size_t)L.nx);
  memcpy(xc_, xcoef, sizeof *xc_ * (size_t)L.nx);
  l->nv = nv, l->nx = L.nx, l->vslot = vs, l->vcoef = vc, l->x = xs_, l->xcoef = xc_, l->c0 = L.c0;
  xe *r = node(c, e, e->dtype);
  r->aux = l;
  r->fn.i = L.nx ? i_lin : i_lin_v;
  return r;
}

static const xe *compile_binary_basic(xc *c, const tir_expr *e, int lane);

static const xe *compile_binary(xc *c, const tir_expr *e, int lane) {
  if ((e->kind == TIR_ADD || e->kind == TIR_SUB || e->kind == TIR_MUL) && xc_class(e->dtype) == XV_INT &&
      e->dtype.bits > 1) {
    const xe *l = compile_linear(c, e, lane);
    if (l) return l;
  }
  return compile_binary_basic(c, e, lane);
}

static const xe *compile_binary_basic(xc *c, const tir_expr *e, int lane) {
  const xe *a = xc_expr(c, e->u.bin.a, lane), *b = xc_expr(c, e->u.bin.b, lane);
  tir_expr_kind k = e->kind;
  xe *r = node(c, e, e->dtype);
  r->a = a, r->b = b;
  if (TIR_IS_CMP(k)) {
    static const xi_fn ii[] = {i_eq, i_ne, i_lt, i_le, i_gt, i_ge};
    static const xi_fn ff[] = {f_eq, f_ne, f_lt, f_le, f_gt, f_ge};
    if (a->vc == XV_FLOAT) r->fn.i = ff[k - TIR_EQ];
    else if (a->vc == XV_HANDLE && (k == TIR_EQ || k == TIR_NE)) r->fn.i = k == TIR_EQ ? h_eq : h_ne;
    else if (a->vc == XV_INT) {
      r->fn.i = ii[k - TIR_EQ];
      r->k = a->uns && !a->sh;
    } else {
      xc_error(c, e->span, "cannot run this comparison of pointers");
      return bad(c, e);
    }
    return r;
  }
  if (k == TIR_AND || k == TIR_OR) {
    r->fn.i = k == TIR_AND ? i_and : i_or;
    return r;
  }
  if (r->vc == XV_INT) {
    int64_t cb;
    bool bconst = b->fn.i == i_const, avar = a->fn.i == i_var;
    cb = b->k;
    switch (k) {
    case TIR_ADD: r->fn.i = bconst ? (avar ? i_add_vc : i_add_xc) : i_add; r->k = cb; break;
    case TIR_SUB:
      if (bconst) { r->fn.i = avar ? i_add_vc : i_add_xc; r->k = (int64_t)(0 - (uint64_t)cb); }
      else r->fn.i = i_sub;
      break;
    case TIR_MUL: r->fn.i = bconst ? (avar ? i_mul_vc : i_mul_xc) : i_mul; r->k = cb; break;
    case TIR_DIV: r->fn.i = i_div; break;
    case TIR_MOD: r->fn.i = i_mod; break;
    case TIR_FLOORDIV:
      if (bconst && cb > 0 && !r->uns) { r->fn.i = i_floordiv_c; r->k = cb; }
      else r->fn.i = i_floordiv;
      break;
    case TIR_FLOORMOD:
      if (bconst && cb > 0 && !r->uns) { r->fn.i = i_floormod_c; r->k = cb; }
      else r->fn.i = i_floormod;
      break;
    case TIR_MIN: r->fn.i = i_min; break;
    case TIR_MAX: r->fn.i = i_max; break;
    default: xc_error(c, e->span, "cannot run this operator on integers"); return bad(c, e);
    }
    return r;
  }
  if (r->vc == XV_FLOAT) {
    bool f64 = r->ek == EK_F64, f32 = r->ek == EK_F32;
#define PICK(n) (f64 ? n##_64 : f32 ? n##_32 : n##_16)
    switch (k) {
    case TIR_ADD: r->fn.f = PICK(f_add); break;
    case TIR_SUB: r->fn.f = PICK(f_sub); break;
    case TIR_MUL: r->fn.f = PICK(f_mul); break;
    case TIR_DIV: r->fn.f = PICK(f_div); break;
    case TIR_MOD: r->fn.f = PICK(f_mod); break;
    case TIR_FLOORDIV: r->fn.f = f_floordiv; break;
    case TIR_FLOORMOD: r->fn.f = f_floormod; break;
    case TIR_MIN: r->fn.f = f_min; break;
    case TIR_MAX: r->fn.f = f_max; break;
    default: xc_error(c, e->span, "cannot run this operator on floats"); return bad(c, e);
    }
#undef PICK
    return r;
  }
  xc_error(c, e->span, "cannot run arithmetic on pointers");
  return bad(c, e);
}

static const xe *compile_cast(xc *c, const tir_expr *e, int lane) {
  const xe *a = xc_expr(c, e->u.un.a, lane);
  xe *r = node(c, e, e->dtype);
  r->a = a;
  if (r->vc == XV_INT && a->vc == XV_INT) r->fn.i = i_cast_i;
  else if (r->vc == XV_INT && a->vc == XV_FLOAT) r->fn.i = i_cast_f;
  else if (r->vc == XV_FLOAT && a->vc == XV_INT) r->fn.f = f_cast_i;
  else if (r->vc == XV_FLOAT && a->vc == XV_FLOAT) r->fn.f = f_cast_f;
  else if (r->vc == XV_HANDLE && a->vc == XV_HANDLE) return a;
  else {
    xc_error(c, e->span, "cannot run a cast between a pointer and a number");
    return bad(c, e);
  }
  return r;
}

const xacc *xc_access(xc *c, const tir_buffer *b, tir_expr *const *idx, int nidx, int lane, tir_span sp,
                      tir_dtype elem) {
  if (nidx != b->ndim) {
    xc_error(c, sp, "cannot run: %d indices into %s, which has %d dimensions", nidx, b->name, b->ndim);
    return NULL;
  }
  if (nidx > 32) {
    xc_error(c, sp, "cannot run: buffer %s has more than 32 dimensions", b->name);
    return NULL;
  }
  xacc *a = x_alloc(c->p, sizeof *a);
  a->buf = xc_buf(c, b, 0);
  if (a->buf < 0) return NULL;
  const xbinfo *bi = &c->p->binfo[a->buf];
  a->derive = !bi->declared;
  a->ndim = nidx;
  a->dimoff = bi->dimoff;
  a->esize = bi->esize;
  a->b = b;
  a->span = sp;
  a->ek = x_elem_kind(tir_dtype_with_lanes(b->dtype, 1));
  a->lbytes = x_ek_bytes(a->ek);
  if (a->ek == EK_BAD) {
    char s[32];
    xc_error(c, sp, "cannot run: buffer %s holds %s values", b->name, tir_dtype_str(b->dtype, s));
    return NULL;
  }
  /* a vector element read whole (buffer of vectors, scalar index): pick the lane */
  bool vec_elem = b->dtype.lanes > 1;
  if (vec_elem) a->lane_off = lane * a->lbytes;
  (void)elem;
  const xe **ix = x_alloc(c->p, sizeof *ix * (size_t)(nidx ? nidx : 1));
  for (int d = 0; d < nidx; d++) {
    int il = idx[d]->dtype.lanes > 1 ? lane : 0;
    if (vec_elem && idx[d]->dtype.lanes > 1) {
      xc_error(c, sp, "cannot run a vector index into a buffer of vectors (%s)", b->name);
      return NULL;
    }
    ix[d] = xc_expr(c, idx[d], il);
    if (ix[d]->vc != XV_INT) {
      xc_error(c, idx[d]->span.line ? idx[d]->span : sp, "cannot run: an index into %s is not an integer", b->name);
      return NULL;
    }
  }
  a->idx = ix;
  return a;
}

static const xe *compile_load(xc *c, const tir_expr *e, int lane) {
  const tir_buffer *b = e->u.load.buf;
  const xacc *a = xc_access(c, b, e->u.load.idx, e->u.load.nidx, lane, e->span, e->dtype);
  if (!a) return bad(c, e);
  xe *r = node(c, e, tir_dtype_with_lanes(b->dtype, 1));
  r->acc = a;
  if (r->vc == XV_INT) r->fn.i = (a->ndim == 1 && a->ek == EK_I32 && !a->lane_off) ? i_load1_i32 : i_load;
  else if (r->vc == XV_FLOAT) r->fn.f = f_load;
  else {
    xc_error(c, e->span, "cannot run: buffer %s holds pointers", b->name);
    return bad(c, e);
  }
  return r;
}

static const mathfn *find_math(const char *name, bool by_c, int *bits) {
  for (const mathfn *m = MATH; m->name; m++) {
    if (!by_c && !strcmp(m->name, name)) return m;
    if (by_c && m->c32 && !strcmp(m->c32, name)) { *bits = 32; return m; }
    if (by_c && m->c64 && !strcmp(m->c64, name)) { *bits = 64; return m; }
  }
  return NULL;
}

bool x_known_extern(const char *name) {
  int bits;
  return find_math(name, true, &bits) != NULL;
}

static const xe *compile_math(xc *c, const tir_expr *e, const mathfn *m, tir_expr *const *args, int nargs, int lane) {
  if (nargs != m->nargs) {
    xc_error(c, e->span, "cannot run %s with %d arguments", m->name, nargs);
    return bad(c, e);
  }
  xe *r = node(c, e, e->dtype);
  if (r->vc != XV_FLOAT) {
    if (!strcmp(m->name, "fabs") && r->vc == XV_INT) {
      r->a = xc_expr(c, args[0], lane);
      r->fn.i = i_abs;
      return r;
    }
    xc_error(c, e->span, "cannot run %s on integers", m->name);
    return bad(c, e);
  }
  const xe **av = x_alloc(c->p, sizeof *av * (size_t)nargs);
  for (int i = 0; i < nargs; i++) {
    av[i] = xc_expr(c, args[i], args[i]->dtype.lanes > 1 ? lane : 0);
    if (av[i]->vc != XV_FLOAT) {
      xc_error(c, e->span, "cannot run %s of a non-float argument", m->name);
      return bad(c, e);
    }
  }
  r->args = av;
  r->nargs = nargs;
  r->aux = m;
  r->fn.f = nargs == 1 ? f_math1 : f_math2;
  return r;
}

static const xe *compile_extern(xc *c, const tir_expr *e, xe *r, tir_expr *const *args, int n, int lane) {
  if (n > 16) {
    xc_error(c, e->span, "cannot run T.call_extern(\"%s\") with more than 16 arguments", args[-1]->u.str);
    return bad(c, e);
  }
  xextern *x = x_alloc(c->p, sizeof *x);
  x->name = args[-1]->u.str;
  x->lane = lane;
  x->n = n;
  x->args = x_alloc(c->p, sizeof *x->args * (size_t)(n + 1));
  x->exts = x_alloc(c->p, sizeof *x->exts * (size_t)(n + 1));
  x->kind = x_alloc(c->p, sizeof(int) * (size_t)(n + 1));
  x->mask = x_alloc(c->p, sizeof(int) * (size_t)(n + 1));
  x->esize = x_alloc(c->p, sizeof(int) * (size_t)(n + 1));
  x->ek = x_alloc(c->p, sizeof(xek) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    const tir_expr *a = args[i];
    if (a->dtype.lanes > 1 && xc_class(a->dtype) == XV_HANDLE) {
      xc_error(c, a->span.line ? a->span : e->span, "cannot run T.call_extern(\"%s\") of a vector of pointers", x->name);
      return bad(c, e);
    }
    if (a->dtype.lanes > 1) { /* lane by lane */
      x->args[i] = xc_expr(c, a, lane);
      continue;
    }
    if (a->kind == TIR_STRING_IMM) { /* a string: part of the name */
      x->args[i] = xc_const_int(c, TIR_INT64, (int64_t)tir_exec_hash(a->u.str, strlen(a->u.str)));
      continue;
    }
    x->args[i] = xc_expr(c, a, 0);
    if (x->args[i]->vc == XV_HANDLE || x->args[i]->vc == XV_VOID) {
      ((xe *)x->args[i])->vc = XV_HANDLE;
      x->kind[i] = 2;
      x->mask[i] = 3;
      tir_dtype et = TIR_UINT8;
      if (tir_is_var(a) && a->u.var.ptr_elem.bits) et = a->u.var.ptr_elem;
      if (a->kind == TIR_CALL && !strcmp(a->u.call.op, "address_of") && a->u.call.nargs == 1)
        et = a->u.call.args[0]->dtype;
      if (x_elem_kind(tir_dtype_with_lanes(et, 1)) == EK_BAD) et = TIR_UINT8;
      x->ek[i] = x_elem_kind(tir_dtype_with_lanes(et, 1));
      x->esize[i] = x_ek_bytes(x->ek[i]);
      int64_t m;
      if (a->kind == TIR_CALL && !strcmp(a->u.call.op, "tvm_access_ptr") && a->u.call.nargs == 5 &&
          tir_is_const_int(a->u.call.args[4], &m)) {
        x->kind[i] = 1;
        x->mask[i] = (int)m;
        x->exts[i] = xc_expr(c, a->u.call.args[3], 0);
        x->ek[i] = x_elem_kind(tir_dtype_with_lanes(a->u.call.args[0]->dtype, 1));
        x->esize[i] = tir_dtype_bytes(a->u.call.args[0]->dtype);
      }
    }
  }
  r->aux = x;
  if (r->vc == XV_INT) r->fn.i = i_extern;
  else if (r->vc == XV_FLOAT) r->fn.f = f_extern;
  else r->fn.h = h_extern, r->vc = XV_HANDLE;
  return r;
}

static const xe *compile_call(xc *c, const tir_expr *e, int lane) {
  const char *op = e->u.call.op;
  tir_expr *const *args = e->u.call.args;
  int n = e->u.call.nargs;
  if (!strncmp(op, "tir.", 4)) op += 4;
  xe *r = node(c, e, e->dtype);
#define ARG(i) xc_expr(c, args[i], args[i]->dtype.lanes > 1 ? lane : 0)
  if ((!strcmp(op, "call_extern") || !strcmp(op, "call_pure_extern")) && n >= 1 && args[0]->kind == TIR_STRING_IMM) {
    int bits = 0;
    const mathfn *m = find_math(args[0]->u.str, true, &bits);
    if (m && r->vc == XV_FLOAT && r->dt.bits == bits) return compile_math(c, e, m, args + 1, n - 1, lane);
    return compile_extern(c, e, r, args + 1, n - 1, e->dtype.lanes > 1 ? lane : 0);
  }
  const mathfn *m = find_math(op, false, NULL);
  if (m) return compile_math(c, e, m, args, n, lane);
  if ((!strcmp(op, "likely") || !strcmp(op, "tvm_thread_invariant") || !strcmp(op, "ignore_loop_partition")) &&
      n == 1)
    return ARG(0); /* hints */
  if ((!strcmp(op, "if_then_else")) && n == 3) {
    r->c = ARG(0), r->a = ARG(1), r->b = ARG(2);
    if (r->vc == XV_INT) r->fn.i = i_select;
    else if (r->vc == XV_FLOAT) r->fn.f = f_select;
    else r->fn.h = h_select;
    return r;
  }
  if (r->vc == XV_INT) {
    static const struct { const char *n; xi_fn f; int nargs; } ops[] = {
        {"bitwise_and", i_band, 2}, {"bitwise_or", i_bor, 2}, {"bitwise_xor", i_bxor, 2}, {"bitwise_not", i_bnot, 1},
        {"shift_left", i_shl, 2},   {"shift_right", i_shr, 2}, {"popcount", i_popcount, 1}, {"clz", i_clz, 1},
        {"isnan", i_isnan, 1},      {"isinf", i_isinf, 1},     {"isfinite", i_isfinite, 1}, {"isnullptr", i_isnull, 1},
        {"abs", i_abs, 1}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
      if (!strcmp(op, ops[i].n) && n == ops[i].nargs) {
        r->a = ARG(0);
        if (n == 2) r->b = ARG(1);
        r->fn.i = ops[i].f;
        if ((ops[i].f == i_isnan || ops[i].f == i_isinf || ops[i].f == i_isfinite) && r->a->vc != XV_FLOAT) break;
        if (ops[i].f == i_isnull && r->a->vc != XV_HANDLE) break;
        return r;
      }
    if (!strcmp(op, "reinterpret") && n == 1 && args[0]->dtype.lanes == e->dtype.lanes) {
      r->a = ARG(0);
      if (r->a->vc == XV_INT) { r->fn.i = i_cast_i; return r; }
      if (r->a->vc == XV_FLOAT) { r->fn.i = i_reinterp_f; return r; }
    }
    if (!strcmp(op, "tvm_storage_sync")) { r->fn.i = i_storage_sync; return r; }
  }
  if (r->vc == XV_FLOAT) {
    if (!strcmp(op, "reinterpret") && n == 1 && args[0]->dtype.lanes == e->dtype.lanes) {
      r->a = ARG(0);
      if (r->a->vc == XV_INT) { r->fn.f = f_reinterp_i; return r; }
      if (r->a->vc == XV_FLOAT) { r->fn.f = f_cast_f; return r; }
    }
    if (!strcmp(op, "abs") && n == 1) { r->a = ARG(0); r->fn.f = f_abs; return r; }
  }
  if (r->vc == XV_HANDLE || r->vc == XV_VOID) {
    r->vc = XV_HANDLE;
    if (!strcmp(op, "tvm_access_ptr") && n == 5 && args[0]->kind == TIR_CALL) {
      tir_dtype t = tir_dtype_with_lanes(args[0]->dtype, args[0]->dtype.lanes);
      if (x_elem_kind(tir_dtype_with_lanes(t, 1)) == EK_BAD) {
        char b[32];
        xc_error(c, e->span, "cannot run T.tvm_access_ptr of %s", tir_dtype_str(t, b));
        return bad(c, e);
      }
      const xe **av = x_alloc(c->p, sizeof *av * 5);
      av[1] = xc_expr(c, args[1], 0), av[2] = xc_expr(c, args[2], 0), av[3] = xc_expr(c, args[3], 0);
      r->args = av, r->nargs = 5;
      r->k = tir_dtype_bytes(t);
      r->fn.h = h_access_ptr;
      return r;
    }
    if (!strcmp(op, "address_of") && n == 1 && args[0]->kind == TIR_BUFFER_LOAD) {
      const tir_expr *ld = args[0];
      r->acc = xc_access(c, ld->u.load.buf, ld->u.load.idx, ld->u.load.nidx, 0, ld->span, ld->dtype);
      if (!r->acc) return bad(c, e);
      r->fn.h = h_address_of;
      return r;
    }
    if (!strcmp(op, "slice_tensor") && n % 3 == 1 && n >= 4 && n <= 16 && args[n - 1]->kind == TIR_STRING_IMM) {
      tir_dtype t;
      int k = (n - 1) / 3;
      if (!tir_dtype_parse(args[n - 1]->u.str, &t) || x_elem_kind(tir_dtype_with_lanes(t, 1)) == EK_BAD) {
        xc_error(c, e->span, "cannot run T.slice_tensor of '%s'", args[n - 1]->u.str);
        return bad(c, e);
      }
      const xe **av = x_alloc(c->p, sizeof *av * (size_t)n);
      for (int i = 0; i < n - 1; i++) av[i] = xc_expr(c, args[i], 0);
      r->args = av, r->nargs = n - 1, r->k = k;
      r->aux = (const void *)(intptr_t)tir_dtype_bytes(t);
      r->fn.h = h_slice_tensor;
      return r;
    }
    if (!strcmp(op, "tvm_storage_sync")) { r->fn.h = h_storage_sync; return r; }
    if (!strcmp(op, "reinterpret") && n == 1 && args[0]->dtype.code == TIR_TC_HANDLE) return ARG(0);
  }
#undef ARG
  if (!strcmp(op, "tvm_thread_allreduce")) {
    const xe *x = xc_allreduce(c, e, r);
    return x ? x : bad(c, e);
  }
  if (e->u.call.global)
    xc_error(c, e->span, "cannot run %s here (the interpreter runs one function: a call of another is not supported)", op);
  else
    xc_error(c, e->span, "cannot run T.%s here (the interpreter does not know it)", op);
  return bad(c, e);
}

static const xe *compile_let(xc *c, const tir_expr *e, int lane) {
  const tir_expr *v = e->u.let.var;
  int lanes = v->dtype.lanes;
  const xe **vals = x_alloc(c->p, sizeof *vals * (size_t)lanes);
  for (int l = 0; l < lanes; l++) vals[l] = xc_expr(c, e->u.let.value, lanes > 1 ? l : 0);
  int s = xc_slot(c, v);
  uint8_t old = c->defd[s];
  c->defd[s] = 1;
  const xe *body = xc_expr(c, e->u.let.body, lane);
  c->defd[s] = old;
  xe *r = node(c, e, e->dtype);
  r->args = vals, r->nargs = lanes, r->k = s, r->a = body;
  if (r->vc == XV_INT) r->fn.i = i_let;
  else if (r->vc == XV_FLOAT) r->fn.f = f_let;
  else r->fn.h = h_let;
  return r;
}

const xe *xc_expr(xc *c, const tir_expr *e, int lane) {
  if (!supported(c, e->dtype, e->span)) return bad(c, e);
  switch (e->kind) {
  case TIR_VAR: return compile_var(c, e, e->dtype.lanes > 1 ? lane : 0);
  case TIR_INT_IMM:
    if (e->dtype.code == TIR_TC_HANDLE) {
      xe *r = node(c, e, e->dtype);
      r->fn.h = h_null;
      return r;
    }
    return const_i(c, e, e->dtype, e->u.int_val);
  case TIR_FLOAT_IMM: {
    xe *r = node(c, e, e->dtype);
    if (r->vc == XV_INT) { /* a float literal typed int: its value */
      r->fn.i = i_const;
      r->k = (int64_t)e->u.float_val;
      return r;
    }
    r->fn.f = f_const;
    r->fk = x_round_to(r->ek, e->u.float_val);
    return r;
  }
  case TIR_STRING_IMM: xc_error(c, e->span, "cannot run a string as a value"); return bad(c, e);
  case TIR_NOT: {
    xe *r = node(c, e, e->dtype);
    r->a = xc_expr(c, e->u.un.a, lane);
    r->fn.i = i_not;
    return r;
  }
  case TIR_CAST: return compile_cast(c, e, lane);
  case TIR_SELECT: {
    xe *r = node(c, e, e->dtype);
    r->c = xc_expr(c, e->u.select.cond, e->u.select.cond->dtype.lanes > 1 ? lane : 0);
    r->a = xc_expr(c, e->u.select.t, lane);
    r->b = xc_expr(c, e->u.select.f, lane);
    if (r->vc == XV_INT) r->fn.i = i_select;
    else if (r->vc == XV_FLOAT) r->fn.f = f_select;
    else r->fn.h = h_select;
    return r;
  }
  case TIR_CALL: return compile_call(c, e, lane);
  case TIR_BUFFER_LOAD: return compile_load(c, e, lane);
  case TIR_RAMP: {
    /* base + stride * lane */
    const xe *base = xc_expr(c, e->u.ramp.base, 0), *stride = xc_expr(c, e->u.ramp.stride, 0);
    if (base->vc != XV_INT) {
      xc_error(c, e->span, "cannot run a ramp of non-integers");
      return bad(c, e);
    }
    if (lane == 0) return base;
    xe *m = node(c, e, e->u.ramp.base->dtype);
    m->a = stride, m->k = lane, m->fn.i = stride->fn.i == i_var ? i_mul_vc : i_mul_xc;
    xe *r = node(c, e, e->u.ramp.base->dtype);
    r->a = base, r->b = m, r->fn.i = i_add;
    return r;
  }
  case TIR_BROADCAST: return xc_expr(c, e->u.bcast.value, 0);
  case TIR_LET: return compile_let(c, e, lane);
  default:
    if (TIR_IS_BINARY(e->kind)) return compile_binary(c, e, lane);
    xc_error(c, e->span, "cannot run this expression");
    return bad(c, e);
  }
}
