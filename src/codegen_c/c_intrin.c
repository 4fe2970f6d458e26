/* c_intrin.c - how the C target prints intrinsic calls, keyed by name:
 * math (float32 / float64 libm names), pointers (address_of,
 * tvm_access_ptr), if_then_else, call_extern, and the slice_tensor DMA
 * copy as a loop nest whose innermost contiguous run is one memcpy (an
 * element loop when the run is short and constant). */
#include <stdio.h>
#include <string.h>

#include "codegen_c/c_printer.h"

typedef struct math_fn {
  const char *name, *f32, *f64;
  int nargs;
} math_fn;

static const math_fn math[] = {
    {"exp", "expf", "exp", 1},         {"exp2", "exp2f", "exp2", 1},     {"exp10", NULL, NULL, 1},
    {"expm1", "expm1f", "expm1", 1},   {"log", "logf", "log", 1},        {"log2", "log2f", "log2", 1},
    {"log10", "log10f", "log10", 1},   {"log1p", "log1pf", "log1p", 1},  {"sqrt", "sqrtf", "sqrt", 1},
    {"tanh", "tanhf", "tanh", 1},      {"sin", "sinf", "sin", 1},        {"cos", "cosf", "cos", 1},
    {"tan", "tanf", "tan", 1},         {"sinh", "sinhf", "sinh", 1},     {"cosh", "coshf", "cosh", 1},
    {"asin", "asinf", "asin", 1},      {"acos", "acosf", "acos", 1},     {"atan", "atanf", "atan", 1},
    {"asinh", "asinhf", "asinh", 1},   {"acosh", "acoshf", "acosh", 1},  {"atanh", "atanhf", "atanh", 1},
    {"erf", "erff", "erf", 1},         {"floor", "floorf", "floor", 1},  {"ceil", "ceilf", "ceil", 1},
    {"trunc", "truncf", "trunc", 1},   {"round", "nearbyintf", "nearbyint", 1},
    {"nearbyint", "nearbyintf", "nearbyint", 1},                        {"fabs", "fabsf", "fabs", 1},
    {"pow", "powf", "pow", 2},         {"fmod", "fmodf", "fmod", 2},     {"atan2", "atan2f", "atan2", 2},
    {"copysign", "copysignf", "copysign", 2},                           {"hypot", "hypotf", "hypot", 2},
    {"nextafter", "nextafterf", "nextafter", 2},                        {"ldexp", "ldexpf", "ldexp", 2},
    {NULL, NULL, NULL, 0}};

/* the arguments of a call; of a C library call `libc` (call_extern, or
 * NULL), cast to its parameter types where C needs it said */
static void args_list(cg *g, tir_expr *const *args, int n, const tir_expr *libc) {
  for (int i = 0; i < n; i++) {
    if (args[i]->dtype.code == TIR_TC_HANDLE && !args[i]->dtype.bits) { /* C has no void value to pass */
      cg_error(g, args[i]->span, "argument %d is a void call, which has no value in C", i + 1);
      return;
    }
    if (i) cg_text_puts(g->out, ", ");
    const char *cast = libc ? cg_libc_arg_cast(libc, i) : NULL;
    if (cast) {
      cg_text_printf(g->out, "(%s)(", cast);
      cg_expr(g, args[i]);
      cg_text_puts(g->out, ")");
    } else {
      cg_expr(g, args[i]);
    }
  }
}

static bool print_math(cg *g, const tir_expr *e) {
  const char *op = e->u.call.op;
  for (const math_fn *m = math; m->name; m++) {
    if (strcmp(m->name, op)) continue;
    if (e->u.call.nargs != m->nargs || !tir_dtype_is_float(e->dtype) || (e->dtype.bits != 32 && e->dtype.bits != 64))
      return false;
    const char *fn = e->dtype.bits == 32 ? m->f32 : m->f64;
    if (!fn) return false;
    /* an argument of another dtype (TVM's T.fmod(x, 2) keeps an int32 2,
     * T.ldexp takes any exponent): not emitted (refused by name) */
    for (int i = 0; i < m->nargs; i++) {
      tir_dtype want = !strcmp(op, "ldexp") && i == 1 ? TIR_INT32 : e->dtype;
      if (!strcmp(op, "ldexp") && i == 1 ? !tir_dtype_is_int(e->u.call.args[i]->dtype)
                                         : !tir_dtype_eq(e->u.call.args[i]->dtype, want))
        return false;
    }
    if (!strcmp(op, "exp") && e->dtype.bits == 32 && e->dtype.lanes == 1 && !g->target->is_cuda) {
      cg_need_helper(g, CG_EXP, e->dtype); /* correctly rounded, vectorizable (c_emit.c) */
      fn = "tir_exp_f32";
    }
    cg_text_printf(g->out, "%s(", fn);
    args_list(g, e->u.call.args, e->u.call.nargs, NULL);
    cg_text_puts(g->out, ")");
    return true;
  }
  return false;
}

static bool print_special_math(cg *g, const tir_expr *e) {
  const char *op = e->u.call.op;
  tir_expr *const *a = e->u.call.args;
  bool f32 = e->dtype.bits == 32;
  if (e->u.call.nargs != 1) return false;
  if (!strcmp(op, "sigmoid") && tir_dtype_is_float(e->dtype)) {
    /* -(x): a negative constant or a negation of its own is no `--` */
    cg_text_printf(g->out, "(%s / (%s + %s(-(", f32 ? "1.0f" : "1.0", f32 ? "1.0f" : "1.0", f32 ? "expf" : "exp");
    cg_expr(g, a[0]);
    cg_text_puts(g->out, "))))");
    return true;
  }
  if (!strcmp(op, "rsqrt") && tir_dtype_is_float(e->dtype)) {
    cg_text_printf(g->out, "(%s / %s(", f32 ? "1.0f" : "1.0", f32 ? "sqrtf" : "sqrt");
    cg_expr(g, a[0]);
    cg_text_puts(g->out, "))");
    return true;
  }
  if (!strcmp(op, "isnan") || !strcmp(op, "isinf") || !strcmp(op, "isfinite")) { /* <math.h> macros, also CUDA's */
    /* CUDA has no overload for half or bfloat16 (ambiguous): as a float, the same class */
    bool half = g->target->is_cuda && a[0]->dtype.bits == 16 && tir_dtype_is_float(a[0]->dtype);
    cg_text_printf(g->out, "%s(%s", op, half ? "(float)(" : "");
    cg_expr(g, a[0]);
    cg_text_puts(g->out, half ? "))" : ")");
    return true;
  }
  if (!strcmp(op, "exp10") && tir_dtype_is_float(e->dtype)) { /* not ISO C: 10^x */
    cg_text_printf(g->out, "%s(%s, ", f32 ? "powf" : "pow", f32 ? "10.0f" : "10.0");
    cg_expr(g, a[0]);
    cg_text_puts(g->out, ")");
    return true;
  }
  if (!strcmp(op, "abs") || !strcmp(op, "fabs")) {
    if (tir_dtype_is_float(e->dtype)) {
      cg_text_printf(g->out, "%s(", f32 ? "fabsf" : "fabs");
      cg_expr(g, a[0]);
      cg_text_puts(g->out, ")");
    } else {
      char *x = cg_expr_str(g, a[0]);
      cg_text_printf(g->out, "((%s) < 0 ? -(%s) : (%s))", x, x, x);
    }
    return true;
  }
  return false;
}

/* a pointer C expression of type `elem *` */
void cg_pointer_arg(cg *g, const tir_expr *e, const char *elem) {
  cg_text_printf(g->out, "(%s *)(", elem);
  cg_expr(g, e);
  cg_text_puts(g->out, ")");
}

static bool print_pointer(cg *g, const tir_expr *e) {
  const char *op = e->u.call.op;
  tir_expr *const *a = e->u.call.args;
  /* what is done through the pointer: known where its user says
   * (slice_tensor), else read and write */
  int use = g->ptr_access ? g->ptr_access : TIR_AOT_READ | TIR_AOT_WRITE;
  g->ptr_access = 0;
  if (!strcmp(op, "address_of") && e->u.call.nargs == 1 && a[0]->kind == TIR_BUFFER_LOAD) {
    const tir_buffer *b = a[0]->u.load.buf;
    cg_note_access(g, b->data, use);
    cg_text_puts(g->out, "&");
    if (a[0]->u.load.nidx == 1 && a[0]->dtype.lanes == 1) { /* printed here: not a read of the element */
      cg_text_printf(g->out, "%s[", cg_buffer_ptr(g, b));
      cg_index(g, a[0]->u.load.idx[0]);
      cg_text_puts(g->out, "]");
    } else {
      cg_expr(g, a[0]);
    }
    return true;
  }
  if (!strcmp(op, "tvm_access_ptr") && e->u.call.nargs == 5 && a[0]->kind == TIR_CALL) {
    char ty[32];
    cg_type(g, a[0]->dtype, ty, e->span);
    cg_text_printf(g->out, "((%s *)", ty);
    int64_t rw = 3;
    if (!tir_is_const_int(a[4], &rw) || rw < 1 || rw > 3) rw = 3; /* access mask: 1 read, 2 write */
    cg_note_access(g, a[1], (int)rw & use);
    if (tir_is_var(a[1])) cg_text_puts(g->out, cg_var(g, a[1]));
    else cg_expr(g, a[1]);
    cg_text_puts(g->out, " + ");
    cg_expr_prec(g, a[2], 13);
    cg_text_puts(g->out, ")");
    return true;
  }
  return false;
}

static bool is_math(const char *op) {
  for (const math_fn *m = math; m->name; m++)
    if (!strcmp(m->name, op)) return true;
  return !strcmp(op, "sigmoid") || !strcmp(op, "rsqrt") || !strcmp(op, "abs") || !strcmp(op, "fabs");
}

/* math on a 16-bit float: computed in float32, cast back */
static bool print_half_math(cg *g, const tir_expr *e) {
  if (!tir_dtype_is_float(e->dtype) || e->dtype.bits != 16 || e->dtype.lanes != 1 || !is_math(e->u.call.op))
    return false;
  int n = e->u.call.nargs;
  tir_expr **args = tir_alloc(g->ctx, sizeof *args * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    tir_expr *x = e->u.call.args[i];
    args[i] = tir_dtype_is_float(x->dtype) && x->dtype.bits == 16 ? tir_cast(g->ctx, TIR_FLOAT32, x) : x;
  }
  tir_expr *f = tir_call(g->ctx, TIR_FLOAT32, e->u.call.op, args, n);
  cg_expr(g, tir_cast(g->ctx, e->dtype, f));
  return true;
}

/* bitwise ops and shifts on ints, in the operands' unsigned type (no
 * signed-overflow UB), the result cast back; popcount and clz */
static bool print_bits(cg *g, const tir_expr *e) {
  const char *op = e->u.call.op;
  tir_expr *const *a = e->u.call.args;
  int n = e->u.call.nargs;
  static const struct { const char *name, *sym; int nargs; } bin[] = {
      {"bitwise_and", "&", 2}, {"bitwise_or", "|", 2}, {"bitwise_xor", "^", 2},
      {"shift_left", "<<", 2}, {"shift_right", ">>", 2}, {"bitwise_not", "~", 1}};
  if (n == 2 && tir_dtype_is_bool(a[0]->dtype) && tir_dtype_is_bool(a[1]->dtype) && a[0]->dtype.lanes == 1 &&
      a[1]->dtype.lanes == 1) { /* on bools (topi's logical_xor): 0/1 ints, the result a bool again */
    const char *sym = !strcmp(op, "bitwise_and") ? "&" : !strcmp(op, "bitwise_or") ? "|" : !strcmp(op, "bitwise_xor") ? "^" : NULL;
    if (!sym) return false;
    cg_text_printf(g->out, "((%s)(", g->target->bool_type);
    cg_expr_prec(g, a[0], 14);
    cg_text_printf(g->out, " %s ", sym);
    cg_expr_prec(g, a[1], 14);
    cg_text_puts(g->out, "))");
    return true;
  }
  if (n == 1 && !strcmp(op, "bitwise_not") && tir_dtype_is_bool(a[0]->dtype) && a[0]->dtype.lanes == 1) {
    cg_text_printf(g->out, "((%s)!", g->target->bool_type); /* ~ of a bool (one bit): its negation */
    cg_expr_prec(g, a[0], 2);
    cg_text_puts(g->out, ")");
    return true;
  }
  if (n < 1 || !tir_dtype_is_int(a[0]->dtype) || a[0]->dtype.lanes != 1) return false;
  char ty[32], uty[32];
  tir_dtype t = e->dtype, u = a[0]->dtype;
  u.code = TIR_TC_UINT;
  if (!cg_type(g, t, ty, e->span) || !cg_type(g, u, uty, e->span)) return true;
  for (size_t i = 0; i < sizeof bin / sizeof bin[0]; i++) {
    if (strcmp(op, bin[i].name) || n != bin[i].nargs) continue;
    bool right_signed = !strcmp(op, "shift_right") && a[0]->dtype.code == TIR_TC_INT; /* arithmetic shift */
    int64_t by;
    if (n == 2 && (bin[i].sym[0] == '<' || bin[i].sym[0] == '>') && tir_is_const_int(a[1], &by) &&
        (by < 0 || by >= a[0]->dtype.bits)) { /* read and kept as TVM does; undefined in C and in LLVM */
      char dt[32];
      cg_error(g, a[1]->span.line ? a[1]->span : e->span, "'%s' by %lld: a %s shifts by 0 to %d", bin[i].sym,
               (long long)by, tir_dtype_str(a[0]->dtype, dt), a[0]->dtype.bits - 1);
      return true;
    }
    cg_text_printf(g->out, "((%s)(", ty);
    if (n == 1) { /* ~x through a helper function: gcc warns of a ~ it sees on a bool-valued operand, or on a
                   * narrow unsigned compared with a constant, though the cast back makes both right */
      cg_need_helper(g, CG_NOT, u);
      /* the operand converted explicitly (nvcc warns of a negative constant
       * turned unsigned by the call: "change of sign") */
      cg_text_printf(g->out, "tir_not_%s((%s)", cg_type_suffix(cg_type_index(u)), uty);
      cg_expr_prec(g, a[0], 14);
      cg_text_puts(g->out, ")");
    } else {
      cg_text_printf(g->out, "(%s)", right_signed ? ty : uty);
      cg_expr_prec(g, a[0], 14);
      cg_text_printf(g->out, " %s ", bin[i].sym);
      if (bin[i].sym[0] == '<' || bin[i].sym[0] == '>') cg_expr_prec(g, a[1], 14);
      else {
        cg_text_printf(g->out, "(%s)", uty);
        cg_expr_prec(g, a[1], 14);
      }
    }
    cg_text_puts(g->out, "))");
    return true;
  }
  bool wide = a[0]->dtype.bits == 64;
  if (!strcmp(op, "popcount") && n == 1) { /* of the operand's bits: a negative int16 is not widened with its sign */
    if (g->target->is_cuda) cg_text_printf(g->out, "((%s)%s((%s)(%s)", ty, wide ? "__popcll" : "__popc", wide ? "unsigned long long" : "unsigned", uty);
    else cg_text_printf(g->out, "((%s)%s((%s)(%s)", ty, wide ? "__builtin_popcountll" : "__builtin_popcount", wide ? "unsigned long long" : "unsigned", uty);
    cg_expr_prec(g, a[0], 14);
    cg_text_puts(g->out, "))");
    return true;
  }
  if (!strcmp(op, "clz") && n == 1) { /* of the operand's width; the width at 0 */
    char *x = cg_expr_str(g, a[0]);
    int bits = a[0]->dtype.bits, shift = (wide ? 64 : 32) - bits;
    if (g->target->is_cuda)
      cg_text_printf(g->out, "((%s)(%s((%s)(%s)%s) - %d))", ty, wide ? "__clzll" : "__clz", wide ? "long long" : "int", uty, x,
                     shift);
    else { /* a helper function: the zero test inline draws gcc's tautological-compare where the operand cannot be 0 */
      tir_dtype ut = a[0]->dtype;
      ut.code = TIR_TC_UINT;
      cg_need_helper(g, CG_CLZ, ut);
      cg_text_printf(g->out, "((%s)tir_clz_%s((%s)(%s)))", ty, cg_type_suffix(cg_type_index(ut)), uty, x);
    }
    (void)shift;
    return true;
  }
  return false;
}

/* reinterpret(x): the same bits as another type of the same width */
static bool print_reinterpret(cg *g, const tir_expr *e) {
  if (strcmp(e->u.call.op, "reinterpret") || e->u.call.nargs != 1) return false;
  const tir_expr *x = e->u.call.args[0];
  char to[32], from[32];
  if (!cg_type(g, e->dtype, to, e->span) || !cg_type(g, x->dtype, from, e->span)) return true;
  if (g->target->is_cuda) {
    const char *fn = NULL;
    bool fi = tir_dtype_is_float(x->dtype), ti = tir_dtype_is_float(e->dtype);
    bool hi = x->dtype.code == TIR_TC_HANDLE || e->dtype.code == TIR_TC_HANDLE; /* no intrinsic takes a pointer */
    if (hi) fn = NULL;
    else if (x->dtype.bits == 32 && fi && !ti) fn = "__float_as_int";
    else if (x->dtype.bits == 32 && !fi && ti) fn = "__int_as_float";
    else if (x->dtype.bits == 64 && fi && !ti) fn = "__double_as_longlong";
    else if (x->dtype.bits == 64 && !fi && ti) fn = "__longlong_as_double";
    if (!fn || x->dtype.lanes != 1) {
      cg_error(g, e->span, "T.reinterpret from %s to %s is not supported by the CUDA code generator", from, to);
      return true;
    }
    cg_text_printf(g->out, "((%s)%s(", to, fn);
    cg_expr(g, x);
    cg_text_puts(g->out, "))");
    return true;
  }
  /* C11: a compound literal of a union */
  cg_text_printf(g->out, "((union { %s from; %s to; }){.from = ", from, to);
  cg_expr(g, x);
  cg_text_puts(g->out, "}).to");
  return true;
}

bool cg_c_call(cg *g, const tir_expr *e) {
  const char *op = e->u.call.op;
  tir_expr *const *a = e->u.call.args;
  int n = e->u.call.nargs;
  if (print_half_math(g, e)) return true;
  if (print_bits(g, e) || print_reinterpret(g, e)) return true;
  if ((!strcmp(op, "likely") || !strcmp(op, "tvm_thread_invariant") || !strcmp(op, "ignore_loop_partition")) &&
      n == 1) { /* a hint: its condition */
    cg_text_puts(g->out, "(");
    cg_expr(g, a[0]);
    cg_text_puts(g->out, ")");
    return true;
  }
  if (!strcmp(op, "isnullptr") && n == 1) {
    cg_text_puts(g->out, "((void *)");
    cg_expr_prec(g, a[0], 14);
    cg_text_puts(g->out, " == (void *)0)");
    return true;
  }
  if (print_pointer(g, e) || print_math(g, e) || print_special_math(g, e)) return true;
  if (!strcmp(op, "if_then_else") && n == 3) {
    cg_text_puts(g->out, "(");
    cg_expr_prec(g, a[0], 5);
    cg_text_puts(g->out, " ? ");
    cg_expr_prec(g, a[1], 5);
    cg_text_puts(g->out, " : ");
    cg_expr_prec(g, a[2], 5);
    cg_text_puts(g->out, ")");
    return true;
  }
  if ((!strcmp(op, "call_extern") || !strcmp(op, "call_pure_extern")) && n >= 1 && a[0]->kind == TIR_STRING_IMM) {
    if (g->host_calls) cg_names_add(g->host_calls, a[0]->u.str); /* declared __host__ too */
    cg_text_printf(g->out, "%s(", a[0]->u.str);
    args_list(g, a + 1, n - 1, e);
    cg_text_puts(g->out, ")");
    return true;
  }
  if (!strcmp(op, "tvm_storage_sync")) {
    cg_text_puts(g->out, "0"); /* one thread at a time: nothing to wait for */
    return true;
  }
  if (!strcmp(op, "slice_tensor")) {
    cg_error(g, e->span, "slice_tensor is a statement: use it as T.evaluate(T.slice_tensor(...))");
    return true;
  }
  if (!strcmp(op, "type_annotation")) {
    cg_error(g, e->span, "type_annotation outside tvm_access_ptr: run LowerIntrin (lower_intrin) first");
    return true;
  }
  return false;
}

/* ---- slice_tensor ---- */

/* runs of at most this many elements are copied by an element loop */
#define SHORT_RUN 16

static bool const_of(const tir_expr *e, int64_t *v) { return tir_is_const_int(e, v); }

bool cg_slice_parse(cg *g, const tir_expr *call, cg_slice *out) {
  int nargs = call->u.call.nargs;
  tir_expr *const *a = call->u.call.args;
  int n = (nargs - 1) / 3;
  if (nargs < 4 || nargs != 3 * n + 1 || n > 5 || a[nargs - 1]->kind != TIR_STRING_IMM) {
    cg_error(g, call->span, "slice_tensor takes 3n + 1 arguments (1 <= n <= 5), the last a dtype string; got %d", nargs);
    return false;
  }
  memset(out, 0, sizeof *out);
  if (!tir_dtype_parse(a[nargs - 1]->u.str, &out->dtype) || !cg_type(g, out->dtype, out->elem, call->span)) {
    cg_error(g, call->span, "slice_tensor: bad dtype '%s'", a[nargs - 1]->u.str);
    return false;
  }
  /* full strides, innermost 1 */
  const tir_expr *ext[5], *ds[5], *ss[5];
  tir_expr *one = tir_i32(g->ctx, 1);
  for (int k = 0; k < n; k++) {
    ext[k] = a[k];
    ds[k] = k < n - 1 ? a[n + 1 + k] : one;
    ss[k] = k < n - 1 ? a[2 * n + 1 + k] : one;
  }
  out->dst = a[n];
  out->src = a[2 * n];
  /* merge dim k into k+1 when both sides are contiguous across them */
  int m = n;
  for (int k = m - 2; k >= 0; k--) {
    int64_t e1, dk, dk1, sk, sk1, e0;
    if (!const_of(ext[k + 1], &e1) || !const_of(ext[k], &e0) || !const_of(ds[k], &dk) || !const_of(ds[k + 1], &dk1) ||
        !const_of(ss[k], &sk) || !const_of(ss[k + 1], &sk1))
      continue;
    if (dk != dk1 * e1 || sk != sk1 * e1) continue;
    /* merge: dim k+1 absorbs k */
    ext[k] = tir_int(g->ctx, ext[k + 1]->dtype, e0 * e1);
    ds[k] = ds[k + 1];
    ss[k] = ss[k + 1];
    for (int j = k + 1; j < m - 1; j++) {
      ext[j] = ext[j + 1];
      ds[j] = ds[j + 1];
      ss[j] = ss[j + 1];
    }
    m--;
  }
  out->n = m;
  for (int k = 0; k < m; k++) {
    out->ext[k] = ext[k];
    out->dst_stride[k] = ds[k];
    out->src_stride[k] = ss[k];
  }
  return true;
}

/* the offset sum_k idx_k * stride_k over the outer dims, as C text */
static void outer_offset(cg *g, const char *const *idx, const tir_expr *const *stride, int outer) {
  if (outer == 0) {
    cg_text_puts(g->out, "0");
    return;
  }
  for (int k = 0; k < outer; k++) {
    if (k) cg_text_puts(g->out, " + ");
    cg_text_printf(g->out, "%s * ", idx[k]);
    cg_expr_prec(g, stride[k], 14);
  }
}

void cg_slice_open(cg *g, const cg_slice *sl, const char **dst, const char **src) {
  cg_line_start(g);
  cg_text_puts(g->out, "/* slice_tensor */");
  cg_open(g);
  *dst = cg_tmp(g, "dst");
  *src = cg_tmp(g, "src");
  cg_line_start(g);
  cg_text_printf(g->out, "%s *%s = ", sl->elem, *dst);
  g->ptr_access = TIR_AOT_WRITE; /* the copy writes through dst, reads through src */
  cg_pointer_arg(g, sl->dst, sl->elem);
  cg_text_puts(g->out, ";\n");
  cg_line_start(g);
  cg_text_printf(g->out, "const %s *%s = ", sl->elem, *src);
  g->ptr_access = TIR_AOT_READ;
  cg_pointer_arg(g, sl->src, sl->elem);
  g->ptr_access = 0;
  cg_text_puts(g->out, ";\n");
}

bool cg_c_slice_tensor(cg *g, const tir_stmt *s) {
  cg_slice sl;
  if (!cg_slice_parse(g, s->u.eval.value, &sl)) return true;
  const char *dst, *src;
  cg_slice_open(g, &sl, &dst, &src);
  const char *idx[5];
  int depth0 = g->indent;
  for (int k = 0; k < sl.n - 1; k++) {
    idx[k] = cg_tmp(g, k == 0 ? "i0" : k == 1 ? "i1" : k == 2 ? "i2" : "i3");
    cg_line_start(g);
    cg_text_printf(g->out, "for (int64_t %s = 0; %s < ", idx[k], idx[k]);
    cg_expr(g, sl.ext[k]);
    cg_text_printf(g->out, "; ++%s)", idx[k]);
    cg_open(g);
  }
  int64_t run;
  if (tir_is_const_int(sl.ext[sl.n - 1], &run) && run <= SHORT_RUN) {
    /* a short run: an element loop the compiler turns into a few moves
     * (a memcpy call per run costs more than the copy: bench_relu) */
    const char *v = cg_tmp(g, "v");
    cg_linef(g, "for (int64_t %s = 0; %s < %lld; ++%s) {", v, v, (long long)run, v);
    g->indent++;
    cg_line_start(g);
    cg_text_printf(g->out, "%s[", dst);
    outer_offset(g, idx, sl.dst_stride, sl.n - 1);
    cg_text_printf(g->out, " + %s] = %s[", v, src);
    outer_offset(g, idx, sl.src_stride, sl.n - 1);
    cg_text_printf(g->out, " + %s];\n", v);
    g->indent--;
    cg_linef(g, "}");
  } else {
    cg_line_start(g);
    if (!tir_is_const_int(sl.ext[sl.n - 1], &run)) { /* a negative run copies nothing, as a loop would */
      cg_text_puts(g->out, "if (");
      cg_expr_prec(g, sl.ext[sl.n - 1], 11); /* PREC_REL + 1 */
      cg_text_puts(g->out, " > 0) ");
    }
    cg_text_printf(g->out, "memcpy(%s + ", dst);
    outer_offset(g, idx, sl.dst_stride, sl.n - 1);
    cg_text_printf(g->out, ", %s + ", src);
    outer_offset(g, idx, sl.src_stride, sl.n - 1);
    cg_text_puts(g->out, ", (size_t)(");
    cg_expr(g, sl.ext[sl.n - 1]);
    cg_text_printf(g->out, ") * sizeof(%s));\n", sl.elem);
  }
  while (g->indent > depth0) cg_close(g);
  cg_close(g);
  return true;
}
