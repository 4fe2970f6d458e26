/* verify.c - the IR verifier: every var defined before use and bound once,
 * every buffer declared where it is used, index counts matching buffer
 * ranks, dtypes consistent, block regions naming buffers in scope.  Returns
 * false with errors in the diag list; never prints. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tir/analysis.h"
#include "tir/visit.h"

/* ---- a pointer -> count hash table (open addressing), malloc'd ---- */
typedef struct {
  const void **keys;
  int *vals;
  size_t cap, n;
} ptab;

static size_t ptab_slot(const ptab *t, const void *k) {
  uintptr_t h = (uintptr_t)k;
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15ull;
  size_t i = (size_t)(h >> 7) & (t->cap - 1);
  while (t->keys[i] && t->keys[i] != k) i = (i + 1) & (t->cap - 1);
  return i;
}

static void ptab_grow(ptab *t) {
  ptab old = *t;
  t->cap = old.cap ? old.cap * 2 : 64;
  t->keys = calloc(t->cap, sizeof *t->keys);
  t->vals = calloc(t->cap, sizeof *t->vals);
  if (!t->keys || !t->vals) abort();
  t->n = 0;
  for (size_t i = 0; i < old.cap; i++)
    if (old.keys[i]) {
      size_t j = ptab_slot(t, old.keys[i]);
      t->keys[j] = old.keys[i];
      t->vals[j] = old.vals[i];
      t->n++;
    }
  free(old.keys);
  free(old.vals);
}

static int *ptab_at(ptab *t, const void *k) {
  if ((t->n + 1) * 2 > t->cap) ptab_grow(t);
  size_t i = ptab_slot(t, k);
  if (!t->keys[i]) {
    t->keys[i] = k;
    t->vals[i] = 0;
    t->n++;
  }
  return &t->vals[i];
}

static int ptab_get(const ptab *t, const void *k) {
  if (!t->cap) return 0;
  size_t i = ptab_slot(t, k);
  return t->keys[i] ? t->vals[i] : 0;
}

static void ptab_free(ptab *t) {
  free(t->keys);
  free(t->vals);
}

/* ---- a stack of pointers, to undo scopes ---- */
typedef struct {
  const void **items;
  int n, cap;
} pstack;

static void pstack_push(pstack *s, const void *p) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->items = realloc(s->items, sizeof *s->items * (size_t)s->cap);
    if (!s->items) abort();
  }
  s->items[s->n++] = p;
}

/* ---- the verifier's state ---- */
typedef struct {
  tir_diag *d;
  ptab in_scope;   /* var -> number of live definitions */
  ptab ever;       /* var -> defined at all (bound-once check) */
  ptab reported;   /* var/buffer -> already reported */
  pstack vars;     /* definitions, innermost last */
  ptab bufs;       /* buffer -> live declarations */
  ptab buf_data;   /* data var -> live declarations of buffers over it */
  ptab flat_data;  /* data var -> live 1-D buffers over it (flattened views) */
  pstack bufstack;
  tir_span where;  /* span of the statement being checked */
  int loops;       /* loops around it within its block (break/continue need one) */
  bool threads;    /* ... since a thread-bound loop or a launch */
  int nerr;
  bool lowered; /* tir_verify_func_lowered */
  int first;       /* d's first entry from this run */
} vstate;

enum { MAX_ERRORS = 50 };

static tir_span pick(const vstate *st, tir_span sp) { return sp.line ? sp : st->where; }

static bool same_span(tir_span a, tir_span b) { return a.line == b.line && a.col == b.col; }

/* one error; the same message at the same place again (e.g. one more copy
 * of an undefined var in the same statement) is reported once */
static void verr(vstate *st, tir_span sp, const char *fmt, const char *name) {
  sp = pick(st, sp);
  int len = snprintf(NULL, 0, fmt, name);
  char *msg = malloc((size_t)(len < 0 ? 0 : len) + 1);
  if (!msg) abort();
  snprintf(msg, (size_t)(len < 0 ? 0 : len) + 1, fmt, name);
  for (int i = st->first; st->d && i < st->d->n; i++)
    if (same_span(st->d->items[i].span, sp) && !strcmp(st->d->items[i].msg, msg)) {
      free(msg);
      return;
    }
  if (st->nerr++ < MAX_ERRORS) tir_diag_add(st->d, TIR_SEV_ERROR, sp, "%s", msg);
  free(msg);
}

static const char *vname(const tir_expr *v) { return v->u.var.name ? v->u.var.name : "?"; }

/* define var in the current scope; once_only: a second binding is an error */
static void define(vstate *st, const tir_expr *v, bool once_only, tir_span sp) {
  int *ever = ptab_at(&st->ever, v);
  if (*ever && once_only) verr(st, sp.line ? sp : v->span, "variable '%s' is bound more than once", vname(v));
  *ever = 1;
  (*ptab_at(&st->in_scope, v))++;
  pstack_push(&st->vars, v);
}

static bool defined(const vstate *st, const tir_expr *v) { return ptab_get(&st->in_scope, v) > 0; }

/* define the vars in a field of a declared buffer (shape/stride/offset, e.g.
 * n of (n * 4,)), unless already in scope: buffers may share them */
static void define_field(vstate *st, const tir_expr *e) {
  if (!e) return;
  switch (e->kind) {
  case TIR_VAR:
    if (!defined(st, e)) define(st, e, false, e->span);
    return;
  case TIR_NOT: case TIR_CAST: define_field(st, e->u.un.a); return;
  default:
    if (TIR_IS_BINARY(e->kind)) {
      define_field(st, e->u.bin.a);
      define_field(st, e->u.bin.b);
    }
    return;
  }
}

static void pop_vars(vstate *st, int mark) {
  while (st->vars.n > mark) (*ptab_at(&st->in_scope, st->vars.items[--st->vars.n]))--;
}

static void declare_buffer(vstate *st, const tir_buffer *b) {
  (*ptab_at(&st->bufs, b))++;
  (*ptab_at(&st->buf_data, b->data))++;
  if (b->ndim == 1) (*ptab_at(&st->flat_data, b->data))++;
  pstack_push(&st->bufstack, b);
}

static void pop_buffers(vstate *st, int mark) {
  while (st->bufstack.n > mark) {
    const tir_buffer *b = st->bufstack.items[--st->bufstack.n];
    (*ptab_at(&st->bufs, b))--;
    (*ptab_at(&st->buf_data, b->data))--;
    if (b->ndim == 1) (*ptab_at(&st->flat_data, b->data))--;
  }
}

/* ---- expressions ---- */
static void check_expr(vstate *st, const tir_expr *e);

static bool is_bool(tir_dtype t) { return t.code == TIR_TC_UINT && t.bits == 1; }

static void check_cond(vstate *st, const tir_expr *c, const char *what) {
  if (!c) return;
  check_expr(st, c);
  if (!is_bool(c->dtype)) verr(st, c->span, "%s must be bool", what);
}

static void check_use(vstate *st, const tir_expr *v) {
  if (defined(st, v)) return;
  int *rep = ptab_at(&st->reported, v);
  if (*rep) return;
  *rep = 1;
  if (!ptab_get(&st->ever, v))
    verr(st, v->span, "variable '%s' is used but not defined: no parameter, loop, let or block before the use binds it",
         vname(v));
  else
    verr(st, v->span, "variable '%s' is used outside the scope of its definition", vname(v));
}

static void check_buffer_use(vstate *st, const tir_buffer *b, int nidx, tir_span sp) {
  if (!b) {
    verr(st, sp, "%s", "access to a NULL buffer");
    return;
  }
  if (!ptab_get(&st->bufs, b) && !ptab_get(&st->buf_data, b->data)) {
    int *rep = ptab_at(&st->reported, b);
    if (!*rep && b->data && !ptab_get(&st->ever, b->data))
      verr(st, sp, "buffer '%s' has no memory: nothing binds its pointer (a T.Buffer(...) without data= allocates nothing)",
           b->name);
    else if (!*rep) verr(st, sp, "buffer '%s' is used outside the scope of its declaration", b->name);
    *rep = 1;
  }
  if (nidx >= 0 && nidx != b->ndim && !(nidx == 1 && ptab_get(&st->flat_data, b->data))) {
    char msg[160];
    snprintf(msg, sizeof msg, "buffer '%%s' of rank %d accessed with %d indices", b->ndim, nidx);
    verr(st, sp, msg, b->name);
  }
}

static void check_indices(vstate *st, tir_expr *const *idx, int n) {
  for (int i = 0; i < n; i++) {
    check_expr(st, idx[i]);
    if (idx[i] && !tir_dtype_is_int(idx[i]->dtype))
      verr(st, idx[i]->span, "%s", "buffer index must be an integer");
  }
}

static void check_binary(vstate *st, const tir_expr *e) {
  const tir_expr *a = e->u.bin.a, *b = e->u.bin.b;
  check_expr(st, a);
  check_expr(st, b);
  if (!a || !b) return;
  char ta[32], tb[32], msg[128];
  if (!tir_dtype_eq(a->dtype, b->dtype)) {
    snprintf(msg, sizeof msg, "operands of different dtypes: %s and %s",
             tir_dtype_str(a->dtype, ta), tir_dtype_str(b->dtype, tb));
    verr(st, e->span, "%s", msg);
  } else if ((e->kind == TIR_AND || e->kind == TIR_OR) && !is_bool(a->dtype)) {
    verr(st, e->span, "%s", "operands of and/or must be bool");
  }
}

static void check_comm_reducer(vstate *st, const tir_expr *e) {
  int n = e->u.call.nargs / 4;
  tir_expr *const *a = e->u.call.args;
  for (int i = 0; i < 2 * n; i++)
    if (!tir_is_var(a[i])) {
      verr(st, e->span, "%s", "comm_reducer: its parameters must be variables");
      return;
    }
  for (int i = 0; i < n; i++) {
    const tir_expr *id = a[3 * n + i];
    if (!id || !tir_is_constant_valued(id))
      verr(st, e->span, "%s", "comm_reducer: its identity elements must be constants");
    else if (!tir_dtype_eq(id->dtype, a[i]->dtype) || !tir_dtype_eq(id->dtype, a[n + i]->dtype) ||
             !a[2 * n + i] || !tir_dtype_eq(id->dtype, a[2 * n + i]->dtype))
      verr(st, e->span, "%s", "comm_reducer: a result, its identity and its parameters must have one dtype");
  }
  const tir_expr *bad = tir_comm_reducer_foreign(e);
  if (bad)
    verr(st, bad->span.line ? bad->span : e->span,
         bad->kind == TIR_VAR ? "comm_reducer: its combiner uses '%s', which is not one of its parameters"
                              : "comm_reducer: its combiner loads from buffer '%s'",
         bad->kind == TIR_VAR ? vname(bad) : bad->u.load.buf->name);
}

static void check_expr(vstate *st, const tir_expr *e) {
  if (!e) return;
  switch (e->kind) {
  case TIR_VAR: check_use(st, e); return;
  case TIR_INT_IMM: case TIR_FLOAT_IMM: case TIR_STRING_IMM: return;
  case TIR_NOT: check_cond(st, e->u.un.a, "operand of not"); return;
  case TIR_CAST: check_expr(st, e->u.un.a); return;
  case TIR_SELECT:
    check_cond(st, e->u.select.cond, "select condition");
    check_expr(st, e->u.select.t);
    check_expr(st, e->u.select.f);
    if (e->u.select.t && e->u.select.f && !tir_dtype_eq(e->u.select.t->dtype, e->u.select.f->dtype))
      verr(st, e->span, "%s", "select branches of different dtypes");
    return;
  case TIR_CALL:
    if (tir_is_comm_reducer(e)) {
      check_comm_reducer(st, e);
      return;
    }
    for (int i = 0; i < e->u.call.nargs; i++) check_expr(st, e->u.call.args[i]);
    return;
  case TIR_BUFFER_LOAD:
    check_buffer_use(st, e->u.load.buf, e->u.load.nidx, e->span);
    check_indices(st, e->u.load.idx, e->u.load.nidx);
    return;
  case TIR_RAMP: check_expr(st, e->u.ramp.base); check_expr(st, e->u.ramp.stride); return;
  case TIR_BROADCAST: check_expr(st, e->u.bcast.value); return;
  case TIR_LET: {
    check_expr(st, e->u.let.value);
    int mark = st->vars.n;
    define(st, e->u.let.var, true, e->span);
    if (e->u.let.value && !tir_dtype_eq(e->u.let.var->dtype, e->u.let.value->dtype))
      verr(st, e->span, "let variable '%s' and its value have different dtypes", vname(e->u.let.var));
    check_expr(st, e->u.let.body);
    pop_vars(st, mark);
    return;
  }
  default:
    if (TIR_IS_BINARY(e->kind)) check_binary(st, e);
    return;
  }
}

/* ---- statements ---- */
static void check_stmt(vstate *st, const tir_stmt *s);

static void check_region(vstate *st, const tir_buffer_region *r) {
  check_buffer_use(st, r->buf, -1, r->span);
  if (r->buf && r->n != r->buf->ndim) {
    char msg[160];
    snprintf(msg, sizeof msg, "region of buffer '%%s' (rank %d) has %d ranges", r->buf->ndim, r->n);
    verr(st, r->span, msg, r->buf->name);
  }
  for (int i = 0; i < r->n; i++) {
    check_expr(st, r->region[i].min);
    check_expr(st, r->region[i].extent);
  }
}

/* a declared buffer's fields: shape/strides/offset must use vars in scope */
static void check_buffer_decl(vstate *st, const tir_buffer *b) {
  int64_t x;
  /* a negative constant extent in the input (TVM prints an overflowed one;
   * the reader takes it for a print only); a pass may leave one (the box of
   * an empty loop), which the code generators declare as one element */
  for (int i = 0; !st->lowered && i < b->ndim; i++)
    if (tir_is_const_int(b->shape[i], &x) && x < 0) {
      verr(st, b->span, "buffer '%s' has a negative extent", b->name);
      break;
    }
  for (int i = 0; i < b->ndim; i++) check_expr(st, b->shape[i]);
  for (int i = 0; i < b->nstrides; i++) check_expr(st, b->strides[i]);
  check_expr(st, b->elem_offset);
  for (int i = 0; i < b->naddr; i++) check_expr(st, b->addr[i]);
  if (!tir_is_var(b->data)) verr(st, b->span, "buffer '%s' has no data variable", b->name);
}

static void declare_alloc(vstate *st, const tir_buffer *b) {
  check_buffer_decl(st, b);
  if (tir_is_var(b->data)) define(st, b->data, true, b->span);
  declare_buffer(st, b);
}

/* a match_buffer view: its free field vars are defined by the match */
static void declare_match(vstate *st, const tir_match_buffer *m) {
  tir_span saved = st->where;
  if (m->span.line) st->where = m->span;
  check_region(st, &m->src);
  const tir_buffer *b = m->buf;
  for (int i = 0; i < b->ndim; i++) define_field(st, b->shape[i]);
  for (int i = 0; i < b->nstrides; i++) define_field(st, b->strides[i]);
  define_field(st, b->elem_offset);
  check_buffer_decl(st, b);
  if (tir_is_var(b->data)) define(st, b->data, true, m->span);
  declare_buffer(st, b);
  st->where = saved;
}

static void check_block(vstate *st, const tir_stmt *s) {
  const tir_block *blk = s->u.realize.block;
  if (!blk) {
    verr(st, s->span, "%s", "block realize without a block");
    return;
  }
  if (s->u.realize.n != blk->n_iter)
    verr(st, s->span, "block '%s': number of iter values differs from its iter vars", blk->name);
  for (int i = 0; i < s->u.realize.n; i++) check_expr(st, s->u.realize.iter_values[i]);
  check_cond(st, s->u.realize.predicate, "block predicate");
  int vmark = st->vars.n, bmark = st->bufstack.n;
  for (int i = 0; i < blk->n_iter; i++) {
    check_expr(st, blk->iter_vars[i].dom.min);
    check_expr(st, blk->iter_vars[i].dom.extent);
  }
  for (int i = 0; i < blk->n_iter; i++) define(st, blk->iter_vars[i].var, true, blk->span);
  for (int i = 0; i < blk->n_alloc; i++) declare_alloc(st, blk->alloc_buffers[i]);
  for (int i = 0; i < blk->n_match; i++) declare_match(st, &blk->match_buffers[i]);
  for (int i = 0; i < blk->n_reads; i++) check_region(st, &blk->reads[i]);
  for (int i = 0; i < blk->n_writes; i++) check_region(st, &blk->writes[i]);
  if (blk->init) check_stmt(st, blk->init);
  check_stmt(st, blk->body);
  pop_buffers(st, bmark);
  pop_vars(st, vmark);
}

static void check_for(vstate *st, const tir_stmt *s) {
  const tir_expr *v = s->u.loop.var;
  check_expr(st, s->u.loop.min);
  check_expr(st, s->u.loop.extent);
  if (s->u.loop.step) check_expr(st, s->u.loop.step);
  if (!tir_is_var(v)) {
    verr(st, s->span, "%s", "loop variable is not a Var");
    return;
  }
  if ((s->u.loop.min && !tir_dtype_eq(s->u.loop.min->dtype, v->dtype)) ||
      (s->u.loop.extent && !tir_dtype_eq(s->u.loop.extent->dtype, v->dtype)) ||
      (s->u.loop.step && !tir_dtype_eq(s->u.loop.step->dtype, v->dtype)))
    verr(st, s->span, "loop '%s': bounds and variable have different dtypes", vname(v));
  int mark = st->vars.n;
  define(st, v, true, s->span);
  /* a thread-bound loop is no loop once lowered: break cannot leave it */
  bool real = s->u.loop.kind != TIR_FOR_THREAD_BINDING;
  int loops = st->loops;
  bool threads = st->threads;
  st->loops = real ? loops + 1 : 0;
  if (!real) st->threads = true;
  check_stmt(st, s->u.loop.body);
  st->loops = loops;
  st->threads = threads;
  pop_vars(st, mark);
}

static void check_store(vstate *st, const tir_stmt *s) {
  const tir_buffer *b = s->u.store.buf;
  check_buffer_use(st, b, s->u.store.nidx, s->span);
  check_indices(st, s->u.store.idx, s->u.store.nidx);
  const tir_expr *v = s->u.store.value;
  check_expr(st, v);
  if (b && v && (v->dtype.code != b->dtype.code || v->dtype.bits != b->dtype.bits)) {
    char tv[32], tb[32], msg[160];
    snprintf(msg, sizeof msg, "store of a %s value into buffer '%%s' of dtype %s",
             tir_dtype_str(v->dtype, tv), tir_dtype_str(b->dtype, tb));
    verr(st, s->span, msg, b->name);
  }
}

static bool is_launch(const tir_stmt *s) {
  return s->u.attr.key && (!strcmp(s->u.attr.key, "thread_extent") || !strcmp(s->u.attr.key, "virtual_thread"));
}

/* the loop an attr on var v wraps binds v: LowerOpaqueBlock (as TVM's)
 * writes a loop's pragma_* annotations as AttrStmts on the loop var just
 * outside the loop, `attr(i, "pragma_k", v) { for i ... }`, and around the
 * thread launch of a thread-bound loop; a chain of such attrs on v may
 * stand between the first and the loop */
static bool wraps_binding_of(const tir_stmt *body, const tir_expr *v) {
  while (body && body->kind == TIR_ATTR && body->u.attr.node == v && !is_launch(body)) body = body->u.attr.body;
  if (!body) return false;
  if (body->kind == TIR_FOR) return body->u.loop.var == v;
  return body->kind == TIR_ATTR && is_launch(body) && body->u.attr.node == v;
}

static void check_attr(vstate *st, const tir_stmt *s) {
  const tir_expr *node = s->u.attr.node;
  check_expr(st, s->u.attr.value);
  int mark = st->vars.n;
  bool launches = is_launch(s);
  if (launches && tir_is_var(node) && (!tir_dtype_is_int(node->dtype) || node->dtype.lanes != 1)) {
    /* T.attr(A.data, "thread_extent", 4): read and printed as TVM reads it, launched by nothing */
    verr(st, s->span, "a thread_extent (or virtual_thread) attr on '%s', which is no integer var: it launches no thread",
         vname(node));
  } else if (launches && tir_is_var(node)) {
    /* a thread var may be launched by several sibling attrs */
    if (!defined(st, node)) define(st, node, false, s->span);
  } else if (tir_is_var(node) && !defined(st, node) && wraps_binding_of(s->u.attr.body, node)) {
    /* defined by the loop it annotates: checked there */
  } else if (st->lowered && tir_is_var(node) && !defined(st, node) && s->u.attr.key &&
             !strncmp(s->u.attr.key, "pragma_", 7)) {
    /* a loop pragma whose loop is gone: LowerOpaqueBlock drops a unit loop
     * and leaves the pragma about its var, as TVM's does (the node names the
     * loop; it is never evaluated) */
  } else if (node && node->kind != TIR_STRING_IMM) {
    check_expr(st, node);
  }
  int loops = st->loops; /* a launch is no loop: break cannot leave it */
  bool threads = st->threads;
  if (launches) st->loops = 0, st->threads = true;
  check_stmt(st, s->u.attr.body);
  st->loops = loops;
  st->threads = threads;
  pop_vars(st, mark);
}

static void check_decl(vstate *st, const tir_stmt *s, bool allocates) {
  const tir_buffer *b = s->u.decl.buf;
  int vmark = st->vars.n, bmark = st->bufstack.n;
  check_buffer_decl(st, b);
  if (tir_is_var(b->data)) {
    if (allocates) define(st, b->data, true, s->span);
    else if (!defined(st, b->data)) define(st, b->data, true, s->span);
  }
  declare_buffer(st, b);
  check_stmt(st, s->u.decl.body);
  pop_buffers(st, bmark);
  pop_vars(st, vmark);
}

static void check_stmt(vstate *st, const tir_stmt *s) {
  if (!s) return;
  tir_span saved = st->where;
  if (s->span.line) st->where = s->span;
  int mark = st->vars.n;
  switch (s->kind) {
  case TIR_BUFFER_STORE: check_store(st, s); break;
  case TIR_LET_STMT:
    check_expr(st, s->u.let.value);
    if (s->u.let.value && !tir_dtype_eq(s->u.let.var->dtype, s->u.let.value->dtype))
      verr(st, s->span, "let variable '%s' and its value have different dtypes", vname(s->u.let.var));
    define(st, s->u.let.var, true, s->span);
    check_stmt(st, s->u.let.body);
    break;
  case TIR_FOR: check_for(st, s); break;
  case TIR_WHILE:
    if (s->u.whl.cond && tir_dtype_is_int(s->u.whl.cond->dtype) && s->u.whl.cond->dtype.lanes == 1)
      check_expr(st, s->u.whl.cond); /* `while n:` and `while 1:`, as TVM: true when not zero */
    else
      check_cond(st, s->u.whl.cond, "while condition");
    st->loops++;
    check_stmt(st, s->u.whl.body);
    st->loops--;
    break;
  case TIR_IF:
    if (s->u.ifs.cond && tir_dtype_is_int(s->u.ifs.cond->dtype) && s->u.ifs.cond->dtype.lanes == 1)
      check_expr(st, s->u.ifs.cond); /* `if n:`, as TVM: true when not zero */
    else
      check_cond(st, s->u.ifs.cond, "if condition");
    check_stmt(st, s->u.ifs.then_s);
    check_stmt(st, s->u.ifs.else_s);
    break;
  case TIR_EVALUATE: check_expr(st, s->u.eval.value); break;
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) check_stmt(st, s->u.seq.stmts[i]);
    break;
  case TIR_ALLOCATE:
    for (int i = 0; i < s->u.alloc.n; i++) {
      int64_t x;
      if (!st->lowered && tir_is_const_int(s->u.alloc.extents[i], &x) && x < 0)
        verr(st, s->span, "allocation '%s' has a negative extent", vname(s->u.alloc.var));
      check_expr(st, s->u.alloc.extents[i]);
    }
    check_cond(st, s->u.alloc.cond, "allocation condition");
    define(st, s->u.alloc.var, true, s->span);
    check_stmt(st, s->u.alloc.body);
    break;
  case TIR_DECL_BUFFER: check_decl(st, s, false); break;
  case TIR_ALLOC_BUFFER: check_decl(st, s, true); break;
  case TIR_ATTR: check_attr(st, s); break;
  case TIR_ASSERT:
    check_cond(st, s->u.assrt.cond, "assert condition");
    check_expr(st, s->u.assrt.msg);
    check_stmt(st, s->u.assrt.body);
    break;
  case TIR_BLOCK_REALIZE: {
    int loops = st->loops; /* break/continue do not cross a block */
    bool threads = st->threads;
    st->loops = 0, st->threads = false;
    check_block(st, s);
    st->loops = loops;
    st->threads = threads;
    break;
  }
  case TIR_BREAK:
  case TIR_CONTINUE:
    if (st->loops <= 0)
      verr(st, s->span, "%s",
           st->threads ? (s->kind == TIR_BREAK ? "'break' in a thread-bound loop, which is no loop once lowered"
                                               : "'continue' in a thread-bound loop, which is no loop once lowered")
                       : (s->kind == TIR_BREAK ? "'break' outside loop" : "'continue' outside loop"));
    break;
  default: verr(st, s->span, "%s", "unknown statement kind"); break;
  }
  pop_vars(st, mark);
  st->where = saved;
}

static void declare_params(vstate *st, const tir_func *f) {
  for (int i = 0; i < f->nparams; i++) define(st, f->params[i], true, f->span);
  for (int i = 0; f->buffer_map && i < f->nparams; i++) {
    const tir_buffer *b = f->buffer_map[i];
    if (!b) continue;
    for (int k = 0; k < b->ndim; k++) define_field(st, b->shape[k]);
    for (int k = 0; k < b->nstrides; k++) define_field(st, b->strides[k]);
    define_field(st, b->elem_offset);
    check_buffer_decl(st, b);
    if (tir_is_var(b->data) && !defined(st, b->data)) define(st, b->data, true, b->span);
    declare_buffer(st, b);
  }
}

static bool verify(const tir_func *f, tir_diag *d, bool lowered) {
  if (!f) return false;
  vstate st;
  memset(&st, 0, sizeof st);
  st.lowered = lowered;
  st.d = d;
  st.first = d ? d->n : 0;
  st.where = f->span;
  declare_params(&st, f);
  check_stmt(&st, f->body);
  if (st.nerr > MAX_ERRORS)
    tir_diag_add(d, TIR_SEV_NOTE, f->span, "%d more verifier errors not shown", st.nerr - MAX_ERRORS);
  ptab_free(&st.in_scope);
  ptab_free(&st.ever);
  ptab_free(&st.reported);
  ptab_free(&st.bufs);
  ptab_free(&st.buf_data);
  ptab_free(&st.flat_data);
  free(st.vars.items);
  free(st.bufstack.items);
  return st.nerr == 0;
}

bool tir_verify_func(const tir_func *f, tir_diag *d) { return verify(f, d, false); }
bool tir_verify_func_lowered(const tir_func *f, tir_diag *d) { return verify(f, d, true); }
