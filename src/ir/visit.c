/* visit.c - the read-only visitor and the rewriting mutator.
 *
 * The visitor walks pre-order: a callback returning false skips the
 * children of that node.  The mutator walks post-order and rebuilds a node
 * only when one of its children changed, so untouched subtrees are shared.
 * Definitions (loop vars, let vars, iter vars) are not visited as exprs,
 * as in TVM's StmtExprVisitor. */
#include <string.h>

#include "tir/visit.h"

/* ------------------------------------------------------------------ */
/* visitor                                                             */

static void visit_buffer(tir_visitor *v, const tir_buffer *b) {
  if (!v->visit_buffer_fields || !b) return;
  tir_visit_expr(v, b->data);
  for (int i = 0; i < b->ndim; i++) tir_visit_expr(v, b->shape[i]);
  for (int i = 0; i < b->nstrides; i++) tir_visit_expr(v, b->strides[i]);
  tir_visit_expr(v, b->elem_offset);
  for (int i = 0; i < 2 * b->nlayout; i++) tir_visit_expr(v, b->layout[i]);
  for (int i = 0; i < b->naddr; i++) tir_visit_expr(v, b->addr[i]);
}

static void visit_region(tir_visitor *v, const tir_buffer_region *r, const tir_stmt *owner) {
  if (v->region) v->region(v, r, owner);
  visit_buffer(v, r->buf);
  for (int i = 0; i < r->n; i++) {
    tir_visit_expr(v, r->region[i].min);
    tir_visit_expr(v, r->region[i].extent);
  }
}

static void visit_exprs(tir_visitor *v, tir_expr *const *es, int n) {
  for (int i = 0; i < n; i++) tir_visit_expr(v, es[i]);
}

void tir_visit_expr(tir_visitor *v, const tir_expr *e) {
  if (!e) return;
  if (v->expr && !v->expr(v, e)) return;
  switch (e->kind) {
  case TIR_VAR: case TIR_INT_IMM: case TIR_FLOAT_IMM: case TIR_STRING_IMM:
    break;
  case TIR_NOT: case TIR_CAST:
    tir_visit_expr(v, e->u.un.a);
    break;
  case TIR_SELECT:
    tir_visit_expr(v, e->u.select.cond);
    tir_visit_expr(v, e->u.select.t);
    tir_visit_expr(v, e->u.select.f);
    break;
  case TIR_CALL:
    if (!tir_is_comm_reducer(e)) visit_exprs(v, e->u.call.args, e->u.call.nargs); /* a closed term */
    break;
  case TIR_BUFFER_LOAD:
    visit_buffer(v, e->u.load.buf);
    visit_exprs(v, e->u.load.idx, e->u.load.nidx);
    break;
  case TIR_RAMP:
    tir_visit_expr(v, e->u.ramp.base);
    tir_visit_expr(v, e->u.ramp.stride);
    break;
  case TIR_BROADCAST:
    tir_visit_expr(v, e->u.bcast.value);
    break;
  case TIR_LET:
    tir_visit_expr(v, e->u.let.value);
    tir_visit_expr(v, e->u.let.body);
    break;
  default:
    if (TIR_IS_BINARY(e->kind)) {
      tir_visit_expr(v, e->u.bin.a);
      tir_visit_expr(v, e->u.bin.b);
    }
    break;
  }
}

static void visit_block(tir_visitor *v, const tir_block *b, const tir_stmt *owner) {
  for (int i = 0; i < b->n_iter; i++) {
    tir_visit_expr(v, b->iter_vars[i].dom.min);
    tir_visit_expr(v, b->iter_vars[i].dom.extent);
  }
  for (int i = 0; i < b->n_reads; i++) visit_region(v, &b->reads[i], owner);
  for (int i = 0; i < b->n_writes; i++) visit_region(v, &b->writes[i], owner);
  for (int i = 0; i < b->n_alloc; i++) visit_buffer(v, b->alloc_buffers[i]);
  for (int i = 0; i < b->n_match; i++) {
    visit_buffer(v, b->match_buffers[i].buf);
    visit_region(v, &b->match_buffers[i].src, owner);
  }
  tir_visit_stmt(v, b->init);
  tir_visit_stmt(v, b->body);
}

void tir_visit_stmt(tir_visitor *v, const tir_stmt *s) {
  if (!s) return;
  if (v->stmt && !v->stmt(v, s)) return;
  switch (s->kind) {
  case TIR_BUFFER_STORE:
    visit_buffer(v, s->u.store.buf);
    tir_visit_expr(v, s->u.store.value);
    visit_exprs(v, s->u.store.idx, s->u.store.nidx);
    break;
  case TIR_LET_STMT:
    tir_visit_expr(v, s->u.let.value);
    tir_visit_stmt(v, s->u.let.body);
    break;
  case TIR_FOR:
    tir_visit_expr(v, s->u.loop.min);
    tir_visit_expr(v, s->u.loop.extent);
    if (s->u.loop.step) tir_visit_expr(v, s->u.loop.step);
    tir_visit_stmt(v, s->u.loop.body);
    break;
  case TIR_WHILE:
    tir_visit_expr(v, s->u.whl.cond);
    tir_visit_stmt(v, s->u.whl.body);
    break;
  case TIR_IF:
    tir_visit_expr(v, s->u.ifs.cond);
    tir_visit_stmt(v, s->u.ifs.then_s);
    tir_visit_stmt(v, s->u.ifs.else_s);
    break;
  case TIR_EVALUATE:
    tir_visit_expr(v, s->u.eval.value);
    break;
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) tir_visit_stmt(v, s->u.seq.stmts[i]);
    break;
  case TIR_ALLOCATE:
    visit_exprs(v, s->u.alloc.extents, s->u.alloc.n);
    tir_visit_expr(v, s->u.alloc.cond);
    tir_visit_stmt(v, s->u.alloc.body);
    break;
  case TIR_DECL_BUFFER: case TIR_ALLOC_BUFFER:
    visit_buffer(v, s->u.decl.buf);
    tir_visit_stmt(v, s->u.decl.body);
    break;
  case TIR_ATTR:
    tir_visit_expr(v, s->u.attr.node);
    tir_visit_expr(v, s->u.attr.value);
    tir_visit_stmt(v, s->u.attr.body);
    break;
  case TIR_ASSERT:
    tir_visit_expr(v, s->u.assrt.cond);
    tir_visit_expr(v, s->u.assrt.msg);
    tir_visit_stmt(v, s->u.assrt.body);
    break;
  case TIR_BLOCK_REALIZE:
    visit_exprs(v, s->u.realize.iter_values, s->u.realize.n);
    tir_visit_expr(v, s->u.realize.predicate);
    visit_block(v, s->u.realize.block, s);
    break;
  default:
    break;
  }
}

/* ------------------------------------------------------------------ */
/* mutator                                                             */

static tir_buffer *mut_buffer(tir_mutator *m, tir_buffer *b) {
  return (m->buffer && b) ? m->buffer(m, b) : b;
}

tir_expr **tir_mutate_exprs(tir_mutator *m, tir_expr **es, int n) {
  tir_expr **out = es;
  for (int i = 0; i < n; i++) {
    tir_expr *x = tir_mutate_expr(m, es[i]);
    if (x == es[i]) continue;
    if (out == es) {
      out = tir_alloc(m->ctx, sizeof *out * (size_t)n);
      memcpy(out, es, sizeof *out * (size_t)n);
    }
    out[i] = x;
  }
  return out;
}

static tir_expr *copy_expr(tir_mutator *m, const tir_expr *e) {
  tir_expr *n = tir_alloc(m->ctx, sizeof *n);
  *n = *e;
  return n;
}

/* a rebuilt node keeps the source position of the one it replaces (where
 * a run's error points, after any pass) */
static tir_expr *with_span(tir_expr *n, const tir_expr *e) {
  if (n && !n->span.line) n->span = e->span;
  return n;
}

static tir_expr *mut_expr_children(tir_mutator *m, tir_expr *e) {
  tir_expr *n;
  switch (e->kind) {
  case TIR_VAR: case TIR_INT_IMM: case TIR_FLOAT_IMM: case TIR_STRING_IMM:
    return e;
  case TIR_NOT: case TIR_CAST: {
    tir_expr *a = tir_mutate_expr(m, e->u.un.a);
    if (a == e->u.un.a) return e;
    n = copy_expr(m, e);
    n->u.un.a = a;
    if (e->kind == TIR_NOT) n->dtype = a->dtype;
    return n;
  }
  case TIR_SELECT: {
    tir_expr *c = tir_mutate_expr(m, e->u.select.cond);
    tir_expr *t = tir_mutate_expr(m, e->u.select.t);
    tir_expr *f = tir_mutate_expr(m, e->u.select.f);
    if (c == e->u.select.cond && t == e->u.select.t && f == e->u.select.f) return e;
    return with_span(tir_select(m->ctx, c, t, f), e);
  }
  case TIR_CALL: {
    if (tir_is_comm_reducer(e)) return e; /* a closed term */
    tir_expr **args = tir_mutate_exprs(m, e->u.call.args, e->u.call.nargs);
    /* the buffers whose X.data the args were written as (TVM 0.27's
     * tirx.buffer_data(X), a buffer reference a pass retargets as it
     * retargets the buffer's loads and stores) */
    const tir_buffer **named = e->u.call.named;
    for (int i = 0; m->buffer && e->u.call.named && i < e->u.call.nargs; i++) {
      const tir_buffer *b = e->u.call.named[i];
      const tir_buffer *nb = b ? mut_buffer(m, (tir_buffer *)b) : NULL;
      if (nb == b) continue;
      if (named == e->u.call.named) {
        named = tir_alloc(m->ctx, sizeof *named * (size_t)e->u.call.nargs);
        memcpy(named, e->u.call.named, sizeof *named * (size_t)e->u.call.nargs);
      }
      named[i] = nb;
    }
    if (args == e->u.call.args && named == e->u.call.named) return e;
    n = copy_expr(m, e);
    n->u.call.args = args;
    n->u.call.named = named;
    return n;
  }
  case TIR_BUFFER_LOAD: {
    tir_buffer *b = mut_buffer(m, e->u.load.buf);
    tir_expr **idx = tir_mutate_exprs(m, e->u.load.idx, e->u.load.nidx);
    if (b == e->u.load.buf && idx == e->u.load.idx) return e;
    return with_span(tir_load(m->ctx, b, idx, e->u.load.nidx), e);
  }
  case TIR_RAMP: {
    tir_expr *b = tir_mutate_expr(m, e->u.ramp.base);
    tir_expr *s = tir_mutate_expr(m, e->u.ramp.stride);
    if (b == e->u.ramp.base && s == e->u.ramp.stride) return e;
    return with_span(tir_ramp(m->ctx, b, s, e->u.ramp.lanes), e);
  }
  case TIR_BROADCAST: {
    tir_expr *v = tir_mutate_expr(m, e->u.bcast.value);
    if (v == e->u.bcast.value) return e;
    return with_span(tir_broadcast(m->ctx, v, e->u.bcast.lanes), e);
  }
  case TIR_LET: {
    tir_expr *v = tir_mutate_expr(m, e->u.let.value);
    tir_expr *b = tir_mutate_expr(m, e->u.let.body);
    if (v == e->u.let.value && b == e->u.let.body) return e;
    return with_span(tir_let(m->ctx, e->u.let.var, v, b), e);
  }
  default:
    if (TIR_IS_BINARY(e->kind)) {
      tir_expr *a = tir_mutate_expr(m, e->u.bin.a);
      tir_expr *b = tir_mutate_expr(m, e->u.bin.b);
      if (a == e->u.bin.a && b == e->u.bin.b) return e;
      n = copy_expr(m, e);
      n->u.bin.a = a;
      n->u.bin.b = b;
      if (!TIR_IS_CMP(e->kind) && e->kind != TIR_AND && e->kind != TIR_OR) n->dtype = a->dtype;
      return n;
    }
    return e;
  }
}

tir_expr *tir_mutate_expr(tir_mutator *m, tir_expr *e) {
  if (!e) return NULL;
  tir_expr *n = mut_expr_children(m, e);
  return m->expr ? m->expr(m, n) : n;
}

tir_buffer_region tir_mutate_region(tir_mutator *m, tir_buffer_region r) {
  tir_buffer_region out = r;
  out.buf = mut_buffer(m, r.buf);
  for (int i = 0; i < r.n; i++) {
    tir_expr *mn = tir_mutate_expr(m, r.region[i].min);
    tir_expr *ex = tir_mutate_expr(m, r.region[i].extent);
    if (mn == r.region[i].min && ex == r.region[i].extent) continue;
    if (out.region == r.region) {
      out.region = tir_alloc(m->ctx, sizeof *out.region * (size_t)r.n);
      memcpy(out.region, r.region, sizeof *out.region * (size_t)r.n);
    }
    out.region[i].min = mn;
    out.region[i].extent = ex;
  }
  if (m->region) m->region(m, &out);
  return out;
}

static bool region_same(const tir_buffer_region *a, const tir_buffer_region *b) {
  return a->buf == b->buf && a->region == b->region && a->n == b->n;
}

/* rewrites an array of regions; a new array only if one changed */
static tir_buffer_region *mut_regions(tir_mutator *m, tir_buffer_region *rs, int n) {
  tir_buffer_region *out = rs;
  for (int i = 0; i < n; i++) {
    tir_buffer_region r = tir_mutate_region(m, rs[i]);
    if (region_same(&r, &rs[i])) continue;
    if (out == rs) {
      out = tir_alloc(m->ctx, sizeof *out * (size_t)n);
      memcpy(out, rs, sizeof *out * (size_t)n);
    }
    out[i] = r;
  }
  return out;
}

static tir_iter_var *mut_iter_vars(tir_mutator *m, tir_iter_var *iv, int n) {
  tir_iter_var *out = iv;
  for (int i = 0; i < n; i++) {
    tir_expr *mn = tir_mutate_expr(m, iv[i].dom.min);
    tir_expr *ex = tir_mutate_expr(m, iv[i].dom.extent);
    if (mn == iv[i].dom.min && ex == iv[i].dom.extent) continue;
    if (out == iv) {
      out = tir_alloc(m->ctx, sizeof *out * (size_t)n);
      memcpy(out, iv, sizeof *out * (size_t)n);
    }
    out[i].dom.min = mn;
    out[i].dom.extent = ex;
  }
  return out;
}

static tir_buffer **mut_buffers(tir_mutator *m, tir_buffer **bs, int n) {
  tir_buffer **out = bs;
  for (int i = 0; i < n; i++) {
    tir_buffer *b = mut_buffer(m, bs[i]);
    if (b == bs[i]) continue;
    if (out == bs) {
      out = tir_alloc(m->ctx, sizeof *out * (size_t)n);
      memcpy(out, bs, sizeof *out * (size_t)n);
    }
    out[i] = b;
  }
  return out;
}

static tir_match_buffer *mut_matches(tir_mutator *m, tir_match_buffer *ms, int n) {
  tir_match_buffer *out = ms;
  for (int i = 0; i < n; i++) {
    tir_buffer *b = mut_buffer(m, ms[i].buf);
    tir_buffer_region src = tir_mutate_region(m, ms[i].src);
    if (b == ms[i].buf && region_same(&src, &ms[i].src)) continue;
    if (out == ms) {
      out = tir_alloc(m->ctx, sizeof *out * (size_t)n);
      memcpy(out, ms, sizeof *out * (size_t)n);
    }
    out[i].buf = b;
    out[i].src = src;
  }
  return out;
}

static tir_block *mut_block(tir_mutator *m, tir_block *b) {
  tir_iter_var *iv = mut_iter_vars(m, b->iter_vars, b->n_iter);
  tir_buffer_region *rd = mut_regions(m, b->reads, b->n_reads);
  tir_buffer_region *wr = mut_regions(m, b->writes, b->n_writes);
  tir_buffer **al = mut_buffers(m, b->alloc_buffers, b->n_alloc);
  tir_match_buffer *mb = mut_matches(m, b->match_buffers, b->n_match);
  tir_stmt *init = tir_mutate_stmt(m, b->init);
  tir_stmt *body = tir_mutate_stmt(m, b->body);
  if (iv == b->iter_vars && rd == b->reads && wr == b->writes && al == b->alloc_buffers &&
      mb == b->match_buffers && init == b->init && body == b->body)
    return b;
  tir_block *n = tir_block_copy(m->ctx, b);
  n->iter_vars = iv;
  n->reads = rd;
  n->writes = wr;
  n->alloc_buffers = al;
  n->match_buffers = mb;
  n->init = init;
  n->body = body;
  return n;
}

/* each case returns s itself when nothing changed */
static tir_stmt *mut_stmt_children(tir_mutator *m, tir_stmt *s) {
  tir_stmt *n;
  switch (s->kind) {
  case TIR_BUFFER_STORE: {
    tir_buffer *b = mut_buffer(m, s->u.store.buf);
    tir_expr *v = tir_mutate_expr(m, s->u.store.value);
    tir_expr **idx = tir_mutate_exprs(m, s->u.store.idx, s->u.store.nidx);
    if (b == s->u.store.buf && v == s->u.store.value && idx == s->u.store.idx) return s;
    n = tir_stmt_copy(m->ctx, s);
    n->u.store.buf = b;
    n->u.store.value = v;
    n->u.store.idx = idx;
    return n;
  }
  case TIR_LET_STMT: {
    tir_expr *v = tir_mutate_expr(m, s->u.let.value);
    tir_stmt *b = tir_mutate_stmt(m, s->u.let.body);
    if (v == s->u.let.value && b == s->u.let.body) return s;
    n = tir_stmt_copy(m->ctx, s);
    n->u.let.value = v;
    n->u.let.body = b;
    return n;
  }
  case TIR_FOR: {
    tir_expr *mn = tir_mutate_expr(m, s->u.loop.min);
    tir_expr *ex = tir_mutate_expr(m, s->u.loop.extent);
    tir_expr *st = s->u.loop.step ? tir_mutate_expr(m, s->u.loop.step) : NULL;
    tir_stmt *b = tir_mutate_stmt(m, s->u.loop.body);
    if (mn == s->u.loop.min && ex == s->u.loop.extent && st == s->u.loop.step && b == s->u.loop.body) return s;
    n = tir_stmt_copy(m->ctx, s);
    n->u.loop.min = mn;
    n->u.loop.extent = ex;
    n->u.loop.step = st;
    n->u.loop.body = b;
    return n;
  }
  case TIR_WHILE: {
    tir_expr *c = tir_mutate_expr(m, s->u.whl.cond);
    tir_stmt *b = tir_mutate_stmt(m, s->u.whl.body);
    if (c == s->u.whl.cond && b == s->u.whl.body) return s;
    n = tir_stmt_copy(m->ctx, s);
    n->u.whl.cond = c;
    n->u.whl.body = b;
    return n;
  }
  case TIR_IF: {
    tir_expr *c = tir_mutate_expr(m, s->u.ifs.cond);
    tir_stmt *t = tir_mutate_stmt(m, s->u.ifs.then_s);
    tir_stmt *e = tir_mutate_stmt(m, s->u.ifs.else_s);
    if (c == s->u.ifs.cond && t == s->u.ifs.then_s && e == s->u.ifs.else_s) return s;
    n = tir_stmt_copy(m->ctx, s);
    n->u.ifs.cond = c;
    n->u.ifs.then_s = t;
    n->u.ifs.else_s = e;
    return n;
  }
  case TIR_EVALUATE: {
    tir_expr *v = tir_mutate_expr(m, s->u.eval.value);
    if (v == s->u.eval.value) return s;
    n = tir_stmt_copy(m->ctx, s);
    n->u.eval.value = v;
    return n;
  }
  case TIR_SEQ: {
    tir_stmt **out = s->u.seq.stmts;
    int cnt = s->u.seq.n;
    for (int i = 0; i < cnt; i++) {
      tir_stmt *x = tir_mutate_stmt(m, s->u.seq.stmts[i]);
      if (x == s->u.seq.stmts[i]) continue;
      if (out == s->u.seq.stmts) {
        out = tir_alloc(m->ctx, sizeof *out * (size_t)cnt);
        memcpy(out, s->u.seq.stmts, sizeof *out * (size_t)cnt);
      }
      out[i] = x;
    }
    if (out == s->u.seq.stmts) return s;
    return tir_seq(m->ctx, out, cnt); /* flattens, drops NULLs */
  }
  case TIR_ALLOCATE: {
    tir_expr **ex = tir_mutate_exprs(m, s->u.alloc.extents, s->u.alloc.n);
    tir_expr *c = tir_mutate_expr(m, s->u.alloc.cond);
    tir_stmt *b = tir_mutate_stmt(m, s->u.alloc.body);
    if (ex == s->u.alloc.extents && c == s->u.alloc.cond && b == s->u.alloc.body) return s;
    n = tir_stmt_copy(m->ctx, s);
    n->u.alloc.extents = ex;
    n->u.alloc.cond = c;
    n->u.alloc.body = b;
    return n;
  }
  case TIR_DECL_BUFFER: case TIR_ALLOC_BUFFER: {
    tir_buffer *buf = mut_buffer(m, s->u.decl.buf);
    tir_stmt *b = tir_mutate_stmt(m, s->u.decl.body);
    if (buf == s->u.decl.buf && b == s->u.decl.body) return s;
    n = tir_stmt_copy(m->ctx, s);
    n->u.decl.buf = buf;
    n->u.decl.body = b;
    return n;
  }
  case TIR_ATTR: {
    tir_expr *nd = tir_mutate_expr(m, s->u.attr.node);
    tir_expr *v = tir_mutate_expr(m, s->u.attr.value);
    tir_stmt *b = tir_mutate_stmt(m, s->u.attr.body);
    if (nd == s->u.attr.node && v == s->u.attr.value && b == s->u.attr.body) return s;
    n = tir_stmt_copy(m->ctx, s);
    n->u.attr.node = nd;
    n->u.attr.value = v;
    n->u.attr.body = b;
    return n;
  }
  case TIR_ASSERT: {
    tir_expr *c = tir_mutate_expr(m, s->u.assrt.cond);
    tir_expr *msg = tir_mutate_expr(m, s->u.assrt.msg);
    tir_stmt *b = tir_mutate_stmt(m, s->u.assrt.body);
    if (c == s->u.assrt.cond && msg == s->u.assrt.msg && b == s->u.assrt.body) return s;
    n = tir_stmt_copy(m->ctx, s);
    n->u.assrt.cond = c;
    n->u.assrt.msg = msg;
    n->u.assrt.body = b;
    return n;
  }
  case TIR_BLOCK_REALIZE: {
    tir_expr **iv = tir_mutate_exprs(m, s->u.realize.iter_values, s->u.realize.n);
    tir_expr *p = tir_mutate_expr(m, s->u.realize.predicate);
    tir_block *b = mut_block(m, s->u.realize.block);
    if (iv == s->u.realize.iter_values && p == s->u.realize.predicate && b == s->u.realize.block)
      return s;
    n = tir_stmt_copy(m->ctx, s);
    n->u.realize.iter_values = iv;
    n->u.realize.predicate = p;
    n->u.realize.block = b;
    return n;
  }
  default:
    return s;
  }
}

tir_stmt *tir_mutate_stmt(tir_mutator *m, tir_stmt *s) {
  if (!s) return NULL;
  if (m->pre_stmt) {
    tir_stmt *r = m->pre_stmt(m, s);
    if (r) return r;
  }
  tir_stmt *n = mut_stmt_children(m, s);
  return m->stmt ? m->stmt(m, n) : n;
}

/* ------------------------------------------------------------------ */
/* comm_reducer                                                        */

typedef struct closed_walk {
  tir_expr *const *vars;
  int n;
  const tir_expr *bad;
} closed_walk;

static bool closed_expr(tir_visitor *v, const tir_expr *e) {
  closed_walk *w = v->user;
  if (w->bad) return false;
  if (e->kind == TIR_BUFFER_LOAD) {
    w->bad = e;
    return false;
  }
  if (e->kind != TIR_VAR) return true;
  for (int i = 0; i < w->n; i++)
    if (w->vars[i] == e) return true;
  w->bad = e;
  return false;
}

const tir_expr *tir_comm_reducer_foreign(const tir_expr *r) {
  if (!tir_is_comm_reducer(r)) return NULL;
  int n = r->u.call.nargs / 4;
  closed_walk w = {r->u.call.args, 2 * n, NULL};
  tir_visitor v = {.expr = closed_expr, .user = &w};
  for (int i = 0; i < n && !w.bad; i++) tir_visit_expr(&v, r->u.call.args[2 * n + i]);
  return w.bad;
}
