/* block_access.c - the reads and writes of a block from its body, as TVM's
 * GetBlockReadWriteRegion computes them: every load is a read, every store
 * a write (its loads reads), tvm_access_ptr an access of its buffer's
 * full region by its mask (1 read, 2 write, 3 both),
 * a nested block contributes its own regions with its iter vars replaced by
 * their bindings; loops inside the block are relaxed over their ranges and
 * if-conditions narrow them; regions of one buffer are merged into their
 * hull per dim, in first-access order.  Buffers the block allocates and its
 * match_buffer views are left out (an access through a view is an access
 * of the matched region of its source). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyzer_internal.h"
#include "ir/const_fold.h"
#include "ir/ptrmap.h"
#include "tir/visit.h"

typedef struct access {
  tir_buffer *buf;
  tir_expr **lo, **hi; /* malloc'd, ndim each */
  bool *all;           /* per dim: the whole dimension (TVM's unbounded set, which absorbs any union) */
  int ndim;
} access;

typedef struct access_list {
  access *v;
  int n, cap;
} access_list;

typedef struct detector {
  tir_ctx *c;
  tir_analyzer *a;
  const tir_block *top;
  tir_relax_var *relax;
  int nrelax, caprelax;
  tir_buffer_of_data_fn scope; /* the buffers in scope by data var (may be NULL) */
  void *scope_arg;
  tir_ptrmap local; /* allocated by the block or inside it -> 1 */
  const tir_buffer **views; /* declared inside the block (DeclBuffer: another name for some data) */
  int nviews, capviews;
  tir_ptrmap view_set;     /* views -> 1 */
  tir_ptrmap match_idx;    /* the block's match_buffers: buffer -> index + 1 (the first) */
  tir_ptrmap data_buf;     /* the block's match and alloc buffers: data var -> buffer (the first, matches first) */
  access_list reads, writes;
  tir_var_map lets; /* let-bound vars in scope -> their values (as TVM, regions see through lets) */
  /* the if-conditions entered around the access being recorded: regions
   * are merged with them left (they hold inside the branch only) */
  tir_expr **conds;
  int *toks;
  int nconds, capconds;
} detector;

static void *grow_arr(void *p, int *cap, int need, size_t elem);

/* cond holds over the rest of the walk (popped by pop_cond); one that
 * cannot hold here (a branch that never runs: if T.bool(True)'s else) is
 * not entered, as TVM's region detection still records the branch */
/* T.likely(c) is c to the analysis, in a conjunction too (TVM's condition
 * narrowing sees through it) */
static tir_expr *strip_likely(detector *d, tir_expr *c, int depth) {
  while (c->kind == TIR_CALL && c->u.call.nargs == 1 && !strcmp(c->u.call.op, "likely")) c = c->u.call.args[0];
  if (depth > 32) return c;
  if (c->kind == TIR_AND || c->kind == TIR_OR) {
    tir_expr *a = strip_likely(d, c->u.bin.a, depth + 1), *b = strip_likely(d, c->u.bin.b, depth + 1);
    return a == c->u.bin.a && b == c->u.bin.b ? c : tir_binary(d->c, c->kind, a, b);
  }
  if (c->kind == TIR_NOT) {
    tir_expr *a = strip_likely(d, c->u.un.a, depth + 1);
    return a == c->u.un.a ? c : tir_not(d->c, a);
  }
  return c;
}

static void push_cond(detector *d, tir_expr *cond) {
  cond = strip_likely(d, cond, 0);
  int cap = d->capconds;
  d->conds = grow_arr(d->conds, &d->capconds, d->nconds + 1, sizeof *d->conds);
  d->toks = grow_arr(d->toks, &cap, d->nconds + 1, sizeof *d->toks);
  bool never = tir_can_prove(d->a, tir_not(d->c, cond));
  d->conds[d->nconds] = never ? NULL : cond;
  d->toks[d->nconds++] = never ? -1 : tir_analyzer_enter_constraint(d->a, cond);
}

static void pop_cond(detector *d) {
  int t = d->toks[--d->nconds];
  if (t >= 0) tir_analyzer_exit_constraint(d->a, t);
}

/* leaves every entered condition (before a merge of regions), and enters
 * them again */
static void conds_leave(detector *d) {
  for (int i = d->nconds - 1; i >= 0; i--)
    if (d->toks[i] >= 0) tir_analyzer_exit_constraint(d->a, d->toks[i]);
}
static void conds_enter(detector *d) {
  for (int i = 0; i < d->nconds; i++)
    if (d->conds[i]) d->toks[i] = tir_analyzer_enter_constraint(d->a, d->conds[i]);
}

static void *grow_arr(void *p, int *cap, int need, size_t elem) {
  if (need <= *cap) return p;
  int ncap = *cap ? *cap * 2 : 8;
  while (ncap < need) ncap *= 2;
  void *q = realloc(p, (size_t)ncap * elem);
  if (!q) abort();
  *cap = ncap;
  return q;
}

/* malloc'd array of n (at least 1) elements */
static void *xmalloc_n(int n, size_t elem) {
  void *p = malloc(elem * (size_t)(n > 0 ? n : 1));
  if (!p) abort();
  return p;
}

static bool is_local(const detector *d, const tir_buffer *b) {
  return b && tir_ptrmap_get(&d->local, b, 0);
}

static const tir_match_buffer *match_of(const detector *d, const tir_buffer *b) {
  long i = b ? tir_ptrmap_get(&d->match_idx, b, 0) : 0;
  return i ? &d->top->match_buffers[i - 1] : NULL;
}

/* an end of the hull: min(u, v) (max) simplified where that gives one of
 * them (the one that bounds the other), else written as it is,
 * T.min(vi * 2, vi + 1), as TVM's union spells it (tirc's simplifier would
 * write vi + T.min(vi, 1)) */
typedef struct { tir_expr_kind k; bool found; } kind_find;
static bool kind_cb(tir_visitor *v, const tir_expr *e) {
  kind_find *f = v->user;
  if (e->kind == f->k) f->found = true;
  return !f->found;
}

/* TVM's union of two intervals simplifies each end, min(u, v) and max(u,
 * v), with its rewrite simplifier and no bounds on the block's vars; the
 * few of its rules that fire on region ends, so the hull is spelled as
 * TVM's (its rules are ordered: min(min(x, 7), y) becomes min(min(x, y),
 * 7), min(y, min(x, 7)) stays):
 *   an operand's floormod(x * c1 + c2, c3), c1 dividing c3 and 0 <= c2 <
 *   c1 (or none): floormod(x, c3 / c1) * c1 + c2;
 *   k(x, x): x; k(k(x, y), x), k(k(x, y), y), k(x, k(x, y)), k(y, k(x,
 *   y)): k(x, y);
 *   k(x + c, x), k(x, x + c) (and x - c): the one that bounds the other;
 *   k(k(x, c), y), c a constant and y not: k(k(x, y), c). */
static bool add_const(const tir_expr *e, const tir_expr *x, int64_t *c) {
  int64_t v;
  if ((e->kind == TIR_ADD || e->kind == TIR_SUB) && tir_is_const_int(e->u.bin.b, &v) && ana_expr_equal(e->u.bin.a, x)) {
    *c = e->kind == TIR_ADD ? v : -v;
    return true;
  }
  return false;
}

static tir_expr *tvm_rw(detector *d, tir_expr *e);

static tir_expr *tvm_rw_minmax(detector *d, tir_expr_kind k, tir_expr *a, tir_expr *b) {
  int64_t c;
  if (ana_expr_equal(a, b)) return a;
  if (a->kind == k && (ana_expr_equal(a->u.bin.a, b) || ana_expr_equal(a->u.bin.b, b))) return a;
  if (b->kind == k && (ana_expr_equal(b->u.bin.a, a) || ana_expr_equal(b->u.bin.b, a))) return b;
  if (add_const(a, b, &c)) return (k == TIR_MIN) == (c >= 0) ? b : a;
  if (add_const(b, a, &c)) return (k == TIR_MIN) == (c >= 0) ? a : b;
  if (a->kind == k && a->u.bin.b->kind == TIR_INT_IMM && b->kind != TIR_INT_IMM)
    return tir_binary(d->c, k, tvm_rw_minmax(d, k, a->u.bin.a, b), a->u.bin.b);
  return tir_binary(d->c, k, a, b);
}

static tir_expr *tvm_rw(detector *d, tir_expr *e) {
  switch (e->kind) {
  case TIR_MIN: case TIR_MAX: return tvm_rw_minmax(d, e->kind, tvm_rw(d, e->u.bin.a), tvm_rw(d, e->u.bin.b));
  case TIR_FLOORMOD: {
    tir_expr *x = tvm_rw(d, e->u.bin.a);
    int64_t c1, c2 = 0, c3;
    tir_expr *mul = x->kind == TIR_ADD && tir_is_const_int(x->u.bin.b, &c2) ? x->u.bin.a : x;
    if (tir_is_const_int(e->u.bin.b, &c3) && c3 > 0 && mul->kind == TIR_MUL && tir_is_const_int(mul->u.bin.b, &c1) &&
        c1 > 0 && c3 % c1 == 0 && c2 >= 0 && c2 < c1) {
      tir_dtype t = e->dtype;
      tir_expr *m = tir_binary(d->c, TIR_MUL, tir_binary(d->c, TIR_FLOORMOD, mul->u.bin.a, tir_int(d->c, t, c3 / c1)),
                               tir_int(d->c, t, c1));
      return c2 ? tir_binary(d->c, TIR_ADD, m, tir_int(d->c, t, c2)) : m;
    }
    return x == e->u.bin.a ? e : tir_binary(d->c, TIR_FLOORMOD, x, e->u.bin.b);
  }
  default: return e;
  }
}

/* e with each operand under its nest of k (min or max) simplified */
static tir_expr *simplify_leaves(detector *d, tir_expr_kind k, tir_expr *e) {
  if (e->kind != k) return tir_simplify(d->a, e);
  tir_expr *a = simplify_leaves(d, k, e->u.bin.a), *b = simplify_leaves(d, k, e->u.bin.b);
  return a == e->u.bin.a && b == e->u.bin.b ? e : tir_binary(d->c, k, a, b);
}

static tir_expr *hull_end(detector *d, tir_expr_kind k, tir_expr *u, tir_expr *v) {
  tir_expr *m = tir_binary(d->c, k, u, v);
  tir_expr *s = tir_simplify(d->a, m);
  if (ana_expr_equal(s, u) || ana_expr_equal(s, v)) return s;

  kind_find f = {k, false}; /* the simplifier resolved which bounds the other (A[vi * 2 // 2], A[vi + 1 - 1]: vi) */
  tir_visitor vis = {.expr = kind_cb, .user = &f};
  tir_visit_expr(&vis, s);
  if (!f.found) return s;
  /* TVM's simplifier rewrites the operands first (8 - vi - 1 is 7 - vi),
   * the leaves under a min of a min as well (T.min(vi * 4 + 3 + 1, 15)) */
  return tvm_rw(d, tir_binary(d->c, k, simplify_leaves(d, k, u), simplify_leaves(d, k, v)));
}

/* merge [lo, hi] per dim into the list entry of buf (the hull) */
static void update(detector *d, access_list *l, tir_buffer *buf, tir_expr **lo, tir_expr **hi, const bool *all,
                   int ndim) {
  tir_analyzer *a = d->a;
  for (int i = 0; i < l->n; i++) {
    access *x = &l->v[i];
    if (x->buf != buf || x->ndim != ndim) continue;
    bool same = true; /* the access adds nothing: no union to simplify */
    for (int k = 0; k < ndim && same; k++)
      same = x->all[k] == all[k] && ana_expr_equal(x->lo[k], lo[k]) && ana_expr_equal(x->hi[k], hi[k]);
    if (same) { /* TVM's union of the two, one interval, still goes through its simplifier */
      for (int k = 0; k < ndim; k++) x->lo[k] = tvm_rw(d, x->lo[k]), x->hi[k] = tvm_rw(d, x->hi[k]);
      return;
    }
    /* the union holds outside the branch too: merged without its conditions */
    conds_leave(d);
    for (int k = 0; k < ndim; k++) {
      if (x->all[k] || all[k]) { /* a whole dimension absorbs the other */
        if (!x->all[k]) x->lo[k] = lo[k], x->hi[k] = hi[k], x->all[k] = true;
        continue;
      }
      /* indices of two int widths (A[T.int64(1)] and A[0]): the union in the wider */
      if (!tir_dtype_eq(x->lo[k]->dtype, lo[k]->dtype)) {
        bool wide = x->lo[k]->dtype.bits >= lo[k]->dtype.bits;
        tir_dtype t = wide ? x->lo[k]->dtype : lo[k]->dtype;
        if (wide) lo[k] = tir_simplify(a, tir_cast(d->c, t, lo[k])), hi[k] = tir_simplify(a, tir_cast(d->c, t, hi[k]));
        else x->lo[k] = tir_simplify(a, tir_cast(d->c, t, x->lo[k])), x->hi[k] = tir_simplify(a, tir_cast(d->c, t, x->hi[k]));
      }
      if (!ana_expr_equal(x->lo[k], lo[k])) x->lo[k] = hull_end(d, TIR_MIN, x->lo[k], lo[k]);
      if (!ana_expr_equal(x->hi[k], hi[k])) x->hi[k] = hull_end(d, TIR_MAX, x->hi[k], hi[k]);
    }
    conds_enter(d);
    return;
  }
  l->v = grow_arr(l->v, &l->cap, l->n + 1, sizeof *l->v);
  access *x = &l->v[l->n++];
  x->buf = buf;
  x->ndim = ndim;
  x->lo = xmalloc_n(ndim, sizeof *x->lo);
  x->hi = xmalloc_n(ndim, sizeof *x->hi);
  x->all = xmalloc_n(ndim, sizeof *x->all);
  memcpy(x->all, all, sizeof *all * (size_t)ndim);
  memcpy(x->lo, lo, sizeof *lo * (size_t)ndim);
  memcpy(x->hi, hi, sizeof *hi * (size_t)ndim);
}

/* relaxed [lo, hi] of a range [min, min+extent) */
typedef struct {
  const detector *d;
  bool relaxed, shift;
} point_find;

static bool point_expr(tir_visitor *v, const tir_expr *e) {
  point_find *f = v->user;
  if (e->kind == TIR_VAR)
    for (int i = 0; i < f->d->nrelax; i++) f->relaxed |= f->d->relax[i].var == e;
  if (e->kind == TIR_CALL && (!strcmp(e->u.call.op, "shift_right") || !strcmp(e->u.call.op, "shift_left")))
    f->shift = true;
  return !f->relaxed;
}

static bool relax_range(detector *d, tir_expr *min, tir_expr *extent, tir_expr **lo, tir_expr **hi) {
  tir_expr *last = tir_binary(d->c, TIR_SUB, tir_binary(d->c, TIR_ADD, min, extent), tir_int(d->c, min->dtype, 1));
  tir_expr *l2, *h1;
  if (extent->kind == TIR_INT_IMM && extent->u.int_val == 1) {
    /* a point none of whose vars is relaxed: the index as written, as TVM's
     * region detection keeps it (A[vi * 2 // 2]; one with a shift is its
     * whole dimension, record_ranges) */
    point_find f = {d, false, false};
    tir_visitor v = {.expr = point_expr, .user = &f};
    tir_visit_expr(&v, min);
    if (!f.relaxed) {
      *lo = *hi = min;
      return true;
    }
    return ana_relaxed_bounds(d->a, min, d->relax, d->nrelax, lo, hi);
  }
  return ana_relaxed_bounds(d->a, min, d->relax, d->nrelax, lo, &h1) &&
         ana_relaxed_bounds(d->a, last, d->relax, d->nrelax, &l2, hi);
}

typedef struct {
  const detector *d;
  bool found;
} local_find;

static bool local_load_expr(tir_visitor *v, const tir_expr *e) {
  local_find *f = v->user;
  if (e->kind == TIR_BUFFER_LOAD && is_local(f->d, e->u.load.buf)) f->found = true;
  return !f->found;
}

/* e loads a buffer allocated in the block */
static bool loads_local(const detector *d, const tir_expr *e) {
  if (!e) return false;
  local_find f = {d, false};
  tir_visitor v = {.expr = local_load_expr, .user = &f};
  tir_visit_expr(&v, e);
  return f.found;
}

/* ---- an index's integer set as TVM's interval evaluator finds it ----
 * TVM's region detection evaluates each index (EvalSet over the loops
 * inside the block).  Where the index holds no relaxed var it is a point,
 * kept as written, except that its evaluator
 *  - finds no bound for a call (any: if_then_else, bitwise ops, shifts,
 *    vscale), a float constant, a string, a `not`, a let, a load of a
 *    non-integer buffer or one whose indices hold a relaxed var: the
 *    access is then of the whole dimension;
 *  - drops a cast to the value's own dtype and folds a cast of a constant
 *    (T.Cast("int32", T.int64(3)) is 3), and rebuilds the node above with
 *    constant folding (T.Cast("int32", T.int64(-1)) + 1 + vi is vi);
 *  - takes a select as the union of its two values (the condition is not
 *    used): the interval from their min to their max;
 *  - carries intervals, possibly half-bounded (TS_RANGE with a NULL side),
 *    through + - min max and * // % by a constant; a region takes a
 *    half-bounded one whole.
 * TS_OPEN marks what this walk leaves to the code before it (relaxed vars,
 * comparisons of intervals, other operators over intervals): the index as
 * written, or its relaxed bounds. */
typedef enum { TS_POINT, TS_RANGE, TS_ALL, TS_OPEN } tset_kind;

typedef struct {
  tset_kind k;
  tir_expr *lo, *hi; /* TS_POINT: lo == hi, the point */
  bool same;         /* TS_POINT: the expr itself, unchanged */
} tset;

static tset ts_point(tir_expr *e, bool same) { return (tset){TS_POINT, e, e, same}; }
static tset ts_kind(tset_kind k) { return (tset){k, NULL, NULL, false}; }

/* a op b built as TVM's operators build it: constants folded, identities */
static tir_expr *ts_bin(detector *d, tir_expr_kind k, tir_expr *a, tir_expr *b) {
  if (tir_dtype_eq(a->dtype, b->dtype)) {
    tir_expr *f = ir_fold_apply(d->c, ir_const_fold(k, a, b), a, b);
    if (f) return f;
  }
  return tir_binary(d->c, k, a, b);
}

/* one end of a union: the provable one, else min / max of the two */
static tir_expr *ts_union_end(detector *d, tir_expr_kind k, tir_expr *f, tir_expr *t) {
  tir_expr *a = tir_simplify(d->a, f), *b = tir_simplify(d->a, t);
  if (ana_expr_equal(a, b)) return a;
  if (tir_dtype_eq(a->dtype, b->dtype)) {
    tir_expr *x = ir_fold_apply(d->c, ir_const_fold(k, a, b), a, b);
    if (x) return x;
    tir_expr_kind cmp = k == TIR_MIN ? TIR_LE : TIR_GE;
    if (tir_can_prove(d->a, tir_binary(d->c, cmp, a, b))) return a;
    if (tir_can_prove(d->a, tir_binary(d->c, cmp, b, a))) return b;
  }
  return tir_binary(d->c, k, a, b);
}

/* a set's bounds, NULL for an infinite side */
static void ts_bounds(tset t, tir_expr **lo, tir_expr **hi) {
  *lo = t.k == TS_ALL ? NULL : t.lo;
  *hi = t.k == TS_ALL ? NULL : t.hi;
}

/* [lo, hi], an infinite side NULL: TVM's half-bounded sets, which a
 * region takes as unbounded (the whole dimension) unless min/max bound
 * them again (T.min(T.max(x | 1, 2), 5) is [2, 5]) */
static tset ts_range(tir_expr *lo, tir_expr *hi) {
  if (!lo && !hi) return ts_kind(TS_ALL);
  return (tset){TS_RANGE, lo, hi, false};
}

static tir_expr *ts_opt(detector *d, tir_expr_kind k, tir_expr *a, tir_expr *b) {
  return a && b ? ts_bin(d, k, a, b) : NULL;
}

static tset tvm_set(detector *d, tir_expr *e, int depth) {
  if (depth > 64) return ts_kind(TS_OPEN);
  switch (e->kind) {
  case TIR_VAR:
    for (int i = 0; i < d->nrelax; i++)
      if (d->relax[i].var == e) return ts_kind(TS_OPEN);
    return ts_point(e, true);
  case TIR_INT_IMM: return ts_point(e, true);
  case TIR_FLOAT_IMM:
  case TIR_STRING_IMM:
  case TIR_NOT:
  case TIR_LET:
  case TIR_CALL: return ts_kind(TS_ALL);
  case TIR_BUFFER_LOAD: {
    if (!tir_dtype_is_int(e->dtype) || e->dtype.lanes != 1) return ts_kind(TS_ALL);
    point_find f = {d, false, false};
    tir_visitor v = {.expr = point_expr, .user = &f};
    for (int i = 0; i < e->u.load.nidx; i++) tir_visit_expr(&v, e->u.load.idx[i]);
    return f.relaxed ? ts_kind(TS_ALL) : ts_point(e, true);
  }
  case TIR_CAST: {
    tset v = tvm_set(d, e->u.un.a, depth + 1);
    if (v.k == TS_ALL || v.k == TS_OPEN) return v;
    if (v.k == TS_RANGE) /* the cast of each bound */
      return ts_range(v.lo ? tir_cast(d->c, e->dtype, v.lo) : NULL, v.hi ? tir_cast(d->c, e->dtype, v.hi) : NULL);
    int64_t c;
    if (tir_dtype_eq(v.lo->dtype, e->dtype)) return ts_point(v.lo, false);
    if (v.lo->kind == TIR_INT_IMM && (c = v.lo->u.int_val, true) && tir_dtype_is_int(e->dtype) && e->dtype.lanes == 1 && ana_fits(e->dtype, c))
      return ts_point(tir_int(d->c, e->dtype, c), false);
    return v.same ? ts_point(e, true) : ts_point(tir_cast(d->c, e->dtype, v.lo), false);
  }
  case TIR_SELECT: {
    tset t = tvm_set(d, e->u.select.t, depth + 1), f = tvm_set(d, e->u.select.f, depth + 1);
    if (t.k == TS_OPEN || f.k == TS_OPEN) return ts_kind(TS_OPEN);
    tir_expr *tl, *th, *fl, *fh;
    ts_bounds(t, &tl, &th);
    ts_bounds(f, &fl, &fh);
    return ts_range(tl && fl ? ts_union_end(d, TIR_MIN, fl, tl) : NULL, th && fh ? ts_union_end(d, TIR_MAX, fh, th) : NULL);
  }
  default:
    if (!TIR_IS_BINARY(e->kind)) return ts_kind(TS_OPEN);
    {
      tset a = tvm_set(d, e->u.bin.a, depth + 1), b = tvm_set(d, e->u.bin.b, depth + 1);
      bool logic = TIR_IS_CMP(e->kind) || e->kind == TIR_AND || e->kind == TIR_OR;
      if (logic && (a.k != TS_POINT || b.k != TS_POINT)) return ts_kind(TS_OPEN); /* a bool: [0, 1] */
      /* no bound on a side of one operand: none on that side of the result
       * (what bounds a relaxed operand is left to the code before) */
      if ((a.k == TS_ALL && b.k == TS_OPEN) || (a.k == TS_OPEN && b.k == TS_ALL)) return ts_kind(TS_ALL);
      if (a.k == TS_OPEN || b.k == TS_OPEN) return ts_kind(TS_OPEN);
      if (a.k == TS_POINT && b.k == TS_POINT)
        return a.same && b.same ? ts_point(e, true) : ts_point(ts_bin(d, e->kind, a.lo, b.lo), false);
      tir_expr *al, *ah, *bl, *bh;
      ts_bounds(a, &al, &ah);
      ts_bounds(b, &bl, &bh);
      int64_t m;
      bool cb = b.k == TS_POINT && tir_is_const_int(b.lo, &m);
      switch (e->kind) {
      case TIR_ADD: return ts_range(ts_opt(d, TIR_ADD, al, bl), ts_opt(d, TIR_ADD, ah, bh));
      case TIR_SUB: return ts_range(ts_opt(d, TIR_SUB, al, bh), ts_opt(d, TIR_SUB, ah, bl));
      case TIR_MIN: return ts_range(ts_opt(d, TIR_MIN, al, bl), ah && bh ? ts_bin(d, TIR_MIN, ah, bh) : ah ? ah : bh);
      case TIR_MAX: return ts_range(al && bl ? ts_bin(d, TIR_MAX, al, bl) : al ? al : bl, ts_opt(d, TIR_MAX, ah, bh));
      case TIR_MUL:
      case TIR_FLOORDIV: /* by a constant: monotone, decreasing for c < 0 */
        if (!cb || m == 0) return a.k == TS_ALL || b.k == TS_ALL ? ts_kind(TS_ALL) : ts_kind(TS_OPEN);
        return m > 0 ? ts_range(ts_opt(d, e->kind, al, b.lo), ts_opt(d, e->kind, ah, b.lo))
                     : ts_range(ts_opt(d, e->kind, ah, b.lo), ts_opt(d, e->kind, al, b.lo));
      case TIR_FLOORMOD:
      case TIR_MOD:
        /* x % c of an x unbounded on a side: [0, c - 1] (TVM assumes x >= 0 for truncmod) */
        if (cb && m > 0 && (!al || !ah)) return ts_range(tir_int(d->c, e->dtype, 0), tir_int(d->c, e->dtype, m - 1));
        return a.k == TS_ALL || b.k == TS_ALL ? ts_kind(TS_ALL) : ts_kind(TS_OPEN);
      default: return a.k == TS_ALL || b.k == TS_ALL ? ts_kind(TS_ALL) : ts_kind(TS_OPEN);
      }
    }
  }
}

/* dim i of buf whole: TVM's unbounded set clamped to the buffer,
 * Range(0, shape) with an int32 0, marked so that it absorbs any union */
static void whole_dim(detector *d, const tir_buffer *buf, int i, tir_expr **lo, tir_expr **hi, bool *all) {
  lo[i] = tir_int(d->c, TIR_INT32, 0);
  hi[i] = tir_simplify(d->a, tir_binary(d->c, TIR_SUB, buf->shape[i], tir_int(d->c, buf->shape[i]->dtype, 1)));
  all[i] = true;
}

/* an access of buf over ranges (min, extent) per dim */
static void record_ranges(detector *d, access_list *l, tir_buffer *buf, const tir_range *rg, int n);

static void record(detector *d, access_list *l, tir_buffer *buf, const tir_range *rg, int n) {
  if (!d->lets.n) {
    record_ranges(d, l, buf, rg, n);
    return;
  }
  /* a region in let-bound vars is one in their values (found by tests/exec:
   * plan_alloc's new block named let vars outside their scope) */
  tir_range *sub = xmalloc_n(n, sizeof *sub);
  for (int i = 0; i < n; i++) {
    sub[i].min = tir_substitute_expr(d->c, rg[i].min, &d->lets);
    sub[i].extent = tir_substitute_expr(d->c, rg[i].extent, &d->lets);
  }
  record_ranges(d, l, buf, sub, n);
  free(sub);
}

static tir_buffer *buffer_of_data(const detector *d, const tir_expr *data);

/* a + b as TVM's operator+ builds it: a 0 on either side folded away, two
 * constants summed */
static tir_expr *add_folded(tir_ctx *c, tir_expr *a, tir_expr *b) {
  int64_t x, y;
  /* operands of two int widths (a view over B[vi:vi + T.int64(4)] indexed
   * V[0]): the narrower in the wider type, as TVM's operator+ makes it */
  if (!tir_dtype_eq(a->dtype, b->dtype) && tir_dtype_is_int(a->dtype) && tir_dtype_is_int(b->dtype) &&
      a->dtype.lanes == 1 && b->dtype.lanes == 1) {
    tir_expr **narrow = a->dtype.bits < b->dtype.bits ? &a : &b;
    tir_dtype wide = a->dtype.bits < b->dtype.bits ? b->dtype : a->dtype;
    *narrow = tir_is_const_int(*narrow, &x) ? tir_int(c, wide, x) : tir_cast(c, wide, *narrow);
  }
  bool ca = tir_is_const_int(a, &x) && a->dtype.lanes == 1, cb = tir_is_const_int(b, &y) && b->dtype.lanes == 1;
  if (ca && cb && tir_dtype_eq(a->dtype, b->dtype) && a->dtype.bits == 64)
    return tir_int(c, a->dtype, (int64_t)((uint64_t)x + (uint64_t)y));
  if (ca && cb && tir_dtype_eq(a->dtype, b->dtype) && a->dtype.bits == 32 && x + y >= INT32_MIN && x + y <= INT32_MAX)
    return tir_int(c, a->dtype, x + y);
  if (cb && y == 0 && tir_dtype_eq(a->dtype, b->dtype)) return a;
  if (ca && x == 0 && tir_dtype_eq(a->dtype, b->dtype)) return b;
  return tir_binary(c, TIR_ADD, a, b);
}

static void record_ranges(detector *d, access_list *l, tir_buffer *buf, const tir_range *rg, int n) {
  if (is_local(d, buf)) return;
  bool inner_view = false;
  inner_view = tir_ptrmap_get(&d->view_set, buf, 0) != 0;
  tir_range *whole = NULL;
  if (inner_view) {
    /* a buffer the block declares over other data names nothing outside
     * it: the access is one of the whole buffer that data is, where that
     * buffer is known (else of nothing a region can name) */
    tir_buffer *o = buffer_of_data(d, buf->data);
    if (!o || o == buf || is_local(d, o)) return;
    whole = xmalloc_n(o->ndim, sizeof *whole);
    for (int i = 0; i < o->ndim; i++) whole[i] = (tir_range){tir_int(d->c, o->shape[i]->dtype, 0), o->shape[i]};
    record_ranges(d, l, o, whole, o->ndim);
    free(whole);
    return;
  }
  const tir_match_buffer *mb = match_of(d, buf);
  tir_range *conv = NULL;
  if (mb) {
    /* through a view: the matched region of the source, dims aligned to
     * the innermost ones */
    int ns = mb->src.n, off = ns - n;
    if (off < 0) return;
    conv = xmalloc_n(ns, sizeof *conv);
    for (int i = 0; i < ns; i++) {
      if (i < off) {
        conv[i] = mb->src.region[i];
      } else {
        conv[i].min = add_folded(d->c, mb->src.region[i].min, rg[i - off].min);
        conv[i].extent = rg[i - off].extent;
      }
    }
    buf = mb->src.buf;
    rg = conv;
    n = ns;
    if (is_local(d, buf)) {
      free(conv);
      return;
    }
  }
  tir_expr **lo = xmalloc_n(n, sizeof *lo), **hi = xmalloc_n(n, sizeof *hi);
  bool *all = xmalloc_n(n, sizeof *all);
  memset(all, 0, sizeof *all * (size_t)n);
  bool ok = true;
  /* an index that loads a buffer the block allocates (a tirx local scalar
   * x = ...: A[x]) names nothing outside the block: the whole dimension */
  for (int i = 0; i < n && ok; i++) ok = !loads_local(d, rg[i].min) && !loads_local(d, rg[i].extent);
  for (int i = 0; i < n && ok; i++) {
    /* a shift in the index: TVM's interval evaluator does not bound it, and
     * its region detection takes the whole dimension (W[vi, vj >> 3] reads
     * W[vi, 0:16]) */
    point_find f = {d, false, false};
    tir_visitor v = {.expr = point_expr, .user = &f};
    tir_visit_expr(&v, rg[i].min);
    int64_t one;
    tset ts = ts_kind(TS_OPEN);
    if (tir_is_const_int(rg[i].extent, &one) && one == 1) ts = tvm_set(d, rg[i].min, 0);
    if (ts.k == TS_RANGE && (!ts.lo || !ts.hi)) ts.k = TS_ALL; /* half-bounded: TVM's region takes it whole */
    if (ts.k == TS_POINT || ts.k == TS_RANGE) {
      lo[i] = ts.lo;
      hi[i] = ts.hi;
      continue;
    }
    /* the access_ptr's full region: [0, shape) (its int32 0) */
    bool full = rg[i].min->kind == TIR_INT_IMM && rg[i].min->u.int_val == 0 && i < buf->ndim &&
                rg[i].extent == buf->shape[i] && !tir_dtype_eq(rg[i].min->dtype, rg[i].extent->dtype);
    if ((f.shift || ts.k == TS_ALL || full) && i < buf->ndim) {
      whole_dim(d, buf, i, lo, hi, all);
      continue;
    }
    ok = relax_range(d, rg[i].min, rg[i].extent, &lo[i], &hi[i]);
  }
  if (!ok) { /* unbounded: the whole buffer */
    for (int i = 0; i < n && i < buf->ndim; i++) whole_dim(d, buf, i, lo, hi, all);
    if (n != buf->ndim) n = 0;
  }
  if (n || !buf->ndim) update(d, l, buf, lo, hi, all, n);
  free(all);
  free(lo);
  free(hi);
  free(conv);
}

static void record_point(detector *d, access_list *l, tir_buffer *buf, tir_expr *const *idx, int n) {
  tir_range *rg = xmalloc_n(n, sizeof *rg);
  for (int i = 0; i < n; i++) {
    tir_expr *x = idx[i];
    if (x->kind == TIR_RAMP) { /* a vector index spans base .. base + stride * (lanes - 1) */
      tir_dtype it = x->u.ramp.base->dtype;
      int k = x->u.ramp.lanes & ~TIR_LANES_SCALABLE;
      /* lanes - 1: k - 1, or (scalable) k * vscale - 1 */
      tir_expr *last = tir_int(d->c, it, k - 1);
      if (x->u.ramp.lanes & TIR_LANES_SCALABLE)
        last = tir_binary(d->c, TIR_SUB,
                          tir_binary(d->c, TIR_MUL, tir_call(d->c, it, "vscale", NULL, 0), tir_int(d->c, it, k)),
                          tir_int(d->c, it, 1));
      int64_t s;
      if (tir_is_const_int(x->u.ramp.stride, &s) && s != 0) {
        tir_expr *span = s > 0 ? last : tir_binary(d->c, TIR_MUL, last, tir_int(d->c, it, -s));
        if (s > 0 && s != 1) span = tir_binary(d->c, TIR_MUL, last, tir_int(d->c, it, s));
        rg[i].min = s > 0 ? x->u.ramp.base : tir_binary(d->c, TIR_SUB, x->u.ramp.base, span);
        rg[i].extent = tir_binary(d->c, TIR_ADD, span, tir_int(d->c, it, 1));
        if (!(x->u.ramp.lanes & TIR_LANES_SCALABLE)) /* a constant */
          rg[i].extent = tir_int(d->c, it, (int64_t)(k - 1) * (s > 0 ? s : -s) + 1);
        continue;
      }
      /* a stride not known: the whole dimension */
      rg[i].min = tir_int(d->c, buf->shape[i]->dtype, 0);
      rg[i].extent = buf->shape[i];
      continue;
    }
    rg[i].min = x;
    rg[i].extent = tir_int(d->c, x->dtype, 1);
  }
  record(d, l, buf, rg, n);
  free(rg);
}

static tir_buffer *buffer_of_data(const detector *d, const tir_expr *data) {
  tir_buffer *b = d->scope ? d->scope(d->scope_arg, data) : NULL;
  if (b) return b;
  return data ? (tir_buffer *)tir_ptrmap_get(&d->data_buf, data, 0) : NULL;
}

static void walk_expr(detector *d, tir_expr *e);
static int push_let(detector *d, const tir_expr *var, tir_expr *value, tir_expr **prev);
static void pop_let(detector *d, const tir_expr *var, int n, tir_expr *prev);

/* tvm_access_ptr(type, data, offset, extent, mask): the full region of the
 * buffer named by its data var, as TVM 0.27 (offset and extent are not
 * used: an n-D region cannot be recovered from a 1-D span in general) */
static void access_ptr(detector *d, tir_expr *e) {
  tir_expr **args = e->u.call.args;
  int64_t mask;
  tir_buffer *buf = tir_is_var(args[1]) ? buffer_of_data(d, args[1]) : NULL;
  if (!buf || !tir_is_const_int(args[4], &mask)) {
    for (int i = 0; i < e->u.call.nargs; i++) walk_expr(d, args[i]);
    return;
  }
  int n = buf->ndim;
  tir_range *rg = xmalloc_n(n, sizeof *rg);
  for (int i = 0; i < n; i++) {
    rg[i].min = tir_int(d->c, TIR_INT32, 0); /* TVM's Range(0, shape) */
    rg[i].extent = buf->shape[i];
  }
  if (mask & 1) record(d, &d->reads, buf, rg, n);
  if (mask & 2) record(d, &d->writes, buf, rg, n);
  free(rg);
}

static void walk_expr(detector *d, tir_expr *e) {
  if (!e) return;
  switch (e->kind) {
  case TIR_BUFFER_LOAD:
    record_point(d, &d->reads, e->u.load.buf, e->u.load.idx, e->u.load.nidx);
    for (int i = 0; i < e->u.load.nidx; i++) walk_expr(d, e->u.load.idx[i]);
    return;
  case TIR_CALL:
    if (!strcmp(e->u.call.op, "tvm_access_ptr") && e->u.call.nargs == 5) {
      access_ptr(d, e);
      return;
    }
    if (!strcmp(e->u.call.op, "if_then_else") && e->u.call.nargs == 3) {
      /* each value under its branch's condition, as an if statement's */
      tir_expr *c = e->u.call.args[0];
      walk_expr(d, c);
      push_cond(d, c);
      walk_expr(d, e->u.call.args[1]);
      pop_cond(d);
      push_cond(d, tir_not(d->c, c));
      walk_expr(d, e->u.call.args[2]);
      pop_cond(d);
      return;
    }
    for (int i = 0; i < e->u.call.nargs; i++) walk_expr(d, e->u.call.args[i]);
    return;
  case TIR_NOT:
  case TIR_CAST: walk_expr(d, e->u.un.a); return;
  case TIR_SELECT:
    walk_expr(d, e->u.select.cond);
    walk_expr(d, e->u.select.t);
    walk_expr(d, e->u.select.f);
    return;
  case TIR_RAMP:
    walk_expr(d, e->u.ramp.base);
    walk_expr(d, e->u.ramp.stride);
    return;
  case TIR_BROADCAST: walk_expr(d, e->u.bcast.value); return;
  case TIR_LET: {
    walk_expr(d, e->u.let.value);
    tir_expr *prev;
    int n = push_let(d, e->u.let.var, e->u.let.value, &prev);
    walk_expr(d, e->u.let.body);
    pop_let(d, e->u.let.var, n, prev);
    return;
  }
  default:
    if (TIR_IS_BINARY(e->kind)) {
      walk_expr(d, e->u.bin.a);
      walk_expr(d, e->u.bin.b);
    }
    return;
  }
}

static void walk_stmt(detector *d, tir_stmt *s);

/* var = value while its body is walked */
static int push_let(detector *d, const tir_expr *var, tir_expr *value, tir_expr **prev) {
  int n = d->lets.n;
  *prev = tir_var_map_get(&d->lets, var);
  tir_var_map_set(&d->lets, var, d->lets.n ? tir_substitute_expr(d->c, value, &d->lets) : value);
  return n;
}

static void pop_let(detector *d, const tir_expr *var, int n, tir_expr *prev) {
  if (prev) tir_var_map_set(&d->lets, var, prev);
  else d->lets.n = n;
}

static void nested_regions(detector *d, const tir_buffer_region *rs, int n, access_list *l,
                           const tir_var_map *vmap) {
  for (int i = 0; i < n; i++) {
    const tir_buffer_region *r = &rs[i];
    tir_range *rg = xmalloc_n(r->n, sizeof *rg);
    for (int k = 0; k < r->n; k++) {
      rg[k].min = tir_substitute_expr(d->c, r->region[k].min, vmap);
      rg[k].extent = tir_substitute_expr(d->c, r->region[k].extent, vmap);
    }
    record(d, l, r->buf, rg, r->n);
    free(rg);
  }
}

/* a nested block: its own regions, iter vars replaced by their bindings */
static void walk_stmt(detector *d, tir_stmt *s);

static void nested_block(detector *d, tir_stmt *s) {
  const tir_block *b = s->u.realize.block;
  if (b->no_realize) { /* TVM's bare SBlock: its init and body, as any statement's (its regions are not looked at) */
    walk_stmt(d, b->init);
    walk_stmt(d, b->body);
    return;
  }
  tir_var_map vmap = {0};
  for (int i = 0; i < b->n_iter && i < s->u.realize.n; i++)
    tir_var_map_set(&vmap, b->iter_vars[i].var, tir_block_binding(d->c, b->iter_vars[i].var, s->u.realize.iter_values[i]));
  const tir_buffer_region *rd = b->reads, *wr = b->writes;
  int nr = b->n_reads, nw = b->n_writes;
  tir_buffer_region *ir = NULL, *iw = NULL;
  if (!nr && !nw && !b->regions_known) {
    tir_block_infer_access_by(d->c, b, d->scope, d->scope_arg, &ir, &nr, &iw, &nw);
    rd = ir;
    wr = iw;
  }
  nested_regions(d, rd, nr, &d->reads, &vmap);
  nested_regions(d, wr, nw, &d->writes, &vmap);
  tir_var_map_free(&vmap);
}

static void push_relax(detector *d, tir_expr *var, tir_expr *min, tir_expr *extent) {
  d->relax = grow_arr(d->relax, &d->caprelax, d->nrelax + 1, sizeof *d->relax);
  d->relax[d->nrelax].var = var;
  d->relax[d->nrelax].min = min;
  d->relax[d->nrelax].extent = extent;
  d->nrelax++;
}

static void push_local(detector *d, const tir_buffer *b) {
  if (b) tir_ptrmap_put(&d->local, b, 1);
}

static void walk_stmt(detector *d, tir_stmt *s) {
  if (!s) return;
  switch (s->kind) {
  case TIR_BUFFER_STORE:
    record_point(d, &d->writes, s->u.store.buf, s->u.store.idx, s->u.store.nidx);
    walk_expr(d, s->u.store.value);
    for (int i = 0; i < s->u.store.nidx; i++) walk_expr(d, s->u.store.idx[i]);
    return;
  case TIR_LET_STMT: {
    walk_expr(d, s->u.let.value);
    tir_expr *prev;
    int n = push_let(d, s->u.let.var, s->u.let.value, &prev);
    walk_stmt(d, s->u.let.body);
    pop_let(d, s->u.let.var, n, prev);
    return;
  }
  case TIR_FOR:
    walk_expr(d, s->u.loop.min);
    walk_expr(d, s->u.loop.extent);
    push_relax(d, s->u.loop.var, s->u.loop.min, s->u.loop.extent);
    walk_stmt(d, s->u.loop.body);
    d->nrelax--;
    return;
  case TIR_WHILE:
    walk_expr(d, s->u.whl.cond);
    walk_stmt(d, s->u.whl.body);
    return;
  case TIR_IF: {
    walk_expr(d, s->u.ifs.cond);
    push_cond(d, s->u.ifs.cond);
    walk_stmt(d, s->u.ifs.then_s);
    pop_cond(d);
    if (s->u.ifs.else_s) {
      push_cond(d, tir_not(d->c, s->u.ifs.cond));
      walk_stmt(d, s->u.ifs.else_s);
      pop_cond(d);
    }
    return;
  }
  case TIR_EVALUATE: walk_expr(d, s->u.eval.value); return;
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) walk_stmt(d, s->u.seq.stmts[i]);
    return;
  case TIR_ALLOCATE: walk_stmt(d, s->u.alloc.body); return;
  case TIR_DECL_BUFFER:
    d->views = grow_arr(d->views, &d->capviews, d->nviews + 1, sizeof *d->views);
    d->views[d->nviews++] = s->u.decl.buf;
    tir_ptrmap_put(&d->view_set, s->u.decl.buf, 1);
    walk_stmt(d, s->u.decl.body);
    return;
  case TIR_ALLOC_BUFFER:
    push_local(d, s->u.decl.buf);
    walk_stmt(d, s->u.decl.body);
    return;
  case TIR_ATTR: {
    walk_expr(d, s->u.attr.value);
    /* a launch inside the block (T.launch_thread(tx, 32)): its var is bound
     * below the block, so its accesses range over [0, extent) at the
     * block, as a loop's do (TVM leaves tx free there, out of its scope) */
    bool launch = s->u.attr.node && s->u.attr.node->kind == TIR_VAR && s->u.attr.value &&
                  (!strcmp(s->u.attr.key, "thread_extent") || !strcmp(s->u.attr.key, "virtual_thread"));
    if (launch) push_relax(d, s->u.attr.node, tir_int(d->c, s->u.attr.node->dtype, 0), s->u.attr.value);
    walk_stmt(d, s->u.attr.body);
    if (launch) d->nrelax--;
    return;
  }
  case TIR_ASSERT:
    walk_expr(d, s->u.assrt.cond);
    walk_stmt(d, s->u.assrt.body);
    return;
  case TIR_BLOCK_REALIZE: nested_block(d, s); return;
  default: return;
  }
}

static tir_buffer_region *to_regions(detector *d, const access_list *l) {
  if (!l->n) return NULL;
  tir_buffer_region *out = tir_alloc(d->c, sizeof *out * (size_t)l->n);
  for (int i = 0; i < l->n; i++) {
    const access *x = &l->v[i];
    out[i].buf = x->buf;
    out[i].n = x->ndim;
    out[i].region = x->ndim ? tir_alloc(d->c, sizeof *out[i].region * (size_t)x->ndim) : NULL;
    for (int k = 0; k < x->ndim; k++) {
      tir_expr *lo = x->lo[k];
      tir_expr *ext = tir_binary(d->c, TIR_SUB, tir_binary(d->c, TIR_ADD, x->hi[k], tir_int(d->c, lo->dtype, 1)), lo);
      out[i].region[k].min = lo;
      /* a hull of accesses neither of which bounds the other (A[vi] and
       * A[15 - vi]: T.min(vi, 15 - vi) to T.max(vi, 15 - vi)) keeps TVM's
       * spelling of its extent, max + 1 - min, which TVM's simplifier leaves
       * as it is (tirc's would write 16 - T.min(vi, 15 - vi) * 2) */
      bool hull = lo->kind == TIR_MIN && x->hi[k]->kind == TIR_MAX;
      /* hi = T.max(u, v) + c (a select's union under + c): (hi + 1) - lo
       * as TVM's rewrite simplifier leaves it, T.max(u, v) + (c + 1) - lo */
      tir_expr *h = x->hi[k];
      int64_t c1;
      if (lo->kind == TIR_MIN && h->kind == TIR_ADD && h->u.bin.a->kind == TIR_MAX &&
          tir_is_const_int(h->u.bin.b, &c1) && c1 > 0 && c1 < INT32_MAX && tir_dtype_eq(h->dtype, lo->dtype)) {
        hull = true;
        ext = tir_binary(d->c, TIR_SUB,
                         tir_binary(d->c, TIR_ADD, h->u.bin.a, tir_int(d->c, h->dtype, c1 + 1)), lo);
      }
      tir_expr *se = hull ? ext : tir_simplify(d->a, ext);
      /* lo and hi both a min or max (A[T.min(vi + k, 3)] over k in [0, 2)):
       * TVM's rewrite simplifier keeps T.min(vi + 1, 3) + 1 - T.min(vi, 3),
       * where tirc's would move the + 1 into the min */
      bool mm = (lo->kind == TIR_MIN || lo->kind == TIR_MAX) && (h->kind == TIR_MIN || h->kind == TIR_MAX);
      if (!hull && mm && !tir_is_const_int(se, NULL)) se = ext;
      out[i].region[k].extent = se;
      if (x->all[k] && k < x->buf->ndim) out[i].region[k].extent = x->buf->shape[k]; /* [0, shape) */
    }
  }
  return out;
}

static void free_list(access_list *l);

static void drop_reads_of(access_list *l, tir_buffer *const *bufs, int nbufs) {
  int k = 0;
  for (int i = 0; i < l->n; i++) {
    bool drop = false;
    for (int j = 0; j < nbufs && !drop; j++) drop = l->v[i].buf == bufs[j];
    if (drop) {
      free(l->v[i].lo);
      free(l->v[i].hi);
      free(l->v[i].all);
    } else {
      l->v[k++] = l->v[i];
    }
  }
  l->n = k;
}

static void free_list(access_list *l) {
  for (int i = 0; i < l->n; i++) {
    free(l->v[i].lo);
    free(l->v[i].hi);
    free(l->v[i].all);
  }
  free(l->v);
}

void tir_block_infer_access_by(tir_ctx *c, const tir_block *blk, tir_buffer_of_data_fn buffer_of, void *arg,
                               tir_buffer_region **reads, int *nreads, tir_buffer_region **writes,
                               int *nwrites) {
  *reads = *writes = NULL;
  *nreads = *nwrites = 0;
  if (!c || !blk) return;
  detector d = {0};
  d.c = c;
  d.a = tir_analyzer_new(c, NULL);
  d.top = blk;
  d.scope = buffer_of;
  d.scope_arg = arg;
  for (int i = 0; i < blk->n_match; i++) {
    const tir_buffer *mb = blk->match_buffers[i].buf;
    if (!tir_ptrmap_get(&d.match_idx, mb, 0)) tir_ptrmap_put(&d.match_idx, mb, i + 1);
    if (mb->data && !tir_ptrmap_get(&d.data_buf, mb->data, 0)) tir_ptrmap_put(&d.data_buf, mb->data, (long)(intptr_t)mb);
  }
  for (int i = 0; i < blk->n_alloc; i++) {
    const tir_buffer *ab = blk->alloc_buffers[i];
    if (ab->data && !tir_ptrmap_get(&d.data_buf, ab->data, 0)) tir_ptrmap_put(&d.data_buf, ab->data, (long)(intptr_t)ab);
  }
  for (int i = 0; i < blk->n_alloc; i++) push_local(&d, blk->alloc_buffers[i]);
  /* the loads in a match_buffer's source region (B[A[i]:A[i] + 2] reads
   * A[i]), as TVM's detector counts them */
  for (int i = 0; i < blk->n_match; i++) {
    const tir_buffer_region *src = &blk->match_buffers[i].src;
    for (int k = 0; k < src->n; k++) {
      walk_expr(&d, src->region[k].min);
      walk_expr(&d, src->region[k].extent);
    }
  }
  walk_stmt(&d, blk->init);
  walk_stmt(&d, blk->body);
  /* as TVM's GetBlockReadWriteRegion: in a block with an init (a
   * reduction), no buffer the block writes is among its reads (the
   * accumulator) */
  if (blk->init) {
    int nw = d.writes.n;
    tir_buffer **wb = nw ? malloc(sizeof *wb * (size_t)nw) : NULL;
    for (int i = 0; i < nw; i++) wb[i] = d.writes.v[i].buf;
    drop_reads_of(&d.reads, wb, nw);
    free(wb);
  }
  *reads = to_regions(&d, &d.reads);
  *nreads = d.reads.n;
  *writes = to_regions(&d, &d.writes);
  *nwrites = d.writes.n;
  free_list(&d.reads);
  free_list(&d.writes);
  free(d.relax);
  tir_ptrmap_free(&d.local);
  tir_ptrmap_free(&d.view_set);
  tir_ptrmap_free(&d.match_idx);
  tir_ptrmap_free(&d.data_buf);
  free(d.views);
  free(d.conds);
  free(d.toks);
  tir_var_map_free(&d.lets);
  tir_analyzer_free(d.a);
}

typedef struct scope_list {
  tir_buffer *const *v;
  int n;
} scope_list;

static tir_buffer *in_list(void *arg, const tir_expr *data) {
  const scope_list *l = arg;
  for (int i = 0; i < l->n; i++)
    if (l->v[i] && l->v[i]->data == data) return l->v[i];
  return NULL;
}

void tir_block_infer_access_in(tir_ctx *c, const tir_block *blk, tir_buffer *const *scope, int nscope,
                               tir_buffer_region **reads, int *nreads, tir_buffer_region **writes,
                               int *nwrites) {
  scope_list l = {scope, nscope};
  tir_block_infer_access_by(c, blk, in_list, &l, reads, nreads, writes, nwrites);
}

void tir_block_infer_access(tir_ctx *c, const tir_block *blk, tir_buffer_region **reads, int *nreads,
                            tir_buffer_region **writes, int *nwrites) {
  tir_block_infer_access_by(c, blk, NULL, NULL, reads, nreads, writes, nwrites);
}
