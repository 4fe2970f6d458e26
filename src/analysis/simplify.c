/* simplify.c - rewriting int exprs to a canonical, readable form.
 *
 * An index expr (scalar signed int) is read into a linear form: a constant
 * plus coefficient x atom terms, where an atom is anything that is not a sum
 * or a product by a constant (a var, a floordiv, a min, a load ...), itself
 * simplified.  Equal atoms merge, floordiv/floormod pairs fuse back
 * (x//8*8 + x%8 -> x), and the form is printed as TVM prints its sums:
 * positive terms by decreasing coefficient, a positive constant, the
 * negative terms, a negative constant, e.g. `bx * 2097152 + by * 8192 + tx
 * * 512 + ty * 2`, `x + 4 - y`, `0 - y * 2 - 4`.  Divisions by
 * constants split the sum into the multiples of the divisor and a remainder
 * whose bounds may decide it.  A rewrite that would grow a sub-expression is
 * dropped for the plain rebuild of its simplified children, unless it grows
 * only by TVM's spelling of its sums (distributed, the constant last:
 * x * 4 + y * 4 for (x + y) * 4, 0 - y - 4 for -4 - y; ana_lean_size). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyzer_internal.h"
#include "tir/visit.h"

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
  int nsorted; /* the first nsorted terms are in TVM's order */
  bool prod;   /* a dividend written as a product of no sum (x * -3) */
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

/* an atom read as TVM's canonical form reads it, a split of an index:
 * x // lo % (up / lo) (x // c is lower c, x % c upper c, x // 4 % 8 lower 4
 * upper 32, anything else lower 1 and no upper); floor is true for a floor
 * division.  TVM keeps the splits of one index together, the lower factor
 * decreasing, and orders a sum's terms by coefficient, lower factor, upper
 * factor and division kind, so x // 4 + x + y % 8 */
typedef struct split {
  const tir_expr *index;
  int64_t lo, up; /* up 0: none */
  bool floor;
} split;

static split split_of(const tir_expr *e) {
  split s = {e, 1, 0, false};
  int64_t c, lc;
  bool div = e->kind == TIR_FLOORDIV || e->kind == TIR_DIV, mod = e->kind == TIR_FLOORMOD || e->kind == TIR_MOD;
  if ((!div && !mod) || !tir_is_const_int(e->u.bin.b, &c) || c <= 0) return s;
  split in = split_of(e->u.bin.a);
  if (__builtin_mul_overflow(in.lo, c, &lc)) return s;
  bool fits = !in.up || in.up % lc == 0;
  if (div) s = fits ? (split){in.index, lc, in.up, false} : (split){e->u.bin.a, lc, 0, false};
  else s = fits ? (split){in.index, in.lo, lc, false} : (split){e->u.bin.a, 1, c, false};
  s.floor = e->kind == TIR_FLOORDIV || e->kind == TIR_FLOORMOD;
  return s;
}

/* TVM's order of two terms of a sum: -1 when x comes first, 1 when y, 0
 * when neither */
static int term_order(const term *x, const term *y) {
  if (x->k != y->k) return x->k > y->k ? -1 : 1;
  split a = split_of(x->atom), b = split_of(y->atom);
  if (a.lo != b.lo) return a.lo > b.lo ? -1 : 1;
  uint64_t ua = a.up ? (uint64_t)a.up : UINT64_MAX, ub = b.up ? (uint64_t)b.up : UINT64_MAX;
  if (ua != ub) return ua > ub ? -1 : 1;
  if (a.floor != b.floor) return a.floor ? -1 : 1;
  return 0;
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

/* moves the terms added since l was last normalized among the others as
 * TVM's AddToSelf adds them: a split of an index already there goes among
 * that index's splits, before the first with a smaller lower factor */
static void lin_regroup(lin *l) {
  for (int i = l->nsorted; i < l->n; i++) {
    term t = l->t[i];
    split s = split_of(t.atom);
    int at = 0;
    while (at < i && !ana_expr_equal(split_of(l->t[at].atom).index, s.index)) at++;
    for (; at < i; at++) {
      split o = split_of(l->t[at].atom);
      if (!ana_expr_equal(o.index, s.index) || s.lo > o.lo) break;
    }
    memmove(&l->t[at + 1], &l->t[at], sizeof *l->t * (size_t)(i - at));
    l->t[at] = t;
  }
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
static tir_expr *div_by_const(tir_analyzer *a, tir_expr_kind kind, lin *la, int64_t c, int depth);
static tir_expr *simp_mul(tir_analyzer *a, tir_expr *e);
static tir_expr *absorb_minmax(tir_analyzer *a, const lin *l);
static tir_expr *minmax_normal(tir_analyzer *a, tir_expr *m);
static void lin_copy(lin *dst, const lin *src);
static tir_expr *term_expr(tir_analyzer *a, const lin *l, tir_expr *atom, int64_t k);
static bool lin_of(tir_expr *e, lin *l);
static tir_expr *lin_expr(tir_analyzer *a, lin *l);

static bool is_minmax(const tir_expr *e) { return e->kind == TIR_MIN || e->kind == TIR_MAX; }
static bool is_sum(const tir_expr *e) { return e->kind == TIR_ADD || e->kind == TIR_SUB; }
static void minmax_front(const lin *l, lin *o);

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
    if (!mul_ok(c, k, &kc)) {
      l->bad = true;
    } else if (!a->canon && kc > 0 && is_sum(x) && tir_dtype_eq(x->dtype, l->dt)) {
      /* a sum times c > 0: its terms in the order TVM's rewrite leaves the
       * sum (a min/max first) before they are distributed, (y + min(a, b))
       * * 16 is min(a, b) * 16 + y * 16 (x - (y + min(a, b)) * 2 stays x -
       * y * 2 - min(a, b) * 2, as TVM leaves it) */
      lin in, o;
      lin_init(&in, l->dt);
      lin_from(a, &in, x, 1);
      lin_init(&o, l->dt);
      minmax_front(&in, &o);
      int64_t tk, bk;
      for (int i = 0; i < o.n && !in.bad; i++) {
        if (!mul_ok(o.t[i].k, kc, &tk)) in.bad = true;
        else lin_add_atom(l, o.t[i].atom, tk);
      }
      if (in.bad || !mul_ok(in.base, kc, &bk)) l->bad = true;
      else lin_add_const(l, bk);
      lin_free(&in);
      lin_free(&o);
    } else {
      lin_from(a, l, x, kc);
    }
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
  if (i < l->nsorted) l->nsorted--;
}

/* x//c*(k*c) + x%c*k -> x*k (floor and trunc pairs alike) */
static bool fuse_divmod(lin *l) {
  for (int i = 0; i < l->n; i++) {
    tir_expr *m = l->t[i].atom;
    int64_t c, kc;
    if (m->kind != TIR_FLOORMOD && m->kind != TIR_MOD) continue;
    if (!tir_is_const_int(m->u.bin.b, &c) || c == 0 || !mul_ok(l->t[i].k, c, &kc)) continue;
    tir_expr_kind dk = m->kind == TIR_FLOORMOD ? TIR_FLOORDIV : TIR_DIV;
    for (int j = 0; j < l->n; j++) {
      tir_expr *q = l->t[j].atom;
      if (q->kind != dk || l->t[j].k != kc || !ana_expr_equal(q->u.bin.b, m->u.bin.b)) continue;
      /* x % M // c * (k*c) + x % c * k -> x % M * k where c | M (floor: x % c
       * is (x % M) % c), as TVM's canonical form merges a split */
      int64_t big;
      tir_expr *y = q->u.bin.a;
      bool nested = m->kind == TIR_FLOORMOD && c > 0 && y->kind == TIR_FLOORMOD &&
                    tir_is_const_int(y->u.bin.b, &big) && big > 0 && big % c == 0 &&
                    ana_expr_equal(y->u.bin.a, m->u.bin.a);
      bool same = nested || ana_expr_equal(y, m->u.bin.a);
      /* y//c*(k*c) + z%c*k -> y*k where y - z is a multiple of c (floor:
       * z % c is y % c; the mod's coefficients reduced mod c first,
       * (b*1024 + t) % 129 read as (b*121 + t) % 129) */
      if (!same && m->kind == TIR_FLOORMOD && c > 0 && tir_dtype_eq(y->dtype, m->u.bin.a->dtype)) {
        lin d;
        lin_init(&d, y->dtype);
        lin_decompose(&d, y, 1);
        lin_decompose(&d, m->u.bin.a, -1);
        same = !d.bad && d.base % c == 0;
        for (int t = 0; t < d.n && same; t++) same = d.t[t].k % c == 0;
        lin_free(&d);
      }
      if (!same) continue;
      int64_t k = l->t[i].k;
      tir_expr *x = y;
      lin_remove(l, i > j ? i : j);
      lin_remove(l, i > j ? j : i);
      lin_decompose(l, x, k);
      return true;
    }
  }
  return false;
}

/* max(x, y)*k + min(x, y)*k -> x*k + y*k */
static bool fuse_minmax(lin *l) {
  for (int i = 0; i < l->n; i++) {
    tir_expr *m = l->t[i].atom;
    if (m->kind != TIR_MAX || !l->t[i].k) continue;
    for (int j = 0; j < l->n; j++) {
      tir_expr *n = l->t[j].atom;
      if (n->kind != TIR_MIN || l->t[j].k != l->t[i].k) continue;
      bool same = (ana_expr_equal(m->u.bin.a, n->u.bin.a) && ana_expr_equal(m->u.bin.b, n->u.bin.b)) ||
                  (ana_expr_equal(m->u.bin.a, n->u.bin.b) && ana_expr_equal(m->u.bin.b, n->u.bin.a));
      if (!same) continue;
      int64_t k = l->t[i].k;
      l->t[i].k = l->t[j].k = 0;
      lin_decompose(l, m->u.bin.a, k);
      lin_decompose(l, m->u.bin.b, k);
      return true;
    }
  }
  return false;
}

/* v and -v are values of t (v is not its minimum) */
static bool fits_negated(tir_dtype t, int64_t v) { return v != INT64_MIN && ana_fits(t, v) && ana_fits(t, -v); }

/* the terms in TVM's order: the new ones regrouped, then a stable sort by
 * decreasing coefficient, then by the split (x // 8 before x, y before
 * y % 4) */
static void lin_sort(lin *l) {
  for (int i = 1; i < l->n; i++) {
    term t = l->t[i];
    int j = i;
    while (j > 0 && term_order(&l->t[j - 1], &t) > 0) {
      l->t[j] = l->t[j - 1];
      j--;
    }
    l->t[j] = t;
  }
}

static void lin_order(lin *l) {
  lin_regroup(l);
  lin_sort(l);
  /* TVM's analyzer simplifies twice: its second canonical pass reads the
   * sum as the first printed it (the positive terms, then the negative
   * ones) and groups the splits of one index again, so x // 8 + w + x + y
   * is x // 8 + x + w + y */
  if (l->n < 2) {
    l->nsorted = l->n;
    return;
  }
  lin o;
  lin_init(&o, l->dt);
  minmax_front(l, &o);
  int m = o.n;
  for (int i = 0; i < l->n; i++)
    if (l->t[i].k == 0) o.t[m++] = l->t[i];
  memcpy(l->t, o.t, sizeof *o.t * (size_t)m);
  lin_free(&o);
  l->nsorted = 0;
  lin_regroup(l);
  lin_sort(l);
  l->nsorted = l->n;
}

static void lin_normalize(lin *l) {
  while (!l->bad && (fuse_divmod(l) || fuse_minmax(l))) {}
  int n = 0, ns = 0;
  for (int i = 0; i < l->n; i++)
    if (l->t[i].k != 0) {
      l->t[n++] = l->t[i];
      if (i < l->nsorted) ns++;
    }
  l->n = n;
  l->nsorted = ns;
  lin_order(l);
  /* every constant printed is a value of the dtype: a coefficient or base
   * and, where it is printed negated (`x - k`), its negation */
  for (int i = 0; i < l->n && !l->bad; i++)
    if (!fits_negated(l->dt, l->t[i].k)) l->bad = true;
  if (!fits_negated(l->dt, l->base)) l->bad = true;
}

static tir_expr *term_expr(tir_analyzer *a, const lin *l, tir_expr *atom, int64_t k) {
  if (k == 1) return atom;
  return tir_binary(a->c, TIR_MUL, atom, tir_int(a->c, l->dt, k));
}

static bool is_minmax_term(const term *t) { return t->k == 1 && is_minmax(t->atom); }

static tir_expr *lin_print(tir_analyzer *a, const lin *l);

/* l's terms into o (initialized, empty) in the order TVM's rewrite leaves
 * a sum: the positive terms, each min/max after the first moved to the
 * front, then the negative ones; not sorted */
static void minmax_front(const lin *l, lin *o) {
  o->t = malloc(sizeof *o->t * (size_t)(l->n ? l->n : 1));
  if (!o->t) abort();
  o->cap = l->n;
  for (int i = 0; i < l->n; i++) {
    if (l->t[i].k <= 0) continue;
    bool lone = o->n == 1 && is_minmax_term(&o->t[0]);
    if (o->n > 0 && is_minmax_term(&l->t[i]) && !lone) {
      memmove(&o->t[1], &o->t[0], sizeof *o->t * (size_t)o->n);
      o->t[0] = l->t[i];
    } else {
      o->t[o->n] = l->t[i];
    }
    o->n++;
  }
  for (int i = 0; i < l->n; i++)
    if (l->t[i].k < 0) o->t[o->n++] = l->t[i];
  o->base = l->base;
}

/* l printed.  TVM's simplifier rewrites x + min(y, z) to min(y, z) + x
 * (where x is no min/max itself) and puts the sum in canonical order again:
 * a min/max term of its printed sum comes before the others of its order,
 * the later ones first (x + max(y, z) is max(y, z) + x; x + min(u, v) +
 * max(y, z) is max(y, z) + min(u, v) + x, min(u, v) + max(y, z) + x stays) */
static tir_expr *lin_to_expr(tir_analyzer *a, const lin *l) {
  int nmm = 0, npos = 0;
  for (int i = 0; i < l->n; i++) {
    nmm += is_minmax_term(&l->t[i]) && npos > 0;
    npos += l->t[i].k > 0;
  }
  if (a->canon || !nmm) return lin_print(a, l);
  lin o;
  lin_init(&o, l->dt);
  minmax_front(l, &o);
  lin_order(&o);
  tir_expr *r = lin_print(a, &o);
  lin_free(&o);
  return r;
}

/* a floordiv of a sum (x + z) // 16, (0 - x) // 16: TVM's canonical form
 * reads it as a sum, and prints it negated as 0 - (x + z) // 16 * 3 where
 * it prints x // 16 * -3 */
static bool sum_div(const tir_expr *e) {
  return e->kind == TIR_FLOORDIV && (e->u.bin.a->kind == TIR_ADD || e->u.bin.a->kind == TIR_SUB);
}

static tir_expr *lin_print(tir_analyzer *a, const lin *l) {
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
  /* a lone negative term: y * -2, but 0 - y (TVM's rewrite turns 0 - y * 2
   * into y * -2 and keeps 0 - y); -(x % -3) is x % -3 * -1, as TVM's
   * rewrite of (0 - x) % 3 writes it; a floordiv of a sum stays in a sum,
   * 0 - (x + z) // 16 * 3, as TVM's canonical form makes it one */
  if (!npos && nneg == 1 && l->base == 0) {
    const term *lone = &l->t[l->n - 1];
    int64_t d;
    if (sum_div(lone->atom)) {
    } else if (lone->k != -1 ||
               (lone->atom->kind == TIR_FLOORMOD && tir_is_const_int(lone->atom->u.bin.b, &d) && d < 0))
      return term_expr(a, l, lone->atom, lone->k);
  }
  /* the constant last where negative: 0 - y - 4, as TVM's canonical form
   * writes a sum of no positive term */
  if (l->base > 0 || (!npos && !nneg)) {
    tir_expr *b = tir_int(c, l->dt, l->base);
    res = res ? tir_binary(c, TIR_ADD, res, b) : b;
  }
  for (int i = 0; i < l->n; i++) {
    if (l->t[i].k >= 0) continue;
    tir_expr *t = term_expr(a, l, l->t[i].atom, -l->t[i].k);
    res = tir_binary(c, TIR_SUB, res ? res : tir_int(c, l->dt, 0), t);
  }
  if (l->base < 0 && (npos || nneg)) res = tir_binary(c, TIR_SUB, res, tir_int(c, l->dt, -l->base));
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
  case TIR_MIN: *r = y < x ? y : x; return true; /* as TVM's fold: -0.0 and 0.0 give the first */
  case TIR_MAX: *r = x < y ? y : x; return true;
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
    int64_t r, p = x->u.int_val, q = y->u.int_val;
    bool wrap = false;
    if (x->dtype.code == TIR_TC_UINT && x->dtype.bits == 64 && (p < 0 || q < 0)) {
      /* uint64 constants past INT64_MAX are held as negative int64: their
       * division, remainder, min, max and comparisons are unsigned */
      uint64_t u = (uint64_t)p, v = (uint64_t)q;
      switch (k) {
      case TIR_DIV: case TIR_FLOORDIV: if (v) return tir_int(c, x->dtype, (int64_t)(u / v)); break;
      case TIR_MOD: case TIR_FLOORMOD: if (v) return tir_int(c, x->dtype, (int64_t)(u % v)); break;
      case TIR_MIN: return tir_int(c, x->dtype, (int64_t)(u < v ? u : v));
      case TIR_MAX: return tir_int(c, x->dtype, (int64_t)(u > v ? u : v));
      case TIR_LT: return tir_bool(c, u < v);
      case TIR_LE: return tir_bool(c, u <= v);
      case TIR_GT: return tir_bool(c, u > v);
      case TIR_GE: return tir_bool(c, u >= v);
      case TIR_EQ: return tir_bool(c, u == v);
      case TIR_NE: return tir_bool(c, u != v);
      case TIR_ADD: return tir_int(c, x->dtype, (int64_t)(u + v));
      case TIR_SUB: return tir_int(c, x->dtype, (int64_t)(u - v));
      case TIR_MUL: return tir_int(c, x->dtype, (int64_t)(u * v));
      default: break;
      }
      return tir_binary(c, k, x, y);
    }
    if (fold_int(k, p, q, &r)) {
      if (TIR_IS_CMP(k) || k == TIR_AND || k == TIR_OR) return tir_bool(c, r != 0);
      if (ana_fits(x->dtype, r)) return tir_int(c, x->dtype, r);
      wrap = tir_dtype_is_int(x->dtype);
    } else if (tir_dtype_is_int(x->dtype) && (k == TIR_ADD || k == TIR_SUB || k == TIR_MUL)) {
      r = (int64_t)(k == TIR_ADD ? (uint64_t)p + (uint64_t)q
                                 : k == TIR_SUB ? (uint64_t)p - (uint64_t)q : (uint64_t)p * (uint64_t)q);
      wrap = true;
    } else if (tir_dtype_is_int(x->dtype) && p == INT64_MIN && q == -1 && k != TIR_MIN && k != TIR_MAX) {
      r = k == TIR_MOD || k == TIR_FLOORMOD ? 0 : INT64_MIN; /* the quotient 2^63 wraps */
      wrap = true;
    }
    if (wrap) { /* out of the dtype's range: two's complement in its width, as TVM folds (and the reader) */
      int bits = x->dtype.bits;
      if (bits < 64) {
        uint64_t m = (1ull << bits) - 1, u = (uint64_t)r & m;
        if (x->dtype.code == TIR_TC_INT && (u >> (bits - 1))) u |= ~m;
        r = (int64_t)u;
      }
      return tir_int(c, x->dtype, r);
    }
  }
  /* float32 folds as float32 arithmetic (as TVM folds it, and as the
   * kernel computes it): the operands rounded to float first (a literal
   * keeps the double it was written as), the result rounded (past
   * FLT_MAX: inf).  float16 and bfloat16 are not folded: their arithmetic
   * is not double's rounded once. */
  if (x->kind == TIR_FLOAT_IMM && y->kind == TIR_FLOAT_IMM && tir_dtype_eq(x->dtype, y->dtype) &&
      x->dtype.code == TIR_TC_FLOAT && (x->dtype.bits == 32 || x->dtype.bits == 64)) {
    double r, p = x->u.float_val, q = y->u.float_val;
    bool isb;
    if (x->dtype.bits == 32) p = (double)(float)p, q = (double)(float)q;
    if (fold_float(k, p, q, &r, &isb)) {
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
  /* x - x is 0 in every integer width, wrapping or not (TVM folds it for
   * int8 and uint8 alike) */
  if (e->kind == TIR_SUB && x->dtype.lanes == 1 && tir_dtype_is_int(x->dtype) && !tir_dtype_is_bool(x->dtype) &&
      ana_expr_equal(x, y))
    return tir_int(a->c, e->dtype, 0);
  if (x == e->u.bin.a && y == e->u.bin.b && !(ix && iy)) return e;
  return ana_make_bin(a, e->kind, x, y);
}

/* + - * of index vectors built of ramps and broadcasts, as TVM's rewrite
 * simplifier folds them: Broadcast(x, n) + Ramp(b, s, n) is Ramp(x + b, s,
 * n), Ramp(b, s, n) * Broadcast(c, n) is Ramp(b * c, s * c, n), two
 * broadcasts one broadcast; NULL where no rule applies */
static tir_expr *simp_vec(tir_analyzer *a, tir_expr_kind k, tir_expr *x, tir_expr *y) {
  int n = x->dtype.lanes;
  if (tir_dtype_is_scalable(x->dtype) || !tir_dtype_is_int(x->dtype)) return NULL;
  bool bx = x->kind == TIR_BROADCAST, by = y->kind == TIR_BROADCAST;
  bool rx = x->kind == TIR_RAMP, ry = y->kind == TIR_RAMP;
  tir_ctx *c = a->c;
  if (bx && by) return tir_broadcast(c, simp(a, tir_binary(c, k, x->u.bcast.value, y->u.bcast.value)), n);
  if (k == TIR_MUL) {
    const tir_expr *r = rx && by ? x : ry && bx ? y : NULL, *m = r == x ? y : x;
    if (!r) return NULL;
    tir_expr *v = m->u.bcast.value;
    return tir_ramp(c, simp(a, tir_binary(c, TIR_MUL, r->u.ramp.base, v)),
                    simp(a, tir_binary(c, TIR_MUL, r->u.ramp.stride, v)), n);
  }
  if (rx && (by || ry)) {
    tir_expr *b = by ? y->u.bcast.value : y->u.ramp.base;
    tir_expr *s = by ? x->u.ramp.stride : simp(a, tir_binary(c, k, x->u.ramp.stride, y->u.ramp.stride));
    return tir_ramp(c, simp(a, tir_binary(c, k, x->u.ramp.base, b)), s, n);
  }
  if (bx && ry) {
    tir_expr *s = y->u.ramp.stride;
    if (k == TIR_SUB) s = simp(a, tir_binary(c, TIR_SUB, tir_int(c, s->dtype, 0), s));
    return tir_ramp(c, simp(a, tir_binary(c, k, x->u.bcast.value, y->u.ramp.base)), s, n);
  }
  return NULL;
}

/* x*k - x//c*(k*c) -> x%c*k, floor and trunc alike, where every term of
 * x*k is in l (y + x - (y + x) // 3 * 3 is (y + x) % 3, as in TVM); true
 * when l changed (then normalize it again) */
static bool fuse_mod(tir_analyzer *a, lin *l) {
  for (int i = 0; i < l->n; i++) {
    tir_expr *q = l->t[i].atom;
    int64_t c, k = l->t[i].k;
    if ((q->kind != TIR_FLOORDIV && q->kind != TIR_DIV) || !tir_dtype_eq(q->dtype, l->dt)) continue;
    if (!tir_is_const_int(q->u.bin.b, &c) || c <= 0 || !k || k % c != 0) continue;
    k = -(k / c);
    lin x;
    lin_init(&x, l->dt);
    lin_decompose(&x, q->u.bin.a, 1);
    lin_normalize(&x);
    bool all = !x.bad && x.n > 0;
    int64_t xk;
    for (int j = 0; j < x.n && all; j++) {
      int m = 0;
      while (m < l->n && (m == i || !ana_expr_equal(l->t[m].atom, x.t[j].atom))) m++;
      all = m < l->n && mul_ok(x.t[j].k, k, &xk) && l->t[m].k == xk;
    }
    if (all) {
      tir_expr_kind mk = q->kind == TIR_FLOORDIV ? TIR_FLOORMOD : TIR_MOD;
      tir_expr *mod = div_by_const(a, mk, &x, c, 1);
      if (!mod) mod = tir_binary(a->c, mk, q->u.bin.a, q->u.bin.b);
      lin_decompose(l, q->u.bin.a, -k); /* the terms of x*k cancel */
      l->t[i].k = 0;
      lin_decompose(l, mod, k);
    }
    lin_free(&x);
    if (all) return true;
  }
  return false;
}

/* x//M*(k*M/c) + x%M//c*k -> x//c*k where c | M (floor: x//c is
 * x//M*(M/c) + (x%M)//c), as TVM's canonical form merges a split; true when
 * l changed */
static bool fuse_div_split(tir_analyzer *a, lin *l) {
  for (int i = 0; i < l->n; i++) {
    tir_expr *q = l->t[i].atom, *y;
    int64_t c, big, k = l->t[i].k, kk;
    if (q->kind != TIR_FLOORDIV || !k || !tir_is_const_int(q->u.bin.b, &c) || c <= 0) continue;
    y = q->u.bin.a;
    if (y->kind != TIR_FLOORMOD || !tir_is_const_int(y->u.bin.b, &big) || big <= 0 || big % c != 0) continue;
    if (!mul_ok(k, big / c, &kk)) continue;
    for (int j = 0; j < l->n; j++) {
      tir_expr *p = l->t[j].atom;
      int64_t m;
      if (j == i || p->kind != TIR_FLOORDIV || l->t[j].k != kk || !tir_is_const_int(p->u.bin.b, &m) || m != big ||
          !ana_expr_equal(p->u.bin.a, y->u.bin.a))
        continue;
      l->t[i].k = l->t[j].k = 0;
      lin_decompose(l, ana_make_bin(a, TIR_FLOORDIV, y->u.bin.a, q->u.bin.b), k);
      return true;
    }
  }
  return false;
}


/* the terms of a sum as written (Add, Sub and products by constants of its
 * dtype), not merged: atoms into *ts (grown), their coefficients into *ks,
 * the constants into *base; false on overflow */
typedef struct lean_terms {
  const tir_expr **atom;
  int64_t *k;
  int n, cap;
  int64_t base;
} lean_terms;

static bool lean_collect(const tir_expr *e, int64_t k, tir_dtype dt, lean_terms *t) {
  int64_t c, kc;
  if (tir_dtype_eq(e->dtype, dt)) {
    if (tir_is_const_int(e, &c)) return mul_ok(c, k, &kc) && !__builtin_add_overflow(t->base, kc, &t->base);
    if (is_sum(e))
      return lean_collect(e->u.bin.a, k, dt, t) && lean_collect(e->u.bin.b, e->kind == TIR_SUB ? -k : k, dt, t);
    if (e->kind == TIR_MUL && tir_is_const_int(e->u.bin.b, &c))
      return mul_ok(c, k, &kc) && lean_collect(e->u.bin.a, kc, dt, t);
    if (e->kind == TIR_MUL && tir_is_const_int(e->u.bin.a, &c))
      return mul_ok(c, k, &kc) && lean_collect(e->u.bin.b, kc, dt, t);
  }
  if (t->n == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 8;
    t->atom = realloc(t->atom, sizeof *t->atom * (size_t)t->cap);
    t->k = realloc(t->k, sizeof *t->k * (size_t)t->cap);
    if (!t->atom || !t->k) abort();
  }
  t->atom[t->n] = e;
  t->k[t->n++] = k;
  return true;
}

/* the size of e were each of its sums spelled the shortest way its terms
 * allow: a common factor of the coefficients taken out ((x + y) * 4 for
 * x * 4 + y * 4) and a negative constant first (-4 - y for 0 - y - 4).
 * TVM's canonical form spells a sum distributed, its constant last; the
 * size guards measure by this size too, so a result is not refused for
 * being TVM's spelling of what is no larger */
static bool lean_sum_like(const tir_expr *e) {
  int64_t c;
  return ana_is_index_type(e->dtype) &&
         (is_sum(e) || (e->kind == TIR_MUL && (tir_is_const_int(e->u.bin.a, &c) || tir_is_const_int(e->u.bin.b, &c))));
}

/* ana_lean_size of sign * e, e a sum or a product by a constant; -1 on
 * overflow */
static int lean_sum(const tir_expr *e, int64_t sign) {
  lean_terms t = {0};
  int size = -1;
  if (lean_collect(e, sign, e->dtype, &t)) {
    int64_t g = t.base == INT64_MIN ? 1 : (t.base < 0 ? -t.base : t.base);
    bool neg = t.base <= 0;
    for (int i = 0; i < t.n; i++) {
      if (t.k[i] == INT64_MIN) g = 1;
      else g = ana_gcd(g, t.k[i] < 0 ? -t.k[i] : t.k[i]);
      neg = neg && t.k[i] < 0;
    }
    if (g == 0) g = 1;
    int items = 0;
    size = 0;
    for (int i = 0; i < t.n; i++) {
      if (!t.k[i]) continue;
      size += ana_lean_size(t.atom[i]) + (t.k[i] / g == 1 || t.k[i] / g == -1 ? 0 : 2);
      items++;
    }
    if (t.base / g) size++, items++;
    /* the factor, and a leading 0 where every term is negative and no
     * constant leads (0 - y - x, or (y + x) * -1) */
    if (!items) size = 1;
    else size += items - 1 + (g != 1 || (neg && t.base == 0) ? 2 : 0);
  }
  free(t.atom);
  free(t.k);
  return size;
}

int ana_lean_size(const tir_expr *e) {
  if (!e) return 0;
  int64_t c;
  if (lean_sum_like(e)) {
    int size = lean_sum(e, 1);
    if (size >= 0) return size;
  }
  /* x // c is (-x) // -c: (0 - x) // 3 is as long as x // -3 */
  if (e->kind == TIR_FLOORDIV && tir_is_const_int(e->u.bin.b, &c) && c != INT64_MIN && lean_sum_like(e->u.bin.a)) {
    int s1 = lean_sum(e->u.bin.a, 1), s2 = lean_sum(e->u.bin.a, -1);
    if (s1 >= 0 && s2 >= 0) return 2 + (s1 < s2 ? s1 : s2);
  }
  return ana_size_of(e, ana_lean_size);
}

/* r is larger than e, in nodes and in nodes spelled shortest */
static bool grows(const tir_expr *r, const tir_expr *e) {
  return ana_expr_size(r) > ana_expr_size(e) && ana_lean_size(r) > ana_lean_size(e);
}

/* a sum root: read into a linear form and print it back */
/* a tree of int constants and arithmetic only (no var, no load) */
static bool var_free(const tir_expr *e) {
  switch (e->kind) {
  case TIR_INT_IMM: return true;
  case TIR_ADD:
  case TIR_SUB:
  case TIR_MUL:
  case TIR_FLOORDIV:
  case TIR_FLOORMOD:
  case TIR_MIN:
  case TIR_MAX: return var_free(e->u.bin.a) && var_free(e->u.bin.b);
  default: return false;
  }
}

static bool folds_to_zero(tir_analyzer *a, tir_expr *e) {
  int64_t c;
  return var_free(e) && tir_is_const_int(simp(a, e), &c) && c == 0;
}

/* e as TVM's rewrite simplifier hands it to its canonical form: an
 * addition of a constant tree that folds to 0 is its other operand (x * -1
 * + 9 % 1 is x * -1, a product; (12 // 16 + x // 8) * -1 a product of x //
 * 8), a subtraction of one its first */
static tir_expr *tvm_peel(tir_analyzer *a, tir_expr *e) {
  for (;;) {
    if (is_sum(e) && folds_to_zero(a, e->u.bin.b)) e = e->u.bin.a;
    else if (e->kind == TIR_ADD && folds_to_zero(a, e->u.bin.a)) e = e->u.bin.b;
    else return e;
  }
}

/* r, a lone negation 0 - X of e simplified, spelled X * -1 where TVM's
 * canonical form reads e as a product (a SplitExpr: a product, floordiv or
 * floormod of no sum), 0 - X where as a sum */
static tir_expr *negation_as_product(tir_analyzer *a, tir_expr *e, tir_expr *r) {
  int64_t c;
  if (!r || r->kind != TIR_SUB || !tir_is_const_int(r->u.bin.a, &c) || c != 0) return r;
  tir_expr *p = tvm_peel(a, e);
  bool prod = false;
  if (p->kind == TIR_MUL) prod = !is_sum(tvm_peel(a, p->u.bin.a)) && !is_sum(tvm_peel(a, p->u.bin.b));
  else if (p->kind == TIR_FLOORDIV || p->kind == TIR_FLOORMOD) prod = !is_sum(tvm_peel(a, p->u.bin.a));
  if (!prod || sum_div(r->u.bin.b) || (r->u.bin.b->kind == TIR_MUL && sum_div(r->u.bin.b->u.bin.a))) return r;
  return tir_binary(a->c, TIR_MUL, r->u.bin.b, tir_int(a->c, e->dtype, -1));
}

static tir_expr *simp_linear(tir_analyzer *a, tir_expr *e) {
  lin l;
  lin_init(&l, e->dtype);
  lin_from(a, &l, e, 1);
  tir_expr *r = NULL;
  if (!l.bad) lin_normalize(&l);
  for (int n = 0; n < 4 && !l.bad && (fuse_mod(a, &l) || fuse_div_split(a, &l)); n++) lin_normalize(&l);
  if (!l.bad) r = absorb_minmax(a, &l);
  if (!l.bad && !r) r = lin_to_expr(a, &l);
  /* y * -1 stays a product where it was one (TVM's canonical form prints
   * a product of no sum as a product, a sum as a sum: 0 - y) */
  if (!a->canon) r = negation_as_product(a, e, r);
  lin_free(&l);
  if (!r || (!a->canon && grows(r, e))) r = simp_shallow(a, e);
  return r;
}

/* the factors of a product, nested products flattened: the non-constant
 * ones in written order into fs (at most nmax), the constants multiplied
 * into *k; false on overflow or too many factors */
static bool mul_factors(tir_analyzer *a, tir_expr *e, bool simplify, tir_expr **fs, int *n, int nmax, int64_t *k) {
  if (e->kind == TIR_MUL)
    return mul_factors(a, e->u.bin.a, simplify, fs, n, nmax, k) && mul_factors(a, e->u.bin.b, simplify, fs, n, nmax, k);
  tir_expr *s = simplify ? simp(a, e) : e;
  int64_t c;
  if (tir_is_const_int(s, &c)) return mul_ok(*k, c, k);
  if (s->kind == TIR_MUL && s != e) return mul_factors(a, s, false, fs, n, nmax, k);
  if (*n == nmax) return false;
  fs[(*n)++] = s;
  return true;
}

/* x * y, neither a constant: as TVM writes products, the factors in the
 * order written and the constants last (i * (m * 4) is i * m * 4); products
 * that differ only in the order of their factors are the same atom */
static tir_expr *simp_mul(tir_analyzer *a, tir_expr *e) {
  tir_expr *fs[32];
  int n = 0;
  int64_t k = 1;
  if (!mul_factors(a, e, true, fs, &n, 32, &k) || !ana_fits(e->dtype, k)) {
    tir_expr *x = simp(a, e->u.bin.a), *y = simp(a, e->u.bin.b);
    return x == e->u.bin.a && y == e->u.bin.b ? e : tir_binary(a->c, TIR_MUL, x, y);
  }
  tir_expr *p = NULL;
  for (int i = 0; i < n; i++) p = p ? tir_binary(a->c, TIR_MUL, p, fs[i]) : fs[i];
  if (!p) return tir_int(a->c, e->dtype, k);
  if (k == 1) return p;
  return tir_binary(a->c, TIR_MUL, p, tir_int(a->c, e->dtype, k));
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

/* no constant and every term negative: -r reads better (x // -c, not
 * x * -1 // c) */
static bool lin_all_neg(const lin *l) {
  if (!l->n || l->base != 0) return false;
  for (int i = 0; i < l->n; i++)
    if (l->t[i].k >= 0 || l->t[i].k == INT64_MIN) return false;
  return true;
}

static void lin_negate(lin *l) {
  for (int i = 0; i < l->n; i++) l->t[i].k = -l->t[i].k;
  l->base = -l->base;
}

static tir_expr *smaller(tir_expr *best, tir_expr *cand) {
  if (!best) return cand;
  if (!cand) return best;
  return ana_expr_size(cand) < ana_expr_size(best) ? cand : best;
}

static tir_expr *div_by_const(tir_analyzer *a, tir_expr_kind kind, lin *la, int64_t c, int depth);

/* r // c (r not decided by bounds): gcd reduction and nested division;
 * (-r) // c is written r // -c */
static tir_expr *floordiv_atom(tir_analyzer *a, lin *r, int64_t c) {
  int64_t g = lin_gcd(r, c);
  /* the common factor comes out where that leaves every term bare ((x*2 +
   * 2) // 4 is (x + 1) // 2, (x*4 + y*4) // 8 is (x + y) // 2, as TVM's
   * rewrite has it); elsewhere TVM keeps it ((x*4 + 20) // 6, (x*32 + y*4)
   * // 56) */
  bool bare = r->n > 0;
  for (int i = 0; i < r->n; i++) bare &= r->t[i].k == g || r->t[i].k == -g;
  if (bare) {
    lin_div_exact(r, g);
    c /= g;
  }
  /* a sum of negative terms stays, as TVM's canonical form keeps it ((0 -
   * x) // 3, (0 - x * 3 - w * 16) // 6) */
  if (lin_all_neg(r) && r->prod) {
    /* a product: -r // -c where that is smaller, TVM's r // c where it is
     * not (x * -1 // 2 is x // -2, z * -3 // 16 stays) */
    tir_expr *same = tir_binary(a->c, TIR_FLOORDIV, lin_to_expr(a, r), tir_int(a->c, r->dt, c));
    lin_negate(r);
    return smaller(same, tir_binary(a->c, TIR_FLOORDIV, lin_to_expr(a, r), tir_int(a->c, r->dt, -c)));
  }
  int64_t c1, cc;
  if (r->n == 1 && r->t[0].k == 1 && r->base == 0 && r->t[0].atom->kind == TIR_FLOORDIV &&
      tir_is_const_int(r->t[0].atom->u.bin.b, &c1) && c1 != 0 && mul_ok(c1, c, &cc) && ana_fits(r->dt, cc)) {
    /* the merged division divided again as written: its dividend may be a
     * product that c1 * c takes in (x * -3 // 8 // 6 is x * -3 // 48, that
     * is x // -16, as TVM has it); the dividend is simplified and smaller
     * than the merged one, so this ends */
    tir_expr *merged = tir_binary(a->c, TIR_FLOORDIV, r->t[0].atom->u.bin.a, tir_int(a->c, r->dt, cc));
    tir_expr *again = simp_div(a, merged);
    return again && ana_expr_size(again) <= ana_expr_size(merged) ? again : merged;
  }
  return tir_binary(a->c, TIR_FLOORDIV, lin_to_expr(a, r), tir_int(a->c, r->dt, c));
}

/* a coefficient of r % c may move by multiples of c.  how: 0 keeps it, 1
 * takes the residue in [0, c) where that is smaller (or the same size and
 * the coefficient negative), 2 always takes the residue, 3 the residue in
 * (-c/2, c/2] */
static void mod_reduce_coeffs(lin *r, int64_t c, int how) {
  for (int i = 0; i < r->n && how; i++) {
    int64_t k = r->t[i].k, k2 = ana_floormod(k, c);
    if (k == INT64_MIN) continue;
    int64_t ak = k < 0 ? -k : k;
    if (how == 3 && c - k2 < k2) k2 -= c; /* the residue nearest 0 */
    int64_t a2 = k2 < 0 ? -k2 : k2;
    if (k2 != 0 && (how >= 2 || a2 < ak || (a2 == ak && k < 0))) r->t[i].k = k2;
  }
}

/* one way to write r % c as coef * atom */
static tir_expr *mod_variant(tir_analyzer *a, const lin *r0, int64_t c, int how, bool gcd, bool neg,
                             tir_expr **atom, int64_t *coef) {
  lin r;
  lin_copy(&r, r0);
  mod_reduce_coeffs(&r, c, how);
  /* a coefficient that grew (-3 -> 4094 for % 4097) can overflow the
   * dividend where the program did not, and a wrapped dividend has another
   * residue: only where its bounds stay in the dtype (found by bigdeep.py
   * seed 20261128 #7815) */
  bool grew = false;
  for (int i = 0; i < r.n && i < r0->n; i++) {
    int64_t k0 = r0->t[i].k, k1 = r.t[i].k;
    if (k1 != k0 && (k1 < 0 ? -(uint64_t)k1 : (uint64_t)k1) > (k0 < 0 ? -(uint64_t)k0 : (uint64_t)k0)) grew = true;
  }
  if (grew) {
    int64_t lo, hi;
    lin_bound(a, &r, &lo, &hi);
    int bits = r.dt.bits < 64 ? r.dt.bits : 64;
    int64_t top = bits == 64 ? INT64_MAX : (int64_t)((1ull << (bits - 1)) - 1), bot = -top - 1;
    if (lo == INT64_MIN || hi == INT64_MAX || lo < bot || hi > top) {
      lin_free(&r);
      return NULL;
    }
  }
  int64_t g = gcd ? lin_gcd(&r, c) : 1;
  lin_div_exact(&r, g);
  c /= g;
  tir_expr *res = NULL;
  if (neg) {
    if (lin_all_neg(&r)) {
      lin_negate(&r);
      *atom = tir_binary(a->c, TIR_FLOORMOD, lin_to_expr(a, &r), tir_int(a->c, r.dt, -c));
      *coef = -g;
      res = term_expr(a, &r, *atom, *coef);
    }
  } else {
    int64_t c1;
    if (r.n == 1 && r.t[0].k == 1 && r.base == 0 && r.t[0].atom->kind == TIR_FLOORMOD &&
        tir_is_const_int(r.t[0].atom->u.bin.b, &c1) && c1 != 0 && c1 % c == 0)
      *atom = tir_binary(a->c, TIR_FLOORMOD, r.t[0].atom->u.bin.a, tir_int(a->c, r.dt, c));
    else
      *atom = tir_binary(a->c, TIR_FLOORMOD, lin_to_expr(a, &r), tir_int(a->c, r.dt, c));
    *coef = g;
    res = term_expr(a, &r, *atom, g);
  }
  lin_free(&r);
  return res;
}

/* r % c (r not decided by bounds), the smallest of its forms (reduced
 * coefficients, a common factor out, (-r) % c as -(r % -c)); added to out */
static bool tvm_factor(const lin *A, int64_t *f);

static void floormod_atom(tir_analyzer *a, lin *r, int64_t c, lin *out) {
  tir_expr *best = NULL, *batom = NULL;
  int64_t bcoef = 1;
  /* ties go to TVM's form: a lone product's coefficient reduced to its
   * residue (w * 32 % 3 is w * 2 % 3), a sum's coefficients kept
   * ((y - w * 16) % 6, (f * 1024 + t) % 129) */
  static const int lone[4] = {2, 1, 0, 3}, lone_div[4] = {0, 2, 1, 3}, sum[4] = {0, 1, 2, 3};
  const int *hows = sum;
  /* a lone product's coefficient to its residue in [0, c) (x * -3 % 8 is x
   * * 5 % 8), but a negative one that divides c is kept, its sign taken
   * out with the divisor's (x * -3 % 6 is x % -2 * -3), as TVM writes them */
  if (r->n == 1 && r->base == 0)
    hows = r->t[0].k < 0 && r->t[0].k != INT64_MIN && c % -r->t[0].k == 0 ? lone_div : lone;
  /* the smallest with the common factor out and without it: a sum keeps it
   * in where that is no longer spelled shortest ((x * 8 + w * 8) % 32, (y *
   * 2 + 2) % 6, as TVM keeps them), a lone product takes it out (z * 2 % 8
   * is z % 4 * 2) */
  tir_expr *bests[2] = {NULL, NULL}, *batoms[2] = {NULL, NULL};
  int64_t bcoefs[2] = {1, 1};
  /* a sum of negative terms keeps its signs inside on a tie, ((0 - x - y)
   * % 8, as TVM's canonical form writes a SumExpr's floormod; was (x + y) %
   * -8 * -1); a lone product takes the sign out (x % -8 * -1) */
  bool sum_r = r->n > 1 || (r->n == 1 && r->base != 0);
  for (int h = 0; h < 4; h++)
    for (int gi = 0; gi < 2; gi++)
      for (int nn = 0; nn < 2; nn++) {
        int ni = sum_r ? 1 - nn : nn;
        tir_expr *atom;
        int64_t coef;
        tir_expr *v = mod_variant(a, r, c, hows[h], gi == 0, ni == 0, &atom, &coef);
        if (v && (!best || ana_expr_size(v) < ana_expr_size(best))) {
          best = v;
          batom = atom;
          bcoef = coef;
        }
        if (v && (!bests[gi] || ana_expr_size(v) < ana_expr_size(bests[gi]))) {
          bests[gi] = v;
          batoms[gi] = atom;
          bcoefs[gi] = coef;
        }
      }
  if (sum_r && bests[1] && (!bests[0] || ana_lean_size(bests[1]) <= ana_lean_size(bests[0]))) {
    batom = batoms[1];
    bcoef = bcoefs[1];
  }
  /* a sum of no constant whose coefficients are all +-g is (A / f) * f for
   * TVM's rewrite (tvm_factor: f = -g where no term is positive), and its
   * floormod(x * c1, c2) is x * (c1 mod c2) % c2, the sum then distributed:
   * (y * 16 + z * 16) % 6 is (y * 4 + z * 4) % 6, (y * 8 - z * 8) % 6 is
   * (y * 2 - z * 2) % 6, (0 - y * 2 - z * 2) % 6 is (y * 4 + z * 4) % 6.
   * Exact: f * (A / f) and (f mod c) * (A / f) differ by a multiple of c;
   * taken where no larger, and where a coefficient grows only while the
   * dividend's bounds stay in the dtype (as mod_variant) */
  int64_t f;
  if (r->n >= 2 && r->base == 0 && batom && tvm_factor(r, &f) && c > 0) {
    int64_t rf = ana_floormod(f, c);
    lin T;
    lin_init(&T, r->dt);
    bool grew = false;
    for (int i = 0; i < r->n; i++) {
      int64_t k = r->t[i].k / f * rf;
      grew |= (k < 0 ? -k : k) > (r->t[i].k < 0 ? -r->t[i].k : r->t[i].k);
      lin_add_atom(&T, r->t[i].atom, k);
    }
    if (grew) {
      int64_t lo, hi;
      lin_bound(a, &T, &lo, &hi);
      int bits = T.dt.bits < 64 ? T.dt.bits : 64;
      int64_t top = bits == 64 ? INT64_MAX : (int64_t)((1ull << (bits - 1)) - 1), bot = -top - 1;
      if (lo == INT64_MIN || hi == INT64_MAX || lo < bot || hi > top) T.bad = true;
    }
    if (rf != 0 && !T.bad) {
      lin_normalize(&T);
      tir_expr *atom = T.bad ? NULL : tir_binary(a->c, TIR_FLOORMOD, lin_to_expr(a, &T), tir_int(a->c, r->dt, c));
      tir_expr *cur = term_expr(a, r, batom, bcoef);
      if (atom && ana_expr_size(atom) <= ana_expr_size(cur)) {
        batom = atom;
        bcoef = 1;
      }
    }
    lin_free(&T);
  }
  lin_add_atom(out, batom, bcoef);
}

/* g*y + b OP c where g divides c and the terms: y + b // g OP c / g (the
 * floordiv), g * ((y + b // g) % (c / g)) + b % g (the floormod) */
static tir_expr *divmod_by_term_gcd(tir_analyzer *a, bool is_div, const lin *la, int64_t c, int depth) {
  int64_t g = c;
  for (int i = 0; i < la->n; i++) g = ana_gcd(g, la->t[i].k);
  if (g <= 1 || la->base % g == 0) return NULL;
  lin y;
  lin_copy(&y, la);
  int64_t b = la->base;
  y.base = 0;
  lin_div_exact(&y, g);
  y.base = ana_floordiv(b, g);
  tir_expr *inner = div_by_const(a, is_div ? TIR_FLOORDIV : TIR_FLOORMOD, &y, c / g, depth + 1);
  lin_free(&y);
  if (!inner || is_div) return inner;
  lin o;
  lin_init(&o, la->dt);
  lin_decompose(&o, inner, g);
  lin_add_const(&o, ana_floormod(b, g));
  lin_normalize(&o);
  tir_expr *r = o.bad ? NULL : lin_to_expr(a, &o);
  lin_free(&o);
  return r;
}

/* the terms split by their coefficients' residues (17x // 16 is
 * x + x // 16): used when the remainder is then decided by bounds */
static tir_expr *divmod_by_residues(tir_analyzer *a, bool is_div, const lin *la, int64_t c) {
  lin q, r;
  lin_init(&q, la->dt);
  lin_init(&r, la->dt);
  for (int i = 0; i < la->n; i++) {
    int64_t k = la->t[i].k, qk = ana_floordiv(k, c);
    lin_add_atom(&q, la->t[i].atom, qk);
    lin_add_atom(&r, la->t[i].atom, k - qk * c);
  }
  r.base = ana_floormod(la->base, c);
  int64_t lo, hi;
  lin_bound(a, &r, &lo, &hi);
  tir_expr *res = NULL;
  if (lo != INT64_MIN && hi != INT64_MAX && ana_floordiv(lo, c) == ana_floordiv(hi, c)) {
    lin *o = is_div ? &q : &r;
    if (is_div) q.base = ana_floordiv(la->base, c) + ana_floordiv(lo, c);
    else r.base -= ana_floordiv(lo, c) * c;
    lin_normalize(o);
    if (!o->bad) res = lin_to_expr(a, o);
  }
  lin_free(&q);
  lin_free(&r);
  return res;
}

/* q*g + r OP c where g divides c and every coefficient of q, and r lies in
 * [g*t, g*t + g): (q + t) // (c/g) (the floordiv), ((q + t) % (c/g)) * g +
 * r - g*t (the floormod).  The part below g leaves the division, as in
 * TVM: (tx*4 + vec) // 128 is tx // 32 and (tx*4 + vec) % 128 is
 * tx % 32 * 4 + vec for vec in [0, 4). */
static tir_expr *divmod_split_low(tir_analyzer *a, bool is_div, const lin *la, int64_t c, int depth,
                                  bool *tvm_form) {
  tir_expr *best = NULL;
  *tvm_form = false;
  for (int i = 0; i < la->n; i++) {
    int64_t g = ana_gcd(la->t[i].k, c), lo, hi;
    bool seen = false;
    for (int j = 0; j < i; j++) seen |= ana_gcd(la->t[j].k, c) == g;
    if (g <= 1 || g >= c || seen) continue;
    lin q, r;
    lin_init(&q, la->dt);
    lin_init(&r, la->dt);
    for (int j = 0; j < la->n; j++) {
      if (la->t[j].k % g == 0) lin_add_atom(&q, la->t[j].atom, la->t[j].k / g);
      else lin_add_atom(&r, la->t[j].atom, la->t[j].k);
    }
    r.base = la->base;
    lin_bound(a, &r, &lo, &hi);
    /* a quotient whose every term has g in common: g comes out where that
     * leaves every term bare, else TVM keeps it (x * 8 // 6, (x * 32 + y *
     * 4) // 56) */
    bool bare = r.n > 0 || !is_div || q.n > 0;
    for (int j = 0; j < q.n && bare && !(r.n > 0 || !is_div); j++) bare = q.t[j].k == 1 || q.t[j].k == -1;
    /* a floormod of a sum whose every term and constant g divides keeps
     * it, as TVM does ((y * 2 + 2) % 6, (x * 8 + w * 8) % 32); a lone
     * product's comes out (floormod_atom) */
    bool whole = !is_div && r.n == 0 && la->base % g == 0 && (la->n > 1 || la->base != 0);
    if (bare && !whole && lo != INT64_MIN && hi != INT64_MAX && ana_floordiv(lo, g) == ana_floordiv(hi, g)) {
      int64_t t = ana_floordiv(lo, g);
      q.base = t;
      lin_normalize(&q);
      tir_expr_kind k = is_div ? TIR_FLOORDIV : TIR_FLOORMOD;
      tir_expr *inner = q.bad ? NULL : div_by_const(a, k, &q, c / g, depth + 1);
      if (!inner && !q.bad) inner = tir_binary(a->c, k, lin_to_expr(a, &q), tir_int(a->c, la->dt, c / g));
      if (inner && !is_div) {
        lin o;
        lin_copy(&o, &r);
        lin_decompose(&o, inner, g);
        o.base -= g * t; /* r.base - g*t is in [0, g); inner may carry a constant too */
        inner = lin_expr(a, &o);
        lin_free(&o);
      }
      if (inner && (!best || ana_expr_size(inner) < ana_expr_size(best))) {
        best = inner;
        /* TVM's rewrite splits a floordiv so where the quotient is one
         * term ((x * 4 + y * 2 + z) // 16 is x // 4; (x * 8 + y * 4 + z) //
         * 16 it keeps), and a floormod where the part below g is one term
         * or a constant (x * 4 + y, x * 4 + 3; (x * 4 + y * 2 + z) % 16 it
         * keeps) */
        *tvm_form = is_div ? q.n == 1 : r.n + (r.base != 0) <= 1;
        /* a lone product's floormod is TVM's canonical SplitExpr, not this
         * split: x * -3 % 6 is x % -2 * -3 (floormod_atom), not x % 2 * 3 */
        if (!is_div && r.n == 0 && la->n == 1 && la->base == 0 && la->t[0].k < 0) *tvm_form = false;
      }
    }
    lin_free(&q);
    lin_free(&r);
  }
  return best;
}

/* floordiv / floormod of a linear form by a positive constant */
static tir_expr *floor_divmod(tir_analyzer *a, bool is_div, lin *la, int64_t c, int depth) {
  lin q, r;
  lin_init(&q, la->dt);
  lin_init(&r, la->dt);
  lin_split(la, c, &q, &r);
  r.prod = la->prod;
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
    /* a dividend in [0, c) is itself, and so is a remainder r of it (the
     * multiples of c left out) in [0, c); a remainder in another period
     * [t*c, t*c + c) stays a floormod, as TVM keeps it (z % 8 for z in
     * [-8, -5), not z + 8; z % 8 + 8, not z + 16) */
    int64_t llo, lhi;
    lin_bound(a, la, &llo, &lhi);
    if (decided && llo >= 0 && lhi < c) {
      lin_free(&out);
      lin_copy(&out, la);
    } else if (decided && ana_floordiv(lo, c) == 0) {
      for (int i = 0; i < r.n; i++) lin_add_atom(&out, r.t[i].atom, r.t[i].k);
      out.base = rb;
    } else {
      floormod_atom(a, &r, c, &out);
    }
    lin_normalize(&out);
    res = out.bad ? NULL : lin_to_expr(a, &out);
    lin_free(&out);
  }
  lin_free(&q);
  lin_free(&r);
  if (!decided && depth < 3) {
    bool tvm_form;
    tir_expr *low = divmod_split_low(a, is_div, la, c, depth, &tvm_form);
    res = tvm_form ? smaller(low, res) : smaller(res, low); /* TVM's form wins ties */
    res = smaller(res, divmod_by_residues(a, is_div, la, c));
    res = smaller(res, divmod_by_term_gcd(a, is_div, la, c, depth));
  }
  return res;
}

/* -e, canonical */
static tir_expr *negated(tir_analyzer *a, tir_expr *e) {
  lin l;
  lin_init(&l, e->dtype);
  lin_decompose(&l, e, -1);
  lin_normalize(&l);
  tir_expr *r = l.bad ? NULL : lin_to_expr(a, &l);
  /* -(y % -8) is y % -8 * -1, a product, as TVM writes it */
  if (r && l.n == 1 && l.t[0].k == -1 && l.base == 0) r = term_expr(a, &l, l.t[0].atom, -1);
  lin_free(&l);
  return r;
}

/* other readings of la OP c: a floormod term whose divisor is a multiple of
 * c is its dividend ((x - x % 8) % 8 is 0); (x // c1 + b) // c is
 * (x + b*c1) // (c1*c); min/max terms in their normal form or with the
 * other terms moved in (min(y*2, 2) // 4 is min(y, 1) // 2) */
static tir_expr *div_alternatives(tir_analyzer *a, tir_expr_kind kind, const lin *la, int64_t c, int depth) {
  tir_expr *best = NULL;
  bool is_div = kind == TIR_FLOORDIV;
  int64_t c1, cc, bc;
  lin l;
  if (!is_div) {
    lin_copy(&l, la);
    bool any = false;
    for (int i = 0; i < l.n; i++) {
      tir_expr *m = l.t[i].atom;
      if (m->kind == TIR_FLOORMOD && tir_is_const_int(m->u.bin.b, &c1) && c1 != 0 && c1 % c == 0) {
        int64_t k = l.t[i].k;
        l.t[i].k = 0;
        lin_decompose(&l, m->u.bin.a, k);
        any = true;
      }
    }
    lin_normalize(&l);
    if (any && !l.bad) best = smaller(best, div_by_const(a, kind, &l, c, depth + 1));
    lin_free(&l);
  }
  if (is_div && la->n == 1 && la->t[0].k == 1 && la->t[0].atom->kind == TIR_FLOORDIV &&
      tir_is_const_int(la->t[0].atom->u.bin.b, &c1) && c1 > 0 && mul_ok(c1, c, &cc) && ana_fits(la->dt, cc) &&
      mul_ok(la->base, c1, &bc)) {
    lin_init(&l, la->dt);
    lin_decompose(&l, la->t[0].atom->u.bin.a, 1);
    lin_add_const(&l, bc);
    lin_normalize(&l);
    if (!l.bad) best = smaller(best, div_by_const(a, kind, &l, cc, depth + 1));
    lin_free(&l);
  }
  for (int i = 0; i < la->n; i++) {
    if (la->t[i].atom->kind != TIR_MIN && la->t[i].atom->kind != TIR_MAX) continue;
    for (int v = 0; v < 2; v++) {
      tir_expr *alt = v ? absorb_minmax(a, la) : minmax_normal(a, la->t[i].atom);
      if (!alt) continue;
      lin_init(&l, la->dt);
      if (v) {
        lin_decompose(&l, alt, 1);
      } else {
        lin_copy(&l, la);
        int64_t k = l.t[i].k;
        l.t[i].k = 0;
        lin_decompose(&l, alt, k);
      }
      lin_normalize(&l);
      if (!l.bad) best = smaller(best, div_by_const(a, kind, &l, c, depth + 1));
      lin_free(&l);
    }
    break;
  }
  return best;
}

/* x // c1 % c is x % (c1*c) // c1, as TVM writes it: the mod first, so
 * that a division of it by a constant merges (x // 32 % 16 // 4 is
 * x % 512 // 128); so is (x // c1 + k*c) % c, the multiple of c dropped
 * ((w // 8 - 4) % 2 is w % 16 // 8, as TVM); NULL when la is not one such
 * term */
static tir_expr *mod_of_div(tir_analyzer *a, const lin *la, int64_t c, int depth) {
  int64_t c1, cc;
  if (la->n != 1 || la->t[0].k != 1 || la->base % c != 0 || la->t[0].atom->kind != TIR_FLOORDIV) return NULL;
  tir_expr *q = la->t[0].atom;
  if (!tir_is_const_int(q->u.bin.b, &c1) || c1 <= 0 || !mul_ok(c1, c, &cc) || !ana_fits(la->dt, cc)) return NULL;
  lin x;
  lin_init(&x, la->dt);
  lin_decompose(&x, q->u.bin.a, 1);
  lin_normalize(&x);
  tir_expr *m = x.bad ? NULL : div_by_const(a, TIR_FLOORMOD, &x, cc, depth + 1);
  lin_free(&x);
  if (!m) m = tir_binary(a->c, TIR_FLOORMOD, q->u.bin.a, tir_int(a->c, la->dt, cc));
  lin_init(&x, la->dt);
  lin_decompose(&x, m, 1);
  lin_normalize(&x);
  tir_expr *r = x.bad ? NULL : div_by_const(a, TIR_FLOORDIV, &x, c1, depth + 1);
  lin_free(&x);
  return r ? r : tir_binary(a->c, TIR_FLOORDIV, m, q->u.bin.b);
}

/* la OP c for a constant c != 0 (la normalized); NULL when not simplified */
static tir_expr *div_by_const(tir_analyzer *a, tir_expr_kind kind, lin *la, int64_t c, int depth) {
  bool is_div = kind == TIR_FLOORDIV || kind == TIR_DIV;
  bool floor_ok = kind == TIR_FLOORDIV || kind == TIR_FLOORMOD;
  bool negate_result = false, flipped = false;
  /* x // -c == (-x) // c and x % -c == -((-x) % c) */
  if (floor_ok && c < 0) {
    /* -c, -base and each -k must be values of the dtype (x % INT32_MIN
     * has no int32 -c) */
    if (!fits_negated(la->dt, c) || !fits_negated(la->dt, la->base)) return NULL;
    for (int i = 0; i < la->n; i++)
      if (!fits_negated(la->dt, la->t[i].k)) return NULL;
    lin_negate(la);
    c = -c;
    flipped = true;
    negate_result = !is_div;
  }
  /* a divisor written negative stays negative where that is smaller (x //
   * -4), as TVM keeps it */
  bool prod = la->prod;
  if (flipped) la->prod = true;
  if (!floor_ok && c > 0) {
    int64_t lo, hi;
    lin_bound(a, la, &lo, &hi);
    floor_ok = lo >= 0;
  }
  tir_expr *res = NULL;
  bool exact = c > 0 && lin_gcd(la, c) == c; /* every term a multiple of c */
  if (c == 1) res = is_div ? lin_to_expr(a, la) : tir_int(a->c, la->dt, 0);
  else if (exact && la->n > 0) {
    if (is_div) lin_div_exact(la, c);
    res = is_div ? lin_to_expr(a, la) : tir_int(a->c, la->dt, 0);
  } else if (la->n == 0) res = ana_make_bin(a, kind, lin_to_expr(a, la), tir_int(a->c, la->dt, c));
  else if (floor_ok && c > 0) {
    tir_expr_kind fk = is_div ? TIR_FLOORDIV : TIR_FLOORMOD;
    if (!is_div) { /* x % c is b % c when x == coeff*k + b with c | coeff */
      tir_modular_set m = ana_modset(a, lin_to_expr(a, la));
      if (m.coeff != 0 && m.coeff % c == 0) res = tir_int(a->c, la->dt, ana_floormod(m.base, c));
    }
    if (!res) res = floor_divmod(a, is_div, la, c, depth);
    if (!is_div && depth < 2) res = smaller(mod_of_div(a, la, c, depth), res); /* TVM's form wins ties */
    if (depth < 2) res = smaller(res, div_alternatives(a, fk, la, c, depth));
  }
  if (res && negate_result) res = negated(a, res);
  la->prod = prod;
  if (!res && flipped) lin_negate(la); /* the caller rebuilds from la */
  return res;
}

/* k(x * c1, y) // c is k(x * (c1 / c), y // c) for c > 0 dividing c1, the
 * product either operand, as TVM's rewrite patterns have it (max(x, w * 2)
 * // 2 is max(x // 2, w); min(w * 4, x) // 8 is left): a floordiv by c > 0
 * is monotone, so it goes into a min/max, and (x * c1) // c is x * (c1 /
 * c) exactly.  Taken where it is no larger than res, the division as
 * simplified otherwise. */
static tir_expr *floordiv_minmax(tir_analyzer *a, tir_expr_kind kind, const lin *la, int64_t c, tir_expr *res) {
  if (kind != TIR_FLOORDIV || c <= 0 || la->n != 1 || la->t[0].k != 1 || la->base != 0 || !res) return res;
  tir_expr *m = la->t[0].atom;
  if (!is_minmax(m)) return res;
  for (int side = 0; side < 2; side++) {
    tir_expr *prod = side ? m->u.bin.b : m->u.bin.a, *other = side ? m->u.bin.a : m->u.bin.b;
    int64_t c1;
    if (prod->kind != TIR_MUL || !tir_is_const_int(prod->u.bin.b, &c1) || c1 % c != 0) continue;
    tir_expr *scaled = c1 / c == 1 ? prod->u.bin.a
                                   : tir_binary(a->c, TIR_MUL, prod->u.bin.a, tir_int(a->c, la->dt, c1 / c));
    tir_expr *div = tir_binary(a->c, TIR_FLOORDIV, other, tir_int(a->c, la->dt, c));
    tir_expr *cand = simp(a, side ? tir_binary(a->c, m->kind, div, scaled) : tir_binary(a->c, m->kind, scaled, div));
    return cand && ana_expr_size(cand) <= ana_expr_size(res) ? cand : res;
  }
  return res;
}

static tir_expr *simp_div(tir_analyzer *a, tir_expr *e) {
  tir_expr *sb = simp(a, e->u.bin.b);
  int64_t c, c0;
  /* a divisor proved zero (j % j, or a var whose only value is 0) stays as
   * written: the program divides by zero where it runs, and a literal zero
   * divisor is an error where it is read (a print would not read back) */
  if (tir_is_const_int(sb, &c) && c == 0 && !(tir_is_const_int(e->u.bin.b, &c0) && c0 == 0)) sb = e->u.bin.b;
  if (!ana_is_index_type(e->dtype) || !tir_is_const_int(sb, &c) || c == 0) {
    tir_expr *x = simp(a, e->u.bin.a);
    if (x == e->u.bin.a && sb == e->u.bin.b) return e;
    return ana_make_bin(a, e->kind, x, sb);
  }
  lin la;
  lin_init(&la, e->dtype);
  lin_from(a, &la, e->u.bin.a, 1);
  if (!la.bad) lin_normalize(&la);
  /* the dividend a product as written or as simplified (x * -1, z * -3,
   * x % -8 * -1; 0 - x is a sum) */
  tir_expr *x = e->u.bin.a;
  la.prod = x->kind == TIR_MUL && ((tir_is_const_int(x->u.bin.b, &c0) && !is_sum(x->u.bin.a)) ||
                                   (tir_is_const_int(x->u.bin.a, &c0) && !is_sum(x->u.bin.b)));
  if (!la.bad && !la.prod && la.n == 1 && la.base == 0) la.prod = lin_to_expr(a, &la)->kind == TIR_MUL;
  tir_expr *res = NULL;
  if (!la.bad) {
    res = div_by_const(a, e->kind, &la, c, 0);
    if (!res) res = ana_make_bin(a, e->kind, lin_to_expr(a, &la), sb);
    if (!a->canon) res = negation_as_product(a, e, floordiv_minmax(a, e->kind, &la, c, res));
  }
  lin_free(&la);
  if (!res || (!a->canon && grows(res, e))) res = simp_shallow(a, e);
  return res;
}

/* ------------------------------------------------------------------ */
/* min / max                                                           */

static tir_expr_kind flip_minmax(tir_expr_kind k) { return k == TIR_MIN ? TIR_MAX : TIR_MIN; }

static bool is_operand_of(tir_expr_kind k, const tir_expr *op, const tir_expr *e) {
  if (e->kind != k) return false;
  return ana_expr_equal(e->u.bin.a, op) || ana_expr_equal(e->u.bin.b, op) || is_operand_of(k, op, e->u.bin.a) ||
         is_operand_of(k, op, e->u.bin.b);
}

static void lin_copy(lin *dst, const lin *src) {
  lin_init(dst, src->dt);
  for (int i = 0; i < src->n; i++) lin_add_atom(dst, src->t[i].atom, src->t[i].k);
  dst->base = src->base;
  dst->bad = src->bad;
  dst->nsorted = src->nsorted;
  dst->prod = src->prod;
}

/* a lower bound of l; a min/max term is split into its operands, since
 * k*min(x, y) is min(k*x, k*y) (max where k < 0), which keeps what the
 * operands share with the other terms (min(w, z) - w >= 0 - ... ) */
static int64_t lin_lower(tir_analyzer *a, const lin *l, int budget) {
  int64_t lo, hi;
  lin_bound(a, l, &lo, &hi);
  if (lo >= 0 || budget <= 0) return lo;
  for (int i = 0; i < l->n; i++) {
    tir_expr *m = l->t[i].atom;
    int64_t k = l->t[i].k;
    if ((m->kind != TIR_MIN && m->kind != TIR_MAX) || !tir_dtype_eq(m->dtype, l->dt)) continue;
    bool is_min = (m->kind == TIR_MIN) == (k > 0); /* k*m is the min of k*operands */
    int64_t best = 0;
    for (int j = 0; j < 2; j++) {
      lin r;
      lin_copy(&r, l);
      r.t[i].k = 0;
      lin_decompose(&r, j ? m->u.bin.b : m->u.bin.a, k);
      lin_normalize(&r);
      int64_t v = r.bad ? INT64_MIN : lin_lower(a, &r, budget - 1);
      lin_free(&r);
      if (j == 0) best = v;
      else best = is_min ? (v < best ? v : best) : (v > best ? v : best);
    }
    return best > lo ? best : lo;
  }
  return lo;
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
  for (int n = 0; n < 4 && !l.bad && fuse_mod(a, &l); n++) lin_normalize(&l);
  int64_t lo = l.bad ? INT64_MIN : lin_lower(a, &l, 3);
  lin_free(&l);
  if (lo >= 0) return true;
  if (a->nconds > 0 && !a->canon) return ana_isl_prove(a, tir_binary(a->c, TIR_LE, x, y));
  return false;
}

static tir_expr *lin_expr(tir_analyzer *a, lin *l) {
  lin_normalize(l);
  return l->bad ? NULL : lin_to_expr(a, l);
}

/* c + sg * K(x, y) with x = (A - b) / sg, y = (B - b) / sg (exact), K the
 * kind k flipped where sg < 0; NULL where not exact */
static tir_expr *minmax_scaled(tir_analyzer *a, tir_expr_kind k, const lin *C, const lin *A, const lin *B,
                               int64_t b, int64_t sg) {
  int64_t ra, rb;
  if (__builtin_sub_overflow(A->base, b, &ra) || __builtin_sub_overflow(B->base, b, &rb)) return NULL;
  if (sg == -1 && (ra == INT64_MIN || rb == INT64_MIN)) return NULL;
  if (ra % sg || rb % sg) return NULL;
  lin x, y, o;
  lin_copy(&x, A);
  lin_copy(&y, B);
  lin_copy(&o, C);
  x.base = ra;
  y.base = rb;
  for (int i = 0; i < x.n; i++)
    if (x.t[i].k == INT64_MIN) x.bad = true;
  for (int i = 0; i < y.n; i++)
    if (y.t[i].k == INT64_MIN) y.bad = true;
  tir_expr *r = NULL;
  if (!x.bad && !y.bad) {
    lin_div_exact(&x, sg);
    lin_div_exact(&y, sg);
    tir_expr *ex = lin_expr(a, &x), *ey = lin_expr(a, &y);
    if (ex && ey) {
      lin_add_atom(&o, ana_make_bin(a, sg > 0 ? k : flip_minmax(k), ex, ey), sg);
      lin_add_const(&o, b);
      r = lin_expr(a, &o);
    }
  }
  lin_free(&x);
  lin_free(&y);
  lin_free(&o);
  return r;
}

/* the smallest form of k(A, B) (A, B normalized): the one operand when it
 * is provably the min (max), else the terms both share taken out, then a
 * common factor and a constant: min(t + 2x + 6, t + 2y) is
 * t + min(x + 3, y) * 2.  The plain min(A, B) wins ties. */
static tir_expr *minmax_pair(tir_analyzer *a, tir_expr_kind k, const lin *A, const lin *B, bool any) {
  tir_expr *xa = lin_to_expr(a, A), *xb = lin_to_expr(a, B);
  if (prove_le(a, xa, xb)) return k == TIR_MIN ? xa : xb;
  if (prove_le(a, xb, xa)) return k == TIR_MIN ? xb : xa;
  tir_expr *plain = ana_make_bin(a, k, xa, xb), *best = any ? NULL : plain;
  int bsize = any ? INT_MAX : ana_expr_size(plain);
  lin A2, B2, C;
  lin_copy(&A2, A);
  lin_copy(&B2, B);
  lin_init(&C, A->dt);
  int64_t g = 0;
  for (int i = 0; i < A2.n; i++)
    for (int j = 0; j < B2.n; j++)
      if (A2.t[i].k && B2.t[j].k && (A2.t[i].k > 0) == (B2.t[j].k > 0) &&
          ana_expr_equal(A2.t[i].atom, B2.t[j].atom)) {
        /* the share of the smaller coefficient: min(2x, x + y) is x + min(x, y) */
        int64_t kc = A2.t[i].k > 0 ? (A2.t[i].k < B2.t[j].k ? A2.t[i].k : B2.t[j].k)
                                   : (A2.t[i].k > B2.t[j].k ? A2.t[i].k : B2.t[j].k);
        lin_add_atom(&C, A2.t[i].atom, kc);
        A2.t[i].k -= kc;
        B2.t[j].k -= kc;
        break;
      }
  lin_normalize(&A2);
  lin_normalize(&B2);
  for (int i = 0; i < A2.n; i++) g = ana_gcd(g, A2.t[i].k);
  for (int i = 0; i < B2.n; i++) g = ana_gcd(g, B2.t[i].k);
  if (g == 0) g = 1; /* both constant: they fold */
  int64_t bases[3] = {0, A2.base, B2.base};
  for (int s = 0; s < 2 && !A2.bad && !B2.bad && g > 0; s++)
    for (int bi = 0; bi < 3; bi++) {
      if ((bi == 1 && bases[1] == 0) || (bi == 2 && (bases[2] == 0 || bases[2] == bases[1]))) continue;
      tir_expr *r = minmax_scaled(a, k, &C, &A2, &B2, bases[bi], s ? -g : g);
      if (r && ana_expr_size(r) < bsize) {
        best = r;
        bsize = ana_expr_size(r);
      }
    }
  lin_free(&A2);
  lin_free(&B2);
  lin_free(&C);
  return any && best && ana_expr_equal(best, plain) ? NULL : best;
}

/* m (a min/max) as c + g * min(..) with the terms both operands share and
 * their common factor taken out, even where that is not smaller; NULL when
 * there is nothing to take out */
static tir_expr *minmax_normal(tir_analyzer *a, tir_expr *m) {
  if (!ana_is_index_type(m->dtype)) return NULL;
  lin A, B;
  lin_init(&A, m->dtype); /* both freed below, whichever lin_of ran */
  lin_init(&B, m->dtype);
  tir_expr *r = NULL;
  if (lin_of(m->u.bin.a, &A) && lin_of(m->u.bin.b, &B)) {
    r = minmax_pair(a, m->kind, &A, &B, true);
  }
  lin_free(&A);
  lin_free(&B);
  return r;
}

static bool lin_of(tir_expr *e, lin *l) {
  lin_init(l, e->dtype);
  lin_decompose(l, e, 1);
  lin_normalize(l);
  return !l->bad;
}

/* min(max(s, p), max(s, q)) -> max(s, min(p, q)), and the dual */
static tir_expr *distribute(tir_analyzer *a, tir_expr_kind k, tir_expr *x, tir_expr *y) {
  tir_expr_kind d = flip_minmax(k);
  if (x->kind != d || y->kind != d) return NULL;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      tir_expr *s = i ? x->u.bin.b : x->u.bin.a, *t = j ? y->u.bin.b : y->u.bin.a;
      if (!ana_expr_equal(s, t)) continue;
      tir_expr *p = i ? x->u.bin.a : x->u.bin.b, *q = j ? y->u.bin.a : y->u.bin.b;
      return ana_make_bin(a, d, s, ana_make_bin(a, k, p, q));
    }
  return NULL;
}

/* A is x * f as TVM's rewrite rules factor a sum (x * c + y * c is
 * (x + y) * c, x * c + c is (x + 1) * c): every coefficient +-g (g >= 2),
 * the constant 0 or +-g; f is -g where no term and no constant is
 * positive */
static bool tvm_factor(const lin *A, int64_t *f) {
  if (A->bad || A->n == 0 || A->t[0].k == INT64_MIN) return false;
  int64_t g = A->t[0].k < 0 ? -A->t[0].k : A->t[0].k;
  if (g < 2) return false;
  bool pos = A->base > 0;
  for (int i = 0; i < A->n; i++) {
    if (A->t[i].k != g && A->t[i].k != -g) return false;
    pos |= A->t[i].k > 0;
  }
  if (A->base != 0 && A->base != g && A->base != -g) return false;
  *f = pos ? g : -g;
  return true;
}

/* TVM's spelling of k(A, c), the second operand c a constant and A not
 * (the canonical forms of its rewrite simplifier, which its analyzer
 * prints and its passes' outputs are compared by):
 *   min(c1 - x, c) is c1 - max(x, c1 - c) where c != 0 (A is c1 - x * f,
 *   one negative term and a positive constant), and the dual;
 *   min(x * f, c) is min(x, c / f) * f, max(x, c / f) * f where f < 0, when
 *   f divides c and A is x * f as TVM's rules factor a sum: every
 *   coefficient +-f (|f| >= 2) and the constant 0 or +-f (x * 4 + y * 4 - 4
 *   is (x + y - 1) * 4, x * 4 + 8 is left); f < 0 where no term is positive
 *   and the constant is not.
 * NULL where neither applies. */
static tir_expr *tvm_minmax_const(tir_analyzer *a, tir_expr_kind k, const lin *A, int64_t c) {
  tir_ctx *ctx = a->c;
  if (A->bad || A->n == 0) return NULL;
  if (A->n == 1 && A->t[0].k < 0 && A->t[0].k != INT64_MIN && A->base > 0 && c != 0) {
    int64_t d;
    if (__builtin_sub_overflow(A->base, c, &d) || !fits_negated(A->dt, d)) return NULL;
    lin T;
    lin_init(&T, A->dt);
    lin_add_atom(&T, A->t[0].atom, -A->t[0].k);
    tir_expr *in = tvm_minmax_const(a, flip_minmax(k), &T, d);
    if (!in) in = ana_make_bin(a, flip_minmax(k), lin_to_expr(a, &T), tir_int(ctx, A->dt, d));
    lin_free(&T);
    return tir_binary(ctx, TIR_SUB, tir_int(ctx, A->dt, A->base), in);
  }
  int64_t f;
  if (!tvm_factor(A, &f) || c % f) return NULL;
  lin X;
  lin_copy(&X, A);
  lin_div_exact(&X, f);
  tir_expr *x = lin_expr(a, &X);
  lin_free(&X);
  if (!x) return NULL;
  tir_expr *m = ana_make_bin(a, f > 0 ? k : flip_minmax(k), x, tir_int(ctx, A->dt, c / f));
  return tir_binary(ctx, TIR_MUL, m, tir_int(ctx, A->dt, f));
}

/* one term, or a constant: what TVM's rules see as one operand */
static bool lin_single(const lin *l) { return l->n == 0 || (l->n == 1 && l->base == 0); }

/* k(A, B) as TVM's rewrite simplifier writes it (the form its analyzer
 * prints, so the form of the regions it infers and of its passes' output):
 * an operand provably the min (max); a constant second operand by
 * tvm_minmax_const; the terms both share with the same coefficient, and a
 * constant both share, taken out where what is left of each is one term or
 * a constant (min(x + y, x + 3) is min(y, 3) + x; min(x + y, x + z + 3) is
 * left; min(x - 3, x - y) is x - max(3, y)); both operands x * f and y * f for one f (see tvm_factor), or
 * one term each of one coefficient f: min(x, y) * f, max where f < 0.  Where the operands hold equal coefficients
 * the min comes first, as TVM orders the sum.  NULL where none applies (the
 * plain min(A, B), a constant first operand kept first). */
static tir_expr *tvm_minmax_pair(tir_analyzer *a, tir_expr_kind k, const lin *A, const lin *B) {
  tir_expr *xa = lin_to_expr(a, A), *xb = lin_to_expr(a, B);
  if (prove_le(a, xa, xb)) return k == TIR_MIN ? xa : xb;
  if (prove_le(a, xb, xa)) return k == TIR_MIN ? xb : xa;
  if (A->n == 0) return NULL;
  if (B->n == 0) return tvm_minmax_const(a, k, A, B->base);
  lin A2, B2, S;
  lin_copy(&A2, A);
  lin_copy(&B2, B);
  lin_init(&S, A->dt);
  for (int i = 0; i < A2.n; i++)
    for (int j = 0; j < B2.n; j++)
      if (A2.t[i].k && A2.t[i].k == B2.t[j].k && ana_expr_equal(A2.t[i].atom, B2.t[j].atom)) {
        lin_add_atom(&S, A2.t[i].atom, A2.t[i].k);
        A2.t[i].k = B2.t[j].k = 0;
        break;
      }
  if (A2.base == B2.base) {
    S.base = A2.base;
    A2.base = B2.base = 0;
  }
  lin_normalize(&A2);
  lin_normalize(&B2);
  tir_expr *r = NULL;
  /* what is left is x + c or x - y as TVM's patterns see it: a negative
   * term pairs only with a negative term or constant (min(x - 3, x - y) is
   * x - max(3, y); min(x + 3, x - y) is left), and two negative ones come
   * out negated */
  bool nega = A2.n ? A2.n == 1 && A2.t[0].k < 0 : A2.base < 0, negb = B2.n ? B2.n == 1 && B2.t[0].k < 0 : B2.base < 0;
  bool negt = (A2.n == 1 && A2.t[0].k < 0) || (B2.n == 1 && B2.t[0].k < 0);
  bool both_neg = nega && negb;
  /* one side a lone shared term, min(x, y + x): TVM's pattern min(a + c,
   * b + c) sees no sum on that side and keeps it, which is no larger where
   * the shared term is one node (min(0, y) + x is not smaller) */
  bool lone = ((A->n == 1 && !A->base && !A2.n && !A2.base) || (B->n == 1 && !B->base && !B2.n && !B2.base)) &&
              S.n == 1 && S.t[0].k == 1 && ana_expr_size(S.t[0].atom) == 1;
  /* (negation is safe: lin_normalize leaves no constant whose negation the dtype lacks) */
  /* a constant alone shared by two sums of positive terms comes out
   * whatever the sums (min(x + y + 3, z + 3) is min(x + y, z) + 3; min(x +
   * 3, 3 - z) is left), as TVM's pattern min(a + c, b + c) */
  bool pos_sums = !S.n && S.base && A2.n && B2.n;
  for (int i = 0; i < A2.n && pos_sums; i++) pos_sums = A2.t[i].k > 0;
  for (int i = 0; i < B2.n && pos_sums; i++) pos_sums = B2.t[i].k > 0;
  if (!lone && (S.n || S.base) && !A2.bad && !B2.bad && ((lin_single(&A2) && lin_single(&B2)) || pos_sums) &&
      (!negt || both_neg)) {
    int64_t sg = both_neg ? -1 : 1;
    tir_expr_kind kk = both_neg ? flip_minmax(k) : k;
    if (both_neg) {
      for (int i = 0; i < A2.n; i++) A2.t[i].k = -A2.t[i].k;
      for (int i = 0; i < B2.n; i++) B2.t[i].k = -B2.t[i].k;
      A2.base = -A2.base;
      B2.base = -B2.base;
    }
    tir_expr *m = tvm_minmax_pair(a, kk, &A2, &B2);
    if (!m) m = ana_make_bin(a, kk, lin_to_expr(a, &A2), lin_to_expr(a, &B2));
    lin o;
    lin_init(&o, A->dt);
    lin_decompose(&o, m, sg);
    for (int i = 0; i < S.n; i++) lin_add_atom(&o, S.t[i].atom, S.t[i].k);
    lin_add_const(&o, S.base);
    r = lin_expr(a, &o);
    lin_free(&o);
  } else {
    int64_t fa, fb;
    /* one term each, of one coefficient (min(x - y, x - z) is x - max(y, z)) */
    bool one = A->n == 1 && B->n == 1 && !A->base && !B->base && A->t[0].k == B->t[0].k && A->t[0].k != 1 &&
               A->t[0].k != INT64_MIN;
    if (one) fa = fb = A->t[0].k;
    if (one || (tvm_factor(A, &fa) && tvm_factor(B, &fb) && fa == fb)) {
      lin X, Y;
      lin_copy(&X, A);
      lin_copy(&Y, B);
      lin_div_exact(&X, fa);
      lin_div_exact(&Y, fa);
      tir_expr *ex = lin_expr(a, &X), *ey = lin_expr(a, &Y);
      if (ex && ey)
        r = tir_binary(a->c, TIR_MUL, ana_make_bin(a, fa > 0 ? k : flip_minmax(k), ex, ey),
                       tir_int(a->c, A->dt, fa));
      lin_free(&X);
      lin_free(&Y);
    }
  }
  lin_free(&A2);
  lin_free(&B2);
  lin_free(&S);
  return r;
}

/* k(x, y) in its smallest form, or NULL when that is the plain one */
/* X where e is a lone negation, X * -1 (*sub false) or 0 - X (*sub
 * true); NULL where it is neither */
static tir_expr *negation_of(const tir_expr *e, bool *sub) {
  int64_t c;
  if (e->kind == TIR_MUL && tir_is_const_int(e->u.bin.b, &c) && c == -1) {
    *sub = false;
    return e->u.bin.a;
  }
  if (e->kind == TIR_SUB && tir_is_const_int(e->u.bin.a, &c) && c == 0) {
    *sub = true;
    return e->u.bin.b;
  }
  return NULL;
}

static tir_expr *minmax_combine(tir_analyzer *a, tir_expr_kind k, tir_expr *x, tir_expr *y);

/* k(P + s, Q + s) is k(P, Q) + s, k(P - s, Q - s) is k(P, Q) - s, k(s - P,
 * s - Q) is s - k'(P, Q), where s is an operand of both sums as they are
 * spelled (either operand of an addition, in the order TVM's rewrite
 * patterns try them), as TVM's rewrite simplifier sees them: max(z * 16 +
 * x + w, y + w) is max(z * 16 + x, y) + w, min(z + y + x, w * 2 + x) is
 * min(z + y, w * 2) + x; min(x + z + y, w * 2 + x) is left (x is inside x
 * + z), as TVM leaves it.  Exact over the integers; smaller always (s is
 * written once).  NULL where no operand is shared. */
static tir_expr *minmax_shared_operand(tir_analyzer *a, tir_expr_kind k, tir_expr *x, tir_expr *y) {
  tir_expr *p = NULL, *q = NULL, *s = NULL;
  tir_expr_kind kk = k, outer = TIR_ADD;
  bool s_first = false;
  if (x->kind == TIR_ADD && y->kind == TIR_ADD) {
    tir_expr *xs[2] = {x->u.bin.a, x->u.bin.b}, *ys[2] = {y->u.bin.a, y->u.bin.b};
    /* (x + z, y + z), (z + x, y + z), (x + z, z + y), (z + x, z + y) */
    static const int order[4][2] = {{1, 1}, {0, 1}, {1, 0}, {0, 0}};
    for (int i = 0; i < 4 && !s; i++)
      if (ana_expr_equal(xs[order[i][0]], ys[order[i][1]])) {
        s = xs[order[i][0]];
        p = xs[1 - order[i][0]];
        q = ys[1 - order[i][1]];
      }
  } else if (x->kind == TIR_SUB && y->kind == TIR_SUB) {
    if (ana_expr_equal(x->u.bin.b, y->u.bin.b)) {
      s = x->u.bin.b;
      p = x->u.bin.a;
      q = y->u.bin.a;
      outer = TIR_SUB;
    } else if (ana_expr_equal(x->u.bin.a, y->u.bin.a)) {
      s = x->u.bin.a;
      p = x->u.bin.b;
      q = y->u.bin.b;
      outer = TIR_SUB;
      s_first = true;
      kk = flip_minmax(k);
    }
  }
  if (!s) return NULL;
  tir_expr *m = minmax_combine(a, kk, p, q);
  if (!m) m = minmax_shared_operand(a, kk, p, q);
  if (!m) m = ana_make_bin(a, kk, p, q);
  lin o;
  lin_init(&o, x->dtype);
  if (s_first) {
    lin_decompose(&o, s, 1);
    lin_decompose(&o, m, -1);
  } else {
    lin_decompose(&o, m, 1);
    lin_decompose(&o, s, outer == TIR_SUB ? -1 : 1);
  }
  lin_normalize(&o);
  tir_expr *r = o.bad ? NULL : lin_to_expr(a, &o);
  lin_free(&o);
  return r;
}

static tir_expr *minmax_combine(tir_analyzer *a, tir_expr_kind k, tir_expr *x, tir_expr *y) {
  tir_expr *dist = distribute(a, k, x, y);
  if (dist) return dist;
  if (!ana_is_index_type(x->dtype) || !tir_dtype_eq(x->dtype, y->dtype)) return NULL;
  /* min(X * -1, c) is max(X, -c) * -1, min(0 - X, 0 - Y) is 0 - max(X, Y):
   * the negation spelled as its operand spelled it, as TVM's rewrite
   * patterns see a product or a subtraction */
  bool sx, sy;
  int64_t cy;
  tir_expr *nx = a->canon ? NULL : negation_of(x, &sx), *ny = negation_of(y, &sy);
  if (nx && ((ny && sx == sy) || (tir_is_const_int(y, &cy) && fits_negated(y->dtype, cy)))) {
    tir_expr *o = ny ? ny : tir_int(a->c, y->dtype, -cy);
    tir_expr *in = minmax_combine(a, flip_minmax(k), nx, o);
    if (!in) in = ana_make_bin(a, flip_minmax(k), nx, o);
    return sx ? tir_binary(a->c, TIR_SUB, tir_int(a->c, x->dtype, 0), in)
              : tir_binary(a->c, TIR_MUL, in, tir_int(a->c, x->dtype, -1));
  }
  lin lx, ly;
  lin_init(&lx, x->dtype); /* both freed below, whichever lin_of ran */
  lin_init(&ly, y->dtype);
  tir_expr *r = NULL;
  if (lin_of(x, &lx) && lin_of(y, &ly)) {
    if (!a->canon) {
      r = tvm_minmax_pair(a, k, &lx, &ly);
      lin_free(&lx);
      lin_free(&ly);
      return r;
    }
    r = minmax_pair(a, k, &lx, &ly, false);
    if (ana_expr_size(r) >= ana_expr_size(x) + ana_expr_size(y) + 1) r = NULL;
  }
  lin_free(&lx);
  lin_free(&ly);
  return r;
}

/* the operands of a chain of min/max kind k into ops, simplified; the
 * chain's shape into shape, in postfix: an operand's index, or -1 for k
 * of the two before */
typedef struct chain {
  tir_expr **ops;
  int n, cap;
  int *shape;
  int nshape, capshape;
} chain;

static void chain_push(chain *ch, tir_expr *op) {
  if (ch->nshape == ch->capshape) {
    ch->capshape = ch->capshape ? ch->capshape * 2 : 16;
    int *p = realloc(ch->shape, sizeof *p * (size_t)ch->capshape);
    if (!p) abort();
    ch->shape = p;
  }
  if (!op) {
    ch->shape[ch->nshape++] = -1;
    return;
  }
  if (ch->n == ch->cap) {
    ch->cap = ch->cap ? ch->cap * 2 : 8;
    tir_expr **p = realloc(ch->ops, sizeof *p * (size_t)ch->cap);
    if (!p) abort();
    ch->ops = p;
  }
  ch->shape[ch->nshape++] = ch->n;
  ch->ops[ch->n++] = op;
}

static void flatten(tir_analyzer *a, tir_expr_kind k, tir_expr *e, chain *ch) {
  if (e->kind == k) {
    flatten(a, k, e->u.bin.a, ch);
    flatten(a, k, e->u.bin.b, ch);
    chain_push(ch, NULL);
    return;
  }
  tir_expr *s = simp(a, e);
  if (s->kind == k && s != e) {
    flatten(a, k, s, ch);
    return;
  }
  chain_push(ch, s);
}

/* the chain rebuilt in its own shape from ops (the operands, NULL where
 * one was dropped) */
static tir_expr *chain_rebuild(tir_analyzer *a, tir_expr_kind k, const chain *ch, tir_expr **ops) {
  tir_expr **st = malloc(sizeof *st * (size_t)ch->nshape);
  if (!st) abort();
  int sp = 0;
  for (int i = 0; i < ch->nshape; i++) {
    if (ch->shape[i] >= 0) {
      st[sp++] = ops[ch->shape[i]];
      continue;
    }
    tir_expr *y = st[--sp], *x = st[--sp];
    st[sp++] = !x ? y : !y ? x : ana_make_bin(a, k, x, y);
  }
  tir_expr *r = st[0];
  free(st);
  return r;
}

/* greedily merge pairs of operands whose combined form is smaller */
static int combine_pairs(tir_analyzer *a, tir_expr_kind k, tir_expr **ops, int n) {
  bool changed = true;
  while (changed && n > 1) {
    changed = false;
    for (int i = 0; i < n && !changed; i++)
      for (int j = i + 1; j < n && !changed; j++) {
        tir_expr *r = minmax_combine(a, k, ops[i], ops[j]);
        /* a shared operand comes out of a pair only, the chain two
         * operands, as TVM's patterns see one min/max node (min(min(z *
         * 12, min(w + z, x)), z // 32 + x + w) keeps w in both) */
        if (!r && n == 2 && !a->canon) r = minmax_shared_operand(a, k, ops[i], ops[j]);
        if (!r) continue;
        ops[i] = r;
        memmove(&ops[j], &ops[j + 1], sizeof *ops * (size_t)(n - j - 1));
        n--;
        changed = true;
      }
  }
  return n;
}

static tir_expr *simp_minmax(tir_analyzer *a, tir_expr *e) {
  tir_expr_kind k = e->kind;
  /* k(k(x, y), k(x, z)) is k(k(y, z), x), the shared operand last, as
   * TVM's rewrite writes it (max(max(w, z), max(y, z)) is max(max(w, y),
   * z)) */
  tir_expr *l = e->u.bin.a, *rt = e->u.bin.b;
  if (!a->canon && l->kind == k && rt->kind == k) {
    for (int i = 0; i < 4; i++) {
      tir_expr *s1 = i & 1 ? l->u.bin.b : l->u.bin.a, *s2 = i & 2 ? rt->u.bin.b : rt->u.bin.a;
      tir_expr *o1 = i & 1 ? l->u.bin.a : l->u.bin.b, *o2 = i & 2 ? rt->u.bin.a : rt->u.bin.b;
      if (ana_expr_equal(s1, s2) && !ana_expr_equal(o1, o2)) {
        e = tir_binary(a->c, k, tir_binary(a->c, k, o1, o2), s1);
        break;
      }
    }
  }
  chain ch = {0};
  flatten(a, k, e, &ch);
  tir_expr **ops = ch.ops;
  int n = ch.n;
  /* drop operands dominated by another one (for min: some other <= it); of
   * equal ones the later */
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) {
      if (i == j || !ops[i] || !ops[j] || (i > j && ana_expr_equal(ops[i], ops[j]))) continue;
      bool dominated = k == TIR_MIN ? prove_le(a, ops[i], ops[j]) : prove_le(a, ops[j], ops[i]);
      /* of two equal in value (w + y, y + w) the first stays, as TVM */
      if (dominated && i > j && (k == TIR_MIN ? prove_le(a, ops[j], ops[i]) : prove_le(a, ops[i], ops[j])))
        continue;
      if (dominated) {
        ops[j] = NULL;
        break;
      }
    }
  }
  int left = 0;
  tir_expr **kept = malloc(sizeof *kept * (size_t)n);
  if (!kept) abort();
  for (int i = 0; i < n; i++)
    if (ops[i]) kept[left++] = ops[i];
  int merged = combine_pairs(a, k, kept, left);
  tir_expr *r = NULL;
  /* nothing merged: the operands left in the chain's own shape, as TVM
   * keeps min(x, min(y, z)) */
  if (merged == left) r = chain_rebuild(a, k, &ch, ops);
  else
    for (int i = 0; i < merged; i++) r = r ? ana_make_bin(a, k, r, kept[i]) : kept[i];
  free(kept);
  free(ch.ops);
  free(ch.shape);
  if (!a->canon && grows(r, e)) {
    tir_expr *x = simp(a, e->u.bin.a), *y = simp(a, e->u.bin.b);
    r = ana_make_bin(a, k, x, y);
  }
  return r;
}

/* the operands of a chain of one min/max kind (at most nmax) */
static void chain_operands(tir_expr *m, tir_expr_kind k, tir_expr **ops, int *n, int nmax) {
  if (m->kind == k && *n + 1 < nmax) {
    chain_operands(m->u.bin.a, k, ops, n, nmax);
    chain_operands(m->u.bin.b, k, ops, n, nmax);
    return;
  }
  ops[(*n)++] = m;
}

/* k*min(x, y) + rest == min(k*x + rest, k*y + rest) (max where k < 0):
 * moving the rest of a sum into one of its min/max terms lets terms cancel
 * and a common factor come out (z*3 - max(z, x)*3 is min(0, z - x)*3);
 * each operand of a min/max chain against the others in turn; the
 * smallest result, or NULL when none is smaller than l printed */
/* the smallest k(A, B), in TVM's spelling where that is no larger
 * (max(18 - y, -8) is 18 - min(y, 26), as TVM's rewrite writes it) */
static tir_expr *pair_spelled(tir_analyzer *a, tir_expr_kind k, const lin *A, const lin *B) {
  tir_expr *r = minmax_pair(a, k, A, B, false);
  tir_expr *rt = a->canon ? NULL : tvm_minmax_pair(a, k, A, B);
  return rt && ana_expr_size(rt) <= ana_expr_size(r) ? rt : r;
}

static tir_expr *absorb_minmax(tir_analyzer *a, const lin *l) {
  tir_expr *best = NULL;
  int bsize = 0;
  for (int i = 0; i < l->n; i++) {
    tir_expr *m = l->t[i].atom;
    int64_t k = l->t[i].k;
    if ((m->kind != TIR_MIN && m->kind != TIR_MAX) || !tir_dtype_eq(m->dtype, l->dt)) continue;
    if (l->n == 1 && k == 1 && l->base == 0) continue;
    if (!best) {
      best = lin_to_expr(a, l);
      bsize = ana_expr_size(best);
    }
    /* min(p, q, r): each operand against the min of the others */
    tir_expr *ops[8];
    int nops = 0;
    chain_operands(m, m->kind, ops, &nops, 8);
    for (int j = 0; j < nops; j++) {
      tir_expr *rest = NULL;
      for (int o = 0; o < nops; o++)
        if (o != j) rest = rest ? tir_binary(a->c, m->kind, rest, ops[o]) : ops[o];
      if (nops == 2 && j == 1) break; /* the same pair again */
      lin A, B;
      lin_copy(&A, l);
      A.t[i].k = 0;
      lin_copy(&B, &A);
      lin_decompose(&A, ops[j], k);
      lin_decompose(&B, rest, k);
      lin_normalize(&A);
      lin_normalize(&B);
      if (!A.bad && !B.bad) {
        tir_expr_kind mk = k > 0 ? m->kind : flip_minmax(m->kind);
        tir_expr *r = pair_spelled(a, mk, &A, &B);
        /* the other terms cancel one operand, min(w, x) - w - 22: TVM's
         * rewrite takes them in, the constant left out (min(0, x - w) - 22),
         * even where that is no smaller */
        int64_t c;
        bool cancel = nops == 2 && l->n >= 2 &&
                      ((!A.n && !tir_is_const_int(ops[j], &c)) || (!B.n && !tir_is_const_int(rest, &c))) &&
                      !__builtin_sub_overflow(A.base, l->base, &A.base) &&
                      !__builtin_sub_overflow(B.base, l->base, &B.base);
        tir_expr *rc = NULL;
        if (cancel) {
          lin o;
          lin_init(&o, l->dt);
          lin_decompose(&o, pair_spelled(a, mk, &A, &B), 1);
          lin_add_const(&o, l->base);
          lin_normalize(&o);
          rc = lin_expr(a, &o);
          lin_free(&o);
        }
        if (rc && ana_expr_size(rc) <= bsize && ana_expr_size(rc) <= ana_expr_size(r)) r = rc;
        else rc = NULL;
        if (ana_expr_size(r) < bsize || rc) {
          best = r;
          bsize = ana_expr_size(r);
        }
      }
      lin_free(&A);
      lin_free(&B);
    }
  }
  return best;
}

/* ------------------------------------------------------------------ */
/* comparisons and logic                                               */

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

/* a term c * X with c = -2^j (j >= 1) is INT_MIN when X = 2^(bits-1-j),
 * a value the program may hold without overflow; moved to the other side
 * of a comparison it becomes 2^j * X, which overflows there (C's signed
 * overflow, found by tests/fuzz/bigdeep.py).  True when X provably stays
 * below that value, so the term may change sides. */
static bool negation_safe(tir_analyzer *a, const term *t, tir_dtype dt) {
  int64_t c = t->k;
  if (c >= -1) return true;
  if (c == INT64_MIN) return false;
  uint64_t m = (uint64_t)-c;
  if (m & (m - 1)) return true; /* not a power of two: c * X is never INT_MIN */
  int j = __builtin_ctzll(m), bits = dt.bits;
  if (j >= bits - 1) return false;
  int64_t lo, hi;
  ana_bound(a, t->atom, &lo, &hi);
  return hi < ((int64_t)1 << (bits - 1 - j));
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
  /* the constant must be a value of the dtype, and so must its negation
   * (printed `x - K`): K = 2^31 for int32 is not (`... < 2147483648` in C,
   * always true; found by bigdeep.py seed 20261202 #5416) */
  if (!fits_negated(d->dt, K)) return NULL;
  lin pos, neg;
  lin_init(&pos, d->dt);
  lin_init(&neg, d->dt);
  for (int i = 0; i < d->n; i++) {
    if (d->t[i].k > 0) lin_add_atom(&pos, d->t[i].atom, d->t[i].k / g);
    else lin_add_atom(&neg, d->t[i].atom, -d->t[i].k / g);
  }
  lin_normalize(&pos); /* TVM's order: decreasing coefficients */
  lin_normalize(&neg);
  if (pos.bad || neg.bad) {
    lin_free(&pos);
    lin_free(&neg);
    return NULL;
  }
  tir_expr *lhs, *rhs;
  if (pos.n) {
    neg.base = K;
    lhs = lin_to_expr(a, &pos);
    rhs = lin_to_expr(a, &neg);
  } else {
    k = tir_cmp_swapped(k);
    lhs = lin_to_expr(a, &neg);
    rhs = tir_int(a->c, d->dt, -K);
  }
  lin_free(&pos);
  lin_free(&neg);
  /* TVM writes > and >= as < and <= with the sides swapped: 1 <= x + y */
  if (k == TIR_GT || k == TIR_GE) return tir_binary(a->c, tir_cmp_swapped(k), rhs, lhs);
  return tir_binary(a->c, k, lhs, rhs);
}

/* d OP 0 (an order) where d = q*g + r, g divides every coefficient of q,
 * and r lies in [g*t, g*t + g): the part below g cannot move d across a
 * multiple of g, so d < 0 iff q + t < 0 (tx*4 + vec < 512 is tx < 128 for
 * vec in [0, 4)); NULL when no such split exists */
static tir_expr *cmp_split_low(tir_analyzer *a, tir_expr_kind k, const lin *d) {
  if (k != TIR_LT && k != TIR_LE && k != TIR_GT && k != TIR_GE) return NULL;
  int64_t shift = (k == TIR_LE || k == TIR_GT) ? -1 : 0; /* d <= 0 iff d - 1 < 0 */
  tir_expr_kind k2 = (k == TIR_LT || k == TIR_LE) ? TIR_LT : TIR_GE;
  tir_expr *best = NULL;
  for (int i = 0; i < d->n; i++) {
    int64_t g = d->t[i].k < 0 ? -d->t[i].k : d->t[i].k, lo, hi;
    bool seen = false;
    for (int j = 0; j < i; j++) seen |= d->t[j].k == g || d->t[j].k == -g;
    if (g <= 1 || seen) continue;
    lin q, r;
    lin_init(&q, d->dt);
    lin_init(&r, d->dt);
    for (int j = 0; j < d->n; j++) {
      if (d->t[j].k % g == 0) lin_add_atom(&q, d->t[j].atom, d->t[j].k / g);
      else lin_add_atom(&r, d->t[j].atom, d->t[j].k);
    }
    r.base = d->base;
    lin_add_const(&r, shift);
    lin_bound(a, &r, &lo, &hi);
    if (r.n && !r.bad && lo != INT64_MIN && hi != INT64_MAX && ana_floordiv(lo, g) == ana_floordiv(hi, g)) {
      q.base = ana_floordiv(lo, g);
      lin_normalize(&q);
      if (!q.bad && q.n) best = smaller(best, cmp_normal_form(a, k2, &q));
    }
    lin_free(&q);
    lin_free(&r);
  }
  return best;
}

static bool call_cb(tir_visitor *v, const tir_expr *e) {
  if (e->kind == TIR_CALL) *(bool *)v->user = true;
  return !*(bool *)v->user;
}

/* e holds no call (whose effects a folded comparison would drop) */
static bool no_call(const tir_expr *e) {
  bool found = false;
  tir_visitor v = {.expr = call_cb, .user = &found};
  tir_visit_expr(&v, e);
  return !found;
}

/* an unsigned value against 0: u < 0 and 0 > u are false, u >= 0 and
 * 0 <= u true (TVM's simplifier knows an unsigned value's bound; nvcc
 * refuses the "pointless comparison" a print of it would be); -1 where
 * the comparison is no such one */
static int unsigned_vs_zero(tir_expr_kind k, const tir_expr *x, const tir_expr *y) {
  int64_t c;
  if (x->dtype.code != TIR_TC_UINT || x->dtype.lanes != 1 || !tir_dtype_eq(x->dtype, y->dtype)) return -1;
  if (tir_is_const_int(y, &c) && c == 0 && (k == TIR_LT || k == TIR_GE) && no_call(x)) return k == TIR_GE;
  if (tir_is_const_int(x, &c) && c == 0 && (k == TIR_GT || k == TIR_LE) && no_call(y)) return k == TIR_LE;
  return -1;
}

static tir_expr *simp_cmp(tir_analyzer *a, tir_expr *e) {
  tir_expr_kind k = e->kind;
  tir_expr *x = simp(a, e->u.bin.a), *y = simp(a, e->u.bin.b);
  int uz = unsigned_vs_zero(k, x, y);
  if (uz >= 0) return tir_bool(a->c, uz);
  bool consts = (x->kind == TIR_INT_IMM || x->kind == TIR_FLOAT_IMM) && (y->kind == TIR_INT_IMM || y->kind == TIR_FLOAT_IMM);
  tir_expr *plain = (x == e->u.bin.a && y == e->u.bin.b && !consts) ? e : ana_make_bin(a, k, x, y);
  if (!ana_is_index_type(x->dtype) || !tir_dtype_eq(x->dtype, y->dtype)) {
    if (ana_expr_equal(x, y) && !tir_dtype_is_float(x->dtype) && x->dtype.lanes == 1)
      return tir_bool(a->c, k == TIR_EQ || k == TIR_LE || k == TIR_GE);
    /* > and >= as < and <= of the sides swapped, in every dtype, as TVM's
     * rewrite simplifier writes them */
    if ((k == TIR_GT || k == TIR_GE) && plain->kind == k) return ana_make_bin(a, tir_cmp_swapped(k), y, x);
    return plain;
  }
  /* decided by the sides' own intervals: x - y may overflow where x and y
   * do not ((int64)c <= INT64_MIN for an int32 c; its C draws gcc's
   * -Wtype-limits, an error with -Werror; found by bigdeep.py) */
  {
    int64_t xl, xh, yl, yh;
    ana_bound(a, x, &xl, &xh);
    ana_bound(a, y, &yl, &yh);
    int dec = -1;
    if (xl != INT64_MIN || xh != INT64_MAX || yl != INT64_MIN || yh != INT64_MAX) {
      switch (k) {
      case TIR_LT: dec = xh < yl ? 1 : xl >= yh ? 0 : -1; break;
      case TIR_LE: dec = xh <= yl ? 1 : xl > yh ? 0 : -1; break;
      case TIR_GT: dec = xl > yh ? 1 : xh <= yl ? 0 : -1; break;
      case TIR_GE: dec = xl >= yh ? 1 : xh < yl ? 0 : -1; break;
      case TIR_EQ: dec = (xh < yl || xl > yh) ? 0 : (xl == xh && yl == yh && xl == yl) ? 1 : -1; break;
      case TIR_NE: dec = (xh < yl || xl > yh) ? 1 : (xl == xh && yl == yh && xl == yl) ? 0 : -1; break;
      default: break;
      }
    }
    if (dec >= 0) return tir_bool(a->c, dec);
  }
  /* the normal form moves every term with a negative coefficient to the
   * other side: each must survive the negation */
  bool movable = true;
  for (int side = 0; side < 2 && movable; side++) {
    lin s1;
    lin_init(&s1, x->dtype);
    lin_decompose(&s1, side ? y : x, 1);
    lin_normalize(&s1);
    for (int i = 0; i < s1.n && movable && !s1.bad; i++) movable = negation_safe(a, &s1.t[i], x->dtype);
    lin_free(&s1);
  }
  lin d;
  lin_init(&d, x->dtype);
  lin_decompose(&d, x, 1);
  lin_decompose(&d, y, -1);
  lin_normalize(&d);
  tir_expr *r = NULL;
  /* X // c OP K for c > 0 compares X with K's bounds times c, as TVM's
   * rewrite does (x // 10 < 9 is x < 90, 1 <= x // 10 is 10 <= x, x // 10
   * <= 3 is x <= 39, 3 < x // 10 is 39 < x); == and != stay */
  int64_t dc, K;
  if (!d.bad && !a->canon && d.n == 1 && (d.t[0].k == 1 || d.t[0].k == -1) && d.t[0].atom->kind == TIR_FLOORDIV &&
      k != TIR_EQ && k != TIR_NE && tir_is_const_int(d.t[0].atom->u.bin.b, &dc) && dc > 0 &&
      tir_dtype_eq(d.t[0].atom->dtype, d.dt) && d.base != INT64_MIN) {
    tir_expr_kind kk = d.t[0].k == 1 ? k : tir_cmp_swapped(k);
    K = d.t[0].k == 1 ? -d.base : d.base; /* X // c kk K */
    tir_expr *X = d.t[0].atom->u.bin.a;
    bool ok = true;
    int64_t v = 0;
    tir_expr_kind nk = kk;
    switch (kk) {
    case TIR_LT: ok = mul_ok(K, dc, &v); break;                                            /* X < K*c */
    case TIR_GE: ok = mul_ok(K, dc, &v); break;                                            /* X >= K*c */
    case TIR_LE: ok = mul_ok(K, dc, &v) && !__builtin_add_overflow(v, dc - 1, &v); break; /* X <= K*c + c - 1 */
    case TIR_GT: ok = mul_ok(K, dc, &v) && !__builtin_add_overflow(v, dc - 1, &v); break; /* X > K*c + c - 1 */
    default: ok = false; break;
    }
    if (ok && fits_negated(d.dt, v)) {
      lin_free(&d);
      return simp(a, tir_binary(a->c, nk, X, tir_int(a->c, X->dtype, v)));
    }
  }
  if (!d.bad && movable) {
    int64_t lo, hi;
    lin_bound(a, &d, &lo, &hi);
    int dec = decide_cmp(k, lo, hi);
    if (dec >= 0) r = tir_bool(a->c, dec);
    else if (d.n == 0) r = NULL;
    else {
      r = cmp_normal_form(a, k, &d);
      tir_expr *low = cmp_split_low(a, k, &d);
      if (low && (!r || ana_expr_size(low) <= ana_expr_size(r))) r = low;
    }
  }
  lin_free(&d);
  if (r && r->kind != TIR_INT_IMM && (a->nconds > 0 || has_divmod(r))) {
    if (ana_isl_prove(a, r)) r = tir_bool(a->c, true);
    else if (ana_isl_prove(a, tir_binary(a->c, tir_cmp_negated(r->kind), r->u.bin.a, r->u.bin.b)))
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
  if (TIR_IS_CMP(x->kind) && ana_is_index_type(x->u.bin.a->dtype)) {
    tir_expr_kind k = tir_cmp_negated(x->kind); /* > and >= as < and <= swapped */
    if (k == TIR_GT || k == TIR_GE) return tir_binary(a->c, tir_cmp_swapped(k), x->u.bin.b, x->u.bin.a);
    return tir_binary(a->c, k, x->u.bin.a, x->u.bin.b);
  }
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
      /* a uint64 past int64's holds its bits in v: its value is unsigned */
      double d = x->dtype.code == TIR_TC_UINT && v < 0 ? (double)(uint64_t)v : (double)v;
      if (t.bits == 32) d = (double)(float)d;
      return t.bits >= 32 ? tir_float(a->c, t, d) : NULL;
    }
    return NULL;
  }
  /* a float constant's value is its literal rounded to its dtype: folded
   * from float32 and float64 only (T.float16(0.1) is 0.0999755859375,
   * which a fold of the literal 0.1 had lost) */
  if (x->kind == TIR_FLOAT_IMM && (x->dtype.code != TIR_TC_FLOAT || x->dtype.bits < 32)) return NULL;
  if (x->kind == TIR_FLOAT_IMM && t.code == TIR_TC_FLOAT && t.bits >= 32) {
    double d = x->dtype.bits == 32 ? (double)(float)x->u.float_val : x->u.float_val;
    if (t.bits == 32) d = (double)(float)d;
    return tir_float(a->c, t, d);
  }
  if (x->kind == TIR_FLOAT_IMM && t.code == TIR_TC_INT) {
    double d = x->dtype.bits == 32 ? (double)(float)x->u.float_val : x->u.float_val;
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
  if (tir_is_comm_reducer(e)) return e; /* a closed term, as TVM's passes leave it */
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
  bool v;
  /* likely(true) is true: a hint on a decided condition says nothing */
  tir_expr *r = e;
  if (!strcmp(e->u.call.op, "likely") && n == 1 && is_bool_const(args[0], &v)) {
    r = args[0];
  } else if (changed) { /* the same call: its position and spelling stay */
    r = tir_call(a->c, e->dtype, e->u.call.op, args, n);
    r->span = e->span;
    r->u.call.written_out = e->u.call.written_out;
    r->u.call.global = e->u.call.global;
  }
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
    if (e->dtype.lanes > 1) {
      tir_expr *v = simp_vec(a, e->kind, simp(a, e->u.bin.a), simp(a, e->u.bin.b));
      if (v) return v;
    }
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
