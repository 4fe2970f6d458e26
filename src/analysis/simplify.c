/* simplify.c - rewriting int exprs to a canonical, readable form.
 *
 * An index expr (scalar signed int) is read into a linear form: a constant
 * plus coefficient x atom terms, where an atom is anything that is not a sum
 * or a product by a constant (a var, a floordiv, a min, a load ...), itself
 * simplified.  Equal atoms merge, floordiv/floormod pairs fuse back
 * (x//8*8 + x%8 -> x), and the form is printed as TVM prints its sums:
 * positive terms by decreasing coefficient, the constant, then the negative
 * terms, e.g. `bx * 2097152 + by * 8192 + tx * 512 + ty * 2`.  Divisions by
 * constants split the sum into the multiples of the divisor and a remainder
 * whose bounds may decide it.  A rewrite that would grow a sub-expression is
 * dropped for the plain rebuild of its simplified children. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyzer_internal.h"

typedef struct term {
  tir_expr *atom;
  int64_t k;
} term;

typedef struct lin {
  term *t;
  int n, cap;
  int64_t base;
  bool bad; /* overflow or not representable: use the plain rebuild */
  tir_dtype dt;
} lin;

static tir_expr *simp(tir_analyzer *a, tir_expr *e);

/* ------------------------------------------------------------------ */
/* linear forms                                                        */

static void lin_init(lin *l, tir_dtype t) {
  memset(l, 0, sizeof *l);
  l->dt = t;
}

static void lin_free(lin *l) { free(l->t); }

static void lin_add_const(lin *l, int64_t v) {
  if (__builtin_add_overflow(l->base, v, &l->base)) l->bad = true;
}

static void lin_add_atom(lin *l, tir_expr *atom, int64_t k) {
  if (k == 0) return;
  for (int i = 0; i < l->n; i++)
    if (ana_expr_equal(l->t[i].atom, atom)) {
      if (__builtin_add_overflow(l->t[i].k, k, &l->t[i].k)) l->bad = true;
      return;
    }
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 8;
    term *p = realloc(l->t, sizeof *p * (size_t)l->cap);
    if (!p) abort();
    l->t = p;
  }
  l->t[l->n].atom = atom;
  l->t[l->n].k = k;
  l->n++;
}

static bool mul_ok(int64_t x, int64_t y, int64_t *out) { return !__builtin_mul_overflow(x, y, out); }

/* adds k * r to l, r already simplified (canonical) */
static void lin_decompose(lin *l, tir_expr *r, int64_t k) {
  int64_t c, kc;
  switch (r->kind) {
  case TIR_INT_IMM:
    if (!mul_ok(r->u.int_val, k, &kc)) l->bad = true;
    else lin_add_const(l, kc);
    return;
  case TIR_ADD:
    lin_decompose(l, r->u.bin.a, k);
    lin_decompose(l, r->u.bin.b, k);
    return;
  case TIR_SUB:
    lin_decompose(l, r->u.bin.a, k);
    lin_decompose(l, r->u.bin.b, -k);
    return;
  case TIR_MUL:
    if (tir_is_const_int(r->u.bin.b, &c)) {
      if (!mul_ok(c, k, &kc)) l->bad = true;
      else lin_decompose(l, r->u.bin.a, kc);
      return;
    }
    if (tir_is_const_int(r->u.bin.a, &c)) {
      if (!mul_ok(c, k, &kc)) l->bad = true;
      else lin_decompose(l, r->u.bin.b, kc);
      return;
    }
    break;
  default: break;
  }
  lin_add_atom(l, r, k);
}

static tir_expr *simp_div(tir_analyzer *a, tir_expr *e);
static tir_expr *simp_mul(tir_analyzer *a, tir_expr *e);

/* adds k * e to l, e raw */
static void lin_from(tir_analyzer *a, lin *l, tir_expr *e, int64_t k) {
  int64_t c, kc;
  if (l->bad) return;
  if (!tir_dtype_eq(e->dtype, l->dt)) {
    lin_decompose(l, simp(a, e), k);
    return;
  }
  switch (e->kind) {
  case TIR_INT_IMM:
  case TIR_ADD:
  case TIR_SUB:
    if (e->kind == TIR_INT_IMM) {
      lin_decompose(l, e, k);
    } else {
      lin_from(a, l, e->u.bin.a, k);
      lin_from(a, l, e->u.bin.b, e->kind == TIR_SUB ? -k : k);
    }
    return;
  case TIR_MUL: {
    tir_expr *x = e->u.bin.a, *y = e->u.bin.b;
    if (!tir_is_const_int(y, &c) && tir_is_const_int(x, &c)) {
      x = e->u.bin.b;
    } else if (!tir_is_const_int(y, &c)) {
      lin_decompose(l, simp_mul(a, e), k);
      return;
    }
    if (!mul_ok(c, k, &kc)) l->bad = true;
    else lin_from(a, l, x, kc);
    return;
  }
  case TIR_FLOORDIV:
  case TIR_FLOORMOD:
  case TIR_DIV:
  case TIR_MOD: lin_decompose(l, simp_div(a, e), k); return;
  default: lin_decompose(l, simp(a, e), k); return;
  }
}

static void lin_remove(lin *l, int i) {
  memmove(&l->t[i], &l->t[i + 1], sizeof *l->t * (size_t)(l->n - i - 1));
  l->n--;
}

/* x//c*(k*c) + x%c*k -> x*k (floor and trunc pairs alike) */
static bool fuse_divmod(lin *l) {
  for (int i = 0; i < l->n; i++) {
    tir_expr *m = l->t[i].atom;
    int64_t c, kc;
    if (m->kind != TIR_FLOORMOD && m->kind != TIR_MOD) continue;
    if (!tir_is_const_int(m->u.bin.b, &c) || c <= 0 || !mul_ok(l->t[i].k, c, &kc)) continue;
    tir_expr_kind dk = m->kind == TIR_FLOORMOD ? TIR_FLOORDIV : TIR_DIV;
    for (int j = 0; j < l->n; j++) {
      tir_expr *q = l->t[j].atom;
      if (q->kind != dk || l->t[j].k != kc || !ana_expr_equal(q->u.bin.b, m->u.bin.b) ||
          !ana_expr_equal(q->u.bin.a, m->u.bin.a))
        continue;
      int64_t k = l->t[i].k;
      tir_expr *x = m->u.bin.a;
      lin_remove(l, i > j ? i : j);
      lin_remove(l, i > j ? j : i);
      lin_decompose(l, x, k);
      return true;
    }
  }
  return false;
}

static void lin_normalize(lin *l) {
  while (!l->bad && fuse_divmod(l)) {}
  int n = 0;
  for (int i = 0; i < l->n; i++)
    if (l->t[i].k != 0) l->t[n++] = l->t[i];
  l->n = n;
  /* stable insertion sort by decreasing coefficient (TVM's order) */
  for (int i = 1; i < l->n; i++) {
    term t = l->t[i];
    int j = i;
    while (j > 0 && l->t[j - 1].k < t.k) {
      l->t[j] = l->t[j - 1];
      j--;
    }
    l->t[j] = t;
  }
  for (int i = 0; i < l->n && !l->bad; i++)
    if (!ana_fits(l->dt, l->t[i].k)) l->bad = true;
  if (!ana_fits(l->dt, l->base)) l->bad = true;
}

static tir_expr *term_expr(tir_analyzer *a, const lin *l, tir_expr *atom, int64_t k) {
  if (k == 1) return atom;
  return tir_binary(a->c, TIR_MUL, atom, tir_int(a->c, l->dt, k));
}

static tir_expr *lin_to_expr(tir_analyzer *a, const lin *l) {
  tir_ctx *c = a->c;
  tir_expr *res = NULL;
  int npos = 0, nneg = 0;
  for (int i = 0; i < l->n; i++) {
    if (l->t[i].k > 0) {
      tir_expr *t = term_expr(a, l, l->t[i].atom, l->t[i].k);
      res = res ? tir_binary(c, TIR_ADD, res, t) : t;
      npos++;
    } else {
      nneg++;
    }
  }
  if (!npos && nneg == 1 && l->base == 0) return term_expr(a, l, l->t[l->n - 1].atom, l->t[l->n - 1].k);
  if (l->base > 0 || (!npos && l->base != 0) || (!npos && !nneg)) {
    tir_expr *b = tir_int(c, l->dt, l->base);
    res = res ? tir_binary(c, TIR_ADD, res, b) : b;
  }
  for (int i = 0; i < l->n; i++) {
    if (l->t[i].k >= 0) continue;
    tir_expr *t = term_expr(a, l, l->t[i].atom, -l->t[i].k);
    res = tir_binary(c, TIR_SUB, res ? res : tir_int(c, l->dt, 0), t);
  }
  if (l->base < 0 && npos) res = tir_binary(c, TIR_SUB, res, tir_int(c, l->dt, -l->base));
  return res;
}

/* bounds of a linear form */
static void lin_bound(tir_analyzer *a, const lin *l, int64_t *lo, int64_t *hi) {
  int64_t L = l->base, H = l->base;
  for (int i = 0; i < l->n; i++) {
    int64_t al, ah;
    ana_bound(a, l->t[i].atom, &al, &ah);
    int64_t x = ana_sat_mul(al, l->t[i].k), y = ana_sat_mul(ah, l->t[i].k);
    L = ana_sat_add(L, x < y ? x : y);
    H = ana_sat_add(H, x < y ? y : x);
  }
  *lo = L;
  *hi = H;
}

/* ------------------------------------------------------------------ */
/* folding                                                             */

static bool fold_int(tir_expr_kind k, int64_t x, int64_t y, int64_t *r) {
  switch (k) {
  case TIR_ADD: return !__builtin_add_overflow(x, y, r);
  case TIR_SUB: return !__builtin_sub_overflow(x, y, r);
  case TIR_MUL: return !__builtin_mul_overflow(x, y, r);
  case TIR_DIV:
    if (y == 0 || (x == INT64_MIN && y == -1)) return false;
    *r = x / y;
    return true;
  case TIR_MOD:
    if (y == 0 || (x == INT64_MIN && y == -1)) return false;
    *r = x % y;
    return true;
  case TIR_FLOORDIV:
    if (y == 0 || (x == INT64_MIN && y == -1)) return false;
    *r = ana_floordiv(x, y);
    return true;
  case TIR_FLOORMOD:
    if (y == 0 || (x == INT64_MIN && y == -1)) return false;
    *r = ana_floormod(x, y);
    return true;
  case TIR_MIN: *r = x < y ? x : y; return true;
  case TIR_MAX: *r = x > y ? x : y; return true;
  case TIR_EQ: *r = x == y; return true;
  case TIR_NE: *r = x != y; return true;
  case TIR_LT: *r = x < y; return true;
  case TIR_LE: *r = x <= y; return true;
  case TIR_GT: *r = x > y; return true;
  case TIR_GE: *r = x >= y; return true;
  case TIR_AND: *r = x && y; return true;
  case TIR_OR: *r = x || y; return true;
  default: return false;
  }
}

static bool fold_float(tir_expr_kind k, double x, double y, double *r, bool *is_bool) {
  *is_bool = TIR_IS_CMP(k);
  switch (k) {
  case TIR_ADD: *r = x + y; return true;
  case TIR_SUB: *r = x - y; return true;
  case TIR_MUL: *r = x * y; return true;
  case TIR_DIV:
    if (y == 0) return false;
    *r = x / y;
    return true;
  case TIR_MIN: *r = x < y ? x : y; return true;
  case TIR_MAX: *r = x > y ? x : y; return true;
  case TIR_EQ: *r = x == y; return true;
  case TIR_NE: *r = x != y; return true;
  case TIR_LT: *r = x < y; return true;
  case TIR_LE: *r = x <= y; return true;
  case TIR_GT: *r = x > y; return true;
  case TIR_GE: *r = x >= y; return true;
  default: return false;
  }
}

static bool is_bool_const(const tir_expr *e, bool *v) {
  if (!e || e->kind != TIR_INT_IMM || !tir_dtype_is_bool(e->dtype) || e->dtype.lanes != 1) return false;
  *v = e->u.int_val != 0;
  return true;
}

tir_expr *ana_make_bin(tir_analyzer *a, tir_expr_kind k, tir_expr *x, tir_expr *y) {
  tir_ctx *c = a->c;
  if (x->kind == TIR_INT_IMM && y->kind == TIR_INT_IMM && x->dtype.lanes == 1 &&
      tir_dtype_eq(x->dtype, y->dtype)) {
    int64_t r;
    if (fold_int(k, x->u.int_val, y->u.int_val, &r)) {
      if (TIR_IS_CMP(k) || k == TIR_AND || k == TIR_OR) return tir_bool(c, r != 0);
      if (ana_fits(x->dtype, r)) return tir_int(c, x->dtype, r);
    }
  }
  if (x->kind == TIR_FLOAT_IMM && y->kind == TIR_FLOAT_IMM && tir_dtype_eq(x->dtype, y->dtype)) {
    double r;
    bool isb;
    if (fold_float(k, x->u.float_val, y->u.float_val, &r, &isb)) {
      if (isb) return tir_bool(c, r != 0);
      if (x->dtype.bits == 32) r = (double)(float)r;
      return tir_float(c, x->dtype, r);
    }
  }
  bool bx, by;
  if (k == TIR_AND) {
    if (is_bool_const(x, &bx)) return bx ? y : x;
    if (is_bool_const(y, &by)) return by ? x : y;
    if (ana_expr_equal(x, y)) return x;
  }
  if (k == TIR_OR) {
    if (is_bool_const(x, &bx)) return bx ? x : y;
    if (is_bool_const(y, &by)) return by ? y : x;
    if (ana_expr_equal(x, y)) return x;
  }
  return tir_binary(c, k, x, y);
}

/* ------------------------------------------------------------------ */
/* index arithmetic                                                    */

/* plain rebuild from simplified children, folded */
static tir_expr *simp_shallow(tir_analyzer *a, tir_expr *e) {
  tir_expr *x = simp(a, e->u.bin.a), *y = simp(a, e->u.bin.b);
  int64_t cx, cy;
  bool ix = tir_is_const_int(x, &cx), iy = tir_is_const_int(y, &cy);
  if (e->kind == TIR_ADD && ix && cx == 0) return y;
  if ((e->kind == TIR_ADD || e->kind == TIR_SUB) && iy && cy == 0) return x;
  if (e->kind == TIR_MUL && ((ix && cx == 1) || (iy && cy == 1))) return ix && cx == 1 ? y : x;
  if (x == e->u.bin.a && y == e->u.bin.b && !(ix && iy)) return e;
  return ana_make_bin(a, e->kind, x, y);
}

/* a sum root: read into a linear form and print it back */
static tir_expr *simp_linear(tir_analyzer *a, tir_expr *e) {
  lin l;
  lin_init(&l, e->dtype);
  lin_from(a, &l, e, 1);
  tir_expr *r = NULL;
  if (!l.bad) lin_normalize(&l);
  if (!l.bad) r = lin_to_expr(a, &l);
  lin_free(&l);
  if (!r || (!a->canon && ana_expr_size(r) > ana_expr_size(e))) r = simp_shallow(a, e);
  return r;
}

/* x * y, neither a constant: simplified factors in a stable order */
static tir_expr *simp_mul(tir_analyzer *a, tir_expr *e) {
  tir_expr *x = simp(a, e->u.bin.a), *y = simp(a, e->u.bin.b);
  if (tir_is_const_int(x, NULL) || tir_is_const_int(y, NULL)) {
    tir_expr *m = tir_binary(a->c, TIR_MUL, x, y);
    return simp_linear(a, m);
  }
  if (x->kind == TIR_VAR && y->kind == TIR_VAR && y->u.var.id < x->u.var.id) {
    tir_expr *t = x;
    x = y;
    y = t;
  }
  if (x == e->u.bin.a && y == e->u.bin.b) return e;
  return tir_binary(a->c, TIR_MUL, x, y);
}

/* the terms of l whose coefficient is (or is not) a multiple of c */
static void lin_split(const lin *l, int64_t c, lin *q, lin *r) {
  for (int i = 0; i < l->n; i++) {
    if (l->t[i].k % c == 0) lin_add_atom(q, l->t[i].atom, l->t[i].k / c);
    else lin_add_atom(r, l->t[i].atom, l->t[i].k);
  }
}

static int64_t lin_gcd(const lin *l, int64_t g) {
  for (int i = 0; i < l->n; i++) g = ana_gcd(g, l->t[i].k);
  return ana_gcd(g, l->base);
}

static void lin_div_exact(lin *l, int64_t g) {
  for (int i = 0; i < l->n; i++) l->t[i].k /= g;
  l->base /= g;
}

/* r // c (r not decided by bounds): gcd reduction and nested division */
static tir_expr *floordiv_atom(tir_analyzer *a, lin *r, int64_t c) {
  int64_t g = lin_gcd(r, c);
  lin_div_exact(r, g);
  c /= g;
  int64_t c1, cc;
  if (r->n == 1 && r->t[0].k == 1 && r->base == 0 && r->t[0].atom->kind == TIR_FLOORDIV &&
      tir_is_const_int(r->t[0].atom->u.bin.b, &c1) && c1 > 0 && mul_ok(c1, c, &cc) && ana_fits(r->dt, cc))
    return tir_binary(a->c, TIR_FLOORDIV, r->t[0].atom->u.bin.a, tir_int(a->c, r->dt, cc));
  return tir_binary(a->c, TIR_FLOORDIV, lin_to_expr(a, r), tir_int(a->c, r->dt, c));
}

/* r % c (r not decided by bounds); result added to out with coefficient */
static void floormod_atom(tir_analyzer *a, lin *r, int64_t c, lin *out) {
  int64_t g = lin_gcd(r, c);
  lin_div_exact(r, g);
  c /= g;
  int64_t c1;
  tir_expr *m;
  if (r->n == 1 && r->t[0].k == 1 && r->base == 0 && r->t[0].atom->kind == TIR_FLOORMOD &&
      tir_is_const_int(r->t[0].atom->u.bin.b, &c1) && c1 > 0 && c1 % c == 0)
    m = tir_binary(a->c, TIR_FLOORMOD, r->t[0].atom->u.bin.a, tir_int(a->c, r->dt, c));
  else
    m = tir_binary(a->c, TIR_FLOORMOD, lin_to_expr(a, r), tir_int(a->c, r->dt, c));
  lin_add_atom(out, m, g);
}

/* floordiv / floormod of a linear form by a positive constant */
static tir_expr *floor_divmod(tir_analyzer *a, bool is_div, lin *la, int64_t c) {
  lin q, r;
  lin_init(&q, la->dt);
  lin_init(&r, la->dt);
  lin_split(la, c, &q, &r);
  int64_t qb = ana_floordiv(la->base, c), rb = ana_floormod(la->base, c);
  r.base = rb;
  int64_t lo, hi;
  lin_bound(a, &r, &lo, &hi);
  bool decided = lo != INT64_MIN && hi != INT64_MAX && ana_floordiv(lo, c) == ana_floordiv(hi, c);
  tir_expr *res;
  if (is_div) {
    if (decided) {
      q.base = qb + ana_floordiv(lo, c);
    } else {
      /* keep the constant inside the division unless it is a whole multiple */
      r.base = la->base;
      if (ana_floormod(la->base, c) == 0) {
        r.base = 0;
        q.base = qb;
      }
      lin_add_atom(&q, floordiv_atom(a, &r, c), 1);
    }
    lin_normalize(&q);
    res = q.bad ? NULL : lin_to_expr(a, &q);
  } else {
    lin out;
    lin_init(&out, la->dt);
    if (decided) {
      for (int i = 0; i < r.n; i++) lin_add_atom(&out, r.t[i].atom, r.t[i].k);
      out.base = rb - ana_floordiv(lo, c) * c;
    } else {
      floormod_atom(a, &r, c, &out);
    }
    lin_normalize(&out);
    res = out.bad ? NULL : lin_to_expr(a, &out);
    lin_free(&out);
  }
  lin_free(&q);
  lin_free(&r);
  return res;
}

static tir_expr *simp_div(tir_analyzer *a, tir_expr *e) {
  tir_expr *sb = simp(a, e->u.bin.b);
  int64_t c;
  if (!ana_is_index_type(e->dtype) || !tir_is_const_int(sb, &c) || c == 0) {
    tir_expr *x = simp(a, e->u.bin.a);
    if (x == e->u.bin.a && sb == e->u.bin.b) return e;
    return ana_make_bin(a, e->kind, x, sb);
  }
  lin la;
  lin_init(&la, e->dtype);
  lin_from(a, &la, e->u.bin.a, 1);
  if (!la.bad) lin_normalize(&la);
  tir_expr *res = NULL;
  if (!la.bad) {
    bool is_div = e->kind == TIR_FLOORDIV || e->kind == TIR_DIV;
    bool floor_ok = e->kind == TIR_FLOORDIV || e->kind == TIR_FLOORMOD;
    if (!floor_ok && c > 0) {
      int64_t lo, hi;
      lin_bound(a, &la, &lo, &hi);
      floor_ok = lo >= 0;
    }
    bool exact = c > 0 && lin_gcd(&la, c) == c; /* every term a multiple of c */
    if (c == 1) res = is_div ? lin_to_expr(a, &la) : tir_int(a->c, e->dtype, 0);
    else if (exact && la.n > 0) {
      if (is_div) lin_div_exact(&la, c);
      res = is_div ? lin_to_expr(a, &la) : tir_int(a->c, e->dtype, 0);
    }
    else if (la.n == 0) res = ana_make_bin(a, e->kind, lin_to_expr(a, &la), sb);
    else if (floor_ok && c > 0) res = floor_divmod(a, is_div, &la, c);
    if (!res) res = ana_make_bin(a, e->kind, lin_to_expr(a, &la), sb);
  }
  lin_free(&la);
  if (!res || (!a->canon && ana_expr_size(res) > ana_expr_size(e))) res = simp_shallow(a, e);
  return res;
}

/* ------------------------------------------------------------------ */
/* min / max                                                           */

static bool is_operand_of(tir_expr_kind k, const tir_expr *op, const tir_expr *e) {
  if (e->kind != k) return false;
  return ana_expr_equal(e->u.bin.a, op) || ana_expr_equal(e->u.bin.b, op) || is_operand_of(k, op, e->u.bin.a) ||
         is_operand_of(k, op, e->u.bin.b);
}

static bool prove_le(tir_analyzer *a, tir_expr *x, tir_expr *y) {
  if (ana_expr_equal(x, y)) return true;
  /* x <= max(.., x, ..) and min(.., y, ..) <= y */
  if (is_operand_of(TIR_MAX, x, y) || is_operand_of(TIR_MIN, y, x)) return true;
  if (!ana_is_index_type(x->dtype) || !tir_dtype_eq(x->dtype, y->dtype)) return false;
  lin l;
  lin_init(&l, x->dtype);
  lin_decompose(&l, y, 1);
  lin_decompose(&l, x, -1);
  lin_normalize(&l);
  int64_t lo, hi;
  lin_bound(a, &l, &lo, &hi);
  lin_free(&l);
  if (lo >= 0) return true;
  if (a->nconds > 0 && !a->canon) return ana_isl_prove(a, tir_binary(a->c, TIR_LE, x, y));
  return false;
}

/* min(x + t, y + t) -> min(x, y) + t for the terms t two sums share */
static tir_expr *factor_common(tir_analyzer *a, tir_expr_kind k, tir_expr *x, tir_expr *y) {
  if (!ana_is_index_type(x->dtype) || !tir_dtype_eq(x->dtype, y->dtype)) return NULL;
  lin lx, ly, common;
  lin_init(&lx, x->dtype);
  lin_init(&ly, x->dtype);
  lin_init(&common, x->dtype);
  lin_decompose(&lx, x, 1);
  lin_decompose(&ly, y, 1);
  for (int i = 0; i < lx.n; i++)
    for (int j = 0; j < ly.n; j++)
      if (lx.t[i].k == ly.t[j].k && lx.t[i].k != 0 && ana_expr_equal(lx.t[i].atom, ly.t[j].atom)) {
        lin_add_atom(&common, lx.t[i].atom, lx.t[i].k);
        lx.t[i].k = ly.t[j].k = 0;
        break;
      }
  tir_expr *r = NULL;
  if (common.n && !lx.bad && !ly.bad) {
    lin_normalize(&lx);
    lin_normalize(&ly);
    if (!lx.bad && !ly.bad) {
      tir_expr *m = ana_make_bin(a, k, lin_to_expr(a, &lx), lin_to_expr(a, &ly));
      lin_add_atom(&common, m, 1);
      lin_normalize(&common);
      if (!common.bad) r = lin_to_expr(a, &common);
    }
  }
  lin_free(&lx);
  lin_free(&ly);
  lin_free(&common);
  if (r && ana_expr_size(r) >= ana_expr_size(x) + ana_expr_size(y) + 1) r = NULL;
  return r;
}

static void flatten(tir_analyzer *a, tir_expr_kind k, tir_expr *e, tir_expr ***ops, int *n, int *cap) {
  if (e->kind == k) {
    flatten(a, k, e->u.bin.a, ops, n, cap);
    flatten(a, k, e->u.bin.b, ops, n, cap);
    return;
  }
  tir_expr *s = simp(a, e);
  if (s->kind == k && s != e) {
    flatten(a, k, s, ops, n, cap);
    return;
  }
  if (*n == *cap) {
    *cap = *cap ? *cap * 2 : 8;
    tir_expr **p = realloc(*ops, sizeof *p * (size_t)*cap);
    if (!p) abort();
    *ops = p;
  }
  (*ops)[(*n)++] = s;
}

static tir_expr *simp_minmax(tir_analyzer *a, tir_expr *e) {
  tir_expr_kind k = e->kind;
  tir_expr **ops = NULL;
  int n = 0, cap = 0;
  flatten(a, k, e, &ops, &n, &cap);
  /* drop operands dominated by another one (for min: some other <= it) */
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) {
      if (i == j || !ops[i] || !ops[j]) continue;
      bool dominated = k == TIR_MIN ? prove_le(a, ops[i], ops[j]) : prove_le(a, ops[j], ops[i]);
      if (dominated) {
        ops[j] = NULL;
        break;
      }
    }
  }
  tir_expr *r = NULL;
  int left = 0;
  for (int i = 0; i < n; i++)
    if (ops[i]) ops[left++] = ops[i];
  if (left == 2) r = factor_common(a, k, ops[0], ops[1]);
  if (!r)
    for (int i = 0; i < left; i++) r = r ? ana_make_bin(a, k, r, ops[i]) : ops[i];
  free(ops);
  if (!a->canon && ana_expr_size(r) > ana_expr_size(e)) {
    tir_expr *x = simp(a, e->u.bin.a), *y = simp(a, e->u.bin.b);
    r = ana_make_bin(a, k, x, y);
  }
  return r;
}

/* ------------------------------------------------------------------ */
/* comparisons and logic                                               */

static tir_expr_kind flip_cmp(tir_expr_kind k) {
  switch (k) {
  case TIR_LT: return TIR_GT;
  case TIR_LE: return TIR_GE;
  case TIR_GT: return TIR_LT;
  case TIR_GE: return TIR_LE;
  default: return k;
  }
}

static tir_expr_kind negate_cmp(tir_expr_kind k) {
  switch (k) {
  case TIR_LT: return TIR_GE;
  case TIR_LE: return TIR_GT;
  case TIR_GT: return TIR_LE;
  case TIR_GE: return TIR_LT;
  case TIR_EQ: return TIR_NE;
  default: return TIR_EQ;
  }
}

/* decide d OP 0 from d's bounds: 1 true, 0 false, -1 unknown */
static int decide_cmp(tir_expr_kind k, int64_t lo, int64_t hi) {
  switch (k) {
  case TIR_LT: return hi < 0 ? 1 : lo >= 0 ? 0 : -1;
  case TIR_LE: return hi <= 0 ? 1 : lo > 0 ? 0 : -1;
  case TIR_GT: return lo > 0 ? 1 : hi <= 0 ? 0 : -1;
  case TIR_GE: return lo >= 0 ? 1 : hi < 0 ? 0 : -1;
  case TIR_EQ: return (lo == 0 && hi == 0) ? 1 : (lo > 0 || hi < 0) ? 0 : -1;
  case TIR_NE: return (lo == 0 && hi == 0) ? 0 : (lo > 0 || hi < 0) ? 1 : -1;
  default: return -1;
  }
}

static bool has_divmod(const tir_expr *e) {
  if (!e) return false;
  if (e->kind == TIR_FLOORDIV || e->kind == TIR_FLOORMOD || e->kind == TIR_DIV || e->kind == TIR_MOD ||
      e->kind == TIR_MIN || e->kind == TIR_MAX)
    return true;
  if (TIR_IS_BINARY(e->kind)) return has_divmod(e->u.bin.a) || has_divmod(e->u.bin.b);
  return false;
}

/* P OP K with P = x - y's terms, K = -constant; normalized by the gcd */
static tir_expr *cmp_normal_form(tir_analyzer *a, tir_expr_kind k, lin *d) {
  int64_t g = 0;
  for (int i = 0; i < d->n; i++) g = ana_gcd(g, d->t[i].k);
  int64_t K = -d->base;
  if (d->base == INT64_MIN) return NULL;
  if (k == TIR_EQ || k == TIR_NE) {
    if (K % g != 0) return tir_bool(a->c, k == TIR_NE);
    K /= g;
  } else if (k == TIR_LT || k == TIR_GE) {
    K = -ana_floordiv(-K, g); /* ceil */
  } else {
    K = ana_floordiv(K, g);
  }
  lin pos, neg;
  lin_init(&pos, d->dt);
  lin_init(&neg, d->dt);
  for (int i = 0; i < d->n; i++) {
    if (d->t[i].k > 0) lin_add_atom(&pos, d->t[i].atom, d->t[i].k / g);
    else lin_add_atom(&neg, d->t[i].atom, -d->t[i].k / g);
  }
  tir_expr *r;
  if (pos.n) {
    neg.base = K;
    r = tir_binary(a->c, k, lin_to_expr(a, &pos), lin_to_expr(a, &neg));
  } else {
    r = tir_binary(a->c, flip_cmp(k), lin_to_expr(a, &neg), tir_int(a->c, d->dt, -K));
  }
  lin_free(&pos);
  lin_free(&neg);
  return r;
}

static tir_expr *simp_cmp(tir_analyzer *a, tir_expr *e) {
  tir_expr_kind k = e->kind;
  tir_expr *x = simp(a, e->u.bin.a), *y = simp(a, e->u.bin.b);
  bool consts = (x->kind == TIR_INT_IMM || x->kind == TIR_FLOAT_IMM) && (y->kind == TIR_INT_IMM || y->kind == TIR_FLOAT_IMM);
  tir_expr *plain = (x == e->u.bin.a && y == e->u.bin.b && !consts) ? e : ana_make_bin(a, k, x, y);
  if (!ana_is_index_type(x->dtype) || !tir_dtype_eq(x->dtype, y->dtype)) {
    if (ana_expr_equal(x, y) && !tir_dtype_is_float(x->dtype) && x->dtype.lanes == 1)
      return tir_bool(a->c, k == TIR_EQ || k == TIR_LE || k == TIR_GE);
    return plain;
  }
  lin d;
  lin_init(&d, x->dtype);
  lin_decompose(&d, x, 1);
  lin_decompose(&d, y, -1);
  lin_normalize(&d);
  tir_expr *r = NULL;
  if (!d.bad) {
    int64_t lo, hi;
    lin_bound(a, &d, &lo, &hi);
    int dec = decide_cmp(k, lo, hi);
    if (dec >= 0) r = tir_bool(a->c, dec);
    else if (d.n == 0) r = NULL;
    else r = cmp_normal_form(a, k, &d);
  }
  lin_free(&d);
  if (r && r->kind != TIR_INT_IMM && (a->nconds > 0 || has_divmod(r))) {
    if (ana_isl_prove(a, r)) r = tir_bool(a->c, true);
    else if (ana_isl_prove(a, tir_binary(a->c, negate_cmp(r->kind), r->u.bin.a, r->u.bin.b)))
      r = tir_bool(a->c, false);
  }
  if (!r || (!a->canon && ana_expr_size(r) > ana_expr_size(plain))) r = plain;
  return r;
}

static tir_expr *simp_not(tir_analyzer *a, tir_expr *e) {
  tir_expr *x = simp(a, e->u.un.a);
  bool v;
  if (is_bool_const(x, &v)) return tir_bool(a->c, !v);
  if (x->kind == TIR_NOT) return x->u.un.a;
  if (TIR_IS_CMP(x->kind) && ana_is_index_type(x->u.bin.a->dtype))
    return tir_binary(a->c, negate_cmp(x->kind), x->u.bin.a, x->u.bin.b);
  return x == e->u.un.a ? e : tir_not(a->c, x);
}

/* ------------------------------------------------------------------ */
/* casts, selects, calls, loads                                        */

static tir_expr *fold_cast(tir_analyzer *a, tir_dtype t, tir_expr *x) {
  if (t.lanes != 1 || x->dtype.lanes != 1) return NULL;
  if (x->kind == TIR_INT_IMM) {
    int64_t v = x->u.int_val;
    if (tir_dtype_is_bool(t)) return tir_bool(a->c, v != 0);
    if (t.code == TIR_TC_INT || t.code == TIR_TC_UINT) {
      if (t.bits < 64) {
        uint64_t m = ((uint64_t)1 << t.bits) - 1;
        uint64_t u = (uint64_t)v & m;
        if (t.code == TIR_TC_INT && (u >> (t.bits - 1)) & 1) u |= ~m;
        v = (int64_t)u;
      } else if (t.code == TIR_TC_UINT && v < 0) {
        return NULL;
      }
      return tir_int(a->c, t, v);
    }
    if (tir_dtype_is_float(t) && t.code == TIR_TC_FLOAT) {
      double d = (double)v;
      if (t.bits == 32) d = (double)(float)d;
      return t.bits >= 32 ? tir_float(a->c, t, d) : NULL;
    }
    return NULL;
  }
  if (x->kind == TIR_FLOAT_IMM && t.code == TIR_TC_FLOAT && t.bits >= 32) {
    double d = x->u.float_val;
    if (t.bits == 32) d = (double)(float)d;
    return tir_float(a->c, t, d);
  }
  if (x->kind == TIR_FLOAT_IMM && t.code == TIR_TC_INT) {
    double d = x->u.float_val;
    if (!(d > -9.2e18 && d < 9.2e18)) return NULL;
    int64_t v = (int64_t)d;
    return ana_fits(t, v) ? tir_int(a->c, t, v) : NULL;
  }
  return NULL;
}

static tir_expr *simp_cast(tir_analyzer *a, tir_expr *e) {
  tir_expr *x = simp(a, e->u.un.a);
  if (tir_dtype_eq(x->dtype, e->dtype)) return x;
  tir_expr *f = fold_cast(a, e->dtype, x);
  if (f) return f;
  return x == e->u.un.a ? e : tir_cast(a->c, e->dtype, x);
}

static tir_expr *simp_select(tir_analyzer *a, tir_expr *e) {
  tir_expr *cond = simp(a, e->u.select.cond);
  bool v;
  if (is_bool_const(cond, &v)) return simp(a, v ? e->u.select.t : e->u.select.f);
  tir_expr *t = simp(a, e->u.select.t), *f = simp(a, e->u.select.f);
  if (ana_expr_equal(t, f)) return t;
  if (cond == e->u.select.cond && t == e->u.select.t && f == e->u.select.f) return e;
  return tir_select(a->c, cond, t, f);
}

static tir_expr *simp_call(tir_analyzer *a, tir_expr *e) {
  int n = e->u.call.nargs;
  if (!strcmp(e->u.call.op, "if_then_else") && n == 3) {
    tir_expr *cond = simp(a, e->u.call.args[0]);
    bool v;
    if (is_bool_const(cond, &v)) return simp(a, e->u.call.args[v ? 1 : 2]);
  }
  tir_expr **args = n ? malloc(sizeof *args * (size_t)n) : NULL;
  bool changed = false;
  for (int i = 0; i < n; i++) {
    args[i] = simp(a, e->u.call.args[i]);
    changed |= args[i] != e->u.call.args[i];
  }
  tir_expr *r = changed ? tir_call(a->c, e->dtype, e->u.call.op, args, n) : e;
  free(args);
  return r;
}

static tir_expr *simp_load(tir_analyzer *a, tir_expr *e) {
  int n = e->u.load.nidx;
  tir_expr **idx = n ? malloc(sizeof *idx * (size_t)n) : NULL;
  bool changed = false;
  for (int i = 0; i < n; i++) {
    idx[i] = simp(a, e->u.load.idx[i]);
    changed |= idx[i] != e->u.load.idx[i];
  }
  tir_expr *r = e;
  if (changed) {
    r = tir_load(a->c, e->u.load.buf, idx, n);
    r->dtype = e->dtype;
    r->span = e->span;
  }
  free(idx);
  return r;
}

static tir_expr *simp_let(tir_analyzer *a, tir_expr *e) {
  tir_expr *v = simp(a, e->u.let.value), *b = simp(a, e->u.let.body);
  if (v == e->u.let.value && b == e->u.let.body) return e;
  return tir_let(a->c, e->u.let.var, v, b);
}

static tir_expr *simp(tir_analyzer *a, tir_expr *e) {
  if (!e) return e;
  switch (e->kind) {
  case TIR_VAR: {
    const ana_var *v = ana_lookup(a, e);
    return v && v->value ? v->value : e;
  }
  case TIR_INT_IMM:
  case TIR_FLOAT_IMM:
  case TIR_STRING_IMM: return e;
  case TIR_ADD:
  case TIR_SUB:
  case TIR_MUL:
    if (ana_is_index_type(e->dtype)) return simp_linear(a, e);
    return simp_shallow(a, e);
  case TIR_DIV:
  case TIR_MOD:
  case TIR_FLOORDIV:
  case TIR_FLOORMOD: return simp_div(a, e);
  case TIR_MIN:
  case TIR_MAX: return simp_minmax(a, e);
  case TIR_EQ:
  case TIR_NE:
  case TIR_LT:
  case TIR_LE:
  case TIR_GT:
  case TIR_GE: return simp_cmp(a, e);
  case TIR_AND:
  case TIR_OR: return simp_shallow(a, e);
  case TIR_NOT: return simp_not(a, e);
  case TIR_CAST: return simp_cast(a, e);
  case TIR_SELECT: return simp_select(a, e);
  case TIR_CALL: return simp_call(a, e);
  case TIR_BUFFER_LOAD: return simp_load(a, e);
  case TIR_RAMP: {
    tir_expr *b = simp(a, e->u.ramp.base), *s = simp(a, e->u.ramp.stride);
    return (b == e->u.ramp.base && s == e->u.ramp.stride) ? e : tir_ramp(a->c, b, s, e->u.ramp.lanes);
  }
  case TIR_BROADCAST: {
    tir_expr *v = simp(a, e->u.bcast.value);
    return v == e->u.bcast.value ? e : tir_broadcast(a->c, v, e->u.bcast.lanes);
  }
  case TIR_LET: return simp_let(a, e);
  default: return e;
  }
}

tir_expr *tir_simplify(tir_analyzer *a, tir_expr *e) {
  if (!a || !e) return e;
  bool saved = a->canon;
  a->canon = false;
  tir_expr *r = simp(a, e);
  a->canon = saved;
  return r;
}

tir_expr *ana_canonical(tir_analyzer *a, tir_expr *e) {
  bool saved = a->canon;
  a->canon = true;
  tir_expr *r = simp(a, e);
  a->canon = saved;
  return r;
}
