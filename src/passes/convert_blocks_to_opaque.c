/* convert_blocks_to_opaque.c - ConvertBlocksToOpaque (alias to_opaque):
 * every block iter var is replaced by the value its BlockRealize binds, and
 * every block becomes opaque (no iter vars, no iter values).  Nested blocks
 * see their outer blocks' vars already replaced, so the map is transitive. */
#include "ir/ptrmap.h"
#include "tir/passes.h"
#include "tir/visit.h"

typedef struct opaque_state {
  tir_var_map map; /* block iter var -> binding (in terms of loop vars) */
  tir_ptrmap bufs; /* buffer -> its copy with those vars replaced (or itself) */
} opaque_state;

/* before descending into a realize: bind its iter vars */
static tir_stmt *bind_iters(tir_mutator *m, tir_stmt *s) {
  if (s->kind != TIR_BLOCK_REALIZE) return NULL;
  opaque_state *st = m->user;
  const tir_block *b = s->u.realize.block;
  for (int i = 0; i < b->n_iter && i < s->u.realize.n; i++) {
    tir_expr *v = tir_block_binding(m->ctx, b->iter_vars[i].var, tir_substitute_expr(m->ctx, s->u.realize.iter_values[i], &st->map));
    tir_var_map_set(&st->map, b->iter_vars[i].var, v);
  }
  return NULL;
}

static tir_expr *replace_var(tir_mutator *m, tir_expr *e) {
  if (e->kind != TIR_VAR) return e;
  opaque_state *st = m->user;
  tir_expr *v = tir_var_map_get(&st->map, e);
  return v ? v : e;
}

/* a buffer whose shape, strides or elem_offset name a block iter var (a
 * match_buffer's elem_offset=vi * 8): a copy with the bindings put in, the
 * same copy wherever the buffer is met */
static tir_buffer *replace_buffer(tir_mutator *m, tir_buffer *b) {
  opaque_state *st = m->user;
  long hit = tir_ptrmap_get(&st->bufs, b, 0);
  if (hit) return (tir_buffer *)hit;
  tir_expr **shape = tir_mutate_exprs(m, b->shape, b->ndim);
  tir_expr **strides = tir_mutate_exprs(m, b->strides, b->nstrides);
  tir_expr *off = tir_mutate_expr(m, b->elem_offset);
  tir_buffer *n = b;
  if (shape != b->shape || strides != b->strides || off != b->elem_offset) {
    n = tir_buffer_copy(m->ctx, b);
    n->shape = shape;
    n->strides = strides;
    n->elem_offset = off;
  }
  tir_ptrmap_put(&st->bufs, b, (long)n);
  return n;
}

/* a block with T.init() and reduction iter vars: once opaque, nothing
 * tells its first iteration, and the init would run at each (TVM's pass
 * refuses it: !block_op->init.has_value()) */
static bool init_check(tir_visitor *v, const tir_stmt *s) {
  void **u = v->user;
  tir_diag *d = u[0];
  bool *failed = u[1];
  if (*failed || s->kind != TIR_BLOCK_REALIZE || !s->u.realize.block->init) return !*failed;
  const tir_block *b = s->u.realize.block;
  tir_error(d, b->init->span.line ? b->init->span : b->span,
            "block '%s' still has its T.init(): run LowerInitBlock (lower_init) before ConvertBlocksToOpaque "
            "(an opaque block cannot tell its first iteration)", b->name);
  *failed = true;
  return false;
}

static tir_stmt *make_opaque(tir_mutator *m, tir_stmt *s) {
  if (s->kind != TIR_BLOCK_REALIZE || s->u.realize.block->n_iter == 0) return s;
  tir_block *b = tir_block_copy(m->ctx, s->u.realize.block);
  b->iter_vars = NULL;
  b->n_iter = 0;
  tir_stmt *r = tir_stmt_copy(m->ctx, s);
  r->u.realize.iter_values = NULL;
  r->u.realize.n = 0;
  r->u.realize.block = b;
  return r;
}

tir_func *tir_pass_convert_blocks_to_opaque(tir_ctx *c, const tir_func *f, tir_diag *d) {
  bool failed = false;
  void *u[2] = {d, &failed};
  tir_visitor v = {.stmt = init_check, .user = u};
  tir_visit_stmt(&v, f->body);
  if (failed) return NULL;
  opaque_state st = {0};
  tir_mutator m = {.expr = replace_var, .stmt = make_opaque, .pre_stmt = bind_iters, .buffer = replace_buffer, .ctx = c, .user = &st};
  tir_func *out = tir_func_copy(c, f);
  out->body = tir_mutate_stmt(&m, f->body);
  tir_var_map_free(&st.map);
  tir_ptrmap_free(&st.bufs);
  return out;
}
