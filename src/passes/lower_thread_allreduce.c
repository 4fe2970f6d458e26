/* lower_thread_allreduce.c - LowerThreadAllreduce: each
 *   T.attr(T.comm_reducer(...), "reduce_scope", 0)
 *   T.tvm_thread_allreduce(n, source[n], cond, result[n], thread vars...)
 * of lowered IR (what TVM's LowerCrossThreadReduction leaves, through
 * LowerOpaqueBlock and FlattenBuffer) becomes a tree reduction in shared
 * memory, which the code generators emit and the interpreter runs:
 *
 *   red_buf_i = T.alloc_buffer((G * R,), scope="shared")   one per value
 *   red_buf_i[g * R + r] = source_i if cond else identity_i
 *   T.tvm_storage_sync("shared")
 *   for s = P/2, P/4, ..., 1 (P the power of two >= R, unrolled):
 *     if r < s and r + s < R:                                (R a power of two: r < s)
 *       x_i = red_buf_i[g * R + r]; y_i = red_buf_i[g * R + r + s]
 *       red_buf_i[g * R + r] = combine_i(x, y)
 *     T.tvm_storage_sync("shared")
 *   result_i = red_buf_i[g * R]
 *   T.tvm_storage_sync("shared")
 *
 * r is the thread's index among the threads reduced over (the thread vars
 * of the call, threadIdx.x fastest), R their count; g its index among the
 * other threadIdx launches around it, G their count: threads that differ
 * only in the reduced vars combine.  TVM's pass also uses warp shuffles;
 * this is its shared-memory form, for any block size.  A barrier must be
 * met by every thread of the block, so a call under an `if` inside the
 * kernel, or with thread extents that are not constants, is refused.  A 0
 * among the thread vars is a thread of extent 1 that Simplify folded: it
 * reduces over nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tir/passes.h"
#include "tir/visit.h"

typedef struct launch {
  const tir_expr *var;
  int64_t extent;
  const char *tag;
} launch;

typedef struct lstate {
  tir_ctx *c;
  tir_diag *d;
  launch *launches;
  int nl, capl;
  int conds;   /* ifs around, inside the innermost launch */
  int sites;   /* reductions lowered, for buffer names */
  bool failed;
  tir_span near; /* the innermost statement around with a source position (a call
                  * a pass made has none: LowerCrossThreadReduction's) */
  const tir_buffer **bufs; /* the buffers declared around (innermost last) */
  int nbufs, capbufs;
} lstate;

/* a result given as a buffer's data var (reduce_temp0.data, as TVM's older
 * texts and its roundtrip tests write it): the buffer's element 0, as TVM's
 * LowerThreadAllreduce stores it */
static tir_expr *result_of(lstate *st, tir_expr *r) {
  if (r->kind != TIR_VAR) return r;
  for (int i = st->nbufs - 1; i >= 0; i--)
    if (st->bufs[i]->data == r) {
      const tir_buffer *b = st->bufs[i];
      tir_expr **zero = tir_alloc(st->c, sizeof *zero * (size_t)(b->ndim + 1));
      for (int k = 0; k < b->ndim; k++) zero[k] = tir_int(st->c, b->shape[k]->dtype, 0);
      return tir_load(st->c, (tir_buffer *)b, zero, b->ndim);
    }
  return r;
}

static const tir_expr *reducer_of(const tir_stmt *s) {
  return s->kind == TIR_ATTR && s->u.attr.key && !strcmp(s->u.attr.key, "reduce_scope") &&
                 tir_is_comm_reducer(s->u.attr.node)
             ? s->u.attr.node
             : NULL;
}

static const tir_expr *allreduce_of(const tir_stmt *s) {
  if (!s || s->kind != TIR_EVALUATE || !s->u.eval.value || s->u.eval.value->kind != TIR_CALL) return NULL;
  const char *op = s->u.eval.value->u.call.op;
  if (!strncmp(op, "tir.", 4)) op += 4;
  return !strcmp(op, "tvm_thread_allreduce") ? s->u.eval.value : NULL;
}

static tir_stmt *sync(lstate *st) {
  tir_expr *arg = tir_string(st->c, "shared");
  return tir_evaluate(st->c, tir_call(st->c, TIR_INT32, "tvm_storage_sync", &arg, 1));
}

static tir_expr *cint(lstate *st, tir_dtype t, int64_t v) { return tir_int(st->c, t, v); }
/* a thread var in the index dtype t (cast where the launches' dtypes differ) */
static tir_expr *in_dtype(lstate *st, const tir_expr *var, tir_dtype t) {
  return tir_dtype_eq(var->dtype, t) ? (tir_expr *)var : tir_cast(st->c, t, (tir_expr *)var);
}

/* the tag's dimension: x 0, y 1, z 2 */
static int tag_dim(const char *tag) {
  size_t n = tag ? strlen(tag) : 0;
  return n ? tag[n - 1] - 'x' : 0;
}

/* x fastest: higher dims first (at most three launches) */
static void order_dims(launch *l, int n) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (tag_dim(l[j].tag) > tag_dim(l[i].tag)) {
        launch t = l[i];
        l[i] = l[j];
        l[j] = t;
      }
}

static tir_stmt *lower_site(lstate *st, const tir_stmt *attr, const tir_expr *call) {
  const tir_expr *red = attr->u.attr.node;
  /* where its errors point: the call, else the attr, else the innermost statement around */
  tir_span sp = call->span.line ? call->span : attr->span.line ? attr->span : st->near;
  int n = red->u.call.nargs / 4;
  tir_expr *const *ra = red->u.call.args, *const *a = call->u.call.args;
  int na = call->u.call.nargs;
  int64_t size;
  if (tir_is_const_int(a[0], &size) && size == n && na >= 2 * n + 2) {
    tir_expr **a2 = tir_alloc(st->c, sizeof *a2 * (size_t)na);
    memcpy(a2, a, sizeof *a2 * (size_t)na);
    for (int i = 0; i < n; i++) a2[2 + n + i] = result_of(st, a2[2 + n + i]);
    a = a2;
  }
  if (!tir_is_const_int(a[0], &size) || size != n || na < 2 * n + 2) {
    tir_error(st->d, sp, "LowerThreadAllreduce: T.tvm_thread_allreduce's size must be the %d value(s) of its "
              "T.comm_reducer, with a source, a condition and a result for each", n);
    return NULL;
  }
  if (st->conds) {
    tir_error(st->d, sp, "LowerThreadAllreduce: T.tvm_thread_allreduce under an if inside the kernel: not every "
              "thread would meet its barriers");
    return NULL;
  }
  for (int i = 0; i < n; i++)
    if (a[2 + n + i]->kind != TIR_BUFFER_LOAD || a[1 + i]->dtype.lanes != 1 ||
        !tir_dtype_eq(a[1 + i]->dtype, ra[3 * n + i]->dtype) || !tir_dtype_eq(a[2 + n + i]->dtype, ra[3 * n + i]->dtype)) {
      tir_error(st->d, sp, "LowerThreadAllreduce: each source of T.tvm_thread_allreduce must be a scalar of its "
                "reducer's dtype, and each result a buffer location of that dtype");
      return NULL;
    }
  /* the threadIdx launches around: reduced over (named in the call) or not */
  int nred = na - (2 * n + 2);
  launch *rl = calloc((size_t)st->nl + 1, sizeof *rl), *gl = calloc((size_t)st->nl + 1, sizeof *gl);
  if (!rl || !gl) abort();
  int nr = 0, ng = 0;
  tir_stmt *out = NULL;
  for (int i = 0; i < nred; i++) {
    int64_t z;
    bool found = tir_is_const_int(a[2 * n + 2 + i], &z) && z == 0; /* a thread of extent 1, folded to 0 */
    for (int k = 0; k < st->nl; k++) found |= a[2 * n + 2 + i] == st->launches[k].var;
    if (!found) {
      tir_error(st->d, sp, "LowerThreadAllreduce: argument %d of T.tvm_thread_allreduce is not a threadIdx "
                "var launched around it", 2 * n + 2 + i);
      goto done;
    }
  }
  for (int k = 0; k < st->nl; k++) {
    bool reduced = false;
    for (int i = 0; i < nred; i++) reduced |= a[2 * n + 2 + i] == st->launches[k].var;
    if (st->launches[k].extent <= 0) {
      tir_error(st->d, sp, "LowerThreadAllreduce: the extent of thread '%s' around T.tvm_thread_allreduce is not "
                "a constant (the shared buffer's size)", st->launches[k].var->u.var.name);
      goto done;
    }
    if (reduced) rl[nr++] = st->launches[k];
    else gl[ng++] = st->launches[k];
  }
  order_dims(rl, nr);
  order_dims(gl, ng);
  /* the index dtype: the threads', also where the one reduced over had extent 1 and was folded to 0; the
   * widest where they differ (an int64 threadIdx.x beside an int32 threadIdx.y), the others cast to it, as
   * TVM's pass casts them */
  tir_dtype it = nr ? rl[0].var->dtype : st->nl ? st->launches[0].var->dtype : TIR_INT32;
  for (int k = 0; k < st->nl; k++) {
    tir_dtype t = st->launches[k].var->dtype;
    if (!tir_dtype_is_int(t) || t.lanes != 1) {
      tir_error(st->d, sp, "LowerThreadAllreduce: thread var '%s' around T.tvm_thread_allreduce is not an integer",
                st->launches[k].var->u.var.name);
      goto done;
    }
    if (t.bits > it.bits) it = t;
  }
  int64_t R = 1, G = 1;
  tir_expr *r = cint(st, it, 0), *g = cint(st, it, 0);
  for (int i = 0; i < nr; i++) { /* r = ((v0) * e1 + v1) * e2 + v2 ..., outermost dim first */
    tir_expr *v = in_dtype(st, rl[i].var, it);
    r = i ? tir_binary(st->c, TIR_ADD, tir_binary(st->c, TIR_MUL, r, cint(st, it, rl[i].extent)), v) : v;
    R *= rl[i].extent;
  }
  for (int i = 0; i < ng; i++) {
    tir_expr *v = in_dtype(st, gl[i].var, it);
    g = i ? tir_binary(st->c, TIR_ADD, tir_binary(st->c, TIR_MUL, g, cint(st, it, gl[i].extent)), v) : v;
    G *= gl[i].extent;
  }
  if (R * G > ((int64_t)1 << 20)) {
    tir_error(st->d, sp, "LowerThreadAllreduce: %lld threads in a block", (long long)(R * G));
    goto done;
  }
  tir_expr *base = tir_binary(st->c, TIR_MUL, g, cint(st, it, R));
  tir_expr *mine = tir_binary(st->c, TIR_ADD, base, r);
  int site = st->sites++;
  tir_buffer **bufs = tir_alloc(st->c, sizeof *bufs * (size_t)n);
  for (int i = 0; i < n; i++) {
    char name[48];
    snprintf(name, sizeof name, n > 1 ? "red_buf%d_%d" : "red_buf%d", site, i);
    tir_expr *shape = cint(st, it, R * G);
    bufs[i] = tir_buffer_new(st->c, name, ra[3 * n + i]->dtype, &shape, 1, NULL, 0, NULL, "shared", 0, 0, NULL);
    bufs[i]->span = call->span;
    bufs[i]->layout_none = a[2 + n + i]->u.load.buf->layout_none; /* as FlattenBuffer left the others */
  }
  int cap = 8 + n * 4 + 64 * 2, cnt = 0;
  tir_stmt **seq = tir_alloc(st->c, sizeof *seq * (size_t)cap);
  /* each thread's value, or the identity */
  bool always = a[1 + n]->kind == TIR_INT_IMM && a[1 + n]->u.int_val != 0;
  for (int i = 0; i < n; i++) {
    tir_expr *v = always ? a[1 + i] : tir_select(st->c, a[1 + n], a[1 + i], ra[3 * n + i]);
    seq[cnt++] = tir_store(st->c, bufs[i], v, &mine, 1);
  }
  seq[cnt++] = sync(st);
  int64_t P = 1;
  while (P < R) P *= 2;
  for (int64_t s = P / 2; s >= 1; s /= 2) {
    tir_expr *sv = cint(st, it, s);
    tir_expr *other = tir_binary(st->c, TIR_ADD, mine, sv);
    tir_expr *cond = tir_binary(st->c, TIR_LT, r, sv);
    if (P != R)
      cond = tir_binary(st->c, TIR_AND, cond, tir_binary(st->c, TIR_LT, tir_binary(st->c, TIR_ADD, r, sv), cint(st, it, R)));
    /* x_i = red_buf_i[mine], y_i = red_buf_i[mine + s]: fresh lets, then the stores */
    tir_var_map vm = {0};
    tir_expr **xs = tir_alloc(st->c, sizeof *xs * (size_t)(2 * n));
    for (int i = 0; i < n; i++) {
      xs[i] = tir_var(st->c, ra[i]->u.var.name, ra[i]->dtype);
      xs[n + i] = tir_var(st->c, ra[n + i]->u.var.name, ra[n + i]->dtype);
      tir_var_map_set(&vm, ra[i], xs[i]);
      tir_var_map_set(&vm, ra[n + i], xs[n + i]);
    }
    tir_stmt **stores = tir_alloc(st->c, sizeof *stores * (size_t)n);
    for (int i = 0; i < n; i++)
      stores[i] = tir_store(st->c, bufs[i], tir_substitute_expr(st->c, ra[2 * n + i], &vm), &mine, 1);
    tir_var_map_free(&vm);
    tir_stmt *body = tir_seq(st->c, stores, n);
    for (int i = 2 * n - 1; i >= 0; i--)
      body = tir_let_stmt(st->c, xs[i], tir_load(st->c, bufs[i % n], i < n ? &mine : &other, 1), body);
    seq[cnt++] = tir_if(st->c, cond, body, NULL);
    seq[cnt++] = sync(st);
  }
  for (int i = 0; i < n; i++) {
    const tir_expr *dst = a[2 + n + i];
    seq[cnt++] = tir_store(st->c, dst->u.load.buf, tir_load(st->c, bufs[i], &base, 1), dst->u.load.idx, dst->u.load.nidx);
  }
  seq[cnt++] = sync(st);
  out = tir_seq(st->c, seq, cnt);
  for (int i = n - 1; i >= 0; i--) out = tir_alloc_buffer_stmt(st->c, bufs[i], out);
  out->span = attr->span;
done:
  free(rl);
  free(gl);
  return out;
}

static tir_stmt *lower(lstate *st, tir_stmt *s);

static tir_stmt *lower(lstate *st, tir_stmt *s) {
  if (!s || st->failed) return s;
  if (s->span.line) st->near = s->span;
  tir_stmt *n = NULL;
  switch (s->kind) {
  case TIR_ATTR: {
    const tir_expr *red = reducer_of(s);
    if (red) {
      const tir_expr *call = allreduce_of(s->u.attr.body);
      if (!call) return s; /* nothing of it to lower here */
      tir_stmt *r = lower_site(st, s, call);
      if (!r) st->failed = true;
      return r;
    }
    bool launch_ = s->u.attr.key && !strcmp(s->u.attr.key, "thread_extent") && tir_is_var(s->u.attr.node) &&
                   s->u.attr.thread_tag && !strncmp(s->u.attr.thread_tag, "threadIdx.", 10);
    int conds = st->conds;
    if (launch_) {
      if (st->nl == st->capl) {
        st->capl = st->capl ? 2 * st->capl : 8;
        st->launches = realloc(st->launches, sizeof *st->launches * (size_t)st->capl);
        if (!st->launches) abort();
      }
      int64_t e;
      st->launches[st->nl++] =
          (launch){s->u.attr.node, tir_is_const_int(s->u.attr.value, &e) ? e : -1, s->u.attr.thread_tag};
      st->conds = 0;
    }
    tir_stmt *b = lower(st, s->u.attr.body);
    if (launch_) st->nl--, st->conds = conds;
    if (b == s->u.attr.body) return s;
    n = tir_stmt_copy(st->c, s);
    n->u.attr.body = b;
    return n;
  }
  case TIR_EVALUATE:
    if (allreduce_of(s)) {
      tir_error(st->d, s->span, "LowerThreadAllreduce: T.tvm_thread_allreduce outside a \"reduce_scope\" attr on a "
                "T.comm_reducer");
      st->failed = true;
    }
    return s;
  case TIR_IF: {
    st->conds++;
    tir_stmt *t = lower(st, s->u.ifs.then_s), *e = lower(st, s->u.ifs.else_s);
    st->conds--;
    if (t == s->u.ifs.then_s && e == s->u.ifs.else_s) return s;
    n = tir_stmt_copy(st->c, s);
    n->u.ifs.then_s = t;
    n->u.ifs.else_s = e;
    return n;
  }
  case TIR_SEQ: {
    tir_stmt **items = NULL;
    for (int i = 0; i < s->u.seq.n; i++) {
      tir_stmt *x = lower(st, s->u.seq.stmts[i]);
      if (x != s->u.seq.stmts[i] && !items) {
        items = tir_alloc(st->c, sizeof *items * (size_t)s->u.seq.n);
        memcpy(items, s->u.seq.stmts, sizeof *items * (size_t)s->u.seq.n);
      }
      if (items) items[i] = x;
    }
    if (!items) return s;
    return tir_seq(st->c, items, s->u.seq.n);
  }
  case TIR_FOR: case TIR_WHILE: case TIR_LET_STMT: case TIR_ALLOCATE: case TIR_DECL_BUFFER: case TIR_ALLOC_BUFFER:
  case TIR_ASSERT: {
    tir_stmt **field = s->kind == TIR_FOR ? &s->u.loop.body
                       : s->kind == TIR_WHILE ? &s->u.whl.body
                       : s->kind == TIR_LET_STMT ? &s->u.let.body
                       : s->kind == TIR_ALLOCATE ? &s->u.alloc.body
                       : s->kind == TIR_ASSERT ? &s->u.assrt.body
                                               : &s->u.decl.body;
    bool decl = s->kind == TIR_DECL_BUFFER || s->kind == TIR_ALLOC_BUFFER;
    if (decl) {
      if (st->nbufs == st->capbufs) {
        st->capbufs = st->capbufs ? 2 * st->capbufs : 8;
        st->bufs = realloc(st->bufs, sizeof *st->bufs * (size_t)st->capbufs);
        if (!st->bufs) abort();
      }
      st->bufs[st->nbufs++] = s->u.decl.buf;
    }
    tir_stmt *b = lower(st, *field);
    if (decl) st->nbufs--;
    if (b == *field) return s;
    n = tir_stmt_copy(st->c, s);
    size_t off = (size_t)((char *)field - (char *)s);
    *(tir_stmt **)((char *)n + off) = b;
    return n;
  }
  default: return s; /* blocks: lowered IR only (after LowerOpaqueBlock) */
  }
}

tir_func *tir_pass_lower_thread_allreduce(tir_ctx *c, const tir_func *f, tir_diag *d) {
  lstate st = {.c = c, .d = d, .near = f->span}; /* the function, where no statement around has a position */
  tir_stmt *b = lower(&st, f->body);
  free(st.launches);
  free(st.bufs);
  if (st.failed) return NULL;
  if (b == f->body) return (tir_func *)f;
  tir_func *n = tir_func_copy(c, f);
  n->body = b;
  return n;
}
