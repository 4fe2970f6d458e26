/* region.c - integer sets of accesses: the symbolic range of an expr as some
 * vars range over their domains (interval arithmetic), and the bounding box
 * of a union of accessed regions (isl where quasi-affine, intervals
 * otherwise). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyzer_internal.h"

typedef struct relax_ctx {
  tir_analyzer *a;
  const tir_relax_var *relax;
  int nrelax;
  bool tvm_sets; /* as TVM's interval evaluator (block regions): a cast of
                  * [lo, hi] is [cast lo, cast hi], a select's union is
                  * min(false, true) to max(false, true) */
} relax_ctx;

static bool mentions_relaxed(const relax_ctx *r, const tir_expr *e) {
  if (!e) return false;
  switch (e->kind) {
  case TIR_VAR:
    for (int i = 0; i < r->nrelax; i++)
      if (r->relax[i].var == e) return true;
    return false;
  case TIR_INT_IMM:
  case TIR_FLOAT_IMM:
  case TIR_STRING_IMM: return false;
  case TIR_NOT:
  case TIR_CAST: return mentions_relaxed(r, e->u.un.a);
  case TIR_SELECT:
    return mentions_relaxed(r, e->u.select.cond) || mentions_relaxed(r, e->u.select.t) ||
           mentions_relaxed(r, e->u.select.f);
  case TIR_CALL:
    for (int i = 0; i < e->u.call.nargs; i++)
      if (mentions_relaxed(r, e->u.call.args[i])) return true;
    return false;
  case TIR_BUFFER_LOAD:
    for (int i = 0; i < e->u.load.nidx; i++)
      if (mentions_relaxed(r, e->u.load.idx[i])) return true;
    return false;
  case TIR_RAMP: return mentions_relaxed(r, e->u.ramp.base) || mentions_relaxed(r, e->u.ramp.stride);
  case TIR_BROADCAST: return mentions_relaxed(r, e->u.bcast.value);
  case TIR_LET: return mentions_relaxed(r, e->u.let.value) || mentions_relaxed(r, e->u.let.body);
  default:
    if (TIR_IS_BINARY(e->kind)) return mentions_relaxed(r, e->u.bin.a) || mentions_relaxed(r, e->u.bin.b);
    return true;
  }
}

static tir_expr *bin(relax_ctx *r, tir_expr_kind k, tir_expr *x, tir_expr *y) {
  return tir_binary(r->a->c, k, x, y);
}

static tir_expr *cst(relax_ctx *r, tir_dtype t, int64_t v) { return tir_int(r->a->c, t, v); }

static bool sym_range(relax_ctx *r, tir_expr *e, tir_expr **lo, tir_expr **hi, int depth);

/* a bound that only says "some int32 (or wider)": a data-dependent value
 * (a load, a call) is bounded by its dtype alone, which no region can use */
static bool unbounded(tir_dtype t, int64_t l, int64_t h) {
  if (l == INT64_MIN || h == INT64_MAX) return true;
  /* a span its own dtype cannot hold as an extent (an int32 x // 2 of an
   * unbounded x: 2^31 values) bounds nothing a region can use */
  if (t.bits < 64 && (uint64_t)h - (uint64_t)l >= ((uint64_t)1 << (t.bits - 1)) - 1) return true;
  if (t.bits < 32 || t.bits >= 64) return false;
  int64_t lim = (int64_t)1 << (t.bits - 1);
  if (t.code == TIR_TC_UINT) return h >= 2 * lim - 1;
  return l <= -lim || h >= lim - 1;
}

/* constant bounds (relaxed vars are ranges in the analyzer meanwhile) */
static bool const_range(relax_ctx *r, tir_expr *e, tir_expr **lo, tir_expr **hi) {
  int64_t l, h;
  ana_bound(r->a, e, &l, &h);
  if (unbounded(e->dtype, l, h)) return false;
  *lo = cst(r, e->dtype, l);
  *hi = cst(r, e->dtype, h);
  return true;
}

static bool range_var(relax_ctx *r, tir_expr *e, tir_expr **lo, tir_expr **hi, int depth) {
  for (int i = 0; i < r->nrelax; i++) {
    if (r->relax[i].var != e) continue;
    const tir_relax_var *v = &r->relax[i];
    int64_t k;
    if (tir_is_const_int(v->min, NULL) && tir_is_const_int(v->extent, &k) && r->a->nfacts > 0)
      return const_range(r, e, lo, hi); /* constraints may narrow it */
    tir_expr *mx = bin(r, TIR_SUB, bin(r, TIR_ADD, v->min, v->extent), cst(r, e->dtype, 1));
    tir_expr *l1, *h1, *l2, *h2;
    if (!sym_range(r, v->min, &l1, &h1, depth + 1) || !sym_range(r, mx, &l2, &h2, depth + 1)) return false;
    *lo = l1;
    *hi = h2;
    return true;
  }
  *lo = *hi = e;
  return true;
}

static bool range_div(relax_ctx *r, tir_expr *e, tir_expr **lo, tir_expr **hi, int depth) {
  int64_t c;
  tir_expr *l, *h;
  bool quot = e->kind == TIR_FLOORDIV || e->kind == TIR_DIV;
  if (quot && tir_is_const_int(e->u.bin.b, &c) && c != 0) {
    /* x // c is monotone in x (decreasing for c < 0: the canonical form
     * writes (0 - x) // 2 as x // -2); an x with no bounds has a quotient
     * with none (its dtype's limits over c bound nothing a region can use) */
    if (!sym_range(r, e->u.bin.a, &l, &h, depth + 1)) return false;
    *lo = bin(r, e->kind, c > 0 ? l : h, e->u.bin.b);
    *hi = bin(r, e->kind, c > 0 ? h : l, e->u.bin.b);
    return true;
  }
  if (!tir_is_const_int(e->u.bin.b, &c) || c <= 0 || !sym_range(r, e->u.bin.a, &l, &h, depth + 1))
    return const_range(r, e, lo, hi);
  tir_analyzer *a = r->a;
  /* modulo: exact when the range stays within one period */
  tir_expr *ql = ana_canonical(a, bin(r, TIR_FLOORDIV, l, e->u.bin.b));
  tir_expr *qh = ana_canonical(a, bin(r, TIR_FLOORDIV, h, e->u.bin.b));
  if (e->kind == TIR_FLOORMOD && ana_expr_equal(ql, qh)) {
    tir_expr *off = bin(r, TIR_MUL, ql, e->u.bin.b);
    *lo = bin(r, TIR_SUB, l, off);
    *hi = bin(r, TIR_SUB, h, off);
    return true;
  }
  return const_range(r, e, lo, hi);
}

static bool has_select(const tir_expr *e, int depth) {
  if (!e || depth > 32) return false;
  if (e->kind == TIR_SELECT) return true;
  if (TIR_IS_BINARY(e->kind)) return has_select(e->u.bin.a, depth + 1) || has_select(e->u.bin.b, depth + 1);
  if (e->kind == TIR_CAST) return has_select(e->u.un.a, depth + 1);
  return false;
}

static bool sym_range(relax_ctx *r, tir_expr *e, tir_expr **lo, tir_expr **hi, int depth) {
  if (depth > 32) return false;
  /* TVM's evaluator takes a select as the union of its values even where
   * no var of it is relaxed (A[T.Select(c, vi, 3 - vi) + k]) */
  if (!mentions_relaxed(r, e) && !(r->tvm_sets && has_select(e, 0))) {
    *lo = *hi = e;
    return true;
  }
  tir_expr *al, *ah, *bl, *bh;
  int64_t c;
  switch (e->kind) {
  case TIR_VAR: return range_var(r, e, lo, hi, depth);
  case TIR_ADD:
  case TIR_SUB:
    if (!sym_range(r, e->u.bin.a, &al, &ah, depth + 1) || !sym_range(r, e->u.bin.b, &bl, &bh, depth + 1))
      return false;
    *lo = bin(r, e->kind, al, e->kind == TIR_ADD ? bl : bh);
    *hi = bin(r, e->kind, ah, e->kind == TIR_ADD ? bh : bl);
    return true;
  case TIR_MUL: {
    tir_expr *x = e->u.bin.a, *y = e->u.bin.b;
    if (tir_is_const_int(x, &c)) {
      x = e->u.bin.b;
      y = e->u.bin.a;
    } else if (!tir_is_const_int(y, &c)) {
      return const_range(r, e, lo, hi);
    }
    if (!sym_range(r, x, &al, &ah, depth + 1)) return false;
    *lo = bin(r, TIR_MUL, c >= 0 ? al : ah, y);
    *hi = bin(r, TIR_MUL, c >= 0 ? ah : al, y);
    return true;
  }
  case TIR_FLOORDIV:
  case TIR_FLOORMOD:
  case TIR_DIV:
  case TIR_MOD: return range_div(r, e, lo, hi, depth);
  case TIR_MIN:
  case TIR_MAX:
    if (!sym_range(r, e->u.bin.a, &al, &ah, depth + 1) || !sym_range(r, e->u.bin.b, &bl, &bh, depth + 1))
      return false;
    *lo = bin(r, e->kind, al, bl);
    *hi = bin(r, e->kind, ah, bh);
    return true;
  case TIR_SELECT:
    if (!sym_range(r, e->u.select.t, &al, &ah, depth + 1) || !sym_range(r, e->u.select.f, &bl, &bh, depth + 1))
      return false;
    *lo = r->tvm_sets ? bin(r, TIR_MIN, bl, al) : bin(r, TIR_MIN, al, bl);
    *hi = r->tvm_sets ? bin(r, TIR_MAX, bh, ah) : bin(r, TIR_MAX, ah, bh);
    return true;
  case TIR_CAST:
    if (!r->tvm_sets || e->dtype.lanes != 1 || !sym_range(r, e->u.un.a, &al, &ah, depth + 1))
      return const_range(r, e, lo, hi);
    *lo = tir_cast(r->a->c, e->dtype, al);
    *hi = tir_cast(r->a->c, e->dtype, ah);
    return true;
  default: return const_range(r, e, lo, hi);
  }
}

/* bind_range of a relaxed var to extent 1 binds a value: simplification
 * would substitute it; the interval walk must see the var itself */
static bool eval_range_in(relax_ctx *r, tir_expr *e, tir_expr **lo, tir_expr **hi) {
  tir_expr *s = e;
  if (ana_is_index_type(e->dtype)) {
    /* canonical first, so that bx*2 + n - bx*2 is n (relaxed vars are not
     * substituted: they are ranges, or values only when extent is 1) */
    s = ana_canonical(r->a, e);
  }
  return sym_range(r, s, lo, hi, 0);
}

bool ana_relaxed_bounds(tir_analyzer *a, tir_expr *e, const tir_relax_var *relax, int nrelax, tir_expr **lo,
                        tir_expr **hi) {
  relax_ctx r = {a, relax, nrelax, true};
  ana_saved sv;
  ana_push_ranges(a, relax, nrelax, &sv);
  bool ok = eval_range_in(&r, e, lo, hi);
  ana_pop_ranges(a, &sv);
  if (ok) {
    *lo = tir_simplify(a, *lo);
    *hi = tir_simplify(a, *hi);
  }
  return ok;
}

bool tir_eval_range(tir_analyzer *a, tir_expr *e, const tir_relax_var *relax, int nrelax, tir_range *out) {
  if (!a || !e || !out) return false;
  relax_ctx r = {a, relax, nrelax, false};
  ana_saved sv;
  ana_push_ranges(a, relax, nrelax, &sv);
  tir_expr *lo, *hi;
  bool ok = eval_range_in(&r, e, &lo, &hi);
  ana_pop_ranges(a, &sv);
  if (!ok) return false;
  out->min = tir_simplify(a, lo);
  out->extent = tir_simplify(a, tir_binary(a->c, TIR_ADD, tir_binary(a->c, TIR_SUB, hi, lo),
                                           tir_int(a->c, e->dtype, 1)));
  return true;
}

/* ---- bounding boxes ---- */

/* the union hull of [lo, hi] candidates: the provably smallest / largest
 * one, else a min / max of them */
static tir_expr *hull_end(tir_analyzer *a, tir_expr **xs, int n, bool lower) {
  for (int i = 0; i < n; i++) {
    bool best = true;
    for (int j = 0; j < n && best; j++) {
      if (i == j) continue;
      tir_expr *cmp = lower ? tir_binary(a->c, TIR_LE, xs[i], xs[j]) : tir_binary(a->c, TIR_GE, xs[i], xs[j]);
      best = tir_can_prove(a, cmp);
    }
    if (best) return xs[i];
  }
  tir_expr *r = xs[0];
  for (int i = 1; i < n; i++) r = tir_binary(a->c, lower ? TIR_MIN : TIR_MAX, r, xs[i]);
  return tir_simplify(a, r);
}

/* interval fallback for dim d */
static bool interval_dim(tir_analyzer *a, const tir_access_region *acc, int nacc, int d, tir_range *out) {
  tir_expr **los = malloc(sizeof *los * (size_t)nacc), **his = malloc(sizeof *his * (size_t)nacc);
  bool ok = true;
  for (int i = 0; i < nacc && ok; i++) {
    if (d >= acc[i].ndim) {
      ok = false;
      break;
    }
    relax_ctx r = {a, acc[i].relax, acc[i].nrelax, false};
    ana_saved sv;
    ana_push_ranges(a, acc[i].relax, acc[i].nrelax, &sv);
    int token = a->nconds;
    for (int k = 0; k < acc[i].nconds; k++) tir_analyzer_enter_constraint(a, acc[i].conds[k]);
    tir_expr *mn = acc[i].region[d].min, *ext = acc[i].region[d].extent;
    tir_expr *last = tir_binary(a->c, TIR_SUB, tir_binary(a->c, TIR_ADD, mn, ext), tir_int(a->c, mn->dtype, 1));
    tir_expr *l1, *h1, *l2, *h2;
    ok = eval_range_in(&r, mn, &l1, &h1) && eval_range_in(&r, last, &l2, &h2);
    if (ok) {
      los[i] = tir_simplify(a, l1);
      his[i] = tir_simplify(a, h2);
    }
    tir_analyzer_exit_constraint(a, token);
    ana_pop_ranges(a, &sv);
  }
  if (ok) {
    tir_expr *lo = hull_end(a, los, nacc, true), *hi = hull_end(a, his, nacc, false);
    out->min = lo;
    tir_expr *ext = tir_simplify(a, tir_binary(a->c, TIR_ADD, tir_binary(a->c, TIR_SUB, hi, lo),
                                               tir_int(a->c, lo->dtype, 1)));
    int64_t el, eh;
    if (!tir_is_const_int(ext, NULL)) {
      ana_bound(a, ext, &el, &eh);
      if (!unbounded(ext->dtype, 0, eh) && eh >= 0) ext = tir_int(a->c, ext->dtype, eh);
      else if (ana_isl_max(a, ext, &eh) && eh >= 0 && !unbounded(ext->dtype, 0, eh))
        ext = tir_int(a->c, ext->dtype, eh);
    }
    out->extent = ext;
  }
  free(los);
  free(his);
  return ok;
}

/* a box dim is usable unless a constant end is only its dtype's limit */
static bool dim_bounded(tir_range r) {
  int64_t v;
  if (tir_is_const_int(r.min, &v) && unbounded(r.min->dtype, v, v)) return false;
  if (tir_is_const_int(r.extent, &v) && unbounded(r.extent->dtype, 0, v)) return false;
  return true;
}

bool tir_region_bbox(tir_analyzer *a, const tir_access_region *acc, int nacc, int ndim, tir_range *out) {
  if (!a || !acc || nacc <= 0 || !out) return false;
  for (int d = 0; d < ndim; d++) out[d].min = out[d].extent = NULL;
  if (!ana_affine_bbox(a, acc, nacc, ndim, out) && !ana_isl_bbox(a, acc, nacc, ndim, out))
    for (int d = 0; d < ndim; d++) out[d].min = out[d].extent = NULL;
  for (int d = 0; d < ndim; d++) {
    if (!(out[d].min && out[d].extent) && !interval_dim(a, acc, nacc, d, &out[d])) return false;
    if (!dim_bounded(out[d])) return false;
  }
  return true;
}
