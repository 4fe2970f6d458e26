/* c_jam.c - a spatial loop around a reduction unrolled and jammed into it.
 *
 * A reduction lowered to loops accumulates each output through one chain of
 * dependent operations:
 *
 *   for (i0 = 0; i0 < 1024; ++i0) {
 *     M[i0] = -FLT_MAX;
 *     for (k = 0; k < 1024; ++k) M[i0] = max(M[i0], x[i0 * 1024 + k]);
 *   }
 *
 * and gcc -O3 keeps it one chain (it may not reassociate float arithmetic),
 * so the k loop runs at the latency of one max or add per element, not at
 * the machine's throughput.  The outputs of different i0 are independent:
 * running U of them side by side in the k loop (unroll i0 by U, jam the
 * copies into the k loop) gives U independent chains, and each output is
 * still computed in the same order, so the result is the same to the bit:
 *
 *   for (i0_j = 0; i0_j < 128; ++i0_j) {
 *     M[i0_j * 8] = -FLT_MAX; ... M[i0_j * 8 + 7] = -FLT_MAX;
 *     for (k = 0; k < 1024; ++k) {
 *       M[i0_j * 8] = max(M[i0_j * 8], x[i0_j * 8192 + k]); ... (8 copies)
 *     }
 *   }
 *
 * (the unscheduled softmax of bench/bench_ops.py: 2.7 ms -> 2.0 ms).
 *
 * Only where it provably keeps the meaning: a serial loop L of constant
 * bounds and no step, whose body is statements P (a reduction's init, peeled
 * as c_stmt.c peels it) then a nest of serial loops of constant bounds that
 * do not use L's var, at least 64 iterations in all, whose innermost body S
 * updates an element it also reads at an index that uses none of the nest's
 * vars (the chain) and does use L's var.  P and S
 * hold only stores, ifs, sequences and loops (not parallel or bound to
 * threads), and no call but pure math.  Each buffer they write is accessed
 * in them only at one-lane indices c*v + r, v L's var, c the same nonzero
 * constant for every access and r spanning fewer than |c| elements over the
 * loops inside L (so different iterations of L touch disjoint elements of
 * it), through one buffer layout, and is memory no other buffer they access
 * may overlap (a restrict parameter, or a temporary whose bytes are known).
 * U is 8, 4 or 2 (at most L's extent, and 128 elements of S's inner loops
 * in flight); a remainder is the original loop.  Copies count against the
 * function's budget of copied statements (c_split.c's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_c/c_printer.h"
#include "tir/analysis.h"
#include "tir/visit.h"

#define JAM_MAX 8
#define JAM_MIN_CHAIN 64

typedef struct jam_access {
  const tir_buffer *buf;
  const tir_expr *idx; /* its one index, or NULL: not one scalar index */
  bool write;
} jam_access;

typedef struct jam_scan {
  jam_access *acc;
  int n, cap;
  const tir_stmt **loops; /* the loops inside L (their ranges bound for the width test) */
  int nloops, loops_cap;
  bool refuse;
  int64_t nstmts;
} jam_scan;

static void add_access(jam_scan *js, const tir_buffer *b, tir_expr *const *idx, int nidx, int lanes, bool write) {
  if (js->n == js->cap) {
    js->cap = js->cap ? 2 * js->cap : 16;
    js->acc = realloc(js->acc, sizeof *js->acc * (size_t)js->cap);
    if (!js->acc) abort();
  }
  bool scalar = nidx == 1 && lanes == 1 && idx[0]->dtype.lanes == 1;
  js->acc[js->n++] = (jam_access){b, scalar ? idx[0] : NULL, write};
}

static bool pure_call(const char *op) {
  static const char *const pure[] = {"exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
                                     "tanh", "sigmoid", "fabs", "floor", "ceil", "round", "nearbyint", "trunc",
                                     "if_then_else", "erf", "sin", "cos", "tan", "pow", "fmod", "copysign", NULL};
  for (int i = 0; pure[i]; i++)
    if (!strcmp(op, pure[i])) return true;
  return false;
}

static bool scan_expr(tir_visitor *v, const tir_expr *e) {
  jam_scan *js = v->user;
  switch (e->kind) {
  case TIR_CALL:
    if (e->u.call.global || !pure_call(e->u.call.op)) js->refuse = true;
    break;
  case TIR_LET: js->refuse = true; break;
  case TIR_BUFFER_LOAD:
    add_access(js, e->u.load.buf, e->u.load.idx, e->u.load.nidx, e->dtype.lanes, false);
    break;
  default: break;
  }
  return !js->refuse;
}

static bool scan_stmt(tir_visitor *v, const tir_stmt *s) {
  jam_scan *js = v->user;
  js->nstmts++;
  switch (s->kind) {
  case TIR_SEQ:
  case TIR_IF: break;
  case TIR_BUFFER_STORE:
    add_access(js, s->u.store.buf, s->u.store.idx, s->u.store.nidx, s->u.store.value->dtype.lanes, true);
    break;
  case TIR_FOR:
    if (s->u.loop.step || s->u.loop.kind == TIR_FOR_PARALLEL || s->u.loop.kind == TIR_FOR_THREAD_BINDING) {
      js->refuse = true;
      break;
    }
    if (js->nloops == js->loops_cap) {
      js->loops_cap = js->loops_cap ? 2 * js->loops_cap : 8;
      js->loops = realloc(js->loops, sizeof *js->loops * (size_t)js->loops_cap);
      if (!js->loops) abort();
    }
    js->loops[js->nloops++] = s;
    break;
  default: js->refuse = true; break; /* lets, allocations, attrs, asserts, calls, jumps */
  }
  return !js->refuse;
}

/* a store in s that updates an element it reads (the same index), at an
 * index that uses none of the chain's vars (each loop of the chain carries
 * it: L is the spatial loop right around the reduction's loops) and that
 * L's var tells apart (uses lvar) */
typedef struct chain_find {
  const tir_stmt *const *chain;
  int nchain;
  const tir_expr *lvar;
  const tir_buffer *buf;
  const tir_expr *idx;
  bool found;
} chain_find;

static bool chain_load(tir_visitor *v, const tir_expr *e) {
  chain_find *c = v->user;
  if (e->kind == TIR_BUFFER_LOAD && e->u.load.buf->data == c->buf->data && e->u.load.nidx == 1 &&
      tir_expr_identical(e->u.load.idx[0], c->idx))
    c->found = true;
  return !c->found;
}

static bool chain_stmt(tir_visitor *v, const tir_stmt *s) {
  chain_find *c = v->user;
  if (c->found || s->kind != TIR_BUFFER_STORE || s->u.store.nidx != 1) return !c->found;
  const tir_expr *idx = s->u.store.idx[0];
  if (!cg_expr_uses_var(idx, c->lvar)) return true;
  for (int i = 0; i < c->nchain; i++)
    if (cg_expr_uses_var(idx, c->chain[i]->u.loop.var)) return true;
  c->buf = s->u.store.buf;
  c->idx = idx;
  tir_visitor lv = {.expr = chain_load, .user = c};
  tir_visit_expr(&lv, s->u.store.value);
  return !c->found;
}

static bool has_chain(const tir_stmt *s, const tir_stmt *const *chain, int nchain, const tir_expr *lvar) {
  chain_find c = {.chain = chain, .nchain = nchain, .lvar = lvar};
  tir_visitor v = {.stmt = chain_stmt, .user = &c};
  tir_visit_stmt(&v, s);
  return c.found;
}

/* the elements of S's loops in flight per copy (the product of their trip
 * counts), or -1 when not constant */
static bool elems_stmt(tir_visitor *v, const tir_stmt *s) {
  int64_t *n = v->user, e;
  if (s->kind != TIR_FOR || *n < 0) return *n >= 0;
  if (!tir_is_const_int(s->u.loop.extent, &e) || e <= 0 || __builtin_mul_overflow(*n, e, n)) *n = -1;
  return *n >= 0;
}

static int64_t inner_elems(const tir_stmt *s) {
  int64_t n = 1;
  tir_visitor v = {.stmt = elems_stmt, .user = &n};
  tir_visit_stmt(&v, s);
  return n;
}

/* idx's step along L's var, the constant idx(v = 1) - idx(v = 0), and
 * idx(v = 0); false when the difference is no constant */
static bool step_along(cg *g, tir_analyzer *a, const tir_expr *idx, const tir_var_map *at0, const tir_var_map *at1,
                       int64_t *c, tir_expr **i0) {
  *i0 = tir_substitute_expr(g->ctx, (tir_expr *)idx, at0);
  tir_expr *i1 = tir_substitute_expr(g->ctx, (tir_expr *)idx, at1);
  return tir_is_const_int(tir_simplify(a, tir_binary(g->ctx, TIR_SUB, i1, *i0)), c);
}

/* the accesses of each written buffer are disjoint between iterations of L */
static bool disjoint(cg *g, const jam_scan *js, const tir_stmt *loop) {
  const tir_expr *lv = loop->u.loop.var;
  tir_dtype t = lv->dtype;
  tir_analyzer *a = tir_analyzer_new(g->ctx, NULL);
  tir_analyzer_bind_range(a, lv, loop->u.loop.min, loop->u.loop.extent);
  for (int i = 0; i < js->nloops; i++)
    tir_analyzer_bind_range(a, js->loops[i]->u.loop.var, js->loops[i]->u.loop.min, js->loops[i]->u.loop.extent);
  tir_var_map at0 = {0}, at1 = {0}, mins = {0};
  tir_var_map_set(&at0, lv, tir_int(g->ctx, t, 0));
  tir_var_map_set(&at1, lv, tir_int(g->ctx, t, 1));
  for (int i = 0; i < js->nloops; i++) tir_var_map_set(&mins, js->loops[i]->u.loop.var, js->loops[i]->u.loop.min);
  bool ok = true;
  for (int w = 0; w < js->n && ok; w++) {
    if (!js->acc[w].write) continue;
    const tir_buffer *wb = js->acc[w].buf;
    int64_t coeff = 0, lo = INT64_MAX, hi = INT64_MIN;
    tir_expr *base = NULL;
    for (int j = 0; j < js->n && ok; j++) {
      const jam_access *x = &js->acc[j];
      if (x->buf->data != wb->data || !tir_dtype_eq(x->buf->dtype, wb->dtype) ||
          !tir_expr_identical(x->buf->elem_offset, wb->elem_offset)) {
        /* another buffer, or another view of its data: memory the written
         * one cannot overlap */
        if (!cg_distinct_memory(g, wb, x->buf)) ok = false;
        continue;
      }
      if (!x->idx) {
        ok = false;
        break;
      }
      tir_expr *idx = (tir_expr *)x->idx, *i0;
      int64_t c, z;
      if (!step_along(g, a, idx, &at0, &at1, &c, &i0) || c == 0 || (coeff && c != coeff)) {
        ok = false;
        break;
      }
      coeff = c;
      /* idx == c * v + idx(v = 0), exactly */
      tir_expr *vv = tir_dtype_eq(idx->dtype, t) ? (tir_expr *)lv : tir_cast(g->ctx, idx->dtype, (tir_expr *)lv);
      tir_expr *lin = tir_binary(g->ctx, TIR_ADD, tir_binary(g->ctx, TIR_MUL, tir_int(g->ctx, idx->dtype, c), vv), i0);
      if (!tir_is_const_int(tir_simplify(a, tir_binary(g->ctx, TIR_SUB, idx, lin)), &z) || z != 0) {
        ok = false;
        break;
      }
      /* where idx(v = 0) lies, relative to the first access at the loops' minimums */
      if (!base) base = tir_simplify(a, tir_substitute_expr(g->ctx, i0, &mins));
      int64_t l, h;
      tir_const_bound(a, tir_simplify(a, tir_binary(g->ctx, TIR_SUB, i0, base)), &l, &h);
      if (l == INT64_MIN || h == INT64_MAX) {
        ok = false;
        break;
      }
      if (l < lo) lo = l;
      if (h > hi) hi = h;
    }
    if (ok && (hi - lo >= (coeff < 0 ? -coeff : coeff))) ok = false;
  }
  tir_var_map_free(&at0);
  tir_var_map_free(&at1);
  tir_var_map_free(&mins);
  tir_analyzer_free(a);
  return ok;
}

/* every access of S at an index that L's var steps by 0 or 1: gcc -O3
 * moves such a loop inside the reduction's loops itself and vectorizes it
 * (the unscheduled conv2d of bench/bench_ops.py: 1.1 ms as it is, 5.2 ms
 * jammed) */
static bool along_l(cg *g, const jam_scan *js, int first, const tir_expr *lv) {
  tir_analyzer *a = tir_analyzer_new(g->ctx, NULL);
  tir_var_map at0 = {0}, at1 = {0};
  tir_var_map_set(&at0, lv, tir_int(g->ctx, lv->dtype, 0));
  tir_var_map_set(&at1, lv, tir_int(g->ctx, lv->dtype, 1));
  bool all = true;
  for (int j = first; j < js->n && all; j++) {
    int64_t c;
    tir_expr *i0;
    all = js->acc[j].idx && step_along(g, a, js->acc[j].idx, &at0, &at1, &c, &i0) && (c == 0 || c == 1);
  }
  tir_var_map_free(&at0);
  tir_var_map_free(&at1);
  tir_analyzer_free(a);
  return all;
}

static bool made_here(const cg *g, const tir_stmt *loop) {
  for (int i = 0; i < g->njam_made; i++)
    if (g->jam_made[i] == loop) return true;
  return false;
}

bool cg_jam_loop(cg *g, const tir_stmt *loop) {
  int64_t lo, ext;
  if (g->target->is_cuda || !loop || loop->kind != TIR_FOR || loop->u.loop.kind != TIR_FOR_SERIAL ||
      loop->u.loop.step || !tir_is_const_int(loop->u.loop.min, &lo) ||
      !tir_is_const_int(loop->u.loop.extent, &ext) || ext < 2 || made_here(g, loop))
    return false;
  const tir_expr *lv = loop->u.loop.var;
  const tir_stmt *body = loop->u.loop.body;
  /* the body: P, then the nest */
  tir_stmt *const *items = body->kind == TIR_SEQ ? body->u.seq.stmts : (tir_stmt *const *)&body;
  int nitems = body->kind == TIR_SEQ ? body->u.seq.n : 1;
  const tir_stmt *nest = items[nitems - 1];
  if (nest->kind != TIR_FOR || nest->u.loop.kind != TIR_FOR_SERIAL || nest->u.loop.step) return false;
  /* the chain of serial loops down to S; quick tests first */
  const tir_stmt *chain[16];
  int nchain = 0;
  for (const tir_stmt *c = nest; c->kind == TIR_FOR && c->u.loop.kind == TIR_FOR_SERIAL && !c->u.loop.step;
       c = c->u.loop.body) {
    int64_t e;
    if (nchain == 16 || cg_expr_uses_var(c->u.loop.min, lv) || cg_expr_uses_var(c->u.loop.extent, lv) ||
        !tir_is_const_int(c->u.loop.extent, &e) || e <= 0)
      return false;
    chain[nchain++] = c;
  }
  /* a chain shorter than JAM_MIN_CHAIN steps overlaps the next one's in
   * the processor's out-of-order window anyway (the 3x3 windows of the
   * pool2d of bench/bench_ops.py: 0.13 ms as it is, 0.32 ms jammed) */
  int64_t steps = 1;
  for (int i = 0; i < nchain; i++) {
    int64_t e;
    tir_is_const_int(chain[i]->u.loop.extent, &e);
    if (__builtin_mul_overflow(steps, e, &steps)) steps = INT64_MAX;
  }
  if (steps < JAM_MIN_CHAIN) return false;
  const tir_stmt *inner = chain[nchain - 1];
  if (!has_chain(inner->u.loop.body, chain, nchain, lv)) return false;
  /* P with the nest's init peeled (as c_stmt.c peels it at the nest) */
  tir_stmt **pre = tir_alloc(g->ctx, sizeof *pre * (size_t)(nitems + 1));
  int npre = 0;
  for (int i = 0; i + 1 < nitems; i++) pre[npre++] = items[i];
  const tir_stmt *first = NULL;
  const tir_expr *pvars[CG_PEEL_MAX];
  tir_expr *pmins[CG_PEEL_MAX];
  int npeel = 0;
  const tir_stmt *rest = cg_peel_first(g, nest->u.loop.body, nest->u.loop.var, nest->u.loop.min, &first, pvars,
                                       pmins, &npeel);
  if (rest) {
    tir_var_map m = {0};
    for (int i = 0; i < npeel; i++) tir_var_map_set(&m, pvars[i], pmins[i]);
    pre[npre++] = tir_substitute_stmt(g->ctx, (tir_stmt *)first, &m);
    tir_var_map_free(&m);
    tir_stmt *n2 = tir_stmt_copy(g->ctx, nest);
    n2->u.loop.body = (tir_stmt *)rest;
    nest = n2;
    nchain = 0; /* the chain again, in the peeled nest */
    for (const tir_stmt *c = nest; c->kind == TIR_FOR && c->u.loop.kind == TIR_FOR_SERIAL && !c->u.loop.step;
         c = c->u.loop.body)
      chain[nchain++] = c;
    inner = chain[nchain - 1];
  }
  const tir_stmt *s_body = inner->u.loop.body;
  /* what P and S hold */
  jam_scan js = {0};
  tir_visitor v = {.expr = scan_expr, .stmt = scan_stmt, .user = &js};
  for (int i = 0; i < npre && !js.refuse; i++) tir_visit_stmt(&v, pre[i]);
  for (int i = 0; i < nchain && !js.refuse; i++) { /* the chain's headers, then S */
    scan_stmt(&v, chain[i]);
    js.nstmts--;
  }
  int s_first = js.n; /* S's accesses from here */
  if (!js.refuse) tir_visit_stmt(&v, s_body);
  int64_t elems = js.refuse ? -1 : inner_elems(s_body);
  int u = 0;
  if (elems > 0) {
    for (u = JAM_MAX; u >= 2; u /= 2)
      if (u <= ext && u * elems <= 128) break;
  }
  bool ok = u >= 2 && js.nstmts * u <= g->split_budget && !cg_has_jump(s_body) && !along_l(g, &js, s_first, lv) &&
            disjoint(g, &js, loop);
  free(js.acc);
  free(js.loops);
  if (!ok) return false;
  g->split_budget -= js.nstmts * u;
  /* the loop over groups of u: v = lo + vj * u + r */
  tir_dtype t = lv->dtype;
  char name[96];
  snprintf(name, sizeof name, "%s_j", lv->u.var.name);
  tir_expr *vj = tir_var(g->ctx, name, t);
  int64_t groups = ext / u;
  tir_stmt **copies = tir_alloc(g->ctx, sizeof *copies * (size_t)u);
  tir_stmt **pres = tir_alloc(g->ctx, sizeof *pres * (size_t)(u * npre + 1));
  int np = 0;
  tir_analyzer *a = tir_analyzer_new(g->ctx, NULL);
  tir_analyzer_bind_range(a, vj, tir_int(g->ctx, t, 0), tir_int(g->ctx, t, groups));
  for (int r = 0; r < u; r++) {
    tir_expr *val = tir_binary(g->ctx, TIR_ADD, tir_binary(g->ctx, TIR_MUL, vj, tir_int(g->ctx, t, u)),
                               tir_int(g->ctx, t, lo + r));
    if (groups == 1) val = tir_int(g->ctx, t, lo + r);
    tir_var_map m = {0};
    tir_var_map_set(&m, lv, val);
    for (int i = 0; i < npre; i++) pres[np++] = cg_tidy_stmt(g, a, tir_substitute_stmt(g->ctx, pre[i], &m));
    copies[r] = cg_tidy_stmt(g, a, tir_substitute_stmt(g->ctx, (tir_stmt *)s_body, &m));
    tir_var_map_free(&m);
  }
  tir_analyzer_free(a);
  tir_stmt *jammed = tir_seq(g->ctx, copies, u);
  for (int i = nchain - 1; i >= 0; i--) {
    tir_stmt *c = tir_stmt_copy(g->ctx, chain[i]);
    c->u.loop.body = jammed;
    jammed = c;
  }
  pres[np++] = jammed;
  tir_stmt *group_body = tir_seq(g->ctx, pres, np);
  cg_linef(g, "/* %s unrolled by %d and jammed into the %s loop: %d independent reductions, each in its order */",
           lv->u.var.name, u, chain[nchain - 1]->u.loop.var->u.var.name, u);
  if (groups == 1) {
    cg_stmt(g, group_body);
  } else {
    tir_stmt *outer = tir_for(g->ctx, vj, tir_int(g->ctx, t, 0), tir_int(g->ctx, t, groups), TIR_FOR_SERIAL, NULL,
                              NULL, group_body);
    if (g->njam_made == g->jam_made_cap) {
      g->jam_made_cap = g->jam_made_cap ? 2 * g->jam_made_cap : 8;
      g->jam_made = realloc(g->jam_made, sizeof *g->jam_made * (size_t)g->jam_made_cap);
      if (!g->jam_made) abort();
    }
    g->jam_made[g->njam_made++] = outer;
    cg_stmt(g, outer);
  }
  if (ext % u) { /* the rest, as it was */
    tir_stmt *tail = tir_for(g->ctx, (tir_expr *)lv, tir_int(g->ctx, t, lo + groups * u), tir_int(g->ctx, t, ext % u),
                             TIR_FOR_SERIAL, NULL, loop->u.loop.annotations, (tir_stmt *)body);
    cg_stmt(g, tail);
  }
  return true;
}
