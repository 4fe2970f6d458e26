/* oob.c - accesses proved out of bounds at compile time (issue 11, class 7).
 *
 * An access is refused only when it is *certainly* executed out of bounds:
 *  - every statement around it runs unconditionally once the function runs
 *    (no if/while/assert, no block predicate or T.init, no loop whose
 *    extent is not a positive constant, no select/if_then_else/and/or arm);
 *  - its index is affine in loop vars (and in let / block iter values that
 *    are affine in them) over constant ranges, so the index's interval is
 *    exact: its min and max are taken at a corner of the loop nest, and
 *    that corner is named in the message.
 * Anything else (symbolic shapes, parameters, non-affine indices, guards)
 * is left to run time (the interpreter's checked execution), never refused:
 * this check must not reject a program that is correct for some input.
 *
 * Errors: match_buffer source regions (a view past its source) and the box
 * of a slice_tensor against its pointers' extents.  Warnings: a buffer
 * load or store (each dim against a constant extent of the buffer's
 * shape), as TVM's own tests hold such programs, and a tvm_access_ptr
 * (offset and extent against the allocation of its data var), whose extent
 * TVM itself writes past the buffer for strided views.  Block read/write
 * regions are not: TVM writes padded regions (A[i - 1 : i + 2]) on purpose.
 * One walk, each var looked up in a hash map: linear in the program. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ptrmap.h"
#include "tir/analysis.h"
#include "tir/diag.h"

#define MAXT 16

/* c + sum coef[k] * x_k, each x_k ranging over [lo[k], hi[k]] independently */
typedef struct lform {
  int64_t c;
  int n;
  const void *key[MAXT];
  const char *name[MAXT]; /* var name for the message, NULL for a ramp lane */
  int64_t coef[MAXT], lo[MAXT], hi[MAXT];
} lform;

/* what a var is: a range (loop var), an affine value (let, iter var), or
 * unknown (value 0 in the map) */
typedef struct vinfo {
  bool is_range;
  int64_t lo, hi;
  lform val;
} vinfo;

typedef struct ob {
  tir_diag *d;
  tir_ptrmap vars; /* var -> 1 + index into infos, 0 unknown */
  vinfo *infos;
  int ninfos, capinfos;
  tir_ptrmap sizes; /* data var -> 1 + constant element count of its allocation */
  tir_ptrmap jumps; /* loop -> 1 when a break/continue of its own is in its body */
  bool access_errors; /* a load or store out of bounds is an error (code generation) */
  int nerr;
} ob;

/* marks each loop that a break or continue leaves or skips (its body does
 * not run unconditionally then); loops: the innermost loop, or NULL */
static void mark_jumps(ob *o, const tir_stmt *s, const tir_stmt *loop) {
  if (!s) return;
  switch (s->kind) {
  case TIR_BREAK:
  case TIR_CONTINUE:
    if (loop) tir_ptrmap_put(&o->jumps, loop, 1);
    return;
  case TIR_FOR: mark_jumps(o, s->u.loop.body, s); return;
  case TIR_WHILE: mark_jumps(o, s->u.whl.body, s); return;
  case TIR_LET_STMT: mark_jumps(o, s->u.let.body, loop); return;
  case TIR_IF:
    mark_jumps(o, s->u.ifs.then_s, loop);
    mark_jumps(o, s->u.ifs.else_s, loop);
    return;
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) mark_jumps(o, s->u.seq.stmts[i], loop);
    return;
  case TIR_ALLOCATE: mark_jumps(o, s->u.alloc.body, loop); return;
  case TIR_DECL_BUFFER:
  case TIR_ALLOC_BUFFER: mark_jumps(o, s->u.decl.body, loop); return;
  case TIR_ATTR: mark_jumps(o, s->u.attr.body, loop); return;
  case TIR_ASSERT: mark_jumps(o, s->u.assrt.body, loop); return;
  case TIR_BLOCK_REALIZE:
    mark_jumps(o, s->u.realize.block->init, NULL);
    mark_jumps(o, s->u.realize.block->body, NULL);
    return;
  default: return;
  }
}

static long new_info(ob *o) {
  if (o->ninfos == o->capinfos) {
    o->capinfos = o->capinfos ? o->capinfos * 2 : 64;
    vinfo *p = realloc(o->infos, sizeof *p * (size_t)o->capinfos);
    if (!p) abort();
    o->infos = p;
  }
  memset(&o->infos[o->ninfos], 0, sizeof o->infos[0]);
  return ++o->ninfos;
}

/* ---- affine forms ---- */

static bool lf_add_term(lform *f, const void *key, const char *name, int64_t coef, int64_t lo, int64_t hi) {
  for (int k = 0; k < f->n; k++)
    if (f->key[k] == key) return !__builtin_add_overflow(f->coef[k], coef, &f->coef[k]);
  if (f->n == MAXT) return false;
  f->key[f->n] = key;
  f->name[f->n] = name;
  f->coef[f->n] = coef;
  f->lo[f->n] = lo;
  f->hi[f->n] = hi;
  f->n++;
  return true;
}

static bool lf_addf(lform *f, const lform *g, int64_t scale) {
  int64_t t;
  if (__builtin_mul_overflow(g->c, scale, &t) || __builtin_add_overflow(f->c, t, &f->c)) return false;
  for (int k = 0; k < g->n; k++) {
    if (__builtin_mul_overflow(g->coef[k], scale, &t)) return false;
    if (!lf_add_term(f, g->key[k], g->name[k], t, g->lo[k], g->hi[k])) return false;
  }
  return true;
}

static bool is_int(tir_dtype t) { return (t.code == TIR_TC_INT || t.code == TIR_TC_UINT) && t.bits > 1; }

/* the affine form of an int expression, or false */
static bool lform_of(ob *o, const tir_expr *e, lform *out) {
  memset(out, 0, sizeof *out);
  if (!e) return false;
  switch (e->kind) {
  case TIR_INT_IMM:
    if (!is_int(e->dtype)) return false;
    out->c = e->u.int_val;
    return true;
  case TIR_VAR: {
    long i = tir_ptrmap_get(&o->vars, e, 0);
    if (!i) return false;
    const vinfo *v = &o->infos[i - 1];
    if (v->is_range) return lf_add_term(out, e, e->u.var.name, 1, v->lo, v->hi);
    *out = v->val;
    return true;
  }
  case TIR_ADD:
  case TIR_SUB: {
    lform b;
    if (!lform_of(o, e->u.bin.a, out) || !lform_of(o, e->u.bin.b, &b)) return false;
    return lf_addf(out, &b, e->kind == TIR_ADD ? 1 : -1);
  }
  case TIR_MUL: {
    lform a, b;
    if (!lform_of(o, e->u.bin.a, &a) || !lform_of(o, e->u.bin.b, &b)) return false;
    if (a.n && b.n) return false;
    const lform *f = a.n ? &a : &b;
    int64_t s = a.n ? b.c : a.c;
    return lf_addf(out, f, s);
  }
  case TIR_CAST: {
    /* a widening (or same-width) int cast keeps the value */
    const tir_expr *x = e->u.un.a;
    if (!is_int(e->dtype) || !is_int(x->dtype) || e->dtype.lanes != 1 || x->dtype.lanes != 1) return false;
    if (e->dtype.bits < x->dtype.bits || (e->dtype.code == TIR_TC_UINT) != (x->dtype.code == TIR_TC_UINT))
      return false;
    return lform_of(o, x, out);
  }
  case TIR_RAMP: {
    int64_t st;
    if (!tir_is_const_int(e->u.ramp.stride, &st) || e->u.ramp.lanes < 1 || (e->u.ramp.lanes & TIR_LANES_SCALABLE))
      return false; /* a scalable vector's lanes are not known here */
    if (!lform_of(o, e->u.ramp.base, out)) return false;
    return lf_add_term(out, e, NULL, st, 0, e->u.ramp.lanes - 1);
  }
  case TIR_BROADCAST: return lform_of(o, e->u.bcast.value, out);
  default: return false;
  }
}

/* exact min and max of f; at_max: the corner taking the max (or min) */
static bool lf_bounds(const lform *f, int64_t *mn, int64_t *mx) {
  int64_t lo = f->c, hi = f->c, a, b;
  for (int k = 0; k < f->n; k++) {
    if (__builtin_mul_overflow(f->coef[k], f->lo[k], &a) || __builtin_mul_overflow(f->coef[k], f->hi[k], &b))
      return false;
    if (__builtin_add_overflow(lo, a < b ? a : b, &lo) || __builtin_add_overflow(hi, a < b ? b : a, &hi))
      return false;
  }
  *mn = lo;
  *mx = hi;
  return true;
}

/* " (at i = 8, j = 0)": the loop vars at the corner where f is largest
 * (want_max) or smallest */
static void lf_corner(const lform *f, bool want_max, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  bool any = false;
  for (int k = 0; k < f->n; k++) {
    if (!f->name[k] || f->coef[k] == 0) continue;
    bool hi = (f->coef[k] > 0) == want_max;
    int w = snprintf(buf + n, n < cap ? cap - n : 0, "%s%s = %lld", any ? ", " : " (at ", f->name[k],
                     (long long)(hi ? f->hi[k] : f->lo[k]));
    if (w < 0 || n + (size_t)w >= cap) {
      buf[0] = 0;
      return;
    }
    n += (size_t)w;
    any = true;
  }
  if (any && n + 2 < cap) memcpy(buf + n, ")", 2);
}

static tir_span pick(tir_span a, tir_span b) { return a.line ? a : b; }

/* ---- checks ---- */

static void check_index(ob *o, const tir_buffer *b, tir_expr *const *idx, int nidx, tir_span sp, bool store) {
  if (o->nerr) return;
  for (int d = 0; d < nidx && d < b->ndim; d++) {
    int64_t ext, mn, mx;
    lform f;
    if (!tir_is_const_int(b->shape[d], &ext) || ext < 0) continue; /* a negative extent is the reader's warning */
    if (!lform_of(o, idx[d], &f) || !lf_bounds(&f, &mn, &mx)) continue;
    if (mn >= 0 && mx < ext) continue;
    bool high = mx >= ext;
    char at[256];
    lf_corner(&f, high, at, sizeof at);
    /* a warning, not an error, as read: TVM's own test programs hold such
     * accesses (never run there), and tirc reads what TVM reads.  For code
     * an error: the access would be out of bounds whenever it runs (C's
     * undefined behaviour, which gcc -O2 refuses to compile warning-free) */
    tir_diag_add(o->d, o->access_errors ? TIR_SEV_ERROR : TIR_SEV_WARNING, pick(sp, idx[d]->span),
                 "%s of %s is out of bounds: index %lld of dim %d is not in [0, %lld)%s%s", store ? "store" : "load",
                 b->name, (long long)(high ? mx : mn), d, (long long)ext, at,
                 o->access_errors ? "; no code is generated for an access out of bounds whenever it is reached" : "");
    if (o->access_errors) o->nerr++;
    return;
  }
}

/* the constant element count of the allocation behind a data var, or -1 */
static int64_t alloc_size(ob *o, const tir_expr *data) {
  long v = tir_ptrmap_get(&o->sizes, data, 0);
  return v ? (int64_t)v - 1 : -1;
}

static void note_buffer_size(ob *o, const tir_buffer *b) {
  if (!b || !b->data || tir_ptrmap_get(&o->sizes, b->data, 0)) return;
  if (b->nstrides) return;
  int64_t off, n = 1, e;
  if (!tir_is_const_int(b->elem_offset, &off) || off != 0) return;
  for (int d = 0; d < b->ndim; d++)
    if (!tir_is_const_int(b->shape[d], &e) || e < 0 || __builtin_mul_overflow(n, e, &n)) return;
  if (n < LONG_MAX - 1) tir_ptrmap_put(&o->sizes, b->data, (long)n + 1);
}

/* tvm_access_ptr(type, data, offset, extent, rw): [offset, offset + extent)
 * within the data var's allocation (of the same element type) */
static void check_access_ptr(ob *o, const tir_expr *e) {
  if (o->nerr) return;
  tir_expr **a = e->u.call.args;
  if (e->u.call.nargs != 5 || !tir_is_var(a[1])) return;
  int64_t size = alloc_size(o, a[1]);
  if (size < 0) return;
  tir_dtype el = a[1]->u.var.ptr_elem;
  if (!el.bits || !a[0] || !tir_dtype_eq(a[0]->dtype, el)) return;
  lform off, ext, end;
  int64_t mn, mx, emn, emx;
  if (!lform_of(o, a[2], &off) || !lform_of(o, a[3], &ext)) return;
  end = off;
  if (!lf_addf(&end, &ext, 1) || !lf_bounds(&off, &mn, &mx) || !lf_bounds(&end, &emn, &emx)) return;
  const char *name = a[1]->u.var.name ? a[1]->u.var.name : "?";
  char at[256];
  /* a warning: an access_ptr's extent is what may be reached, and TVM's
   * own LowerMatchBuffer writes shape[0] * strides[0] for a strided view,
   * which can pass the end of the buffer the view lies in (three_d.tir) */
  if (mn < 0) {
    lf_corner(&off, false, at, sizeof at);
    tir_diag_add(o->d, TIR_SEV_WARNING, pick(a[2]->span, e->span),
                 "T.tvm_access_ptr offset %lld is before the start of %s%s", (long long)mn, name, at);
  } else if (emx > size) {
    lf_corner(&end, true, at, sizeof at);
    tir_diag_add(o->d, TIR_SEV_WARNING, e->span,
                 "T.tvm_access_ptr reaches element %lld of %s, which has %lld elements%s", (long long)emx, name,
                 (long long)size, at);
  }
}

/* slice_tensor(e_0..e_{n-1}, dst, d_0..d_{n-2}, src, s_0..s_{n-2}, dtype):
 * its box spans sum (e_k - 1) * |stride_k| + e_{n-1} elements from each
 * pointer, which must have that many left: the pointer's access_ptr extent
 * (the reader checks the all-constant case) */
static void check_slice(ob *o, const tir_expr *e) {
  if (o->nerr) return;
  int nargs = e->u.call.nargs, n = (nargs - 1) / 3;
  tir_expr **args = e->u.call.args;
  if (nargs < 4 || nargs % 3 != 1) return;
  int64_t ext[5], span, st, term;
  for (int i = 0; i < n; i++)
    if (!tir_is_const_int(args[i], &ext[i]) || ext[i] <= 0) return;
  for (int w = 0; w < 2; w++) {
    const tir_expr *p = args[w ? 2 * n : n];
    if (p->kind != TIR_CALL || strcmp(p->u.call.op, "tvm_access_ptr") || p->u.call.nargs != 5) continue;
    span = ext[n - 1];
    bool ok = true;
    for (int k = 0; k + 1 < n && ok; k++)
      ok = tir_is_const_int(args[(w ? 2 * n : n) + 1 + k], &st) &&
           !__builtin_mul_overflow(ext[k] - 1, st < 0 ? -st : st, &term) && !__builtin_add_overflow(span, term, &span);
    lform avail;
    int64_t mn, mx;
    if (!ok || !lform_of(o, p->u.call.args[3], &avail) || !lf_bounds(&avail, &mn, &mx) || span <= mn) continue;
    char at[256];
    lf_corner(&avail, false, at, sizeof at);
    tir_error(o->d, pick(p->span, e->span),
              "T.slice_tensor's box spans %lld elements from its %s pointer, which has %lld left in its buffer%s",
              (long long)span, w ? "source" : "destination", (long long)mn, at);
    o->nerr++;
    return;
  }
}

static void check_match(ob *o, const tir_match_buffer *m) {
  if (o->nerr) return;
  const tir_buffer *b = m->src.buf;
  for (int d = 0; d < m->src.n && d < b->ndim; d++) {
    int64_t size, ext, mn, mx;
    lform f;
    if (!tir_is_const_int(b->shape[d], &size) || !tir_is_const_int(m->src.region[d].extent, &ext) || ext <= 0)
      continue;
    if (!lform_of(o, m->src.region[d].min, &f) || !lf_bounds(&f, &mn, &mx)) continue;
    if (mn >= 0 && mx + ext <= size) continue;
    bool high = mx + ext > size;
    char at[256];
    lf_corner(&f, high, at, sizeof at);
    if (high)
      tir_error(o->d, pick(m->src.region[d].min->span, m->span),
                "match_buffer %s views index %lld of dim %d of %s, which has %lld%s", m->buf->name,
                (long long)(mx + ext - 1), d, b->name, (long long)size, at);
    else
      tir_error(o->d, pick(m->src.region[d].min->span, m->span),
                "match_buffer %s views index %lld of dim %d of %s, before its start%s", m->buf->name,
                (long long)mn, d, b->name, at);
    o->nerr++;
    return;
  }
}

static long bind_range(ob *o, const tir_expr *var, int64_t lo, int64_t hi);

/* ---- conditions that confine loop vars to a box ---- */

typedef struct nar {
  const void *var;
  int64_t lo, hi;
} nar;

#define MAXN 8

/* the current range of a loop var, or false */
static bool range_of(ob *o, const void *var, int64_t *lo, int64_t *hi) {
  long i = tir_ptrmap_get(&o->vars, var, 0);
  if (!i || !o->infos[i - 1].is_range) return false;
  *lo = o->infos[i - 1].lo;
  *hi = o->infos[i - 1].hi;
  return true;
}

/* one comparison s * x + c OP k (s = +-1, x a loop var): x's interval */
static bool narrow_cmp(ob *o, tir_expr_kind k, const tir_expr *a, const tir_expr *b, nar *out, int *n) {
  lform fa, fb;
  if (a->dtype.code != TIR_TC_INT) return false; /* an unsigned comparison is not the int64 one */
  if (!lform_of(o, a, &fa) || !lform_of(o, b, &fb)) return false;
  bool swap = fa.n == 0;
  const lform *v = swap ? &fb : &fa, *c = swap ? &fa : &fb;
  if (c->n || v->n != 1 || !v->name[0] || (v->coef[0] != 1 && v->coef[0] != -1)) return false;
  if (swap) k = tir_cmp_swapped(k); /* k OP v is v OP' k */
  /* s * x OP r, r = k - c */
  int64_t r, lo = INT64_MIN, hi = INT64_MAX;
  if (__builtin_sub_overflow(c->c, v->c, &r)) return false;
  if (v->coef[0] == -1) { /* -x OP r is x OP' -r */
    if (r == INT64_MIN) return false;
    r = -r;
    k = tir_cmp_swapped(k);
  }
  switch (k) {
  case TIR_LT: if (r == INT64_MIN) return false; hi = r - 1; break;
  case TIR_LE: hi = r; break;
  case TIR_GT: if (r == INT64_MAX) return false; lo = r + 1; break;
  case TIR_GE: lo = r; break;
  case TIR_EQ: lo = hi = r; break;
  default: return false;
  }
  const void *x = v->key[0];
  int i = 0;
  while (i < *n && out[i].var != x) i++;
  if (i == *n) {
    if (*n == MAXN || !range_of(o, x, &out[i].lo, &out[i].hi)) return false;
    out[i].var = x;
    (*n)++;
  }
  if (lo > out[i].lo) out[i].lo = lo;
  if (hi < out[i].hi) out[i].hi = hi;
  return true;
}

/* the box cond (or, where neg, its negation) confines loop vars to: a
 * conjunction of comparisons of one loop var (+- it, plus a constant) with
 * a constant; false for anything else.  Every point of the box satisfies
 * it, so an access in the arm it guards runs at every point of the box. */
static bool narrow_of(ob *o, const tir_expr *c, bool neg, nar *out, int *n) {
  if (!c || c->dtype.lanes != 1) return false;
  switch (c->kind) {
  case TIR_AND:
    return !neg && narrow_of(o, c->u.bin.a, false, out, n) && narrow_of(o, c->u.bin.b, false, out, n);
  case TIR_OR: /* not (a or b): not a and not b */
    return neg && narrow_of(o, c->u.bin.a, true, out, n) && narrow_of(o, c->u.bin.b, true, out, n);
  case TIR_NOT: return narrow_of(o, c->u.un.a, !neg, out, n);
  case TIR_LT:
  case TIR_LE:
  case TIR_GT:
  case TIR_GE: return narrow_cmp(o, neg ? tir_cmp_negated(c->kind) : c->kind, c->u.bin.a, c->u.bin.b, out, n);
  case TIR_EQ: return !neg && narrow_cmp(o, TIR_EQ, c->u.bin.a, c->u.bin.b, out, n);
  case TIR_NE: return neg && narrow_cmp(o, TIR_EQ, c->u.bin.a, c->u.bin.b, out, n);
  default: return false;
  }
}

static void walk_stmt(ob *o, const tir_stmt *s, bool sure);
static void walk_expr(ob *o, const tir_expr *e, bool sure);

/* an arm guarded by cond (neg: by its negation), walked where the guard
 * confines loop vars to a non-empty box, over that box (sure there) */
static void walk_arm(ob *o, const tir_expr *cond, bool neg, const tir_expr *e, const tir_stmt *s) {
  nar box[MAXN];
  int n = 0;
  if (!narrow_of(o, cond, neg, box, &n) || n == 0) return;
  for (int i = 0; i < n; i++)
    if (box[i].lo > box[i].hi) return; /* the arm never runs */
  int mark = o->ninfos;
  long old[MAXN];
  for (int i = 0; i < n; i++) old[i] = bind_range(o, box[i].var, box[i].lo, box[i].hi);
  if (e) walk_expr(o, e, true);
  if (s) walk_stmt(o, s, true);
  for (int i = n - 1; i >= 0; i--) tir_ptrmap_put(&o->vars, box[i].var, old[i]);
  o->ninfos = mark;
}

/* every access in e that runs whenever e is evaluated (sure) */
static void walk_expr(ob *o, const tir_expr *e, bool sure) {
  if (!e || !sure) return;
  switch (e->kind) {
  case TIR_BUFFER_LOAD:
    for (int i = 0; i < e->u.load.nidx; i++) walk_expr(o, e->u.load.idx[i], sure);
    check_index(o, e->u.load.buf, e->u.load.idx, e->u.load.nidx, e->span, false);
    return;
  case TIR_AND:
  case TIR_OR: walk_expr(o, e->u.bin.a, sure); return; /* the right side may not run */
  case TIR_SELECT:
    walk_expr(o, e->u.select.cond, sure);
    walk_arm(o, e->u.select.cond, false, e->u.select.t, NULL);
    walk_arm(o, e->u.select.cond, true, e->u.select.f, NULL);
    return;
  case TIR_NOT:
  case TIR_CAST: walk_expr(o, e->u.un.a, sure); return;
  case TIR_RAMP:
    walk_expr(o, e->u.ramp.base, sure);
    walk_expr(o, e->u.ramp.stride, sure);
    return;
  case TIR_BROADCAST: walk_expr(o, e->u.bcast.value, sure); return;
  case TIR_LET: walk_expr(o, e->u.let.value, sure); return; /* the body: its var is not tracked */
  case TIR_CALL:
    if (!strcmp(e->u.call.op, "if_then_else")) {
      if (e->u.call.nargs > 0) walk_expr(o, e->u.call.args[0], sure);
      if (e->u.call.nargs == 3) {
        walk_arm(o, e->u.call.args[0], false, e->u.call.args[1], NULL);
        walk_arm(o, e->u.call.args[0], true, e->u.call.args[2], NULL);
      }
      return;
    }
    for (int i = 0; i < e->u.call.nargs; i++) walk_expr(o, e->u.call.args[i], sure);
    if (!strcmp(e->u.call.op, "tvm_access_ptr")) check_access_ptr(o, e);
    else if (!strcmp(e->u.call.op, "slice_tensor")) check_slice(o, e);
    return;
  default:
    if (TIR_IS_BINARY(e->kind)) {
      walk_expr(o, e->u.bin.a, sure);
      walk_expr(o, e->u.bin.b, sure);
    }
    return;
  }
}

/* bind var to a range or an affine value (or unknown); returns the old
 * map value to restore */
static long bind_range(ob *o, const tir_expr *var, int64_t lo, int64_t hi) {
  long old = tir_ptrmap_get(&o->vars, var, 0);
  long i = new_info(o);
  o->infos[i - 1].is_range = true;
  o->infos[i - 1].lo = lo;
  o->infos[i - 1].hi = hi;
  tir_ptrmap_put(&o->vars, var, i);
  return old;
}

static long bind_value(ob *o, const tir_expr *var, const tir_expr *value) {
  long old = tir_ptrmap_get(&o->vars, var, 0);
  lform f;
  if (value && lform_of(o, value, &f)) {
    long i = new_info(o);
    o->infos[i - 1].val = f;
    tir_ptrmap_put(&o->vars, var, i);
  } else {
    tir_ptrmap_put(&o->vars, var, 0);
  }
  return old;
}

static void walk_block(ob *o, const tir_stmt *s, bool sure) {
  const tir_block *b = s->u.realize.block;
  for (int i = 0; i < s->u.realize.n; i++) walk_expr(o, s->u.realize.iter_values[i], sure);
  const tir_expr *pr = s->u.realize.predicate;
  if (pr && !(pr->kind == TIR_INT_IMM && pr->u.int_val)) sure = false;
  int mark = o->ninfos;
  long *old = b->n_iter ? malloc(sizeof *old * (size_t)b->n_iter) : NULL;
  if (b->n_iter && !old) abort();
  for (int i = 0; i < b->n_iter; i++)
    old[i] = bind_value(o, b->iter_vars[i].var, i < s->u.realize.n ? s->u.realize.iter_values[i] : NULL);
  for (int i = 0; i < b->n_alloc; i++) note_buffer_size(o, b->alloc_buffers[i]);
  if (sure)
    for (int i = 0; i < b->n_match; i++) check_match(o, &b->match_buffers[i]);
  if (b->init) walk_stmt(o, b->init, false);
  walk_stmt(o, b->body, sure);
  for (int i = b->n_iter - 1; i >= 0; i--) tir_ptrmap_put(&o->vars, b->iter_vars[i].var, old[i]);
  o->ninfos = mark;
  free(old);
}

static void walk_stmt(ob *o, const tir_stmt *s, bool sure) {
  if (!s || !sure || o->nerr) return; /* one error is enough: no cascade */
  switch (s->kind) {
  case TIR_BUFFER_STORE:
    walk_expr(o, s->u.store.value, sure);
    for (int i = 0; i < s->u.store.nidx; i++) walk_expr(o, s->u.store.idx[i], sure);
    check_index(o, s->u.store.buf, s->u.store.idx, s->u.store.nidx, s->span, true);
    return;
  case TIR_LET_STMT: {
    walk_expr(o, s->u.let.value, sure);
    int mark = o->ninfos;
    long old = bind_value(o, s->u.let.var, s->u.let.value);
    walk_stmt(o, s->u.let.body, sure);
    tir_ptrmap_put(&o->vars, s->u.let.var, old);
    o->ninfos = mark;
    return;
  }
  case TIR_FOR: {
    int64_t mn, ext;
    walk_expr(o, s->u.loop.min, sure);
    walk_expr(o, s->u.loop.extent, sure);
    bool known = tir_is_const_int(s->u.loop.extent, &ext) && ext > 0;
    /* a step: the values are min, min + step, ..., the last below
     * min + extent; both ends are taken, so an affine index's interval
     * stays exact.  A step that is not a positive constant: unknown. */
    int64_t step = 1;
    if (s->u.loop.step && !(tir_is_const_int(s->u.loop.step, &step) && step > 0)) known = false;
    if (known) ext = (ext - 1) / step * step + 1;
    bool jumps = tir_ptrmap_get(&o->jumps, s, 0) != 0; /* a break may end it early */
    int mark = o->ninfos;
    long old;
    if (known && tir_is_const_int(s->u.loop.min, &mn) && !__builtin_add_overflow(mn, ext - 1, &ext))
      old = bind_range(o, s->u.loop.var, mn, ext);
    else
      old = bind_value(o, s->u.loop.var, NULL);
    walk_stmt(o, s->u.loop.body, sure && known && !jumps);
    tir_ptrmap_put(&o->vars, s->u.loop.var, old);
    o->ninfos = mark;
    return;
  }
  case TIR_WHILE: walk_expr(o, s->u.whl.cond, sure); return;
  case TIR_IF:
    walk_expr(o, s->u.ifs.cond, sure);
    walk_arm(o, s->u.ifs.cond, false, NULL, s->u.ifs.then_s);
    if (s->u.ifs.else_s) walk_arm(o, s->u.ifs.cond, true, NULL, s->u.ifs.else_s);
    return;
  case TIR_ASSERT: walk_expr(o, s->u.assrt.cond, sure); return;
  case TIR_EVALUATE: walk_expr(o, s->u.eval.value, sure); return;
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n && !o->nerr; i++) walk_stmt(o, s->u.seq.stmts[i], sure);
    return;
  case TIR_ALLOCATE: {
    int64_t n = 1, e;
    bool ok = s->u.alloc.var && s->u.alloc.n > 0;
    for (int i = 0; i < s->u.alloc.n && ok; i++)
      ok = tir_is_const_int(s->u.alloc.extents[i], &e) && e >= 0 && !__builtin_mul_overflow(n, e, &n);
    long old = s->u.alloc.var ? tir_ptrmap_get(&o->sizes, s->u.alloc.var, 0) : 0;
    if (ok && n < LONG_MAX - 1) tir_ptrmap_put(&o->sizes, s->u.alloc.var, (long)n + 1);
    walk_stmt(o, s->u.alloc.body, sure);
    if (s->u.alloc.var) tir_ptrmap_put(&o->sizes, s->u.alloc.var, old);
    return;
  }
  case TIR_ALLOC_BUFFER:
    note_buffer_size(o, s->u.decl.buf);
    walk_stmt(o, s->u.decl.body, sure);
    return;
  case TIR_DECL_BUFFER: walk_stmt(o, s->u.decl.body, sure); return;
  case TIR_ATTR: {
    int64_t ext;
    walk_expr(o, s->u.attr.value, sure);
    if (s->u.attr.key && !strcmp(s->u.attr.key, "thread_extent") && tir_is_var(s->u.attr.node)) {
      bool known = tir_is_const_int(s->u.attr.value, &ext) && ext > 0;
      int mark = o->ninfos;
      long old = known ? bind_range(o, s->u.attr.node, 0, ext - 1) : bind_value(o, s->u.attr.node, NULL);
      walk_stmt(o, s->u.attr.body, sure && known);
      tir_ptrmap_put(&o->vars, s->u.attr.node, old);
      o->ninfos = mark;
      return;
    }
    walk_stmt(o, s->u.attr.body, sure);
    return;
  }
  case TIR_BLOCK_REALIZE: walk_block(o, s, sure); return;
  default: return;
  }
}

bool tir_check_bounds(const tir_func *f, tir_diag *d) { return tir_check_bounds_ex(f, d, false); }

bool tir_check_bounds_ex(const tir_func *f, tir_diag *d, bool access_errors) {
  if (!f) return true;
  ob o = {.d = d, .access_errors = access_errors};
  for (int i = 0; i < f->nparams; i++)
    if (f->buffer_map && f->buffer_map[i]) note_buffer_size(&o, f->buffer_map[i]);
  mark_jumps(&o, f->body, NULL);
  walk_stmt(&o, f->body, true);
  tir_ptrmap_free(&o.jumps);
  tir_ptrmap_free(&o.vars);
  tir_ptrmap_free(&o.sizes);
  free(o.infos);
  return o.nerr == 0;
}
