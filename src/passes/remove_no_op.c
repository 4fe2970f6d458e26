/* remove_no_op.c - RemoveNoOp (alias remove_noop): drops statements that do
 * nothing, as TVM's RemoveNoOp does (without its dataflow option):
 *  - T.evaluate of an expression without side effects (e.g. T.evaluate(0);
 *    one left alone becomes T.evaluate(0), as TVM's);
 *  - a store of a buffer element into itself, A[i] = A[i];
 *  - a loop of extent 0, or whose body does nothing (a call in its bounds
 *    is kept, evaluated);
 *  - an if whose branches do nothing; an if on a constant becomes the
 *    branch taken; an empty then-branch swaps to `if not cond: else`;
 *  - attr and allocate statements whose body does nothing (a let, a
 *    T.decl_buffer and a T.alloc_buffer stay, as TVM's pass keeps them);
 *  - no-ops in a sequence.
 * What is left of nothing is T.evaluate(0). */
#include <string.h>

#include "intrin/intrin.h"
#include "tir/passes.h"
#include "tir/visit.h"

/* a call that may have side effects: not a known pure intrinsic (TVM's
 * RemoveNoOp drops T.start_profile_intrinsic and T.end_profile_intrinsic
 * as it drops pure ones: so does this pass, no other; it keeps
 * T.tvm_access_ptr, a special call argument in TVM's effect kinds, though
 * the other passes read it as pure) */
static bool has_call_cb(tir_visitor *v, const tir_expr *e) {
  if (e->kind != TIR_CALL) return true;
  const tir_intrin *in = tir_intrin_lookup(e->u.call.op);
  bool profile = !strcmp(e->u.call.op, "start_profile_intrinsic") || !strcmp(e->u.call.op, "end_profile_intrinsic");
  if (((!in || !in->pure) && !profile) || !strcmp(e->u.call.op, "tvm_access_ptr")) *(bool *)v->user = true;
  return true;
}

static bool has_call(const tir_expr *e) {
  bool found = false;
  tir_visitor v = {.expr = has_call_cb, .user = &found};
  tir_visit_expr(&v, e);
  return found;
}

static bool is_noop(const tir_stmt *s) {
  return !s || (s->kind == TIR_EVALUATE && !has_call(s->u.eval.value));
}

static bool is_self_store(const tir_stmt *s) {
  const tir_expr *v = s->u.store.value;
  if (v->kind != TIR_BUFFER_LOAD || v->u.load.buf != s->u.store.buf || v->u.load.nidx != s->u.store.nidx)
    return false;
  for (int i = 0; i < s->u.store.nidx; i++)
    if (!tir_expr_identical(v->u.load.idx[i], s->u.store.idx[i])) return false;
  return !has_call(v);
}

static tir_stmt *noop(tir_ctx *c) { return tir_evaluate(c, tir_i32(c, 0)); }

static tir_stmt *simplify_if(tir_ctx *c, tir_stmt *s) {
  tir_expr *cond = s->u.ifs.cond;
  tir_stmt *t = s->u.ifs.then_s, *e = s->u.ifs.else_s;
  if (cond->kind == TIR_INT_IMM) return cond->u.int_val ? t : (e ? e : noop(c));
  if (is_noop(t) && is_noop(e)) return has_call(cond) ? tir_evaluate(c, cond) : noop(c);
  if (is_noop(t)) return tir_if(c, tir_not(c, cond), e, NULL);
  if (e && is_noop(e)) return tir_if(c, cond, t, NULL);
  return s;
}

static tir_stmt *simplify_seq(tir_ctx *c, tir_stmt *s) {
  int keep = 0;
  for (int i = 0; i < s->u.seq.n; i++) keep += !is_noop(s->u.seq.stmts[i]);
  if (keep == s->u.seq.n) return s;
  if (keep == 0) return noop(c);
  tir_stmt **kept = tir_alloc(c, sizeof *kept * (size_t)keep);
  int k = 0;
  for (int i = 0; i < s->u.seq.n; i++)
    if (!is_noop(s->u.seq.stmts[i])) kept[k++] = s->u.seq.stmts[i];
  return tir_seq(c, kept, keep);
}

static tir_stmt *remove_stmt(tir_mutator *m, tir_stmt *s) {
  tir_ctx *c = m->ctx;
  int64_t ext;
  switch (s->kind) {
  case TIR_BUFFER_STORE: return is_self_store(s) ? noop(c) : s;
  case TIR_FOR: {
    if (!(tir_is_const_int(s->u.loop.extent, &ext) && ext <= 0) && !is_noop(s->u.loop.body)) return s;
    /* a call in the bounds is still made, as TVM keeps it: T.evaluate(min),
     * T.evaluate(extent) */
    tir_stmt *parts[2];
    int n = 0;
    if (has_call(s->u.loop.min)) parts[n++] = tir_evaluate(c, s->u.loop.min);
    if (has_call(s->u.loop.extent)) parts[n++] = tir_evaluate(c, s->u.loop.extent);
    return n == 0 ? noop(c) : n == 1 ? parts[0] : tir_seq(c, parts, n);
  }
  case TIR_IF: return simplify_if(c, s);
  case TIR_SEQ: return simplify_seq(c, s);
  case TIR_EVALUATE: {
    int64_t k;
    return is_noop(s) && !(tir_is_const_int(s->u.eval.value, &k) && k == 0) ? noop(c) : s;
  }
  case TIR_ATTR:
  case TIR_ALLOCATE: {
    tir_stmt *body = s->kind == TIR_ATTR ? s->u.attr.body : s->u.alloc.body;
    return is_noop(body) ? noop(c) : s;
  }
  default: return s;
  }
}

tir_func *tir_pass_remove_no_op(tir_ctx *c, const tir_func *f, tir_diag *d) {
  (void)d;
  tir_mutator m = {.stmt = remove_stmt, .ctx = c};
  tir_func *out = tir_func_copy(c, f);
  out->body = tir_mutate_stmt(&m, f->body);
  return out;
}
