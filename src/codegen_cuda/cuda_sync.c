/* cuda_sync.c - where a kernel needs __syncthreads(): threads communicate
 * through shared memory when one statement writes a shared buffer that a
 * later one reads (or writes, or a later one writes what an earlier one
 * read) with no barrier between.  Between the items of a sequence, a
 * barrier goes before the first item that conflicts with what the items
 * since the last barrier accessed; at the end of a loop body, one goes
 * where the next iteration's first items conflict with the last ones
 * (loop-carried).  Conservative: a statement's accesses are its whole
 * subtree's, and every access of a shared buffer counts as shared among
 * threads. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_cuda/cuda_internal.h"
#include "tir/visit.h"

#define MAXSH 64

/* a part of a shared allocation: its data var and a byte range (the
 * buffer's, when its offset and shape are constants: buffers the memory
 * plan put side by side in one allocation do not meet) */
typedef struct shreg {
  const tir_expr *data;
  int64_t lo, hi; /* [lo, hi) bytes; 0, INT64_MAX: all of it */
} shreg;

typedef struct acc {
  shreg r[MAXSH], w[MAXSH];
  int nr, nw;
  bool all_r, all_w; /* more parts than MAXSH: every shared byte counts as read / written */
  const cuda_kernel *k;
} acc;

static bool is_shared(const cuda_kernel *k, const tir_expr *data) {
  for (int i = 0; i < k->shared.n; i++)
    if (k->shared.vars[i] == data) return true;
  return false;
}

static void add(shreg *set, int *n, bool *all, shreg x) {
  if (*all) return;
  for (int i = 0; i < *n; i++)
    if (set[i].data == x.data && set[i].lo == x.lo && set[i].hi == x.hi) return;
  if (*n < MAXSH) set[(*n)++] = x;
  else *all = true;
}

static void note_range(acc *a, const tir_expr *data, int64_t lo, int64_t hi, bool read, bool write) {
  if (!data || !is_shared(a->k, data)) return;
  shreg x = {data, lo, hi};
  if (read) add(a->r, &a->nr, &a->all_r, x);
  if (write) add(a->w, &a->nw, &a->all_w, x);
}

static void note(acc *a, const tir_expr *data, bool read, bool write) {
  note_range(a, data, 0, INT64_MAX, read, write);
}

/* a buffer's bytes in its data, when its offset and shape are constants */
static void note_buffer(acc *a, const tir_buffer *b, bool read, bool write) {
  int64_t bytes = tir_dtype_bytes(b->dtype), off = 0, e;
  bool known = bytes > 0 && (!b->elem_offset || tir_is_const_int(b->elem_offset, &off)) && off >= 0 &&
               !__builtin_mul_overflow(off, bytes, &off);
  for (int i = 0; known && i < b->ndim; i++)
    known = tir_is_const_int(b->shape[i], &e) && e >= 0 && !__builtin_mul_overflow(bytes, e, &bytes);
  if (known && !__builtin_add_overflow(off, bytes, &e)) note_range(a, b->data, off, e, read, write);
  else note(a, b->data, read, write);
}

/* the data var a pointer argument points into */
static const tir_expr *pointer_data(const tir_expr *p) {
  if (p->kind == TIR_VAR) return p;
  if (p->kind != TIR_CALL) return NULL;
  if (!strcmp(p->u.call.op, "address_of") && p->u.call.nargs == 1 && p->u.call.args[0]->kind == TIR_BUFFER_LOAD)
    return p->u.call.args[0]->u.load.buf->data;
  if (!strcmp(p->u.call.op, "tvm_access_ptr") && p->u.call.nargs == 5) return p->u.call.args[1];
  return NULL;
}

static bool acc_expr(tir_visitor *v, const tir_expr *e) {
  acc *a = v->user;
  if (e->kind == TIR_BUFFER_LOAD) note_buffer(a, e->u.load.buf, true, false);
  if (e->kind == TIR_VAR) note(a, e, true, true); /* a raw pointer use */
  if (e->kind != TIR_CALL) return true;
  const char *op = e->u.call.op;
  int n = e->u.call.nargs;
  if (!strcmp(op, "slice_tensor") && n >= 4 && (n - 1) % 3 == 0) {
    int k = (n - 1) / 3;
    note(a, pointer_data(e->u.call.args[k]), false, true);
    note(a, pointer_data(e->u.call.args[2 * k]), true, false);
    for (int i = 0; i < n; i++)
      if (i != k && i != 2 * k) tir_visit_expr(v, e->u.call.args[i]);
    return false;
  }
  if (!strcmp(op, "tvm_access_ptr") && n == 5) {
    int64_t mask = 3;
    tir_is_const_int(e->u.call.args[4], &mask);
    note(a, e->u.call.args[1], mask & 1, mask & 2);
    tir_visit_expr(v, e->u.call.args[2]);
    return false;
  }
  if (!strcmp(op, "address_of") && n == 1 && e->u.call.args[0]->kind == TIR_BUFFER_LOAD) {
    const tir_expr *ld = e->u.call.args[0];
    note(a, ld->u.load.buf->data, true, true); /* a pointer: any byte */
    for (int i = 0; i < ld->u.load.nidx; i++) tir_visit_expr(v, ld->u.load.idx[i]);
    return false;
  }
  return true;
}

static bool acc_stmt(tir_visitor *v, const tir_stmt *s) {
  if (s->kind == TIR_BUFFER_STORE) note_buffer(v->user, s->u.store.buf, false, true);
  return true;
}

static void accesses(const cuda_kernel *k, const tir_stmt *s, acc *out) {
  memset(out, 0, sizeof *out);
  out->k = k;
  tir_visitor v = {.expr = acc_expr, .stmt = acc_stmt, .user = out};
  tir_visit_stmt(&v, s);
}

static bool meets(const shreg *a, int na, bool alla, const shreg *b, int nb, bool allb) {
  if ((alla && (nb || allb)) || (allb && na)) return true;
  for (int i = 0; i < na; i++)
    for (int j = 0; j < nb; j++)
      if (a[i].data == b[j].data && a[i].lo < b[j].hi && b[j].lo < a[i].hi) return true;
  return false;
}

/* does `next` conflict with the pending accesses? */
static bool conflict(const acc *pending, const acc *next) {
  return meets(next->r, next->nr, next->all_r, pending->w, pending->nw, pending->all_w) ||
         meets(next->w, next->nw, next->all_w, pending->w, pending->nw, pending->all_w) ||
         meets(next->w, next->nw, next->all_w, pending->r, pending->nr, pending->all_r);
}

static void merge(acc *into, const acc *a) {
  into->all_r |= a->all_r;
  into->all_w |= a->all_w;
  for (int i = 0; i < a->nr; i++) add(into->r, &into->nr, &into->all_r, a->r[i]);
  for (int i = 0; i < a->nw; i++) add(into->w, &into->nw, &into->all_w, a->w[i]);
}

/* an explicit T.tvm_storage_sync("shared") statement (LowerThreadAllreduce
 * writes them): a barrier already */
static bool explicit_sync(const tir_stmt *s) {
  if (s->kind != TIR_EVALUATE || !s->u.eval.value || s->u.eval.value->kind != TIR_CALL) return false;
  const tir_expr *e = s->u.eval.value;
  const char *op = e->u.call.op;
  if (!strncmp(op, "tir.", 4)) op += 4;
  return !strcmp(op, "tvm_storage_sync") && e->u.call.nargs >= 1 && e->u.call.args[0]->kind == TIR_STRING_IMM &&
         !strcmp(e->u.call.args[0]->u.str, "shared");
}

/* replay the barrier rule over items [0, upto) of stmts; returns the
 * pending accesses after them; *first_sync gets the first item a barrier
 * went before (n when none) */
static void replay(const cuda_kernel *k, tir_stmt *const *stmts, int upto, acc *pending, int *first_sync) {
  memset(pending, 0, sizeof *pending);
  pending->k = k;
  if (first_sync) *first_sync = upto;
  for (int j = 0; j < upto; j++) {
    acc a;
    if (explicit_sync(stmts[j])) {
      if (first_sync && *first_sync == upto) *first_sync = j;
      memset(pending, 0, sizeof *pending);
      pending->k = k;
      continue;
    }
    accesses(k, stmts[j], &a);
    if (conflict(pending, &a)) {
      if (first_sync && *first_sync == upto) *first_sync = j;
      memset(pending, 0, sizeof *pending);
      pending->k = k;
    }
    merge(pending, &a);
  }
}

/* a barrier every thread of the block reaches, or an error where some
 * threads are guarded off */
static void barrier(cg *g, const cuda_kernel *k, const tir_stmt *at) {
  if (k->guard)
    cg_error(g, at->span,
             "threads need a barrier (__syncthreads) here, inside a %s launch narrower than the kernel's, which not every thread reaches: launch %s with the same extent throughout the kernel",
             k->guard, k->guard);
  else
    cg_linef(g, "__syncthreads();");
}

/* a sequence being printed: the item printed last and what the items
 * since the last barrier accessed */
struct cuda_seq_state {
  const tir_stmt *seq;
  int last;
  acc pending;
};

void cuda_sync_free(cuda_kernel *k) {
  free(k->seqs);
  k->seqs = NULL;
  k->nseqs = k->capseqs = 0;
}

/* the state of seq, made (from its first item) when it is not kept */
static struct cuda_seq_state *seq_state(cuda_kernel *k, const tir_stmt *seq) {
  for (int i = k->nseqs - 1; i >= 0; i--)
    if (k->seqs[i].seq == seq) return &k->seqs[i];
  if (k->nseqs == k->capseqs) {
    k->capseqs = k->capseqs ? 2 * k->capseqs : 16;
    k->seqs = realloc(k->seqs, sizeof *k->seqs * (size_t)k->capseqs);
    if (!k->seqs) abort();
  }
  struct cuda_seq_state *st = &k->seqs[k->nseqs++];
  st->seq = seq;
  st->last = -1;
  memset(&st->pending, 0, sizeof st->pending);
  st->pending.k = k;
  return st;
}

void cuda_before_seq_item(cg *g, const tir_stmt *seq, int i) {
  cuda_kernel *k = g->user;
  if (!k) return;
  struct cuda_seq_state *st = seq_state(k, seq);
  if (st->last != i - 1) /* not the item after the last one: replay from the start */
    replay(k, seq->u.seq.stmts, i, &st->pending, NULL);
  st->last = i;
  tir_stmt *item = seq->u.seq.stmts[i];
  if (explicit_sync(item)) {
    memset(&st->pending, 0, sizeof st->pending);
    st->pending.k = k;
    return;
  }
  acc next;
  accesses(k, item, &next);
  if (i > 0 && conflict(&st->pending, &next)) {
    barrier(g, k, item);
    memset(&st->pending, 0, sizeof st->pending);
    st->pending.k = k;
  }
  merge(&st->pending, &next);
  if (i == seq->u.seq.n - 1) { /* the sequence is done: its state goes (the innermost is last) */
    int at = (int)(st - k->seqs);
    k->seqs[at] = k->seqs[--k->nseqs];
  }
}

void cuda_loop_end(cg *g, const tir_stmt *loop) {
  const cuda_kernel *k = g->user;
  if (!k || (loop->kind != TIR_FOR && loop->kind != TIR_WHILE)) return;
  tir_stmt *const *bodyp = loop->kind == TIR_FOR ? &loop->u.loop.body : &loop->u.whl.body;
  const tir_stmt *body = *bodyp;
  tir_stmt *const *items = body->kind == TIR_SEQ ? body->u.seq.stmts : bodyp;
  int n = body->kind == TIR_SEQ ? body->u.seq.n : 1;
  acc end, head;
  int first_sync;
  replay(k, items, n, &end, &first_sync);
  /* the next iteration's items before its first barrier (a while loop's
   * condition first) */
  memset(&head, 0, sizeof head);
  head.k = k;
  if (loop->kind == TIR_WHILE) {
    tir_stmt cond = {.kind = TIR_EVALUATE};
    cond.u.eval.value = loop->u.whl.cond;
    acc a;
    accesses(k, &cond, &a);
    merge(&head, &a);
  }
  for (int j = 0; j < (first_sync < n ? first_sync : n); j++) {
    acc a;
    accesses(k, items[j], &a);
    merge(&head, &a);
  }
  /* loop-carried: a read after a write or a write after a read (a thread
   * writing again where it wrote needs no barrier) */
  if (meets(head.r, head.nr, head.all_r, end.w, end.nw, end.all_w) || meets(head.w, head.nw, head.all_w, end.r, end.nr, end.all_r))
    barrier(g, k, loop);
}
