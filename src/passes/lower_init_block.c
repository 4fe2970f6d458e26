/* lower_init_block.c - LowerInitBlock (alias lower_init): a block's init
 * statement becomes `if (every reduce iter var == its dom min): init`, run
 * before the body, as TVM's LowerInitBlock does. */
#include "tir/passes.h"
#include "tir/visit.h"

/* the conjunction of `v == dom.min` over the block's reduce iter vars, or
 * NULL when it has none */
static tir_expr *first_iteration_cond(tir_ctx *c, const tir_block *b) {
  tir_expr *cond = NULL;
  for (int i = 0; i < b->n_iter; i++) {
    const tir_iter_var *iv = &b->iter_vars[i];
    if (iv->type != TIR_ITER_REDUCE) continue;
    tir_expr *eq = tir_binary(c, TIR_EQ, iv->var, iv->dom.min);
    cond = cond ? tir_binary(c, TIR_AND, cond, eq) : eq;
  }
  return cond;
}

static tir_stmt *lower_init(tir_mutator *m, tir_stmt *s) {
  if (s->kind != TIR_BLOCK_REALIZE || !s->u.realize.block->init) return s;
  tir_ctx *c = m->ctx;
  const tir_block *old = s->u.realize.block;
  tir_block *b = tir_block_copy(c, old);
  tir_expr *cond = first_iteration_cond(c, old);
  tir_stmt *init = cond ? tir_if(c, cond, old->init, NULL) : old->init;
  tir_stmt *parts[2] = {init, old->body};
  b->body = tir_seq(c, parts, 2);
  b->init = NULL;
  tir_stmt *r = tir_stmt_copy(c, s);
  r->u.realize.block = b;
  return r;
}

tir_func *tir_pass_lower_init_block(tir_ctx *c, const tir_func *f, tir_diag *d) {
  (void)d;
  tir_mutator m = {.stmt = lower_init, .ctx = c};
  tir_func *out = tir_func_copy(c, f);
  out->body = tir_mutate_stmt(&m, f->body);
  return out;
}
