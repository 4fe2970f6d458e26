/* plan_buffer_allocation.c - PlanAndUpdateBufferAllocationLocation (alias
 * plan_alloc): every block allocation moves to the lowest common ancestor
 * (block or loop) of the statements that access the buffer, as TVM does:
 *
 *  - an access is a load, a store, a use of the buffer's data var, or a
 *    match_buffer source (counted at the matching block);
 *  - an access whose indices use a non-spatial block iter var is counted
 *    above the outermost loop that iter var is bound to;
 *  - the home of a `global` buffer is also a common ancestor of every
 *    blockIdx loop (so it is not allocated per block; it may sit under
 *    the outermost blockIdx loop's body, as TVM's does);
 *  - a buffer never accessed is dropped;
 *  - unlike TVM, a buffer whose value a loop carries from one iteration to
 *    the next (an iteration reads an element it has not written, which an
 *    earlier iteration wrote: an init on the first iteration, a rolling
 *    buffer's rows) is not moved into that loop, where it would be a new
 *    buffer each iteration (tir_loop_carries: a cheap affine test, then
 *    isl; where isl cannot tell, the buffer moves as in TVM).
 * A loop that becomes the home of allocations gets its body wrapped in an
 * opaque block "" holding them, with inferred reads/writes. */
#include <stdlib.h>
#include <string.h>

#include "tir/analysis.h"
#include "tir/passes.h"
#include "tir/visit.h"
#include "ir/ptrmap.h"

typedef struct scope {
  const tir_stmt *stmt; /* a For or a BlockRealize; NULL for the function */
  struct scope *parent;
  int depth;
} scope;

typedef struct buf_info {
  const tir_buffer *buf;
  scope *lca;       /* NULL while never accessed */
  int in_scope;     /* while rewriting: inside its new home */
  scope *decl;      /* the block that allocates it */
  bool opaque;      /* accessed through its data var or a match_buffer */
  int first_acc, last_acc; /* its accesses: index + 1 in plan.acc, chained by next */
  int nacc;
} buf_info;

/* the conditions and bindings around an access, as persistent stacks */
typedef struct cnode {
  tir_expr *cond;
  bool neg;
  const struct cnode *up;
} cnode;
typedef struct dnode {
  const tir_expr *var;
  tir_expr *value;   /* the value bound, or the min of a launch's range */
  tir_expr *extent;  /* a launch's extent; NULL for a binding */
  int depth;         /* the depth of the scope it was met in */
  const struct dnode *up;
} dnode;

/* a load or store of a buffer allocated in a block */
typedef struct access {
  tir_expr *const *idx;
  int nidx;
  bool write;
  bool unknown; /* inside a while loop: its iterations are not modelled */
  scope *sc;
  const cnode *conds;
  const dnode *defs;
  int seq;
  int next; /* the buffer's next access, index + 1 */
} access;

typedef struct loop_scope {
  const tir_expr *var;
  scope *sc;
} loop_scope;

typedef struct plan {
  tir_ctx *c;
  buf_info *bufs;
  int nbufs, cap;
  loop_scope *loops;
  int nloops, loops_cap;
  scope **blockidx;
  int nblockidx, blockidx_cap;
  scope *cur;
  scope *root;
  /* O(1) lookups: buffer and data var -> index in bufs + 1; loop var ->
   * index in loops + 1; a home statement -> its first buffer in `homed` */
  tir_ptrmap by_buf, by_data, by_loop, home_first;
  int *homed_next; /* the next buffer (index + 1) with the same home, in declaration order */
  /* the accesses, and the context of the statement walked */
  access *acc;
  int nacc, acc_cap;
  const cnode *conds;
  const dnode *defs;
  int seq, in_while;
} plan;

#define GROW(arr, n, cap)                                          \
  do {                                                             \
    if ((n) == (cap)) {                                            \
      (cap) = (cap) ? 2 * (cap) : 16;                              \
      void *p_ = realloc((arr), sizeof *(arr) * (size_t)(cap));    \
      if (!p_) abort();                                            \
      (arr) = p_;                                                  \
    }                                                              \
  } while (0)

static buf_info *find_buf(plan *p, const tir_buffer *b) {
  long i = tir_ptrmap_get(&p->by_buf, b, 0);
  return i ? &p->bufs[i - 1] : NULL;
}

static buf_info *find_data(plan *p, const tir_expr *data) {
  long i = tir_ptrmap_get(&p->by_data, data, 0);
  return i ? &p->bufs[i - 1] : NULL;
}

static void add_buf(plan *p, const tir_buffer *b) {
  GROW(p->bufs, p->nbufs, p->cap);
  p->bufs[p->nbufs++] = (buf_info){.buf = b};
  tir_ptrmap_put(&p->by_buf, b, p->nbufs);
  if (!tir_ptrmap_get(&p->by_data, b->data, 0)) tir_ptrmap_put(&p->by_data, b->data, p->nbufs); /* the first */
}

static scope *lca_of(scope *a, scope *b) {
  if (!a) return b;
  if (!b) return a;
  while (a->depth > b->depth) a = a->parent;
  while (b->depth > a->depth) b = b->parent;
  while (a != b) {
    a = a->parent;
    b = b->parent;
  }
  return a;
}

static void touch(buf_info *bi, scope *at) {
  if (!bi) return;
  bi->lca = lca_of(bi->lca, at);
}

static scope *new_scope(plan *p, const tir_stmt *s) {
  scope *sc = tir_alloc(p->c, sizeof *sc);
  sc->stmt = s;
  sc->parent = p->cur;
  sc->depth = p->cur ? p->cur->depth + 1 : 0;
  return sc;
}

/* ---- collecting accesses ---- */

static void record(plan *p, buf_info *bi, tir_expr *const *idx, int nidx, bool write) {
  if (!bi) return;
  GROW(p->acc, p->nacc, p->acc_cap);
  p->acc[p->nacc++] = (access){idx, nidx, write, p->in_while > 0, p->cur, p->conds, p->defs, p->seq++, 0};
  if (bi->last_acc) p->acc[bi->last_acc - 1].next = p->nacc;
  else bi->first_acc = p->nacc;
  bi->last_acc = p->nacc;
  bi->nacc++;
}

static void push_cond(plan *p, tir_expr *cond, bool neg) {
  cnode *n = tir_alloc(p->c, sizeof *n);
  *n = (cnode){cond, neg, p->conds};
  p->conds = n;
}

static void push_def(plan *p, const tir_expr *var, tir_expr *value, tir_expr *extent) {
  dnode *n = tir_alloc(p->c, sizeof *n);
  *n = (dnode){var, value, extent, p->cur ? p->cur->depth : 0, p->defs};
  p->defs = n;
}

static void walk_expr(plan *p, const tir_expr *e);

static bool on_expr(tir_visitor *v, const tir_expr *e) {
  plan *p = v->user;
  if (e->kind == TIR_BUFFER_LOAD) {
    buf_info *bi = find_buf(p, e->u.load.buf);
    touch(bi, p->cur);
    record(p, bi, e->u.load.idx, e->u.load.nidx, false);
  } else if (e->kind == TIR_VAR) {
    buf_info *bi = find_data(p, e);
    touch(bi, p->cur);
    if (bi) bi->opaque = true;
  } else if (e->kind == TIR_CALL && !strcmp(e->u.call.op, "if_then_else") && e->u.call.nargs == 3) {
    /* each branch's loads run under its condition */
    const cnode *saved = p->conds;
    walk_expr(p, e->u.call.args[0]);
    push_cond(p, e->u.call.args[0], false);
    walk_expr(p, e->u.call.args[1]);
    p->conds = saved;
    push_cond(p, e->u.call.args[0], true);
    walk_expr(p, e->u.call.args[2]);
    p->conds = saved;
    return false;
  } else if (e->kind == TIR_LET) {
    const dnode *saved = p->defs;
    walk_expr(p, e->u.let.value);
    push_def(p, e->u.let.var, e->u.let.value, NULL);
    walk_expr(p, e->u.let.body);
    p->defs = saved;
    return false;
  }
  return true;
}

static void walk_expr(plan *p, const tir_expr *e) {
  if (!e) return;
  tir_visitor v = {.expr = on_expr, .user = p};
  tir_visit_expr(&v, e);
}

static void walk_stmt(plan *p, const tir_stmt *s);

/* does e mention var? */
typedef struct { const tir_expr *var; bool found; } mention;
static bool on_mention(tir_visitor *v, const tir_expr *e) {
  mention *m = v->user;
  if (e == m->var) m->found = true;
  return !m->found;
}
static bool mentions(const tir_expr *e, const tir_expr *var) {
  mention m = {var, false};
  tir_visitor v = {.expr = on_mention, .user = &m};
  tir_visit_expr(&v, e);
  return m.found;
}

typedef struct {
  plan *p;
  const tir_expr **vars;
  scope **doms;
  const bool *reduce; /* a reduction iter var: it lifts what the block writes, not what it reads */
  int n;
} opaque_iter_ctx;

static void touch_if_indexed(opaque_iter_ctx *o, const tir_buffer *b, tir_expr *const *idx, int nidx) {
  buf_info *bi = find_buf(o->p, b);
  if (!bi) return;
  for (int k = 0; k < o->n; k++)
    for (int j = 0; j < nidx && !o->reduce[k]; j++)
      if (mentions(idx[j], o->vars[k])) touch(bi, o->doms[k]);
}

static bool opaque_iter_expr(tir_visitor *v, const tir_expr *e) {
  if (e->kind == TIR_BUFFER_LOAD) touch_if_indexed(v->user, e->u.load.buf, e->u.load.idx, e->u.load.nidx);
  return true;
}
static bool opaque_iter_stmt(tir_visitor *v, const tir_stmt *s) {
  if (s->kind == TIR_BUFFER_STORE) touch_if_indexed(v->user, s->u.store.buf, s->u.store.idx, s->u.store.nidx);
  return true;
}

/* a buffer a reduction block writes carries its value across the reduction
 * iterations: it lives above the loops the reduction iter vars are bound
 * to, whatever its indices (an accumulator indexed by spatial vars only was
 * moved into the block, re-allocated every iteration) */
static void touch_writes(opaque_iter_ctx *o, const tir_block *b) {
  for (int i = 0; i < b->n_writes; i++) {
    buf_info *bi = find_buf(o->p, b->writes[i].buf);
    for (int k = 0; bi && k < o->n; k++) touch(bi, o->doms[k]);
  }
}

static scope *loop_scope_of(plan *p, const tir_expr *var) {
  long i = tir_ptrmap_get(&p->by_loop, var, 0);
  return i ? p->loops[i - 1].sc : NULL;
}

typedef struct { plan *p; scope *best; } dom_ctx;
static bool on_binding_var(tir_visitor *v, const tir_expr *e) {
  dom_ctx *dc = v->user;
  if (e->kind != TIR_VAR) return true;
  scope *ls = loop_scope_of(dc->p, e);
  if (ls && (!dc->best || ls->parent->depth < dc->best->depth)) dc->best = ls->parent;
  return true;
}

/* TVM's UpdateDominateScopeOfOpaqueIter: accesses indexed by an opaque or
 * ordered iter var count above the loops that var is bound to (as TVM,
 * which skips spatial and reduction vars); what a reduction block writes
 * also counts above the loops of its reduction vars (touch_writes).  A
 * buffer only read through a reduction var (a shared tile read at k0 * 16 +
 * k1) stays inside the outer reduction loop, as in TVM. */
static void opaque_iter_scopes(plan *p, const tir_stmt *s) {
  const tir_block *b = s->u.realize.block;
  int n = b->n_iter < s->u.realize.n ? b->n_iter : s->u.realize.n;
  if (n == 0) return;
  const tir_expr **vars = malloc(sizeof *vars * (size_t)n);
  scope **doms = malloc(sizeof *doms * (size_t)n);
  bool *reduce = malloc(sizeof *reduce * (size_t)n);
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (b->iter_vars[i].type == TIR_ITER_SPATIAL) continue;
    dom_ctx dc = {p, NULL};
    tir_visitor v = {.expr = on_binding_var, .user = &dc};
    tir_visit_expr(&v, s->u.realize.iter_values[i]);
    if (!dc.best) continue;
    vars[k] = b->iter_vars[i].var;
    reduce[k] = b->iter_vars[i].type == TIR_ITER_REDUCE;
    doms[k++] = dc.best;
  }
  if (k) {
    opaque_iter_ctx o = {p, vars, doms, reduce, k};
    tir_visitor v = {.expr = opaque_iter_expr, .stmt = opaque_iter_stmt, .user = &o};
    tir_visit_stmt(&v, b->body);
    touch_writes(&o, b);
  }
  free(vars);
  free(doms);
  free(reduce);
}

static void walk_realize(plan *p, const tir_stmt *s) {
  const tir_block *b = s->u.realize.block;
  for (int i = 0; i < s->u.realize.n; i++) walk_expr(p, s->u.realize.iter_values[i]);
  walk_expr(p, s->u.realize.predicate);
  scope *sc = new_scope(p, s);
  for (int i = 0; i < b->n_alloc; i++) {
    add_buf(p, b->alloc_buffers[i]);
    p->bufs[p->nbufs - 1].decl = sc;
  }
  scope *saved = p->cur;
  const cnode *saved_conds = p->conds;
  const dnode *saved_defs = p->defs;
  p->cur = sc;
  if (s->u.realize.predicate) push_cond(p, s->u.realize.predicate, false);
  for (int i = 0; i < b->n_iter && i < s->u.realize.n; i++) push_def(p, b->iter_vars[i].var, s->u.realize.iter_values[i], NULL);
  opaque_iter_scopes(p, s);
  for (int i = 0; i < b->n_match; i++) {
    buf_info *bi = find_buf(p, b->match_buffers[i].src.buf);
    touch(bi, sc);
    if (bi) bi->opaque = true;
  }
  for (int i = 0; i < b->n_match; i++)
    for (int j = 0; j < b->match_buffers[i].src.n; j++) {
      walk_expr(p, b->match_buffers[i].src.region[j].min);
      walk_expr(p, b->match_buffers[i].src.region[j].extent);
    }
  if (b->init) walk_stmt(p, b->init);
  walk_stmt(p, b->body);
  p->conds = saved_conds;
  p->defs = saved_defs;
  p->cur = saved;
}

static void walk_for(plan *p, const tir_stmt *s) {
  walk_expr(p, s->u.loop.min);
  walk_expr(p, s->u.loop.extent);
  scope *sc = new_scope(p, s);
  GROW(p->loops, p->nloops, p->loops_cap);
  p->loops[p->nloops++] = (loop_scope){s->u.loop.var, sc};
  if (!tir_ptrmap_get(&p->by_loop, s->u.loop.var, 0)) tir_ptrmap_put(&p->by_loop, s->u.loop.var, p->nloops);
  if (s->u.loop.kind == TIR_FOR_THREAD_BINDING && s->u.loop.thread_tag &&
      !strncmp(s->u.loop.thread_tag, "blockIdx", 8)) {
    GROW(p->blockidx, p->nblockidx, p->blockidx_cap);
    p->blockidx[p->nblockidx++] = sc;
  }
  scope *saved = p->cur;
  p->cur = sc;
  walk_stmt(p, s->u.loop.body);
  p->cur = saved;
}

static void walk_stmt(plan *p, const tir_stmt *s) {
  if (!s) return;
  switch (s->kind) {
  case TIR_BUFFER_STORE: {
    buf_info *bi = find_buf(p, s->u.store.buf);
    touch(bi, p->cur);
    walk_expr(p, s->u.store.value);
    for (int i = 0; i < s->u.store.nidx; i++) walk_expr(p, s->u.store.idx[i]);
    record(p, bi, s->u.store.idx, s->u.store.nidx, true); /* after the reads of its value */
    break;
  }
  case TIR_LET_STMT: {
    const dnode *saved = p->defs;
    walk_expr(p, s->u.let.value);
    push_def(p, s->u.let.var, s->u.let.value, NULL);
    walk_stmt(p, s->u.let.body);
    p->defs = saved;
    break;
  }
  case TIR_FOR: walk_for(p, s); break;
  case TIR_WHILE:
    p->in_while++;
    walk_expr(p, s->u.whl.cond);
    walk_stmt(p, s->u.whl.body);
    p->in_while--;
    break;
  case TIR_IF: {
    const cnode *saved = p->conds;
    walk_expr(p, s->u.ifs.cond);
    push_cond(p, s->u.ifs.cond, false);
    walk_stmt(p, s->u.ifs.then_s);
    p->conds = saved;
    if (s->u.ifs.else_s) {
      push_cond(p, s->u.ifs.cond, true);
      walk_stmt(p, s->u.ifs.else_s);
      p->conds = saved;
    }
    break;
  }
  case TIR_EVALUATE: walk_expr(p, s->u.eval.value); break;
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) walk_stmt(p, s->u.seq.stmts[i]);
    break;
  case TIR_ALLOCATE:
    for (int i = 0; i < s->u.alloc.n; i++) walk_expr(p, s->u.alloc.extents[i]);
    walk_stmt(p, s->u.alloc.body);
    break;
  case TIR_DECL_BUFFER: {
    /* a view over an allocated buffer (V = S.view(16)): declared and used
     * here, it is S used here (TVM maps a buffer to its allocation by its
     * data var) */
    buf_info *bi = s->u.decl.buf ? find_data(p, s->u.decl.buf->data) : NULL;
    if (bi && !find_buf(p, s->u.decl.buf)) {
      touch(bi, p->cur);
      bi->opaque = true;
      tir_ptrmap_put(&p->by_buf, s->u.decl.buf, (long)(bi - p->bufs) + 1);
    }
    walk_stmt(p, s->u.decl.body);
    break;
  }
  case TIR_ALLOC_BUFFER: walk_stmt(p, s->u.decl.body); break;
  case TIR_ATTR: {
    walk_expr(p, s->u.attr.value);
    const dnode *saved = p->defs;
    if (s->u.attr.key && (!strcmp(s->u.attr.key, "thread_extent") || !strcmp(s->u.attr.key, "virtual_thread")) &&
        tir_is_var(s->u.attr.node) && s->u.attr.value && tir_dtype_is_int(s->u.attr.value->dtype))
      push_def(p, s->u.attr.node, tir_int(p->c, s->u.attr.value->dtype, 0), s->u.attr.value); /* a launch */
    walk_stmt(p, s->u.attr.body);
    p->defs = saved;
    break;
  }
  case TIR_ASSERT:
    walk_expr(p, s->u.assrt.cond);
    walk_stmt(p, s->u.assrt.body);
    break;
  case TIR_BLOCK_REALIZE: walk_realize(p, s); break;
  default: break;
  }
}

/* ---- values carried across iterations ---- */

/* what one access may bring to an isl query: more gives up (the buffer
 * moves as in TVM), so that a deep nest costs no more than this */
#define CARRY_MAX_DEPTH 64

static bool unit_step(const tir_stmt *loop) {
  int64_t k;
  return !loop->u.loop.step || (tir_is_const_int(loop->u.loop.step, &k) && k == 1);
}

static bool ordered(const tir_stmt *loop) {
  return loop->u.loop.kind == TIR_FOR_SERIAL || loop->u.loop.kind == TIR_FOR_UNROLLED;
}

typedef struct {
  tir_relax_var *v;
  const void **ids;
  int n, cap;
} var_list;

static bool vl_push(var_list *l, const tir_expr *var, tir_expr *min, tir_expr *extent, const void *id) {
  if (l->n >= 3 * CARRY_MAX_DEPTH) return false;
  GROW(l->v, l->n, l->cap);
  l->ids = realloc(l->ids, sizeof *l->ids * (size_t)l->cap);
  if (!l->ids) abort();
  l->v[l->n] = (tir_relax_var){var, min, extent};
  l->ids[l->n++] = id;
  return true;
}

/* e with the vars of one-iteration loops replaced by their mins (twice:
 * a min may name an outer such loop) */
static tir_expr *one_iter(tir_ctx *c, const tir_var_map *one, tir_expr *e) {
  if (!e || !one->n) return e;
  return tir_substitute_expr(c, tir_substitute_expr(c, e, one), one);
}

/* does loop sc carry buffer bi's value from one iteration to the next?
 * The threads' vars (a thread-bound or parallel loop, a launch) below the
 * buffer's block: any thread may have written what one reads, so each
 * access ranges over them on its own.  Above the block, and the serial
 * loops around the loop checked, are one value for all its accesses
 * (parameters, with their ranges). */
static bool carries(plan *p, tir_analyzer *a, buf_info *bi, scope *sc) {
  const tir_stmt *loop = sc->stmt;
  if (!unit_step(loop)) return false;
  var_list outer = {0}, spread = {0}; /* spread: thread vars between the block and the loop */
  bool ok = true;
  int depth = 0;
  for (const scope *s = sc->parent; s && ok; s = s->parent) {
    if (!s->stmt || s->stmt->kind != TIR_FOR) continue;
    ok = ++depth <= CARRY_MAX_DEPTH && unit_step(s->stmt);
    const tir_stmt *l = s->stmt;
    if (ok && !ordered(l) && s->depth > bi->decl->depth) /* sc's ancestors: below the block where deeper */
      ok = vl_push(&spread, l->u.loop.var, l->u.loop.min, l->u.loop.extent, NULL);
    else if (ok) ok = vl_push(&outer, l->u.loop.var, l->u.loop.min, l->u.loop.extent, NULL);
  }
  tir_flow_access *fa = calloc((size_t)bi->nacc, sizeof *fa);
  if (!fa) abort();
  int k = 0;
  for (int i = bi->first_acc; i && ok; i = p->acc[i - 1].next, k++) {
    const access *x = &p->acc[i - 1];
    var_list ord = {0}, rest = {0};
    ok = !x->unknown;
    depth = 0;
    /* its loops inside sc: the serial ones ordered (outer first), the rest
     * spread; a loop of one iteration is its min, no dimension (its var
     * replaced where the access names it: equal in both accesses of any
     * pair, it orders nothing; meta-schedule's tilings hold many, and isl's
     * time grows fast with the dimensions) */
    tir_var_map one = {0};
    for (const scope *s = x->sc; s && s != sc && ok; s = s->parent) {
      if (!s->stmt || s->stmt->kind != TIR_FOR) continue;
      const tir_stmt *l = s->stmt;
      int64_t ext;
      ok = ++depth <= CARRY_MAX_DEPTH && unit_step(l);
      if (ok && tir_is_const_int(l->u.loop.extent, &ext) && ext == 1) tir_var_map_set(&one, l->u.loop.var, l->u.loop.min);
      else if (ok) ok = vl_push(ordered(l) ? &ord : &rest, l->u.loop.var, l->u.loop.min, l->u.loop.extent, l);
    }
    for (int j = 0; j < spread.n && ok; j++) ok = vl_push(&rest, spread.v[j].var, spread.v[j].min, spread.v[j].extent, NULL);
    /* the vars its blocks and lets bind; a launch's range: spread below the block, a parameter above */
    int nd = 0;
    for (const dnode *d = x->defs; d && ok; d = d->up) {
      ok = ++nd <= CARRY_MAX_DEPTH;
      if (ok && d->extent && d->depth < bi->decl->depth) ok = vl_push(&outer, d->var, d->value, d->extent, NULL);
      else if (ok) ok = vl_push(&rest, d->var, one_iter(p->c, &one, d->value), d->extent, NULL);
    }
    int nc = 0;
    for (const cnode *c = x->conds; c && nc <= CARRY_MAX_DEPTH; c = c->up) nc++;
    if (nc > CARRY_MAX_DEPTH) ok = false;
    if (ok) {
      int nl = ord.n, n = ord.n + rest.n;
      /* scratch of this check, freed below (not the IR's arena) */
      tir_relax_var *dims = malloc(sizeof *dims * (size_t)(n + 1));
      const void **lids = malloc(sizeof *lids * (size_t)(nl + 1));
      tir_expr **conds = malloc(sizeof *conds * (size_t)(nc + 1));
      bool *neg = malloc(sizeof *neg * (size_t)(nc + 1));
      if (!dims || !lids || !conds || !neg) abort();
      for (int j = 0; j < nl; j++) { /* ord was collected inner first */
        dims[j] = ord.v[nl - 1 - j];
        lids[j] = ord.ids[nl - 1 - j];
      }
      if (rest.n) memcpy(dims + nl, rest.v, sizeof *dims * (size_t)rest.n);
      for (int j = 0; j < n && one.n; j++) {
        dims[j].min = one_iter(p->c, &one, dims[j].min);
        if (dims[j].extent) dims[j].extent = one_iter(p->c, &one, dims[j].extent);
      }
      int j = 0;
      for (const cnode *c = x->conds; c; c = c->up, j++) {
        conds[j] = one_iter(p->c, &one, c->cond);
        neg[j] = c->neg;
      }
      tir_expr *const *idx = x->idx;
      if (one.n) {
        tir_expr **sub = tir_alloc(p->c, sizeof *sub * (size_t)(x->nidx + 1));
        for (int q = 0; q < x->nidx; q++) sub[q] = one_iter(p->c, &one, x->idx[q]);
        idx = sub;
      }
      fa[k] = (tir_flow_access){idx, x->nidx, dims, n, nl, lids, conds, neg, nc, x->seq, x->write};
    }
    tir_var_map_free(&one);
    free(ord.v);
    free(ord.ids);
    free(rest.v);
    free(rest.ids);
  }
  bool carried = ok && tir_loop_carries(a, loop->u.loop.var, loop->u.loop.min, loop->u.loop.extent, outer.v, outer.n, fa, k);
  for (int j = 0; j < k && j < bi->nacc; j++) {
    free((void *)fa[j].dims);
    free((void *)fa[j].loop_ids);
    free((void *)fa[j].conds);
    free((void *)fa[j].neg);
  }
  free(fa);
  free(outer.v);
  free(outer.ids);
  free(spread.v);
  free(spread.ids);
  return carried;
}

/* a buffer moves below its block only as far as no loop on the way carries
 * its value: checked from the outermost loop in, on serial and unrolled
 * loops (the iterations of the others are not ordered) */
#define CARRY_MAX_ACCESSES 64
static void keep_carried(plan *p) {
  tir_analyzer *a = NULL;
  for (int i = 0; i < p->nbufs; i++) {
    buf_info *bi = &p->bufs[i];
    if (!bi->lca || !bi->decl || bi->lca == bi->decl || bi->opaque || bi->nacc > CARRY_MAX_ACCESSES) continue;
    scope *path[CARRY_MAX_DEPTH];
    int n = 0;
    const scope *s = bi->lca;
    for (; s && s != bi->decl && n < CARRY_MAX_DEPTH; s = s->parent)
      if (s->stmt && s->stmt->kind == TIR_FOR) path[n++] = (scope *)s;
    if (s != bi->decl) continue; /* not below its block, or too deep */
    for (int j = n - 1; j >= 0; j--) {
      int kind = path[j]->stmt->u.loop.kind;
      if (kind != TIR_FOR_SERIAL && kind != TIR_FOR_UNROLLED) continue;
      if (!a) a = tir_analyzer_new(p->c, NULL);
      if (carries(p, a, bi, path[j])) {
        bi->lca = path[j]->parent;
        break;
      }
    }
  }
  if (a) tir_analyzer_free(a);
}

static bool is_global(const tir_buffer *b) { return !b->scope || !strcmp(b->scope, "global"); }

/* ---- rewriting ---- */

/* declaration order (the buffers' order in p->bufs), as TVM keeps it: a
 * block allocating S then X keeps S, X wherever X is used first */
static int by_order(const void *a, const void *b) {
  const buf_info *x = *(buf_info *const *)a, *y = *(buf_info *const *)b;
  return (x > y) - (x < y);
}

/* every buffer's home, as chains in declaration order (once, after the walk) */
static void index_homes(plan *p) {
  size_t nb = p->nbufs > 0 ? (size_t)p->nbufs : 1;
  buf_info **order = malloc(sizeof *order * nb);
  if (!order) abort();
  int k = 0;
  for (int i = 0; i < p->nbufs; i++)
    if (p->bufs[i].lca) order[k++] = &p->bufs[i];
  qsort(order, (size_t)k, sizeof *order, by_order);
  p->homed_next = calloc(nb, sizeof *p->homed_next);
  if (!p->homed_next) abort();
  tir_ptrmap last_of = {0}; /* home -> index + 1 of its last buffer so far */
  for (int j = 0; j < k; j++) {
    int i = (int)(order[j] - p->bufs);
    const void *home = order[j]->lca->stmt ? (const void *)order[j]->lca->stmt : (const void *)p;
    long prev = tir_ptrmap_get(&last_of, home, 0);
    if (prev) p->homed_next[prev - 1] = i + 1;
    else tir_ptrmap_put(&p->home_first, home, i + 1);
    tir_ptrmap_put(&last_of, home, i + 1);
  }
  tir_ptrmap_free(&last_of);
  free(order);
}

/* the buffers whose new home is stmt (NULL: the function), in declaration order */
static tir_buffer **homed_at(plan *p, const tir_stmt *s, int *n) {
  const void *home = s ? (const void *)s : (const void *)p;
  int k = 0;
  for (long i = tir_ptrmap_get(&p->home_first, home, 0); i; i = p->homed_next[i - 1]) k++;
  *n = k;
  if (!k) return NULL;
  tir_buffer **out = tir_alloc(p->c, sizeof *out * (size_t)k);
  k = 0;
  for (long i = tir_ptrmap_get(&p->home_first, home, 0); i; i = p->homed_next[i - 1])
    out[k++] = (tir_buffer *)p->bufs[i - 1].buf;
  return out;
}

/* buffers allocated anywhere inside a statement */
typedef struct {
  const tir_buffer **bufs;
  int n, cap;
} buf_set;

static void buf_set_add(buf_set *bs, const tir_buffer *b) {
  GROW(bs->bufs, bs->n, bs->cap);
  bs->bufs[bs->n++] = b;
}

static bool collect_allocs(tir_visitor *v, const tir_stmt *s) {
  buf_set *bs = v->user;
  if (s->kind == TIR_BLOCK_REALIZE)
    for (int i = 0; i < s->u.realize.block->n_alloc; i++) buf_set_add(bs, s->u.realize.block->alloc_buffers[i]);
  if (s->kind == TIR_ALLOC_BUFFER) buf_set_add(bs, s->u.decl.buf);
  return true;
}

static bool in_set(const buf_set *bs, const tir_buffer *b) {
  for (int i = 0; i < bs->n; i++)
    if (bs->bufs[i] == b) return true;
  return false;
}

/* drop the regions of buffers allocated inside the block: they do not
 * exist outside it (TVM's inferred regions leave them out too) */
static int drop_inner(tir_buffer_region *r, int n, const buf_set *inner) {
  int k = 0;
  for (int i = 0; i < n; i++)
    if (!in_set(inner, r[i].buf)) r[k++] = r[i];
  return k;
}

/* b's reads and writes (ctx-owned arrays b owns) without the buffers
 * allocated at b or inside it */
static void drop_inner_regions(tir_block *b) {
  buf_set inner = {0};
  for (int i = 0; i < b->n_alloc; i++) buf_set_add(&inner, b->alloc_buffers[i]);
  tir_visitor v = {.stmt = collect_allocs, .user = &inner};
  if (b->init) tir_visit_stmt(&v, b->init);
  tir_visit_stmt(&v, b->body);
  b->n_reads = drop_inner(b->reads, b->n_reads, &inner);
  b->n_writes = drop_inner(b->writes, b->n_writes, &inner);
  free(inner.bufs);
}

static tir_buffer_region *copy_regions(tir_ctx *c, const tir_buffer_region *r, int n) {
  tir_buffer_region *out = tir_alloc(c, sizeof *out * (size_t)(n ? n : 1));
  if (n) memcpy(out, r, sizeof *out * (size_t)n);
  return out;
}

static tir_stmt *opaque_block(tir_ctx *c, tir_stmt *body, tir_buffer **alloc, int n) {
  tir_block *b = tir_block_new(c, "");
  b->body = body;
  b->alloc_buffers = alloc;
  b->n_alloc = n;
  tir_block_infer_access(c, b, &b->reads, &b->n_reads, &b->writes, &b->n_writes);
  drop_inner_regions(b);
  return tir_block_realize(c, NULL, 0, NULL, b);
}

static void enter_home(plan *p, tir_buffer **alloc, int n, int by) {
  for (int i = 0; i < n; i++) {
    buf_info *bi = find_buf(p, alloc[i]);
    if (bi) bi->in_scope += by;
  }
}

/* a block's region of an allocated buffer whose new home is not around the
 * block (a T.reads(C[...]) of a block that does not access C, C now
 * allocated in a sibling; or C dropped, never accessed) names a buffer that
 * does not exist there: it goes, as TVM's pass infers the regions again */
static int drop_out_of_scope(plan *p, tir_buffer_region *r, int n) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    buf_info *bi = find_buf(p, r[i].buf);
    if (!bi || (bi->lca && (!bi->lca->stmt || bi->in_scope > 0))) r[k++] = r[i];
  }
  return k;
}

static tir_stmt *relocate(tir_mutator *m, tir_stmt *s) {
  plan *p = m->user;
  if (s->kind == TIR_FOR) {
    int n;
    tir_buffer **alloc = homed_at(p, s, &n);
    if (!n) return NULL;
    tir_stmt *r = tir_stmt_copy(m->ctx, s);
    enter_home(p, alloc, n, 1);
    tir_stmt *body = tir_mutate_stmt(m, s->u.loop.body);
    enter_home(p, alloc, n, -1);
    r->u.loop.body = opaque_block(m->ctx, body, alloc, n);
    return r;
  }
  if (s->kind != TIR_BLOCK_REALIZE) return NULL;
  const tir_block *old = s->u.realize.block;
  tir_block *b = tir_block_copy(m->ctx, old);
  b->alloc_buffers = homed_at(p, s, &b->n_alloc);
  enter_home(p, b->alloc_buffers, b->n_alloc, 1);
  b->init = old->init ? tir_mutate_stmt(m, old->init) : NULL;
  b->body = tir_mutate_stmt(m, old->body);
  enter_home(p, b->alloc_buffers, b->n_alloc, -1);
  b->reads = copy_regions(m->ctx, old->reads, old->n_reads);
  b->writes = copy_regions(m->ctx, old->writes, old->n_writes);
  drop_inner_regions(b);
  b->n_reads = drop_out_of_scope(p, b->reads, b->n_reads);
  b->n_writes = drop_out_of_scope(p, b->writes, b->n_writes);
  if (b->n_reads == old->n_reads && b->n_writes == old->n_writes) {
    b->reads = old->reads;
    b->writes = old->writes;
  }
  if (b->body == old->body && b->init == old->init && b->n_alloc == old->n_alloc && b->reads == old->reads &&
      b->writes == old->writes &&
      (b->n_alloc == 0 || !memcmp(b->alloc_buffers, old->alloc_buffers, sizeof *b->alloc_buffers * (size_t)b->n_alloc)))
    return s;
  tir_stmt *r = tir_stmt_copy(m->ctx, s);
  r->u.realize.block = b;
  return r;
}

tir_func *tir_pass_plan_buffer_allocation(tir_ctx *c, const tir_func *f, tir_diag *d) {
  (void)d;
  plan p = {.c = c};
  p.root = new_scope(&p, NULL); /* the function itself */
  p.cur = p.root;
  walk_stmt(&p, f->body);
  for (int i = 0; i < p.nbufs; i++) {
    if (!p.bufs[i].lca || !is_global(p.bufs[i].buf)) continue;
    for (int j = 0; j < p.nblockidx; j++) p.bufs[i].lca = lca_of(p.bufs[i].lca, p.blockidx[j]);
  }
  keep_carried(&p);
  index_homes(&p);
  tir_func *out = tir_func_copy(c, f);
  tir_mutator m = {.pre_stmt = relocate, .ctx = c, .user = &p};
  tir_stmt *body = tir_mutate_stmt(&m, f->body);
  /* accessed at function level with no enclosing block: give them a root */
  int n;
  tir_buffer **top = homed_at(&p, NULL, &n);
  if (n) {
    tir_block *b = tir_block_new(c, "root");
    b->body = body;
    b->alloc_buffers = top;
    b->n_alloc = n;
    body = tir_block_realize(c, NULL, 0, NULL, b);
  }
  out->body = body;
  free(p.bufs);
  free(p.loops);
  free(p.blockidx);
  free(p.homed_next);
  free(p.acc);
  tir_ptrmap_free(&p.by_buf);
  tir_ptrmap_free(&p.by_data);
  tir_ptrmap_free(&p.by_loop);
  tir_ptrmap_free(&p.home_first);
  return out;
}
