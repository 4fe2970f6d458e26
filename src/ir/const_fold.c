/* const_fold.c - constant folding of binary nodes as TVMScript builds them. */
#include "ir/const_fold.h"

static int64_t floordiv64(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
/* in wrapping arithmetic: q * b may pass int64 where the residue does not
 * (65535 floormod INT64_MIN) */
static int64_t floormod64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)floordiv64(a, b) * (uint64_t)b); }

static ir_fold fold_int(int64_t v) { return (ir_fold){IR_FOLD_INT, v, 0}; }
static ir_fold fold_float(double v) { return (ir_fold){IR_FOLD_FLOAT, 0, v}; }
static const ir_fold NONE = {IR_FOLD_NONE, 0, 0}, TAKE_A = {IR_FOLD_A, 0, 0}, TAKE_B = {IR_FOLD_B, 0, 0};

static ir_fold both_int(tir_expr_kind k, int64_t x, int64_t y) {
  switch (k) {
  case TIR_ADD: return fold_int((int64_t)((uint64_t)x + (uint64_t)y));
  case TIR_SUB: return fold_int((int64_t)((uint64_t)x - (uint64_t)y));
  case TIR_MUL: return fold_int((int64_t)((uint64_t)x * (uint64_t)y));
  /* INT64_MIN by -1 wraps, as TVM 0.27 folds it (the quotient INT64_MIN,
   * the remainder 0); narrower ints wrap where the caller truncates */
  case TIR_FLOORDIV: return !y ? NONE : y == -1 ? fold_int((int64_t)(0 - (uint64_t)x)) : fold_int(floordiv64(x, y));
  case TIR_FLOORMOD: return !y ? NONE : y == -1 ? fold_int(0) : fold_int(floormod64(x, y));
  case TIR_DIV: return !y ? NONE : y == -1 ? fold_int((int64_t)(0 - (uint64_t)x)) : fold_int(x / y);
  case TIR_MOD: return !y ? NONE : y == -1 ? fold_int(0) : fold_int(x % y);
  case TIR_MIN: return fold_int(x < y ? x : y);
  case TIR_MAX: return fold_int(x > y ? x : y);
  /* < <= > >= of two constants fold to a bool (TVM 0.27's operators: its
   * int64 values compared, uint64 too); == and != build the node (TVM's
   * == is an EqualOp, never folded), as do and/or */
  case TIR_LT: return (ir_fold){IR_FOLD_BOOL, x < y, 0};
  case TIR_LE: return (ir_fold){IR_FOLD_BOOL, x <= y, 0};
  case TIR_GT: return (ir_fold){IR_FOLD_BOOL, x > y, 0};
  case TIR_GE: return (ir_fold){IR_FOLD_BOOL, x >= y, 0};
  default: return NONE;
  }
}

/* TVM folds floormod and truncmod of int32 and int64 (its index types),
 * the floormod of two unsigned constants and the truncmod of two uint64
 * constants, and no other (int8 7 % 3 stays a node, as does uint8 x % 1) */
static bool mod_folds(tir_expr_kind k, tir_dtype t, bool both_const) {
  if (k != TIR_FLOORMOD && k != TIR_MOD) return true;
  if (t.code == TIR_TC_INT) return t.bits == 32 || t.bits == 64;
  if (t.code == TIR_TC_UINT) return both_const && (k == TIR_FLOORMOD || t.bits == 64);
  return true;
}

/* uint64 constants past INT64_MAX are held as negative int64: their
 * division, remainder, min and max are unsigned (floor and trunc agree) */
static ir_fold both_uint64(tir_expr_kind k, uint64_t x, uint64_t y) {
  switch (k) {
  case TIR_FLOORDIV:
  case TIR_DIV: return y ? fold_int((int64_t)(x / y)) : NONE;
  case TIR_FLOORMOD:
  case TIR_MOD: return y ? fold_int((int64_t)(x % y)) : NONE;
  case TIR_MIN: return fold_int((int64_t)(x < y ? x : y));
  case TIR_MAX: return fold_int((int64_t)(x > y ? x : y));
  default: return both_int(k, (int64_t)x, (int64_t)y);
  }
}

ir_fold ir_const_fold(tir_expr_kind k, const tir_expr *a, const tir_expr *b) {
  bool ca = a->kind == TIR_INT_IMM, cb = b->kind == TIR_INT_IMM;
  int64_t x = ca ? a->u.int_val : 0, y = cb ? b->u.int_val : 0;
  tir_dtype t = a->dtype;
  if (!mod_folds(k, t, ca && cb)) return NONE;
  if (ca && cb && t.lanes == 1) {
    bool u64 = t.code == TIR_TC_UINT && t.bits == 64 && !TIR_IS_CMP(k);
    ir_fold f = u64 ? both_uint64(k, (uint64_t)x, (uint64_t)y) : both_int(k, x, y);
    /* two bools: TVM's IntImm of the sum refuses 2 ("exceeds range of bool"): left a node */
    if (tir_dtype_is_bool(t) && f.kind == IR_FOLD_INT && (f.i < 0 || f.i > 1)) return NONE;
    /* as TVM folds: two's complement in the operands' width (int32
     * 2147483647 + 1 is -2147483648; uint8 250 + 10 is 4) */
    if (f.kind == IR_FOLD_INT && tir_dtype_is_int(t) && t.bits < 64) {
      uint64_t m = (1ull << t.bits) - 1, u = (uint64_t)f.i & m;
      if (t.code == TIR_TC_INT && (u >> (t.bits - 1))) u |= ~m; /* sign-extend */
      f.i = (int64_t)u;
    }
    return f;
  }
  /* < <= > >= of two float constants of any width: their values compared
   * (a NaN: false), as TVM 0.27 folds them */
  if (a->kind == TIR_FLOAT_IMM && b->kind == TIR_FLOAT_IMM && t.lanes == 1 && TIR_IS_CMP(k) && k != TIR_EQ &&
      k != TIR_NE) {
    double p = a->u.float_val, q = b->u.float_val;
    bool v = k == TIR_LT ? p < q : k == TIR_LE ? p <= q : k == TIR_GT ? p > q : p >= q;
    return (ir_fold){IR_FOLD_BOOL, v, 0};
  }
  /* min and max of two float constants of any width (no rounding), as TVM */
  if (a->kind == TIR_FLOAT_IMM && b->kind == TIR_FLOAT_IMM && t.lanes == 1 && (k == TIR_MIN || k == TIR_MAX)) {
    double p = a->u.float_val, q = b->u.float_val;
    if (p != p || q != q) return NONE;
    /* TVM's fold: min(a, b) is b < a ? b : a, max(a, b) a < b ? b : a (equal ones, -0.0 and 0.0: a) */
    return k == TIR_MIN ? (q < p ? TAKE_B : TAKE_A) : (p < q ? TAKE_B : TAKE_A);
  }
  /* float64 in double arithmetic; float32 in float32, as TVM folds it: the
   * operands rounded to float (T.float32(1e8) + T.float32(1) -
   * T.float32(1e8) is 0) and the result too (past FLT_MAX: inf; double's
   * + - * / of two floats rounded once to float is float's own).  float16
   * and bfloat16 are not folded (their arithmetic is not double's rounded
   * once). */
  if (a->kind == TIR_FLOAT_IMM && b->kind == TIR_FLOAT_IMM && t.lanes == 1 && t.code == TIR_TC_FLOAT &&
      (t.bits == 32 || t.bits == 64)) {
    bool f32 = t.bits == 32;
    double p = a->u.float_val, q = b->u.float_val, r;
    /* TVM tests the divisor for 0 before rounding it: float32 1 / 1e-46 is inf */
    if (k == TIR_DIV && q == 0) return NONE;
    if (f32) p = (float)p, q = (float)q;
    switch (k) {
    case TIR_ADD: r = p + q; break;
    case TIR_SUB: r = p - q; break;
    case TIR_MUL: r = p * q; break;
    case TIR_DIV: r = p / q; break;
    default: return NONE;
    }
    return fold_float(f32 ? (double)(float)r : r);
  }
  /* TVM's identities of a constant operand (of an int, or of a float of any
   * width): 0 + x, x + 0, x - 0 are x; 1 * x, x * 1, x / 1 are x; 0 * x,
   * x * 0 and 0 / x are the 0; for ints also x // 1, 0 // x, x % 1 (0) and
   * 0 % x */
  bool fl = tir_dtype_is_float(t);
  bool fa = fl && a->kind == TIR_FLOAT_IMM && a->dtype.lanes == 1, fb = fl && b->kind == TIR_FLOAT_IMM && b->dtype.lanes == 1;
  if (fl && !fa && !fb) return NONE;
  /* a bool's + - * identities are TVM's too (b + T.bool(False) is b,
   * b * T.bool(False) the False); its / // % TVM refuses or leaves */
  if (tir_dtype_is_bool(t) && k != TIR_ADD && k != TIR_SUB && k != TIR_MUL) return NONE;
  bool za = (ca && x == 0) || (fa && a->u.float_val == 0), zb = (cb && y == 0) || (fb && b->u.float_val == 0);
  bool oa = (ca && x == 1) || (fa && a->u.float_val == 1), ob = (cb && y == 1) || (fb && b->u.float_val == 1);
  switch (k) {
  case TIR_ADD:
    if (za) return TAKE_B;
    if (zb) return TAKE_A;
    break;
  case TIR_SUB:
    if (zb) return TAKE_A;
    break;
  case TIR_MUL:
    if (oa) return TAKE_B;
    if (ob) return TAKE_A;
    if (za) return TAKE_A;
    if (zb) return TAKE_B;
    break;
  case TIR_FLOORDIV:
  case TIR_DIV:
    if (fl && k == TIR_FLOORDIV) break;
    if (ob) return TAKE_A;
    if (za) return TAKE_A;
    break;
  case TIR_FLOORMOD:
  case TIR_MOD:
    if (fl) break;
    if (ob) return fold_int(0);
    if (za) return TAKE_A;
    break;
  default: break;
  }
  return NONE;
}

tir_expr *ir_fold_apply(tir_ctx *c, ir_fold f, tir_expr *a, tir_expr *b) {
  switch (f.kind) {
  case IR_FOLD_A: return a;
  case IR_FOLD_B: return b;
  case IR_FOLD_INT: return tir_int(c, a->dtype, f.i);
  case IR_FOLD_BOOL: return tir_bool(c, f.i != 0);
  case IR_FOLD_FLOAT: return tir_float(c, a->dtype, f.f);
  default: return NULL;
  }
}
