/* cuda_unroll.c - the loops TVM's UnrollLoop unrolls under a
 * `pragma_auto_unroll_max_step` attr (dlight and the meta-schedule put one
 * on every GPU kernel they schedule), printed as `#pragma unroll` (nvcc
 * then unrolls them fully, as TVM's explicit unrolling does).  The rule,
 * bottom up: a store or evaluated call is one step; a sequence's steps are
 * its items' sum; a serial loop of constant extent n is unrolled when no
 * loop inside it stays a loop, at most 8 unrolled loops are inside it, and
 * n times its body's steps is at most the max step (then it is n times
 * its body's steps); a T.unroll loop always is.  A vectorized loop is one
 * vector operation to TVM (VectorizeLoop runs first): its body's steps,
 * and it is unrolled too (nvcc then forms the vector accesses it can). */
#include <string.h>

#include "codegen_cuda/cuda_internal.h"

typedef struct {
  int64_t steps;
  int normal_depth, unroll_depth;
} ucount;

#define UNROLL_MAX_DEPTH 8

static ucount plan(const tir_stmt *s, int64_t max_step, ptr_set *out);

static ucount add_counts(ucount a, ucount b) {
  ucount r = {a.steps + b.steps, a.normal_depth > b.normal_depth ? a.normal_depth : b.normal_depth,
              a.unroll_depth > b.unroll_depth ? a.unroll_depth : b.unroll_depth};
  if (r.steps > (int64_t)1 << 40) r.steps = (int64_t)1 << 40; /* saturated: no unrolling above */
  return r;
}

static ucount plan(const tir_stmt *s, int64_t max_step, ptr_set *out) {
  ucount c = {0, 0, 0};
  if (!s) return c;
  switch (s->kind) {
  case TIR_BUFFER_STORE:
  case TIR_EVALUATE: c.steps = 1; return c;
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) c = add_counts(c, plan(s->u.seq.stmts[i], max_step, out));
    return c;
  case TIR_LET_STMT: return plan(s->u.let.body, max_step, out);
  case TIR_WHILE: c = plan(s->u.whl.body, max_step, out); c.normal_depth++; return c;
  case TIR_IF: return add_counts(plan(s->u.ifs.then_s, max_step, out), plan(s->u.ifs.else_s, max_step, out));
  case TIR_ALLOCATE: return plan(s->u.alloc.body, max_step, out);
  case TIR_DECL_BUFFER:
  case TIR_ALLOC_BUFFER: return plan(s->u.decl.body, max_step, out);
  case TIR_ASSERT: return plan(s->u.assrt.body, max_step, out);
  case TIR_ATTR: {
    int64_t v;
    if (!strcmp(s->u.attr.key, "pragma_auto_unroll_max_step") && tir_is_const_int(s->u.attr.value, &v))
      return plan(s->u.attr.body, v, out);
    c = plan(s->u.attr.body, max_step, out);
    if (!strcmp(s->u.attr.key, "thread_extent") || !strcmp(s->u.attr.key, "virtual_thread")) c.normal_depth++;
    return c;
  }
  case TIR_FOR: {
    c = plan(s->u.loop.body, max_step, out);
    int64_t n = -1, step = 1;
    if (!tir_is_const_int(s->u.loop.extent, &n)) n = -1;
    if (s->u.loop.step && !(tir_is_const_int(s->u.loop.step, &step) && step == 1)) n = -1;
    tir_for_kind kind = s->u.loop.kind;
    if (kind == TIR_FOR_VECTORIZED && n >= 0) { /* one vector operation */
      if (n <= 64) ptr_set_add(out, s);
      return c;
    }
    /* c.steps is saturated at 2^40 (add_counts, below): n * c.steps is
     * taken only for n up to 2^20 */
    bool unroll = kind == TIR_FOR_SERIAL && n >= 0 && n <= ((int64_t)1 << 20) && c.normal_depth == 0 &&
                  c.unroll_depth <= UNROLL_MAX_DEPTH && n * c.steps <= max_step;
    if (kind == TIR_FOR_UNROLLED && n >= 0) unroll = true;
    if (unroll) {
      /* a T.unroll loop of any extent: the product saturated as a sum is */
      if (c.steps) c.steps = n > ((int64_t)1 << 20) || n * c.steps > (int64_t)1 << 40 ? (int64_t)1 << 40 : n * c.steps;
      c.unroll_depth++;
      if (kind == TIR_FOR_SERIAL) ptr_set_add(out, s);
    } else {
      c.normal_depth++;
    }
    return c;
  }
  default: return c;
  }
}

void cuda_unroll_plan(const tir_stmt *s, int64_t max_step, ptr_set *out) { (void)plan(s, max_step, out); }
