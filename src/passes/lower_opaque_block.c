/* lower_opaque_block.c - LowerOpaqueBlock (alias lower_opaque): removes the
 * (opaque) blocks, as TVM does:
 *  - a block becomes its body, under `if predicate` when it has one, under
 *    its `pragma_*` annotations as AttrStmts, and under one statement-level
 *    allocation (AllocBuffer) per alloc_buffer, the first outermost,
 *    annotated with its alignment as TVM 0.27 does;
 *  - a thread_binding loop becomes a `thread_extent` AttrStmt on its var
 *    (T.launch_thread; "virtual_thread" for vthread tags);
 *  - a loop of extent 1 with no annotations disappears, its var replaced by
 *    its min (a thread-bound one still launches its thread);
 *  - a loop's `pragma_*` annotations become AttrStmts around it.
 * Blocks with iter vars are an error: run to_opaque first. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tir/passes.h"
#include "tir/visit.h"

typedef struct opaque_lower {
  tir_var_map unit; /* unit loop var -> its min */
  struct dim_align { const tir_expr *data; tir_attr_val *list; } *aligns; /* buffer_dim_align per data var */
  int naligns, capaligns;
  tir_ctx *c;
  tir_diag *d;
  bool failed;
} opaque_lower;

static bool is_pragma(const char *k) { return !strncmp(k, "pragma_", 7); }

/* wrap body in AttrStmts for each pragma_* key of annots (first outermost) */
static tir_stmt *wrap_pragmas(tir_ctx *c, const tir_attr_val *annots, tir_expr *node, tir_stmt *body) {
  if (!annots || annots->kind != TIR_AV_DICT) return body;
  for (int i = annots->n - 1; i >= 0; i--) {
    const tir_attr_val *v = annots->items[i];
    if (!is_pragma(annots->keys[i]) || v->kind != TIR_AV_EXPR) continue;
    /* a Python int of the annotation (int64) becomes an int32 IntImm where it
     * fits, as TVM's conversion of a boxed int to a PrimExpr */
    tir_expr *e = v->expr;
    int64_t k;
    if (tir_dtype_eq(e->dtype, TIR_INT64) && tir_is_const_int(e, &k) && k >= INT32_MIN && k <= INT32_MAX)
      e = tir_i32(c, k);
    body = tir_attr_stmt(c, annots->keys[i], node, e, body);
  }
  return body;
}

/* annots without pragma_* keys, or NULL when none is left */
static tir_attr_val *non_pragma(tir_ctx *c, tir_attr_val *annots) {
  if (!annots || annots->kind != TIR_AV_DICT) return annots;
  const char **keys = tir_alloc(c, sizeof *keys * (size_t)(annots->n + 1));
  tir_attr_val **items = tir_alloc(c, sizeof *items * (size_t)(annots->n + 1));
  int k = 0;
  for (int i = 0; i < annots->n; i++)
    if (!is_pragma(annots->keys[i])) {
      keys[k] = annots->keys[i];
      items[k++] = annots->items[i];
    }
  if (k == annots->n) return annots;
  return k ? tir_av_dict(c, keys, items, k) : NULL;
}

static bool has_annotations(const tir_attr_val *a) { return a && a->kind == TIR_AV_DICT && a->n > 0; }

static bool is_virtual_thread(const char *tag) { return tag && !strncmp(tag, "vthread", 7); }

static tir_stmt *lower_for(tir_mutator *m, tir_stmt *s) {
  opaque_lower *st = m->user;
  tir_ctx *c = m->ctx;
  tir_expr *min = tir_mutate_expr(m, s->u.loop.min);
  tir_expr *extent = tir_mutate_expr(m, s->u.loop.extent);
  tir_expr *step = s->u.loop.step ? tir_mutate_expr(m, s->u.loop.step) : NULL;
  int64_t ext, sv;
  if (s->u.loop.kind == TIR_FOR_THREAD_BINDING && step && !(tir_is_const_int(step, &sv) && sv == 1)) {
    tir_error(st->d, s->span,
              "thread-bound loop '%s' has a step: run canonicalize_loop first (the default pipeline does)",
              s->u.loop.var->u.var.name);
    st->failed = true;
    return s;
  }
  int64_t mv;
  if (s->u.loop.kind == TIR_FOR_THREAD_BINDING && !(tir_is_const_int(min, &mv) && mv == 0)) {
    /* a thread launch counts from 0: the var would lose its start (TVM's
     * pass drops it, and the body reads other elements) */
    tir_error(st->d, s->span,
              "thread-bound loop '%s' does not start at 0: run canonicalize_loop first (the default pipeline does)",
              s->u.loop.var->u.var.name);
    st->failed = true;
    return s;
  }
  bool unit = tir_is_const_int(extent, &ext) && ext == 1 && !has_annotations(s->u.loop.annotations);
  if (unit) {
    tir_expr *v = min;
    if (!tir_dtype_eq(v->dtype, s->u.loop.var->dtype)) v = tir_cast(c, s->u.loop.var->dtype, v);
    tir_var_map_set(&st->unit, s->u.loop.var, v);
  }
  tir_stmt *body = tir_mutate_stmt(m, s->u.loop.body);
  if (s->u.loop.kind == TIR_FOR_THREAD_BINDING) {
    const char *tag = s->u.loop.thread_tag ? s->u.loop.thread_tag : "";
    body = tir_attr_stmt(c, is_virtual_thread(tag) ? "virtual_thread" : "thread_extent", s->u.loop.var,
                         extent, body);
    body->u.attr.thread_tag = tir_strdup(c, tag);
  } else if (unit) {
    return body;
  } else {
    body = tir_for(c, s->u.loop.var, min, extent, s->u.loop.kind, s->u.loop.thread_tag,
                   non_pragma(c, s->u.loop.annotations), body);
    body->span = s->span;
    body->u.loop.step = step;
  }
  return wrap_pragmas(c, s->u.loop.annotations, s->u.loop.var, body);
}

/* what TVM 0.27's LowerOpaqueBlock puts on each AllocBuffer it makes:
 * {"buffer_allocated_addr": [<the buffer's allocated_addr>],
 * "buffer_data_alignment": <align>} (the list empty where the buffer has
 * none) */
static tir_attr_val *dim_align_of(opaque_lower *st, const tir_expr *data) {
  for (int i = 0; i < st->naligns; i++)
    if (st->aligns[i].data == data) return st->aligns[i].list;
  return NULL;
}

static tir_attr_val *alloc_annotations(opaque_lower *st, const tir_buffer *orig, const tir_buffer *buf) {
  tir_ctx *c = st->c;
  int align = buf->data_alignment > 0 ? buf->data_alignment : 64;
  const char *keys[] = {"buffer_allocated_addr", "buffer_data_alignment", "buffer_dim_align"};
  tir_attr_val **addr = tir_alloc(c, sizeof *addr * (size_t)(buf->naddr ? buf->naddr : 1));
  for (int i = 0; i < buf->naddr; i++) { /* TVM's IntImm of the address (T.int64(7), never a Python int) */
    addr[i] = tir_av_expr(c, buf->addr[i]);
    addr[i]->typed = true;
  }
  tir_attr_val *items[] = {tir_av_list(c, addr, buf->naddr), tir_av_expr(c, tir_int(c, TIR_INT64, align)),
                           dim_align_of(st, orig->data)};
  return tir_av_dict(c, keys, items, items[2] ? 3 : 2);
}

/* a block's buffer_dim_align [[write index, axis, factor, offset], ...]
 * outlives the block, as TVM 0.27's LowerOpaqueBlock keeps it: on the
 * buffer's allocation, as [[-1, axis, factor, offset], ...], where
 * CompactBufferAllocation after it finds it (the two orders agree) */
static bool collect_dim_align(tir_visitor *v, const tir_stmt *s) {
  opaque_lower *st = v->user;
  if (s->kind != TIR_BLOCK_REALIZE) return true;
  const tir_block *b = s->u.realize.block;
  tir_attr_val *a = tir_av_get(b->annotations, "buffer_dim_align");
  if (!a || a->kind != TIR_AV_LIST) return true;
  for (int i = 0; i < a->n; i++) {
    int64_t q[4];
    if (!tir_av_int_list(a->items[i], q, 4) || q[0] < 0 || q[0] >= b->n_writes) continue;
    const tir_expr *data = b->writes[q[0]].buf->data;
    tir_attr_val *old = dim_align_of(st, data);
    tir_attr_val **items = tir_alloc(st->c, sizeof *items * (size_t)((old ? old->n : 0) + 1));
    int n = 0;
    for (int k = 0; old && k < old->n; k++) items[n++] = old->items[k];
    tir_attr_val *e[4];
    e[0] = tir_av_expr(st->c, tir_int(st->c, TIR_INT64, -1));
    for (int k = 1; k < 4; k++) e[k] = tir_av_expr(st->c, tir_int(st->c, TIR_INT64, q[k]));
    items[n++] = tir_av_list(st->c, e, 4);
    tir_attr_val *list = tir_av_list(st->c, items, n);
    int j = 0;
    while (j < st->naligns && st->aligns[j].data != data) j++;
    if (j == st->naligns) {
      if (st->naligns == st->capaligns) {
        st->capaligns = st->capaligns ? st->capaligns * 2 : 4;
        st->aligns = realloc(st->aligns, sizeof *st->aligns * (size_t)st->capaligns);
        if (!st->aligns) abort(); /* out of memory is not bad input */
      }
      st->naligns++;
    }
    st->aligns[j] = (struct dim_align){data, list};
  }
  return true;
}

static tir_stmt *lower_realize(tir_mutator *m, tir_stmt *s) {
  opaque_lower *st = m->user;
  tir_ctx *c = m->ctx;
  const tir_block *b = s->u.realize.block;
  if (b->n_iter > 0 || s->u.realize.n > 0) {
    if (!st->failed)
      tir_error(st->d, b->span, "block '%s' still has iter vars: run ConvertBlocksToOpaque (to_opaque) before LowerOpaqueBlock",
                b->name);
    st->failed = true;
    return s;
  }
  if (b->init) { /* its body would run once with the block's: at every iteration, not the first */
    if (!st->failed)
      tir_error(st->d, b->init->span.line ? b->init->span : b->span,
                "block '%s' still has its T.init(): run LowerInitBlock (lower_init) before LowerOpaqueBlock", b->name);
    st->failed = true;
    return s;
  }
  if (b->n_match > 0) { /* the views would lose their binding with the block */
    if (!st->failed)
      tir_error(st->d, b->match_buffers[0].span,
                "block '%s' still has match_buffers: run LowerMatchBuffer (lower_match) before LowerOpaqueBlock", b->name);
    st->failed = true;
    return s;
  }
  tir_stmt *body = tir_mutate_stmt(m, b->body);
  tir_expr *pred = tir_mutate_expr(m, s->u.realize.predicate);
  int64_t one;
  if (pred && !(tir_is_const_int(pred, &one) && one == 1) &&
      !(pred->kind == TIR_INT_IMM && tir_dtype_is_bool(pred->dtype) && pred->u.int_val == 1))
    body = tir_if(c, pred, body, NULL);
  body = wrap_pragmas(c, b->annotations, tir_i32(c, 0), body);
  for (int i = b->n_alloc - 1; i >= 0; i--) {
    tir_buffer *buf = b->alloc_buffers[i];
    if (m->buffer) buf = m->buffer(m, buf);
    body = tir_alloc_buffer_annotated(c, buf, alloc_annotations(st, b->alloc_buffers[i], buf), body);
    body->span = buf->span.line ? buf->span : b->span;
  }
  return body;
}

static tir_stmt *lower_pre(tir_mutator *m, tir_stmt *s) {
  if (s->kind == TIR_FOR) return lower_for(m, s);
  if (s->kind == TIR_BLOCK_REALIZE) return lower_realize(m, s);
  return NULL;
}

static tir_expr *replace_unit_var(tir_mutator *m, tir_expr *e) {
  if (e->kind != TIR_VAR) return e;
  opaque_lower *st = m->user;
  tir_expr *v = tir_var_map_get(&st->unit, e);
  return v ? v : e;
}

tir_func *tir_pass_lower_opaque_block(tir_ctx *c, const tir_func *f, tir_diag *d) {
  opaque_lower st = {.c = c, .d = d};
  tir_visitor v = {.stmt = collect_dim_align, .user = &st};
  tir_visit_stmt(&v, f->body);
  tir_mutator m = {.expr = replace_unit_var, .pre_stmt = lower_pre, .ctx = c, .user = &st};
  tir_stmt *body = tir_mutate_stmt(&m, f->body);
  tir_var_map_free(&st.unit);
  free(st.aligns);
  if (st.failed) return NULL;
  tir_func *out = tir_func_copy(c, f);
  out->body = body;
  return out;
}
