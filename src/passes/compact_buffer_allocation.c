/* compact_buffer_allocation.c - CompactBufferAllocation: shrinks every
 * buffer allocated inside the function (block alloc_buffers, statement-level
 * alloc_buffer) to the box in which it is accessed, and shifts every access
 * into the new box.  Two walks: collect (regions per buffer, relaxed as the
 * storage scope and thread bindings say), then rewrite (see semantics.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tir/analysis.h"
#include "tir/passes.h"
#include "tir/visit.h"
#include "ir/ptrmap.h"
#include "passes/ptr_set.h"

typedef struct {
  tir_expr *var, *min, *extent;
  const char *tag; /* thread tag, or NULL for a plain loop */
} loop_entry;

typedef struct {
  int factor, offset; /* factor 0: no alignment */
} dim_align;

typedef struct {
  tir_buffer *buf;
  int depth;               /* loops around the allocation */
  tir_access_region *acc;  /* malloc'd */
  int nacc, capacc;
  bool full;               /* accessed where no region is known: keep shape */
  bool opaque_ptr;         /* data passed to tvm_access_ptr (offset rewritten) */
  bool opaque_bare;        /* data passed anywhere else (offsets unknown) */
  dim_align *align;        /* ndim entries (ctx) or NULL */
  tir_buffer *new_buf;     /* after planning; NULL = unchanged */
  tir_expr **mins;
} buf_info;

/* buffer -> info index (open addressing; the latest put wins) */
typedef struct {
  const void **keys;
  int *vals;
  int cap, n;
} buf_map;

static int bm_pos(const buf_map *m, const void *k) {
  uint64_t h = (uint64_t)(uintptr_t)k;
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15ull;
  int i = (int)((h >> 7) & (uint64_t)(m->cap - 1));
  while (m->keys[i] && m->keys[i] != k) i = (i + 1) & (m->cap - 1);
  return i;
}

static void bm_put(buf_map *m, const void *k, int v) {
  if ((m->n + 1) * 2 > m->cap) {
    buf_map old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->keys = calloc((size_t)m->cap, sizeof *m->keys);
    m->vals = malloc(sizeof *m->vals * (size_t)m->cap);
    if (!m->keys || !m->vals) abort();
    m->n = 0;
    for (int i = 0; i < old.cap; i++)
      if (old.keys[i]) bm_put(m, old.keys[i], old.vals[i]);
    free(old.keys);
    free(old.vals);
  }
  int i = bm_pos(m, k);
  if (!m->keys[i]) {
    m->keys[i] = k;
    m->n++;
  }
  m->vals[i] = v;
}

static int bm_get(const buf_map *m, const void *k) {
  if (!m->cap) return -1;
  int i = bm_pos(m, k);
  return m->keys[i] ? m->vals[i] : -1;
}

static void bm_free(buf_map *m) {
  free(m->keys);
  free(m->vals);
}

typedef struct {
  tir_ctx *c;
  tir_analyzer *a;
  loop_entry *loops;
  int nloops, caploops;
  tir_expr **conds;
  int nconds, capconds;
  const tir_block **blocks; /* enclosing blocks, for opaque accesses */
  int nblocks, capblocks;
  int *blk_loops;           /* the loops around each of them */
  int capblk_loops;
  tir_var_map subst;        /* let vars and block iter vars -> values */
  buf_info *infos;
  int ninfos, capinfos;
  buf_map by_buf;       /* buffer -> its latest info, while collecting */
  buf_map by_rewritten; /* old and new buffer -> info, when rewriting */
  const tir_func *func;
  ptr_set opaque_lets; /* let vars left unsubstituted: their accesses keep the full shape */
} compact_state;

#define GROW(arr, n, cap)                                         \
  do {                                                            \
    if ((n) == (cap)) {                                           \
      (cap) = (cap) ? (cap) * 2 : 8;                              \
      (arr) = realloc((arr), sizeof *(arr) * (size_t)(cap));      \
      if (!(arr)) abort();                                        \
    }                                                             \
  } while (0)

/* ---- storage and thread ranks (TVM's StorageScope / ThreadScope) ---- */

static int storage_rank(const char *scope) {
  if (!scope || !strcmp(scope, "global") || !*scope) return 0;
  if (!strncmp(scope, "shared", 6)) return 1;
  if (!strcmp(scope, "warp")) return 2;
  return 3; /* local and every special scope: no thread is relaxed */
}

static bool can_relax_thread(const char *scope, const char *tag) {
  int rank = storage_rank(scope);
  if (!strncmp(tag, "blockIdx.", 9)) return rank <= 0;
  bool thread = !strncmp(tag, "threadIdx.", 10);
  if (!thread && strncmp(tag, "vthread", 7)) return false;
  if (rank == 2) return !strcmp(tag, "threadIdx.x");
  return rank <= 1;
}

/* ---- collecting ---- */

static buf_info *info_of(compact_state *st, const tir_buffer *b) {
  int i = bm_get(&st->by_buf, b);
  return i >= 0 ? &st->infos[i] : NULL;
}

static void track(compact_state *st, tir_buffer *b) {
  GROW(st->infos, st->ninfos, st->capinfos);
  buf_info *bi = &st->infos[st->ninfos++];
  memset(bi, 0, sizeof *bi);
  bi->buf = b;
  bi->depth = st->nloops;
  bm_put(&st->by_buf, b, st->ninfos - 1);
}

/* ---- let values (issue 11, class 4) ----
 * A let value is substituted into the regions after it is simplified, so
 * a chain x1 = x0 + x0 - x0, x2 = x1 + x1 - x1 ... stays one small value.
 * One that stays large as a tree (each let using the previous one twice
 * and not simplifying: 2^n nodes as a tree, n as a DAG) is not
 * substituted: the accesses that use it keep their buffer's full shape
 * (correct, not compacted), so the analyzer never walks an exponential
 * tree. */
#define LET_TREE_CAP 4096

static long tree_size(const tir_expr *e, tir_ptrmap *memo) {
  if (!e) return 0;
  long m = tir_ptrmap_get(memo, e, -1);
  if (m >= 0) return m;
  long n = 1;
#define ADD(x) (n += tree_size((x), memo), n = n > LET_TREE_CAP ? LET_TREE_CAP + 1 : n)
  if (TIR_IS_BINARY(e->kind)) {
    ADD(e->u.bin.a);
    ADD(e->u.bin.b);
  } else {
    switch (e->kind) {
    case TIR_NOT:
    case TIR_CAST: ADD(e->u.un.a); break;
    case TIR_SELECT: ADD(e->u.select.cond); ADD(e->u.select.t); ADD(e->u.select.f); break;
    case TIR_CALL:
      for (int i = 0; i < e->u.call.nargs; i++) ADD(e->u.call.args[i]);
      break;
    case TIR_BUFFER_LOAD:
      for (int i = 0; i < e->u.load.nidx; i++) ADD(e->u.load.idx[i]);
      break;
    case TIR_RAMP: ADD(e->u.ramp.base); ADD(e->u.ramp.stride); break;
    case TIR_BROADCAST: ADD(e->u.bcast.value); break;
    case TIR_LET: ADD(e->u.let.value); ADD(e->u.let.body); break;
    default: break;
    }
  }
#undef ADD
  tir_ptrmap_put(memo, e, n);
  return n;
}

typedef struct {
  const ptr_set *set;
  bool found;
} opaque_scan;

static bool opaque_cb(tir_visitor *v, const tir_expr *e) {
  opaque_scan *o = v->user;
  if (o->found) return false;
  if (e->kind == TIR_VAR && ptr_set_has(o->set, e)) o->found = true;
  return !o->found;
}

/* e uses a let var left unsubstituted (e a tree of bounded size) */
static bool uses_opaque(const compact_state *st, const tir_expr *e) {
  if (!st->opaque_lets.n || !e) return false;
  opaque_scan o = {&st->opaque_lets, false};
  tir_visitor v = {.expr = opaque_cb, .user = &o};
  tir_visit_expr(&v, e);
  return o.found;
}

/* binds a let var for the regions below it: its value substituted and
 * simplified, or left opaque when that value is too large a tree */
static void bind_let(compact_state *st, tir_expr *var, tir_expr *value) {
  tir_expr *v = tir_substitute_expr(st->c, value, &st->subst);
  tir_ptrmap memo = {0};
  long size = tree_size(v, &memo);
  tir_ptrmap_free(&memo);
  if (size > LET_TREE_CAP || uses_opaque(st, v)) {
    ptr_set_add(&st->opaque_lets, var);
    return;
  }
  v = tir_simplify(st->a, v);
  tir_var_map_set(&st->subst, var, v);
}

static void add_access(compact_state *st, buf_info *bi, const tir_range *region, int n) {
  if (n != bi->buf->ndim) {
    bi->full = true;
    return;
  }
  for (int i = 0; i < n && st->opaque_lets.n; i++)
    if (uses_opaque(st, region[i].min) || uses_opaque(st, region[i].extent)) {
      bi->full = true;
      return;
    }
  tir_range *r = tir_alloc(st->c, sizeof *r * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    r[i].min = tir_substitute_expr(st->c, region[i].min, &st->subst);
    r[i].extent = tir_substitute_expr(st->c, region[i].extent, &st->subst);
  }
  tir_relax_var *rv = tir_alloc(st->c, sizeof *rv * (size_t)(st->nloops ? st->nloops : 1));
  int nr = 0;
  for (int i = 0; i < st->nloops; i++) {
    const loop_entry *l = &st->loops[i];
    if (i >= bi->depth || (l->tag && can_relax_thread(bi->buf->scope, l->tag)))
      rv[nr++] = (tir_relax_var){l->var, l->min, l->extent};
  }
  tir_expr **cs = NULL;
  if (st->nconds) {
    cs = tir_alloc(st->c, sizeof *cs * (size_t)st->nconds);
    for (int i = 0; i < st->nconds; i++)
      cs[i] = uses_opaque(st, st->conds[i]) ? tir_bool(st->c, true) : tir_substitute_expr(st->c, st->conds[i], &st->subst);
  }
  GROW(bi->acc, bi->nacc, bi->capacc);
  bi->acc[bi->nacc++] = (tir_access_region){r, n, rv, nr, cs, st->nconds};
}

static void access_point(compact_state *st, tir_buffer *b, tir_expr *const *idx, int n) {
  buf_info *bi = info_of(st, b);
  if (!bi) return;
  tir_range *r = tir_alloc(st->c, sizeof *r * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    tir_expr *e = idx[i];
    if (e->kind == TIR_RAMP) { /* a vector index covers base + k*stride */
      tir_expr *last = tir_binary(st->c, TIR_MUL, e->u.ramp.stride, tir_int(st->c, e->u.ramp.stride->dtype, e->u.ramp.lanes - 1));
      int64_t s;
      if (tir_is_const_int(e->u.ramp.stride, &s) && s >= 0) {
        r[i] = (tir_range){e->u.ramp.base, tir_binary(st->c, TIR_ADD, last, tir_int(st->c, last->dtype, 1))};
        continue;
      }
      bi->full = true;
      return;
    }
    r[i] = (tir_range){e, tir_int(st->c, e->dtype, 1)};
  }
  add_access(st, bi, r, n);
}

static void access_region(compact_state *st, const tir_buffer_region *r) {
  buf_info *bi = info_of(st, r->buf);
  if (bi) add_access(st, bi, r->region, r->n);
}

/* a bare use of a buffer's data var: the regions the innermost block that
 * names the buffer declares, else the whole buffer */
static void access_opaque(compact_state *st, const tir_expr *var, bool via_ptr) {
  for (int k = st->ninfos - 1; k >= 0; k--) {
    buf_info *bi = &st->infos[k];
    if (bi->buf->data != var) continue;
    if (via_ptr) bi->opaque_ptr = true;
    else bi->opaque_bare = true;
    for (int b = st->nblocks - 1; b >= 0; b--) {
      const tir_block *blk = st->blocks[b];
      bool named = false;
      for (int i = 0; i < blk->n_reads; i++)
        if (blk->reads[i].buf == bi->buf) add_access(st, bi, blk->reads[i].region, blk->reads[i].n), named = true;
      for (int i = 0; i < blk->n_writes; i++)
        if (blk->writes[i].buf == bi->buf) add_access(st, bi, blk->writes[i].region, blk->writes[i].n), named = true;
      if (named) return;
    }
    bi->full = true;
    return;
  }
}

static bool is_access_ptr(const tir_expr *e) {
  return e->kind == TIR_CALL && !strcmp(e->u.call.op, "tvm_access_ptr") && e->u.call.nargs == 5 &&
         tir_is_var(e->u.call.args[1]);
}

static void push_cond(compact_state *st, tir_expr *c);

static bool is_if_then_else(const tir_expr *e) {
  return e->kind == TIR_CALL && !strcmp(e->u.call.op, "if_then_else") && e->u.call.nargs == 3;
}

static bool collect_expr_cb(tir_visitor *v, const tir_expr *e) {
  compact_state *st = v->user;
  if (is_if_then_else(e)) { /* as an if: each branch under its condition */
    tir_expr *cond = e->u.call.args[0];
    int n = st->nconds;
    tir_visit_expr(v, cond);
    push_cond(st, cond);
    tir_visit_expr(v, e->u.call.args[1]);
    st->nconds = n;
    push_cond(st, tir_not(st->c, cond));
    tir_visit_expr(v, e->u.call.args[2]);
    st->nconds = n;
    return false;
  }
  if (e->kind == TIR_BUFFER_LOAD) {
    access_point(st, e->u.load.buf, e->u.load.idx, e->u.load.nidx);
  } else if (e->kind == TIR_VAR && tir_dtype_is_handle(e->dtype)) {
    access_opaque(st, e, false);
  } else if (is_access_ptr(e)) {
    /* an access_ptr typed as another dtype (content_lanes: offsets in
     * vectors) is a bare use: its offset is not rewritten */
    const tir_expr *ann = e->u.call.args[0];
    bool as_buf = true;
    for (int k = st->ninfos - 1; k >= 0; k--)
      if (st->infos[k].buf->data == e->u.call.args[1]) {
        as_buf = tir_dtype_eq(ann->dtype, st->infos[k].buf->dtype);
        break;
      }
    access_opaque(st, e->u.call.args[1], as_buf);
    for (int i = 0; i < e->u.call.nargs; i++)
      if (i != 1) tir_visit_expr(v, e->u.call.args[i]);
    return false;
  }
  return true;
}

static void collect_expr(compact_state *st, const tir_expr *e) {
  if (!e) return;
  tir_visitor v = {.expr = collect_expr_cb, .user = st};
  tir_visit_expr(&v, e);
}

static void push_loop(compact_state *st, tir_expr *var, tir_expr *min, tir_expr *extent, const char *tag) {
  GROW(st->loops, st->nloops, st->caploops);
  st->loops[st->nloops++] = (loop_entry){var, min, extent, tag};
  tir_analyzer_bind_range(st->a, var, min, extent);
}

static void push_cond(compact_state *st, tir_expr *c) {
  GROW(st->conds, st->nconds, st->capconds);
  st->conds[st->nconds++] = c;
}

static void plan(compact_state *st, buf_info *bi, const tir_stmt *own);
static void collect_stmt(compact_state *st, const tir_stmt *s);

/* buffer_dim_align entries [index, axis, factor, offset]: of a block, index
 * is that of the buffer among the block's writes; of a statement-level
 * T.alloc_buffer (LowerOpaqueBlock keeps its block's entries there, as
 * TVM's does, with index -1), the entries are the buffer's own */
static void read_dim_align_list(compact_state *st, tir_attr_val *v, const tir_block *blk, tir_buffer *own) {
  if (!v || v->kind != TIR_AV_LIST) return;
  for (int i = 0; i < v->n; i++) {
    int64_t q[4];
    if (!tir_av_int_list(v->items[i], q, 4)) continue;
    if (blk && (q[0] < 0 || q[0] >= blk->n_writes)) continue;
    buf_info *bi = info_of(st, blk ? blk->writes[q[0]].buf : own);
    if (!bi || q[1] < 0 || q[1] >= bi->buf->ndim) continue;
    if (!bi->align) bi->align = tir_alloc(st->c, sizeof *bi->align * (size_t)bi->buf->ndim);
    bi->align[q[1]] = (dim_align){(int)q[2], (int)q[3]};
  }
}

static void read_dim_aligns(compact_state *st, const tir_block *blk) {
  read_dim_align_list(st, tir_av_get(blk->annotations, "buffer_dim_align"), blk, NULL);
}

static void collect_block(compact_state *st, const tir_stmt *s) {
  const tir_block *blk = s->u.realize.block;
  for (int i = 0; i < s->u.realize.n; i++) collect_expr(st, s->u.realize.iter_values[i]);
  int nconds = st->nconds, first = st->ninfos;
  int nsubst = st->subst.n; /* the iter vars are bound only inside the block */
  if (s->u.realize.predicate && s->u.realize.predicate->kind != TIR_INT_IMM) push_cond(st, s->u.realize.predicate);
  for (int i = 0; i < blk->n_iter && i < s->u.realize.n; i++) {
    tir_var_map_set(&st->subst, blk->iter_vars[i].var,
                    tir_block_binding(st->c, blk->iter_vars[i].var, tir_substitute_expr(st->c, s->u.realize.iter_values[i], &st->subst)));
    tir_analyzer_bind_range(st->a, blk->iter_vars[i].var, blk->iter_vars[i].dom.min, blk->iter_vars[i].dom.extent);
  }
  GROW(st->blk_loops, st->nblocks, st->capblk_loops);
  GROW(st->blocks, st->nblocks, st->capblocks);
  st->blk_loops[st->nblocks] = st->nloops;
  st->blocks[st->nblocks++] = blk;
  for (int i = 0; i < blk->n_alloc; i++) track(st, blk->alloc_buffers[i]);
  read_dim_aligns(st, blk);
  for (int i = 0; i < blk->n_match; i++) access_region(st, &blk->match_buffers[i].src);
  collect_stmt(st, blk->init);
  collect_stmt(st, blk->body);
  st->nblocks--;
  st->nconds = nconds;
  st->subst.n = nsubst;
  for (int i = first; i < first + blk->n_alloc; i++) plan(st, &st->infos[i], s);
}

static void collect_stmt(compact_state *st, const tir_stmt *s) {
  if (!s) return;
  switch (s->kind) {
  case TIR_BUFFER_STORE:
    access_point(st, s->u.store.buf, s->u.store.idx, s->u.store.nidx);
    for (int i = 0; i < s->u.store.nidx; i++) collect_expr(st, s->u.store.idx[i]);
    collect_expr(st, s->u.store.value);
    return;
  case TIR_LET_STMT: {
    collect_expr(st, s->u.let.value);
    int nsubst = st->subst.n; /* bound only in the body */
    bind_let(st, s->u.let.var, s->u.let.value);
    collect_stmt(st, s->u.let.body);
    st->subst.n = nsubst;
    return;
  }
  case TIR_FOR: {
    collect_expr(st, s->u.loop.min);
    collect_expr(st, s->u.loop.extent);
    const char *tag = s->u.loop.kind == TIR_FOR_THREAD_BINDING ? s->u.loop.thread_tag : NULL;
    push_loop(st, s->u.loop.var, s->u.loop.min, s->u.loop.extent, tag);
    collect_stmt(st, s->u.loop.body);
    st->nloops--;
    return;
  }
  case TIR_WHILE:
    collect_expr(st, s->u.whl.cond);
    collect_stmt(st, s->u.whl.body);
    return;
  case TIR_IF: {
    int n = st->nconds;
    collect_expr(st, s->u.ifs.cond);
    push_cond(st, s->u.ifs.cond);
    collect_stmt(st, s->u.ifs.then_s);
    st->nconds = n;
    if (s->u.ifs.else_s) {
      push_cond(st, tir_not(st->c, s->u.ifs.cond));
      collect_stmt(st, s->u.ifs.else_s);
      st->nconds = n;
    }
    return;
  }
  case TIR_EVALUATE: collect_expr(st, s->u.eval.value); return;
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) collect_stmt(st, s->u.seq.stmts[i]);
    return;
  case TIR_ALLOCATE:
    for (int i = 0; i < s->u.alloc.n; i++) collect_expr(st, s->u.alloc.extents[i]);
    collect_stmt(st, s->u.alloc.body);
    return;
  case TIR_DECL_BUFFER: {
    /* another buffer over the same data: an alias, so keep the shape */
    for (int i = 0; i < st->ninfos; i++)
      if (st->infos[i].buf->data == s->u.decl.buf->data) st->infos[i].full = true;
    collect_stmt(st, s->u.decl.body);
    return;
  }
  case TIR_ALLOC_BUFFER: {
    track(st, s->u.decl.buf);
    int idx = st->ninfos - 1;
    read_dim_align_list(st, tir_av_get(s->u.decl.annotations, "buffer_dim_align"), NULL, s->u.decl.buf);
    collect_stmt(st, s->u.decl.body);
    plan(st, &st->infos[idx], NULL);
    return;
  }
  case TIR_ATTR: {
    collect_expr(st, s->u.attr.value);
    bool launch = !strcmp(s->u.attr.key, "thread_extent") || !strcmp(s->u.attr.key, "virtual_thread");
    if (launch && tir_is_var(s->u.attr.node)) {
      tir_expr *v = s->u.attr.node;
      const char *tag = s->u.attr.thread_tag ? s->u.attr.thread_tag : v->u.var.name;
      push_loop(st, v, tir_int(st->c, v->dtype, 0), s->u.attr.value, tag);
      collect_stmt(st, s->u.attr.body);
      st->nloops--;
      return;
    }
    collect_stmt(st, s->u.attr.body);
    return;
  }
  case TIR_ASSERT:
    collect_expr(st, s->u.assrt.cond);
    collect_stmt(st, s->u.assrt.body);
    return;
  case TIR_BLOCK_REALIZE: collect_block(st, s); return;
  default: return;
  }
}

/* ---- planning: the box of one buffer ---- */

static tir_expr *smax(compact_state *st, tir_expr *a, tir_expr *b) {
  return tir_simplify(st->a, tir_binary(st->c, TIR_MAX, a, b));
}
static tir_expr *smin(compact_state *st, tir_expr *a, tir_expr *b) {
  return tir_simplify(st->a, tir_binary(st->c, TIR_MIN, a, b));
}

static bool uses_loop_var_cb(tir_visitor *v, const tir_expr *e) {
  compact_state *st = ((void **)v->user)[0];
  bool *found = ((void **)v->user)[1];
  int lim = *(int *)((void **)v->user)[2];
  if (e->kind == TIR_VAR)
    for (int i = 0; i < lim; i++)
      if (st->loops[i].var == e) *found = true;
  return !*found;
}

/* e uses the var of one of the outermost lim loops */
static bool uses_outer_loop_var(compact_state *st, const tir_expr *e, int lim) {
  bool found = false;
  void *user[3] = {st, &found, &lim};
  tir_visitor v = {.expr = uses_loop_var_cb, .user = user};
  tir_visit_expr(&v, e);
  return found;
}

static bool uses_loop_var(compact_state *st, const tir_expr *e) { return uses_outer_loop_var(st, e, st->nloops); }

/* iv's binding (its value over the loops) is one of the outermost lim
 * loops' vars: iv names it in mins */
static void invert_binding(compact_state *st, tir_var_map *inv, tir_expr *iv, tir_expr *binding, int lim) {
  for (int i = 0; binding && binding->kind == TIR_VAR && i < lim; i++)
    if (st->loops[i].var == binding && !tir_var_map_get(inv, binding)) tir_var_map_set(inv, binding, iv);
}

/* The box's mins are written over the loops' vars (a block's iter vars are
 * replaced by their bindings while collecting), and the accesses they
 * shift are inside the allocation.  Where that is inside a block with iter
 * vars, no loop outside that block may be named there (TVM's
 * well-formedness: B[vi - i] is not TVM's to read back): a loop var that is
 * an iter var's whole binding becomes that iter var; false where another
 * is left (the buffer keeps its shape) */
static bool mins_in_block_scope(compact_state *st, const tir_stmt *own, tir_expr **mins, tir_expr **shape, int n) {
  int lim = -1; /* the loops outside the innermost block with iter vars */
  if (own && own->u.realize.block->n_iter > 0) lim = st->nloops;
  for (int k = st->nblocks - 1; lim < 0 && k >= 0; k--)
    if (st->blocks[k]->n_iter > 0) lim = st->blk_loops[k];
  if (lim <= 0) return true;
  bool outer = false;
  for (int d = 0; d < n && !outer; d++)
    outer = uses_outer_loop_var(st, mins[d], lim) || uses_outer_loop_var(st, shape[d], lim);
  if (!outer) return true;
  tir_var_map inv = {0};
  struct { tir_expr *iv, *value; } *bind = NULL; /* the iter vars in scope and their bindings */
  int nbind = 0, capbind = 0;
  for (int k = st->nblocks; k >= 0; k--) { /* st->nblocks: the allocating block */
    const tir_block *blk = k == st->nblocks ? (own ? own->u.realize.block : NULL) : st->blocks[k];
    for (int i = 0; blk && i < blk->n_iter; i++) {
      tir_expr *iv = blk->iter_vars[i].var, *value;
      if (k == st->nblocks && i >= own->u.realize.n) break;
      value = k == st->nblocks ? tir_substitute_expr(st->c, own->u.realize.iter_values[i], &st->subst)
                               : tir_var_map_get(&st->subst, iv);
      if (!value) continue;
      invert_binding(st, &inv, iv, value, lim);
      GROW(bind, nbind, capbind);
      bind[nbind].iv = iv, bind[nbind].value = value;
      nbind++;
    }
  }
  bool ok = true;
  for (int d = 0; d < n && ok; d++) {
    if (inv.n) mins[d] = tir_substitute_expr(st->c, mins[d], &inv);
    if (inv.n) shape[d] = tir_substitute_expr(st->c, shape[d], &inv);
    /* a min that is an iter var's binding plus what names no outer loop
     * (vi = i * 2 + j: i * 2 + j + 1 is vi + 1) */
    for (int k = 0; k < nbind && uses_outer_loop_var(st, mins[d], lim); k++) {
      if (!tir_dtype_eq(bind[k].value->dtype, mins[d]->dtype)) continue;
      tir_expr *diff = tir_simplify(st->a, tir_binary(st->c, TIR_SUB, mins[d], bind[k].value));
      if (uses_outer_loop_var(st, diff, lim)) continue;
      int64_t z;
      mins[d] = tir_is_const_int(diff, &z) && z == 0 ? bind[k].iv : tir_binary(st->c, TIR_ADD, bind[k].iv, diff);
    }
    ok = !uses_outer_loop_var(st, mins[d], lim) && !uses_outer_loop_var(st, shape[d], lim);
  }
  tir_var_map_free(&inv);
  free(bind);
  return ok;
}

/* loads in e: of any buffer (any_load), else of buffers the function
 * allocates itself, whose values change while the allocation lives */
static bool has_load_cb(tir_visitor *v, const tir_expr *e) {
  void **u = v->user;
  compact_state *st = u[0];
  bool *found = u[1], any = *(bool *)u[2];
  if (e->kind == TIR_BUFFER_LOAD && (any || !tir_func_is_param_buffer(st->func, e->u.load.buf))) *found = true;
  return !*found;
}

static bool has_load(compact_state *st, const tir_expr *e, bool any_load) {
  bool found = false;
  void *user[3] = {st, &found, &any_load};
  tir_visitor v = {.expr = has_load_cb, .user = user};
  tir_visit_expr(&v, e);
  return found;
}

/* the analyzer's answer for an unbounded dim can be the whole int range */
static bool huge(const tir_expr *e) {
  int64_t v;
  return tir_is_const_int(e, &v) && (v <= INT32_MIN || v >= INT32_MAX);
}

/* interval fallback for dim d (as TVM: the hull of each access's range,
 * conditions ignored), used where the analyzer's box gave up */
static bool interval_dim(compact_state *st, const buf_info *bi, int d, tir_range *out) {
  tir_expr *lo = NULL, *hi = NULL;
  for (int k = 0; k < bi->nacc; k++) {
    const tir_access_region *acc = &bi->acc[k];
    tir_expr *mn = acc->region[d].min;
    tir_expr *last = tir_binary(st->c, TIR_SUB, tir_binary(st->c, TIR_ADD, mn, acc->region[d].extent),
                                tir_int(st->c, mn->dtype, 1));
    tir_range r1, r2;
    if (!tir_eval_range(st->a, mn, acc->relax, acc->nrelax, &r1) ||
        !tir_eval_range(st->a, last, acc->relax, acc->nrelax, &r2))
      return false;
    tir_expr *h = tir_binary(st->c, TIR_SUB, tir_binary(st->c, TIR_ADD, r2.min, r2.extent), tir_int(st->c, mn->dtype, 1));
    lo = lo ? tir_binary(st->c, TIR_MIN, lo, r1.min) : r1.min;
    hi = hi ? tir_binary(st->c, TIR_MAX, hi, h) : h;
  }
  if (!lo) return false;
  out->min = tir_simplify(st->a, lo);
  out->extent = tir_simplify(st->a, tir_binary(st->c, TIR_ADD, tir_binary(st->c, TIR_SUB, hi, lo), tir_int(st->c, lo->dtype, 1)));
  return !huge(out->min) && !huge(out->extent);
}

/* isl writes a bound in its own terms (bx // 18 * 128 may come back as
 * bx * 128 - (bx * 17 + 17) // 18 * 128), which the rewritten indices then
 * cannot cancel.  Where the interval hull (TVM's) has a provably equal
 * min, take its expression: it is built from the program's own terms. */
static void prefer_interval_form(compact_state *st, const buf_info *bi, int d, tir_range *r) {
  tir_range iv;
  if (!interval_dim(st, bi, d, &iv)) return;
  if (tir_dtype_eq(iv.min->dtype, r->min->dtype) && tir_can_prove_equal(st->a, iv.min, r->min)) r->min = iv.min;
}

/* the product of the constant factors of a shape expr: 32 of n * 32 */
static int64_t const_scale(const tir_expr *e) {
  int64_t v;
  if (e->kind != TIR_MUL) return 1;
  if (tir_is_const_int(e->u.bin.b, &v)) return v * const_scale(e->u.bin.a);
  if (tir_is_const_int(e->u.bin.a, &v)) return v * const_scale(e->u.bin.b);
  return const_scale(e->u.bin.a) * const_scale(e->u.bin.b);
}

/* ext <= shape, where (as TVM's CanProveLessEqualThanSymbolicShapeValue)
 * the symbolic part of a shape is taken to be at least 1: a constant extent
 * up to the shape's constant factor fits (4 in n * 4), and an extent of 1
 * fits any symbolic shape (TVM's (1,) of a shape n, n - 1 or n // 2 under
 * a point access; an allocation of one element is never too small for a
 * box of one) */
static bool fits_in_shape(compact_state *st, tir_expr *ext, tir_expr *shape) {
  if (tir_can_prove(st->a, tir_binary(st->c, TIR_LE, ext, shape))) return true;
  int64_t c, e;
  if (tir_is_const_int(shape, &c)) return false;
  int64_t scale = const_scale(shape);
  return tir_is_const_int(ext, &e) && e >= 1 && e <= (scale > 1 ? scale : 1);
}

/* min(x, C) with C at int32's end (isl's bound of an int32 index, such as
 * min(n, 2147483646) for rows [0, n) of an (n, 8) buffer): x.  The extent
 * only grows, so the box still holds every access; it then fits the shape
 * as TVM's (n) does */
static tir_expr *drop_int_end_min(tir_expr *e) {
  int64_t v;
  if (e->kind != TIR_MIN) return e;
  if (tir_is_const_int(e->u.bin.b, &v) && v >= INT32_MAX - 16) return e->u.bin.a;
  if (tir_is_const_int(e->u.bin.a, &v) && v >= INT32_MAX - 16) return e->u.bin.b;
  return e;
}

/* fit the box [min, min+extent) into [0, shape) as TVM does: extent' =
 * min(extent, shape) and min' = max(0, min).  Every in-bounds element of the
 * box, x in [max(0, min), min(min + extent, shape)), then lands in
 * [0, extent') after the shift, so no upper clamp of min' is needed.  False:
 * keep the whole dim. */
static bool clamp_dim(compact_state *st, tir_range *r, tir_expr *shape) {
  tir_dtype t = shape->dtype;
  tir_expr *min = r->min, *ext = r->extent;
  if (!tir_dtype_eq(min->dtype, t)) min = tir_cast(st->c, t, min);
  if (!tir_dtype_eq(ext->dtype, t)) ext = tir_cast(st->c, t, ext);
  ext = drop_int_end_min(ext);
  int64_t big;
  if (tir_is_const_int(ext, &big) && big >= INT32_MAX - 16) return false; /* int32's end: the whole dim, as TVM's */
  if (has_load(st, min, false)) return false; /* data-dependent on the function's own buffers */
  if (uses_loop_var(st, ext) || has_load(st, ext, true)) { /* loop- or data-dependent: a constant bound */
    int64_t lo, hi;
    tir_const_bound(st->a, ext, &lo, &hi);
    if (hi >= INT32_MAX - 16) return false; /* no bound short of int32's end: the whole dim, as TVM's */
    ext = tir_int(st->c, t, hi);
  }
  if (!fits_in_shape(st, ext, shape)) ext = smin(st, shape, ext); /* TVM's order */
  if (!tir_can_prove(st->a, tir_binary(st->c, TIR_GE, min, tir_int(st->c, t, 0))))
    min = smax(st, tir_int(st->c, t, 0), min); /* TVM's order */
  r->min = min;
  r->extent = ext;
  return true;
}

static tir_expr **aligned_strides(compact_state *st, const buf_info *bi, tir_expr *const *shape, int n) {
  tir_expr **strides = tir_alloc(st->c, sizeof *strides * (size_t)n);
  tir_dtype t = n ? shape[0]->dtype : TIR_INT32;
  tir_expr *stride = tir_int(st->c, t, 1);
  for (int d = n - 1; d >= 0; d--) {
    const dim_align *al = &bi->align[d];
    if (al->factor) {
      tir_expr *f = tir_int(st->c, t, al->factor), *o = tir_int(st->c, t, al->offset);
      tir_expr *m = tir_binary(st->c, TIR_FLOORMOD, stride, f);
      tir_expr *pad = tir_binary(st->c, TIR_FLOORMOD, tir_binary(st->c, TIR_SUB, tir_binary(st->c, TIR_ADD, f, o), m), f);
      stride = tir_simplify(st->a, tir_binary(st->c, TIR_ADD, stride, pad));
    }
    strides[d] = stride;
    stride = tir_simplify(st->a, tir_binary(st->c, TIR_MUL, stride, shape[d]));
  }
  return strides;
}

/* An opaque use sees the buffer as flat memory.  Only a box that shrinks
 * dim 0 alone keeps the flat layout of the rest: then an access_ptr offset
 * moves by min_0 * (row size), and a bare pointer stays valid when min_0 is
 * 0.  Any other box would silently break the opaque access, so the buffer
 * keeps its shape (TVM compacts anyway). */
static bool opaque_safe(const buf_info *bi, tir_expr *const *shape) {
  const tir_buffer *b = bi->buf;
  if (bi->align || b->nstrides) return false;
  for (int d = 1; d < b->ndim; d++) {
    int64_t z;
    if (!(tir_is_const_int(bi->mins[d], &z) && z == 0) || shape[d] != b->shape[d]) return false;
  }
  int64_t z;
  return !bi->opaque_bare || (b->ndim && tir_is_const_int(bi->mins[0], &z) && z == 0);
}

static void plan(compact_state *st, buf_info *bi, const tir_stmt *own) {
  const tir_buffer *b = bi->buf;
  int n = b->ndim;
  tir_range *box = tir_alloc(st->c, sizeof *box * (size_t)(n ? n : 1));
  bool boxed = !bi->full && bi->nacc > 0 && n > 0 && tir_region_bbox(st->a, bi->acc, bi->nacc, n, box);
  bool changed = false;
  tir_expr **shape = tir_alloc(st->c, sizeof *shape * (size_t)(n ? n : 1));
  bi->mins = tir_alloc(st->c, sizeof *bi->mins * (size_t)(n ? n : 1));
  for (int d = 0; d < n; d++) {
    tir_range r = boxed ? box[d] : (tir_range){NULL, NULL};
    bool ok = !bi->full && bi->nacc > 0;
    if (ok && (!boxed || huge(r.min) || huge(r.extent))) ok = interval_dim(st, bi, d, &r);
    else if (ok) prefer_interval_form(st, bi, d, &r);
    if (!ok || !clamp_dim(st, &r, b->shape[d])) r = (tir_range){tir_int(st->c, b->shape[d]->dtype, 0), b->shape[d]};
    if (tir_can_prove_equal(st->a, r.extent, b->shape[d])) /* not smaller */
      r = (tir_range){tir_int(st->c, b->shape[d]->dtype, 0), b->shape[d]};
    else
      changed = true;
    shape[d] = r.extent;
    bi->mins[d] = r.min;
  }
  if (changed && !mins_in_block_scope(st, own, bi->mins, shape, n)) {
    changed = false;
    for (int d = 0; d < n; d++) shape[d] = b->shape[d], bi->mins[d] = tir_int(st->c, b->shape[d]->dtype, 0);
  }
  /* as TVM's: an allocation's explicit strides go (the compact layout, or
   * storage_align's) even where its shape stays */
  if (!changed && !bi->align && !b->nstrides) return;
  if ((bi->opaque_ptr || bi->opaque_bare) && !opaque_safe(bi, shape)) return;
  tir_buffer *nb = tir_buffer_copy(st->c, b);
  nb->shape = shape;
  nb->strides = bi->align ? aligned_strides(st, bi, shape, n) : NULL;
  nb->nstrides = bi->align ? n : 0;
  bi->new_buf = nb;
}

/* ---- rewriting ---- */

static const buf_info *rewritten(const compact_state *st, const tir_buffer *b) {
  int i = bm_get(&st->by_rewritten, b);
  return i >= 0 ? &st->infos[i] : NULL;
}

/* the first info that rewrites a buffer (old or new) answers for it */
static void index_rewritten(compact_state *st) {
  for (int i = st->ninfos - 1; i >= 0; i--) {
    if (!st->infos[i].new_buf) continue;
    bm_put(&st->by_rewritten, st->infos[i].new_buf, i);
    bm_put(&st->by_rewritten, st->infos[i].buf, i);
  }
}

/* idx - min as TVM's RewriteBufferAccess writes it: PrimExpr's operator-,
 * which folds constants and nothing else (the index k_0 * 32 + x - k_0 * 32
 * stays as it is, for the Simplify after the pass).  Simplifying here gave
 * equal but differently spelled indices (x % 32 as x // 4 % 8 * 4 + x % 4,
 * a - max(b, 0) as min(a - b, a)), which TVM's structural equality, even
 * after its Simplify, tells apart */
static tir_expr *sub_folded(compact_state *st, tir_expr *a, tir_expr *b) {
  int64_t x, y;
  if (tir_is_const_int(b, &y) && y == 0) return a;
  if (tir_is_const_int(a, &x) && tir_is_const_int(b, &y) && !__builtin_sub_overflow(x, y, &x) &&
      tir_dtype_eq(a->dtype, b->dtype))
    return tir_int(st->c, a->dtype, x);
  return tir_binary(st->c, TIR_SUB, a, b);
}

static tir_expr *shift(compact_state *st, tir_expr *idx, tir_expr *min) {
  int64_t z;
  if (tir_is_const_int(min, &z) && z == 0) return idx;
  if (idx->kind == TIR_RAMP) {
    tir_expr *m = tir_dtype_eq(min->dtype, idx->u.ramp.base->dtype) ? min : tir_cast(st->c, idx->u.ramp.base->dtype, min);
    return tir_ramp(st->c, sub_folded(st, idx->u.ramp.base, m), idx->u.ramp.stride, idx->u.ramp.lanes);
  }
  if (!tir_dtype_eq(min->dtype, idx->dtype)) min = tir_cast(st->c, idx->dtype, min);
  return sub_folded(st, idx, min);
}

static tir_expr **shift_all(compact_state *st, const buf_info *bi, tir_expr *const *idx, int n) {
  tir_expr **out = tir_alloc(st->c, sizeof *out * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) out[i] = shift(st, idx[i], bi->mins[i]);
  return out;
}

static tir_buffer *on_buffer(tir_mutator *m, tir_buffer *b) {
  const buf_info *bi = rewritten(m->user, b);
  return bi ? bi->new_buf : b;
}

/* tvm_access_ptr(t, data, offset, extent, mask) of a compacted buffer:
 * offset - min_0 * (row size of the old layout, which opaque_safe kept) */
static tir_expr *shift_access_ptr(compact_state *st, tir_expr *e) {
  const buf_info *bi = NULL;
  for (int i = 0; i < st->ninfos && !bi; i++)
    if (st->infos[i].new_buf && st->infos[i].buf->data == e->u.call.args[1]) bi = &st->infos[i];
  int64_t z;
  if (!bi || !bi->buf->ndim || (tir_is_const_int(bi->mins[0], &z) && z == 0)) return e;
  tir_expr *off = e->u.call.args[2];
  tir_expr *delta = bi->mins[0];
  for (int d = 1; d < bi->buf->ndim; d++) delta = tir_binary(st->c, TIR_MUL, delta, bi->buf->shape[d]);
  if (!tir_dtype_eq(delta->dtype, off->dtype)) delta = tir_cast(st->c, off->dtype, delta);
  tir_expr *args[5];
  memcpy(args, e->u.call.args, sizeof args);
  args[2] = tir_simplify(st->a, tir_binary(st->c, TIR_SUB, off, delta));
  tir_expr *r = tir_call(st->c, e->dtype, e->u.call.op, args, 5);
  r->u.call.global = e->u.call.global;
  r->span = e->span;
  r->u.call.written_out = e->u.call.written_out;
  return r;
}

static tir_expr *on_expr(tir_mutator *m, tir_expr *e) {
  compact_state *st = m->user;
  if (is_access_ptr(e)) return shift_access_ptr(st, e);
  if (e->kind != TIR_BUFFER_LOAD) return e;
  const buf_info *bi = rewritten(st, e->u.load.buf);
  if (!bi || e->u.load.nidx != bi->buf->ndim) return e;
  tir_expr *r = tir_load(st->c, bi->new_buf, shift_all(st, bi, e->u.load.idx, e->u.load.nidx), e->u.load.nidx);
  r->span = e->span;
  return r;
}

static tir_stmt *on_stmt(tir_mutator *m, tir_stmt *s) {
  compact_state *st = m->user;
  if (s->kind != TIR_BUFFER_STORE) return s;
  const buf_info *bi = rewritten(st, s->u.store.buf);
  if (!bi || s->u.store.nidx != bi->buf->ndim) return s;
  tir_stmt *r = tir_store(st->c, bi->new_buf, s->u.store.value, shift_all(st, bi, s->u.store.idx, s->u.store.nidx),
                          s->u.store.nidx);
  r->span = s->span;
  return r;
}

static void on_region(tir_mutator *m, tir_buffer_region *r) {
  compact_state *st = m->user;
  const buf_info *bi = rewritten(st, r->buf);
  if (!bi || r->n != bi->buf->ndim) return;
  tir_range *out = tir_alloc(st->c, sizeof *out * (size_t)(r->n ? r->n : 1));
  for (int i = 0; i < r->n; i++) out[i] = (tir_range){shift(st, r->region[i].min, bi->mins[i]), r->region[i].extent};
  r->buf = bi->new_buf;
  r->region = out;
}

static void free_state(compact_state *st) {
  for (int i = 0; i < st->ninfos; i++) free(st->infos[i].acc);
  free(st->infos);
  free(st->loops);
  free(st->conds);
  free(st->blocks);
  free(st->blk_loops);
  tir_var_map_free(&st->subst);
  ptr_set_free(&st->opaque_lets);
  bm_free(&st->by_buf);
  bm_free(&st->by_rewritten);
  tir_analyzer_free(st->a);
}

tir_func *tir_pass_compact_buffer_allocation(tir_ctx *c, const tir_func *f, tir_diag *d) {
  compact_state st;
  memset(&st, 0, sizeof st);
  st.c = c;
  st.a = tir_analyzer_new(c, d);
  st.func = f;
  collect_stmt(&st, f->body);
  bool any = false;
  for (int i = 0; i < st.ninfos; i++) any = any || st.infos[i].new_buf;
  tir_func *out = (tir_func *)f;
  if (any) {
    index_rewritten(&st);
    tir_mutator m = {.expr = on_expr, .stmt = on_stmt, .buffer = on_buffer, .region = on_region, .ctx = c, .user = &st};
    out = tir_func_copy(c, f);
    out->body = tir_mutate_stmt(&m, f->body);
  }
  free_state(&st);
  return out;
}
