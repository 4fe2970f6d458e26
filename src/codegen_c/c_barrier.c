/* c_barrier.c - the C target runs the threads of a block one after
 * another (threadIdx loops are plain loops), so a barrier between them
 * (T.tvm_storage_sync inside a threadIdx loop of extent > 1) cannot be
 * kept: threads that read what others wrote before the barrier would read
 * it too early.  Such a function is refused by name rather than compiled
 * to a silently wrong loop (found by tests/fuzz/fuzz_exec.c). */
#include <stdlib.h>
#include <string.h>

#include "codegen_c/c_printer.h"
#include "tir/analysis.h"
#include "tir/visit.h"

static const tir_expr *sync_in(const tir_expr *e) {
  if (!e || e->kind != TIR_CALL) return NULL;
  if (!strcmp(e->u.call.op, "tvm_storage_sync")) return e;
  for (int i = 0; i < e->u.call.nargs; i++) {
    const tir_expr *s = sync_in(e->u.call.args[i]);
    if (s) return s;
  }
  return NULL;
}

static bool is_thread(const char *tag, const tir_expr *ext) {
  int64_t n;
  return tag && !strncmp(tag, "threadIdx.", 10) && !(tir_is_const_int(ext, &n) && n <= 1);
}

/* the first barrier under a threadIdx loop, or NULL */
static const tir_expr *find(const tir_stmt *s, bool in_threads) {
  if (!s) return NULL;
  const tir_expr *r = NULL;
  switch (s->kind) {
  case TIR_EVALUATE: return in_threads ? sync_in(s->u.eval.value) : NULL;
  case TIR_FOR:
    return find(s->u.loop.body, in_threads || (s->u.loop.kind == TIR_FOR_THREAD_BINDING &&
                                               is_thread(s->u.loop.thread_tag, s->u.loop.extent)));
  case TIR_ATTR: {
    const char *tag = s->u.attr.thread_tag;
    if (!tag && s->u.attr.node && tir_is_var(s->u.attr.node)) tag = s->u.attr.node->u.var.name;
    bool t = !strcmp(s->u.attr.key, "thread_extent") && is_thread(tag, s->u.attr.value);
    return find(s->u.attr.body, in_threads || t);
  }
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n && !r; i++) r = find(s->u.seq.stmts[i], in_threads);
    return r;
  case TIR_IF:
    r = find(s->u.ifs.then_s, in_threads);
    return r ? r : find(s->u.ifs.else_s, in_threads);
  case TIR_LET_STMT: return find(s->u.let.body, in_threads);
  case TIR_WHILE: return find(s->u.whl.body, in_threads);
  case TIR_ALLOCATE: return find(s->u.alloc.body, in_threads);
  case TIR_DECL_BUFFER:
  case TIR_ALLOC_BUFFER: return find(s->u.decl.body, in_threads);
  case TIR_ASSERT: return find(s->u.assrt.body, in_threads);
  case TIR_BLOCK_REALIZE:
    r = find(s->u.realize.block->init, in_threads);
    return r ? r : find(s->u.realize.block->body, in_threads);
  default: return NULL;
  }
}

/* ---- threads that talk through shared memory without a barrier ----
 * TVM's kernels may leave the barriers to the code generator (TVM's
 * ThreadSync; tirc's CUDA inserts them, cuda_sync.c): a thread writes its
 * own elements of a shared buffer and reads others' after them.  Run one
 * thread after another, as the C code runs them, such a read comes before
 * the write.  So within one outermost threadIdx launch (sibling launches
 * are phases: all of one before the next, in C as in CUDA), a load of a
 * shared buffer must provably read no element that another thread of the
 * launch stores there (isl, over the loop ranges around each access; lets
 * substituted, conditions not used), except for stores inside a rebinding
 * of every threadIdx tag (a cooperative fetch: each thread's pass writes
 * the whole of what it reads).  Else the function is refused. */
enum { MAX_PAIRS = 4096 };

typedef struct { const tir_expr *var, *min, *ext; } sh_loop;
typedef struct { const tir_expr *var, *val; } sh_let;
typedef struct {
  const void *data;
  const char *name;
  bool store;
  tir_expr *const *idx;
  int nidx;
  tir_span span;
  sh_loop *loops; int nloops; /* the loops around it, outermost first (malloc'd) */
  sh_let *lets; int nlets;    /* the lets around it, outermost first (malloc'd) */
  const tir_expr *tvar[6], *text[6]; /* the launch's thread vars and extents */
} sh_acc;

typedef struct {
  const char *tag[6];
  const tir_expr *var[6], *ext[6]; /* the outer launch var of each threadIdx tag, its extent */
  int rebound[6];
  int nactive;
  const void **shared; int nshared, capshared; /* data vars of shared allocations */
  sh_loop *loops; int nloops, caploops;
  sh_let *lets; int nlets, caplets;
  sh_acc *acc; int nacc, capacc;
  bool top; /* outside any launch */
  /* the verdict */
  bool failed;
  tir_span at;
  const char *name;
  int store_line;
  bool too_many;
} sh_walk;

static int tag_slot(sh_walk *w, const char *tag) {
  for (int i = 0; i < 6; i++)
    if (w->tag[i] && !strcmp(w->tag[i], tag)) return i;
  for (int i = 0; i < 6; i++)
    if (!w->tag[i]) {
      w->tag[i] = tag;
      return i;
    }
  return -1;
}

static bool is_shared(const sh_walk *w, const void *data) {
  for (int i = 0; i < w->nshared; i++)
    if (w->shared[i] == data) return true;
  return false;
}

#define SH_PUSH(arr, n, cap, item)                                      \
  do {                                                                  \
    if ((n) == (cap)) {                                                 \
      (cap) = (cap) ? 2 * (cap) : 16;                                   \
      (arr) = realloc((arr), sizeof *(arr) * (size_t)(cap));            \
      if (!(arr)) abort();                                              \
    }                                                                   \
    (arr)[(n)++] = (item);                                              \
  } while (0)

static void record(sh_walk *w, const void *data, const char *name, bool store, tir_expr *const *idx, int nidx,
                   tir_span sp) {
  sh_acc a = {.data = data, .name = name, .store = store, .idx = idx, .nidx = nidx, .span = sp};
  a.loops = malloc(sizeof *a.loops * (size_t)(w->nloops + 1));
  a.lets = malloc(sizeof *a.lets * (size_t)(w->nlets + 1));
  if (!a.loops || !a.lets) abort();
  if (w->nloops) memcpy(a.loops, w->loops, sizeof *a.loops * (size_t)w->nloops);
  if (w->nlets) memcpy(a.lets, w->lets, sizeof *a.lets * (size_t)w->nlets);
  a.nloops = w->nloops;
  a.nlets = w->nlets;
  memcpy(a.tvar, w->var, sizeof a.tvar);
  memcpy(a.text, w->ext, sizeof a.text);
  SH_PUSH(w->acc, w->nacc, w->capacc, a);
}

static bool sh_expr(tir_visitor *v, const tir_expr *e) {
  sh_walk *w = v->user;
  /* a pointer (an extern's argument) is no read here: what an extern reads or writes through it is not seen
   * (nor are its stores), as with every pointer */
  if (e->kind == TIR_CALL && (!strcmp(e->u.call.op, "address_of") || !strcmp(e->u.call.op, "tvm_access_ptr")))
    return false;
  if (e->kind == TIR_BUFFER_LOAD && !w->top && is_shared(w, e->u.load.buf->data))
    record(w, e->u.load.buf->data, e->u.load.buf->name, false, e->u.load.idx, e->u.load.nidx, e->span);
  return true;
}

static void sh_exprs(sh_walk *w, const tir_expr *e) {
  if (!e || w->top) return;
  tir_visitor v = {.expr = sh_expr, .user = w};
  tir_visit_expr(&v, e);
}

static void sh_stmt_walk(sh_walk *w, const tir_stmt *s);
static void check_launch(sh_walk *w, const tir_stmt *launch);

/* a threadIdx launch (attr or loop) of tag slot t over var with extent ext */
static void sh_launch(sh_walk *w, const tir_stmt *s, int t, const tir_expr *var, const tir_expr *ext,
                      const tir_stmt *body) {
  if (w->top) {
    check_launch(w, s);
    return;
  }
  bool outer = !w->var[t];
  if (outer) w->var[t] = var, w->ext[t] = ext, w->nactive++;
  else w->rebound[t]++;
  if (!outer) SH_PUSH(w->loops, w->nloops, w->caploops, ((sh_loop){var, NULL, ext})); /* a rebinding ranges as a loop */
  sh_stmt_walk(w, body);
  if (!outer) w->nloops--;
  if (outer) w->var[t] = NULL, w->tag[t] = NULL, w->nactive--;
  else w->rebound[t]--;
}

static void sh_stmt_walk(sh_walk *w, const tir_stmt *s) {
  if (!s || w->failed) return;
  switch (s->kind) {
  case TIR_ATTR: {
    const char *tag = s->u.attr.thread_tag;
    if (!tag && s->u.attr.node && tir_is_var(s->u.attr.node)) tag = s->u.attr.node->u.var.name;
    int t = -1;
    if (!strcmp(s->u.attr.key, "thread_extent") && is_thread(tag, s->u.attr.value)) t = tag_slot(w, tag);
    if (t < 0) {
      sh_exprs(w, s->u.attr.value);
      sh_stmt_walk(w, s->u.attr.body);
      return;
    }
    sh_launch(w, s, t, s->u.attr.node, s->u.attr.value, s->u.attr.body);
    return;
  }
  case TIR_FOR: {
    int t = -1;
    if (s->u.loop.kind == TIR_FOR_THREAD_BINDING && is_thread(s->u.loop.thread_tag, s->u.loop.extent))
      t = tag_slot(w, s->u.loop.thread_tag);
    sh_exprs(w, s->u.loop.min);
    sh_exprs(w, s->u.loop.extent);
    if (t >= 0) {
      sh_launch(w, s, t, s->u.loop.var, s->u.loop.extent, s->u.loop.body);
      return;
    }
    SH_PUSH(w->loops, w->nloops, w->caploops, ((sh_loop){s->u.loop.var, s->u.loop.min, s->u.loop.extent}));
    sh_stmt_walk(w, s->u.loop.body);
    w->nloops--;
    return;
  }
  case TIR_ALLOC_BUFFER:
  case TIR_ALLOCATE: {
    const char *scope = s->kind == TIR_ALLOCATE ? s->u.alloc.scope : s->u.decl.buf->scope;
    const void *data = s->kind == TIR_ALLOCATE ? (const void *)s->u.alloc.var : (const void *)s->u.decl.buf->data;
    if (scope && !strncmp(scope, "shared", 6) && !is_shared(w, data)) SH_PUSH(w->shared, w->nshared, w->capshared, data);
    sh_stmt_walk(w, s->kind == TIR_ALLOCATE ? s->u.alloc.body : s->u.decl.body);
    return;
  }
  case TIR_BUFFER_STORE: {
    sh_exprs(w, s->u.store.value);
    for (int i = 0; i < s->u.store.nidx; i++) sh_exprs(w, s->u.store.idx[i]);
    if (w->top || !is_shared(w, s->u.store.buf->data)) return;
    bool coop = true;
    for (int t = 0; t < 6; t++)
      if (w->var[t]) coop &= w->rebound[t] > 0;
    if (!coop) record(w, s->u.store.buf->data, s->u.store.buf->name, true, s->u.store.idx, s->u.store.nidx, s->span);
    return;
  }
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) sh_stmt_walk(w, s->u.seq.stmts[i]);
    return;
  case TIR_IF:
    sh_exprs(w, s->u.ifs.cond);
    sh_stmt_walk(w, s->u.ifs.then_s);
    sh_stmt_walk(w, s->u.ifs.else_s);
    return;
  case TIR_LET_STMT:
    sh_exprs(w, s->u.let.value);
    SH_PUSH(w->lets, w->nlets, w->caplets, ((sh_let){s->u.let.var, s->u.let.value}));
    sh_stmt_walk(w, s->u.let.body);
    w->nlets--;
    return;
  case TIR_WHILE:
    sh_exprs(w, s->u.whl.cond);
    sh_stmt_walk(w, s->u.whl.body);
    return;
  case TIR_EVALUATE: sh_exprs(w, s->u.eval.value); return;
  case TIR_DECL_BUFFER: sh_stmt_walk(w, s->u.decl.body); return;
  case TIR_ASSERT:
    sh_exprs(w, s->u.assrt.cond);
    sh_stmt_walk(w, s->u.assrt.body);
    return;
  case TIR_BLOCK_REALIZE:
    sh_stmt_walk(w, s->u.realize.block->init);
    sh_stmt_walk(w, s->u.realize.block->body);
    return;
  default: return;
  }
}

/* idx under its lets (substituted, outermost first), with the loop and
 * thread vars renamed by ren when given */
static tir_expr *flat_index(tir_ctx *c, const sh_acc *a, int i, tir_var_map *ren) {
  tir_var_map m = {0};
  for (int k = 0; k < a->nlets; k++) tir_var_map_set(&m, a->lets[k].var, tir_substitute_expr(c, (tir_expr *)a->lets[k].val, &m));
  tir_expr *e = tir_substitute_expr(c, a->idx[i], &m);
  tir_var_map_free(&m);
  return ren ? tir_substitute_expr(c, e, ren) : e;
}

/* can a thread load at l what another thread of the launch stored at s? */
static bool crosses(sh_walk *w, const sh_acc *s, const sh_acc *l) {
  if (s->nidx != l->nidx) return true;
  tir_ctx *c = tir_ctx_new();
  tir_analyzer *an = tir_analyzer_new(c, NULL);
  tir_var_map ren = {0};
  tir_expr *same = NULL;
  (void)w;
  for (int t = 0; t < 6; t++) {
    if (!s->tvar[t] || s->tvar[t] != l->tvar[t]) continue;
    tir_expr *v = (tir_expr *)s->tvar[t], *v2 = tir_var(c, "t2", v->dtype);
    tir_var_map_set(&ren, v, v2);
    tir_analyzer_bind_range(an, v, tir_int(c, v->dtype, 0), (tir_expr *)s->text[t]);
    tir_analyzer_bind_range(an, v2, tir_int(c, v->dtype, 0), (tir_expr *)s->text[t]);
    tir_expr *eq = tir_binary(c, TIR_EQ, v, v2);
    same = same ? tir_binary(c, TIR_AND, same, eq) : eq;
  }
  for (int k = 0; k < s->nloops; k++)
    tir_analyzer_bind_range(an, s->loops[k].var, s->loops[k].min ? (tir_expr *)s->loops[k].min : tir_int(c, s->loops[k].var->dtype, 0),
                            (tir_expr *)s->loops[k].ext);
  for (int k = 0; k < l->nloops; k++) {
    tir_expr *v = (tir_expr *)l->loops[k].var, *v2 = tir_var(c, "u2", v->dtype);
    tir_var_map_set(&ren, v, v2);
    tir_expr *mn = l->loops[k].min ? tir_substitute_expr(c, (tir_expr *)l->loops[k].min, &ren) : tir_int(c, v->dtype, 0);
    tir_analyzer_bind_range(an, v2, mn, tir_substitute_expr(c, (tir_expr *)l->loops[k].ext, &ren));
  }
  tir_expr *claim = same;
  for (int i = 0; i < s->nidx; i++) {
    tir_expr *a = flat_index(c, s, i, NULL), *b = flat_index(c, l, i, &ren);
    if (!tir_dtype_eq(a->dtype, b->dtype)) {
      claim = NULL;
      break;
    }
    tir_expr *ne = tir_binary(c, TIR_NE, a, b);
    claim = claim ? tir_binary(c, TIR_OR, ne, claim) : ne;
  }
  bool ok = claim && tir_can_prove(an, claim);
  tir_var_map_free(&ren);
  tir_analyzer_free(an);
  tir_ctx_free(c);
  return !ok;
}

static void check_launch(sh_walk *w, const tir_stmt *launch) {
  if (w->failed) return;
  w->top = false;
  w->nacc = 0;
  sh_stmt_walk(w, launch);
  w->top = true;
  int pairs = 0;
  for (int i = 0; i < w->nacc && !w->failed; i++) {
    if (!w->acc[i].store) continue;
    for (int j = 0; j < w->nacc && !w->failed; j++) {
      const sh_acc *s = &w->acc[i], *l = &w->acc[j];
      if (l->store || l->data != s->data) continue;
      if (++pairs > MAX_PAIRS) {
        w->failed = w->too_many = true;
        w->at = l->span, w->name = l->name;
        break;
      }
      if (crosses(w, s, l)) {
        w->failed = true;
        w->at = l->span, w->name = l->name, w->store_line = s->span.line;
      }
    }
  }
  for (int i = 0; i < w->nacc; i++) free(w->acc[i].loops), free(w->acc[i].lets);
  w->nacc = 0;
}

bool cg_c_check_barriers(const tir_func *f, tir_diag *d) {
  const tir_expr *s = find(f->body, false);
  if (s) {
    tir_error(d, s->span.line ? s->span : f->span,
              "T.tvm_storage_sync inside a threadIdx loop: the C code runs the threads of a block one after another, "
              "so it cannot keep this barrier (threads would read shared memory before others write it); "
              "--emit=cuda keeps it");
    return false;
  }
  sh_walk w = {.top = true};
  sh_stmt_walk(&w, f->body);
  if (w.failed && w.too_many)
    tir_error(d, w.at.line ? w.at : f->span,
              "shared buffer '%s': more than %d pairs of its stores and loads in one threadIdx launch to check that "
              "no thread reads what another writes (the C code runs the threads one after another); --emit=cuda",
              w.name, MAX_PAIRS);
  else if (w.failed)
    tir_error(d, w.at.line ? w.at : f->span,
              "shared buffer '%s' is read here where another thread of the same threadIdx launch may have stored "
              "(line %d): the C code runs the threads of a block one after another, where CUDA runs them in step "
              "with barriers between (which --emit=cuda inserts), so a thread could read what another has not yet "
              "written",
              w.name, w.store_line);
  for (int i = 0; i < w.nacc; i++) free(w.acc[i].loops), free(w.acc[i].lets);
  free(w.acc);
  free(w.shared);
  free(w.loops);
  free(w.lets);
  return !w.failed;
}

/* ---- loop steps: C and CUDA loops here step by 1; a loop with another
 * step is lowered by canonicalize_loop (first in the default pipeline) ---- */
typedef struct step_find {
  const tir_stmt *loop;
} step_find;

static bool step_cb(tir_visitor *v, const tir_stmt *s) {
  step_find *f = v->user;
  int64_t st;
  if (f->loop) return false;
  if (s->kind == TIR_FOR && s->u.loop.step && !(tir_is_const_int(s->u.loop.step, &st) && st == 1)) f->loop = s;
  return !f->loop;
}

bool cg_check_steps(const tir_func *f, tir_diag *d) {
  if (!tir_func_check_lowerable(f, "code generation", d))
    return false;
  tir_func_warn_allocated_addr(f, "code generation", d);
  step_find sf = {0};
  tir_visitor v = {.stmt = step_cb, .user = &sf};
  tir_visit_stmt(&v, f->body);
  if (!sf.loop) return true;
  tir_error(d, sf.loop->span,
            "loop '%s' has a step: the code generators take loops of step 1; run canonicalize_loop first (the "
            "default pipeline does)",
            sf.loop->u.loop.var->u.var.name ? sf.loop->u.loop.var->u.var.name : "?");
  return false;
}
