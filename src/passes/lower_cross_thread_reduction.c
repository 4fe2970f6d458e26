/* lower_cross_thread_reduction.c - LowerCrossThreadReduction (alias
 * lower_cross_thread), as TVM's pass of that name: a reduction block whose
 * reduction runs over threadIdx-bound loops (dlight's reductions: every
 * thread adds into one element) becomes a reduction of each thread's part
 * and a T.tvm_thread_allreduce over the threads, which LowerThreadAllreduce
 * then lowers.  For block B writing W[I] with init `W[I] = identity` and
 * update `W[I] = f(W[I], rhs)` (f one of +, *, max, min, W first as TVM
 * matches it; the identity f's: 0, 1, the dtype's lowest, its highest):
 *
 *   with T.sblock("B_in_thread_init"):  in_thread_W[0] = identity
 *   <B's loops that reduce and are not thread-bound>:
 *     with T.sblock("B_in_thread"):     B's iter vars and predicate;
 *                                       in_thread_W[0] = f(in_thread_W[0], rhs)
 *   with T.sblock("B_cross_thread"):
 *     T.attr(T.comm_reducer(lambda x0, y0: f(x0, y0), [identity]), "reduce_scope", 0)
 *     T.tvm_thread_allreduce(T.uint32(1), in_thread_W[0], T.bool(True), cross_thread_W[0], <thread vars>)
 *   with T.sblock("B_write_back"):      B's spatial iter vars (fresh);
 *                                       T.where(<P> and <thread vars> == 0); W[I] = cross_thread_W[0]
 *
 * in place of the outermost of those loops (of B itself when there is
 * none).  TVM's argmax and argmin (two buffers, index and value, written
 * through two lets: `Select(v > y or v == y and i < j, i, j)` and
 * `Select(v > y, v, y)`, identity (-1, lowest); `<` and highest for argmin)
 * are matched as templates and reduce both values in one allreduce; the
 * in-thread update is B's body with each W_i[I] as in_thread_i[0].  With no such loop and no predicate, the in-thread part is left
 * out: B_cross_thread keeps B's iter vars and reduces rhs itself.  The two
 * (1,)-shaped "local" buffers are allocated in the block around B (the
 * root block, or the innermost block holding B), after its own buffers,
 * cross_thread first, as TVM does.  The in-thread loops must lead to B
 * (loop inside loop, or statements before the next one in a loop's body
 * that each thread may run again: siblings_safe) and bind no spatial
 * iter var; a thread-bound reduction loop among them moves out, around the
 * lowered parts, as TVM orders them.  A block that is not of this form (another
 * combiner, an init that is not the identity, no init) is left as it is,
 * as are the reductions over no thread-bound loop: a CUDA kernel with one
 * is then refused where every thread stores to one element.
 *
 * A later block of the same kernel (up to the end of its outermost thread
 * loop) that reads W outside a loop of B's thread tags is put in one
 * thread, as TVM does (consumer_threads below).
 *
 * The write-back's predicate: the conjuncts of B's predicate that use no
 * reduction loop's var (P: a guard on the spatial loops, such as a split's
 * tail, `bx < 3`), then each thread var at its start.  TVM keeps P only
 * where B's predicate is a conjunction (a lone `bx < 5` it drops, so the
 * threads of an excluded bx store too: out of bounds); tirc keeps it
 * always.  Into a parameter, the write-back is also kept to where B's
 * first step runs (0 < n for a reduction loop range(n)) where that may not
 * hold, as TVM's is not (first_step_guard).  Where W is "local" (each
 * thread's registers) every thread writes back, with no thread condition,
 * as TVM's.  A reduction block that
 * is not the last block under its outermost reduction loop (a later block
 * there would read W before the write-back) is refused, as TVM refuses it. */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tir/analysis.h"
#include "tir/passes.h"
#include "tir/visit.h"

typedef struct {
  tir_ctx *c;
  tir_stmt **loops; /* the loops around the statement visited, outermost first */
  int nloops, caploops;
  /* an outer loop to replace by what its reduction became (found at the block) */
  const tir_stmt **from;
  tir_stmt **to;
  int nrep, caprep;
  /* new buffers, in order, for the blocks on the stack below: those from
   * alloc_mark[k] on are block k's (its inner blocks took theirs at their end) */
  tir_buffer **allocs;
  int nalloc, capalloc;
  /* the block realizes around the statement visited (outermost first), and
   * for each the thread loops to wrap it in (a consumer's), or none */
  const tir_stmt **blocks;
  tir_stmt ***wrap;
  int *nwrap, *alloc_mark;
  int nblocks, capblocks;
  /* the buffers written by the cross-thread reductions lowered so far in
   * this kernel, each with its reduction's thread-bound loops */
  const tir_buffer **crt_buf;
  tir_stmt ***crt_threads;
  int *crt_n;
  int ncrt, capcrt;
  tir_diag *d;
  bool failed;
  const tir_func *f;
} lctr;

/* ---- does e use var v? ---- */
typedef struct {
  const tir_expr *v;
  bool found;
} use_find;

static bool use_expr(tir_visitor *vis, const tir_expr *e) {
  use_find *f = vis->user;
  if (e == f->v) f->found = true;
  return !f->found;
}

static bool uses(const tir_expr *e, const tir_expr *v) {
  if (!e) return false;
  use_find f = {v, false};
  tir_visitor vis = {.expr = use_expr, .user = &f};
  tir_visit_expr(&vis, e);
  return f.found;
}

typedef struct {
  const tir_buffer *b;
  bool found;
} load_find;

static bool load_expr(tir_visitor *vis, const tir_expr *e) {
  load_find *f = vis->user;
  if (e->kind == TIR_BUFFER_LOAD && e->u.load.buf == f->b) f->found = true;
  return !f->found;
}

static bool loads(const tir_expr *e, const tir_buffer *b) {
  load_find f = {b, false};
  tir_visitor vis = {.expr = load_expr, .user = &f};
  tir_visit_expr(&vis, e);
  return f.found;
}

/* ---- the reducer ---- */

/* f's identity in dtype t, or NULL (TVM's: 0, 1, min_value, max_value) */
static tir_expr *identity(tir_ctx *c, tir_expr_kind f, tir_dtype t) {
  bool flt = t.code == TIR_TC_FLOAT, sgn = t.code == TIR_TC_INT;
  if (t.lanes != 1 || (!flt && !sgn && t.code != TIR_TC_UINT) || t.bits > 64) return NULL;
  if (f == TIR_ADD || f == TIR_MUL) {
    int v = f == TIR_ADD ? 0 : 1;
    return flt ? tir_float(c, t, v) : tir_int(c, t, v);
  }
  if (f != TIR_MAX && f != TIR_MIN) return NULL;
  bool lowest = f == TIR_MAX;
  if (flt) {
    double m = tir_dtype_float_max(t);
    if (m == 0) return NULL;
    return tir_float(c, t, lowest ? -m : m);
  }
  if (t.bits == 64 && !sgn && !lowest) return NULL; /* UINT64_MAX is no int64_t */
  int64_t hi = sgn ? (int64_t)((UINT64_C(1) << (t.bits - 1)) - 1) : (int64_t)((UINT64_C(1) << t.bits) - 1);
  int64_t lo = sgn ? -hi - 1 : 0;
  return tir_int(c, t, lowest ? lo : hi);
}

static bool same_const(const tir_expr *a, const tir_expr *b) {
  if (a->kind != b->kind || !tir_dtype_eq(a->dtype, b->dtype)) return false;
  if (a->kind == TIR_INT_IMM) return a->u.int_val == b->u.int_val;
  if (a->kind == TIR_FLOAT_IMM) return a->u.float_val == b->u.float_val;
  return false;
}

static bool same_index(tir_expr *const *a, int na, tir_expr *const *b, int nb) {
  if (na != nb) return false;
  for (int i = 0; i < na; i++)
    if (!tir_expr_identical(a[i], b[i])) return false;
  return true;
}

static bool is_w_load(const tir_expr *e, const tir_stmt *st) {
  return e->kind == TIR_BUFFER_LOAD && e->u.load.buf == st->u.store.buf &&
         same_index(e->u.load.idx, e->u.load.nidx, st->u.store.idx, st->u.store.nidx);
}

/* B of one of the forms in the header: n values (1; 2 for argmax/argmin),
 * the buffers W_i written at the common index I, the values y_i reduced in
 * (rhs), the identities and the reducer (a comm_reducer node) */
typedef struct {
  int n;
  tir_buffer *w[2];
  tir_expr *const *idx;
  int nidx;
  tir_expr *rhs[2], *ident[2];
  tir_expr *reducer;
} reduction;

/* ---- argmax / argmin: TVM's two-value reducers, matched as templates ---- */

/* r0 = Select(x1 CMP y1 or x1 == y1 and x0 < y0, x0, y0), r1 = Select(x1 CMP y1, x1, y1) */
static void arg_template(tir_ctx *c, tir_expr_kind cmp, tir_expr *x0, tir_expr *x1, tir_expr *y0, tir_expr *y1,
                         tir_expr **r0, tir_expr **r1) {
  tir_expr *first = tir_binary(c, TIR_OR, tir_binary(c, cmp, x1, y1),
                               tir_binary(c, TIR_AND, tir_binary(c, TIR_EQ, x1, y1), tir_binary(c, TIR_LT, x0, y0)));
  *r0 = tir_select(c, first, x0, y0);
  *r1 = tir_select(c, tir_binary(c, cmp, x1, y1), x1, y1);
}

/* does e have the form of template t, where the pattern vars p[0..1] stand
 * for any expr (the same wherever they appear: bound into got)? */
static bool match_tmpl(const tir_expr *t, const tir_expr *e, tir_expr *const *p, tir_expr **got) {
  for (int i = 0; i < 2; i++)
    if (t == p[i]) {
      if (!got[i]) got[i] = (tir_expr *)e;
      return tir_expr_identical(got[i], e);
    }
  if (t->kind != e->kind || !tir_dtype_eq(t->dtype, e->dtype)) return false;
  if (TIR_IS_BINARY(t->kind)) return match_tmpl(t->u.bin.a, e->u.bin.a, p, got) && match_tmpl(t->u.bin.b, e->u.bin.b, p, got);
  if (t->kind == TIR_SELECT)
    return match_tmpl(t->u.select.cond, e->u.select.cond, p, got) && match_tmpl(t->u.select.t, e->u.select.t, p, got) &&
           match_tmpl(t->u.select.f, e->u.select.f, p, got);
  return tir_expr_identical(t, e);
}

/* `l0 = e0; l1 = e1; W0[I] = l0; W1[I] = l1` (TVM's topi.argmax, as lets)
 * or `W0[I] = e0; W1[I] = e1`: e0, e1 and the two stores */
static bool pair_body(const tir_stmt *s, const tir_expr **e, const tir_stmt **st) {
  const tir_expr *lv[2] = {NULL, NULL};
  for (int i = 0; i < 2 && s->kind == TIR_LET_STMT; i++) {
    lv[i] = s->u.let.var;
    e[i] = s->u.let.value;
    s = s->u.let.body;
  }
  if ((lv[0] != NULL) != (lv[1] != NULL) || s->kind != TIR_SEQ || s->u.seq.n != 2) return false;
  for (int i = 0; i < 2; i++) {
    st[i] = s->u.seq.stmts[i];
    if (st[i]->kind != TIR_BUFFER_STORE) return false;
    if (lv[0] && st[i]->u.store.value != lv[i]) return false;
    if (!lv[0]) e[i] = st[i]->u.store.value;
  }
  return true;
}

static bool match_pair(tir_ctx *c, const tir_block *b, reduction *r) {
  const tir_expr *e[2];
  const tir_stmt *st[2], *in = b->init;
  if (!pair_body(b->body, e, st) || in->kind != TIR_SEQ || in->u.seq.n != 2) return false;
  tir_buffer *w0 = st[0]->u.store.buf, *w1 = st[1]->u.store.buf;
  if (w0 == w1 || b->n_writes != 2 || !same_index(st[0]->u.store.idx, st[0]->u.store.nidx,
                                                  st[1]->u.store.idx, st[1]->u.store.nidx))
    return false;
  for (int i = 0; i < 2; i++) {
    const tir_stmt *is = in->u.seq.stmts[i];
    if (is->kind != TIR_BUFFER_STORE || is->u.store.buf != st[i]->u.store.buf ||
        !same_index(is->u.store.idx, is->u.store.nidx,
                    st[0]->u.store.idx, st[0]->u.store.nidx))
      return false;
    if (b->writes[0].buf != st[i]->u.store.buf && b->writes[1].buf != st[i]->u.store.buf) return false;
  }
  /* two independent reductions in one block (a sum and a sum of squares:
   * dlight's layer and group norms), each W_i[I] op_i rhs_i, as TVM reads
   * a tuple reducer whose results are each their own */
  tir_expr *lx2[2], *ly2[2], *res2[2], *id2[2], *rhs2[2];
  bool indep = true;
  for (int i = 0; i < 2 && indep; i++) {
    const tir_expr *v = e[i];
    indep = (v->kind == TIR_ADD || v->kind == TIR_MUL || v->kind == TIR_MAX || v->kind == TIR_MIN) &&
            is_w_load(v->u.bin.a, st[i]) && !loads(v->u.bin.b, w0) && !loads(v->u.bin.b, w1);
    if (!indep) break;
    id2[i] = identity(c, v->kind, st[i]->u.store.buf->dtype);
    indep = id2[i] && same_const(in->u.seq.stmts[i]->u.store.value, id2[i]);
    if (!indep) break;
    rhs2[i] = v->u.bin.b;
    lx2[i] = tir_var(c, i ? "x1" : "x0", st[i]->u.store.buf->dtype);
    ly2[i] = tir_var(c, i ? "y1" : "y0", st[i]->u.store.buf->dtype);
    res2[i] = tir_binary(c, v->kind, lx2[i], ly2[i]);
  }
  if (indep) {
    *r = (reduction){.n = 2, .w = {w0, w1}, .idx = st[0]->u.store.idx, .nidx = st[0]->u.store.nidx,
                     .rhs = {rhs2[0], rhs2[1]}, .ident = {id2[0], id2[1]},
                     .reducer = tir_comm_reducer(c, lx2, ly2, res2, id2, 2)};
    return true;
  }
  if (!tir_dtype_is_int(w0->dtype) || w0->dtype.lanes != 1) return false;
  tir_expr *x0 = tir_load(c, w0, st[0]->u.store.idx, st[0]->u.store.nidx);
  tir_expr *x1 = tir_load(c, w1, st[0]->u.store.idx, st[0]->u.store.nidx);
  static const tir_expr_kind cmps[2] = {TIR_GT, TIR_LT}; /* argmax, argmin */
  for (int k = 0; k < 2; k++) {
    tir_expr *p[2] = {tir_var(c, "y0", w0->dtype), tir_var(c, "y1", w1->dtype)}, *got[2] = {NULL, NULL}, *r0, *r1;
    arg_template(c, cmps[k], x0, x1, p[0], p[1], &r0, &r1);
    if (!match_tmpl(r0, e[0], p, got) || !match_tmpl(r1, e[1], p, got) || !got[0] || !got[1]) continue;
    if (loads(got[0], w0) || loads(got[0], w1) || loads(got[1], w0) || loads(got[1], w1)) return false;
    tir_expr *id0 = tir_int(c, w0->dtype, -1), *id1 = identity(c, k ? TIR_MIN : TIR_MAX, w1->dtype);
    if (!id1 || !same_const(in->u.seq.stmts[0]->u.store.value, id0) || !same_const(in->u.seq.stmts[1]->u.store.value, id1))
      return false;
    tir_expr *lx[2] = {tir_var(c, "x0", w0->dtype), tir_var(c, "x1", w1->dtype)};
    tir_expr *ly[2] = {tir_var(c, "y0", w0->dtype), tir_var(c, "y1", w1->dtype)}, *res[2], *ids[2] = {id0, id1};
    arg_template(c, cmps[k], lx[0], lx[1], ly[0], ly[1], &res[0], &res[1]);
    *r = (reduction){.n = 2, .w = {w0, w1}, .idx = st[0]->u.store.idx, .nidx = st[0]->u.store.nidx,
                     .rhs = {got[0], got[1]}, .ident = {id0, id1},
                     .reducer = tir_comm_reducer(c, lx, ly, res, ids, 2)};
    return true;
  }
  return false;
}

static bool match_reduction(tir_ctx *c, const tir_block *b, reduction *r) {
  if (!b->init || !b->body || b->n_match || b->n_alloc) return false;
  /* `v = W[I] op rhs; W[I] = v` (a let, as TVM's own reductions write it):
   * the store of that value */
  const tir_stmt *up = b->body, *in = b->init;
  const tir_expr *letval = NULL;
  if (up->kind == TIR_LET_STMT && up->u.let.body->kind == TIR_BUFFER_STORE &&
      up->u.let.body->u.store.value == up->u.let.var && !uses(up->u.let.value, up->u.let.var)) {
    letval = up->u.let.value;
    up = up->u.let.body;
  }
  if (up->kind != TIR_BUFFER_STORE) return match_pair(c, b, r);
  tir_buffer *w = up->u.store.buf;
  if (b->n_writes != 1 || in->kind != TIR_BUFFER_STORE || w != b->writes[0].buf || in->u.store.buf != w ||
      !same_index(in->u.store.idx, in->u.store.nidx,
                  up->u.store.idx, up->u.store.nidx))
    return false;
  const tir_expr *v = letval ? letval : up->u.store.value;
  if (v->kind != TIR_ADD && v->kind != TIR_MUL && v->kind != TIR_MAX && v->kind != TIR_MIN) return false;
  if (!is_w_load(v->u.bin.a, up)) return false; /* TVM's reducers match W first only (`A[k] + W[i]` is left, as TVM refuses it) */
  tir_expr *rhs = v->u.bin.b;
  if (loads(rhs, w)) return false;
  tir_expr *id = identity(c, v->kind, w->dtype);
  if (!id || !same_const(in->u.store.value, id)) return false;
  tir_expr *x = tir_var(c, "x0", w->dtype), *y = tir_var(c, "y0", w->dtype);
  tir_expr *res = tir_binary(c, v->kind, x, y);
  *r = (reduction){.n = 1, .w = {w, NULL}, .idx = up->u.store.idx, .nidx = up->u.store.nidx, .rhs = {rhs, NULL},
                   .ident = {id, NULL}, .reducer = tir_comm_reducer(c, &x, &y, &res, &id, 1)};
  return true;
}

/* the body with W_i[I] (loads and stores) as in_thread_i[0] */
typedef struct {
  const reduction *r;
  tir_buffer **it;
} to_it;

static tir_expr *it_load(tir_mutator *m, tir_expr *e) {
  const to_it *t = m->user;
  if (e->kind != TIR_BUFFER_LOAD) return e;
  for (int i = 0; i < t->r->n; i++)
    if (e->u.load.buf == t->r->w[i] && same_index(e->u.load.idx, e->u.load.nidx, t->r->idx, t->r->nidx)) {
      tir_expr *z = tir_i32(m->ctx, 0);
      return tir_load(m->ctx, t->it[i], &z, 1);
    }
  return e;
}

static tir_stmt *it_store(tir_mutator *m, tir_stmt *s) {
  const to_it *t = m->user;
  if (s->kind != TIR_BUFFER_STORE) return s;
  for (int i = 0; i < t->r->n; i++)
    if (s->u.store.buf == t->r->w[i]) {
      tir_expr *z = tir_i32(m->ctx, 0);
      return tir_store(m->ctx, t->it[i], s->u.store.value, &z, 1);
    }
  return s;
}

/* ---- building ---- */

static tir_buffer *local_1(tir_ctx *c, const char *prefix, const tir_buffer *w) {
  size_t n = strlen(prefix) + strlen(w->name) + 1;
  char *name = tir_alloc(c, n);
  strcpy(name, prefix);
  strcat(name, w->name);
  tir_expr *one = tir_i32(c, 1);
  return tir_buffer_new(c, name, w->dtype, &one, 1, &one, 1, NULL, "local", 0, 0, NULL);
}

static tir_expr *at0(tir_ctx *c, tir_buffer *b) {
  tir_expr *z = tir_i32(c, 0);
  return tir_load(c, b, &z, 1);
}

static tir_stmt *store0(tir_ctx *c, tir_buffer *b, tir_expr *v) {
  tir_expr *z = tir_i32(c, 0);
  return tir_store(c, b, v, &z, 1);
}

static tir_buffer_region *region0(tir_ctx *c, tir_buffer *b) {
  tir_buffer_region *r = tir_alloc(c, sizeof *r);
  r->buf = b;
  r->n = 1;
  r->region = tir_alloc(c, sizeof *r->region);
  r->region[0] = (tir_range){tir_i32(c, 0), tir_i32(c, 1)};
  return r;
}

static const char *suffixed(tir_ctx *c, const char *name, const char *suffix) {
  char *s = tir_alloc(c, strlen(name) + strlen(suffix) + 1);
  strcpy(s, name);
  strcat(s, suffix);
  return s;
}

/* B's reads but those of the W_i */
static void reads_but(tir_ctx *c, const tir_block *b, const reduction *r, tir_block *to) {
  to->reads = tir_alloc(c, sizeof *to->reads * (size_t)(b->n_reads + 1));
  to->n_reads = 0;
  for (int i = 0; i < b->n_reads; i++)
    if (b->reads[i].buf != r->w[0] && b->reads[i].buf != r->w[1]) to->reads[to->n_reads++] = b->reads[i];
}

static tir_stmt *realize(tir_ctx *c, tir_block *blk, tir_expr **values, int n, tir_expr *pred) {
  return tir_block_realize(c, values, n, pred ? pred : tir_bool(c, true), blk);
}

/* a block of the (1,) buffers bs[0..n) written (and rs read, when given) */
static tir_buffer_region *regions0(tir_ctx *c, tir_buffer *const *bs, int n) {
  tir_buffer_region *r = tir_alloc(c, sizeof *r * (size_t)(n + 1));
  for (int i = 0; i < n; i++) r[i] = *region0(c, bs[i]);
  return r;
}

static tir_stmt *allreduce(tir_ctx *c, const reduction *r, tir_expr *const *src, tir_buffer *const *ct,
                           tir_stmt *const *threads, int nthreads) {
  int n = r->n, na = 0;
  tir_expr **a = tir_alloc(c, sizeof *a * (size_t)(2 * n + 2 + nthreads));
  a[na++] = tir_int(c, (tir_dtype){TIR_TC_UINT, 32, 1}, n);
  for (int i = 0; i < n; i++) a[na++] = src[i];
  a[na++] = tir_bool(c, true);
  for (int i = 0; i < n; i++) a[na++] = at0(c, ct[i]);
  for (int i = 0; i < nthreads; i++) a[na++] = threads[i]->u.loop.var;
  tir_stmt *call = tir_evaluate(c, tir_call(c, TIR_HANDLE, "tvm_thread_allreduce", a, na));
  return tir_attr_stmt(c, "reduce_scope", r->reducer, tir_i32(c, 0), call);
}

/* the conjuncts of predicate p that use no reduction loop's var, in order
 * (NULL: none); redloops holds every reduction loop, thread-bound or not */
static tir_expr *spatial_conjuncts(tir_ctx *c, tir_expr *p, tir_stmt *const *redloops, int nred) {
  if (p->kind == TIR_AND) {
    tir_expr *a = spatial_conjuncts(c, p->u.bin.a, redloops, nred), *b = spatial_conjuncts(c, p->u.bin.b, redloops, nred);
    return a && b ? tir_binary(c, TIR_AND, a, b) : a ? a : b;
  }
  for (int k = 0; k < nred; k++)
    if (uses(p, redloops[k]->u.loop.var)) return NULL;
  return p;
}

/* the other conjuncts of p: those that use a reduction loop's var (NULL: none) */
static tir_expr *reduction_conjuncts(tir_ctx *c, tir_expr *p, tir_stmt *const *redloops, int nred) {
  if (p->kind == TIR_AND) {
    tir_expr *a = reduction_conjuncts(c, p->u.bin.a, redloops, nred), *b = reduction_conjuncts(c, p->u.bin.b, redloops, nred);
    return a && b ? tir_binary(c, TIR_AND, a, b) : a ? a : b;
  }
  return spatial_conjuncts(c, p, redloops, nred) ? NULL : p;
}

/* the statements before the path to B in an in-thread loop's body */
typedef struct {
  tir_stmt *const *stmts;
  int n;
} sibs;

/* the replacement of B's realize s, with `chain` its it loops (outermost
 * first, n of them; sib[k], the statements before the next one in
 * chain[k]'s body) and `threads` the thread-bound reduction loops */
static tir_stmt *lower(lctr *st, const tir_stmt *s, const reduction *r, tir_stmt *const *chain, const sibs *sib,
                       int nchain, tir_stmt *const *threads, int nthreads, tir_stmt *const *redloops, int nred,
                       tir_expr *guard) {
  tir_ctx *c = st->c;
  const tir_block *b = s->u.realize.block;
  const tir_expr *p = s->u.realize.predicate;
  bool pred = p && !(p->kind == TIR_INT_IMM && p->u.int_val != 0);
  bool in_thread = nchain > 0 || pred;
  int n = r->n;
  tir_buffer *ct[2] = {NULL, NULL}, *it[2] = {NULL, NULL};
  for (int i = 0; i < n; i++) {
    ct[i] = local_1(c, "cross_thread_", r->w[i]);
    if (in_thread) it[i] = local_1(c, "in_thread_", r->w[i]);
  }
  tir_stmt *parts[4];
  int np = 0;
  if (in_thread) {
    tir_block *ib = tir_block_new(c, suffixed(c, b->name, "_in_thread_init"));
    ib->writes = regions0(c, it, n);
    ib->n_writes = n;
    ib->reads = tir_alloc(c, sizeof *ib->reads);
    tir_stmt *inits[2];
    for (int i = 0; i < n; i++) inits[i] = store0(c, it[i], r->ident[i]);
    ib->body = tir_seq(c, inits, n);
    parts[np++] = realize(c, ib, NULL, 0, NULL);
    tir_block *ub = tir_block_copy(c, b);
    ub->name = suffixed(c, b->name, "_in_thread");
    ub->init = NULL;
    reads_but(c, b, r, ub);
    ub->writes = regions0(c, it, n);
    ub->n_writes = n;
    to_it t = {r, it};
    tir_mutator m = {.expr = it_load, .stmt = it_store, .ctx = c, .user = &t};
    ub->body = tir_mutate_stmt(&m, b->body);
    tir_stmt *u = tir_block_realize(c, s->u.realize.iter_values, s->u.realize.n, s->u.realize.predicate, ub);
    for (int k = nchain - 1; k >= 0; k--) {
      tir_stmt *l = tir_stmt_copy(c, chain[k]);
      if (sib[k].n) { /* the statements before the reduction in its body, as they were */
        tir_stmt **body = tir_alloc(c, sizeof *body * (size_t)(sib[k].n + 1));
        memcpy(body, sib[k].stmts, sizeof *body * (size_t)sib[k].n);
        body[sib[k].n] = u;
        u = tir_seq(c, body, sib[k].n + 1);
      }
      l->u.loop.body = u;
      u = l;
    }
    parts[np++] = u;
    tir_block *cb = tir_block_new(c, suffixed(c, b->name, "_cross_thread"));
    cb->reads = regions0(c, it, n);
    cb->n_reads = n;
    cb->writes = regions0(c, ct, n);
    cb->n_writes = n;
    tir_expr *src[2];
    for (int i = 0; i < n; i++) src[i] = at0(c, it[i]);
    cb->body = allreduce(c, r, src, ct, threads, nthreads);
    parts[np++] = realize(c, cb, NULL, 0, NULL);
  } else {
    tir_block *cb = tir_block_copy(c, b);
    cb->name = suffixed(c, b->name, "_cross_thread");
    cb->init = NULL;
    reads_but(c, b, r, cb);
    cb->writes = regions0(c, ct, n);
    cb->n_writes = n;
    cb->body = allreduce(c, r, r->rhs, ct, threads, nthreads);
    parts[np++] = tir_block_realize(c, s->u.realize.iter_values, s->u.realize.n, s->u.realize.predicate, cb);
  }
  /* the write-back: B's spatial iter vars, fresh */
  tir_block *wb = tir_block_new(c, suffixed(c, b->name, "_write_back"));
  tir_var_map vm = {0};
  wb->iter_vars = tir_alloc(c, sizeof *wb->iter_vars * (size_t)(b->n_iter + 1));
  tir_expr **vals = tir_alloc(c, sizeof *vals * (size_t)(b->n_iter + 1));
  for (int i = 0; i < b->n_iter; i++) {
    const tir_iter_var *iv = &b->iter_vars[i];
    if (iv->type != TIR_ITER_SPATIAL) continue;
    tir_expr *nv = tir_var(c, iv->var->u.var.name, iv->var->dtype);
    nv->span = iv->var->span;
    tir_var_map_set(&vm, iv->var, nv);
    vals[wb->n_iter] = s->u.realize.iter_values[i];
    wb->iter_vars[wb->n_iter] = *iv;
    wb->iter_vars[wb->n_iter++].var = nv;
  }
  tir_expr *wpred = pred ? spatial_conjuncts(c, (tir_expr *)p, redloops, nred) : NULL;
  if (guard) wpred = wpred ? tir_binary(c, TIR_AND, wpred, guard) : guard;
  bool local = true; /* W in each thread's registers: every thread writes its own */
  for (int i = 0; i < n; i++) local &= r->w[i]->scope && !strcmp(r->w[i]->scope, "local");
  for (int i = 0; i < nthreads && !local; i++) {
    const tir_stmt *l = threads[i];
    tir_expr *eq = tir_binary(c, TIR_EQ, l->u.loop.var, l->u.loop.min);
    wpred = wpred ? tir_binary(c, TIR_AND, wpred, eq) : eq;
  }
  wb->reads = regions0(c, ct, n);
  wb->n_reads = n;
  wb->writes = tir_alloc(c, sizeof *wb->writes * (size_t)(b->n_writes + 1));
  for (int j = 0; j < b->n_writes; j++) {
    wb->writes[j] = b->writes[j];
    wb->writes[j].region = tir_alloc(c, sizeof(tir_range) * (size_t)(b->writes[j].n + 1));
    for (int i = 0; i < b->writes[j].n; i++) {
      wb->writes[j].region[i].min = tir_substitute_expr(c, b->writes[j].region[i].min, &vm);
      wb->writes[j].region[i].extent = tir_substitute_expr(c, b->writes[j].region[i].extent, &vm);
    }
  }
  wb->n_writes = b->n_writes;
  tir_stmt *wst[2];
  for (int i = 0; i < n; i++)
    wst[i] = tir_substitute_stmt(c, tir_store(c, r->w[i], at0(c, ct[i]), r->idx, r->nidx), &vm);
  wb->body = tir_seq(c, wst, n);
  tir_var_map_free(&vm);
  parts[np++] = realize(c, wb, vals, wb->n_iter, wpred);
  /* the buffers, for the block around B: the cross-thread ones, then the in-thread ones */
  for (int k = 0; k < 2 * n; k++) {
    tir_buffer *nb = k < n ? ct[k] : it[k - n];
    if (!nb) continue;
    if (st->nalloc == st->capalloc) {
      st->capalloc = st->capalloc ? 2 * st->capalloc : 8;
      st->allocs = realloc(st->allocs, sizeof *st->allocs * (size_t)st->capalloc);
      if (!st->allocs) abort();
    }
    st->allocs[st->nalloc++] = nb;
  }
  /* W's readers later in this kernel that no loop of these threads' tags encloses run in one thread */
  for (int i = 0; i < n; i++) {
    if (st->ncrt == st->capcrt) {
      st->capcrt = st->capcrt ? 2 * st->capcrt : 8;
      st->crt_buf = realloc(st->crt_buf, sizeof *st->crt_buf * (size_t)st->capcrt);
      st->crt_threads = realloc(st->crt_threads, sizeof *st->crt_threads * (size_t)st->capcrt);
      st->crt_n = realloc(st->crt_n, sizeof *st->crt_n * (size_t)st->capcrt);
      if (!st->crt_buf || !st->crt_threads || !st->crt_n) abort();
    }
    st->crt_buf[st->ncrt] = r->w[i];
    st->crt_threads[st->ncrt] = (tir_stmt **)threads;
    st->crt_n[st->ncrt++] = nthreads;
  }
  return tir_seq(c, parts, np);
}

/* the last block realize of a statement, in order */
typedef struct { const tir_stmt *last; } last_block;
static bool last_block_cb(tir_visitor *v, const tir_stmt *s) {
  if (s->kind == TIR_BLOCK_REALIZE) ((last_block *)v->user)->last = s;
  return true;
}

static bool thread_loop(const tir_stmt *l) {
  return l->u.loop.kind == TIR_FOR_THREAD_BINDING && l->u.loop.thread_tag &&
         !strncmp(l->u.loop.thread_tag, "threadIdx.", 10);
}

/* a conjunct of B's predicate over the reduction loops that holds at some
 * step holds at the first (every reduction loop at its min, at_min):
 * lo < hi or lo <= hi (either way round) with lo no larger and hi no
 * smaller there, wherever the loops range (a split's tail, k_0 * 32 + k_1
 * < m: k_0 * 32 + k_1 >= 0) */
static bool holds_first(tir_ctx *c, tir_analyzer *a, tir_expr *p, const tir_var_map *at_min) {
  if (p->kind == TIR_AND) return holds_first(c, a, p->u.bin.a, at_min) && holds_first(c, a, p->u.bin.b, at_min);
  tir_expr *lo, *hi;
  if (p->kind == TIR_LT || p->kind == TIR_LE) lo = p->u.bin.a, hi = p->u.bin.b;
  else if (p->kind == TIR_GT || p->kind == TIR_GE) lo = p->u.bin.b, hi = p->u.bin.a;
  else return false;
  if (!tir_dtype_is_int(lo->dtype) || lo->dtype.lanes != 1) return false;
  return tir_can_prove(a, tir_binary(c, TIR_LE, tir_substitute_expr(c, lo, at_min), lo)) &&
         tir_can_prove(a, tir_binary(c, TIR_LE, hi, tir_substitute_expr(c, hi, at_min)));
}

/* The lowered write-back stores a fresh reduction (from the identity),
 * where B's T.init runs at the reduction's first step (every reduction
 * loop at its min) and the steps before it, if any, add to B's old value.
 * The two agree for an output where the first step runs, and where no
 * step runs only if the write-back is skipped there: B's old value is
 * kept.  So B is lowered where, for every output, some step running means
 * the first runs (its predicate's conjuncts over the reduction loops hold
 * there whenever they hold at a step: holds_first), and the write-back is
 * then guarded by the first step running, *guard (the reduction loops not
 * empty, n > 0 for range(n), and those conjuncts at the loops' mins, 0 <
 * m for k_0 * 32 + k_1 < m), where it does not always run.  TVM 0.27 has
 * no guard: where no step runs (m = 0) its write-back stores the identity
 * over B's old value.  B is left where some step may run without the
 * first (T.where(tx >= 2): the original adds to B's old value; found by a
 * differential run against TVM's pass, whose output changes the result
 * there).  Only B's old value is at stake: into a buffer the function
 * allocates (no old value: an rfactor's partial sums over a symbolic
 * extent, whose consumer reads the outputs no step writes) B is lowered
 * with no guard, as TVM lowers it, the fresh reductions defining what was
 * undefined.  False: leave B. */
static bool first_step_guard(lctr *st, const tir_stmt *s, const reduction *r, tir_stmt *const *redloops, int nred,
                             tir_expr **guard) {
  *guard = NULL;
  bool param = false;
  for (int i = 0; i < r->n && !param; i++) param = tir_func_is_param_buffer(st->f, r->w[i]);
  if (!param) return true;
  tir_ctx *c = st->c;
  tir_expr *p = s->u.realize.predicate;
  if (p && p->kind == TIR_INT_IMM && p->u.int_val != 0) p = NULL;
  tir_var_map m = {0};
  for (int k = 0; k < nred; k++) tir_var_map_set(&m, redloops[k]->u.loop.var, redloops[k]->u.loop.min);
  tir_analyzer *a = tir_analyzer_new(c, NULL);
  bool ok = true;
  for (int k = 0; k < st->nloops; k++) {
    const tir_stmt *l = st->loops[k];
    bool red = false;
    for (int j = 0; j < nred && !red; j++) red = redloops[j] == l;
    /* a reduction loop's bounds over another's var (a triangle): its
     * first step is not at every loop's min */
    for (int j = 0; j < nred && red && ok; j++) ok = !uses(l->u.loop.min, redloops[j]->u.loop.var) &&
                                                     !uses(l->u.loop.extent, redloops[j]->u.loop.var);
    if (!red) tir_analyzer_bind_range(a, l->u.loop.var, l->u.loop.min, l->u.loop.extent);
  }
  tir_expr *sp = p ? spatial_conjuncts(c, p, redloops, nred) : NULL;
  if (sp) tir_analyzer_enter_constraint(a, sp);
  tir_expr *rp = p ? reduction_conjuncts(c, p, redloops, nred) : NULL;
  /* those conjuncts at the loops' mins, then the reduction loops not empty (outer first) */
  tir_expr *at = rp && ok ? tir_substitute_expr(c, rp, &m) : NULL;
  if (at && !tir_can_prove(a, at)) {
    /* a step compared with the first: with the reduction loops' ranges too */
    tir_analyzer *all = tir_analyzer_new(c, NULL);
    for (int k = 0; k < st->nloops; k++)
      tir_analyzer_bind_range(all, st->loops[k]->u.loop.var, st->loops[k]->u.loop.min, st->loops[k]->u.loop.extent);
    if (sp) tir_analyzer_enter_constraint(all, sp);
    ok = holds_first(c, all, rp, &m);
    tir_analyzer_free(all);
    *guard = tir_simplify(a, at);
    tir_analyzer_enter_constraint(a, *guard);
  }
  for (int k = 0; k < nred && ok; k++) {
    tir_expr *ext = redloops[k]->u.loop.extent;
    tir_expr *ne = tir_binary(c, TIR_LT, tir_int(c, ext->dtype, 0), ext);
    if (tir_can_prove(a, ne)) continue;
    ne = tir_simplify(a, ne);
    *guard = *guard ? tir_binary(c, TIR_AND, *guard, ne) : ne;
    tir_analyzer_enter_constraint(a, ne);
  }
  tir_var_map_free(&m);
  tir_analyzer_free(a);
  return ok;
}

/* ---- statements before the reduction in an in-thread loop ----
 *
 * k_0 { X; tx { B } } becomes tx { init; k_0 { X; B_in }; ... }, as TVM
 * orders it: each thread runs X.  That keeps the meaning where X computes
 * the same thing each time it runs and B reads what X wrote in the same
 * iteration: X is loops (not thread-bound) and blocks (no init,
 * allocation, view or predicate) of stores, it reads no buffer it or B
 * writes (nor one an earlier reduction of the kernel wrote, whose readers
 * this pass may change) and writes none B writes, and every element B
 * reads of what X writes is among those X's one store to that buffer
 * writes in the iteration (a box over X's loops: each index one of them
 * plus what X does not vary, proved to hold B's index).  Else B is left. */

#define SIB_MAX_LOOPS 16
#define SIB_MAX 64

typedef struct {
  const tir_buffer *buf;
  tir_expr **idx; /* X's loop vars and the vars outside X */
  int nidx;
  int l0, nl; /* its loops: loops[l0 .. l0 + nl) of sib_walk's */
} sib_store;

typedef struct {
  lctr *st;
  tir_var_map bind; /* X's block iter vars -> their values */
  tir_relax_var loops[SIB_MAX]; /* the loops around each store, stacked per store */
  int nloops;
  tir_relax_var open[SIB_MAX_LOOPS]; /* the loops around the statement walked */
  int nopen;
  sib_store stores[SIB_MAX];
  int nstores;
  const tir_buffer *reads[SIB_MAX];
  int nreads;
  bool ok;
} sib_walk;

static bool sib_load(tir_visitor *v, const tir_expr *e) {
  sib_walk *x = v->user;
  if (e->kind == TIR_BUFFER_LOAD) {
    if (x->nreads == SIB_MAX) x->ok = false;
    else x->reads[x->nreads++] = e->u.load.buf;
  } else if (e->kind == TIR_VAR && e->dtype.code == TIR_TC_HANDLE) {
    x->ok = false; /* a pointer (a buffer's data): what it reaches is not seen here */
  }
  return x->ok;
}

static void sib_loads(sib_walk *x, const tir_expr *e) {
  if (!e) return;
  tir_visitor v = {.expr = sib_load, .user = x};
  tir_visit_expr(&v, e);
}

static void sib_stmt(sib_walk *x, const tir_stmt *s) {
  tir_ctx *c = x->st->c;
  if (!x->ok || !s) return;
  switch (s->kind) {
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) sib_stmt(x, s->u.seq.stmts[i]);
    return;
  case TIR_FOR: {
    int64_t step = 1;
    if (s->u.loop.kind == TIR_FOR_THREAD_BINDING || x->nopen == SIB_MAX_LOOPS ||
        (s->u.loop.step && (!tir_is_const_int(s->u.loop.step, &step) || step != 1))) {
      x->ok = false;
      return;
    }
    sib_loads(x, s->u.loop.min);
    sib_loads(x, s->u.loop.extent);
    x->open[x->nopen++] = (tir_relax_var){s->u.loop.var, tir_substitute_expr(c, s->u.loop.min, &x->bind),
                                          tir_substitute_expr(c, s->u.loop.extent, &x->bind)};
    sib_stmt(x, s->u.loop.body);
    x->nopen--;
    return;
  }
  case TIR_BLOCK_REALIZE: {
    const tir_block *b = s->u.realize.block;
    const tir_expr *p = s->u.realize.predicate;
    if (b->init || b->n_alloc || b->n_match || (p && !(p->kind == TIR_INT_IMM && p->u.int_val != 0))) {
      x->ok = false;
      return;
    }
    for (int i = 0; i < b->n_iter && i < s->u.realize.n; i++) {
      sib_loads(x, s->u.realize.iter_values[i]);
      tir_var_map_set(&x->bind, b->iter_vars[i].var, tir_substitute_expr(c, s->u.realize.iter_values[i], &x->bind));
    }
    sib_stmt(x, b->body);
    return;
  }
  case TIR_BUFFER_STORE: {
    sib_loads(x, s->u.store.value);
    for (int i = 0; i < s->u.store.nidx; i++) sib_loads(x, s->u.store.idx[i]);
    if (x->nstores == SIB_MAX || x->nloops + x->nopen > SIB_MAX) {
      x->ok = false;
      return;
    }
    sib_store *w = &x->stores[x->nstores++];
    w->buf = s->u.store.buf;
    w->nidx = s->u.store.nidx;
    w->idx = tir_alloc(c, sizeof *w->idx * (size_t)(w->nidx + 1));
    for (int i = 0; i < w->nidx; i++) w->idx[i] = tir_substitute_expr(c, s->u.store.idx[i], &x->bind);
    w->l0 = x->nloops;
    w->nl = x->nopen;
    memcpy(x->loops + x->nloops, x->open, sizeof *x->open * (size_t)x->nopen);
    x->nloops += x->nopen;
    return;
  }
  default: x->ok = false; return; /* an if, a let, a call, ...: not modelled */
  }
}

/* does w write the element at idx (B's index: vars outside X) in every
 * iteration?  Each index of w is one of its loops' vars plus what no loop
 * of it varies (each loop in one index), or varies with none of them */
static bool sib_covers(tir_ctx *c, tir_analyzer *a, const sib_walk *x, const sib_store *w, tir_expr *const *idx) {
  const tir_relax_var *l = x->loops + w->l0;
  bool used[SIB_MAX_LOOPS] = {false};
  for (int j = 0; j < w->nl; j++)
    for (int q = 0; q < w->nl; q++)
      if (uses(l[j].min, l[q].var) || uses(l[j].extent, l[q].var)) return false;
  for (int d = 0; d < w->nidx; d++) {
    int which = -1;
    for (int j = 0; j < w->nl; j++)
      if (uses(w->idx[d], l[j].var)) {
        if (which >= 0 || used[j]) return false;
        which = j;
      }
    if (which < 0) {
      if (!tir_can_prove(a, tir_binary(c, TIR_EQ, idx[d], w->idx[d]))) return false;
      continue;
    }
    used[which] = true;
    tir_expr *v = (tir_expr *)l[which].var;
    tir_expr *base = tir_simplify(a, tir_binary(c, TIR_SUB, w->idx[d], v));
    if (uses(base, v)) return false;
    tir_expr *lo = tir_binary(c, TIR_ADD, base, l[which].min);
    if (!tir_can_prove(a, tir_binary(c, TIR_LE, lo, idx[d])) ||
        !tir_can_prove(a, tir_binary(c, TIR_LT, idx[d], tir_binary(c, TIR_ADD, lo, l[which].extent))))
      return false;
  }
  return true;
}

/* one buffer, or two views of the same memory (by their data var) */
static bool same_data(const tir_buffer *a, const tir_buffer *b) {
  return a == b || (a && b && a->data == b->data);
}

/* B's loads (its indices over the loops around B) of the buffers X writes */
typedef struct {
  lctr *st;
  const sib_walk *x;
  tir_analyzer *a;
  const tir_var_map *bind; /* B's iter vars -> their values */
  bool ok;
} sib_reader;

static bool sib_read(tir_visitor *v, const tir_expr *e) {
  sib_reader *r = v->user;
  if (e->kind == TIR_VAR && e->dtype.code == TIR_TC_HANDLE) /* X's buffer through its pointer */
    for (int i = 0; i < r->x->nstores && r->ok; i++) r->ok = r->x->stores[i].buf->data != e;
  if (e->kind != TIR_BUFFER_LOAD) return r->ok;
  const sib_store *only = NULL;
  int n = 0;
  for (int i = 0; i < r->x->nstores; i++)
    if (same_data(r->x->stores[i].buf, e->u.load.buf)) only = &r->x->stores[i], n++;
  if (!n) return r->ok;
  if (n > 1 || only->buf != e->u.load.buf || only->nidx != e->u.load.nidx) { /* another view of it: not compared */
    r->ok = false;
    return false;
  }
  tir_expr **idx = tir_alloc(r->st->c, sizeof *idx * (size_t)(e->u.load.nidx + 1));
  for (int i = 0; i < e->u.load.nidx; i++) idx[i] = tir_substitute_expr(r->st->c, e->u.load.idx[i], r->bind);
  r->ok = sib_covers(r->st->c, r->a, r->x, only, idx);
  return r->ok;
}

static bool in_bufs(const tir_buffer *b, const tir_buffer *const *v, int n) {
  for (int i = 0; i < n; i++)
    if (same_data(v[i], b)) return true;
  return false;
}

static bool siblings_safe(lctr *st, const tir_stmt *s, const reduction *r, const sibs *sib, int nchain) {
  sib_walk *x = calloc(1, sizeof *x);
  if (!x) abort();
  x->st = st;
  x->ok = true;
  for (int k = 0; k < nchain && x->ok; k++)
    for (int i = 0; i < sib[k].n && x->ok; i++) sib_stmt(x, sib[k].stmts[i]);
  /* what X reads: nothing X or B writes, nor what an earlier reduction of the kernel wrote */
  for (int i = 0; i < x->nreads && x->ok; i++) {
    const tir_buffer *b = x->reads[i];
    x->ok = !in_bufs(b, (const tir_buffer *const *)r->w, r->n) && !in_bufs(b, st->crt_buf, st->ncrt);
    for (int j = 0; j < x->nstores && x->ok; j++) x->ok = !same_data(x->stores[j].buf, b);
  }
  for (int j = 0; j < x->nstores && x->ok; j++) x->ok = !in_bufs(x->stores[j].buf, (const tir_buffer *const *)r->w, r->n);
  if (x->ok) {
    const tir_block *b = s->u.realize.block;
    tir_var_map bind = {0};
    for (int i = 0; i < b->n_iter && i < s->u.realize.n; i++)
      tir_var_map_set(&bind, b->iter_vars[i].var, s->u.realize.iter_values[i]);
    tir_analyzer *a = tir_analyzer_new(st->c, NULL);
    for (int k = 0; k < st->nloops; k++)
      tir_analyzer_bind_range(a, st->loops[k]->u.loop.var, st->loops[k]->u.loop.min, st->loops[k]->u.loop.extent);
    const tir_expr *p = s->u.realize.predicate;
    if (p && !(p->kind == TIR_INT_IMM && p->u.int_val != 0)) tir_analyzer_enter_constraint(a, (tir_expr *)p);
    sib_reader rd = {st, x, a, &bind, true};
    tir_visitor v = {.expr = sib_read, .user = &rd};
    for (int i = 0; i < s->u.realize.n && rd.ok; i++) tir_visit_expr(&v, s->u.realize.iter_values[i]);
    if (rd.ok && p) tir_visit_expr(&v, p);
    if (rd.ok) tir_visit_stmt(&v, b->body);
    x->ok = rd.ok;
    tir_analyzer_free(a);
    tir_var_map_free(&bind);
  }
  bool ok = x->ok;
  tir_var_map_free(&x->bind);
  free(x);
  return ok;
}

/* B's realize s under st->loops: its replacement (and, with in-thread
 * loops, that of the outermost of them, recorded), or NULL to keep it */
static tir_stmt *try_block(lctr *st, const tir_stmt *s) {
  const tir_block *b = s->u.realize.block;
  reduction r;
  if (!match_reduction(st->c, b, &r)) return NULL;
  /* which loops reduce: their vars bind reduce iter vars only */
  tir_stmt **threads = tir_alloc(st->c, sizeof *threads * (size_t)(st->nloops + 1));
  tir_stmt **redloops = tir_alloc(st->c, sizeof *redloops * (size_t)(st->nloops + 1));
  int nthreads = 0, first_it = -1, last_thread = -1, nred = 0;
  for (int k = 0; k < st->nloops; k++) {
    const tir_stmt *l = st->loops[k];
    bool red = false, spat = false;
    for (int i = 0; i < b->n_iter; i++) {
      if (!uses(s->u.realize.iter_values[i], l->u.loop.var)) continue;
      if (b->iter_vars[i].type == TIR_ITER_REDUCE) red = true;
      else spat = true;
    }
    if (!red) continue;
    if (spat) return NULL; /* a loop binding both kinds (TVM refuses) */
    redloops[nred++] = st->loops[k];
    if (l->u.loop.kind == TIR_FOR_THREAD_BINDING) {
      if (!thread_loop(l)) return NULL; /* a blockIdx or vthread reduction */
      threads[nthreads++] = st->loops[k];
      last_thread = k;
    } else if (first_it < 0) {
      first_it = k;
    }
  }
  if (!nthreads) return NULL;
  { /* B must be the last block under its outermost reduction loop (TVM's check) */
    last_block lb = {NULL};
    tir_visitor v = {.stmt = last_block_cb, .user = &lb};
    tir_visit_stmt(&v, redloops[0]->u.loop.body);
    if (lb.last != s) {
      tir_error(st->d, s->span.line ? s->span : redloops[0]->span,
                "LowerCrossThreadReduction: block '%s' reduces over a thread-bound loop but is not the last block "
                "under its first reduction loop (a later block there would read its result before the threads "
                "combine it): not lowered, as TVM refuses it", b->name);
      st->failed = true;
      return NULL;
    }
  }
  int nchain = 0, ninner = 0, nsib = 0;
  tir_stmt **chain = st->loops + st->nloops, **inner = NULL;
  sibs *sib = NULL;
  if (first_it >= 0) {
    /* from the outermost in-thread loop down: loop inside loop to B, each reducing and none binding a
     * spatial iter var; a thread-bound one among them (an in-thread loop outside a thread loop) moves
     * out, around the lowered parts, the in-thread loops inside, as TVM's pass orders them */
    chain = tir_alloc(st->c, sizeof *chain * (size_t)(st->nloops - first_it + 1));
    sib = tir_alloc(st->c, sizeof *sib * (size_t)(st->nloops - first_it + 1));
    inner = tir_alloc(st->c, sizeof *inner * (size_t)(st->nloops - first_it + 1));
    for (int k = first_it; k < st->nloops; k++) {
      tir_stmt *l = st->loops[k];
      const tir_stmt *next = k + 1 < st->nloops ? st->loops[k + 1] : s;
      const tir_stmt *body = l->u.loop.body;
      sibs x = {NULL, 0};
      if (body != next) {
        /* statements before the path to B (a fetch into a buffer B
         * reads): they stay in the loop, which each thread now runs
         * (siblings_safe); not under a thread loop moved out */
        if (body->kind != TIR_SEQ || body->u.seq.n < 2 || body->u.seq.stmts[body->u.seq.n - 1] != next ||
            ninner || l->u.loop.kind == TIR_FOR_THREAD_BINDING)
          return NULL;
        x = (sibs){body->u.seq.stmts, body->u.seq.n - 1};
        nsib += x.n;
      }
      bool red = false;
      for (int i = 0; i < b->n_iter && !red; i++)
        red = b->iter_vars[i].type == TIR_ITER_REDUCE && uses(s->u.realize.iter_values[i], l->u.loop.var);
      if (!red) return NULL; /* a loop binding no iter var between them */
      if (l->u.loop.kind == TIR_FOR_THREAD_BINDING) inner[ninner++] = l;
      else sib[nchain] = x, chain[nchain++] = l;
    }
    if (nsib && !siblings_safe(st, s, &r, sib, nchain)) return NULL;
  }
  (void)last_thread;
  tir_expr *guard;
  if (!first_step_guard(st, s, &r, redloops, nred, &guard)) return NULL;
  tir_stmt *rep = lower(st, s, &r, chain, sib, nchain, threads, nthreads, redloops, nred, guard);
  for (int k = ninner - 1; k >= 0; k--) { /* the thread loops that were inside an in-thread one, around it all */
    tir_stmt *l = tir_stmt_copy(st->c, inner[k]);
    l->u.loop.body = rep;
    rep = l;
  }
  if (!nchain) return rep;
  if (st->nrep == st->caprep) {
    st->caprep = st->caprep ? 2 * st->caprep : 8;
    st->from = realloc(st->from, sizeof *st->from * (size_t)st->caprep);
    st->to = realloc(st->to, sizeof *st->to * (size_t)st->caprep);
    if (!st->from || !st->to) abort();
  }
  st->from[st->nrep] = st->loops[first_it];
  st->to[st->nrep++] = rep;
  return NULL;
}

/* TVM's consumer broadcast: a block reading a buffer that a cross-thread
 * reduction of this kernel wrote, outside a loop of some of that
 * reduction's thread tags, and writing no "local" buffer, runs in one
 * thread of those: it is wrapped in loops of the missing tags (the
 * reduction's loops, the buffers in the block's read order and the loops
 * in theirs, each tag once, in its first place with its last loop) and predicated on each loop var at its start,
 * `t1 == m1 and (t2 == m2 and P)`.  Without it every thread would run the
 * block; the reduction's write-back is in one thread, with no barrier
 * before the others read it.  The loops of the missing tags, or n = 0. */
static tir_stmt **consumer_threads(lctr *st, const tir_block *b, int *n) {
  *n = 0;
  if (!st->ncrt) return NULL;
  for (int j = 0; j < b->n_writes; j++) {
    const char *sc = b->writes[j].buf->scope;
    if (sc && !strcmp(sc, "local")) return NULL;
  }
  tir_stmt **out = NULL;
  int cap = 0;
  for (int j = 0; j < b->n_reads; j++)
    for (int k = 0; k < st->ncrt; k++) {
      if (st->crt_buf[k] != b->reads[j].buf) continue;
      for (int t = 0; t < st->crt_n[k]; t++) {
        tir_stmt *l = st->crt_threads[k][t];
        const char *tag = l->u.loop.thread_tag;
        bool have = false;
        for (int q = 0; q < *n && !have; q++) /* a tag met before keeps its place, the later loop its extent (TVM's map) */
          if (!strcmp(out[q]->u.loop.thread_tag, tag)) out[q] = l, have = true;
        for (int q = 0; q < st->nloops && !have; q++)
          have = st->loops[q]->u.loop.kind == TIR_FOR_THREAD_BINDING && st->loops[q]->u.loop.thread_tag &&
                 !strcmp(st->loops[q]->u.loop.thread_tag, tag);
        for (int q = 0; q < st->nblocks && !have; q++) /* an enclosing consumer's loops, as TVM's */
          for (int w = 0; w < st->nwrap[q] && !have; w++) have = !strcmp(st->wrap[q][w]->u.loop.thread_tag, tag);
        if (have) continue;
        if (*n == cap) {
          cap = cap ? 2 * cap : 4;
          tir_stmt **g = tir_alloc(st->c, sizeof *g * (size_t)cap);
          if (*n) memcpy(g, out, sizeof *g * (size_t)*n);
          out = g;
        }
        out[(*n)++] = l;
      }
    }
  return out;
}

static tir_stmt *wrap_consumer(tir_ctx *c, tir_stmt *s, tir_stmt *const *threads, int n) {
  tir_expr *p = s->u.realize.predicate;
  if (p && p->kind == TIR_INT_IMM && p->u.int_val != 0) p = NULL;
  tir_expr **vars = tir_alloc(c, sizeof *vars * (size_t)n);
  for (int k = n - 1; k >= 0; k--) {
    const tir_expr *ov = threads[k]->u.loop.var;
    vars[k] = tir_var(c, ov->u.var.name, ov->dtype);
    tir_expr *eq = tir_binary(c, TIR_EQ, vars[k], threads[k]->u.loop.min);
    p = p ? tir_binary(c, TIR_AND, eq, p) : eq;
  }
  tir_stmt *r = tir_stmt_copy(c, s);
  r->u.realize.predicate = p;
  for (int k = n - 1; k >= 0; k--) {
    const tir_stmt *l = threads[k];
    r = tir_for(c, vars[k], l->u.loop.min, l->u.loop.extent, TIR_FOR_THREAD_BINDING, l->u.loop.thread_tag, NULL, r);
    r->span = s->span;
  }
  return r;
}

static tir_stmt *pre(tir_mutator *m, tir_stmt *s) {
  lctr *st = m->user;
  if (s->kind == TIR_FOR) {
    if (st->nloops == st->caploops) {
      st->caploops = st->caploops ? 2 * st->caploops : 16;
      st->loops = realloc(st->loops, sizeof *st->loops * (size_t)st->caploops);
      if (!st->loops) abort();
    }
    st->loops[st->nloops++] = s;
    return NULL;
  }
  if (s->kind != TIR_BLOCK_REALIZE) return NULL;
  if (s->u.realize.block->init && st->nblocks) {
    tir_stmt *r = try_block(st, s);
    if (r) return r;
  }
  if (st->nblocks == st->capblocks) {
    st->capblocks = st->capblocks ? 2 * st->capblocks : 8;
    st->blocks = realloc(st->blocks, sizeof *st->blocks * (size_t)st->capblocks);
    st->wrap = realloc(st->wrap, sizeof *st->wrap * (size_t)st->capblocks);
    st->nwrap = realloc(st->nwrap, sizeof *st->nwrap * (size_t)st->capblocks);
    st->alloc_mark = realloc(st->alloc_mark, sizeof *st->alloc_mark * (size_t)st->capblocks);
    if (!st->blocks || !st->wrap || !st->nwrap || !st->alloc_mark) abort();
  }
  st->blocks[st->nblocks] = s;
  st->alloc_mark[st->nblocks] = st->nalloc;
  /* as TVM, before the block's own statements are visited (a block around the reduction is not its consumer) */
  st->wrap[st->nblocks] = consumer_threads(st, s->u.realize.block, &st->nwrap[st->nblocks]);
  st->nblocks++;
  return NULL;
}

static tir_stmt *post(tir_mutator *m, tir_stmt *s) {
  lctr *st = m->user;
  if (s->kind == TIR_BLOCK_REALIZE) {
    int k = --st->nblocks, mark = st->alloc_mark[k], na = st->nalloc - mark;
    if (na) { /* the new buffers, into the block around their reduction, after its own (TVM's order) */
      tir_block *b = tir_block_copy(st->c, s->u.realize.block);
      tir_buffer **a = tir_alloc(st->c, sizeof *a * (size_t)(b->n_alloc + na + 1));
      if (b->n_alloc) memcpy(a, b->alloc_buffers, sizeof *a * (size_t)b->n_alloc);
      memcpy(a + b->n_alloc, st->allocs + mark, sizeof *a * (size_t)na);
      b->n_alloc += na;
      st->nalloc = mark;
      b->alloc_buffers = a;
      s = tir_stmt_copy(st->c, s);
      s->u.realize.block = b;
    }
    return st->nwrap[k] ? wrap_consumer(st->c, s, st->wrap[k], st->nwrap[k]) : s;
  }
  if (s->kind != TIR_FOR) return s;
  const tir_stmt *orig = st->loops[--st->nloops];
  if (orig->u.loop.kind == TIR_FOR_THREAD_BINDING) { /* the kernel's outermost thread loop ends: so do its reductions */
    bool inner = false;
    for (int k = 0; k < st->nloops && !inner; k++) inner = st->loops[k]->u.loop.kind == TIR_FOR_THREAD_BINDING;
    if (!inner) st->ncrt = 0;
  }
  for (int i = st->nrep - 1; i >= 0; i--)
    if (st->from[i] == orig) return st->to[i];
  return s;
}

tir_func *tir_pass_lower_cross_thread_reduction(tir_ctx *c, const tir_func *f, tir_diag *d) {
  if (!f->s_tir || !f->body || f->body->kind != TIR_BLOCK_REALIZE) return tir_func_copy(c, f);
  lctr st = {.c = c, .d = d, .f = f};
  tir_mutator m = {.pre_stmt = pre, .stmt = post, .ctx = c, .user = &st};
  tir_func *out = tir_func_copy(c, f);
  out->body = tir_mutate_stmt(&m, f->body);
  free(st.loops);
  free(st.from);
  free(st.to);
  free(st.allocs);
  free(st.alloc_mark);
  free(st.blocks);
  free(st.wrap);
  free(st.nwrap);
  free(st.crt_buf);
  free(st.crt_threads);
  free(st.crt_n);
  return st.failed ? NULL : out;
}
