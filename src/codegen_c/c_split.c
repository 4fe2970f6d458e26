/* c_split.c - a loop split where a comparison of its variable with a
 * constant changes value.
 *
 * Padding reads under a condition on the loop variable,
 *
 *   for (ax3 = 0; ax3 < 114; ++ax3) pad[...] = (1 <= ax3 && ax3 < 113 && ... ? data[...] : -FLT_MAX);
 *
 * and gcc builds such a loop as a scalar loop with a branch per element (it
 * cannot read data unconditionally).  Split at 1 and 113, each part knows
 * the value of every such comparison: the middle part is a plain copy gcc
 * vectorizes, the ends are stores of the constant (the padding loop of the
 * scheduled pool2d of bench/bench_ops.py alone: 0.40 ms, 0.08 ms split;
 * TVM's build 0.21 ms).
 * Only a serial loop of constant bounds, whose body orders its variable
 * itself (not a term of it) against integer constants (<, <=, >, >=), at
 * most four points inside the loop, while the function's budget of copied
 * statements (4096) lasts; each part's body has those comparisons replaced
 * by their value there, and what they decide (&&, ||, !, if_then_else,
 * Select, if) folded, as C would evaluate them. */
#include <stdlib.h>
#include <string.h>

#include "codegen_c/c_printer.h"
#include "tir/analysis.h"
#include "tir/visit.h"

#define SPLIT_MAX 4

typedef struct split {
  const tir_expr *var;
  int64_t lo, hi;       /* the loop's range */
  int64_t points[SPLIT_MAX];
  int n;
  bool too_many;
  int64_t at;           /* the part being made: its first value */
} split;

/* an ordering: == and != are left alone (a reduction's init, v == 0, is
 * peeled instead, c_stmt.c) */
static bool is_cmp(tir_expr_kind k) { return k == TIR_LT || k == TIR_LE || k == TIR_GT || k == TIR_GE; }

/* v OP c with the variable on the left (a comparison c OP v mirrored) */
static bool var_cmp(const split *s, const tir_expr *e, tir_expr_kind *op, int64_t *c) {
  if (!is_cmp(e->kind) || e->dtype.lanes != 1) return false;
  if (e->u.bin.a == s->var && tir_is_const_int(e->u.bin.b, c)) {
    *op = e->kind;
    return true;
  }
  if (e->u.bin.b == s->var && tir_is_const_int(e->u.bin.a, c)) {
    static const tir_expr_kind mirror[][2] = {{TIR_LT, TIR_GT}, {TIR_LE, TIR_GE}, {TIR_GT, TIR_LT}, {TIR_GE, TIR_LE}};
    for (int i = 0; i < 4; i++)
      if (mirror[i][0] == e->kind) *op = mirror[i][1];
    return true;
  }
  return false;
}

static void add_point(split *s, int64_t p) {
  if (p <= s->lo || p >= s->hi) return;
  for (int i = 0; i < s->n; i++)
    if (s->points[i] == p) return;
  if (s->n == SPLIT_MAX) {
    s->too_many = true;
    return;
  }
  s->points[s->n++] = p;
}

static bool points_expr(tir_visitor *v, const tir_expr *e) {
  split *s = v->user;
  tir_expr_kind op;
  int64_t c;
  if (!var_cmp(s, e, &op, &c)) return true;
  /* the first value of v where the comparison may change */
  add_point(s, op == TIR_LT || op == TIR_GE ? c : c + 1);
  return true;
}

static bool truth(tir_expr_kind op, int64_t v, int64_t c) {
  switch (op) {
  case TIR_LT: return v < c;
  case TIR_LE: return v <= c;
  case TIR_GT: return v > c;
  default: return v >= c;
  }
}

static bool const_bool(const tir_expr *e, bool *b) {
  if (e->kind != TIR_INT_IMM || !tir_dtype_is_bool(e->dtype) || e->dtype.lanes != 1) return false;
  *b = e->u.int_val != 0;
  return true;
}

/* no call that could have an effect (a value the fold may drop) */
static bool impure_expr(tir_visitor *v, const tir_expr *e) {
  static const char *const pure[] = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "sigmoid", "fabs",
                                     "if_then_else", "floor", "ceil", "round", "trunc", NULL};
  if (e->kind != TIR_CALL) return true;
  bool ok = false;
  for (int i = 0; pure[i] && !ok; i++) ok = !strcmp(e->u.call.op, pure[i]);
  if (!ok) *(bool *)v->user = true;
  return !*(bool *)v->user;
}

static bool droppable(const tir_expr *e) {
  bool impure = false;
  tir_visitor v = {.expr = impure_expr, .user = &impure};
  tir_visit_expr(&v, e);
  return !impure;
}

static tir_expr *fold_expr(tir_mutator *m, tir_expr *e) {
  split *s = m->user;
  tir_expr_kind op;
  int64_t c;
  bool x, y;
  if (var_cmp(s, e, &op, &c)) return tir_bool(m->ctx, truth(op, s->at, c));
  switch (e->kind) {
  /* as C evaluates them: a left operand that decides drops the right one;
   * a right one that decides drops the left only where it has no effect */
  case TIR_AND:
    if (const_bool(e->u.bin.a, &x)) return x ? e->u.bin.b : e->u.bin.a;
    if (const_bool(e->u.bin.b, &y) && (y || droppable(e->u.bin.a))) return y ? e->u.bin.a : e->u.bin.b;
    return e;
  case TIR_OR:
    if (const_bool(e->u.bin.a, &x)) return x ? e->u.bin.a : e->u.bin.b;
    if (const_bool(e->u.bin.b, &y) && (!y || droppable(e->u.bin.a))) return y ? e->u.bin.b : e->u.bin.a;
    return e;
  case TIR_NOT: return const_bool(e->u.un.a, &x) ? tir_bool(m->ctx, !x) : e;
  case TIR_SELECT: /* evaluates both */
    if (!const_bool(e->u.select.cond, &x) || !droppable(x ? e->u.select.f : e->u.select.t)) return e;
    return x ? e->u.select.t : e->u.select.f;
  case TIR_CALL:
    if (!strcmp(e->u.call.op, "if_then_else") && e->u.call.nargs == 3 && const_bool(e->u.call.args[0], &x))
      return x ? e->u.call.args[1] : e->u.call.args[2];
    return e;
  default: return e;
  }
}

static tir_stmt *fold_stmt(tir_mutator *m, tir_stmt *st) {
  bool x;
  if (st->kind != TIR_IF || !const_bool(st->u.ifs.cond, &x)) return st;
  if (x) return st->u.ifs.then_s;
  return st->u.ifs.else_s ? st->u.ifs.else_s : tir_evaluate(m->ctx, tir_i32(m->ctx, 0));
}

/* each part simplified: a decided comparison can leave x <= x behind, a
 * one-iteration part the var's value in a product (gcc -Wextra refuses the
 * first: a self-comparison; found by bigdeep.py seed 20261127 #730) */
typedef struct tidy {
  tir_analyzer *a;
} tidy;

static tir_stmt *tidy_stmt(tir_mutator *m, tir_stmt *st) {
  tidy *t = m->user;
  tir_stmt *n = st;
#define TIDY(field)                                                      \
  do {                                                                   \
    tir_expr *x_ = tir_simplify(t->a, st->field);                        \
    if (x_ != st->field) {                                               \
      if (n == st) n = tir_stmt_copy(m->ctx, st);                        \
      n->field = x_;                                                     \
    }                                                                    \
  } while (0)
  switch (st->kind) {
  case TIR_BUFFER_STORE:
    TIDY(u.store.value);
    for (int i = 0; i < st->u.store.nidx; i++) {
      tir_expr *x = tir_simplify(t->a, st->u.store.idx[i]);
      if (x == st->u.store.idx[i]) continue;
      if (n == st) n = tir_stmt_copy(m->ctx, st);
      if (n->u.store.idx == st->u.store.idx) {
        tir_expr **idx = tir_alloc(m->ctx, sizeof *idx * (size_t)st->u.store.nidx);
        memcpy(idx, st->u.store.idx, sizeof *idx * (size_t)st->u.store.nidx);
        n->u.store.idx = idx;
      }
      n->u.store.idx[i] = x;
    }
    return n;
  case TIR_LET_STMT: TIDY(u.let.value); return n;
  case TIR_EVALUATE: TIDY(u.eval.value); return n;
  case TIR_IF: {
    TIDY(u.ifs.cond);
    bool x;
    if (!const_bool(n->u.ifs.cond, &x)) return n;
    if (x) return n->u.ifs.then_s;
    return n->u.ifs.else_s ? n->u.ifs.else_s : tir_evaluate(m->ctx, tir_i32(m->ctx, 0));
  }
  default: return n;
  }
#undef TIDY
}

tir_stmt *cg_tidy_stmt(cg *g, tir_analyzer *a, tir_stmt *s) {
  tidy t = {.a = a};
  tir_mutator m = {.stmt = tidy_stmt, .ctx = g->ctx, .user = &t};
  return tir_mutate_stmt(&m, s);
}

static bool count_stmt(tir_visitor *v, const tir_stmt *s) {
  (void)s;
  ++*(int64_t *)v->user;
  return true;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

bool cg_split_loop(cg *g, const tir_stmt *loop) {
  int64_t lo, ext;
  if (g->target->is_cuda || !loop || loop->kind != TIR_FOR || loop->u.loop.kind != TIR_FOR_SERIAL ||
      !tir_is_const_int(loop->u.loop.min, &lo) || !tir_is_const_int(loop->u.loop.extent, &ext) || ext < 2)
    return false;
  split s = {.var = loop->u.loop.var, .lo = lo, .hi = lo + ext};
  tir_visitor v = {.expr = points_expr, .user = &s};
  tir_visit_stmt(&v, loop->u.loop.body);
  if (s.n == 0 || s.too_many) return false;
  /* each part is a copy of the body: a budget of copied statements per
   * function keeps nests of split loops from multiplying the code */
  int64_t nstmts = 0;
  tir_visitor count = {.stmt = count_stmt, .user = &nstmts};
  tir_visit_stmt(&count, loop->u.loop.body);
  if (nstmts * s.n > g->split_budget) return false;
  g->split_budget -= nstmts * s.n;
  qsort(s.points, (size_t)s.n, sizeof *s.points, cmp_i64);
  int64_t bounds[SPLIT_MAX + 2];
  int nb = 0;
  bounds[nb++] = s.lo;
  for (int i = 0; i < s.n; i++) bounds[nb++] = s.points[i];
  bounds[nb++] = s.hi;
  tir_dtype t = loop->u.loop.var->dtype;
  tir_analyzer *a = tir_analyzer_new(g->ctx, NULL);
  for (int i = 0; i + 1 < nb; i++) {
    s.at = bounds[i];
    tir_mutator m = {.expr = fold_expr, .stmt = fold_stmt, .ctx = g->ctx, .user = &s};
    tir_stmt *body = tir_mutate_stmt(&m, loop->u.loop.body);
    if (bounds[i + 1] - bounds[i] == 1) { /* one iteration: the body at that value */
      tir_var_map vm = {0};
      tir_var_map_set(&vm, loop->u.loop.var, tir_int(g->ctx, t, bounds[i]));
      cg_stmt(g, cg_tidy_stmt(g, a, tir_substitute_stmt(g->ctx, body, &vm)));
      tir_var_map_free(&vm);
      continue;
    }
    tir_stmt *part = tir_for(g->ctx, loop->u.loop.var, tir_int(g->ctx, t, bounds[i]),
                             tir_int(g->ctx, t, bounds[i + 1] - bounds[i]), loop->u.loop.kind, loop->u.loop.thread_tag,
                             loop->u.loop.annotations, cg_tidy_stmt(g, a, body));
    cg_stmt(g, part);
  }
  tir_analyzer_free(a);
  return true;
}
