/* c_index.c - which buffers a statement's subtree loads, stores or
 * declares, answered from one walk of the function being emitted.
 *
 * The code generators ask, at each allocation and declaration, whether its
 * body uses the buffer (cg_buffer_used) or declares it (cg_declared_in).  A
 * walk of the body per question is quadratic where allocations nest: a
 * block of n alloc_buffers is n declarations deep after lowering (16,000:
 * 4 s of C, 12 s of CUDA).  The index numbers the statements of the root
 * the generator emits in the visitor's preorder (a statement's subtree is
 * the interval [pre, end)) and lists each buffer's events at the numbers
 * of the statements they belong to; a question is a binary search.  A
 * statement outside the root (one a generator made on the way) is walked
 * as before. */
#include <stdlib.h>

#include "codegen_c/c_printer.h"
#include "tir/visit.h"

enum { EV_USE = 1, EV_DECL = 2 };

typedef struct ev_list {
  int *pos;
  int n, cap;
} ev_list;

struct cg_use_index {
  const tir_stmt *root;
  bool built;
  tir_ptrmap node;  /* statement -> 1 + its first instance in pre/end */
  int *end;         /* by preorder number: one past the subtree's last */
  int nnodes, capnodes;
  tir_ptrmap lists; /* (buffer, kind) key -> 1 + its list in evs */
  ev_list *evs;
  int nevs, capevs;
  tir_ptrmap lists_decl;
};

static _Thread_local cg_use_index *cur;

static void *xgrow(void *p, int *cap, int need, size_t elem) {
  if (need <= *cap) return p;
  int c = *cap ? *cap : 16;
  while (c < need) c *= 2;
  p = realloc(p, elem * (size_t)c);
  if (!p) abort();
  *cap = c;
  return p;
}

static void add_event(cg_use_index *x, const void *key, int kind, int pos) {
  tir_ptrmap *m = kind == EV_USE ? &x->lists : &x->lists_decl;
  long i = tir_ptrmap_get(m, key, 0);
  if (!i) {
    x->evs = xgrow(x->evs, &x->capevs, x->nevs + 1, sizeof *x->evs);
    x->evs[x->nevs] = (ev_list){NULL, 0, 0};
    i = ++x->nevs;
    tir_ptrmap_put(m, key, i);
  }
  ev_list *l = &x->evs[i - 1];
  if (l->n && l->pos[l->n - 1] == pos) return;
  l->pos = xgrow(l->pos, &l->cap, l->n + 1, sizeof *l->pos);
  l->pos[l->n++] = pos;
}

typedef struct numbering {
  cg_use_index *x;
  const tir_stmt *self;
  int pre;
} numbering;

static void number(cg_use_index *x, const tir_stmt *s);

static bool num_expr(tir_visitor *v, const tir_expr *e) {
  numbering *n = v->user;
  if (e->kind == TIR_BUFFER_LOAD) add_event(n->x, e->u.load.buf, EV_USE, n->pre);
  return true;
}

static bool num_stmt(tir_visitor *v, const tir_stmt *s) {
  numbering *n = v->user;
  if (s != n->self) { /* a child: numbered in its turn, where the visitor meets it */
    number(n->x, s);
    return false;
  }
  if (s->kind == TIR_BUFFER_STORE) add_event(n->x, s->u.store.buf, EV_USE, n->pre);
  if (s->kind == TIR_DECL_BUFFER || s->kind == TIR_ALLOC_BUFFER) add_event(n->x, s->u.decl.buf, EV_DECL, n->pre);
  return true;
}

static void number(cg_use_index *x, const tir_stmt *s) {
  int pre = x->nnodes;
  x->end = xgrow(x->end, &x->capnodes, pre + 1, sizeof *x->end);
  x->nnodes++;
  if (!tir_ptrmap_get(&x->node, s, 0)) tir_ptrmap_put(&x->node, s, pre + 1);
  numbering n = {x, s, pre};
  tir_visitor v = {.expr = num_expr, .stmt = num_stmt, .user = &n};
  tir_visit_stmt(&v, s);
  x->end[pre] = x->nnodes;
}

cg_use_index *cg_index_push(const tir_stmt *root) {
  cg_use_index *saved = cur;
  cur = calloc(1, sizeof *cur);
  if (!cur) abort();
  cur->root = root;
  return saved;
}

void cg_index_pop(cg_use_index *saved) {
  cg_use_index *x = cur;
  if (x) {
    tir_ptrmap_free(&x->node);
    tir_ptrmap_free(&x->lists);
    tir_ptrmap_free(&x->lists_decl);
    for (int i = 0; i < x->nevs; i++) free(x->evs[i].pos);
    free(x->evs);
    free(x->end);
    free(x);
  }
  cur = saved;
}

/* 1 or 0: whether the subtree of s has an event of key; -1: s is not in the index */
int cg_index_has(const tir_stmt *s, const void *key, int kind) {
  cg_use_index *x = cur;
  if (!x || !x->root || !s) return -1;
  if (!x->built) {
    x->built = true;
    number(x, x->root);
  }
  long node = tir_ptrmap_get(&x->node, s, 0);
  if (!node) return -1;
  int lo = (int)node - 1, hi = x->end[lo];
  long i = tir_ptrmap_get(kind == EV_USE ? &x->lists : &x->lists_decl, key, 0);
  if (!i) return 0;
  const ev_list *l = &x->evs[i - 1];
  int a = 0, b = l->n; /* the first event at lo or after */
  while (a < b) {
    int m = a + (b - a) / 2;
    if (l->pos[m] < lo) a = m + 1;
    else b = m;
  }
  return a < l->n && l->pos[a] < hi;
}
