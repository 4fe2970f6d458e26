/* flatten_buffer.c - FlattenBuffer (alias flatten): every multi-dimensional
 * (or strided, or offset) buffer becomes a 1-D buffer over the same data,
 * as TVM does:
 *  - shape: shape[0] * strides[0] when the buffer has strides, else the
 *    product of its shape, plus its elem_offset (which the indices add:
 *    TVM's leaves it out, an allocation too short); strides none;
 *    elem_offset 0;
 *  - an index (i_0 .. i_k) becomes  sum_d i_d * stride_d + elem_offset
 *    (compact row-major strides when none are given), simplified;
 *  - a parameter's flat buffer (a new one even when it is flat already, as
 *    TVM's) is declared (DeclBuffer) at the top of the body when the body
 *    accesses the parameter or uses its data pointer; AllocBuffer /
 *    DeclBuffer statements declare the flat one (keeping annotations);
 *  - in a tirx function without s_tir every flat buffer gets TVM 0.27's
 *    layout=None (the other buffers there have a default layout).
 * Run after LowerOpaqueBlock: blocks left are an error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ptrmap.h"
#include "tir/analysis.h"
#include "tir/passes.h"
#include "tir/visit.h"

typedef struct flat_pair {
  const tir_buffer *orig;
  tir_buffer *flat;
  bool used; /* the body accesses it (parameters are registered unused) */
} flat_pair;

typedef struct flattener {
  tir_analyzer *an;
  flat_pair *pairs;
  int n, cap;
  tir_ptrmap index; /* orig -> its pair */
  bool layouts; /* a tirx function without s_tir: flat buffers get layout=None */
  tir_diag *d;
  bool failed;
} flattener;

static bool is_zero(const tir_expr *e) {
  int64_t v;
  return tir_is_const_int(e, &v) && v == 0;
}

static bool already_flat(const tir_buffer *b) {
  return b->ndim == 1 && b->nstrides == 0 && is_zero(b->elem_offset);
}

static tir_expr *mul(tir_ctx *c, tir_expr *a, tir_expr *b) { return tir_binary(c, TIR_MUL, a, b); }

/* vector indices (a Ramp in some dim): scalar terms are broadcast, and a
 * Ramp absorbs what is added to or multiplies it, so that the flat index
 * of Q[i, T.Ramp(0, 1, 4)] is T.Ramp(i * 4, 1, 4), as TVM's is */
static tir_expr *vec_mul(tir_ctx *c, tir_expr *a, tir_expr *b) {
  if (a->dtype.lanes == 1) return mul(c, a, b);
  if (a->kind == TIR_RAMP) return tir_ramp(c, mul(c, a->u.ramp.base, b), mul(c, a->u.ramp.stride, b), a->u.ramp.lanes);
  return mul(c, a, tir_broadcast(c, b, a->dtype.lanes));
}

static tir_expr *vec_add(tir_ctx *c, tir_expr *a, tir_expr *b) {
  if (a->dtype.lanes == b->dtype.lanes) {
    if (a->kind == TIR_RAMP && b->kind == TIR_BROADCAST) return vec_add(c, a, b->u.bcast.value);
    if (a->kind == TIR_BROADCAST && b->kind == TIR_RAMP) return vec_add(c, a->u.bcast.value, b);
    return tir_binary(c, TIR_ADD, a, b);
  }
  if (a->dtype.lanes > 1 && b->dtype.lanes > 1) return tir_binary(c, TIR_ADD, a, b); /* the verifier reports it */
  tir_expr *v = a->dtype.lanes > 1 ? a : b, *x = a->dtype.lanes > 1 ? b : a;
  if (v->kind == TIR_RAMP)
    return tir_ramp(c, a == v ? tir_binary(c, TIR_ADD, v->u.ramp.base, x) : tir_binary(c, TIR_ADD, x, v->u.ramp.base),
                    v->u.ramp.stride, v->u.ramp.lanes);
  tir_expr *bx = tir_broadcast(c, x, v->dtype.lanes);
  return a == v ? tir_binary(c, TIR_ADD, v, bx) : tir_binary(c, TIR_ADD, bx, v);
}

static tir_dtype scalar_of(tir_dtype t) { return tir_dtype_with_lanes(t, 1); }

static tir_expr *as_index_type(tir_ctx *c, tir_expr *e, tir_dtype t) {
  return tir_dtype_eq(e->dtype, t) ? e : tir_cast(c, t, e);
}

static tir_dtype index_type(tir_analyzer *an, const tir_buffer *b, tir_expr *const *idx, int n);

/* b itself when flattening leaves it as it is */
static bool unchanged(const flattener *fl, const tir_buffer *b) {
  /* TVM's flat buffer has no TileLayout: not a local scalar's T.S[1] either */
  return already_flat(b) && (!fl->layouts || b->layout_none) && !b->nlayout && !b->scalar;
}

/* the flat buffer of b, made once (a copy when b must change, or always
 * when forced: TVM gives every parameter a new flat buffer) */
static tir_buffer *flat_buffer(tir_ctx *c, flattener *fl, tir_buffer *b, bool force) {
  long at = tir_ptrmap_get(&fl->index, b, -1);
  if (at >= 0) {
    fl->pairs[at].used |= !force;
    return fl->pairs[at].flat;
  }
  tir_buffer *f = b;
  if (force || !unchanged(fl, b)) {
    f = tir_buffer_copy(c, b);
    f->layout_none = fl->layouts;
    f->layout = NULL, f->nlayout = 0;
    f->scalar = false;
    f->view_of = NULL;
  }
  if (!already_flat(b)) {
    tir_expr *size;
    tir_dtype t = b->ndim > 0 ? index_type(fl->an, b, b->shape, b->ndim) : TIR_INT32; /* wide enough for the product */
    if (b->nstrides > 0 && b->ndim > 0) {
      size = mul(c, as_index_type(c, b->strides[0], t), as_index_type(c, b->shape[0], t));
    } else {
      size = b->ndim > 0 ? as_index_type(c, b->shape[0], t) : tir_i32(c, 1);
      for (int d = 1; d < b->ndim; d++) size = mul(c, size, as_index_type(c, b->shape[d], t));
    }
    /* the flat buffer starts at the data pointer (elem_offset 0) and its
     * indices add the old elem_offset: its extent covers that offset too.
     * TVM's FlattenBuffer keeps the bare size, so an allocation with an
     * elem_offset was elem_offset elements short (its C wrote past it) */
    if (!is_zero(b->elem_offset) && b->ndim > 0) size = tir_binary(c, TIR_ADD, size, as_index_type(c, b->elem_offset, t));
    size = tir_simplify(fl->an, size);
    f->shape = tir_alloc(c, sizeof *f->shape);
    f->shape[0] = size;
    f->ndim = 1;
    f->strides = NULL;
    f->nstrides = 0;
    /* a rank-0 buffer keeps its own zero (TVM's int64 0), as TVM's flattened buffer does */
    f->elem_offset = b->ndim == 0 && is_zero(b->elem_offset) ? b->elem_offset : tir_int(c, size->dtype, 0);
    f->axis_separators = NULL;
    f->naxis_sep = 0;
  }
  if (fl->n == fl->cap) {
    fl->cap = fl->cap ? 2 * fl->cap : 16;
    fl->pairs = realloc(fl->pairs, sizeof *fl->pairs * (size_t)fl->cap);
    if (!fl->pairs) abort();
  }
  tir_ptrmap_put(&fl->index, b, fl->n);
  fl->pairs[fl->n++] = (flat_pair){b, f, !force};
  return f;
}

static tir_buffer *flat_of(tir_ctx *c, flattener *fl, tir_buffer *b) { return flat_buffer(c, fl, b, false); }

/* the largest value e can take: a constant, or the analyzer's constant
 * upper bound of its magnitude (a shape CompactBufferAllocation made,
 * min(65536, max(n + 1, 1)), is at most 65536); false when unbounded */
static bool max_of(tir_analyzer *an, tir_expr *e, int64_t *out) {
  if (tir_is_const_int(e, out)) return true;
  if (!an) return false;
  int64_t lo, hi;
  tir_const_bound(an, e, &lo, &hi);
  int bits = e->dtype.bits < 64 ? e->dtype.bits : 64;
  int64_t top = bits == 64 ? INT64_MAX : (int64_t)((1ULL << (bits - 1)) - 1);
  if (lo <= -top || hi >= top) return false; /* only the dtype's own range: unbounded */
  *out = hi > -lo ? hi : -lo;
  return true;
}

/* the dtype the flat index of b is computed in, as wide as it must be: the
 * widest of the indices' and of b's shape, strides and elem_offset, and
 * int64 when b's extent (its last element's offset) can pass int32, from
 * its constant shape or the constant bounds of a symbolic one.  A shape
 * that is unbounded (a parameter n) keeps its declared dtype, as TVM's:
 * the declaration says its offsets fit that dtype. */
static tir_dtype index_type(tir_analyzer *an, const tir_buffer *b, tir_expr *const *idx, int n) {
  tir_dtype t = scalar_of(idx[0]->dtype);
  int bits = t.bits;
  for (int d = 0; d < n; d++)
    if (idx[d]->dtype.bits > bits) bits = idx[d]->dtype.bits;
  for (int d = 0; d < b->ndim; d++)
    if (b->shape[d]->dtype.bits > bits) bits = b->shape[d]->dtype.bits;
  for (int d = 0; d < b->nstrides; d++)
    if (b->strides[d]->dtype.bits > bits) bits = b->strides[d]->dtype.bits;
  if (b->elem_offset->dtype.bits > bits) bits = b->elem_offset->dtype.bits;
  /* the largest offset: elem_offset + sum (shape_d - 1) * stride_d */
  int64_t last = 0, v, st = 1;
  bool konst = max_of(an, b->elem_offset, &last);
  for (int d = b->ndim - 1; d >= 0 && konst; d--) {
    int64_t stride = st;
    if (b->nstrides == b->ndim && !max_of(an, b->strides[d], &stride)) konst = false;
    if (!konst || !max_of(an, b->shape[d], &v)) {
      konst = false;
      break;
    }
    int64_t term;
    if (v > 0 && (__builtin_mul_overflow(v - 1, stride < 0 ? -stride : stride, &term) ||
                  __builtin_add_overflow(last, term, &last)))
      bits = 64;
    if (__builtin_mul_overflow(st, v, &st)) st = INT64_MAX;
  }
  if (konst && (last > INT32_MAX || st > INT32_MAX)) bits = 64;
  if (bits > t.bits && tir_dtype_is_int(t)) t = bits == 64 ? TIR_INT64 : t;
  return t;
}

/* the flat index of idx in b */
static tir_expr *flat_index(tir_ctx *c, flattener *fl, const tir_buffer *b, tir_expr *const *idx, int n) {
  if (n == 0) return tir_i32(c, 0);
  tir_dtype t = index_type(fl->an, b, idx, n);
  tir_expr **wide = tir_alloc(c, sizeof *wide * (size_t)n);
  for (int d = 0; d < n; d++)
    wide[d] = idx[d]->dtype.bits < t.bits && idx[d]->dtype.lanes == 1 ? tir_cast(c, t, idx[d]) : idx[d];
  idx = wide;
  tir_expr *sum = NULL;
  if (b->nstrides == n) {
    for (int d = 0; d < n; d++) {
      tir_expr *term = vec_mul(c, idx[d], as_index_type(c, b->strides[d], t));
      sum = sum ? vec_add(c, sum, term) : term;
    }
  } else {
    for (int d = 0; d < n; d++) {
      tir_expr *stride = NULL;
      for (int e = d + 1; e < n && e < b->ndim; e++) {
        tir_expr *dim = as_index_type(c, b->shape[e], t);
        stride = stride ? mul(c, stride, dim) : dim;
      }
      tir_expr *term = stride ? vec_mul(c, idx[d], stride) : idx[d];
      sum = sum ? vec_add(c, sum, term) : term;
    }
  }
  if (!is_zero(b->elem_offset)) sum = vec_add(c, sum, as_index_type(c, b->elem_offset, t));
  return tir_simplify(fl->an, sum);
}

static tir_expr *flatten_load(tir_mutator *m, tir_expr *e) {
  flattener *fl = m->user;
  if (e->kind == TIR_CALL && e->u.call.named) {
    /* X.data written in a call (TVM 0.27's tirx.buffer_data(X)): the flat
     * buffer's, as TVM's FlattenBuffer retargets the reference */
    const tir_buffer **named = NULL;
    for (int i = 0; i < e->u.call.nargs; i++) {
      tir_buffer *b = (tir_buffer *)e->u.call.named[i];
      tir_buffer *f = b ? flat_of(m->ctx, fl, b) : NULL;
      if (f == b || !f || f->data != b->data) continue;
      if (!named) {
        named = tir_alloc(m->ctx, sizeof *named * (size_t)e->u.call.nargs);
        memcpy(named, e->u.call.named, sizeof *named * (size_t)e->u.call.nargs);
      }
      named[i] = f;
    }
    if (!named) return e;
    tir_expr *r = tir_expr_with_span(m->ctx, e, e->span); /* a shallow copy */
    r->u.call.named = named;
    return r;
  }
  if (e->kind != TIR_BUFFER_LOAD) return e;
  tir_buffer *b = e->u.load.buf, *f = flat_of(m->ctx, fl, b);
  if (f == b) return e;
  /* an index already flat is simplified too, as TVM's FlattenBuffer does */
  tir_expr *i = already_flat(b) && e->u.load.nidx == 1 ? tir_simplify(fl->an, e->u.load.idx[0])
                                                        : flat_index(m->ctx, fl, b, e->u.load.idx, e->u.load.nidx);
  tir_expr *r = tir_load(m->ctx, f, &i, 1);
  r->dtype = e->dtype;
  r->span = e->span;
  return r;
}

static tir_stmt *flatten_stmt(tir_mutator *m, tir_stmt *s) {
  flattener *fl = m->user;
  tir_ctx *c = m->ctx;
  switch (s->kind) {
  case TIR_BUFFER_STORE: {
    tir_buffer *b = s->u.store.buf, *f = flat_of(c, fl, b);
    if (f == b) return s;
    tir_expr *i = already_flat(b) && s->u.store.nidx == 1 ? tir_simplify(fl->an, s->u.store.idx[0])
                                                          : flat_index(c, fl, b, s->u.store.idx, s->u.store.nidx);
    tir_stmt *r = tir_store(c, f, s->u.store.value, &i, 1);
    r->span = s->span;
    return r;
  }
  case TIR_ALLOC_BUFFER:
  case TIR_DECL_BUFFER: {
    tir_buffer *f = flat_of(c, fl, s->u.decl.buf);
    if (f == s->u.decl.buf) return s;
    tir_stmt *r = tir_stmt_copy(c, s);
    r->u.decl.buf = f;
    return r;
  }
  case TIR_BLOCK_REALIZE:
    if (!fl->failed)
      tir_error(fl->d, s->span, "FlattenBuffer met a block: run LowerOpaqueBlock (lower_opaque) first");
    fl->failed = true;
    return s;
  default: return s;
  }
}

static bool note_var(tir_visitor *v, const tir_expr *e) {
  if (e->kind == TIR_VAR) tir_ptrmap_put(v->user, e, 1);
  return true;
}

/* a parameter's flat buffer is declared when the body accesses the
 * parameter or uses its data pointer, as TVM does (it declares flat ones
 * too: a new buffer for every parameter) */
static tir_stmt *declare_params(tir_ctx *c, flattener *fl, const tir_func *f, tir_stmt *body) {
  tir_ptrmap seen = {0};     /* two parameters over one buffer: declared once (the first) */
  tir_ptrmap used = {0};     /* the vars body uses, found once where an unaccessed parameter asks */
  bool walked = false;
  for (int i = 0; f->buffer_map && i < f->nparams; i++)
    if (f->buffer_map[i] && !tir_ptrmap_get(&seen, f->buffer_map[i], 0)) tir_ptrmap_put(&seen, f->buffer_map[i], i + 1);
  const tir_stmt *orig = body;
  for (int i = f->nparams - 1; i >= 0; i--) {
    tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b || tir_ptrmap_get(&seen, b, 0) != i + 1) continue;
    long at = tir_ptrmap_get(&fl->index, b, -1);
    flat_pair *p = at >= 0 ? &fl->pairs[at] : NULL;
    if (p && !p->used && !walked) {
      tir_visitor v = {.expr = note_var, .user = &used};
      tir_visit_stmt(&v, orig);
      walked = true;
    }
    if (p && (p->used || tir_ptrmap_get(&used, b->data, 0))) body = tir_decl_buffer(c, p->flat, body);
  }
  tir_ptrmap_free(&seen);
  tir_ptrmap_free(&used);
  return body;
}

/* loop ranges (and thread extents) known to the analyzer, as TVM's
 * FlattenBuffer simplifies the flat indices within them */
static tir_stmt *bind_ranges(tir_mutator *m, tir_stmt *s) {
  flattener *fl = m->user;
  if (s->kind == TIR_FOR) tir_analyzer_bind_range(fl->an, s->u.loop.var, s->u.loop.min, s->u.loop.extent);
  else if (s->kind == TIR_ATTR && s->u.attr.key && !strcmp(s->u.attr.key, "thread_extent") && tir_is_var(s->u.attr.node))
    tir_analyzer_bind_range(fl->an, s->u.attr.node, tir_int(m->ctx, s->u.attr.node->dtype, 0), s->u.attr.value);
  return NULL;
}

tir_func *tir_pass_flatten_buffer(tir_ctx *c, const tir_func *f, tir_diag *d) {
  flattener fl = {.an = tir_analyzer_new(c, d), .layouts = !f->s_tir, .d = d};
  tir_mutator m = {.expr = flatten_load, .stmt = flatten_stmt, .pre_stmt = bind_ranges, .ctx = c, .user = &fl};
  for (int i = 0; i < f->nparams; i++)
    if (f->buffer_map && f->buffer_map[i]) flat_buffer(c, &fl, f->buffer_map[i], true);
  tir_stmt *body = declare_params(c, &fl, f, tir_mutate_stmt(&m, f->body));
  tir_analyzer_free(fl.an);
  free(fl.pairs);
  tir_ptrmap_free(&fl.index);
  if (fl.failed) return NULL;
  tir_func *out = tir_func_copy(c, f);
  out->body = body;
  return out;
}
