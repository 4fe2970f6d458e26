/* exec_allreduce.c - T.tvm_thread_allreduce(n, source[n], cond, result[n],
 * thread vars...) under a "reduce_scope" attr on a T.comm_reducer, as TVM's
 * LowerCrossThreadReduction writes it: the threads of a thread block that
 * differ only in the given thread vars combine their sources (the identity
 * where cond is false) with the reducer, and each of them gets the result
 * in its result locations.
 *
 * The threads run in lockstep (a call site counts as a barrier): each puts
 * its values at the call site's meeting place in the thread block, all meet
 * at a barrier, each folds the values of its group in thread order (a fold,
 * where a GPU reduces in a tree: floats may differ in rounding), writes its
 * results, and all meet again before the place is reused.  Outside thread
 * loops there is one thread: the result is its own value. */
#include <stdlib.h>
#include <string.h>

#include "exec/exec_eval.h"

enum { AR_MAX = 16 }; /* values of one reducer (TVM's are one or two) */

typedef struct xar {
  int id;            /* the call site: its meeting place in the thread block */
  int n;             /* values */
  const xe **src, **ident, **comb; /* n each */
  const xe *cond;
  const xacc **dst;  /* n result locations */
  int *lhs, *rhs;    /* the reducer's var slots, n each */
  int *key;          /* the thread loops around that are not reduced over */
  int nkey;
} xar;

typedef struct xmeet {
  int64_t *keys;     /* nkey per entry */
  xval *vals;        /* n per entry */
  int count, cap;
  int done;          /* the threads of this visit that have folded (the last empties the place) */
} xmeet;

void x_meet_free(xgroup *g) {
  for (int i = 0; i < g->nmeet; i++)
    if (g->meet[i]) {
      free(g->meet[i]->keys);
      free(g->meet[i]->vals);
      free(g->meet[i]);
    }
  free(g->meet);
  g->meet = NULL;
  g->nmeet = 0;
}

static void store_result(const xacc *a, const xe *like, xframe *fr, xval v) {
  int64_t idx[32];
  for (int d = 0; d < a->ndim; d++) idx[d] = EVI(a->idx[d]);
  if (!fr->run->stop) x_store_value(a, fr, idx, like, v);
}

/* acc = combine(acc, v), the reducer's results over its lhs = acc, rhs = v */
static void combine(const xar *a, xframe *fr, xval *acc, const xval *v) {
  xval out[AR_MAX];
  for (int i = 0; i < a->n; i++) fr->slots[a->lhs[i]] = acc[i], fr->slots[a->rhs[i]] = v[i];
  for (int i = 0; i < a->n; i++) out[i] = x_eval_val(a->comb[i], fr);
  memcpy(acc, out, sizeof *acc * (size_t)a->n);
}

static xval h_allreduce(const xe *e, xframe *fr) {
  const xar *a = e->aux;
  xval mine[AR_MAX], acc[AR_MAX];
  bool on = EVI(a->cond) != 0;
  for (int i = 0; i < a->n; i++) mine[i] = x_eval_val(on ? a->src[i] : a->ident[i], fr);
  for (int i = 0; i < a->n; i++) acc[i] = x_eval_val(a->ident[i], fr);
  xgroup *g = fr->group;
  if (!fr->co || !g) { /* one thread */
    combine(a, fr, acc, mine);
  } else {
    if (!g->meet) {
      g->nmeet = fr->run->p->nallreduce;
      g->meet = calloc((size_t)g->nmeet + 1, sizeof *g->meet);
      if (!g->meet) abort();
    }
    xmeet *m = g->meet[a->id];
    if (!m) {
      m = g->meet[a->id] = calloc(1, sizeof *m);
      if (!m) abort();
    }
    if (m->count == m->cap) {
      m->cap = m->cap ? 2 * m->cap : 64;
      m->keys = realloc(m->keys, sizeof *m->keys * (size_t)(m->cap * (a->nkey ? a->nkey : 1)));
      m->vals = realloc(m->vals, sizeof *m->vals * (size_t)(m->cap * a->n));
      if (!m->keys || !m->vals) abort();
    }
    int64_t *k = m->keys + (size_t)m->count * (size_t)a->nkey;
    for (int i = 0; i < a->nkey; i++) k[i] = fr->slots[a->key[i]].i;
    memcpy(m->vals + (size_t)m->count * (size_t)a->n, mine, sizeof *mine * (size_t)a->n);
    m->count++;
    x_barrier(fr); /* every thread of the block has put its values */
    int64_t own[32];
    for (int i = 0; i < a->nkey; i++) own[i] = fr->slots[a->key[i]].i;
    for (int j = 0; j < m->count && !fr->run->stop; j++)
      if (!a->nkey || !memcmp(m->keys + (size_t)j * (size_t)a->nkey, own, sizeof *own * (size_t)a->nkey))
        combine(a, fr, acc, m->vals + (size_t)j * (size_t)a->n);
    /* the last of the visit to fold empties the place for the next visit
     * (a thread's count of its visits would not do: the threads of a
     * thread loop under a serial loop are new copies at each iteration) */
    if (++m->done >= m->count) m->count = 0, m->done = 0;
  }
  for (int i = 0; i < a->n; i++) store_result(a->dst[i], a->src[i], fr, acc[i]);
  if (fr->co && g) x_barrier(fr); /* every thread has its results before the place is reused */
  return (xval){.h = {NULL, 0}};
}

const xe *xc_allreduce(xc *c, const tir_expr *e, xe *r) {
  const tir_expr *red = c->reducer;
  tir_expr *const *args = e->u.call.args;
  int na = e->u.call.nargs;
  int64_t n;
  if (!red) {
    xc_error(c, e->span, "cannot run T.tvm_thread_allreduce outside a \"reduce_scope\" attr on a T.comm_reducer");
    goto bad;
  }
  int rn = red->u.call.nargs / 4;
  tir_expr *const *ra = red->u.call.args;
  if (!tir_is_const_int(args[0], &n) || n != rn || n > AR_MAX || na < 2 * n + 2) {
    xc_error(c, e->span, "cannot run T.tvm_thread_allreduce: its size must be the %d value(s) of its T.comm_reducer, "
             "with a source, a condition and a result location for each", rn);
    goto bad;
  }
  if (c->nthread_slots > 32) {
    xc_error(c, e->span, "cannot run T.tvm_thread_allreduce under more than 32 thread loops");
    goto bad;
  }
  xar *a = x_alloc(c->p, sizeof *a);
  a->n = (int)n;
  a->src = x_alloc(c->p, sizeof *a->src * (size_t)n);
  a->ident = x_alloc(c->p, sizeof *a->ident * (size_t)n);
  a->comb = x_alloc(c->p, sizeof *a->comb * (size_t)n);
  a->dst = x_alloc(c->p, sizeof *a->dst * (size_t)n);
  a->lhs = x_alloc(c->p, sizeof *a->lhs * (size_t)n);
  a->rhs = x_alloc(c->p, sizeof *a->rhs * (size_t)n);
  for (int i = 0; i < n; i++) {
    const tir_expr *s = args[1 + i], *d = args[2 + n + i];
    const tir_buffer *db = d->kind == TIR_BUFFER_LOAD ? d->u.load.buf : NULL;
    tir_expr *const *didx = db ? d->u.load.idx : NULL;
    if (tir_is_var(d)) /* a buffer's data var (reduce_temp0.data, TVM's older spelling): its element 0 */
      for (int k = c->p->nbufs - 1; k >= 0 && !db; k--)
        if (c->p->binfo[k].b->data == d && c->p->binfo[k].b->ndim <= 32) {
          db = c->p->binfo[k].b;
          tir_expr *zero = x_alloc(c->p, sizeof *zero * (size_t)(db->ndim + 1));
          tir_expr **zi = x_alloc(c->p, sizeof *zi * (size_t)(db->ndim + 1));
          for (int j = 0; j < db->ndim; j++)
            zero[j] = (tir_expr){.kind = TIR_INT_IMM, .dtype = db->shape[j]->dtype}, zi[j] = &zero[j];
          didx = zi;
        }
    if (s->dtype.lanes != 1 || !tir_dtype_eq(s->dtype, ra[3 * rn + i]->dtype) || !db ||
        !tir_dtype_eq(db->dtype, s->dtype)) {
      xc_error(c, e->span, "cannot run T.tvm_thread_allreduce: value %d must be a scalar of its reducer's dtype, and "
               "its result a buffer location of that dtype", i);
      goto bad;
    }
    a->src[i] = xc_expr(c, s, 0);
    a->ident[i] = xc_expr(c, ra[3 * rn + i], 0);
    a->dst[i] = xc_access(c, db, didx, db->ndim, 0, d->span, db->dtype);
    if (!a->dst[i]) goto bad;
    a->lhs[i] = xc_slot(c, ra[i]);
    a->rhs[i] = xc_slot(c, ra[rn + i]);
  }
  for (int i = 0; i < 2 * n; i++) c->defd[xc_slot(c, ra[i])] = 1; /* the reducer's own vars */
  for (int i = 0; i < n; i++) a->comb[i] = xc_expr(c, ra[2 * rn + i], 0);
  a->cond = xc_expr(c, args[1 + n], 0);
  /* the thread vars reduced over: the key of a thread's group is the
   * values of the other thread loops around */
  int nred = na - (int)(2 * n + 2);
  a->key = x_alloc(c->p, sizeof *a->key * (size_t)(c->nthread_slots + 1));
  for (int t = 0; t < c->nthread_slots; t++) {
    bool reduced = false;
    for (int i = 0; i < nred; i++) {
      const tir_expr *v = args[2 * n + 2 + i];
      if (tir_is_var(v) && tir_ptrmap_get(&c->vars, v, 0) == c->thread_slots[t] + 1) reduced = true;
    }
    if (!reduced) a->key[a->nkey++] = c->thread_slots[t];
  }
  for (int i = 0; i < nred; i++) {
    const tir_expr *v = args[2 * n + 2 + i];
    int64_t z;
    bool found = tir_is_const_int(v, &z) && z == 0; /* a thread of extent 1, folded to 0 by Simplify */
    for (int t = 0; t < c->nthread_slots && tir_is_var(v); t++)
      found |= tir_ptrmap_get(&c->vars, v, 0) == c->thread_slots[t] + 1;
    if (!found) {
      xc_error(c, e->span, "cannot run T.tvm_thread_allreduce: its argument %d is not the var of a threadIdx loop around it",
               (int)(2 * n + 2 + i));
      goto bad;
    }
  }
  /* a per-thread counter of visits, in a slot of its own (keyed by the call) */
  a->id = c->p->nallreduce++;
  r->aux = a;
  r->vc = XV_HANDLE;
  r->fn.h = h_allreduce;
  return r;
bad:
  return NULL;
}
