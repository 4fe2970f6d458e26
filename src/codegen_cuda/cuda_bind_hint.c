/* cuda_bind_hint.c - which loop of a kernel that binds no thread could be
 * bound to a thread axis, for the warning that the kernel runs on a single
 * thread.  A loop is named only when binding it is provably safe:
 *   - it encloses all the kernel's work (the statements above it are loops,
 *     lets, declarations, allocations and ifs, each with one statement
 *     under it), so no statement would run once per thread that ran once;
 *   - its iterations touch disjoint elements of every buffer the loop
 *     writes, whatever the iterations of the loops around it (each thread
 *     runs those): each such buffer is read and written at one index only,
 *     and some dimension of that index is c * v + (terms of the loops
 *     inside and around it, spanning less than |c| together) + (terms that
 *     do not change in the kernel), for the loop var v;
 *   - nothing above it in the kernel reads a buffer (an if condition, a
 *     let value, a loop bound);
 *   - no pointer escapes (address_of, tvm_access_ptr, a handle argument)
 *     and no call is evaluated for its effect.
 * The outermost such loop is chosen; none when nothing is proven. */
#include <stdlib.h>
#include <string.h>

#include "codegen_cuda/cuda_internal.h"
#include "tir/visit.h"

typedef struct access {
  const tir_buffer *buf;
  tir_expr *const *idx;
  int nidx;
  bool store;
} access;

typedef struct inner_loop {
  const tir_expr *var;
  int64_t ext; /* -1: not a known constant */
} inner_loop;

typedef struct scan {
  const tir_expr *v;
  access *acc;
  int nacc, capacc;
  inner_loop *in;
  int nin, capin;
  const tir_expr **bound; /* let vars: values unknown here */
  int nbound, capbound;
  const tir_expr **priv; /* data vars allocated inside: private to an iteration */
  int npriv, cappriv;
  bool opaque;
} scan;

static void *grow(void *p, int n, int *cap, size_t elem) {
  if (n < *cap) return p;
  *cap = *cap ? *cap * 2 : 16;
  void *q = realloc(p, (size_t)*cap * elem);
  if (!q) abort();
  return q;
}

static void add_access(scan *s, const tir_buffer *b, tir_expr *const *idx, int nidx, bool store) {
  s->acc = grow(s->acc, s->nacc, &s->capacc, sizeof *s->acc);
  s->acc[s->nacc++] = (access){b, idx, nidx, store};
}

static void add_var(const tir_expr ***arr, int *n, int *cap, const tir_expr *v) {
  *arr = grow(*arr, *n, cap, sizeof **arr);
  (*arr)[(*n)++] = v;
}

static bool in_list(const tir_expr *const *arr, int n, const tir_expr *v) {
  for (int i = 0; i < n; i++)
    if (arr[i] == v) return true;
  return false;
}

static bool scan_expr(tir_visitor *vis, const tir_expr *e) {
  scan *s = vis->user;
  switch (e->kind) {
  case TIR_BUFFER_LOAD: add_access(s, e->u.load.buf, e->u.load.idx, e->u.load.nidx, false); break;
  case TIR_LET: add_var(&s->bound, &s->nbound, &s->capbound, e->u.let.var); break;
  case TIR_CALL:
    if (!strcmp(e->u.call.op, "address_of") || !strcmp(e->u.call.op, "tvm_access_ptr")) s->opaque = true;
    break;
  case TIR_VAR:
    if (tir_dtype_is_handle(e->dtype)) s->opaque = true; /* a pointer used as a value */
    break;
  default: break;
  }
  return !s->opaque;
}

static bool scan_stmt(tir_visitor *vis, const tir_stmt *st) {
  scan *s = vis->user;
  switch (st->kind) {
  case TIR_BUFFER_STORE: add_access(s, st->u.store.buf, st->u.store.idx, st->u.store.nidx, true); break;
  case TIR_FOR: {
    int64_t mn, ext;
    bool known = tir_is_const_int(st->u.loop.min, &mn) && tir_is_const_int(st->u.loop.extent, &ext) && ext >= 0;
    for (int i = 0; i < s->nin; i++) /* one var bound twice: keep it only when the ranges agree */
      if (s->in[i].var == st->u.loop.var && (!known || s->in[i].ext != ext)) s->in[i].ext = -1;
    s->in = grow(s->in, s->nin, &s->capin, sizeof *s->in);
    s->in[s->nin++] = (inner_loop){st->u.loop.var, known ? ext : -1};
    if (st->u.loop.kind == TIR_FOR_THREAD_BINDING) s->opaque = true;
    break;
  }
  case TIR_LET_STMT: add_var(&s->bound, &s->nbound, &s->capbound, st->u.let.var); break;
  case TIR_ALLOCATE: add_var(&s->priv, &s->npriv, &s->cappriv, st->u.alloc.var); break;
  case TIR_ALLOC_BUFFER: add_var(&s->priv, &s->npriv, &s->cappriv, st->u.decl.buf->data); break;
  case TIR_EVALUATE:
    if (st->u.eval.value->kind == TIR_CALL) s->opaque = true; /* evaluated for its effect */
    break;
  case TIR_WHILE:
  case TIR_BLOCK_REALIZE: s->opaque = true; break;
  case TIR_ATTR:
    if (!strcmp(st->u.attr.key, "thread_extent")) s->opaque = true;
    break;
  default: break;
  }
  return !s->opaque;
}

static bool same_expr(const tir_expr *a, const tir_expr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !tir_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case TIR_VAR: return false; /* identity is the pointer */
  case TIR_INT_IMM: return a->u.int_val == b->u.int_val;
  case TIR_CAST:
  case TIR_NOT: return same_expr(a->u.un.a, b->u.un.a);
  default:
    if (TIR_IS_BINARY(a->kind)) return same_expr(a->u.bin.a, b->u.bin.a) && same_expr(a->u.bin.b, b->u.bin.b);
    return false;
  }
}

/* the linear form of an index: the coefficient of v and the span of the
 * inner loops' terms; a term with neither v nor an inner or let var does
 * not change in the loop and is skipped */
typedef struct lin {
  int64_t cv;
  int64_t spread; /* sum of |coef| * (extent - 1) of the inner loop vars */
  bool ok;
} lin;

#define LIN_MAX ((int64_t)1 << 40)

typedef struct dep_find {
  const scan *s;
  bool found;
} dep_find;
static bool find_dep(tir_visitor *vis, const tir_expr *e) {
  dep_find *df = vis->user;
  if (df->found) return false;
  if (e->kind == TIR_VAR) {
    const scan *s = df->s;
    bool inner = false;
    for (int i = 0; i < s->nin && !inner; i++) inner = s->in[i].var == e;
    df->found = e == s->v || inner || in_list(s->bound, s->nbound, e);
  }
  return !df->found;
}
static bool varies(const scan *s, const tir_expr *e) {
  dep_find df = {s, false};
  tir_visitor vis = {.expr = find_dep, .user = &df};
  tir_visit_expr(&vis, e);
  return df.found;
}

static void linearize(const scan *s, const tir_expr *e, int64_t k, lin *l) {
  if (!l->ok) return;
  if (k > LIN_MAX || k < -LIN_MAX) {
    l->ok = false;
    return;
  }
  int64_t c;
  switch (e->kind) {
  case TIR_INT_IMM: return;
  case TIR_VAR:
    if (e == s->v) {
      l->cv += k;
      return;
    }
    if (in_list(s->bound, s->nbound, e)) {
      l->ok = false;
      return;
    }
    for (int i = 0; i < s->nin; i++)
      if (s->in[i].var == e) {
        if (s->in[i].ext < 0) {
          l->ok = false;
          return;
        }
        int64_t span;
        if (__builtin_mul_overflow(k < 0 ? -k : k, s->in[i].ext > 0 ? s->in[i].ext - 1 : 0, &span) ||
            span > LIN_MAX)
          l->ok = false;
        else
          l->spread += span;
        return;
      }
    return; /* defined outside the loop: the same in every iteration */
  case TIR_ADD:
    linearize(s, e->u.bin.a, k, l);
    linearize(s, e->u.bin.b, k, l);
    return;
  case TIR_SUB:
    linearize(s, e->u.bin.a, k, l);
    linearize(s, e->u.bin.b, -k, l);
    return;
  case TIR_MUL:
    if (tir_is_const_int(e->u.bin.b, &c) || tir_is_const_int(e->u.bin.a, &c)) {
      int64_t kc;
      if (__builtin_mul_overflow(k, c, &kc)) {
        l->ok = false;
        return;
      }
      return linearize(s, tir_is_const_int(e->u.bin.b, &c) ? e->u.bin.a : e->u.bin.b, kc, l);
    }
    break;
  case TIR_CAST:
    if (e->dtype.code == TIR_TC_INT && e->u.un.a->dtype.code == TIR_TC_INT && e->dtype.bits >= e->u.un.a->dtype.bits)
      return linearize(s, e->u.un.a, k, l);
    break;
  default: break;
  }
  if (varies(s, e)) l->ok = false; /* not linear in what changes */
}

static bool injective(const scan *s, const access *a) {
  for (int d = 0; d < a->nidx; d++) {
    lin l = {0, 0, true};
    linearize(s, a->idx[d], 1, &l);
    int64_t c = l.cv < 0 ? -l.cv : l.cv;
    if (l.ok && c > 0 && l.spread < c) return true;
  }
  return false;
}

/* the loops and lets above the candidate, in the kernel */
typedef struct spine {
  inner_loop *loops;
  int nloops, caploops;
  const tir_expr **lets;
  int nlets, caplets;
} spine;

static bool independent(const tir_stmt *loop, const spine *sp) {
  scan s = {.v = loop->u.loop.var};
  for (int i = 0; i < sp->nloops; i++) { /* the loops around vary too: each thread runs all of them */
    s.in = grow(s.in, s.nin, &s.capin, sizeof *s.in);
    s.in[s.nin++] = sp->loops[i];
  }
  for (int i = 0; i < sp->nlets; i++) add_var(&s.bound, &s.nbound, &s.capbound, sp->lets[i]);
  tir_visitor vis = {.expr = scan_expr, .stmt = scan_stmt, .user = &s};
  tir_visit_stmt(&vis, loop->u.loop.body);
  bool ok = !s.opaque;
  for (int i = 0; ok && i < s.nacc; i++) {
    const access *a = &s.acc[i];
    if (!a->store || in_list(s.priv, s.npriv, a->buf->data)) continue;
    for (int j = 0; ok && j < s.nacc; j++) {
      const access *b = &s.acc[j];
      if (b->buf->data != a->buf->data) continue;
      ok = b->buf == a->buf && b->nidx == a->nidx;
      for (int d = 0; ok && d < a->nidx; d++) ok = same_expr(a->idx[d], b->idx[d]);
    }
    ok = ok && injective(&s, a);
  }
  free(s.acc);
  free(s.in);
  free(s.bound);
  free(s.priv);
  return ok;
}

static bool trivial(const tir_stmt *s) {
  int64_t v;
  return s->kind == TIR_EVALUATE && tir_is_const_int(s->u.eval.value, &v);
}

typedef struct load_find {
  bool found;
} load_find;
static bool find_load(tir_visitor *v, const tir_expr *e) {
  load_find *lf = v->user;
  if (e->kind == TIR_BUFFER_LOAD || e->kind == TIR_CALL) lf->found = true;
  return !lf->found;
}
static bool reads_memory(const tir_expr *e) {
  load_find lf = {false};
  tir_visitor v = {.expr = find_load, .user = &lf};
  if (e) tir_visit_expr(&v, e);
  return lf.found;
}

const tir_stmt *cuda_bindable_loop(const tir_stmt *s) {
  spine sp = {0};
  const tir_stmt *found = NULL;
  while (s && !found) {
    switch (s->kind) {
    case TIR_FOR: {
      if (reads_memory(s->u.loop.min) || reads_memory(s->u.loop.extent)) {
        s = NULL;
        break;
      }
      /* a loop with a step or left early (break/continue) is no thread axis */
      if (s->u.loop.kind != TIR_FOR_THREAD_BINDING && !s->u.loop.step && !cg_has_jump(s->u.loop.body) &&
          independent(s, &sp)) {
        found = s;
        break;
      }
      int64_t mn, ext;
      bool known = tir_is_const_int(s->u.loop.min, &mn) && tir_is_const_int(s->u.loop.extent, &ext) && ext >= 0;
      sp.loops = grow(sp.loops, sp.nloops, &sp.caploops, sizeof *sp.loops);
      sp.loops[sp.nloops++] = (inner_loop){s->u.loop.var, known ? ext : -1};
      s = s->u.loop.body;
      break;
    }
    case TIR_LET_STMT:
      if (reads_memory(s->u.let.value)) {
        s = NULL;
        break;
      }
      add_var(&sp.lets, &sp.nlets, &sp.caplets, s->u.let.var);
      s = s->u.let.body;
      break;
    case TIR_DECL_BUFFER:
    case TIR_ALLOC_BUFFER: s = s->u.decl.body; break;
    case TIR_ALLOCATE: s = s->u.alloc.body; break;
    case TIR_ATTR: s = s->u.attr.body; break;
    case TIR_IF: s = s->u.ifs.else_s || reads_memory(s->u.ifs.cond) ? NULL : s->u.ifs.then_s; break;
    case TIR_SEQ: {
      const tir_stmt *only = NULL;
      int n = 0;
      for (int i = 0; i < s->u.seq.n; i++)
        if (!trivial(s->u.seq.stmts[i])) only = s->u.seq.stmts[i], n++;
      s = n == 1 ? only : NULL;
      break;
    }
    default: s = NULL; break;
    }
  }
  free(sp.loops);
  free(sp.lets);
  return found;
}

typedef struct loop_find {
  bool found;
} loop_find;
static bool find_loop(tir_visitor *v, const tir_stmt *s) {
  loop_find *lf = v->user;
  if (s->kind == TIR_FOR) lf->found = true;
  return !lf->found;
}

bool cuda_has_loop(const tir_stmt *s) {
  loop_find lf = {false};
  tir_visitor v = {.stmt = find_loop, .user = &lf};
  tir_visit_stmt(&v, s);
  return lf.found;
}
