/* c_expr.c - printing expressions as C, with only the parentheses C needs
 * (and those gcc's -Wparentheses asks for).  Integer arithmetic narrower
 * than 32 bits is cast back to its type, so it wraps as TIR's does; 32- and
 * 64-bit signed + - * wrap in TIR too, where they overflow in C: a tree of
 * them is printed with C's signed operators only where the bounds prove it
 * stays in range, and otherwise computed in the unsigned type. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "codegen_c/c_printer.h"
#include "tir/visit.h"

enum {
  PREC_LOWEST = 0,
  PREC_COND = 3,
  PREC_OR = 4,
  PREC_AND = 5,
  PREC_EQ = 9,
  PREC_REL = 10,
  PREC_ADD = 12,
  PREC_MUL = 13,
  PREC_UNARY = 14,
  PREC_PRIMARY = 16,
};

static void puts_(cg *g, const char *s) { cg_text_puts(g->out, s); }

static void open_paren(cg *g, int mine, int need) {
  if (mine < need) puts_(g, "(");
}
static void close_paren(cg *g, int mine, int need) {
  if (mine < need) puts_(g, ")");
}

static void print_int(cg *g, const tir_expr *e, int need) {
  int64_t v = e->u.int_val;
  tir_dtype t = e->dtype;
  if (tir_dtype_is_bool(t)) {
    puts_(g, v ? "1" : "0");
    return;
  }
  char ty[32];
  cg_type(g, t, ty, e->span);
  if (t.bits == 64) {
    if (t.code == TIR_TC_UINT) cg_text_printf(g->out, "UINT64_C(%" PRIu64 ")", (uint64_t)v);
    else if (v == INT64_MIN) { /* 9223372036854775808 is no int64 literal */
      open_paren(g, PREC_ADD, need);
      puts_(g, "INT64_C(-9223372036854775807) - 1");
      close_paren(g, PREC_ADD, need);
    } else cg_text_printf(g->out, "INT64_C(%" PRId64 ")", v);
    return;
  }
  if (t.bits == 32 && t.code == TIR_TC_UINT) {
    cg_text_printf(g->out, "%" PRIu32 "u", (uint32_t)v);
    return;
  }
  if (t.bits == 32) {
    if (v == INT32_MIN) {
      open_paren(g, PREC_ADD, need);
      puts_(g, "-2147483647 - 1");
      close_paren(g, PREC_ADD, need);
    } else {
      open_paren(g, v < 0 ? PREC_UNARY : PREC_PRIMARY, need);
      cg_text_printf(g->out, "%" PRId64, v);
      close_paren(g, v < 0 ? PREC_UNARY : PREC_PRIMARY, need);
    }
    return;
  }
  open_paren(g, PREC_UNARY, need);
  cg_text_printf(g->out, "(%s)%" PRId64, ty, v);
  close_paren(g, PREC_UNARY, need);
}

/* the value of a float constant as the kernel holds it: a float32 one is
 * the float nearest its value (a literal keeps the double it was written
 * as): 1e-50 is 0, which C would also make of 1e-50f but with a warning */
static double float_value(const tir_expr *e) {
  bool f32 = e->dtype.code == TIR_TC_FLOAT && e->dtype.bits == 32;
  return f32 ? (double)(float)e->u.float_val : e->u.float_val;
}

static void print_float(cg *g, const tir_expr *e, int need) {
  bool f32 = e->dtype.bits == 32;
  double v = float_value(e);
  if (e->dtype.bits != 32 && e->dtype.bits != 64) {
    /* float16 / bfloat16 where the target has them: a cast of a float */
    char ty[32];
    if (!cg_type(g, e->dtype, ty, e->span)) return;
    tir_expr f = *e;
    f.dtype = tir_dtype_with_lanes(TIR_FLOAT32, 1);
    open_paren(g, PREC_UNARY, need);
    cg_text_printf(g->out, "(%s)", ty);
    print_float(g, &f, PREC_UNARY);
    close_paren(g, PREC_UNARY, need);
    return;
  }
  if (isnan(v)) {
    puts_(g, f32 ? "NAN" : "(double)NAN");
    return;
  }
  if (isinf(v)) {
    open_paren(g, PREC_UNARY, need);
    cg_text_printf(g->out, "%s%s", v < 0 ? "-" : "", f32 ? "INFINITY" : "(double)INFINITY");
    close_paren(g, PREC_UNARY, need);
    return;
  }
  char buf[64];
  if (f32) { /* the fewest digits that read back as the same float (at most 9) */
    for (int p = 1; p <= 9; p++) {
      snprintf(buf, sizeof buf, "%.*g", p, v);
      if ((float)strtod(buf, NULL) == (float)v) break;
    }
  } else {
    snprintf(buf, sizeof buf, "%.17g", v);
  }
  if (!strpbrk(buf, ".e")) strcat(buf, ".0");
  if (f32) strcat(buf, "f");
  int mine = v < 0 ? PREC_UNARY : PREC_PRIMARY;
  open_paren(g, mine, need);
  puts_(g, buf);
  close_paren(g, mine, need);
}

static void print_string(cg *g, const char *s) {
  puts_(g, "\"");
  for (const char *p = s; *p; p++) {
    if (*p == '"' || *p == '\\') cg_text_printf(g->out, "\\%c", *p);
    /* control bytes and every byte of a non-ASCII character as octal
     * escapes: the same bytes, and no bidirectional control character in
     * the source (-Wbidi-chars); '?' escaped against trigraphs */
    else if ((unsigned char)*p < 32 || (unsigned char)*p >= 127) cg_text_printf(g->out, "\\%03o", (unsigned char)*p);
    else if (*p == '?') puts_(g, "\\?");
    else cg_text_printf(g->out, "%c", *p);
  }
  puts_(g, "\"");
}

static bool narrow_int(tir_dtype t) { return tir_dtype_is_int(t) && t.bits < 32; }

/* ---- signed + - * : C's operators, exact in int64, or wrapping ---- */

typedef enum { AR_PLAIN, AR_WIDE, AR_UNSIGNED } arith_mode;

static bool is_arith(const tir_expr *e) {
  return e->kind == TIR_ADD || e->kind == TIR_SUB || e->kind == TIR_MUL;
}
/* a node of the tree rooted at a node of dtype t */
static bool in_tree(const tir_expr *e, tir_dtype t) { return is_arith(e) && tir_dtype_eq(e->dtype, t); }

static const char *arith_op(const tir_expr *e) {
  return e->kind == TIR_ADD ? " + " : e->kind == TIR_SUB ? " - " : " * ";
}

/* a leaf of the tree: C's value (plain, or converted by C in the int64
 * form), widened to int64, or converted to the unsigned type */
static void print_arith_leaf(cg *g, const tir_expr *e, arith_mode m, bool cast, int need, tir_dtype t) {
  if (m == AR_PLAIN || !cast) {
    cg_expr_prec(g, e, need);
    return;
  }
  int64_t v;
  if (m == AR_UNSIGNED && tir_is_const_int(e, &v) && v >= 0) {
    if (t.bits == 64) cg_text_printf(g->out, "UINT64_C(%" PRId64 ")", v);
    else cg_text_printf(g->out, "%" PRId64 "u", v);
    return;
  }
  puts_(g, m == AR_WIDE ? "(int64_t)" : t.bits == 64 ? "(uint64_t)" : "(uint32_t)");
  cg_expr_prec(g, e, PREC_UNARY);
}

/* a node of the tree.  In the int64 form only the left operand is widened
 * (C converts the right one); a right operand that is itself a node widens
 * its own left operand. */
static void print_arith_node(cg *g, const tir_expr *e, arith_mode m, int need) {
  tir_dtype t = e->dtype;
  int mine = e->kind == TIR_MUL ? PREC_MUL : PREC_ADD;
  open_paren(g, mine, need);
  const tir_expr *a = e->u.bin.a, *b = e->u.bin.b;
  if (in_tree(a, t)) print_arith_node(g, a, m, mine);
  else print_arith_leaf(g, a, m, true, mine, t);
  puts_(g, arith_op(e));
  if (in_tree(b, t)) print_arith_node(g, b, m, mine + 1);
  else print_arith_leaf(g, b, m, m != AR_WIDE, mine + 1, t);
  close_paren(g, mine, need);
}

static void print_arith(cg *g, const tir_expr *e, int need, bool index) {
  int bits = e->dtype.bits;
  if (tir_arith_fits(cg_bounds(g), e, bits)) {
    print_arith_node(g, e, AR_PLAIN, need);
  } else if (index && bits == 32 && tir_arith_fits(g->bounds, e, 64)) {
    /* a buffer index: its exact value is the wrapped one wherever the
     * access is in bounds, and an int64 sum keeps it affine for the
     * compiler's loop analysis */
    print_arith_node(g, e, AR_WIDE, need);
  } else {
    open_paren(g, PREC_UNARY, need);
    cg_text_printf(g->out, "(int%d_t)(", bits);
    print_arith_node(g, e, AR_UNSIGNED, PREC_LOWEST);
    cg_text_puts(g->out, ")");
    close_paren(g, PREC_UNARY, need);
  }
}

static bool signed_wide(tir_dtype t) { return t.code == TIR_TC_INT && t.lanes == 1 && (t.bits == 32 || t.bits == 64); }

static void print_binop(cg *g, const tir_expr *e, const char *op, int prec, int need) {
  if (e->u.bin.a->kind == TIR_STRING_IMM || e->u.bin.b->kind == TIR_STRING_IMM) {
    /* C compares the addresses of two literals, not their text */
    cg_error(g, e->span.line ? e->span : e->u.bin.a->span, "a string operand of '%s' has no C form (C would compare "
                                                           "the literals' addresses)", op);
    return;
  }
  bool narrow = narrow_int(e->dtype) && prec >= PREC_ADD;
  bool cmp = TIR_IS_CMP(e->kind);
  int mine = narrow ? PREC_UNARY : prec;
  open_paren(g, mine, need);
  if (narrow) {
    char ty[32];
    cg_type(g, e->dtype, ty, e->span);
    cg_text_printf(g->out, "(%s)(", ty);
  }
  int lneed = cmp ? PREC_REL + 1 : e->kind == TIR_OR ? PREC_AND + 1 : prec;
  int rneed = cmp ? PREC_REL + 1 : e->kind == TIR_OR ? PREC_AND + 1 : prec + 1;
  /* uint16 * uint16 is an int product in C, which overflows */
  if (narrow && e->kind == TIR_MUL && e->dtype.code == TIR_TC_UINT && e->dtype.bits == 16) {
    puts_(g, "(uint32_t)");
    cg_expr_prec(g, e->u.bin.a, PREC_UNARY);
  } else cg_expr_prec(g, e->u.bin.a, lneed);
  cg_text_printf(g->out, " %s ", op);
  cg_expr_prec(g, e->u.bin.b, rneed);
  if (narrow) puts_(g, ")");
  close_paren(g, mine, need);
}



static void print_helper_call(cg *g, const tir_expr *e, cg_helper h, const char *name) {
  int i = cg_type_index(e->u.bin.a->dtype);
  if (i < 0) {
    char ty[32];
    cg_type(g, e->u.bin.a->dtype, ty, e->span);
    return;
  }
  cg_need_helper(g, h, e->u.bin.a->dtype);
  cg_text_printf(g->out, "tir_%s_%s(", name, cg_type_suffix(i));
  cg_expr(g, e->u.bin.a);
  puts_(g, ", ");
  cg_expr(g, e->u.bin.b);
  puts_(g, ")");
}

static void print_cast(cg *g, const tir_expr *e, int need) {
  const tir_expr *a = e->u.un.a;
  bool to_h = e->dtype.code == TIR_TC_HANDLE, from_h = a->dtype.code == TIR_TC_HANDLE;
  bool ptr_test = from_h && a->dtype.bits && tir_dtype_is_bool(e->dtype); /* p != 0 */
  if ((to_h && !e->dtype.bits) || (from_h && !a->dtype.bits) ||
      (to_h != from_h && !ptr_test && !tir_dtype_is_int(to_h ? a->dtype : e->dtype))) {
    /* C converts a pointer to and from an integer only; void is no value */
    char b1[32], b2[32];
    cg_error(g, e->span.line ? e->span : a->span, "a cast from %s to %s has no C form (a handle converts to and from an "
                                                  "integer only; void is no value)",
             tir_dtype_str(a->dtype, b1), tir_dtype_str(e->dtype, b2));
    return;
  }
  if (tir_dtype_is_bool(e->dtype) && !tir_dtype_is_bool(e->u.un.a->dtype)) {
    open_paren(g, PREC_EQ, need);
    if (tir_dtype_is_float(a->dtype) && a->dtype.bits < 32) {
      /* CUDA's __half, __nv_bfloat16, fp8: `x != 0` matches several
       * operators (nvcc refuses it); compared as a float (NaN is true) */
      puts_(g, "(float)");
      cg_expr_prec(g, e->u.un.a, PREC_UNARY);
      puts_(g, " != 0.0f");
    } else {
      cg_expr_prec(g, e->u.un.a, PREC_REL + 1);
      puts_(g, " != 0");
    }
    close_paren(g, PREC_EQ, need);
    return;
  }
  if (a->kind == TIR_FLOAT_IMM && tir_dtype_is_int(e->dtype) && e->dtype.bits <= 64) {
    /* C leaves a float converted to an integer type that cannot hold its
     * integral part undefined (LLVM's fptosi: poison): a constant one is
     * refused here, where it is known */
    double v = float_value(a);
    int bits = e->dtype.bits;
    double lo = e->dtype.code == TIR_TC_UINT ? -1.0 : -ldexp(1.0, bits - 1) - 1.0;
    double hi = e->dtype.code == TIR_TC_UINT ? ldexp(1.0, bits) : ldexp(1.0, bits - 1);
    if (!(v > lo && v < hi)) {
      char b[32];
      cg_error(g, e->span.line ? e->span : a->span, "converting %.9g to %s is undefined: the value is outside that type's range", v,
               tir_dtype_str(e->dtype, b));
      return;
    }
  }
  char ty[32];
  cg_type(g, e->dtype, ty, e->span);
  open_paren(g, PREC_UNARY, need);
  cg_text_printf(g->out, "(%s)", ty);
  /* a pointer and an integer of another width convert through intptr_t
   * (-Wint-to-pointer-cast, -Wpointer-to-int-cast) */
  if (to_h != from_h) puts_(g, "(intptr_t)");
  cg_expr_prec(g, e->u.un.a, PREC_UNARY);
  close_paren(g, PREC_UNARY, need);
}

static void print_load(cg *g, const tir_expr *e) {
  const tir_buffer *b = e->u.load.buf;
  if (e->u.load.nidx != 1) {
    cg_error(g, e->span, "buffer '%s' is accessed with %d indices: run FlattenBuffer (flatten) before code generation",
             b->name, e->u.load.nidx);
    return;
  }
  if (e->dtype.lanes != 1) {
    cg_error(g, e->span, "vector load of '%s' is not supported by this code generator", b->name);
    return;
  }
  cg_note_access(g, b->data, TIR_AOT_READ);
  cg_text_printf(g->out, "%s[", cg_buffer_ptr(g, b));
  cg_index(g, e->u.load.idx[0]);
  puts_(g, "]");
}

/* floordiv/floormod as C's / and % where they agree: an integer dividend
 * proved non-negative (the enclosing loops' ranges) by a positive constant,
 * which also lets the compiler see a shift or a multiply it can hoist */
bool cg_truncates_alike(cg *g, const tir_expr *e) {
  int64_t k, lo, hi;
  if (!tir_dtype_is_int(e->dtype)) return false;
  if (e->dtype.lanes != 1 || !tir_is_const_int(e->u.bin.b, &k) || k <= 0 || !g->bounds) return false;
  tir_const_bound(g->bounds, (tir_expr *)e->u.bin.a, &lo, &hi);
  return lo >= 0;
}

/* signed 32/64-bit truncating / or %: C's operator unless the dividend may
 * be INT_MIN while the divisor may be -1 (C traps; TIR wraps) */
static bool trunc_may_trap(cg *g, const tir_expr *e) {
  if (!signed_wide(e->dtype)) return false;
  int64_t k, lo, hi;
  if (tir_is_const_int(e->u.bin.b, &k)) return k == -1;
  int64_t tmin = e->dtype.bits == 64 ? INT64_MIN : INT32_MIN;
  tir_const_bound(cg_bounds(g), (tir_expr *)e->u.bin.a, &lo, &hi);
  if (lo > tmin) return false;
  tir_const_bound(cg_bounds(g), (tir_expr *)e->u.bin.b, &lo, &hi);
  return lo <= -1 && hi >= -1;
}

static void print_div(cg *g, const tir_expr *e, int need) {
  if (trunc_may_trap(g, e)) print_helper_call(g, e, CG_TRUNCDIV, "truncdiv");
  else print_binop(g, e, "/", PREC_MUL, need);
}

static void print_mod(cg *g, const tir_expr *e, int need) {
  if (tir_dtype_is_float(e->dtype)) {
    cg_text_printf(g->out, "%s(", e->dtype.bits == 32 ? "fmodf" : "fmod");
    cg_expr(g, e->u.bin.a);
    puts_(g, ", ");
    cg_expr(g, e->u.bin.b);
    puts_(g, ")");
    return;
  }
  if (trunc_may_trap(g, e)) print_helper_call(g, e, CG_TRUNCMOD, "truncmod");
  else print_binop(g, e, "%", PREC_MUL, need);
}

static void print_call(cg *g, const tir_expr *e) {
  if (e->u.call.global) {
    cg_error(g, e->span, "a call of another function of the module (%s) is not supported by the C and CUDA code "
                         "generators", e->u.call.op);
    return;
  }
  if (!strcmp(e->u.call.op, "call_ffi_kernel")) {
    cg_error(g, e->span, "T.call_ffi_kernel (the host's launch of a device kernel, after TVM's SplitHostDevice) is "
                         "not supported by the C and CUDA code generators: give them the function before the split");
    return;
  }
  if (g->target->call && g->target->call(g, e)) return;
  if (cg_c_call(g, e)) return;
  if (!strcmp(e->u.call.op, "ret")) /* the generated functions return a status, not a value */
    cg_error(g, e->span, "T.ret is not supported by the C and CUDA code generators (their functions return a status)");
  else if (!strcmp(e->u.call.op, "tvm_thread_allreduce"))
    cg_error(g, e->span, "T.tvm_thread_allreduce is not emitted as it is: lower it first with the "
                         "lower_thread_allreduce pass (in --passes=default)");
  else
    cg_error(g, e->span, "the %s code generator does not know the intrinsic '%s'", g->target->is_cuda ? "CUDA" : "C",
             e->u.call.op);
}

/* an integer divisor that is 0 whatever the vars (c - c): C compilers
 * refuse it (-Wdiv-by-zero); TVM's constant folding, where it folds, stops
 * with "Divide by zero" */
/* the value of an integer expression of constants as C computes it in its
 * dtype (the simplifier leaves some unfolded: T.truncmod(T.uint32(14),
 * T.uint32(7))); false where it is not one */
static bool const_value(const tir_expr *e, uint64_t *v, int depth) {
  if (depth > 64 || !tir_dtype_is_int(e->dtype) || e->dtype.lanes != 1) return false;
  int bits = e->dtype.bits;
  uint64_t mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1, a, b;
  bool uns = e->dtype.code == TIR_TC_UINT;
  if (e->kind == TIR_INT_IMM) {
    *v = (uint64_t)e->u.int_val & mask;
    return true;
  }
  if (e->kind == TIR_CAST) {
    if (!const_value(e->u.un.a, &a, depth + 1)) return false;
    int from = e->u.un.a->dtype.bits; /* sign-extend a signed source */
    if (e->u.un.a->dtype.code == TIR_TC_INT && from < 64 && (a >> (from - 1) & 1)) a |= ~(((uint64_t)1 << from) - 1);
    *v = a & mask;
    return true;
  }
  if (!TIR_IS_BINARY(e->kind) || !const_value(e->u.bin.a, &a, depth + 1) || !const_value(e->u.bin.b, &b, depth + 1))
    return false;
  int64_t sa = (int64_t)(bits < 64 && !uns && (a >> (bits - 1) & 1) ? a | ~mask : a);
  int64_t sb = (int64_t)(bits < 64 && !uns && (b >> (bits - 1) & 1) ? b | ~mask : b);
  switch (e->kind) {
  case TIR_ADD: *v = (a + b) & mask; return true;
  case TIR_SUB: *v = (a - b) & mask; return true;
  case TIR_MUL: *v = (a * b) & mask; return true;
  case TIR_DIV:
  case TIR_MOD:
    if (b == 0 || (!uns && sb == -1)) return false;
    *v = (uns ? (e->kind == TIR_DIV ? a / b : a % b) : (uint64_t)(e->kind == TIR_DIV ? sa / sb : sa % sb)) & mask;
    return true;
  default: return false;
  }
}

static bool zero_divisor(cg *g, const tir_expr *e) {
  if (e->kind != TIR_DIV && e->kind != TIR_MOD && e->kind != TIR_FLOORDIV && e->kind != TIR_FLOORMOD) return false;
  if (tir_dtype_is_float(e->dtype)) return false;
  const tir_expr *b = e->u.bin.b;
  if (b->kind != TIR_INT_IMM && b->kind != TIR_BROADCAST) b = tir_simplify(cg_bounds(g), (tir_expr *)b);
  if (b->kind == TIR_BROADCAST) b = b->u.bcast.value;
  uint64_t k;
  return const_value(b, &k, 0) && k == 0;
}

/* ---- comparisons their operands' types decide ----
 * gcc's -Wtype-limits and -Wtautological-compare (errors with -Werror)
 * refuse a comparison whose outcome the types alone decide: a value of a
 * narrow type (through the widening casts gcc looks through: a bool cast
 * to uint8 is 0 or 1) against a constant outside or at the edge of its
 * range, or an integer value against itself.  Such a comparison is printed
 * as its outcome, which it is for every value (the simplifier leaves those
 * of non-index types, as TVM's does). */

/* a value as sign and magnitude: every int64 and uint64 */
typedef struct { bool neg; uint64_t mag; } cv;

static int cv_cmp(cv a, cv b) {
  if (a.mag == 0) a.neg = false;
  if (b.mag == 0) b.neg = false;
  if (a.neg != b.neg) return a.neg ? -1 : 1;
  int r = a.mag < b.mag ? -1 : a.mag > b.mag;
  return a.neg ? -r : r;
}

static bool int_range(tir_dtype t, cv *lo, cv *hi) {
  if (t.lanes != 1) return false;
  if (tir_dtype_is_bool(t)) return *lo = (cv){false, 0}, *hi = (cv){false, 1}, true;
  if (t.code == TIR_TC_UINT && t.bits >= 1 && t.bits <= 64)
    return *lo = (cv){false, 0}, *hi = (cv){false, t.bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << t.bits) - 1}, true;
  if (t.code == TIR_TC_INT && t.bits >= 2 && t.bits <= 64) {
    uint64_t h = (uint64_t)1 << (t.bits - 1);
    return *lo = (cv){true, h}, *hi = (cv){false, h - 1}, true;
  }
  return false;
}

/* the range gcc sees for x: through casts, the range of what is cast where
 * the cast keeps every value of it ((int8)(int32)b of a bool b is 0 or 1),
 * and a likely() that of its operand; else x's dtype's */
static bool narrow_range(const tir_expr *x, cv *lo, cv *hi) {
  if (!int_range(x->dtype, lo, hi)) return false;
  const tir_expr *in = x->kind == TIR_CAST ? x->u.un.a
                       : x->kind == TIR_CALL && !strcmp(x->u.call.op, "likely") && x->u.call.nargs == 1 ? x->u.call.args[0]
                                                                                                          : NULL;
  cv l2, h2;
  if (in && narrow_range(in, &l2, &h2) && cv_cmp(l2, *lo) >= 0 && cv_cmp(h2, *hi) <= 0) *lo = l2, *hi = h2;
  return true;
}

static bool no_call(const tir_expr *e, int depth) {
  if (!e || depth > 64) return false;
  switch (e->kind) {
  case TIR_VAR: case TIR_INT_IMM: case TIR_FLOAT_IMM: return true;
  case TIR_CAST: case TIR_NOT: return no_call(e->u.un.a, depth + 1);
  case TIR_CALL: return !strcmp(e->u.call.op, "likely") && e->u.call.nargs == 1 && no_call(e->u.call.args[0], depth + 1);
  case TIR_BUFFER_LOAD:
    for (int i = 0; i < e->u.load.nidx; i++)
      if (!no_call(e->u.load.idx[i], depth + 1)) return false;
    return true;
  default: return TIR_IS_BINARY(e->kind) && no_call(e->u.bin.a, depth + 1) && no_call(e->u.bin.b, depth + 1);
  }
}

/* 1 or 0 where e's outcome is decided as above; -1 otherwise */
static bool const_value(const tir_expr *e, uint64_t *v, int depth);
static int decided_cmp(const tir_expr *e) {
  if (!TIR_IS_CMP(e->kind)) return -1;
  tir_expr_kind k = e->kind;
  const tir_expr *x = e->u.bin.a, *y = e->u.bin.b;
  if (x->dtype.lanes != 1 || !(tir_dtype_is_int(x->dtype) || tir_dtype_is_bool(x->dtype)) || !tir_dtype_eq(x->dtype, y->dtype))
    return -1;
  if (tir_expr_identical(x, y) && no_call(x, 0)) return k == TIR_EQ || k == TIR_LE || k == TIR_GE;
  uint64_t c;
  bool cx = const_value(x, &c, 0);
  if (cx == const_value(y, &c, 0)) return -1; /* neither side, or both, constant */
  if (cx) { /* c OP y as y OP' c */
    const tir_expr *t = x;
    x = y, y = t;
    k = tir_cmp_swapped(k);
  }
  cv lo, hi, cc;
  if (!narrow_range(x, &lo, &hi) || !no_call(x, 0)) return -1;
  int bits = y->dtype.bits;
  if (y->dtype.code == TIR_TC_INT && bits < 64 && (c >> (bits - 1) & 1)) c |= ~(((uint64_t)1 << bits) - 1);
  if (y->dtype.code == TIR_TC_INT && (int64_t)c < 0) cc = (cv){true, 0 - c};
  else cc = (cv){false, c};
  int l = cv_cmp(lo, cc), h = cv_cmp(hi, cc); /* lo vs c, hi vs c */
  switch (k) {
  case TIR_LT: return h < 0 ? 1 : l >= 0 ? 0 : -1;
  case TIR_LE: return h <= 0 ? 1 : l > 0 ? 0 : -1;
  case TIR_GT: return l > 0 ? 1 : h <= 0 ? 0 : -1;
  case TIR_GE: return l >= 0 ? 1 : h < 0 ? 0 : -1;
  case TIR_EQ: return (h < 0 || l > 0) ? 0 : (l == 0 && h == 0) ? 1 : -1;
  case TIR_NE: return (h < 0 || l > 0) ? 1 : (l == 0 && h == 0) ? 0 : -1;
  default: return -1;
  }
}

void cg_expr_prec(cg *g, const tir_expr *e, int need) {
  bool index = g->index_ctx;
  g->index_ctx = false;
  int dec = decided_cmp(e);
  if (dec >= 0) {
    puts_(g, dec ? "1" : "0");
    return;
  }
  if (zero_divisor(g, e)) {
    cg_error(g, e->span, "integer division by zero: the divisor is 0 whatever the values (C compilers reject a "
                         "division by a constant 0)");
    return;
  }
  if (is_arith(e) && signed_wide(e->dtype)) {
    print_arith(g, e, need, index);
    return;
  }
  switch (e->kind) {
  case TIR_VAR:
    /* a data pointer used as a value (e.g. passed to an extern function):
     * the buffer may be read and written through it */
    if (e->dtype.code == TIR_TC_HANDLE) cg_note_access(g, e, TIR_AOT_READ | TIR_AOT_WRITE);
    puts_(g, cg_var(g, e));
    break;
  case TIR_INT_IMM: print_int(g, e, need); break;
  case TIR_FLOAT_IMM: print_float(g, e, need); break;
  case TIR_STRING_IMM: print_string(g, e->u.str); break;
  case TIR_ADD: print_binop(g, e, "+", PREC_ADD, need); break;
  case TIR_SUB: print_binop(g, e, "-", PREC_ADD, need); break;
  case TIR_MUL: print_binop(g, e, "*", PREC_MUL, need); break;
  case TIR_DIV:
    if (tir_dtype_is_float(e->dtype)) print_binop(g, e, "/", PREC_MUL, need);
    else print_div(g, e, need);
    break;
  case TIR_MOD: print_mod(g, e, need); break;
  case TIR_FLOORDIV:
    if (cg_truncates_alike(g, e)) print_binop(g, e, "/", PREC_MUL, need);
    else print_helper_call(g, e, CG_FLOORDIV, "floordiv");
    break;
  case TIR_FLOORMOD:
    if (cg_truncates_alike(g, e)) print_binop(g, e, "%", PREC_MUL, need);
    else print_helper_call(g, e, CG_FLOORMOD, "floormod");
    break;
  case TIR_MIN: print_helper_call(g, e, CG_MIN, "min"); break;
  case TIR_MAX: print_helper_call(g, e, CG_MAX, "max"); break;
  case TIR_EQ: print_binop(g, e, "==", PREC_EQ, need); break;
  case TIR_NE: print_binop(g, e, "!=", PREC_EQ, need); break;
  case TIR_LT: print_binop(g, e, "<", PREC_REL, need); break;
  case TIR_LE: print_binop(g, e, "<=", PREC_REL, need); break;
  case TIR_GT: print_binop(g, e, ">", PREC_REL, need); break;
  case TIR_GE: print_binop(g, e, ">=", PREC_REL, need); break;
  case TIR_AND: print_binop(g, e, "&&", PREC_AND, need); break;
  case TIR_OR: print_binop(g, e, "||", PREC_OR, need); break;
  case TIR_NOT:
    open_paren(g, PREC_UNARY, need);
    puts_(g, "!");
    cg_expr_prec(g, e->u.un.a, PREC_UNARY);
    close_paren(g, PREC_UNARY, need);
    break;
  case TIR_CAST: print_cast(g, e, need); break;
  case TIR_SELECT:
    open_paren(g, PREC_COND, need);
    cg_expr_prec(g, e->u.select.cond, PREC_OR + 1);
    puts_(g, " ? ");
    cg_expr_prec(g, e->u.select.t, PREC_OR + 1);
    puts_(g, " : ");
    cg_expr_prec(g, e->u.select.f, PREC_OR + 1);
    close_paren(g, PREC_COND, need);
    break;
  case TIR_CALL: print_call(g, e); break;
  case TIR_BUFFER_LOAD: print_load(g, e); break;
  case TIR_LET: {
    tir_var_map m = {0};
    tir_var_map_set(&m, e->u.let.var, e->u.let.value);
    tir_expr *body = tir_substitute_expr(g->ctx, e->u.let.body, &m);
    tir_var_map_free(&m);
    cg_expr_prec(g, body, need);
    break;
  }
  case TIR_RAMP:
  case TIR_BROADCAST:
    cg_error(g, e->span, "vector expressions (ramp, broadcast) are not supported by this code generator");
    break;
  default: cg_error(g, e->span, "unknown expression kind %d", (int)e->kind); break;
  }
}

void cg_expr(cg *g, const tir_expr *e) { cg_expr_prec(g, e, PREC_LOWEST); }

void cg_index(cg *g, const tir_expr *e) {
  g->index_ctx = true;
  cg_expr_prec(g, e, PREC_LOWEST);
  g->index_ctx = false;
}

char *cg_index_str(cg *g, const tir_expr *e) {
  g->index_ctx = true;
  return cg_expr_str(g, e);
}

char *cg_expr_str(cg *g, const tir_expr *e) {
  cg_text t = {0}, *saved = g->out;
  g->out = &t;
  cg_expr(g, e);
  g->out = saved;
  char *s = (char *)tir_strdup(g->ctx, t.s ? t.s : "");
  cg_text_free(&t);
  return s;
}
