/* node.c - constructors of expressions, statements, buffers, blocks,
 * functions and modules. */
#include <string.h>

#include "tir/ir.h"

static void *copy_arr(tir_ctx *c, const void *src, size_t n, size_t elem) {
  if (n == 0 || !src) return NULL;
  void *p = tir_alloc(c, n * elem);
  memcpy(p, src, n * elem);
  return p;
}

static tir_expr *new_expr(tir_ctx *c, tir_expr_kind k, tir_dtype t) {
  tir_expr *e = tir_alloc(c, sizeof *e);
  e->kind = k;
  e->dtype = t;
  return e;
}

tir_expr *tir_var(tir_ctx *c, const char *name, tir_dtype t) {
  tir_expr *e = new_expr(c, TIR_VAR, t);
  e->u.var.name = tir_strdup(c, name);
  e->u.var.id = tir_ctx_next_id(c);
  return e;
}

tir_expr *tir_size_var(tir_ctx *c, const char *name, tir_dtype t) {
  tir_expr *e = tir_var(c, name, t);
  e->u.var.size_var = true;
  return e;
}

tir_expr *tir_int(tir_ctx *c, tir_dtype t, int64_t v) {
  tir_expr *e = new_expr(c, TIR_INT_IMM, t);
  e->u.int_val = v;
  return e;
}
tir_expr *tir_i32(tir_ctx *c, int64_t v) { return tir_int(c, TIR_INT32, v); }
tir_expr *tir_bool(tir_ctx *c, bool v) { return tir_int(c, TIR_BOOL, v ? 1 : 0); }

tir_expr *tir_float(tir_ctx *c, tir_dtype t, double v) {
  tir_expr *e = new_expr(c, TIR_FLOAT_IMM, t);
  e->u.float_val = v;
  return e;
}

tir_expr *tir_string(tir_ctx *c, const char *s) {
  tir_expr *e = new_expr(c, TIR_STRING_IMM, TIR_HANDLE);
  e->u.str = tir_strdup(c, s);
  return e;
}

tir_expr *tir_binary(tir_ctx *c, tir_expr_kind k, tir_expr *a, tir_expr *b) {
  tir_dtype t = a->dtype;
  if (TIR_IS_CMP(k) || k == TIR_AND || k == TIR_OR) t = tir_dtype_with_lanes(TIR_BOOL, a->dtype.lanes);
  tir_expr *e = new_expr(c, k, t);
  e->u.bin.a = a;
  e->u.bin.b = b;
  return e;
}

tir_expr *tir_not(tir_ctx *c, tir_expr *a) {
  tir_expr *e = new_expr(c, TIR_NOT, a->dtype);
  e->u.un.a = a;
  return e;
}

tir_expr *tir_cast(tir_ctx *c, tir_dtype t, tir_expr *a) {
  tir_expr *e = new_expr(c, TIR_CAST, t);
  e->u.un.a = a;
  return e;
}

tir_expr *tir_select(tir_ctx *c, tir_expr *cond, tir_expr *t, tir_expr *f) {
  tir_expr *e = new_expr(c, TIR_SELECT, t->dtype);
  e->u.select.cond = cond;
  e->u.select.t = t;
  e->u.select.f = f;
  return e;
}

tir_expr *tir_call(tir_ctx *c, tir_dtype t, const char *op, tir_expr *const *args, int nargs) {
  tir_expr *e = new_expr(c, TIR_CALL, t);
  e->u.call.op = tir_strdup(c, op);
  e->u.call.args = copy_arr(c, args, (size_t)nargs, sizeof *args);
  e->u.call.nargs = nargs;
  return e;
}

tir_expr *tir_comm_reducer(tir_ctx *c, tir_expr *const *lhs, tir_expr *const *rhs, tir_expr *const *result,
                           tir_expr *const *identity, int n) {
  tir_expr *e = new_expr(c, TIR_CALL, TIR_HANDLE);
  e->u.call.op = "comm_reducer";
  e->u.call.args = tir_alloc(c, sizeof *e->u.call.args * (size_t)(4 * n + 1));
  e->u.call.nargs = 4 * n;
  for (int i = 0; i < n; i++) {
    e->u.call.args[i] = lhs[i];
    e->u.call.args[n + i] = rhs[i];
    e->u.call.args[2 * n + i] = result[i];
    e->u.call.args[3 * n + i] = identity[i];
  }
  return e;
}

bool tir_is_comm_reducer(const tir_expr *e) {
  return e && e->kind == TIR_CALL && e->u.call.nargs % 4 == 0 && !strcmp(e->u.call.op, "comm_reducer");
}

tir_expr *tir_load(tir_ctx *c, tir_buffer *buf, tir_expr *const *idx, int nidx) {
  tir_dtype t = buf->dtype;
  /* a Ramp index makes a vector load */
  for (int i = 0; i < nidx; i++)
    if (idx[i]->dtype.lanes > 1) t = tir_dtype_with_lanes(t, idx[i]->dtype.lanes * buf->dtype.lanes);
  tir_expr *e = new_expr(c, TIR_BUFFER_LOAD, t);
  e->u.load.buf = buf;
  e->u.load.idx = copy_arr(c, idx, (size_t)nidx, sizeof *idx);
  e->u.load.nidx = nidx;
  return e;
}

tir_expr *tir_ramp(tir_ctx *c, tir_expr *base, tir_expr *stride, int lanes) {
  tir_expr *e = new_expr(c, TIR_RAMP, tir_dtype_with_lanes(base->dtype, lanes));
  e->u.ramp.base = base;
  e->u.ramp.stride = stride;
  e->u.ramp.lanes = lanes;
  return e;
}

tir_expr *tir_broadcast(tir_ctx *c, tir_expr *value, int lanes) {
  tir_expr *e = new_expr(c, TIR_BROADCAST, tir_dtype_with_lanes(value->dtype, lanes));
  e->u.bcast.value = value;
  e->u.bcast.lanes = lanes;
  return e;
}

tir_expr *tir_let(tir_ctx *c, tir_expr *var, tir_expr *value, tir_expr *body) {
  tir_expr *e = new_expr(c, TIR_LET, body->dtype);
  e->u.let.var = var;
  e->u.let.value = value;
  e->u.let.body = body;
  return e;
}

tir_expr *tir_expr_with_span(tir_ctx *c, const tir_expr *e, tir_span sp) {
  tir_expr *n = tir_alloc(c, sizeof *n);
  *n = *e;
  n->span = sp;
  return n;
}

bool tir_is_const_int(const tir_expr *e, int64_t *out) {
  if (!e || e->kind != TIR_INT_IMM || tir_dtype_is_bool(e->dtype)) return false;
  if (out) *out = e->u.int_val;
  return true;
}

bool tir_is_one_of(const tir_expr *e, tir_expr_kind k) { return e && e->kind == k; }

/* ---- attribute values ---- */

tir_attr_val *tir_av_expr(tir_ctx *c, tir_expr *e) {
  tir_attr_val *v = tir_alloc(c, sizeof *v);
  v->kind = TIR_AV_EXPR;
  v->expr = e;
  return v;
}

tir_attr_val *tir_av_list(tir_ctx *c, tir_attr_val *const *items, int n) {
  tir_attr_val *v = tir_alloc(c, sizeof *v);
  v->kind = TIR_AV_LIST;
  v->items = copy_arr(c, items, (size_t)n, sizeof *items);
  v->n = n;
  return v;
}

tir_attr_val *tir_av_target(tir_ctx *c, tir_attr_val *spec, tir_attr_val *host) {
  tir_attr_val *items[2] = {spec, host};
  tir_attr_val *v = tir_av_list(c, items, host ? 2 : 1);
  v->kind = TIR_AV_TARGET;
  return v;
}

tir_attr_val *tir_av_dict(tir_ctx *c, const char *const *keys, tir_attr_val *const *items, int n) {
  tir_attr_val *v = tir_alloc(c, sizeof *v);
  v->kind = TIR_AV_DICT;
  v->items = copy_arr(c, items, (size_t)n, sizeof *items);
  v->keys = copy_arr(c, keys, (size_t)n, sizeof *keys);
  v->n = n;
  return v;
}

bool tir_av_int_list(const tir_attr_val *v, int64_t *out, int n) {
  if (!v || v->kind != TIR_AV_LIST || v->n != n) return false;
  for (int k = 0; k < n; k++)
    if (v->items[k]->kind != TIR_AV_EXPR || !tir_is_const_int(v->items[k]->expr, &out[k])) return false;
  return true;
}

tir_attr_val *tir_av_get(const tir_attr_val *d, const char *key) {
  if (!d || d->kind != TIR_AV_DICT) return NULL;
  for (int i = 0; i < d->n; i++)
    if (!strcmp(d->keys[i], key)) return d->items[i];
  return NULL;
}

/* ---- buffers ---- */

tir_buffer *tir_buffer_new(tir_ctx *c, const char *name, tir_dtype dtype, tir_expr *const *shape,
                           int ndim, tir_expr *const *strides, int nstrides, tir_expr *elem_offset,
                           const char *scope, int data_alignment, int offset_factor,
                           tir_expr *data) {
  tir_buffer *b = tir_alloc(c, sizeof *b);
  b->name = tir_strdup(c, name);
  b->id = tir_ctx_next_id(c);
  b->dtype = dtype;
  b->shape = copy_arr(c, shape, (size_t)ndim, sizeof *shape);
  b->ndim = ndim;
  b->strides = copy_arr(c, strides, (size_t)nstrides, sizeof *strides);
  b->nstrides = nstrides;
  b->elem_offset = elem_offset ? elem_offset : tir_i32(c, 0);
  b->scope = tir_strdup(c, scope ? scope : "global");
  b->data_alignment = data_alignment;
  b->offset_factor = offset_factor;
  if (!data) {
    data = tir_var(c, name, TIR_HANDLE);
    data->u.var.ptr_scope = b->scope;
    data->u.var.ptr_elem = dtype;
  }
  b->data = data;
  return b;
}

tir_buffer *tir_buffer_copy(tir_ctx *c, const tir_buffer *b) {
  tir_buffer *n = tir_alloc(c, sizeof *n);
  *n = *b;
  n->id = tir_ctx_next_id(c);
  return n;
}

/* ---- statements ---- */

static tir_stmt *new_stmt(tir_ctx *c, tir_stmt_kind k) {
  tir_stmt *s = tir_alloc(c, sizeof *s);
  s->kind = k;
  return s;
}

tir_stmt *tir_store(tir_ctx *c, tir_buffer *buf, tir_expr *value, tir_expr *const *idx, int nidx) {
  tir_stmt *s = new_stmt(c, TIR_BUFFER_STORE);
  s->u.store.buf = buf;
  s->u.store.value = value;
  s->u.store.idx = copy_arr(c, idx, (size_t)nidx, sizeof *idx);
  s->u.store.nidx = nidx;
  return s;
}

tir_stmt *tir_let_stmt(tir_ctx *c, tir_expr *var, tir_expr *value, tir_stmt *body) {
  tir_stmt *s = new_stmt(c, TIR_LET_STMT);
  s->u.let.var = var;
  s->u.let.value = value;
  s->u.let.body = body;
  return s;
}

tir_stmt *tir_for(tir_ctx *c, tir_expr *var, tir_expr *min, tir_expr *extent, tir_for_kind kind,
                  const char *thread_tag, tir_attr_val *annots, tir_stmt *body) {
  tir_stmt *s = new_stmt(c, TIR_FOR);
  s->u.loop.var = var;
  s->u.loop.min = min;
  s->u.loop.extent = extent;
  s->u.loop.kind = kind;
  s->u.loop.thread_tag = thread_tag ? tir_strdup(c, thread_tag) : NULL;
  s->u.loop.annotations = annots;
  s->u.loop.body = body;
  return s;
}

tir_stmt *tir_while(tir_ctx *c, tir_expr *cond, tir_stmt *body) {
  tir_stmt *s = new_stmt(c, TIR_WHILE);
  s->u.whl.cond = cond;
  s->u.whl.body = body;
  return s;
}

tir_stmt *tir_if(tir_ctx *c, tir_expr *cond, tir_stmt *then_s, tir_stmt *else_s) {
  tir_stmt *s = new_stmt(c, TIR_IF);
  s->u.ifs.cond = cond;
  s->u.ifs.then_s = then_s;
  s->u.ifs.else_s = else_s;
  return s;
}

tir_stmt *tir_evaluate(tir_ctx *c, tir_expr *value) {
  tir_stmt *s = new_stmt(c, TIR_EVALUATE);
  s->u.eval.value = value;
  return s;
}

tir_stmt *tir_break(tir_ctx *c) { return new_stmt(c, TIR_BREAK); }
tir_stmt *tir_continue(tir_ctx *c) { return new_stmt(c, TIR_CONTINUE); }

tir_stmt *tir_seq(tir_ctx *c, tir_stmt *const *stmts, int n) {
  int total = 0;
  for (int i = 0; i < n; i++) {
    if (!stmts[i]) continue;
    total += stmts[i]->kind == TIR_SEQ ? stmts[i]->u.seq.n : 1;
  }
  tir_stmt **arr = tir_alloc(c, sizeof *arr * (size_t)(total ? total : 1));
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (!stmts[i]) continue;
    if (stmts[i]->kind == TIR_SEQ)
      for (int j = 0; j < stmts[i]->u.seq.n; j++) arr[k++] = stmts[i]->u.seq.stmts[j];
    else
      arr[k++] = stmts[i];
  }
  if (k == 1) return arr[0];
  tir_stmt *s = new_stmt(c, TIR_SEQ);
  s->u.seq.stmts = arr;
  s->u.seq.n = k;
  return s;
}

tir_stmt *tir_allocate(tir_ctx *c, tir_expr *var, tir_dtype dtype, tir_expr *const *extents, int n,
                       const char *scope, tir_stmt *body) {
  tir_stmt *s = new_stmt(c, TIR_ALLOCATE);
  s->u.alloc.var = var;
  s->u.alloc.dtype = dtype;
  s->u.alloc.extents = copy_arr(c, extents, (size_t)n, sizeof *extents);
  s->u.alloc.n = n;
  s->u.alloc.cond = tir_bool(c, true);
  s->u.alloc.scope = tir_strdup(c, scope ? scope : "global");
  s->u.alloc.body = body;
  return s;
}

tir_stmt *tir_decl_buffer(tir_ctx *c, tir_buffer *buf, tir_stmt *body) {
  tir_stmt *s = new_stmt(c, TIR_DECL_BUFFER);
  s->u.decl.buf = buf;
  s->u.decl.body = body;
  return s;
}

tir_stmt *tir_alloc_buffer_stmt(tir_ctx *c, tir_buffer *buf, tir_stmt *body) {
  tir_stmt *s = new_stmt(c, TIR_ALLOC_BUFFER);
  s->u.decl.buf = buf;
  s->u.decl.body = body;
  return s;
}

tir_stmt *tir_alloc_buffer_annotated(tir_ctx *c, tir_buffer *buf, tir_attr_val *annots, tir_stmt *body) {
  tir_stmt *s = tir_alloc_buffer_stmt(c, buf, body);
  s->u.decl.annotations = annots;
  return s;
}

tir_stmt *tir_attr_stmt(tir_ctx *c, const char *key, tir_expr *node, tir_expr *value, tir_stmt *body) {
  tir_stmt *s = new_stmt(c, TIR_ATTR);
  s->u.attr.key = tir_strdup(c, key);
  s->u.attr.node = node;
  s->u.attr.value = value;
  s->u.attr.body = body;
  return s;
}

tir_stmt *tir_assert(tir_ctx *c, tir_expr *cond, tir_expr *msg, tir_stmt *body) {
  tir_stmt *s = new_stmt(c, TIR_ASSERT);
  s->u.assrt.cond = cond;
  s->u.assrt.msg = msg;
  s->u.assrt.body = body;
  return s;
}

tir_stmt *tir_block_realize(tir_ctx *c, tir_expr *const *iter_values, int n, tir_expr *predicate,
                            tir_block *block) {
  tir_stmt *s = new_stmt(c, TIR_BLOCK_REALIZE);
  s->u.realize.iter_values = copy_arr(c, iter_values, (size_t)n, sizeof *iter_values);
  s->u.realize.n = n;
  s->u.realize.predicate = predicate ? predicate : tir_bool(c, true);
  s->u.realize.block = block;
  return s;
}

tir_block *tir_block_new(tir_ctx *c, const char *name) {
  tir_block *b = tir_alloc(c, sizeof *b);
  b->name = tir_strdup(c, name ? name : "");
  return b;
}

tir_block *tir_block_copy(tir_ctx *c, const tir_block *b) {
  tir_block *n = tir_alloc(c, sizeof *n);
  *n = *b;
  return n;
}

tir_stmt *tir_stmt_copy(tir_ctx *c, const tir_stmt *s) {
  tir_stmt *n = tir_alloc(c, sizeof *n);
  *n = *s;
  return n;
}

/* ---- functions and modules ---- */

tir_expr_kind tir_cmp_swapped(tir_expr_kind k) {
  switch (k) {
  case TIR_LT: return TIR_GT;
  case TIR_LE: return TIR_GE;
  case TIR_GT: return TIR_LT;
  case TIR_GE: return TIR_LE;
  default: return k;
  }
}

tir_expr_kind tir_cmp_negated(tir_expr_kind k) {
  switch (k) {
  case TIR_LT: return TIR_GE;
  case TIR_LE: return TIR_GT;
  case TIR_GT: return TIR_LE;
  case TIR_GE: return TIR_LT;
  case TIR_EQ: return TIR_NE;
  default: return TIR_EQ;
  }
}

bool tir_func_is_param_buffer(const tir_func *f, const tir_buffer *b) {
  for (int i = 0; f->buffer_map && i < f->nparams; i++)
    if (f->buffer_map[i] && (f->buffer_map[i] == b || f->buffer_map[i]->data == b->data)) return true;
  return false;
}

tir_func *tir_func_copy(tir_ctx *c, const tir_func *f) {
  tir_func *n = tir_alloc(c, sizeof *n);
  *n = *f;
  return n;
}

tir_module *tir_module_new(tir_ctx *c, const char *name) {
  tir_module *m = tir_alloc(c, sizeof *m);
  m->name = name ? tir_strdup(c, name) : NULL;
  return m;
}

tir_module *tir_module_new_like(tir_ctx *c, const tir_module *m) {
  tir_module *n = tir_module_new(c, m->name);
  n->attrs = m->attrs;
  n->global_infos = m->global_infos;
  n->global_infos_text = m->global_infos_text;
  n->type_vars_text = m->type_vars_text;
  n->text_funcs = m->text_funcs;
  n->ntext_funcs = m->ntext_funcs;
  n->no_wf_check = m->no_wf_check;
  return n;
}

void tir_module_add(tir_ctx *c, tir_module *m, tir_func *f) {
  if (m->funcs != m->own_funcs || m->nfuncs >= m->cap_funcs) { /* a copy with room to double (was: one more each time, quadratic) */
    int cap = m->nfuncs < 4 ? 8 : 2 * m->nfuncs;
    tir_func **arr = tir_alloc(c, sizeof *arr * (size_t)cap);
    if (m->nfuncs) memcpy(arr, m->funcs, sizeof *arr * (size_t)m->nfuncs);
    m->funcs = m->own_funcs = arr;
    m->cap_funcs = cap;
  }
  m->funcs[m->nfuncs++] = f;
}

tir_func *tir_module_find(const tir_module *m, const char *name) {
  for (int i = 0; i < m->nfuncs; i++)
    if (!strcmp(m->funcs[i]->name, name)) return m->funcs[i];
  return NULL;
}

tir_func *tir_func_with_symbol(tir_ctx *c, const tir_func *f, const char *symbol) {
  tir_func *g = tir_alloc(c, sizeof *g);
  *g = *f;
  const tir_attr_val *a = f->attrs && f->attrs->kind == TIR_AV_DICT ? f->attrs : NULL;
  int n = a ? a->n : 0, k = 0;
  const char **keys = tir_alloc(c, sizeof *keys * (size_t)(n + 1));
  tir_attr_val **vals = tir_alloc(c, sizeof *vals * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    if (!strcmp(a->keys[i], "global_symbol")) continue;
    keys[k] = a->keys[i];
    vals[k++] = a->items[i];
  }
  keys[k] = "global_symbol";
  vals[k++] = tir_av_expr(c, tir_string(c, symbol));
  g->attrs = tir_av_dict(c, keys, vals, k);
  return g;
}

const char *tir_func_symbol(const tir_func *f) {
  tir_attr_val *v = tir_av_get(f->attrs, "global_symbol");
  if (v && v->kind == TIR_AV_EXPR && v->expr && v->expr->kind == TIR_STRING_IMM) return v->expr->u.str;
  return f->name;
}

bool tir_is_constant_valued(const tir_expr *e) {
  for (int depth = 0; e && depth < 256; depth++) {
    if (e->kind == TIR_INT_IMM || e->kind == TIR_FLOAT_IMM) return true;
    if (e->kind == TIR_CAST) {
      e = e->u.un.a;
      continue;
    }
    if (TIR_IS_BINARY(e->kind))
      return tir_is_constant_valued(e->u.bin.a) && tir_is_constant_valued(e->u.bin.b);
    if (e->kind == TIR_SELECT)
      return tir_is_constant_valued(e->u.select.cond) && tir_is_constant_valued(e->u.select.t) &&
             tir_is_constant_valued(e->u.select.f);
    if (e->kind == TIR_CALL && !strcmp(e->u.call.op, "reinterpret") && e->u.call.nargs == 1) {
      e = e->u.call.args[0];
      continue;
    }
    return false;
  }
  return false;
}
