/* lower_match_buffer.c - LowerMatchBuffer: removes every block-level
 * match_buffer by binding the view's fields (data, elem_offset, strides,
 * shape) to what its source region implies, and rewriting every use of the
 * view onto the source buffer (see docs/passes.md and semantics.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/ptr_set.h"
#include "ir/ptrmap.h"
#include "tir/analysis.h"
#include "tir/passes.h"
#include "tir/script.h"
#include "tir/visit.h"

typedef struct {
  tir_buffer *sub;
  tir_buffer_region src; /* already in terms of a non-view buffer */
} view;

typedef struct {
  tir_ctx *c;
  tir_diag *d;
  tir_analyzer *a;
  tir_var_map vars;   /* bound field vars (and params, bound to themselves) */
  ptr_set bound;      /* the keys of vars, for a quick "not bound" */
  view *views;
  ptr_set subs;       /* the views' buffers, for a quick "not a view" */
  int nviews, capviews;
  tir_ptrmap view_of; /* a view's buffer -> its last entry in views + 1 */
  ptr_set orig;       /* exprs of the input: anything else is new, to simplify */
  bool failed;
} lower_state;

/* ---- small helpers ---- */

static tir_expr *simplify(lower_state *st, tir_expr *e) { return tir_simplify(st->a, e); }

/* a op b with b's elements in a's type, a scalar side broadcast to the
 * other's lanes (a view's vector index, A.vload([0], "uint8x4"): the
 * source's min + Ramp(0, 1, 4) is Broadcast(min, 4) + the ramp, as TVM's) */
static tir_expr *arith(lower_state *st, tir_expr_kind k, tir_expr *a, tir_expr *b) {
  if (a->dtype.lanes == 1 && b->dtype.lanes > 1) a = tir_broadcast(st->c, a, b->dtype.lanes);
  else if (b->dtype.lanes == 1 && a->dtype.lanes > 1) b = tir_broadcast(st->c, b, a->dtype.lanes);
  if (!tir_dtype_eq(a->dtype, b->dtype)) b = tir_cast(st->c, tir_dtype_with_lanes(a->dtype, b->dtype.lanes), b);
  return tir_binary(st->c, k, a, b);
}

static tir_expr *add(lower_state *st, tir_expr *a, tir_expr *b) { return arith(st, TIR_ADD, a, b); }

static tir_expr *mul(lower_state *st, tir_expr *a, tir_expr *b) { return arith(st, TIR_MUL, a, b); }

static tir_expr *bound_value(const lower_state *st, const tir_expr *var) {
  return ptr_set_has(&st->bound, var) ? tir_var_map_get(&st->vars, var) : NULL;
}

static void bind_var(lower_state *st, const tir_expr *var, tir_expr *value) {
  tir_var_map_set(&st->vars, var, value);
  ptr_set_add(&st->bound, var);
}

static const view *find_view(const lower_state *st, const tir_buffer *b) {
  if (!ptr_set_has(&st->subs, b)) return NULL;
  long i = tir_ptrmap_get(&st->view_of, b, 0);
  return i ? &st->views[i - 1] : NULL;
}

static void add_view(lower_state *st, tir_buffer *sub, tir_buffer_region src) {
  if (st->nviews == st->capviews) {
    st->capviews = st->capviews ? st->capviews * 2 : 8;
    st->views = realloc(st->views, sizeof *st->views * (size_t)st->capviews);
    if (!st->views) abort();
  }
  st->views[st->nviews++] = (view){sub, src};
  tir_ptrmap_put(&st->view_of, sub, st->nviews);
  ptr_set_add(&st->subs, sub);
}

static char *expr_text(const tir_expr *e) {
  char *s = tir_print_expr(e);
  if (s) return s;
  s = malloc(2);
  if (!s) abort();
  strcpy(s, "?");
  return s;
}

static int offset_factor(const tir_buffer *b) { return b->offset_factor > 0 ? b->offset_factor : 1; }
static int alignment(const tir_buffer *b) { return b->data_alignment > 0 ? b->data_alignment : 64; }

/* ---- converting accesses of a view into accesses of its source ---- */

/* sub[j...] -> src[min + j...]; dims the view dropped take the region min */
static tir_expr **convert_indices(lower_state *st, const view *v, tir_expr *const *idx, int nidx) {
  int n = v->src.n, off = n - nidx;
  tir_expr **out = tir_alloc(st->c, sizeof *out * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    tir_expr *min = v->src.region[i].min;
    out[i] = i < off ? min : simplify(st, add(st, min, idx[i - off]));
  }
  return out;
}

static void convert_region(lower_state *st, tir_buffer_region *r) {
  const view *v;
  while ((v = find_view(st, r->buf))) {
    int n = v->src.n, off = n - r->n;
    if (off < 0) return; /* malformed; the verifier reports it */
    tir_range *out = tir_alloc(st->c, sizeof *out * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
      const tir_range *s = &v->src.region[i];
      if (i < off)
        out[i] = (tir_range){s->min, tir_int(st->c, s->extent->dtype, 1)};
      else
        out[i] = (tir_range){simplify(st, add(st, s->min, r->region[i - off].min)), r->region[i - off].extent};
    }
    r->buf = v->src.buf;
    r->region = out;
    r->n = n;
  }
}

/* ---- the mutator callbacks ---- */

static tir_expr *on_expr(tir_mutator *m, tir_expr *e) {
  lower_state *st = m->user;
  if (e->kind == TIR_VAR) {
    tir_expr *val = bound_value(st, e);
    return val && val != e ? val : e;
  }
  if (e->kind == TIR_BUFFER_LOAD) {
    const view *v = find_view(st, e->u.load.buf);
    if (v) {
      if (e->u.load.nidx > v->src.n) return e;
      tir_expr **idx = convert_indices(st, v, e->u.load.idx, e->u.load.nidx);
      tir_expr *r = tir_load(st->c, v->src.buf, idx, v->src.n);
      r->span = e->span;
      return r;
    }
  }
  if (!ptr_set_has(&st->orig, e) && e->kind != TIR_INT_IMM && e->kind != TIR_FLOAT_IMM)
    return simplify(st, e);
  return e;
}

static tir_stmt *on_stmt(tir_mutator *m, tir_stmt *s) {
  lower_state *st = m->user;
  if (s->kind != TIR_BUFFER_STORE) return s;
  const view *v = find_view(st, s->u.store.buf);
  if (!v || s->u.store.nidx > v->src.n) return s;
  tir_expr **idx = convert_indices(st, v, s->u.store.idx, s->u.store.nidx);
  tir_stmt *r = tir_store(st->c, v->src.buf, s->u.store.value, idx, v->src.n);
  r->span = s->span;
  return r;
}

static void on_region(tir_mutator *m, tir_buffer_region *r) { convert_region(m->user, r); }

/* ---- Bind: the heart of the pass ---- */

static void bind_error(lower_state *st, tir_span sp, const char *field, tir_expr *lhs, tir_expr *rhs) {
  char *l = expr_text(lhs), *r = expr_text(rhs);
  tir_error(st->d, sp, "%s: buffer match constraint unmet: %s == %s", field, l, r);
  free(l);
  free(r);
  st->failed = true;
}

/* arg (a field of the view) := value (what the source implies) */
static void bind(lower_state *st, tir_expr *arg, tir_expr *value, const char *field, tir_span sp) {
  if (!tir_dtype_eq(arg->dtype, value->dtype)) {
    if (tir_dtype_is_int(arg->dtype) && tir_dtype_is_int(value->dtype)) {
      value = tir_cast(st->c, arg->dtype, value);
    } else {
      char ta[32], tv[32];
      tir_error(st->d, sp, "%s: data type mismatch: %s vs %s", field, tir_dtype_str(arg->dtype, ta),
                tir_dtype_str(value->dtype, tv));
      st->failed = true;
      return;
    }
  }
  value = tir_substitute_expr(st->c, value, &st->vars);
  if (!tir_dtype_is_handle(value->dtype)) value = simplify(st, value);
  if (tir_is_var(arg) && !bound_value(st, arg)) {
    bind_var(st, arg, value);
    if (!tir_dtype_is_handle(value->dtype)) tir_analyzer_bind(st->a, arg, value);
    return;
  }
  tir_expr *lhs = tir_is_var(arg) ? bound_value(st, arg) : tir_substitute_expr(st->c, arg, &st->vars);
  if (tir_dtype_is_handle(lhs->dtype)) {
    if (lhs != value) bind_error(st, sp, field, lhs, value);
    return;
  }
  lhs = simplify(st, lhs);
  if (!tir_can_prove_equal(st->a, lhs, value)) bind_error(st, sp, field, lhs, value);
}

/* ---- one match_buffer ---- */

static bool check_match(lower_state *st, const tir_buffer *sub, const tir_buffer_region *src, tir_span sp) {
  const tir_buffer *sb = src->buf;
  bool ok = true;
  if (strcmp(sub->scope, sb->scope)) {
    tir_error(st->d, sp, "match_buffer '%s' has scope \"%s\" but its source '%s' has scope \"%s\"",
              sub->name, sub->scope, sb->name, sb->scope);
    ok = false;
  }
  if (!tir_dtype_eq(sub->dtype, sb->dtype)) {
    char t1[32], t2[32];
    tir_error(st->d, sp, "match_buffer '%s' has dtype %s but its source '%s' has dtype %s", sub->name,
              tir_dtype_str(sub->dtype, t1), sb->name, tir_dtype_str(sb->dtype, t2));
    ok = false;
  }
  if (src->n < sub->ndim) {
    tir_error(st->d, sp, "match_buffer '%s' has %d dims but its source region has only %d", sub->name,
              sub->ndim, src->n);
    return false;
  }
  if (sub->nstrides && sub->nstrides != sub->ndim) {
    tir_error(st->d, sp, "match_buffer '%s' has %d strides for %d dims", sub->name, sub->nstrides, sub->ndim);
    ok = false;
  }
  if (sb->nstrides && sb->nstrides != sb->ndim) {
    tir_error(st->d, sp, "buffer '%s' has %d strides for %d dims", sb->name, sb->nstrides, sb->ndim);
    ok = false;
  }
  for (int i = 0; i < src->n - sub->ndim; i++) {
    if (!tir_can_prove_equal(st->a, src->region[i].extent, tir_int(st->c, src->region[i].extent->dtype, 1))) {
      char *e = expr_text(src->region[i].extent);
      tir_error(st->d, sp, "match_buffer '%s': dim %d of the source region is dropped by the view, so its extent must be 1, not %s",
                sub->name, i, e);
      free(e);
      ok = false;
    }
  }
  if (alignment(sb) % alignment(sub) != 0)
    tir_warning(st->d, sp, "match_buffer '%s' requires alignment %d but its source '%s' provides %d", sub->name,
                alignment(sub), sb->name, alignment(sb));
  int64_t z;
  if (tir_is_const_int(sub->elem_offset, &z) && z == 0 &&
      !tir_can_prove_equal(st->a, sb->elem_offset, tir_int(st->c, sb->elem_offset->dtype, 0))) {
    char *e = expr_text(sb->elem_offset);
    tir_error(st->d, sp, "match_buffer '%s' promises elem_offset 0 but its source '%s' has elem_offset %s",
              sub->name, sb->name, e);
    free(e);
    ok = false;
  }
  if (!ok) st->failed = true;
  return ok;
}

/* the source's stride of dim i: declared, or the row-major product */
static tir_expr *src_stride(lower_state *st, const tir_buffer *b, int i) {
  if (b->nstrides) return b->strides[i];
  tir_dtype t = b->ndim ? b->shape[b->ndim - 1]->dtype : TIR_INT32;
  tir_expr *s = tir_int(st->c, t, 1);
  for (int k = b->ndim - 1; k > i; k--) s = mul(st, s, b->shape[k]);
  return simplify(st, s);
}

static void bind_match(lower_state *st, tir_buffer *sub, const tir_buffer_region *src, tir_span sp) {
  const tir_buffer *sb = src->buf;
  char field[256];
  snprintf(field, sizeof field, "%s.data", sub->name);
  bind(st, sub->data, sb->data, field, sp);

  tir_expr *off = sb->elem_offset;
  for (int i = 0; i < src->n; i++) off = add(st, off, mul(st, src->region[i].min, src_stride(st, sb, i)));
  snprintf(field, sizeof field, "%s.elem_offset", sub->name);
  bind(st, sub->elem_offset, off, field, sp);
  int factor = offset_factor(sub);
  if (factor > 1 && !st->failed) {
    tir_expr *eo = tir_substitute_expr(st->c, sub->elem_offset, &st->vars);
    tir_expr *f = tir_int(st->c, eo->dtype, factor);
    tir_expr *rem = tir_binary(st->c, TIR_FLOORMOD, eo, f);
    if (!tir_can_prove_equal(st->a, rem, tir_int(st->c, eo->dtype, 0))) {
      char *e = expr_text(simplify(st, eo));
      tir_error(st->d, sp, "%s: source offset %s is not a multiple of offset_factor %d", field, e, factor);
      free(e);
      st->failed = true;
    }
  }

  int off_dims = src->n - sub->ndim;
  for (int i = sub->nstrides ? sub->ndim - 1 : -1; i >= 0; i--) {
    snprintf(field, sizeof field, "%s.strides_%d", sub->name, i);
    bind(st, sub->strides[i], src_stride(st, sb, i + off_dims), field, sp);
  }
  for (int i = 0; i < sub->ndim; i++) {
    snprintf(field, sizeof field, "%s.shape_%d", sub->name, i);
    bind(st, sub->shape[i], src->region[i + off_dims].extent, field, sp);
  }
}

/* the source region in terms of a non-view buffer, with bound vars substituted */
static tir_buffer_region resolve_source(lower_state *st, tir_mutator *m, const tir_buffer_region *src) {
  tir_buffer_region r = *src;
  tir_range *copy = tir_alloc(st->c, sizeof *copy * (size_t)(r.n ? r.n : 1));
  for (int i = 0; i < r.n; i++)
    copy[i] = (tir_range){tir_mutate_expr(m, r.region[i].min), tir_mutate_expr(m, r.region[i].extent)};
  r.region = copy;
  convert_region(st, &r);
  return r;
}

static void lower_matches(lower_state *st, tir_mutator *m, const tir_block *blk) {
  for (int i = 0; i < blk->n_match && !st->failed; i++) {
    const tir_match_buffer *mb = &blk->match_buffers[i];
    tir_span sp = mb->span.line ? mb->span : blk->span;
    tir_buffer_region src = resolve_source(st, m, &mb->src);
    if (!check_match(st, mb->buf, &src, sp)) return;
    bind_match(st, mb->buf, &src, sp);
    add_view(st, mb->buf, src);
  }
}

static tir_buffer_region *mutate_regions(tir_mutator *m, const tir_buffer_region *rs, int n) {
  if (!n) return NULL;
  tir_buffer_region *out = tir_alloc(m->ctx, sizeof *out * (size_t)n);
  for (int i = 0; i < n; i++) {
    out[i] = tir_mutate_region(m, rs[i]);
    convert_region(m->user, &out[i]);
  }
  return out;
}

/* a block with match_buffers: bind them first, then rewrite everything */
static tir_stmt *lower_block(lower_state *st, tir_mutator *m, tir_stmt *s) {
  const tir_block *blk = s->u.realize.block;
  lower_matches(st, m, blk);
  if (st->failed) return s;
  tir_block *nb = tir_block_copy(st->c, blk);
  nb->match_buffers = NULL;
  nb->n_match = 0;
  nb->reads = mutate_regions(m, blk->reads, blk->n_reads);
  nb->writes = mutate_regions(m, blk->writes, blk->n_writes);
  if (blk->init) nb->init = tir_mutate_stmt(m, blk->init);
  nb->body = tir_mutate_stmt(m, blk->body);
  tir_expr **vals = tir_alloc(st->c, sizeof *vals * (size_t)(s->u.realize.n ? s->u.realize.n : 1));
  for (int i = 0; i < s->u.realize.n; i++) vals[i] = tir_mutate_expr(m, s->u.realize.iter_values[i]);
  tir_stmt *r = tir_block_realize(st->c, vals, s->u.realize.n, tir_mutate_expr(m, s->u.realize.predicate), nb);
  r->span = s->span;
  return r;
}

static tir_stmt *pre_stmt(tir_mutator *m, tir_stmt *s) {
  lower_state *st = m->user;
  if (st->failed) return s;
  if (s->kind == TIR_FOR) {
    tir_analyzer_bind_range(st->a, s->u.loop.var, s->u.loop.min, s->u.loop.extent);
    return NULL;
  }
  if (s->kind != TIR_BLOCK_REALIZE) return NULL;
  const tir_block *blk = s->u.realize.block;
  for (int i = 0; i < blk->n_iter; i++)
    tir_analyzer_bind_range(st->a, blk->iter_vars[i].var, blk->iter_vars[i].dom.min, blk->iter_vars[i].dom.extent);
  return blk->n_match ? lower_block(st, m, s) : NULL;
}

/* ---- the pass ---- */

static bool remember_expr(tir_visitor *v, const tir_expr *e) {
  ptr_set_add(v->user, e);
  return true;
}

static void bind_self(lower_state *st, tir_expr *e) {
  if (tir_is_var(e) && !bound_value(st, e)) bind_var(st, e, e);
}

/* params and the fields of the function's own buffers are fixed: a view
 * binding one of them must agree with it */
static void bind_params(lower_state *st, const tir_func *f) {
  for (int i = 0; i < f->nparams; i++) {
    if (!tir_dtype_is_handle(f->params[i]->dtype)) bind_self(st, f->params[i]);
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b) continue;
    for (int k = 0; k < b->ndim; k++) bind_self(st, b->shape[k]);
    for (int k = 0; k < b->nstrides; k++) bind_self(st, b->strides[k]);
    bind_self(st, b->elem_offset);
  }
}

static bool has_match(tir_visitor *v, const tir_stmt *s) {
  if (s->kind == TIR_BLOCK_REALIZE && s->u.realize.block && s->u.realize.block->n_match) *(bool *)v->user = true;
  return !*(bool *)v->user;
}

tir_func *tir_pass_lower_match_buffer(tir_ctx *c, const tir_func *f, tir_diag *d) {
  bool any = false;
  tir_visitor probe = {.stmt = has_match, .user = &any};
  tir_visit_stmt(&probe, f->body);
  if (!any) return (tir_func *)f;

  lower_state st;
  memset(&st, 0, sizeof st);
  st.c = c;
  st.d = d;
  st.a = tir_analyzer_new(c, d);
  tir_visitor rem = {.expr = remember_expr, .user = &st.orig};
  tir_visit_stmt(&rem, f->body);
  bind_params(&st, f);

  tir_mutator m = {.expr = on_expr, .stmt = on_stmt, .pre_stmt = pre_stmt, .region = on_region, .ctx = c, .user = &st};
  tir_stmt *body = tir_mutate_stmt(&m, f->body);

  tir_func *out = NULL;
  if (!st.failed) {
    out = tir_func_copy(c, f);
    out->body = body;
  }
  tir_analyzer_free(st.a);
  tir_var_map_free(&st.vars);
  ptr_set_free(&st.orig);
  ptr_set_free(&st.bound);
  ptr_set_free(&st.subs);
  tir_ptrmap_free(&st.view_of);
  free(st.views);
  return out;
}
