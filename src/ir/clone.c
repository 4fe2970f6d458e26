/* clone.c - a module copied whole into another ctx, sharing preserved: a
 * node (var, buffer, expr, stmt, block, string ...) met twice is copied
 * once, so vars and buffers keep their identity and a DAG stays a DAG.
 * Ids are kept.  The pipeline uses it to drop the IR its passes replaced
 * (pass_manager.c). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arena_internal.h"
#include "ir/ptrmap.h"
#include "tir/ir.h"

typedef struct cl {
  tir_ctx *c;
  tir_ptrmap seen; /* old node -> new node */
  /* promoting: only what lives in this ctx is copied (its chunks by
   * address); the rest is shared as it is */
  const void **only;
  int nonly;
  uintptr_t lo, hi; /* the data of the chunk last found */
  /* promoting: the nodes of `only` die after, so each copied one is
   * forwarded in place (and what lives elsewhere is kept) */
  bool promote;
} cl;

/* a node that stays as it is: made outside the ctx promoted from (nothing
 * made before it can point into it) */
#define KEEP(k, p) ((k)->promote && !owned((k), (p)))

/* p lies in a chunk of `only`: the chunk of the last answer first (nodes
 * made together sit together), else a binary search */
static bool owned(cl *k, const void *p) {
  uintptr_t a = (uintptr_t)p;
  if (a >= k->lo && a < k->hi) return true;
  const void *chunk = tir_ctx_index_find(k->only, k->nonly, p, &k->lo, &k->hi);
  return chunk != NULL;
}

static void *seen(cl *k, const void *p) { return (void *)(intptr_t)tir_ptrmap_get(&k->seen, p, 0); }
static void mark(cl *k, const void *old, const void *n) { tir_ptrmap_put(&k->seen, old, (long)(intptr_t)n); }

/* moving (the nodes of `only` are freed after): a node copied is overwritten
 * with a forwarding mark (a field no live node holds: a negative line or
 * count) and the copy's address, instead of a map entry (a map of every
 * node would take more memory than the IR) */
#define FWD_GET(n, field) (*(void **)(void *)&(n)->field)
static void *seen_expr(cl *k, const tir_expr *e) {
  return k->promote ? (e->span.line == INT_MIN ? FWD_GET(e, u) : NULL) : seen(k, e);
}
static void mark_expr(cl *k, const tir_expr *e, void *n) {
  if (!k->promote) {
    mark(k, e, n);
    return;
  }
  tir_expr *w = (tir_expr *)e;
  w->span.line = INT_MIN;
  FWD_GET(w, u) = n;
}
static void *seen_stmt(cl *k, const tir_stmt *s) {
  return k->promote ? (s->span.line == INT_MIN ? FWD_GET(s, u) : NULL) : seen(k, s);
}
static void mark_stmt(cl *k, const tir_stmt *s, void *n) {
  if (!k->promote) {
    mark(k, s, n);
    return;
  }
  tir_stmt *w = (tir_stmt *)s;
  w->span.line = INT_MIN;
  FWD_GET(w, u) = n;
}
static void *seen_attr(cl *k, const tir_attr_val *v) {
  return k->promote ? (v->n == INT_MIN ? (void *)v->items : NULL) : seen(k, v);
}
static void mark_attr(cl *k, const tir_attr_val *v, void *n) {
  if (!k->promote) {
    mark(k, v, n);
    return;
  }
  tir_attr_val *w = (tir_attr_val *)v;
  w->n = INT_MIN;
  w->items = n;
}
static void *seen_buffer(cl *k, const tir_buffer *b) {
  return k->promote ? (b->naxis_sep == INT_MIN ? (void *)b->data : NULL) : seen(k, b);
}
static void mark_buffer(cl *k, const tir_buffer *b, void *n) {
  if (!k->promote) {
    mark(k, b, n);
    return;
  }
  tir_buffer *w = (tir_buffer *)b;
  w->naxis_sep = INT_MIN;
  w->data = n;
}
static void *seen_block(cl *k, const tir_block *b) {
  return k->promote ? (b->n_iter == INT_MIN ? (void *)b->body : NULL) : seen(k, b);
}
static void mark_block(cl *k, const tir_block *b, void *n) {
  if (!k->promote) {
    mark(k, b, n);
    return;
  }
  tir_block *w = (tir_block *)b;
  w->n_iter = INT_MIN;
  w->body = n;
}

static const char *str(cl *k, const char *s) {
  if (!s || KEEP(k, s)) return s;
  if (k->promote) return tir_strdup(k->c, s); /* met once per node that holds it */
  const char *n = seen(k, s);
  if (n) return n;
  n = tir_strdup(k->c, s);
  mark(k, s, n);
  return n;
}

static void *arr(cl *k, const void *a, size_t bytes) {
  if (!a) return NULL;
  if (KEEP(k, a)) return (void *)a;
  void *n = tir_alloc(k->c, bytes ? bytes : 1);
  memcpy(n, a, bytes);
  return n;
}

static tir_expr *expr(cl *k, const tir_expr *e);
static tir_buffer *buffer(cl *k, const tir_buffer *b);
static tir_stmt *stmt(cl *k, const tir_stmt *s);

static tir_expr **exprs(cl *k, tir_expr *const *es, int n) {
  if (!es) return NULL;
  if (KEEP(k, es)) return (tir_expr **)es; /* an old array holds old nodes only */
  tir_expr **o = tir_alloc(k->c, sizeof *o * (size_t)(n + 1));
  for (int i = 0; i < n; i++) o[i] = expr(k, es[i]);
  return o;
}

static tir_expr *expr(cl *k, const tir_expr *e) {
  if (!e) return NULL;
  if (KEEP(k, e)) return (void *)e;
  tir_expr *n = seen_expr(k, e);
  if (n) return n;
  n = tir_alloc(k->c, sizeof *n);
  *n = *e;
  mark_expr(k, e, n);
  switch (n->kind) {
  case TIR_VAR:
    tir_ctx_reserve_id(k->c, n->u.var.id);
    n->u.var.name = str(k, n->u.var.name);
    n->u.var.ptr_scope = str(k, n->u.var.ptr_scope);
    break;
  case TIR_INT_IMM: case TIR_FLOAT_IMM: break;
  case TIR_STRING_IMM: n->u.str = str(k, n->u.str); break;
  case TIR_NOT: case TIR_CAST: n->u.un.a = expr(k, n->u.un.a); break;
  case TIR_SELECT:
    n->u.select.cond = expr(k, n->u.select.cond);
    n->u.select.t = expr(k, n->u.select.t);
    n->u.select.f = expr(k, n->u.select.f);
    break;
  case TIR_CALL:
    n->u.call.op = str(k, n->u.call.op);
    n->u.call.args = exprs(k, n->u.call.args, n->u.call.nargs);
    n->u.call.ptr_scope = str(k, n->u.call.ptr_scope);
    if (n->u.call.named && !KEEP(k, n->u.call.named)) {
      const tir_buffer **nb = tir_alloc(k->c, sizeof *nb * (size_t)(n->u.call.nargs ? n->u.call.nargs : 1));
      for (int i = 0; i < n->u.call.nargs; i++) nb[i] = buffer(k, e->u.call.named[i]);
      n->u.call.named = nb;
    }
    break;
  case TIR_BUFFER_LOAD:
    n->u.load.buf = buffer(k, n->u.load.buf);
    n->u.load.idx = exprs(k, n->u.load.idx, n->u.load.nidx);
    break;
  case TIR_RAMP:
    n->u.ramp.base = expr(k, n->u.ramp.base);
    n->u.ramp.stride = expr(k, n->u.ramp.stride);
    break;
  case TIR_BROADCAST: n->u.bcast.value = expr(k, n->u.bcast.value); break;
  case TIR_LET:
    n->u.let.var = expr(k, n->u.let.var);
    n->u.let.value = expr(k, n->u.let.value);
    n->u.let.body = expr(k, n->u.let.body);
    break;
  default:
    if (TIR_IS_BINARY(n->kind)) {
      n->u.bin.a = expr(k, n->u.bin.a);
      n->u.bin.b = expr(k, n->u.bin.b);
    }
    break;
  }
  return n;
}

static tir_attr_val *attr(cl *k, const tir_attr_val *v) {
  if (!v) return NULL;
  if (KEEP(k, v)) return (void *)v;
  tir_attr_val *n = seen_attr(k, v);
  if (n) return n;
  n = tir_alloc(k->c, sizeof *n);
  *n = *v;
  mark_attr(k, v, n);
  n->expr = expr(k, n->expr);
  n->buf = buffer(k, n->buf);
  if (n->items && !KEEP(k, n->items)) {
    tir_attr_val **old = n->items;
    n->items = tir_alloc(k->c, sizeof *n->items * (size_t)(n->n + 1));
    for (int i = 0; i < n->n; i++) n->items[i] = attr(k, old[i]);
  }
  if (n->keys && !KEEP(k, n->keys)) {
    const char **old = n->keys;
    n->keys = tir_alloc(k->c, sizeof *n->keys * (size_t)(n->n + 1));
    for (int i = 0; i < n->n; i++) n->keys[i] = str(k, old[i]);
  }
  return n;
}

static tir_buffer *buffer(cl *k, const tir_buffer *b) {
  if (!b) return NULL;
  if (KEEP(k, b)) return (void *)b;
  tir_buffer *n = seen_buffer(k, b);
  if (n) return n;
  n = tir_alloc(k->c, sizeof *n);
  *n = *b;
  mark_buffer(k, b, n);
  tir_ctx_reserve_id(k->c, n->id);
  n->name = str(k, n->name);
  n->data = expr(k, n->data);
  n->shape = exprs(k, n->shape, n->ndim);
  n->strides = exprs(k, n->strides, n->nstrides);
  n->layout = exprs(k, n->layout, 2 * n->nlayout);
  n->addr = exprs(k, n->addr, n->naddr);
  n->elem_offset = expr(k, n->elem_offset);
  n->scope = str(k, n->scope);
  n->axis_separators = arr(k, n->axis_separators, sizeof *n->axis_separators * (size_t)n->naxis_sep);
  n->view_of = buffer(k, n->view_of);
  n->data_named = buffer(k, n->data_named);
  return n;
}

static tir_range *ranges(cl *k, const tir_range *r, int n) {
  if (!r || KEEP(k, r)) return (tir_range *)r; /* an old array holds old nodes only */
  tir_range *o = tir_alloc(k->c, sizeof *o * (size_t)(n + 1));
  for (int i = 0; i < n; i++) o[i] = (tir_range){expr(k, r[i].min), expr(k, r[i].extent)};
  return o;
}

static void region(cl *k, tir_buffer_region *dst, const tir_buffer_region *src) {
  *dst = *src;
  dst->buf = buffer(k, src->buf);
  dst->region = ranges(k, src->region, src->n);
}

static tir_buffer_region *regions(cl *k, const tir_buffer_region *r, int n) {
  if (!r || KEEP(k, r)) return (tir_buffer_region *)r;
  tir_buffer_region *o = tir_alloc(k->c, sizeof *o * (size_t)(n + 1));
  for (int i = 0; i < n; i++) region(k, &o[i], &r[i]);
  return o;
}

static tir_block *block(cl *k, const tir_block *b) {
  if (!b) return NULL;
  if (KEEP(k, b)) return (void *)b;
  tir_block *n = seen_block(k, b);
  if (n) return n;
  n = tir_alloc(k->c, sizeof *n);
  *n = *b;
  mark_block(k, b, n);
  n->name = str(k, n->name);
  if (n->iter_vars && !KEEP(k, n->iter_vars)) {
    const tir_iter_var *old = n->iter_vars;
    n->iter_vars = tir_alloc(k->c, sizeof *n->iter_vars * (size_t)(n->n_iter + 1));
    for (int i = 0; i < n->n_iter; i++)
      n->iter_vars[i] = (tir_iter_var){expr(k, old[i].var), {expr(k, old[i].dom.min), expr(k, old[i].dom.extent)},
                                       old[i].type, old[i].dom_src};
  }
  n->reads = regions(k, n->reads, n->n_reads);
  n->writes = regions(k, n->writes, n->n_writes);
  if (n->alloc_buffers && !KEEP(k, n->alloc_buffers)) {
    tir_buffer **old = n->alloc_buffers;
    n->alloc_buffers = tir_alloc(k->c, sizeof *n->alloc_buffers * (size_t)(n->n_alloc + 1));
    for (int i = 0; i < n->n_alloc; i++) n->alloc_buffers[i] = buffer(k, old[i]);
  }
  if (n->match_buffers && !KEEP(k, n->match_buffers)) {
    const tir_match_buffer *old = n->match_buffers;
    n->match_buffers = tir_alloc(k->c, sizeof *n->match_buffers * (size_t)(n->n_match + 1));
    for (int i = 0; i < n->n_match; i++) {
      n->match_buffers[i] = old[i];
      n->match_buffers[i].buf = buffer(k, old[i].buf);
      region(k, &n->match_buffers[i].src, &old[i].src);
    }
  }
  n->init = stmt(k, n->init);
  n->body = stmt(k, n->body);
  n->annotations = attr(k, n->annotations);
  return n;
}

static tir_stmt *stmt(cl *k, const tir_stmt *s) {
  if (!s) return NULL;
  if (KEEP(k, s)) return (void *)s;
  tir_stmt *n = seen_stmt(k, s);
  if (n) return n;
  n = tir_alloc(k->c, sizeof *n);
  *n = *s;
  mark_stmt(k, s, n);
  switch (n->kind) {
  case TIR_BUFFER_STORE:
    n->u.store.buf = buffer(k, n->u.store.buf);
    n->u.store.value = expr(k, n->u.store.value);
    n->u.store.idx = exprs(k, n->u.store.idx, n->u.store.nidx);
    break;
  case TIR_LET_STMT:
    n->u.let.var = expr(k, n->u.let.var);
    n->u.let.value = expr(k, n->u.let.value);
    n->u.let.body = stmt(k, n->u.let.body);
    break;
  case TIR_FOR:
    n->u.loop.var = expr(k, n->u.loop.var);
    n->u.loop.min = expr(k, n->u.loop.min);
    n->u.loop.extent = expr(k, n->u.loop.extent);
    n->u.loop.thread_tag = str(k, n->u.loop.thread_tag);
    n->u.loop.annotations = attr(k, n->u.loop.annotations);
    n->u.loop.body = stmt(k, n->u.loop.body);
    n->u.loop.step = expr(k, n->u.loop.step);
    break;
  case TIR_WHILE:
    n->u.whl.cond = expr(k, n->u.whl.cond);
    n->u.whl.body = stmt(k, n->u.whl.body);
    break;
  case TIR_IF:
    n->u.ifs.cond = expr(k, n->u.ifs.cond);
    n->u.ifs.then_s = stmt(k, n->u.ifs.then_s);
    n->u.ifs.else_s = stmt(k, n->u.ifs.else_s);
    break;
  case TIR_EVALUATE: n->u.eval.value = expr(k, n->u.eval.value); break;
  case TIR_SEQ:
    if (KEEP(k, n->u.seq.stmts)) break;
    tir_stmt **old = n->u.seq.stmts;
    n->u.seq.stmts = tir_alloc(k->c, sizeof *n->u.seq.stmts * (size_t)(n->u.seq.n + 1));
    for (int i = 0; i < n->u.seq.n; i++) n->u.seq.stmts[i] = stmt(k, old[i]);
    break;
  case TIR_ALLOCATE:
    n->u.alloc.var = expr(k, n->u.alloc.var);
    n->u.alloc.extents = exprs(k, n->u.alloc.extents, n->u.alloc.n);
    n->u.alloc.cond = expr(k, n->u.alloc.cond);
    n->u.alloc.scope = str(k, n->u.alloc.scope);
    n->u.alloc.body = stmt(k, n->u.alloc.body);
    break;
  case TIR_DECL_BUFFER: case TIR_ALLOC_BUFFER:
    n->u.decl.buf = buffer(k, n->u.decl.buf);
    n->u.decl.body = stmt(k, n->u.decl.body);
    n->u.decl.annotations = attr(k, n->u.decl.annotations);
    break;
  case TIR_ATTR:
    n->u.attr.key = str(k, n->u.attr.key);
    n->u.attr.node = expr(k, n->u.attr.node);
    n->u.attr.value = expr(k, n->u.attr.value);
    n->u.attr.body = stmt(k, n->u.attr.body);
    n->u.attr.thread_tag = str(k, n->u.attr.thread_tag);
    n->u.attr.node_av = attr(k, n->u.attr.node_av);
    n->u.attr.node_named = buffer(k, n->u.attr.node_named);
    break;
  case TIR_ASSERT:
    n->u.assrt.cond = expr(k, n->u.assrt.cond);
    n->u.assrt.msg = expr(k, n->u.assrt.msg);
    n->u.assrt.body = stmt(k, n->u.assrt.body);
    n->u.assrt.kind = str(k, n->u.assrt.kind);
    if (n->u.assrt.parts) {
      const char **ps = tir_alloc(k->c, sizeof *ps * (size_t)(n->u.assrt.nparts + 1));
      for (int i = 0; i < n->u.assrt.nparts; i++) ps[i] = str(k, n->u.assrt.parts[i]);
      n->u.assrt.parts = ps;
    }
    break;
  case TIR_BLOCK_REALIZE:
    n->u.realize.iter_values = exprs(k, n->u.realize.iter_values, n->u.realize.n);
    n->u.realize.predicate = expr(k, n->u.realize.predicate);
    n->u.realize.block = block(k, n->u.realize.block);
    break;
  case TIR_BREAK: case TIR_CONTINUE: default: break;
  }
  return n;
}

static tir_func *func(cl *k, const tir_func *f) {
  tir_func *n = tir_alloc(k->c, sizeof *n);
  *n = *f;
  n->name = str(k, f->name);
  n->params = exprs(k, f->params, f->nparams);
  if (f->buffer_map && !KEEP(k, f->buffer_map)) {
    n->buffer_map = tir_alloc(k->c, sizeof *n->buffer_map * (size_t)(f->nparams + 1));
    for (int i = 0; i < f->nparams; i++) n->buffer_map[i] = buffer(k, f->buffer_map[i]);
  }
  n->attrs = attr(k, f->attrs);
  n->body = stmt(k, f->body);
  return n;
}

tir_func *tir_func_promote(tir_ctx *c, tir_func *f, tir_ctx *from) {
  if (!c || !f || !from) return NULL;
  cl k = {.c = c, .promote = true};
  k.only = tir_ctx_chunk_index(from, &k.nonly);
  tir_func *n = KEEP(&k, f) ? f : func(&k, f);
  tir_ctx_reserve_id(c, tir_ctx_peek_id(from));
  free(k.only);
  return n;
}

/* m's text functions, their strings in c */
static void text_funcs(tir_ctx *c, tir_module *n, const tir_module *m) {
  if (m->global_infos_text) n->global_infos_text = tir_strdup(c, m->global_infos_text);
  if (m->type_vars_text) n->type_vars_text = tir_strdup(c, m->type_vars_text);
  if (!m->ntext_funcs) return;
  n->text_funcs = tir_alloc(c, sizeof *n->text_funcs * (size_t)m->ntext_funcs);
  for (int i = 0; i < m->ntext_funcs; i++) {
    n->text_funcs[i] = m->text_funcs[i];
    n->text_funcs[i].name = tir_strdup(c, m->text_funcs[i].name);
    n->text_funcs[i].kind = tir_strdup(c, m->text_funcs[i].kind);
    n->text_funcs[i].text = tir_strdup(c, m->text_funcs[i].text);
  }
  n->ntext_funcs = m->ntext_funcs;
}

tir_module *tir_module_promote(tir_ctx *c, const tir_module *m, tir_ctx *from) {
  if (!c || !m || !from) return NULL;
  cl k = {.c = c, .promote = true};
  k.only = tir_ctx_chunk_index(from, &k.nonly);
  tir_module *n = tir_module_new(c, str(&k, m->name));
  n->attrs = attr(&k, m->attrs);
  n->global_infos = attr(&k, m->global_infos);
  text_funcs(c, n, m);
  for (int i = 0; i < m->nfuncs; i++) tir_module_add(c, n, KEEP(&k, m->funcs[i]) ? m->funcs[i] : func(&k, m->funcs[i]));
  tir_ctx_reserve_id(c, tir_ctx_peek_id(from));
  free(k.only);
  return n;
}

tir_module *tir_module_clone(tir_ctx *c, const tir_module *m) {
  if (!c || !m) return NULL;
  cl k = {.c = c};
  tir_module *n = tir_module_new(c, m->name ? tir_strdup(c, m->name) : NULL);
  n->attrs = attr(&k, m->attrs);
  n->global_infos = attr(&k, m->global_infos);
  text_funcs(c, n, m);
  for (int i = 0; i < m->nfuncs; i++) tir_module_add(c, n, func(&k, m->funcs[i]));
  tir_ptrmap_free(&k.seen);
  return n;
}
