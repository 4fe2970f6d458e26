/* cuda_vectorize.c - a T.vectorized loop as one vector store, as TVM's
 * VectorizeLoop makes it before its CUDA code generator: a loop over v of
 * constant extent 2, 3 or 4 from 0 whose body is one store B[i] = value,
 * with i depending on v, becomes B[i'] = value' with v as Ramp(0, 1, n):
 * a + v is Ramp(a, 1, n), c * v Ramp(0, c, n), an expression without v
 * stays scalar (broadcast where it meets a vector), and arithmetic,
 * comparisons, min/max, casts, selects and loads of those are lane-wise.
 * cuda_vector_store then prints it: a contiguous, aligned access as one
 * float2/float4/... access, any other lane by lane.
 * Not vectorized (printed as the loop it is, unrolled): a store whose value
 * reads the buffer it writes other than at the element it stores (the
 * loop's iterations would see each other's stores; the vector's lanes do
 * not), calls, lets, loads with several indices, anything else. */
#include <string.h>

#include "codegen_cuda/cuda_internal.h"
#include "tir/visit.h"

typedef struct {
  cg *g;
  const tir_expr *v;
  int n;
} vec_ctx;

/* a + b, b - a, without a term 0 */
static tir_expr *arith(tir_ctx *x, tir_expr_kind k, tir_expr *a, tir_expr *b) {
  int64_t z;
  if (tir_is_const_int(b, &z) && z == 0) return a;
  if (k == TIR_ADD && tir_is_const_int(a, &z) && z == 0) return b;
  return tir_binary(x, k, a, b);
}

static tir_expr *widen(vec_ctx *c, tir_expr *e) {
  return e->dtype.lanes == 1 ? tir_broadcast(c->g->ctx, e, c->n) : e;
}

/* e with v as Ramp(0, 1, n): n lanes, or e itself when it does not use v;
 * NULL where not supported.  One walk: a node is e itself when its
 * children are; a node kind not vectorized here is walked once, to see
 * whether it uses v. */
static tir_expr *vec(vec_ctx *c, tir_expr *e) {
  tir_ctx *x = c->g->ctx;
  if (e == c->v) return tir_ramp(x, tir_int(x, e->dtype, 0), tir_int(x, e->dtype, 1), c->n);
  if (e->dtype.lanes != 1) return cg_expr_reads(e, c->v) ? NULL : e;
  if (TIR_IS_BINARY(e->kind)) {
    tir_expr *a = vec(c, e->u.bin.a), *b = vec(c, e->u.bin.b);
    if (!a || !b) return NULL;
    if (a == e->u.bin.a && b == e->u.bin.b) return e;
    bool ra = a->kind == TIR_RAMP, rb = b->kind == TIR_RAMP, sa = a->dtype.lanes == 1, sb = b->dtype.lanes == 1;
    if (e->kind == TIR_ADD || e->kind == TIR_SUB) {
      tir_expr_kind k = e->kind;
      if (ra && sb) return tir_ramp(x, arith(x, k, a->u.ramp.base, b), a->u.ramp.stride, c->n);
      if (sa && rb && k == TIR_ADD) return tir_ramp(x, arith(x, k, a, b->u.ramp.base), b->u.ramp.stride, c->n);
      if (ra && rb)
        return tir_ramp(x, arith(x, k, a->u.ramp.base, b->u.ramp.base),
                        tir_binary(x, k, a->u.ramp.stride, b->u.ramp.stride), c->n);
    }
    if (e->kind == TIR_MUL) {
      if (ra && sb)
        return tir_ramp(x, tir_binary(x, TIR_MUL, a->u.ramp.base, b), tir_binary(x, TIR_MUL, a->u.ramp.stride, b), c->n);
      if (sa && rb)
        return tir_ramp(x, tir_binary(x, TIR_MUL, a, b->u.ramp.base), tir_binary(x, TIR_MUL, a, b->u.ramp.stride), c->n);
    }
    return tir_binary(x, e->kind, widen(c, a), widen(c, b));
  }
  switch (e->kind) {
  case TIR_NOT:
  case TIR_CAST: {
    tir_expr *a = vec(c, e->u.un.a);
    if (!a || a == e->u.un.a) return a ? e : NULL;
    return e->kind == TIR_NOT ? tir_not(x, widen(c, a)) : tir_cast(x, tir_dtype_with_lanes(e->dtype, c->n), widen(c, a));
  }
  case TIR_SELECT: {
    tir_expr *p = vec(c, e->u.select.cond), *t = vec(c, e->u.select.t), *f = vec(c, e->u.select.f);
    if (!p || !t || !f) return NULL;
    if (p == e->u.select.cond && t == e->u.select.t && f == e->u.select.f) return e;
    return tir_select(x, widen(c, p), widen(c, t), widen(c, f));
  }
  case TIR_BUFFER_LOAD: {
    if (e->u.load.nidx != 1 || e->u.load.buf->dtype.lanes != 1) return cg_expr_reads(e, c->v) ? NULL : e;
    tir_expr *i = vec(c, e->u.load.idx[0]);
    if (!i || i == e->u.load.idx[0]) return i ? e : NULL;
    return tir_load(x, e->u.load.buf, &i, 1);
  }
  case TIR_INT_IMM:
  case TIR_FLOAT_IMM:
  case TIR_STRING_IMM:
  case TIR_VAR: return e;
  default: return cg_expr_reads(e, c->v) ? NULL : e;
  }
}

/* does the store's value read the stored data only at the stored element
 * (an accumulation: each lane then reads what it alone writes)? */
typedef struct {
  const tir_stmt *store;
  bool bad;
} own_find;

static bool own_expr(tir_visitor *v, const tir_expr *e) {
  own_find *o = v->user;
  const tir_stmt *s = o->store;
  if (e->kind == TIR_VAR && e == s->u.store.buf->data) o->bad = true; /* the pointer itself */
  if (e->kind == TIR_BUFFER_LOAD && e->u.load.buf->data == s->u.store.buf->data &&
      !(e->u.load.buf == s->u.store.buf && e->u.load.nidx == 1 && tir_expr_identical(e->u.load.idx[0], s->u.store.idx[0])))
    o->bad = true;
  return !o->bad;
}

static bool own_element_only(const tir_stmt *s) {
  own_find o = {s, false};
  tir_visitor v = {.expr = own_expr, .user = &o};
  tir_visit_expr(&v, s->u.store.value);
  return !o.bad;
}

bool cuda_vector_loop(cg *g, const tir_stmt *loop) {
  int64_t n, lo, step;
  if (loop->kind != TIR_FOR || loop->u.loop.kind != TIR_FOR_VECTORIZED) return false;
  if (!tir_is_const_int(loop->u.loop.extent, &n) || n < 2 || n > 4 || !tir_is_const_int(loop->u.loop.min, &lo) ||
      lo != 0 || (loop->u.loop.step && !(tir_is_const_int(loop->u.loop.step, &step) && step == 1)))
    return false;
  const tir_stmt *s = loop->u.loop.body;
  if (s->kind != TIR_BUFFER_STORE || s->u.store.nidx != 1 || s->u.store.buf->dtype.lanes != 1 ||
      s->u.store.value->dtype.lanes != 1 || !own_element_only(s))
    return false;
  vec_ctx c = {g, loop->u.loop.var, (int)n};
  tir_expr *idx = vec(&c, s->u.store.idx[0]);
  if (!idx || idx->dtype.lanes != n) return false; /* every lane stores to one place: the loop's last wins */
  tir_expr *val = vec(&c, s->u.store.value);
  if (!val) return false;
  tir_stmt *vs = tir_store(g->ctx, s->u.store.buf, widen(&c, val), &idx, 1);
  vs->span = s->span;
  return cuda_vector_store(g, vs);
}
