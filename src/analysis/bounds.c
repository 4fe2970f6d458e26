/* bounds.c - constant bounds (interval arithmetic under the context's var
 * ranges and constraint facts) and modular sets (e == coeff*k + base). */
#include <limits.h>
#include <stdlib.h>

#include "analysis/analyzer_internal.h"

#define NEG_INF INT64_MIN
#define POS_INF INT64_MAX

static bool is_inf(int64_t x) { return x == NEG_INF || x == POS_INF; }

int64_t ana_sat_add(int64_t x, int64_t y) {
  if (is_inf(x)) return x;
  if (is_inf(y)) return y;
  int64_t r;
  if (__builtin_add_overflow(x, y, &r)) return x > 0 ? POS_INF : NEG_INF;
  return r;
}

int64_t ana_sat_mul(int64_t x, int64_t y) {
  if (x == 0 || y == 0) return 0;
  bool neg = (x < 0) != (y < 0);
  if (is_inf(x) || is_inf(y)) return neg ? NEG_INF : POS_INF;
  int64_t r;
  if (__builtin_mul_overflow(x, y, &r)) return neg ? NEG_INF : POS_INF;
  return r;
}

static void dtype_range(tir_dtype t, int64_t *lo, int64_t *hi) {
  *lo = NEG_INF;
  *hi = POS_INF;
  if (t.code == TIR_TC_UINT) {
    *lo = 0;
    if (t.bits < 63) *hi = ((int64_t)1 << t.bits) - 1;
  } else if (t.code == TIR_TC_INT && t.bits < 64) {
    *lo = -((int64_t)1 << (t.bits - 1));
    *hi = ((int64_t)1 << (t.bits - 1)) - 1;
  }
}

static int64_t min4(int64_t a, int64_t b, int64_t c, int64_t d) {
  int64_t m = a < b ? a : b;
  m = m < c ? m : c;
  return m < d ? m : d;
}
static int64_t max4(int64_t a, int64_t b, int64_t c, int64_t d) {
  int64_t m = a > b ? a : b;
  m = m > c ? m : c;
  return m > d ? m : d;
}

/* x / c for a bound (inf stays inf), c > 0 */
static int64_t div_bound(int64_t x, int64_t c, bool floor) {
  if (is_inf(x)) return x;
  return floor ? ana_floordiv(x, c) : x / c;
}

static int64_t neg_bound(int64_t x) { return x == NEG_INF ? POS_INF : x == POS_INF ? NEG_INF : -x; }

/* x OP -m for m > 0, x in [al, ah]: x // -m == (-x) // m, x % -m in
 * (-m, 0], truncdiv(x, -m) == -truncdiv(x, m), truncmod(x, -m) == truncmod(x, m) */
static void bound_div_neg(tir_expr_kind k, int64_t al, int64_t ah, int64_t m, int64_t *lo, int64_t *hi) {
  int64_t nl = neg_bound(ah), nh = neg_bound(al); /* -x in [nl, nh] */
  switch (k) {
  case TIR_FLOORDIV:
    *lo = div_bound(nl, m, true);
    *hi = div_bound(nh, m, true);
    return;
  case TIR_FLOORMOD:
    *lo = -(m - 1);
    *hi = 0;
    return;
  case TIR_DIV:
    *lo = neg_bound(div_bound(ah, m, false));
    *hi = neg_bound(div_bound(al, m, false));
    return;
  default: /* truncmod: the sign of x, magnitude below m */
    *lo = al >= 0 ? 0 : -(m - 1);
    *hi = ah <= 0 ? 0 : m - 1;
    return;
  }
}

static void bound_div(tir_analyzer *a, const tir_expr *e, int64_t *lo, int64_t *hi) {
  int64_t al, ah, bl, bh;
  ana_bound(a, e->u.bin.a, &al, &ah);
  ana_bound(a, e->u.bin.b, &bl, &bh);
  bool floor = e->kind == TIR_FLOORDIV || e->kind == TIR_FLOORMOD;
  bool is_div = e->kind == TIR_FLOORDIV || e->kind == TIR_DIV;
  if (bl > bh || al > ah) return; /* an empty range (a loop of no iteration): nothing to bound */
  if (bl <= 0 && bh >= 0) return; /* divisor may be 0 or change sign */
  if (bh < 0) {
    if (bl != bh || bl == NEG_INF) return; /* only constant negative divisors */
    bound_div_neg(e->kind, al, ah, -bl, lo, hi);
    return;
  }
  if (is_div) {
    if (bl > 0) {
      /* numerator monotone; the quotient is extreme at the divisor's ends */
      int64_t c1 = bl, c2 = is_inf(bh) ? POS_INF : bh;
      int64_t q1 = div_bound(al, c1, floor), q2 = ah == POS_INF ? POS_INF : div_bound(ah, c1, floor);
      int64_t q3 = c2 == POS_INF ? (al < 0 ? (floor ? -1 : 0) : 0) : div_bound(al, c2, floor);
      int64_t q4 = c2 == POS_INF ? 0 : div_bound(ah, c2, floor);
      if (c2 == POS_INF && ah < 0) q4 = floor ? -1 : 0;
      *lo = min4(q1, q2, q3, q4);
      *hi = max4(q1, q2, q3, q4);
    }
    return;
  }
  /* modulo by a positive divisor bounded above by bh */
  if (bl > 0) {
    int64_t m = is_inf(bh) ? POS_INF : bh - 1;
    if (floor) {
      if (al >= 0 && ah != POS_INF && ah < bl) {
        *lo = al;
        *hi = ah;
      } else {
        *lo = 0;
        *hi = m;
      }
    } else if (al >= 0) {
      *lo = 0;
      *hi = ah < m ? ah : m;
    } else {
      *lo = is_inf(m) ? NEG_INF : -m;
      *hi = ah < 0 ? 0 : m;
      if (ah >= 0 && ah < m) *hi = ah;
    }
  }
}

static void bound_var(tir_analyzer *a, const tir_expr *e, int64_t *lo, int64_t *hi) {
  const ana_var *v = ana_lookup(a, e);
  if (e->u.var.size_var && *lo < 0) *lo = 0;
  if (!v) return;
  if (v->value) {
    ana_bound(a, v->value, lo, hi);
    return;
  }
  if (v->min) {
    int64_t ml, mh, xl, xh;
    ana_bound(a, v->min, &ml, &mh);
    ana_bound(a, v->extent, &xl, &xh);
    if (ml > *lo) *lo = ml;
    int64_t top = ana_sat_add(ana_sat_add(mh, xh), -1);
    if (top < *hi) *hi = top;
  }
}

static void bound_rec(tir_analyzer *a, const tir_expr *e, int64_t *lo, int64_t *hi) {
  int64_t al, ah, bl, bh;
  switch (e->kind) {
  case TIR_INT_IMM: *lo = *hi = e->u.int_val; return;
  case TIR_VAR: bound_var(a, e, lo, hi); return;
  case TIR_ADD:
  case TIR_SUB:
    ana_bound(a, e->u.bin.a, &al, &ah);
    ana_bound(a, e->u.bin.b, &bl, &bh);
    if (e->kind == TIR_SUB) { /* -[bl, bh]; a bound of INT64_MIN (NEG_INF, or the constant itself) negates to +inf */
      int64_t t = bl == NEG_INF ? POS_INF : -bl;
      bl = bh == POS_INF || bh == NEG_INF ? NEG_INF : -bh;
      bh = t;
    }
    *lo = ana_sat_add(al, bl);
    *hi = ana_sat_add(ah, bh);
    if (al == NEG_INF || bl == NEG_INF) *lo = NEG_INF;
    if (ah == POS_INF || bh == POS_INF) *hi = POS_INF;
    return;
  case TIR_MUL:
    ana_bound(a, e->u.bin.a, &al, &ah);
    ana_bound(a, e->u.bin.b, &bl, &bh);
    *lo = min4(ana_sat_mul(al, bl), ana_sat_mul(al, bh), ana_sat_mul(ah, bl), ana_sat_mul(ah, bh));
    *hi = max4(ana_sat_mul(al, bl), ana_sat_mul(al, bh), ana_sat_mul(ah, bl), ana_sat_mul(ah, bh));
    return;
  case TIR_DIV:
  case TIR_MOD:
  case TIR_FLOORDIV:
  case TIR_FLOORMOD: bound_div(a, e, lo, hi); return;
  case TIR_MIN:
  case TIR_MAX:
    ana_bound(a, e->u.bin.a, &al, &ah);
    ana_bound(a, e->u.bin.b, &bl, &bh);
    if (e->kind == TIR_MIN) {
      *lo = al < bl ? al : bl;
      *hi = ah < bh ? ah : bh;
    } else {
      *lo = al > bl ? al : bl;
      *hi = ah > bh ? ah : bh;
    }
    return;
  case TIR_SELECT:
    ana_bound(a, e->u.select.t, &al, &ah);
    ana_bound(a, e->u.select.f, &bl, &bh);
    *lo = al < bl ? al : bl;
    *hi = ah > bh ? ah : bh;
    return;
  case TIR_CAST:
    if (e->u.un.a->dtype.code == TIR_TC_INT || e->u.un.a->dtype.code == TIR_TC_UINT) {
      ana_bound(a, e->u.un.a, &al, &ah);
      if (ana_fits(e->dtype, al) && ana_fits(e->dtype, ah) && !is_inf(al) && !is_inf(ah)) {
        *lo = al;
        *hi = ah;
      }
    }
    return;
  case TIR_LET: ana_bound(a, e->u.let.body, lo, hi); return;
  default:
    if (TIR_IS_CMP(e->kind) || e->kind == TIR_AND || e->kind == TIR_OR || e->kind == TIR_NOT) {
      *lo = 0;
      *hi = 1;
    }
    return;
  }
}

void ana_bound(tir_analyzer *a, const tir_expr *e, int64_t *lo, int64_t *hi) {
  dtype_range(e->dtype, lo, hi);
  if (e->dtype.lanes != 1 || tir_dtype_is_float(e->dtype) || tir_dtype_is_handle(e->dtype)) {
    *lo = NEG_INF;
    *hi = POS_INF;
    return;
  }
  if (a->depth > 48) return;
  a->depth++;
  int64_t dl = *lo, dh = *hi, l = dl, h = dh;
  bound_rec(a, e, &l, &h);
  a->depth--;
  *lo = l > dl ? l : dl;
  *hi = h < dh ? h : dh;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < a->nfacts; i++) {
      const ana_fact *f = &a->facts[i];
      if (!ana_expr_equal(f->atom, e)) continue;
      if (f->ne) {
        if (f->lo == *lo && *lo < *hi) (*lo)++;
        else if (f->lo == *hi && *lo < *hi) (*hi)--;
        continue;
      }
      if (f->lo > *lo) *lo = f->lo;
      if (f->hi < *hi) *hi = f->hi;
    }
}

void tir_const_bound(tir_analyzer *a, tir_expr *e, int64_t *min, int64_t *max) {
  *min = NEG_INF;
  *max = POS_INF;
  if (!a || !e) return;
  tir_expr *s = tir_simplify(a, e);
  ana_bound(a, s, min, max);
  int64_t l2, h2;
  ana_bound(a, e, &l2, &h2);
  if (l2 > *min) *min = l2;
  if (h2 < *max) *max = h2;
}

/* The exact interval of an integer + - * tree (the connected nodes of e's
 * dtype from its root), as mathematical integers: leaves are bounded in
 * their dtype, the tree's nodes are not wrapped.  False when a node's exact
 * interval may leave [tlo, thi] (or is unbounded). */
static bool arith_rec(tir_analyzer *a, const tir_expr *e, tir_dtype t, int64_t tlo, int64_t thi, int64_t *lo,
                      int64_t *hi) {
  bool node = (e->kind == TIR_ADD || e->kind == TIR_SUB || e->kind == TIR_MUL) && tir_dtype_eq(e->dtype, t);
  if (!node) {
    ana_bound(a, e, lo, hi);
    return true;
  }
  int64_t al, ah, bl, bh;
  if (!arith_rec(a, e->u.bin.a, t, tlo, thi, &al, &ah) || !arith_rec(a, e->u.bin.b, t, tlo, thi, &bl, &bh))
    return false;
  if (is_inf(al) || is_inf(ah) || is_inf(bl) || is_inf(bh)) return false;
  if (e->kind == TIR_MUL) {
    *lo = min4(ana_sat_mul(al, bl), ana_sat_mul(al, bh), ana_sat_mul(ah, bl), ana_sat_mul(ah, bh));
    *hi = max4(ana_sat_mul(al, bl), ana_sat_mul(al, bh), ana_sat_mul(ah, bl), ana_sat_mul(ah, bh));
  } else if (e->kind == TIR_ADD) {
    *lo = ana_sat_add(al, bl);
    *hi = ana_sat_add(ah, bh);
  } else {
    *lo = ana_sat_add(al, neg_bound(bh));
    *hi = ana_sat_add(ah, neg_bound(bl));
  }
  return !is_inf(*lo) && !is_inf(*hi) && *lo >= tlo && *hi <= thi;
}

bool tir_arith_fits(tir_analyzer *a, const tir_expr *e, int bits) {
  if (!a || e->dtype.code != TIR_TC_INT || e->dtype.lanes != 1 || bits < 2 || bits > 64) return false;
  int64_t tlo = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
  int64_t thi = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
  int64_t lo, hi;
  return arith_rec(a, e, e->dtype, tlo, thi, &lo, &hi);
}

/* ---- facts from constraints ---- */

static void push_fact(tir_analyzer *a, tir_expr *atom, int64_t lo, int64_t hi) {
  if (a->nfacts == a->capfacts) {
    a->capfacts = a->capfacts ? a->capfacts * 2 : 16;
    ana_fact *p = realloc(a->facts, sizeof *p * (size_t)a->capfacts);
    if (!p) abort();
    a->facts = p;
  }
  a->facts[a->nfacts].atom = atom;
  a->facts[a->nfacts].lo = lo;
  a->facts[a->nfacts].hi = hi;
  a->facts[a->nfacts].ne = false;
  a->nfacts++;
}

static int64_t ceildiv(int64_t x, int64_t y) { return -ana_floordiv(-x, y); }

/* k*t <= m (le) or k*t >= m (!le) */
static void fact_linear(tir_analyzer *a, tir_expr *t, int64_t k, int64_t m, bool le) {
  bool upper = (k > 0) == le;
  if (upper) push_fact(a, t, NEG_INF, le ? ana_floordiv(m, k) : ana_floordiv(m, k));
  else push_fact(a, t, le ? ceildiv(m, k) : ceildiv(m, k), POS_INF);
}

/* `t*k + base OP 0` for a single atom t: split e = x - y into that form */
static bool single_term(tir_analyzer *a, tir_expr *x, tir_expr *y, tir_expr **t, int64_t *k, int64_t *base) {
  tir_expr *d = ana_canonical(a, tir_binary(a->c, TIR_SUB, x, y));
  *base = 0;
  *k = 1;
  int64_t c;
  if (d->kind == TIR_SUB && tir_is_const_int(d->u.bin.a, &c)) { /* c - t*k */
    *base = c;
    *k = -1;
    d = d->u.bin.b;
    if (d->kind == TIR_MUL && tir_is_const_int(d->u.bin.b, &c)) {
      *k = -c;
      d = d->u.bin.a;
    }
    if (d->kind == TIR_INT_IMM || d->kind == TIR_ADD || d->kind == TIR_SUB) return false;
    *t = d;
    return true;
  }
  if (d->kind == TIR_ADD || d->kind == TIR_SUB) {
    if (!tir_is_const_int(d->u.bin.b, &c)) return false;
    *base = d->kind == TIR_ADD ? c : -c;
    d = d->u.bin.a;
  }
  if (d->kind == TIR_MUL && tir_is_const_int(d->u.bin.b, &c)) {
    *k = c;
    d = d->u.bin.a;
  }
  if (d->kind == TIR_INT_IMM || d->kind == TIR_ADD || d->kind == TIR_SUB || *k == 0) return false;
  *t = d;
  return true;
}

void ana_add_facts(tir_analyzer *a, tir_expr *cond) {
  if (!cond) return;
  if (cond->kind == TIR_AND) {
    ana_add_facts(a, cond->u.bin.a);
    ana_add_facts(a, cond->u.bin.b);
    return;
  }
  if (!TIR_IS_CMP(cond->kind) || !ana_is_index_type(cond->u.bin.a->dtype) ||
      !tir_dtype_eq(cond->u.bin.a->dtype, cond->u.bin.b->dtype))
    return;
  tir_expr *t;
  int64_t k, base;
  if (!single_term(a, cond->u.bin.a, cond->u.bin.b, &t, &k, &base)) return;
  if (base == INT64_MIN) return;
  int64_t m = -base; /* k*t OP m */
  switch (cond->kind) {
  case TIR_LT: fact_linear(a, t, k, m - 1, true); break;
  case TIR_LE: fact_linear(a, t, k, m, true); break;
  case TIR_GT:
    if (m != INT64_MAX) fact_linear(a, t, k, m + 1, false);
    break;
  case TIR_GE: fact_linear(a, t, k, m, false); break;
  case TIR_EQ:
    if (m % k == 0) push_fact(a, t, m / k, m / k);
    break;
  case TIR_NE:
    if (m % k == 0) {
      push_fact(a, t, m / k, m / k);
      a->facts[a->nfacts - 1].ne = true;
    }
    break;
  default: break;
  }
}

/* ---- modular sets ---- */

static tir_modular_set ms(int64_t coeff, int64_t base) {
  tir_modular_set r;
  if (coeff < 0) coeff = -coeff;
  r.coeff = coeff;
  r.base = coeff ? ana_floormod(base, coeff) : base;
  return r;
}

static const tir_modular_set EVERYTHING = {1, 0};

static tir_modular_set modset(tir_analyzer *a, const tir_expr *e, int depth) {
  if (depth > 48) return EVERYTHING;
  tir_modular_set x, y;
  int64_t c, p, q, r;
  switch (e->kind) {
  case TIR_INT_IMM: return ms(0, e->u.int_val);
  case TIR_VAR: {
    const ana_var *v = ana_lookup(a, e);
    if (v && v->value) return modset(a, v->value, depth + 1);
    return EVERYTHING;
  }
  case TIR_ADD:
  case TIR_SUB:
    x = modset(a, e->u.bin.a, depth + 1);
    y = modset(a, e->u.bin.b, depth + 1);
    if (e->kind == TIR_ADD ? __builtin_add_overflow(x.base, y.base, &r)
                           : __builtin_sub_overflow(x.base, y.base, &r))
      return EVERYTHING;
    return ms(ana_gcd(x.coeff, y.coeff), r);
  case TIR_MUL:
    x = modset(a, e->u.bin.a, depth + 1);
    y = modset(a, e->u.bin.b, depth + 1);
    if (__builtin_mul_overflow(x.coeff, y.coeff, &c) || __builtin_mul_overflow(x.coeff, y.base, &p) ||
        __builtin_mul_overflow(y.coeff, x.base, &q) || __builtin_mul_overflow(x.base, y.base, &r))
      return EVERYTHING;
    return ms(ana_gcd(ana_gcd(c, p), q), r);
  case TIR_FLOORDIV:
    if (!tir_is_const_int(e->u.bin.b, &c) || c <= 0) return EVERYTHING;
    x = modset(a, e->u.bin.a, depth + 1);
    if (x.coeff % c == 0) return ms(x.coeff / c, ana_floordiv(x.base, c));
    return EVERYTHING;
  case TIR_FLOORMOD:
    if (!tir_is_const_int(e->u.bin.b, &c) || c == 0 || c == INT64_MIN) return EVERYTHING;
    x = modset(a, e->u.bin.a, depth + 1);
    if (x.coeff == 0) return ms(0, ana_floormod(x.base, c));
    return ms(ana_gcd(x.coeff, c), x.base);
  case TIR_MIN:
  case TIR_MAX:
  case TIR_SELECT: {
    const tir_expr *l = e->kind == TIR_SELECT ? e->u.select.t : e->u.bin.a;
    const tir_expr *rr = e->kind == TIR_SELECT ? e->u.select.f : e->u.bin.b;
    x = modset(a, l, depth + 1);
    y = modset(a, rr, depth + 1);
    if (__builtin_sub_overflow(x.base, y.base, &r)) return EVERYTHING;
    c = ana_gcd(ana_gcd(x.coeff, y.coeff), r);
    return ms(c, x.base);
  }
  default: return EVERYTHING;
  }
}

tir_modular_set ana_modset(tir_analyzer *a, const tir_expr *e) { return modset(a, e, 0); }

tir_modular_set tir_modular_set_of(tir_analyzer *a, tir_expr *e) {
  if (!a || !e || !ana_is_index_type(e->dtype)) return EVERYTHING;
  return modset(a, tir_simplify(a, e), 0);
}
