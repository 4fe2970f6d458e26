/* struct_equal.c - structural equality and hashing modulo var names.
 *
 * Each tree is written as a canonical stream of 64-bit tokens in which a
 * Var (or Buffer) is replaced by the number of its first occurrence in the
 * walk.  Two trees are equal exactly when their streams are: vars defined at
 * corresponding places get the same numbers, and free vars are matched by
 * first occurrence (TVM's map_free_vars).  Buffers compare by their fields
 * (not names); floats by value.  The hash is FNV-1a over the stream, so
 * equal trees hash equally. */
#include <stdlib.h>
#include <string.h>

#include "tir/visit.h"

typedef struct ptr_num {
  const void **keys;
  uint64_t *vals;
  size_t cap, n;
} ptr_num;

typedef struct canon {
  uint64_t *tok;
  size_t n, cap;
  ptr_num vars, bufs;
  /* comparing two exprs or stmts of one scope: a var or buffer used but
   * not defined in them (free) is itself, by identity, not a number */
  bool free_identity;
} canon;

static void put(canon *c, uint64_t t) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 256;
    uint64_t *nt = realloc(c->tok, sizeof *nt * cap);
    if (!nt) abort(); /* out of memory */
    c->tok = nt;
    c->cap = cap;
  }
  c->tok[c->n++] = t;
}

static size_t slot(const ptr_num *m, const void *k) {
  uintptr_t h = (uintptr_t)k;
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15ull;
  return (size_t)(h & (m->cap - 1));
}

static void pn_grow(ptr_num *m) {
  ptr_num old = *m;
  m->cap = old.cap ? old.cap * 2 : 64;
  m->keys = calloc(m->cap, sizeof *m->keys);
  m->vals = calloc(m->cap, sizeof *m->vals);
  if (!m->keys || !m->vals) abort();
  for (size_t i = 0; i < old.cap; i++) {
    if (!old.keys[i]) continue;
    size_t j = slot(m, old.keys[i]);
    while (m->keys[j]) j = (j + 1) & (m->cap - 1);
    m->keys[j] = old.keys[i];
    m->vals[j] = old.vals[i];
  }
  free(old.keys);
  free(old.vals);
}

/* the number of k, assigning the next one on first sight; *fresh tells */
/* k's number, or -1 when it has none yet */
static int64_t pn_find(const ptr_num *m, const void *k) {
  if (!m->cap) return -1;
  size_t j = slot(m, k);
  while (m->keys[j]) {
    if (m->keys[j] == k) return (int64_t)m->vals[j];
    j = (j + 1) & (m->cap - 1);
  }
  return -1;
}

static uint64_t pn_number(ptr_num *m, const void *k, bool *fresh) {
  if ((m->n + 1) * 2 > m->cap) pn_grow(m);
  size_t j = slot(m, k);
  while (m->keys[j]) {
    if (m->keys[j] == k) {
      *fresh = false;
      return m->vals[j];
    }
    j = (j + 1) & (m->cap - 1);
  }
  m->keys[j] = k;
  m->vals[j] = m->n++;
  *fresh = true;
  return m->vals[j];
}

enum { T_NULL = 0x1000, T_VAR, T_BUF, T_STR, T_REGION, T_ITER, T_MATCH, T_AV, T_FUNC, T_FREE };

static uint64_t dt(tir_dtype d) { return (uint64_t)d.code << 32 | (uint64_t)d.bits << 16 | d.lanes; }

static void put_str(canon *c, const char *s) {
  put(c, T_STR);
  if (!s) {
    put(c, T_NULL);
    return;
  }
  size_t n = strlen(s);
  put(c, n);
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w = 0;
    for (size_t k = 0; k < 8 && i + k < n; k++) w |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
    put(c, w);
  }
}

static void c_expr(canon *c, const tir_expr *e);

static void c_var(canon *c, const tir_expr *v) {
  bool fresh;
  put(c, T_VAR);
  put(c, pn_number(&c->vars, v, &fresh));
  put(c, dt(v->dtype));
}

static void c_exprs(canon *c, tir_expr *const *es, int n) {
  put(c, (uint64_t)n);
  for (int i = 0; i < n; i++) c_expr(c, es[i]);
}

static void c_buffer(canon *c, const tir_buffer *b) {
  bool fresh;
  put(c, T_BUF);
  if (!b) {
    put(c, T_NULL);
    return;
  }
  if (c->free_identity) { /* exprs and stmts of one scope: a buffer is itself */
    put(c, T_FREE);
    put(c, (uint64_t)(uintptr_t)b);
    return;
  }
  put(c, pn_number(&c->bufs, b, &fresh));
  if (!fresh) return;
  c_var(c, b->data);
  put(c, dt(b->dtype));
  c_exprs(c, b->shape, b->ndim);
  c_exprs(c, b->strides, b->nstrides);
  c_expr(c, b->elem_offset);
  put_str(c, b->scope ? b->scope : "global");
  put(c, (uint64_t)(b->data_alignment ? b->data_alignment : 64));
  put(c, (uint64_t)(b->offset_factor ? b->offset_factor : 1));
  put(c, (uint64_t)b->naxis_sep);
  for (int i = 0; i < b->naxis_sep; i++) put(c, (uint64_t)b->axis_separators[i]);
  put(c, (uint64_t)b->scalar);
  put(c, (uint64_t)b->layout_none);
  put(c, (uint64_t)b->nlayout);
  c_exprs(c, b->layout, 2 * b->nlayout);
  put(c, (uint64_t)b->naddr);
  c_exprs(c, b->addr, b->naddr);
  put(c, (uint64_t)(b->view_of != NULL));
}

static void c_float(canon *c, double v) {
  if (v == 0) v = 0; /* -0.0 == 0.0 */
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  put(c, bits);
}

static void c_expr(canon *c, const tir_expr *e) {
  if (!e) {
    put(c, T_NULL);
    return;
  }
  if (e->kind == TIR_VAR) {
    if (c->free_identity && pn_find(&c->vars, e) < 0) { /* a free var: itself */
      put(c, T_FREE);
      put(c, (uint64_t)(uintptr_t)e);
      return;
    }
    c_var(c, e);
    return;
  }
  put(c, (uint64_t)e->kind);
  put(c, dt(e->dtype));
  switch (e->kind) {
  case TIR_INT_IMM: put(c, (uint64_t)e->u.int_val); break;
  case TIR_FLOAT_IMM: c_float(c, e->u.float_val); break;
  case TIR_STRING_IMM: put_str(c, e->u.str); break;
  case TIR_NOT: case TIR_CAST: c_expr(c, e->u.un.a); break;
  case TIR_SELECT:
    c_expr(c, e->u.select.cond);
    c_expr(c, e->u.select.t);
    c_expr(c, e->u.select.f);
    break;
  case TIR_CALL:
    put_str(c, e->u.call.op);
    put(c, e->u.call.global);
    put(c, dt(e->u.call.ptr_elem));
    if (e->u.call.ptr_elem.bits) put_str(c, e->u.call.ptr_scope ? e->u.call.ptr_scope : "global");
    if (tir_is_comm_reducer(e)) /* its lhs and rhs vars are bound here, in order */
      for (int i = 0; i < e->u.call.nargs / 2; i++) c_var(c, e->u.call.args[i]);
    c_exprs(c, e->u.call.args, e->u.call.nargs);
    break;
  case TIR_BUFFER_LOAD:
    c_buffer(c, e->u.load.buf);
    c_exprs(c, e->u.load.idx, e->u.load.nidx);
    break;
  case TIR_RAMP:
    c_expr(c, e->u.ramp.base);
    c_expr(c, e->u.ramp.stride);
    put(c, (uint64_t)e->u.ramp.lanes);
    break;
  case TIR_BROADCAST:
    c_expr(c, e->u.bcast.value);
    put(c, (uint64_t)e->u.bcast.lanes);
    break;
  case TIR_LET:
    c_expr(c, e->u.let.value);
    c_expr(c, e->u.let.var);
    c_expr(c, e->u.let.body);
    break;
  default:
    if (TIR_IS_BINARY(e->kind)) {
      c_expr(c, e->u.bin.a);
      c_expr(c, e->u.bin.b);
    }
    break;
  }
}

/* attribute values; dict entries in key order so that order never matters */
static void c_av(canon *c, const tir_attr_val *a) {
  put(c, T_AV);
  if (!a) {
    put(c, T_NULL);
    return;
  }
  put(c, (uint64_t)a->kind);
  if (a->kind == TIR_AV_EXPR) {
    /* a typed constant differs from the Python value of its print (only
     * int64, bool and float64 constants can be either) */
    const tir_expr *e = a->expr;
    bool ambiguous = e && (e->kind == TIR_INT_IMM || e->kind == TIR_FLOAT_IMM) &&
                     (tir_dtype_eq(e->dtype, TIR_INT64) || tir_dtype_eq(e->dtype, TIR_FLOAT64) ||
                      tir_dtype_eq(e->dtype, TIR_BOOL));
    put(c, ambiguous && a->typed);
    c_expr(c, a->expr);
    put(c, a->buf != NULL);
    if (a->buf) c_buffer(c, a->buf);
    return;
  }
  put(c, (uint64_t)a->n);
  if (a->kind == TIR_AV_REGION) {
    c_buffer(c, a->buf);
    for (int i = 0; i < a->n; i++) c_av(c, a->items[i]);
    return;
  }
  if (a->kind == TIR_AV_LIST || a->kind == TIR_AV_TARGET || a->kind == TIR_AV_INDEX_MAP || a->kind == TIR_AV_VDEVICE ||
      a->kind == TIR_AV_ITER_VAR || a->kind == TIR_AV_RANGE || a->kind == TIR_AV_MAP) {
    for (int i = 0; i < a->n; i++) c_av(c, a->items[i]);
    return;
  }
  const char *prev = NULL;
  for (int k = 0; k < a->n; k++) { /* selection by key: n is small */
    int best = -1;
    for (int i = 0; i < a->n; i++) {
      if (prev && strcmp(a->keys[i], prev) <= 0) continue;
      if (best < 0 || strcmp(a->keys[i], a->keys[best]) < 0) best = i;
    }
    if (best < 0) break;
    put_str(c, a->keys[best]);
    c_av(c, a->items[best]);
    prev = a->keys[best];
  }
}

static void c_annots(canon *c, const tir_attr_val *a) {
  if (a && a->n == 0) a = NULL; /* an empty dict is no dict */
  c_av(c, a);
}

static void c_region(canon *c, const tir_buffer_region *r) {
  put(c, T_REGION);
  c_buffer(c, r->buf);
  put(c, (uint64_t)r->n);
  for (int i = 0; i < r->n; i++) {
    c_expr(c, r->region[i].min);
    c_expr(c, r->region[i].extent);
  }
}

static void c_stmt(canon *c, const tir_stmt *s);

static void c_block(canon *c, const tir_block *b) {
  put_str(c, b->name);
  put(c, (uint64_t)b->no_realize);
  put(c, (uint64_t)b->n_iter);
  for (int i = 0; i < b->n_iter; i++) {
    put(c, T_ITER);
    c_var(c, b->iter_vars[i].var);
    c_expr(c, b->iter_vars[i].dom.min);
    c_expr(c, b->iter_vars[i].dom.extent);
    put(c, (uint64_t)b->iter_vars[i].type);
  }
  put(c, (uint64_t)b->n_alloc);
  for (int i = 0; i < b->n_alloc; i++) c_buffer(c, b->alloc_buffers[i]);
  put(c, (uint64_t)b->n_match);
  for (int i = 0; i < b->n_match; i++) {
    put(c, T_MATCH);
    c_region(c, &b->match_buffers[i].src);
    c_buffer(c, b->match_buffers[i].buf);
  }
  put(c, (uint64_t)b->n_reads);
  for (int i = 0; i < b->n_reads; i++) c_region(c, &b->reads[i]);
  put(c, (uint64_t)b->n_writes);
  for (int i = 0; i < b->n_writes; i++) c_region(c, &b->writes[i]);
  c_annots(c, b->annotations);
  c_stmt(c, b->init);
  c_stmt(c, b->body);
}

static void c_stmt(canon *c, const tir_stmt *s) {
  if (!s) {
    put(c, T_NULL);
    return;
  }
  put(c, 0x2000 + (uint64_t)s->kind);
  switch (s->kind) {
  case TIR_BUFFER_STORE:
    c_buffer(c, s->u.store.buf);
    c_exprs(c, s->u.store.idx, s->u.store.nidx);
    c_expr(c, s->u.store.value);
    break;
  case TIR_LET_STMT:
    c_expr(c, s->u.let.value);
    c_var(c, s->u.let.var);
    c_stmt(c, s->u.let.body);
    break;
  case TIR_FOR:
    c_var(c, s->u.loop.var);
    c_expr(c, s->u.loop.min);
    c_expr(c, s->u.loop.extent);
    if (s->u.loop.step) c_expr(c, s->u.loop.step);
    else put(c, T_NULL);
    put(c, (uint64_t)s->u.loop.kind);
    put_str(c, s->u.loop.thread_tag);
    c_annots(c, s->u.loop.annotations);
    c_stmt(c, s->u.loop.body);
    break;
  case TIR_WHILE:
    c_expr(c, s->u.whl.cond);
    c_stmt(c, s->u.whl.body);
    break;
  case TIR_IF:
    c_expr(c, s->u.ifs.cond);
    c_stmt(c, s->u.ifs.then_s);
    c_stmt(c, s->u.ifs.else_s);
    break;
  case TIR_EVALUATE: c_expr(c, s->u.eval.value); break;
  case TIR_SEQ:
    put(c, (uint64_t)s->u.seq.n);
    for (int i = 0; i < s->u.seq.n; i++) c_stmt(c, s->u.seq.stmts[i]);
    break;
  case TIR_ALLOCATE:
    c_var(c, s->u.alloc.var);
    put(c, dt(s->u.alloc.dtype));
    c_exprs(c, s->u.alloc.extents, s->u.alloc.n);
    c_expr(c, s->u.alloc.cond);
    put_str(c, s->u.alloc.scope ? s->u.alloc.scope : "global");
    c_stmt(c, s->u.alloc.body);
    break;
  case TIR_DECL_BUFFER: case TIR_ALLOC_BUFFER:
    c_buffer(c, s->u.decl.buf);
    c_annots(c, s->kind == TIR_ALLOC_BUFFER ? s->u.decl.annotations : NULL);
    put(c, s->kind == TIR_DECL_BUFFER && s->u.decl.implicit);
    put(c, s->kind == TIR_DECL_BUFFER && s->u.decl.data_let);
    c_stmt(c, s->u.decl.body);
    break;
  case TIR_ATTR:
    put_str(c, s->u.attr.key);
    put_str(c, s->u.attr.thread_tag);
    c_expr(c, s->u.attr.node);
    c_av(c, s->u.attr.node_av);
    c_expr(c, s->u.attr.value);
    c_stmt(c, s->u.attr.body);
    break;
  case TIR_ASSERT:
    c_expr(c, s->u.assrt.cond);
    c_expr(c, s->u.assrt.msg);
    put_str(c, s->u.assrt.kind ? s->u.assrt.kind : "RuntimeError");
    for (int i = 0; i < s->u.assrt.nparts; i++) put_str(c, s->u.assrt.parts[i]);
    c_stmt(c, s->u.assrt.body);
    break;
  case TIR_BLOCK_REALIZE:
    c_exprs(c, s->u.realize.iter_values, s->u.realize.n);
    c_expr(c, s->u.realize.predicate);
    c_block(c, s->u.realize.block);
    break;
  default: break;
  }
}

static void c_func(canon *c, const tir_func *f) {
  put(c, T_FUNC);
  put(c, (uint64_t)f->nparams);
  for (int i = 0; i < f->nparams; i++) {
    c_var(c, f->params[i]);
    c_buffer(c, f->buffer_map ? f->buffer_map[i] : NULL);
  }
  c_annots(c, f->attrs);
  put(c, dt(f->ret_type));
  put(c, f->ret_void_written);
  c_stmt(c, f->body);
}

static void c_free(canon *c) {
  free(c->tok);
  free(c->vars.keys);
  free(c->vars.vals);
  free(c->bufs.keys);
  free(c->bufs.vals);
}

static bool same_stream(canon *a, canon *b) {
  bool eq = a->n == b->n && (a->n == 0 || !memcmp(a->tok, b->tok, a->n * sizeof *a->tok));
  c_free(a);
  c_free(b);
  return eq;
}

static uint64_t stream_hash(canon *c) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < c->n; i++) {
    h ^= c->tok[i];
    h *= 1099511628211ull;
    h ^= h >> 29;
  }
  c_free(c);
  return h;
}

bool tir_expr_identical(const tir_expr *a, const tir_expr *b) {
  canon x = {.free_identity = true}, y = {.free_identity = true};
  c_expr(&x, a);
  c_expr(&y, b);
  return same_stream(&x, &y);
}

bool tir_struct_equal_expr(const tir_expr *a, const tir_expr *b) {
  canon x = {0}, y = {0};
  c_expr(&x, a);
  c_expr(&y, b);
  return same_stream(&x, &y);
}

bool tir_struct_equal_stmt(const tir_stmt *a, const tir_stmt *b) {
  canon x = {0}, y = {0};
  c_stmt(&x, a);
  c_stmt(&y, b);
  return same_stream(&x, &y);
}

bool tir_struct_equal_func(const tir_func *a, const tir_func *b) {
  if (!a || !b) return a == b;
  canon x = {0}, y = {0};
  c_func(&x, a);
  c_func(&y, b);
  return same_stream(&x, &y);
}

uint64_t tir_struct_hash_expr(const tir_expr *e) {
  canon c = {0};
  c_expr(&c, e);
  return stream_hash(&c);
}

uint64_t tir_struct_hash_stmt(const tir_stmt *s) {
  canon c = {0};
  c_stmt(&c, s);
  return stream_hash(&c);
}

uint64_t tir_struct_hash_func(const tir_func *f) {
  canon c = {0};
  if (f) c_func(&c, f);
  return stream_hash(&c);
}
