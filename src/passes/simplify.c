/* simplify.c - the Simplify pass (alias simplify): every expr of the
 * function goes through the arithmetic analyzer, with what the enclosing
 * statements tell about its vars: loop ranges, thread extents, block iter
 * domains, the bounds of Let values (the var keeps its name: only its
 * range is known), and branch conditions (the then-branch knows the
 * condition, the else-branch its negation).  A branch decided by its condition is replaced
 * by the branch taken; an if decided false without else disappears. */
#include <stdint.h>
#include <string.h>

#include "tir/analysis.h"
#include "tir/passes.h"
#include "tir/visit.h"

typedef struct simp_state {
  tir_analyzer *a;
} simp_state;

static tir_analyzer *analyzer(tir_mutator *m) { return ((simp_state *)m->user)->a; }

static tir_expr *simp_expr(tir_mutator *m, tir_expr *e) { return tir_simplify(analyzer(m), e); }

static bool const_bool(const tir_expr *e, bool *v) {
  if (!e || e->kind != TIR_INT_IMM || !tir_dtype_is_bool(e->dtype) || e->dtype.lanes != 1) return false;
  *v = e->u.int_val != 0;
  return true;
}

/* an if: decided branches go; each branch sees its condition */
static tir_stmt *simp_if(tir_mutator *m, tir_stmt *s) {
  tir_analyzer *a = analyzer(m);
  tir_expr *cond = tir_mutate_expr(m, s->u.ifs.cond);
  bool v;
  if (const_bool(cond, &v)) {
    if (v) return tir_mutate_stmt(m, s->u.ifs.then_s);
    if (s->u.ifs.else_s) return tir_mutate_stmt(m, s->u.ifs.else_s);
    return tir_evaluate(m->ctx, tir_i32(m->ctx, 0));
  }
  int tok = tir_analyzer_enter_constraint(a, cond);
  tir_stmt *then_s = tir_mutate_stmt(m, s->u.ifs.then_s);
  tir_analyzer_exit_constraint(a, tok);
  tir_stmt *else_s = NULL;
  if (s->u.ifs.else_s) {
    tok = tir_analyzer_enter_constraint(a, tir_not(m->ctx, cond));
    else_s = tir_mutate_stmt(m, s->u.ifs.else_s);
    tir_analyzer_exit_constraint(a, tok);
  }
  if (cond == s->u.ifs.cond && then_s == s->u.ifs.then_s && else_s == s->u.ifs.else_s) return s;
  tir_stmt *r = tir_if(m->ctx, cond, then_s, else_s);
  r->span = s->span;
  return r;
}

/* binds what a statement tells about its vars before its children are
 * rewritten (vars are bound once in valid IR, so the facts need no undo);
 * ifs are rewritten here entirely */
static tir_stmt *pre(tir_mutator *m, tir_stmt *s) {
  tir_analyzer *a = analyzer(m);
  switch (s->kind) {
  case TIR_FOR: tir_analyzer_bind_range(a, s->u.loop.var, s->u.loop.min, s->u.loop.extent); return NULL;
  case TIR_ATTR:
    if (!strcmp(s->u.attr.key, "thread_extent") && tir_is_var(s->u.attr.node) && s->u.attr.value)
      tir_analyzer_bind_range(a, s->u.attr.node, tir_int(m->ctx, s->u.attr.node->dtype, 0), s->u.attr.value);
    return NULL;
  case TIR_BLOCK_REALIZE: {
    const tir_block *b = s->u.realize.block;
    for (int i = 0; i < b->n_iter; i++)
      tir_analyzer_bind_range(a, b->iter_vars[i].var, b->iter_vars[i].dom.min, b->iter_vars[i].dom.extent);
    return NULL;
  }
  case TIR_LET_STMT: {
    tir_expr *v = s->u.let.var;
    if (v->dtype.code != TIR_TC_INT || v->dtype.lanes != 1) return NULL;
    int64_t lo, hi;
    tir_const_bound(a, s->u.let.value, &lo, &hi);
    if (lo != INT64_MIN && hi != INT64_MAX && hi >= lo && hi - lo < INT64_MAX)
      tir_analyzer_bind_range(a, v, tir_int(m->ctx, v->dtype, lo), tir_int(m->ctx, v->dtype, hi - lo + 1));
    return NULL;
  }
  case TIR_IF: return simp_if(m, s);
  default: return NULL;
  }
}

tir_func *tir_pass_simplify(tir_ctx *c, const tir_func *f, tir_diag *d) {
  if (!c || !f) return NULL;
  simp_state st = {tir_analyzer_new(c, d)};
  tir_mutator m = {0};
  m.expr = simp_expr;
  m.pre_stmt = pre;
  m.ctx = c;
  m.user = &st;
  for (int i = 0; i < f->nparams; i++) {
    tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    for (int k = 0; b && k < b->ndim; k++) /* shape vars are sizes: non-negative */
      if (tir_is_var(b->shape[k]))
        tir_analyzer_enter_constraint(st.a, tir_binary(c, TIR_GE, b->shape[k], tir_int(c, b->shape[k]->dtype, 0)));
  }
  tir_stmt *body = tir_mutate_stmt(&m, f->body);
  tir_analyzer_free(st.a);
  tir_func *r = tir_func_copy(c, f);
  r->body = body;
  return r;
}
