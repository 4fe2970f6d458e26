/* plan_memory.c - PlanMemory (plan_memory): the memory plan of a lowered
 * function (see tir/plan_memory.h).
 *
 *  1. Steps: the leaf statements (stores, evaluates) numbered in program
 *     order; each statement spans the steps of its leaves.
 *  2. Live ranges: a temporary lives from its first touch to its last; a
 *     touch inside a loop (a serial, parallel or vectorized loop, a while,
 *     a thread launch) below the temporary's allocation counts for the
 *     whole outermost such loop.
 *  3. Pools: global temporaries outside kernels share the function's
 *     workspace; shared ones, their kernel's shared memory; local ones (and
 *     those of symbolic size, or declared again under another name) are
 *     left to the compiler.
 *  4. In place: where the store that first writes q is the last statement
 *     to read p, and nothing else touches either while both live, q takes
 *     p's bytes if isl proves that no element of p is read after an element
 *     of q overwrote it: for every two instances of that store, the first
 *     one's write does not meet the bytes the second one reads.  Instances
 *     of concurrent loops (thread launches, parallel, vectorized) count in
 *     either order.  TVM's StorageRewrite asks for textually equal indices.
 *  5. Offsets: the interval packer (tir/memplan.h) per pool, each in-place
 *     group one interval; alignment 64 for C, 256 for a CUDA workspace, 16
 *     for shared memory.
 *  6. The rewrite: one backing buffer per pool (the workspace around the
 *     function's body, the shared array around its kernel's allocations),
 *     each temporary a decl_buffer on it at its offset; a temporary's data
 *     pointer used bare becomes the address of its first element. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ptrmap.h"
#include "tir/analysis.h"
#include "tir/memplan.h"
#include "tir/passes.h"
#include "tir/plan_memory.h"
#include "tir/visit.h"

typedef struct pm_loop { /* an enclosing loop-like statement, or a let */
  const tir_stmt *s;
  int64_t start, end;
  tir_expr *var; /* the loop var (NULL for a while) or the let var */
  tir_expr *min, *extent;
  bool concurrent, is_let;
} pm_loop;

typedef struct pm_range {
  int64_t lo, hi;
} pm_range;

typedef struct pm_alloc {
  const tir_stmt *stmt;
  const tir_buffer *buf;
  tir_memplan_kind pool;
  int kernel;
  const char *why;
  int64_t bytes, esize;
  int depth;                /* loop-stack entries at the allocation */
  int64_t first, end;       /* widened live range; first -1: untouched */
  pm_range *touch;          /* unwidened touches, in walk order */
  int ntouch, tcap;
  int group, last;          /* the group's first member; (first member) its last */
  int shares;               /* whose bytes it took in place, or -1 */
  int64_t offset;
  int node;                 /* the allocation's statement in pm.nodes */
} pm_alloc;

typedef struct pm_node { /* a statement walked, in preorder: the tree of them */
  const tir_stmt *s;
  int parent, depth;
} pm_node;

typedef struct pm_site { /* a store of one temporary whose value reads another */
  const tir_stmt *s;
  int64_t leaf;
  pm_loop *stack;
  int depth;
} pm_site;

typedef struct pm {
  tir_ctx *c;
  tir_diag *d;
  const tir_func *f;
  tir_ptrmap start, end; /* statement -> its steps (+1) */
  int64_t nleaf;
  pm_alloc *a;
  int na, acap;
  tir_ptrmap by_data; /* data var -> alloc + 1 */
  pm_loop *stack;
  int depth, scap;
  pm_node *nodes; /* every statement walked, in preorder (common_ancestor) */
  int nnodes, nodecap, cur;
  int kernel, nkernels;
  const char **kernel_name;
  int kcap;
  pm_site *sites;
  int nsites, sitecap;
  tir_ptrmap written; /* data vars written (or whose address escapes into a call) */
  bool lowered;
  int *kidx, *kstart; /* the allocs of kernel k (-1: none) are kidx[kstart[k + 1] .. kstart[k + 2]) */
} pm;

/* the allocations inside kernel k (k = -1: outside every kernel), so that
 * each pool looks at its own and not at every allocation of the function */
static void bucket_kernels(pm *p) {
  int nk = p->nkernels + 1;
  p->kstart = calloc((size_t)nk + 1, sizeof *p->kstart);
  p->kidx = malloc(sizeof *p->kidx * (size_t)(p->na + 1));
  if (!p->kstart || !p->kidx) abort();
  for (int i = 0; i < p->na; i++) p->kstart[p->a[i].kernel + 2]++;
  for (int k = 1; k <= nk; k++) p->kstart[k] += p->kstart[k - 1];
  int *at = malloc(sizeof *at * (size_t)nk);
  if (!at) abort();
  memcpy(at, p->kstart, sizeof *at * (size_t)nk);
  for (int i = 0; i < p->na; i++) p->kidx[at[p->a[i].kernel + 1]++] = i;
  free(at);
}

static const int *kernel_allocs(const pm *p, int kernel, int *n) {
  *n = p->kstart[kernel + 2] - p->kstart[kernel + 1];
  return p->kidx + p->kstart[kernel + 1];
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) abort();
  return p;
}

/* ---- 1. steps ---- */

static void number(pm *p, const tir_stmt *s) {
  if (!s) return;
  int64_t start = p->nleaf;
  switch (s->kind) {
  case TIR_BUFFER_STORE:
  case TIR_EVALUATE: p->nleaf++; break;
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) number(p, s->u.seq.stmts[i]);
    break;
  case TIR_FOR: number(p, s->u.loop.body); break;
  case TIR_WHILE: number(p, s->u.whl.body); break;
  case TIR_IF:
    number(p, s->u.ifs.then_s);
    number(p, s->u.ifs.else_s);
    break;
  case TIR_LET_STMT: number(p, s->u.let.body); break;
  case TIR_ATTR: number(p, s->u.attr.body); break;
  case TIR_ASSERT: number(p, s->u.assrt.body); break;
  case TIR_ALLOCATE: number(p, s->u.alloc.body); break;
  case TIR_DECL_BUFFER:
  case TIR_ALLOC_BUFFER: number(p, s->u.decl.body); break;
  case TIR_BLOCK_REALIZE: p->lowered = false; break;
  default: break;
  }
  tir_ptrmap_put(&p->start, s, (long)start + 1);
  tir_ptrmap_put(&p->end, s, (long)p->nleaf + 1);
}

static pm_range steps_of(const pm *p, const tir_stmt *s) {
  return (pm_range){tir_ptrmap_get(&p->start, s, 1) - 1, tir_ptrmap_get(&p->end, s, 1) - 1};
}

/* ---- 2. touches and live ranges ---- */

static int alloc_of(const pm *p, const tir_expr *data) { return (int)tir_ptrmap_get(&p->by_data, data, 0) - 1; }

static void touch(pm *p, int i, pm_range r) {
  pm_alloc *a = &p->a[i];
  if (r.hi <= r.lo) return;
  if (a->ntouch == a->tcap) {
    a->tcap = a->tcap ? 2 * a->tcap : 4;
    a->touch = xrealloc(a->touch, sizeof *a->touch * (size_t)a->tcap);
  }
  a->touch[a->ntouch++] = r;
  for (int k = a->depth; k < p->depth; k++) /* the outermost loop below the allocation */
    if (!p->stack[k].is_let) {
      r = (pm_range){p->stack[k].start, p->stack[k].end};
      break;
    }
  if (a->first < 0 || r.lo < a->first) a->first = r.lo;
  if (r.hi > a->end) a->end = r.hi;
}

typedef struct touch_ctx {
  pm *p;
  pm_range r;
  bool in_call; /* inside a call: pointers may be written */
} touch_ctx;

static bool touch_expr_cb(tir_visitor *v, const tir_expr *e) {
  touch_ctx *t = v->user;
  int i = -1;
  if (e->kind == TIR_BUFFER_LOAD) i = alloc_of(t->p, e->u.load.buf->data);
  else if (e->kind == TIR_VAR && e->dtype.code == TIR_TC_HANDLE) i = alloc_of(t->p, e);
  if (i >= 0) touch(t->p, i, t->r);
  if (e->kind == TIR_CALL && !t->in_call) { /* a pointer passed to a call may be written through */
    touch_ctx inner = *t;
    inner.in_call = true;
    tir_visitor w = *v;
    w.user = &inner;
    for (int k = 0; k < e->u.call.nargs; k++) tir_visit_expr(&w, e->u.call.args[k]);
    return false;
  }
  if (t->in_call) {
    const tir_expr *data = NULL;
    if (e->kind == TIR_VAR && e->dtype.code == TIR_TC_HANDLE) data = e;
    if (e->kind == TIR_CALL && !strcmp(e->u.call.op, "address_of") && e->u.call.nargs == 1 &&
        e->u.call.args[0]->kind == TIR_BUFFER_LOAD)
      data = e->u.call.args[0]->u.load.buf->data;
    if (data) tir_ptrmap_put(&t->p->written, data, 1);
  }
  return true;
}

static void touch_expr(pm *p, const tir_expr *e, pm_range r) {
  if (!e) return;
  touch_ctx t = {p, r, false};
  tir_visitor v = {.expr = touch_expr_cb, .user = &t};
  tir_visit_expr(&v, e);
}

static void push(pm *p, pm_loop l) {
  if (p->depth == p->scap) {
    p->scap = p->scap ? 2 * p->scap : 16;
    p->stack = xrealloc(p->stack, sizeof *p->stack * (size_t)p->scap);
  }
  p->stack[p->depth++] = l;
}

static bool is_launch(const tir_stmt *s) {
  return s->kind == TIR_ATTR && s->u.attr.key &&
         (!strcmp(s->u.attr.key, "thread_extent") || !strcmp(s->u.attr.key, "virtual_thread")) &&
         tir_is_var(s->u.attr.node);
}

/* a store of a temporary whose value loads another: where it may go in place */
static void note_site(pm *p, const tir_stmt *s, int64_t leaf);

static void walk(pm *p, const tir_stmt *s);

static void walk_loop(pm *p, const tir_stmt *s, tir_expr *var, tir_expr *min, tir_expr *extent, bool concurrent,
                      const tir_stmt *body) {
  pm_range r = steps_of(p, s);
  push(p, (pm_loop){s, r.lo, r.hi, var, min, extent, concurrent, false});
  walk(p, body);
  p->depth--;
}

static void add_alloc(pm *p, const tir_stmt *s) {
  const tir_buffer *b = s->u.decl.buf;
  if (p->na == p->acap) {
    p->acap = p->acap ? 2 * p->acap : 16;
    p->a = xrealloc(p->a, sizeof *p->a * (size_t)p->acap);
  }
  pm_alloc *a = &p->a[p->na];
  memset(a, 0, sizeof *a);
  a->stmt = s;
  a->buf = b;
  a->kernel = p->kernel;
  a->depth = p->depth;
  a->first = -1;
  a->end = -1;
  a->shares = -1;
  a->group = a->last = p->na;
  a->esize = tir_dtype_bytes(b->dtype);
  a->bytes = a->esize;
  for (int d = 0; d < b->ndim; d++) {
    int64_t v;
    if (!tir_is_const_int(b->shape[d], &v) || v < 0) a->bytes = -1;
    else if (a->bytes >= 0) a->bytes *= v;
  }
  const char *scope = b->scope ? b->scope : "global";
  if (!strncmp(scope, "shared", 6)) {
    a->pool = TIR_MEMPLAN_SHARED;
    if (p->kernel < 0) a->pool = TIR_MEMPLAN_LOCAL, a->why = "shared, outside a kernel";
  } else if (!strcmp(scope, "global")) {
    a->pool = TIR_MEMPLAN_WORKSPACE;
    if (p->kernel >= 0) a->pool = TIR_MEMPLAN_LOCAL, a->why = "global, inside a kernel";
  } else {
    a->pool = TIR_MEMPLAN_LOCAL;
    a->why = "thread-local";
  }
  if (a->pool != TIR_MEMPLAN_LOCAL && a->bytes < 0) a->pool = TIR_MEMPLAN_LOCAL, a->why = "symbolic size";
  if (a->pool != TIR_MEMPLAN_LOCAL && (b->scalar || b->ndim != 1 || b->nstrides))
    a->pool = TIR_MEMPLAN_LOCAL, a->why = "not a flat buffer";
  if (a->pool != TIR_MEMPLAN_LOCAL && a->bytes == 0) a->pool = TIR_MEMPLAN_LOCAL, a->why = "empty";
  /* a place of its own in a TIRx memory pool (TVM 0.27's allocated_addr):
   * not moved into a slot of the plan, which would replace that place */
  if (a->pool != TIR_MEMPLAN_LOCAL && b->naddr) a->pool = TIR_MEMPLAN_LOCAL, a->why = "allocated_addr";
  a->node = p->cur;
  tir_ptrmap_put(&p->by_data, b->data, p->na + 1);
  p->na++;
}

static void walk(pm *p, const tir_stmt *s) {
  if (!s) return;
  if (p->nnodes == p->nodecap) {
    p->nodecap = p->nodecap ? 2 * p->nodecap : 32;
    p->nodes = xrealloc(p->nodes, sizeof *p->nodes * (size_t)p->nodecap);
  }
  int parent = p->cur;
  p->nodes[p->nnodes] = (pm_node){s, parent, parent < 0 ? 0 : p->nodes[parent].depth + 1};
  p->cur = p->nnodes++;
  pm_range r = steps_of(p, s);
  switch (s->kind) {
  case TIR_BUFFER_STORE: {
    int i = alloc_of(p, s->u.store.buf->data);
    if (i >= 0) touch(p, i, r);
    tir_ptrmap_put(&p->written, s->u.store.buf->data, 1);
    for (int k = 0; k < s->u.store.nidx; k++) touch_expr(p, s->u.store.idx[k], r);
    touch_expr(p, s->u.store.value, r);
    if (i >= 0) note_site(p, s, r.lo);
    break;
  }
  case TIR_EVALUATE: touch_expr(p, s->u.eval.value, r); break;
  case TIR_SEQ:
    for (int k = 0; k < s->u.seq.n; k++) walk(p, s->u.seq.stmts[k]);
    break;
  case TIR_FOR: {
    touch_expr(p, s->u.loop.min, r);
    touch_expr(p, s->u.loop.extent, r);
    tir_for_kind k = s->u.loop.kind;
    bool launch = k == TIR_FOR_THREAD_BINDING;
    int kernel = p->kernel;
    if (launch && p->kernel < 0) {
      if (p->nkernels == p->kcap) {
        p->kcap = p->kcap ? 2 * p->kcap : 4;
        p->kernel_name = xrealloc(p->kernel_name, sizeof *p->kernel_name * (size_t)p->kcap);
      }
      p->kernel_name[p->nkernels] = s->u.loop.var->u.var.name;
      p->kernel = p->nkernels++;
    }
    walk_loop(p, s, s->u.loop.var, s->u.loop.min, s->u.loop.extent,
              launch || k == TIR_FOR_PARALLEL || k == TIR_FOR_VECTORIZED, s->u.loop.body);
    p->kernel = kernel;
    break;
  }
  case TIR_WHILE:
    touch_expr(p, s->u.whl.cond, r);
    walk_loop(p, s, NULL, NULL, NULL, false, s->u.whl.body);
    break;
  case TIR_IF:
    touch_expr(p, s->u.ifs.cond, r);
    walk(p, s->u.ifs.then_s);
    walk(p, s->u.ifs.else_s);
    break;
  case TIR_LET_STMT:
    touch_expr(p, s->u.let.value, r);
    push(p, (pm_loop){s, r.lo, r.hi, s->u.let.var, NULL, NULL, false, true});
    walk(p, s->u.let.body);
    p->depth--;
    break;
  case TIR_ATTR:
    touch_expr(p, s->u.attr.value, r);
    if (is_launch(s)) {
      int kernel = p->kernel;
      if (p->kernel < 0) {
        if (p->nkernels == p->kcap) {
          p->kcap = p->kcap ? 2 * p->kcap : 4;
          p->kernel_name = xrealloc(p->kernel_name, sizeof *p->kernel_name * (size_t)p->kcap);
        }
        p->kernel_name[p->nkernels] = s->u.attr.node->u.var.name;
        p->kernel = p->nkernels++;
      }
      tir_expr *zero = tir_int(p->c, s->u.attr.node->dtype, 0);
      walk_loop(p, s, s->u.attr.node, zero, s->u.attr.value, true, s->u.attr.body);
      p->kernel = kernel;
    } else {
      walk(p, s->u.attr.body);
    }
    break;
  case TIR_ASSERT:
    touch_expr(p, s->u.assrt.cond, r);
    touch_expr(p, s->u.assrt.msg, r);
    walk(p, s->u.assrt.body);
    break;
  case TIR_ALLOCATE: walk(p, s->u.alloc.body); break;
  case TIR_ALLOC_BUFFER:
    add_alloc(p, s);
    walk(p, s->u.decl.body);
    break;
  case TIR_DECL_BUFFER: {
    int i = alloc_of(p, s->u.decl.buf->data);
    if (i >= 0 && p->a[i].pool != TIR_MEMPLAN_LOCAL) {
      p->a[i].pool = TIR_MEMPLAN_LOCAL;
      p->a[i].why = "declared again by a decl_buffer";
    }
    walk(p, s->u.decl.body);
    break;
  }
  default: break;
  }
  p->cur = parent;
}

/* ---- 4. in place ---- */

static bool load_of_cb(tir_visitor *v, const tir_expr *e) {
  int *any = v->user;
  if (e->kind == TIR_BUFFER_LOAD) *any = 1;
  return !*any;
}

static void note_site(pm *p, const tir_stmt *s, int64_t leaf) {
  int any = 0;
  tir_visitor v = {.expr = load_of_cb, .user = &any};
  tir_visit_expr(&v, s->u.store.value);
  if (!any) return;
  if (p->nsites == p->sitecap) {
    p->sitecap = p->sitecap ? 2 * p->sitecap : 16;
    p->sites = xrealloc(p->sites, sizeof *p->sites * (size_t)p->sitecap);
  }
  pm_site *t = &p->sites[p->nsites++];
  t->s = s;
  t->leaf = leaf;
  t->depth = p->depth;
  t->stack = xrealloc(NULL, sizeof *t->stack * (size_t)(p->depth + 1));
  if (p->depth) memcpy(t->stack, p->stack, sizeof *t->stack * (size_t)p->depth);
}

typedef struct load_list {
  const tir_expr **loads;
  int n, cap;
  const tir_expr *data;
  bool other; /* the data var met otherwise than in a scalar load */
} load_list;

static bool collect_loads_cb(tir_visitor *v, const tir_expr *e) {
  load_list *l = v->user;
  if (e->kind == TIR_BUFFER_LOAD && e->u.load.buf->data == l->data) {
    if (e->u.load.nidx != 1 || e->dtype.lanes != 1) l->other = true;
    if (l->n == l->cap) {
      l->cap = l->cap ? 2 * l->cap : 4;
      l->loads = xrealloc(l->loads, sizeof *l->loads * (size_t)l->cap);
    }
    l->loads[l->n++] = e;
  } else if (e->kind == TIR_VAR && e == l->data)
    l->other = true;
  return true;
}

/* isl: no instance of the store at site t writes bytes of q that an
 * instance after it (or concurrent with it) reads from p, both at offset 0 */
static bool in_place_safe(pm *p, const pm_site *t, int ip, int iq) {
  const pm_alloc *P = &p->a[ip], *Q = &p->a[iq];
  const tir_stmt *s = t->s;
  if (s->u.store.nidx != 1 || s->u.store.value->dtype.lanes != 1) return false;
  load_list l = {.data = P->buf->data};
  tir_visitor v = {.expr = collect_loads_cb, .user = &l};
  tir_visit_expr(&v, s->u.store.value);
  tir_visit_expr(&v, s->u.store.idx[0]);
  if (l.other || !l.n) {
    free(l.loads);
    return false;
  }
  /* the dimensions: for shared memory every thread launch of the kernel
   * (threads of a block run at once), then the loops below the allocations */
  int from = P->depth;
  const tir_expr **dvar = xrealloc(NULL, sizeof *dvar * (size_t)(t->depth + 1));
  tir_expr **dcopy = xrealloc(NULL, sizeof *dcopy * (size_t)(t->depth + 1));
  bool *dconc = xrealloc(NULL, sizeof *dconc * (size_t)(t->depth + 1));
  int nd = 0;
  bool ok = true;
  for (int k = 0; k < t->depth; k++) {
    const pm_loop *L = &t->stack[k];
    const char *tag = L->s->kind == TIR_ATTR ? L->s->u.attr.thread_tag
                      : L->s->kind == TIR_FOR && L->s->u.loop.kind == TIR_FOR_THREAD_BINDING ? L->s->u.loop.thread_tag
                                                                                             : NULL;
    if (L->s->kind == TIR_ATTR && !tag) tag = L->var ? L->var->u.var.name : NULL;
    /* the threads of a block share its shared memory; blocks do not */
    bool thread = tag && strncmp(tag, "blockIdx", 8) != 0;
    bool dim = k >= from || (Q->pool == TIR_MEMPLAN_SHARED && thread);
    if (L->is_let) {
      if (k >= from || (Q->pool == TIR_MEMPLAN_SHARED && nd)) ok = false; /* its value may vary by dimension */
      continue;
    }
    if (!L->var) { /* a while below the allocation: its instances are not numbered */
      if (dim) ok = false;
      continue;
    }
    if (!dim) continue;
    dvar[nd] = L->var;
    dconc[nd] = L->concurrent;
    nd++;
  }
  tir_analyzer *an = ok ? tir_analyzer_new(p->c, NULL) : NULL;
  tir_var_map m = {0};
  for (int k = 0; ok && k < nd; k++) {
    dcopy[k] = tir_var(p->c, dvar[k]->u.var.name, dvar[k]->dtype);
    tir_var_map_set(&m, dvar[k], dcopy[k]);
  }
  /* ranges: every enclosing loop's var, and the copies' */
  for (int k = 0; ok && k < t->depth; k++) {
    const pm_loop *L = &t->stack[k];
    if (L->is_let || !L->var || !L->min) continue;
    tir_analyzer_bind_range(an, L->var, L->min, L->extent);
    for (int j = 0; j < nd; j++)
      if (dvar[j] == L->var)
        tir_analyzer_bind_range(an, dcopy[j], tir_substitute_expr(p->c, L->min, &m),
                                tir_substitute_expr(p->c, L->extent, &m));
  }
  /* the claim: not (y after x, or concurrent with it, and q's write at x
   * meets a read of p at y) */
  tir_ctx *c = p->c;
  tir_expr *claim = NULL;
  if (ok) {
    tir_expr *before = NULL, *prefix = NULL;
    for (int k = 0; k < nd; k++) {
      tir_expr *x = (tir_expr *)dvar[k], *y = dcopy[k];
      tir_expr *step = tir_binary(c, dconc[k] ? TIR_NE : TIR_LT, x, y);
      if (prefix) step = tir_binary(c, TIR_AND, prefix, step);
      before = before ? tir_binary(c, TIR_OR, before, step) : step;
      tir_expr *eq = tir_binary(c, TIR_EQ, x, y);
      prefix = prefix ? tir_binary(c, TIR_AND, prefix, eq) : eq;
    }
    tir_expr *w = tir_cast(c, TIR_INT64, s->u.store.idx[0]);
    int64_t sw = tir_dtype_bytes(s->u.store.value->dtype);
    tir_expr *wlo = tir_binary(c, TIR_MUL, w, tir_int(c, TIR_INT64, sw));
    tir_expr *whi = tir_binary(c, TIR_ADD, wlo, tir_int(c, TIR_INT64, sw));
    tir_expr *meets = NULL;
    for (int k = 0; k < l.n; k++) {
      const tir_expr *ld = l.loads[k];
      int64_t sr = tir_dtype_bytes(ld->dtype);
      tir_expr *r = tir_cast(c, TIR_INT64, tir_substitute_expr(c, ld->u.load.idx[0], &m));
      tir_expr *rlo = tir_binary(c, TIR_MUL, r, tir_int(c, TIR_INT64, sr));
      tir_expr *rhi = tir_binary(c, TIR_ADD, rlo, tir_int(c, TIR_INT64, sr));
      tir_expr *mk = tir_binary(c, TIR_AND, tir_binary(c, TIR_LT, wlo, rhi), tir_binary(c, TIR_LT, rlo, whi));
      meets = meets ? tir_binary(c, TIR_OR, meets, mk) : mk;
    }
    /* a var defined between the loops (a let) would stand for different
     * values in the two instances: checked above; one that is neither a
     * dimension nor defined outside them cannot occur in lowered IR */
    tir_expr *bad = before ? tir_binary(c, TIR_AND, before, meets) : NULL;
    claim = bad ? tir_not(c, bad) : NULL;
  }
  bool proved = ok && claim && tir_can_prove(an, claim);
  if (an) tir_analyzer_free(an);
  tir_var_map_free(&m);
  free(dvar);
  free(dcopy);
  free(dconc);
  free(l.loads);
  return proved;
}

/* every unwidened touch of a within [lo, hi) is exactly step `leaf` */
static bool only_at(const pm_alloc *a, int64_t lo, int64_t hi, int64_t leaf) {
  for (int k = 0; k < a->ntouch; k++) {
    pm_range r = a->touch[k];
    if (r.hi <= lo || r.lo >= hi) continue;
    if (r.lo != leaf || r.hi != leaf + 1) return false;
  }
  return true;
}

static int64_t last_leaf(const pm_alloc *a) {
  int64_t m = -1;
  for (int k = 0; k < a->ntouch; k++)
    if (a->touch[k].hi - 1 > m) m = a->touch[k].hi - 1;
  return m;
}

static int64_t first_leaf(const pm_alloc *a) {
  int64_t m = -1;
  for (int k = 0; k < a->ntouch; k++)
    if (m < 0 || a->touch[k].lo < m) m = a->touch[k].lo;
  return m;
}

static bool plannable(const pm_alloc *a) { return a->pool != TIR_MEMPLAN_LOCAL && a->first >= 0; }

typedef struct data_list {
  const pm *p;
  int *allocs;
  int n, cap;
} data_list;

static bool loaded_allocs_cb(tir_visitor *v, const tir_expr *e) {
  data_list *l = v->user;
  if (e->kind != TIR_BUFFER_LOAD) return true;
  int i = alloc_of(l->p, e->u.load.buf->data);
  if (i < 0) return true;
  for (int k = 0; k < l->n; k++)
    if (l->allocs[k] == i) return true;
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 4;
    l->allocs = xrealloc(l->allocs, sizeof *l->allocs * (size_t)l->cap);
  }
  l->allocs[l->n++] = i;
  return true;
}

static void in_place(pm *p) {
  int64_t *gbytes = xrealloc(NULL, sizeof *gbytes * (size_t)(p->na + 1)); /* each group's largest member */
  for (int i = 0; i < p->na; i++) gbytes[i] = p->a[i].bytes;
  for (int t = 0; t < p->nsites; t++) {
    const pm_site *site = &p->sites[t];
    int iq = alloc_of(p, site->s->u.store.buf->data);
    if (iq < 0 || !plannable(&p->a[iq]) || p->a[iq].group != iq || p->a[iq].last != iq) continue;
    pm_alloc *Q = &p->a[iq];
    if (first_leaf(Q) != site->leaf) continue;
    data_list l = {p, NULL, 0, 0};
    tir_visitor v = {.expr = loaded_allocs_cb, .user = &l};
    tir_visit_expr(&v, site->s->u.store.value);
    for (int c = 0; c < l.n; c++) {
      int ip = l.allocs[c];
      pm_alloc *P = &p->a[ip];
      if (ip == iq || !plannable(P) || P->pool != Q->pool || P->kernel != Q->kernel || P->depth != Q->depth) continue;
      if (p->a[P->group].last != ip || last_leaf(P) != site->leaf) continue;
      if (Q->bytes > gbytes[P->group]) continue; /* q within the bytes the group has */
      if (!only_at(P, Q->first, P->end, site->leaf) || !only_at(Q, Q->first, P->end, site->leaf)) continue;
      if (!in_place_safe(p, site, ip, iq)) continue;
      int g = P->group;
      Q->group = g;
      p->a[g].last = iq;
      Q->shares = ip;
      break;
    }
    free(l.allocs);
  }
  free(gbytes);
}

/* ---- 5. offsets ---- */

typedef struct pm_pool {
  tir_memplan_kind kind;
  int kernel;
  int64_t align, bytes, lower_bound, no_reuse;
  bool proven;
  const char *winner;
  tir_buffer *backing;
  const tir_stmt *at; /* shared: the statement the backing goes around */
} pm_pool;

static int64_t pow2_at_least(int64_t a, int64_t v) {
  while (a < v) a *= 2;
  return a;
}

static bool plan_pool(pm *p, pm_pool *pool, const tir_memplan_opts *o, int *slot) {
  int n = 0, nk;
  const int *ks = kernel_allocs(p, pool->kernel, &nk);
  for (int x = 0; x < nk; x++) {
    int i = ks[x];
    pm_alloc *a = &p->a[i];
    if (!plannable(a) || a->pool != pool->kind || a->kernel != pool->kernel) continue;
    pool->align = pow2_at_least(pool->align, a->esize);
    pool->no_reuse += (a->bytes + pool->align - 1) / pool->align * pool->align;
    if (a->group == i) n++;
  }
  if (!n) return false;
  tir_interval *iv = xrealloc(NULL, sizeof *iv * (size_t)n);
  int *leader = xrealloc(NULL, sizeof *leader * (size_t)n);
  const char **names = xrealloc(NULL, sizeof *names * (size_t)n);
  /* slot: group leader -> interval (set for this pool's leaders only) */
  int k = 0;
  for (int x = 0; x < nk; x++) {
    int i = ks[x];
    pm_alloc *a = &p->a[i];
    slot[i] = -1;
    if (!plannable(a) || a->pool != pool->kind || a->kernel != pool->kernel || a->group != i) continue;
    slot[i] = k;
    iv[k] = (tir_interval){a->first, a->end, a->bytes, 0};
    leader[k] = i;
    names[k] = a->buf->name;
    k++;
  }
  for (int x = 0; x < nk; x++) {
    pm_alloc *a = &p->a[ks[x]];
    if (!plannable(a) || a->pool != pool->kind || a->kernel != pool->kernel) continue;
    tir_interval *g = &iv[slot[a->group]];
    if (a->first < g->lower) g->lower = a->first;
    if (a->end > g->upper) g->upper = a->end;
    if (a->bytes > g->size) g->size = a->bytes;
  }
  if (o->no_reuse)
    for (int j = 0; j < n; j++) iv[j].lower = 0, iv[j].upper = p->nleaf + 1;
  tir_plan_options po = {.alignment = pool->align, .node_budget = o->node_budget, .names = names};
  tir_plan_stats st;
  tir_diag d;
  tir_diag_init(&d);
  bool ok = tir_plan_intervals(iv, n, &po, &st, &d) == 0;
  if (!ok) {
    for (int i = 0; i < d.n; i++) tir_error(p->d, p->f->span, "PlanMemory: %s", d.items[i].msg);
  } else {
    for (int x = 0; x < nk; x++) {
      pm_alloc *a = &p->a[ks[x]];
      if (plannable(a) && a->pool == pool->kind && a->kernel == pool->kernel) a->offset = iv[slot[a->group]].offset;
    }
    pool->bytes = (st.arena + pool->align - 1) / pool->align * pool->align;
    pool->lower_bound = st.lower_bound;
    pool->proven = st.proven_optimal;
    pool->winner = st.winner;
  }
  tir_diag_free(&d);
  free(iv);
  free(leader);
  free(names);
  return ok;
}

/* ---- 6. the rewrite ---- */

typedef struct rw {
  pm *p;
  pm_pool *pools;
  int npools;
  tir_ptrmap view; /* original buffer -> view + 1 (index into views) */
  tir_buffer **views;
  tir_ptrmap data; /* original data var -> alloc + 1 */
  tir_ptrmap is_view;
  tir_ptrmap at_pool; /* statement -> the first shared pool (+ 1) that goes around it */
  const tir_stmt *wrapping;
} rw;

static tir_buffer *rw_buffer(tir_mutator *m, tir_buffer *b) {
  rw *r = m->user;
  long v = tir_ptrmap_get(&r->view, b, 0);
  return v ? r->views[v - 1] : b;
}

static tir_expr *rw_expr(tir_mutator *m, tir_expr *e) {
  rw *r = m->user;
  if (e->kind != TIR_VAR || e->dtype.code != TIR_TC_HANDLE) return e;
  long i = tir_ptrmap_get(&r->data, e, 0);
  if (!i) return e;
  tir_buffer *view = r->views[tir_ptrmap_get(&r->view, r->p->a[i - 1].buf, 0) - 1];
  tir_expr *zero = tir_int(m->ctx, view->elem_offset->dtype, 0);
  tir_expr *ld = tir_load(m->ctx, view, &zero, 1);
  return tir_call(m->ctx, TIR_HANDLE, "address_of", &ld, 1);
}

static tir_attr_val *pool_annotations(tir_ctx *c, const char *pool, const char *mode) {
  const char *keys[] = {"tir.memory_pool", "tir.workspace"};
  tir_attr_val *items[] = {tir_av_expr(c, tir_string(c, pool)), mode ? tir_av_expr(c, tir_string(c, mode)) : NULL};
  return tir_av_dict(c, keys, items, mode ? 2 : 1);
}

static tir_stmt *rw_stmt(tir_mutator *m, tir_stmt *s) {
  rw *r = m->user;
  if (s->kind != TIR_ALLOC_BUFFER || !tir_ptrmap_get(&r->is_view, s->u.decl.buf, 0)) return s;
  return tir_decl_buffer(m->ctx, s->u.decl.buf, s->u.decl.body); /* a planned temporary: now a view */
}

static tir_stmt *rw_pre(tir_mutator *m, tir_stmt *s) {
  rw *r = m->user;
  if (s == r->wrapping) return NULL;
  long i = tir_ptrmap_get(&r->at_pool, s, 0);
  if (i) {
    pm_pool *pool = &r->pools[i - 1];
    const tir_stmt *saved = r->wrapping;
    r->wrapping = s;
    tir_stmt *body = tir_mutate_stmt(m, s);
    r->wrapping = saved;
    return tir_alloc_buffer_annotated(m->ctx, pool->backing, pool_annotations(m->ctx, "shared", NULL), body);
  }
  return NULL;
}

static tir_buffer *backing(tir_ctx *c, const char *name, const char *scope, int64_t bytes, int64_t align) {
  tir_expr *n = tir_int(c, TIR_INT32, bytes);
  tir_buffer *b = tir_buffer_new(c, name, TIR_UINT8, &n, 1, NULL, 0, NULL, scope, (int)align, 0, NULL);
  return b;
}

/* the deepest statement above all of a kernel's planned shared temporaries */
static const tir_stmt *common_ancestor(const pm *p, int kernel) {
  /* the common ancestor of the first and the last in preorder: the climb
   * stays inside the kernel, so all kernels' climbs together are linear */
  int u = -1, v = -1, nk;
  const int *ks = kernel_allocs(p, kernel, &nk);
  for (int x = 0; x < nk; x++) {
    const pm_alloc *a = &p->a[ks[x]];
    if (!plannable(a) || a->pool != TIR_MEMPLAN_SHARED || a->kernel != kernel) continue;
    if (u < 0 || a->node < u) u = a->node;
    if (v < 0 || a->node > v) v = a->node;
  }
  if (u < 0) return NULL;
  while (p->nodes[u].depth > p->nodes[v].depth) u = p->nodes[u].parent;
  while (p->nodes[v].depth > p->nodes[u].depth) v = p->nodes[v].parent;
  while (u != v) u = p->nodes[u].parent, v = p->nodes[v].parent;
  return p->nodes[u].s;
}

/* ---- the report ---- */

static void add_value(tir_memplan_alloc *al, const tir_buffer *b, int64_t bytes, int64_t offset, int64_t first,
                      int64_t end, const char *shares) {
  al->values = xrealloc(al->values, sizeof *al->values * (size_t)(al->nvalues + 1));
  tir_memplan_value *v = &al->values[al->nvalues++];
  memset(v, 0, sizeof *v);
  v->name = b->name;
  v->dtype = b->dtype;
  v->ndim = b->ndim;
  v->shape = xrealloc(NULL, sizeof *v->shape * (size_t)(b->ndim + 1));
  for (int d = 0; d < b->ndim; d++)
    if (!tir_is_const_int(b->shape[d], &v->shape[d])) v->shape[d] = -1;
  v->bytes = bytes;
  v->offset = offset;
  v->first = first;
  v->end = end;
  v->shares = shares;
}

static tir_memplan_alloc *new_alloc(tir_memplan_report *r, tir_memplan_kind kind) {
  r->allocs = xrealloc(r->allocs, sizeof *r->allocs * (size_t)(r->nallocs + 1));
  tir_memplan_alloc *al = &r->allocs[r->nallocs++];
  memset(al, 0, sizeof *al);
  al->kind = kind;
  al->param = -1;
  return al;
}

static void report(pm *p, pm_pool *pools, int npools, tir_memplan_report *r) {
  memset(r, 0, sizeof *r);
  r->func = p->f->name;
  r->steps = p->nleaf;
  for (int i = 0; i < p->f->nparams; i++) {
    const tir_buffer *b = p->f->buffer_map ? p->f->buffer_map[i] : NULL;
    if (!b) continue;
    tir_memplan_alloc *al = new_alloc(r, TIR_MEMPLAN_PARAM);
    al->param = i;
    al->live_out = tir_ptrmap_get(&p->written, b->data, 0) != 0;
    int64_t bytes = tir_dtype_bytes(b->dtype);
    for (int d = 0; d < b->ndim; d++) {
      int64_t v;
      if (!tir_is_const_int(b->shape[d], &v)) bytes = -1;
      else if (bytes >= 0) bytes *= v;
    }
    al->size = bytes;
    add_value(al, b, bytes, 0, 0, p->nleaf, NULL);
  }
  for (int k = 0; k < npools; k++) {
    pm_pool *pool = &pools[k];
    tir_memplan_alloc *al = new_alloc(r, pool->kind);
    al->kernel = pool->kind == TIR_MEMPLAN_SHARED ? p->kernel_name[pool->kernel] : NULL;
    al->size = pool->bytes;
    al->lower_bound = pool->lower_bound;
    al->no_reuse_bytes = pool->no_reuse;
    al->proven_optimal = pool->proven;
    al->winner = pool->winner;
    int nk;
    const int *ks = kernel_allocs(p, pool->kernel, &nk);
    for (int x = 0; x < nk; x++) {
      pm_alloc *a = &p->a[ks[x]];
      if (!plannable(a) || a->pool != pool->kind || a->kernel != pool->kernel) continue;
      add_value(al, a->buf, a->bytes, a->offset, a->first, a->end, a->shares >= 0 ? p->a[a->shares].buf->name : NULL);
    }
  }
  for (int i = 0; i < p->na; i++) {
    pm_alloc *a = &p->a[i];
    if (plannable(a)) continue;
    tir_memplan_alloc *al = new_alloc(r, TIR_MEMPLAN_LOCAL);
    al->why = a->first < 0 ? "never touched" : a->why;
    al->size = a->bytes;
    add_value(al, a->buf, a->bytes, 0, a->first, a->end, NULL);
  }
}

void tir_memplan_report_free(tir_memplan_report *r) {
  if (!r) return;
  for (int i = 0; i < r->nallocs; i++) {
    for (int j = 0; j < r->allocs[i].nvalues; j++) free(r->allocs[i].values[j].shape);
    free(r->allocs[i].values);
  }
  free(r->allocs);
  memset(r, 0, sizeof *r);
}

/* ---- the pass ---- */

static bool launches_threads_cb(tir_visitor *v, const tir_stmt *s) {
  if (is_launch(s) || (s->kind == TIR_FOR && s->u.loop.kind == TIR_FOR_THREAD_BINDING)) *(bool *)v->user = true;
  return !*(bool *)v->user;
}

static void pm_free(pm *p) {
  for (int i = 0; i < p->na; i++) {
    free(p->a[i].touch);
  }
  free(p->a);
  for (int i = 0; i < p->nsites; i++) free(p->sites[i].stack);
  free(p->sites);
  free(p->stack);
  free(p->nodes);
  free(p->kernel_name);
  tir_ptrmap_free(&p->start);
  tir_ptrmap_free(&p->end);
  tir_ptrmap_free(&p->by_data);
  tir_ptrmap_free(&p->written);
  free(p->kidx);
  free(p->kstart);
}

tir_func *tir_plan_memory(tir_ctx *c, const tir_func *f, const tir_memplan_opts *o, tir_memplan_report *r,
                          tir_diag *d) {
  tir_memplan_opts dflt = {0};
  if (!o) o = &dflt;
  bool cuda = o->target == TIR_MEMPLAN_CUDA;
  if (o->target == TIR_MEMPLAN_AUTO) {
    tir_visitor v = {.stmt = launches_threads_cb, .user = &cuda};
    tir_visit_stmt(&v, f->body);
  }
  pm p = {0};
  p.c = c;
  p.d = d;
  p.f = f;
  p.kernel = -1;
  p.cur = -1;
  p.lowered = true;
  number(&p, f->body);
  if (!p.lowered) {
    tir_error(d, f->span, "PlanMemory: function '%s' is not lowered: run the lowering passes (--passes=default) first",
              f->name);
    pm_free(&p);
    return NULL;
  }
  walk(&p, f->body);
  if (!o->no_reuse) in_place(&p);
  bucket_kernels(&p);
  int *slot = xrealloc(NULL, sizeof *slot * (size_t)(p.na + 1)); /* plan_pool's */
  /* the pools */
  int npools = 0;
  pm_pool *pools = xrealloc(NULL, sizeof *pools * (size_t)(p.nkernels + 1));
  int nerr = d ? d->n : 0;
  bool failed = false;
  {
    pm_pool ws = {TIR_MEMPLAN_WORKSPACE, -1, cuda ? 256 : 64, 0, 0, 0, false, NULL, NULL, NULL};
    if (plan_pool(&p, &ws, o, slot)) pools[npools++] = ws;
    else if (d && d->n > nerr) failed = true;
  }
  for (int k = 0; k < p.nkernels && !failed; k++) {
    pm_pool sh = {TIR_MEMPLAN_SHARED, k, 16, 0, 0, 0, false, NULL, NULL, NULL};
    /* a shared pool that saves nothing (every temporary lives with every
     * other) is not made: separate __shared__ arrays, as TVM keeps them,
     * whose accesses nvcc vectorizes better (dlight's matmul tile: 28 float4
     * and 8 float2 shared loads, against 24 and 16 through one pool) */
    bool planned = plan_pool(&p, &sh, o, slot);
    if (planned && sh.bytes < sh.no_reuse) {
      sh.at = common_ancestor(&p, k);
      pools[npools++] = sh;
    } else if (planned) {
      int nk;
      const int *ks = kernel_allocs(&p, k, &nk);
      for (int x = 0; x < nk; x++) {
        int i = ks[x];
        if (plannable(&p.a[i]) && p.a[i].pool == TIR_MEMPLAN_SHARED && p.a[i].kernel == k)
          p.a[i].pool = TIR_MEMPLAN_LOCAL, p.a[i].why = "shared, and one array for the kernel's would save nothing";
      }
    } else if (d && d->n > nerr)
      failed = true;
  }
  free(slot);
  if (failed) {
    free(pools);
    pm_free(&p);
    return NULL;
  }
  if (r) report(&p, pools, npools, r);
  tir_func *out = (tir_func *)f;
  if (npools) {
    rw w = {0};
    w.p = &p;
    w.pools = pools;
    w.npools = npools;
    w.views = xrealloc(NULL, sizeof *w.views * (size_t)(p.na + 1));
    int nv = 0;
    for (int k = 0; k < npools; k++) {
      pm_pool *pool = &pools[k];
      char name[128];
      if (pool->kind == TIR_MEMPLAN_WORKSPACE) snprintf(name, sizeof name, "workspace");
      else snprintf(name, sizeof name, "%s_shared", p.kernel_name[pool->kernel]);
      pool->backing = backing(c, name, pool->kind == TIR_MEMPLAN_WORKSPACE ? "global" : "shared", pool->bytes,
                              pool->align);
      int nk;
      const int *ks = kernel_allocs(&p, pool->kernel, &nk);
      for (int x = 0; x < nk; x++) {
        int i = ks[x];
        pm_alloc *a = &p.a[i];
        if (!plannable(a) || a->pool != pool->kind || a->kernel != pool->kernel) continue;
        if (!pool->backing->span.line) pool->backing->span = a->stmt->span.line ? a->stmt->span : a->buf->span;
        tir_buffer *v = tir_buffer_copy(c, a->buf);
        v->data = pool->backing->data;
        tir_dtype odt = a->buf->elem_offset ? a->buf->elem_offset->dtype : TIR_INT32;
        v->elem_offset = tir_int(c, odt, a->offset / a->esize);
        w.views[nv++] = v;
        tir_ptrmap_put(&w.is_view, v, 1);
        tir_ptrmap_put(&w.view, a->buf, nv);
        tir_ptrmap_put(&w.data, a->buf->data, i + 1);
      }
    }
    for (int k = npools - 1; k >= 0; k--)
      if (pools[k].kind == TIR_MEMPLAN_SHARED && pools[k].at && pools[k].backing) tir_ptrmap_put(&w.at_pool, pools[k].at, k + 1);
    tir_mutator m = {.expr = rw_expr, .stmt = rw_stmt, .pre_stmt = rw_pre, .buffer = rw_buffer, .ctx = c, .user = &w};
    out = tir_func_copy(c, f);
    out->body = tir_mutate_stmt(&m, f->body);
    for (int k = 0; k < npools; k++)
      if (pools[k].kind == TIR_MEMPLAN_WORKSPACE)
        out->body = tir_alloc_buffer_annotated(c, pools[k].backing, pool_annotations(c, "workspace", o->workspace && strcmp(o->workspace, "malloc") ? o->workspace : NULL), out->body);
    free(w.views);
    tir_ptrmap_free(&w.view);
    tir_ptrmap_free(&w.data);
    tir_ptrmap_free(&w.is_view);
    tir_ptrmap_free(&w.at_pool);
  }
  free(pools);
  pm_free(&p);
  return out;
}

tir_func *tir_pass_plan_memory(tir_ctx *c, const tir_func *f, tir_diag *d) { return tir_plan_memory(c, f, NULL, NULL, d); }

/* ---- the text of the report, in XLA's grammar ---- */

typedef struct sbuf {
  char *s;
  size_t n, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void sb_printf(sbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (b->n + (size_t)k + 1 > b->cap) {
    b->cap = (b->n + (size_t)k + 1) * 2;
    b->s = xrealloc(b->s, b->cap);
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)k;
}

/* XLA's primitive type names */
static void xla_type(tir_dtype t, char *out, size_t cap) {
  const char *base;
  char tmp[16];
  switch (t.code) {
  case TIR_TC_INT: base = "s"; break;
  case TIR_TC_UINT: base = t.bits == 1 ? "pred" : "u"; break;
  case TIR_TC_FLOAT: base = "f"; break;
  case TIR_TC_BFLOAT: base = "bf"; break;
  default: base = "opaque"; break;
  }
  if (!strcmp(base, "pred") || !strcmp(base, "opaque")) snprintf(tmp, sizeof tmp, "%s", base);
  else snprintf(tmp, sizeof tmp, "%s%d", base, t.bits);
  if (t.lanes > 1) snprintf(out, cap, "%sx%d", tmp, t.lanes);
  else snprintf(out, cap, "%s", tmp);
}

static void shape_text(sbuf *b, const tir_memplan_value *v) {
  char t[24];
  xla_type(v->dtype, t, sizeof t);
  sb_printf(b, "%s[", t);
  for (int d = 0; d < v->ndim; d++) {
    if (v->shape[d] >= 0) sb_printf(b, "%s%lld", d ? "," : "", (long long)v->shape[d]);
    else sb_printf(b, "%s?", d ? "," : "");
  }
  sb_printf(b, "]");
}

static void human_bytes(sbuf *b, int64_t n) {
  double x = (double)n;
  if (n < 1024) sb_printf(b, "%lldB", (long long)n);
  else if (n < 1024 * 1024) sb_printf(b, "%.2fKiB", x / 1024);
  else if (n < 1024LL * 1024 * 1024) sb_printf(b, "%.2fMiB", x / (1024.0 * 1024));
  else sb_printf(b, "%.2fGiB", x / (1024.0 * 1024 * 1024));
}

/* the peak of the live bytes over steps 0 .. steps - 1 (the first step at
 * the largest), a value and the one it took in place of (live together at
 * the step that hands over) counted once: a sweep over the ranges' ends, not
 * a count of every value at every step */
typedef struct pk_event {
  int64_t at, delta;
} pk_event;

static int cmp_event(const void *a, const void *b) {
  int64_t x = ((const pk_event *)a)->at, y = ((const pk_event *)b)->at;
  return x < y ? -1 : x > y;
}

static int cmp_value_name(const void *a, const void *b) {
  return strcmp((*(const tir_memplan_value *const *)a)->name, (*(const tir_memplan_value *const *)b)->name);
}

static void add_range(pk_event **ev, int *n, int *cap, int64_t lo, int64_t hi, int64_t steps, int64_t delta) {
  if (lo < 0) lo = 0;
  if (hi > steps) hi = steps;
  if (lo >= hi || !delta) return;
  if (*n + 2 > *cap) {
    *cap = *cap ? 2 * *cap : 64;
    *ev = xrealloc(*ev, sizeof **ev * (size_t)*cap);
  }
  (*ev)[(*n)++] = (pk_event){lo, delta};
  (*ev)[(*n)++] = (pk_event){hi, -delta};
}

static void peak_live(const tir_memplan_report *r, int64_t *peak, int64_t *peak_at) {
  pk_event *ev = NULL;
  int n = 0, cap = 0;
  for (int i = 0; i < r->nallocs; i++) {
    const tir_memplan_alloc *al = &r->allocs[i];
    const tir_memplan_value **by_name = NULL;
    for (int j = 0; j < al->nvalues; j++) {
      const tir_memplan_value *v = &al->values[j];
      if (v->bytes <= 0) continue;
      add_range(&ev, &n, &cap, v->first, v->end, r->steps, v->bytes);
      if (!v->shares) continue;
      if (!by_name) { /* the alloc's values by name, for the ones shared */
        by_name = xrealloc(NULL, sizeof *by_name * (size_t)al->nvalues);
        for (int k = 0; k < al->nvalues; k++) by_name[k] = &al->values[k];
        qsort(by_name, (size_t)al->nvalues, sizeof *by_name, cmp_value_name);
      }
      int lo = 0, hi = al->nvalues; /* the first named v->shares */
      while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (strcmp(by_name[mid]->name, v->shares) < 0) lo = mid + 1;
        else hi = mid;
      }
      for (int k = lo; k < al->nvalues && !strcmp(by_name[k]->name, v->shares); k++) {
        const tir_memplan_value *w = by_name[k];
        add_range(&ev, &n, &cap, v->first > w->first ? v->first : w->first, v->end < w->end ? v->end : w->end,
                  r->steps, -(w->bytes < v->bytes ? w->bytes : v->bytes));
      }
    }
    free(by_name);
  }
  qsort(ev, (size_t)n, sizeof *ev, cmp_event);
  *peak = -1;
  *peak_at = 0;
  int64_t live = 0;
  if (r->steps > 0 && (!n || ev[0].at > 0)) *peak = 0; /* step 0, before any range */
  for (int k = 0; k < n;) {
    int64_t at = ev[k].at;
    for (; k < n && ev[k].at == at; k++) live += ev[k].delta;
    if (at < r->steps && live > *peak) *peak = live, *peak_at = at;
  }
  free(ev);
}

char *tir_memplan_report_text(const tir_memplan_report *r) {
  sbuf b = {0};
  sb_printf(&b, "BufferAssignment:\n");
  int64_t total = 0;
  int vid = 0;
  for (int i = 0; i < r->nallocs; i++) {
    const tir_memplan_alloc *al = &r->allocs[i];
    sb_printf(&b, "allocation %d: size %lld", i, (long long)al->size);
    switch (al->kind) {
    case TIR_MEMPLAN_PARAM:
      sb_printf(&b, ", parameter %d, shape |", al->param);
      shape_text(&b, &al->values[0]);
      sb_printf(&b, "| at ShapeIndex {}%s:\n", al->live_out ? ", maybe-live-out" : "");
      break;
    case TIR_MEMPLAN_WORKSPACE: sb_printf(&b, ", preallocated-temp:\n"); break;
    case TIR_MEMPLAN_SHARED: sb_printf(&b, ", preallocated-temp, color 1 (shared memory of kernel %s):\n", al->kernel); break;
    default:
      if (!al->why || !strcmp(al->why, "thread-local")) sb_printf(&b, ", thread-local:\n");
      else sb_printf(&b, ", thread-local (not planned: %s):\n", al->why);
      break;
    }
    if (al->size > 0) total += al->size;
    for (int j = 0; j < al->nvalues; j++) {
      const tir_memplan_value *v = &al->values[j];
      sb_printf(&b, " value: <%d %s @0> (size=%lld,offset=%lld): ", vid++, v->name, (long long)v->bytes,
                (long long)v->offset);
      shape_text(&b, v);
      if (v->shares) sb_printf(&b, " (in place of %s)", v->shares);
      sb_printf(&b, "\n");
    }
  }
  sb_printf(&b, "\nTotal bytes used: %lld (", (long long)total);
  human_bytes(&b, total);
  sb_printf(&b, ")\n\n");
  /* live ranges and the peak (in-place values count once) */
  sb_printf(&b, "HloLiveRange (max %lld):\n  BufferLiveRange:\n", (long long)r->steps);
  for (int i = 0; i < r->nallocs; i++)
    for (int j = 0; j < r->allocs[i].nvalues; j++) {
      const tir_memplan_value *v = &r->allocs[i].values[j];
      if (v->first < 0) continue;
      sb_printf(&b, "    %s{}:%lld-%lld\n", v->name, (long long)v->first, (long long)(v->end - 1));
    }
  /* the peak: values live at a step, a value and the one it took in place
   * of (live together at the step that hands over) counted once */
  int64_t peak_at = 0, peak = -1;
  peak_live(r, &peak, &peak_at);
  if (peak >= 0) {
    sb_printf(&b, "  Live ranges at %lld (peak):\n", (long long)peak_at);
    for (int i = 0; i < r->nallocs; i++)
      for (int j = 0; j < r->allocs[i].nvalues; j++) {
        const tir_memplan_value *v = &r->allocs[i].values[j];
        if (v->first <= peak_at && peak_at < v->end)
          sb_printf(&b, "    %s: %lld bytes\n", v->name, (long long)v->bytes);
      }
  }
  /* one stats line per planned pool */
  for (int i = 0; i < r->nallocs; i++) {
    const tir_memplan_alloc *al = &r->allocs[i];
    if (al->kind != TIR_MEMPLAN_WORKSPACE && al->kind != TIR_MEMPLAN_SHARED) continue;
    double frag = al->lower_bound ? 100.0 * (double)(al->size - al->lower_bound) / (double)al->lower_bound : 0;
    if (al->kind == TIR_MEMPLAN_WORKSPACE) sb_printf(&b, "memory plan: %s: workspace", r->func);
    else sb_printf(&b, "memory plan: %s: shared memory of kernel %s", r->func, al->kernel);
    sb_printf(&b, " %lld bytes, lower bound %lld, fragmentation %.2f %%, %s, %lld bytes without reuse\n",
              (long long)al->size, (long long)al->lower_bound, frag,
              al->proven_optimal ? "proven optimal" : "not proven optimal", (long long)al->no_reuse_bytes);
  }
  if (!b.s) sb_printf(&b, "%s", "");
  return b.s;
}
