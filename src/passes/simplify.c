/* simplify.c - the Simplify pass (alias simplify): every maximal expr of the
 * function (the exprs a statement holds: values, indices, conditions, loop
 * bounds, block iter values and predicates, region bounds) goes once
 * through the arithmetic analyzer, with what the enclosing statements tell
 * about its vars: loop ranges, thread extents, block iter domains, the
 * bounds of Let values (the var keeps its name: only its range is known),
 * branch conditions (the then-branch knows the condition, the else-branch
 * its negation) and block predicates (T.where: the block's body knows the
 * predicate and that each iter var equals its binding).  A branch decided by
 * its condition is replaced by the branch taken; an if decided false
 * without else disappears.
 *
 * The walk is the mutator's with no expr callback (sub-exprs are left as
 * they are); the statement callback simplifies the statement's own exprs
 * after its children, so each expr is simplified once, not once per
 * enclosing node. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tir/analysis.h"
#include "tir/passes.h"
#include "tir/visit.h"

typedef struct simp_state {
  tir_analyzer *a;
  int *tokens; /* constraint tokens of the blocks entered (-1: none) */
  int ntokens, captokens;
} simp_state;

static simp_state *state(tir_mutator *m) { return (simp_state *)m->user; }
static tir_analyzer *analyzer(tir_mutator *m) { return state(m)->a; }

static tir_expr *simp(tir_mutator *m, tir_expr *e) { return e ? tir_simplify(analyzer(m), e) : e; }

/* simplified copies of n exprs: a new ctx array if one changed, else es */
static tir_expr **simp_exprs(tir_mutator *m, tir_expr **es, int n) {
  tir_expr **out = es;
  for (int i = 0; i < n; i++) {
    tir_expr *x = simp(m, es[i]);
    if (x == es[i]) continue;
    if (out == es) {
      out = tir_alloc(m->ctx, sizeof *out * (size_t)(n ? n : 1));
      memcpy(out, es, sizeof *out * (size_t)n);
    }
    out[i] = x;
  }
  return out;
}

static bool const_bool(const tir_expr *e, bool *v) {
  if (!e || e->kind != TIR_INT_IMM || !tir_dtype_is_bool(e->dtype) || e->dtype.lanes != 1) return false;
  *v = e->u.int_val != 0;
  return true;
}

static void push_token(simp_state *st, int tok) {
  if (st->ntokens == st->captokens) {
    st->captokens = st->captokens ? st->captokens * 2 : 16;
    int *p = realloc(st->tokens, sizeof *p * (size_t)st->captokens);
    if (!p) abort();
    st->tokens = p;
  }
  st->tokens[st->ntokens++] = tok;
}

/* an if: decided branches go; each branch sees its condition */
static tir_stmt *simp_if(tir_mutator *m, tir_stmt *s) {
  tir_analyzer *a = analyzer(m);
  tir_expr *cond = simp(m, s->u.ifs.cond);
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

/* a block realize: iter vars range over their domains; a predicate other
 * than true holds inside, with each iter var equal to its binding (so a
 * predicate on the loop vars speaks about the iter vars) */
static void enter_block(tir_mutator *m, tir_stmt *s) {
  tir_analyzer *a = analyzer(m);
  const tir_block *b = s->u.realize.block;
  for (int i = 0; i < b->n_iter; i++)
    tir_analyzer_bind_range(a, b->iter_vars[i].var, b->iter_vars[i].dom.min, b->iter_vars[i].dom.extent);
  bool v;
  tir_expr *pred = s->u.realize.predicate;
  if (!pred || (const_bool(pred, &v) && v)) {
    push_token(state(m), -1);
    return;
  }
  int tok = tir_analyzer_enter_constraint(a, pred);
  for (int i = 0; i < b->n_iter && i < s->u.realize.n; i++) {
    tir_expr *var = b->iter_vars[i].var, *val = s->u.realize.iter_values[i];
    if (val && tir_dtype_eq(var->dtype, val->dtype))
      tir_analyzer_enter_constraint(a, tir_binary(m->ctx, TIR_EQ, var, val));
  }
  push_token(state(m), tok);
}

/* binds what a statement tells about its vars before its children are
 * rewritten (vars are bound once in valid IR, so the ranges need no undo;
 * block constraints are dropped in post); ifs are rewritten here entirely */
static tir_stmt *pre(tir_mutator *m, tir_stmt *s) {
  tir_analyzer *a = analyzer(m);
  switch (s->kind) {
  case TIR_FOR: tir_analyzer_bind_range(a, s->u.loop.var, s->u.loop.min, s->u.loop.extent); return NULL;
  case TIR_ATTR:
    if (!strcmp(s->u.attr.key, "thread_extent") && tir_is_var(s->u.attr.node) && s->u.attr.value)
      tir_analyzer_bind_range(a, s->u.attr.node, tir_int(m->ctx, s->u.attr.node->dtype, 0), s->u.attr.value);
    return NULL;
  case TIR_BLOCK_REALIZE: enter_block(m, s); return NULL;
  case TIR_LET_STMT: {
    tir_expr *v = s->u.let.var;
    if (v->dtype.code != TIR_TC_INT || v->dtype.lanes != 1) return NULL;
    int64_t lo, hi;
    tir_const_bound(a, s->u.let.value, &lo, &hi);
    /* only a range the var's dtype holds: a bound past it (x * 2 for an
     * unbounded int32 x is [-2^32, 2^32 - 2]) is no bound, and its constants
     * would not be int32s (max(y, 0) was folded to 0) */
    int bits = v->dtype.bits < 64 ? v->dtype.bits : 64;
    int64_t top = bits == 64 ? INT64_MAX : (int64_t)((1ull << (bits - 1)) - 1), bot = -top - 1;
    if (lo != INT64_MIN && hi != INT64_MAX && hi >= lo && lo >= bot && hi <= top && hi - lo < top)
      tir_analyzer_bind_range(a, v, tir_int(m->ctx, v->dtype, lo), tir_int(m->ctx, v->dtype, hi - lo + 1));
    return NULL;
  }
  case TIR_IF: return simp_if(m, s);
  default: return NULL;
  }
}

/* the region bounds of block reads/writes and match sources */
static void simp_region(tir_mutator *m, tir_buffer_region *r) {
  tir_range *out = r->region;
  for (int i = 0; i < r->n; i++) {
    tir_expr *mn = simp(m, r->region[i].min), *ex = simp(m, r->region[i].extent);
    if (mn == r->region[i].min && ex == r->region[i].extent) continue;
    if (out == r->region) {
      out = tir_alloc(m->ctx, sizeof *out * (size_t)r->n);
      memcpy(out, r->region, sizeof *out * (size_t)r->n);
    }
    out[i].min = mn;
    out[i].extent = ex;
  }
  r->region = out;
}

static tir_stmt *post_block(tir_mutator *m, tir_stmt *s) {
  simp_state *st = state(m);
  if (st->ntokens > 0) {
    int tok = st->tokens[--st->ntokens];
    if (tok >= 0) tir_analyzer_exit_constraint(st->a, tok);
  }
  tir_block *b = s->u.realize.block;
  tir_iter_var *iv = b->iter_vars;
  for (int i = 0; i < b->n_iter; i++) {
    tir_expr *mn = simp(m, b->iter_vars[i].dom.min), *ex = simp(m, b->iter_vars[i].dom.extent);
    if (mn == b->iter_vars[i].dom.min && ex == b->iter_vars[i].dom.extent) continue;
    if (iv == b->iter_vars) {
      iv = tir_alloc(m->ctx, sizeof *iv * (size_t)b->n_iter);
      memcpy(iv, b->iter_vars, sizeof *iv * (size_t)b->n_iter);
    }
    iv[i].dom.min = mn;
    iv[i].dom.extent = ex;
  }
  tir_expr **vals = simp_exprs(m, s->u.realize.iter_values, s->u.realize.n);
  tir_expr *pred = simp(m, s->u.realize.predicate);
  if (iv == b->iter_vars && vals == s->u.realize.iter_values && pred == s->u.realize.predicate) return s;
  tir_stmt *n = tir_stmt_copy(m->ctx, s);
  if (iv != b->iter_vars) {
    n->u.realize.block = tir_block_copy(m->ctx, b);
    n->u.realize.block->iter_vars = iv;
  }
  n->u.realize.iter_values = vals;
  n->u.realize.predicate = pred;
  return n;
}

/* a copy of s with field *slot (an expr inside s) replaced, if it changed */
#define SIMP_FIELD(field)                                                                                    \
  do {                                                                                                       \
    tir_expr *x_ = simp(m, s->field);                                                                        \
    if (x_ != s->field) {                                                                                    \
      if (n == s) n = tir_stmt_copy(m->ctx, s);                                                              \
      n->field = x_;                                                                                         \
    }                                                                                                        \
  } while (0)

/* after the children: the statement's own exprs */
static tir_stmt *post(tir_mutator *m, tir_stmt *s) {
  tir_stmt *n = s;
  switch (s->kind) {
  case TIR_BUFFER_STORE: {
    SIMP_FIELD(u.store.value);
    tir_expr **idx = simp_exprs(m, s->u.store.idx, s->u.store.nidx);
    if (idx != s->u.store.idx) {
      if (n == s) n = tir_stmt_copy(m->ctx, s);
      n->u.store.idx = idx;
    }
    return n;
  }
  case TIR_LET_STMT: SIMP_FIELD(u.let.value); return n;
  case TIR_FOR:
    SIMP_FIELD(u.loop.min);
    SIMP_FIELD(u.loop.extent);
    return n;
  case TIR_WHILE: SIMP_FIELD(u.whl.cond); return n;
  case TIR_EVALUATE: SIMP_FIELD(u.eval.value); return n;
  case TIR_ALLOCATE: {
    SIMP_FIELD(u.alloc.cond);
    tir_expr **ex = simp_exprs(m, s->u.alloc.extents, s->u.alloc.n);
    if (ex != s->u.alloc.extents) {
      if (n == s) n = tir_stmt_copy(m->ctx, s);
      n->u.alloc.extents = ex;
    }
    return n;
  }
  case TIR_ATTR: SIMP_FIELD(u.attr.value); return n;
  case TIR_ASSERT:
    SIMP_FIELD(u.assrt.cond);
    SIMP_FIELD(u.assrt.msg);
    return n;
  case TIR_BLOCK_REALIZE: return post_block(m, s);
  default: return n;
  }
}

tir_func *tir_pass_simplify(tir_ctx *c, const tir_func *f, tir_diag *d) {
  if (!c || !f) return NULL;
  simp_state st = {tir_analyzer_new(c, d), NULL, 0, 0};
  tir_mutator m = {0};
  m.pre_stmt = pre;
  m.stmt = post;
  m.region = simp_region;
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
  free(st.tokens);
  tir_func *r = tir_func_copy(c, f);
  r->body = body;
  return r;
}
