/* substitute.c - var maps and substitution of Vars by exprs.
 *
 * Vars are replaced by identity.  A buffer whose fields (data, shape,
 * strides, elem_offset) mention a substituted var is replaced by a copy
 * with those fields rewritten, the same copy at every use. */
#include <stdlib.h>
#include <string.h>

#include "tir/visit.h"
#include "ir/ptrmap.h"

/* the position of var in m, or -1: a hash index once the map passes 8 keys
 * (substitution maps grow with the program: a linear scan made passes
 * quadratic) */
static int find(const tir_var_map *m, const tir_expr *var) {
  if (m->index) { /* callers may truncate n as a scope stack: an entry past it is stale */
    int i = (int)tir_ptrmap_get(m->index, var, 0) - 1;
    return i >= 0 && i < m->n && m->keys[i] == var ? i : -1;
  }
  for (int i = m->n - 1; i >= 0; i--)
    if (m->keys[i] == var) return i;
  return -1;
}

void tir_var_map_set(tir_var_map *m, const tir_expr *var, tir_expr *val) {
  int i = find(m, var);
  if (i >= 0) {
    m->vals[i] = val;
    return;
  }
  if (m->n == m->cap) {
    int cap = m->cap ? m->cap * 2 : 8;
    const tir_expr **k = realloc(m->keys, sizeof *k * (size_t)cap);
    if (!k) abort(); /* out of memory, not bad input */
    m->keys = k;
    tir_expr **v = realloc(m->vals, sizeof *v * (size_t)cap);
    if (!v) abort();
    m->vals = v;
    m->cap = cap;
  }
  m->keys[m->n] = var;
  m->vals[m->n] = val;
  m->n++;
  if (!m->index && m->n > 8) {
    m->index = calloc(1, sizeof *m->index);
    if (!m->index) abort();
    for (int k = 0; k < m->n; k++) tir_ptrmap_put(m->index, m->keys[k], k + 1);
  } else if (m->index) {
    tir_ptrmap_put(m->index, var, m->n);
  }
}

tir_expr *tir_var_map_get(const tir_var_map *m, const tir_expr *var) {
  if (!m) return NULL;
  int i = find(m, var);
  return i >= 0 ? m->vals[i] : NULL;
}

void tir_var_map_free(tir_var_map *m) {
  free(m->keys);
  free(m->vals);
  if (m->index) tir_ptrmap_free(m->index);
  free(m->index);
  memset(m, 0, sizeof *m);
}

typedef struct subst {
  tir_mutator base;
  const tir_var_map *map;
  /* buffers already seen: old -> new (new == old when unchanged) */
  tir_buffer **from, **to;
  int nbuf, capbuf;
} subst;

static tir_expr *subst_expr(tir_mutator *m, tir_expr *e) {
  subst *s = (subst *)m;
  if (e->kind != TIR_VAR) return e;
  tir_expr *r = tir_var_map_get(s->map, e);
  return r ? r : e;
}

static void remember(subst *s, tir_buffer *from, tir_buffer *to) {
  if (s->nbuf == s->capbuf) {
    int cap = s->capbuf ? s->capbuf * 2 : 8;
    tir_buffer **f = realloc(s->from, sizeof *f * (size_t)cap);
    if (!f) abort();
    s->from = f;
    tir_buffer **t = realloc(s->to, sizeof *t * (size_t)cap);
    if (!t) abort();
    s->to = t;
    s->capbuf = cap;
  }
  s->from[s->nbuf] = from;
  s->to[s->nbuf] = to;
  s->nbuf++;
}

static tir_expr **subst_arr(tir_mutator *m, tir_expr **es, int n, bool *changed) {
  tir_expr **out = tir_mutate_exprs(m, es, n);
  if (out != es) *changed = true;
  return out;
}

static tir_buffer *subst_buffer(tir_mutator *m, tir_buffer *b) {
  subst *s = (subst *)m;
  for (int i = 0; i < s->nbuf; i++)
    if (s->from[i] == b) return s->to[i];
  bool changed = false;
  tir_expr *data = tir_mutate_expr(m, b->data);
  tir_expr **shape = subst_arr(m, b->shape, b->ndim, &changed);
  tir_expr **strides = subst_arr(m, b->strides, b->nstrides, &changed);
  tir_expr *off = tir_mutate_expr(m, b->elem_offset);
  tir_expr **layout = subst_arr(m, b->layout, 2 * b->nlayout, &changed);
  tir_expr **addr = subst_arr(m, b->addr, b->naddr, &changed);
  tir_buffer *r = b;
  if (changed || data != b->data || off != b->elem_offset) {
    r = tir_buffer_copy(m->ctx, b);
    r->data = data;
    r->shape = shape;
    r->strides = strides;
    r->elem_offset = off;
    r->layout = layout;
    r->addr = addr;
  }
  remember(s, b, r);
  return r;
}

static void subst_init(subst *s, tir_ctx *c, const tir_var_map *m) {
  memset(s, 0, sizeof *s);
  s->base.ctx = c;
  s->base.expr = subst_expr;
  s->base.buffer = subst_buffer;
  s->map = m;
}

static void subst_done(subst *s) {
  free(s->from);
  free(s->to);
}

tir_expr *tir_substitute_expr(tir_ctx *c, tir_expr *e, const tir_var_map *m) {
  if (!m || m->n == 0) return e;
  subst s;
  subst_init(&s, c, m);
  tir_expr *r = tir_mutate_expr(&s.base, e);
  subst_done(&s);
  return r;
}

tir_stmt *tir_substitute_stmt(tir_ctx *c, tir_stmt *st, const tir_var_map *m) {
  if (!m || m->n == 0) return st;
  subst s;
  subst_init(&s, c, m);
  tir_stmt *r = tir_mutate_stmt(&s.base, st);
  subst_done(&s);
  return r;
}

tir_expr *tir_block_binding(tir_ctx *c, const tir_expr *var, tir_expr *value) {
  if (!value || tir_dtype_eq(var->dtype, value->dtype)) return value;
  int64_t k;
  if (tir_is_const_int(value, &k)) return tir_int(c, var->dtype, k);
  return tir_cast(c, var->dtype, value);
}
