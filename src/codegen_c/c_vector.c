/* c_vector.c - vector (multi-lane) stores as scalar lanes.  IR that holds
 * Ramp / Broadcast (written by hand, or left by a vectorizer) is printed
 * lane by lane: cg_lane_of() rewrites a vector expression into the scalar
 * expression of one lane, and the C target prints a store of n lanes as a
 * loop over `lane` (C compilers vectorize it again):
 *
 *   for (int32_t lane = 0; lane < 4; ++lane) {
 *     A[i * 4 + lane] = B[i * 4 + lane] + 1.0f;
 *   }
 *
 * When the value reads the buffer being stored, every lane is computed
 * into a temporary array first, as a vector store reads all its operands
 * before writing. */
#include <string.h>

#include "codegen_c/c_printer.h"
#include "tir/analysis.h"
#include "tir/visit.h"

static tir_dtype scalar_of(tir_dtype t) { return tir_dtype_with_lanes(t, 1); }

static tir_expr *lane_index(cg *g, tir_expr *lane, tir_dtype t) {
  if (tir_dtype_eq(lane->dtype, t)) return lane;
  int64_t k;
  if (tir_is_const_int(lane, &k)) return tir_int(g->ctx, t, k);
  return tir_cast(g->ctx, t, lane);
}

static tir_expr *lane_rec(cg *g, const tir_expr *e, tir_expr *lane, const cg_lane_hook *hook);

/* an index expression, simplified (constant lanes fold into the base) */
static tir_expr *simplified(cg *g, tir_expr *e) {
  if (!e || !tir_dtype_is_int(e->dtype)) return e;
  if (!g->an) g->an = tir_analyzer_new(g->ctx, NULL);
  return tir_simplify(g->an, e);
}

static tir_expr *lane_ramp(cg *g, const tir_expr *e, tir_expr *lane, const cg_lane_hook *hook) {
  tir_expr *base = lane_rec(g, e->u.ramp.base, lane, hook);
  tir_expr *stride = lane_rec(g, e->u.ramp.stride, lane, hook);
  if (!base || !stride) return NULL;
  int64_t s, k;
  tir_expr *l = lane_index(g, lane, base->dtype);
  if (tir_is_const_int(l, &k) && k == 0) return base;
  tir_expr *off = tir_is_const_int(stride, &s) && s == 1 ? l : tir_binary(g->ctx, TIR_MUL, l, stride);
  return tir_binary(g->ctx, TIR_ADD, base, off);
}

static tir_expr *lane_load(cg *g, const tir_expr *e, tir_expr *lane, const cg_lane_hook *hook) {
  if (hook && hook->load) {
    tir_expr *r = hook->load(g, hook->user, e, lane);
    if (r) return r;
  }
  tir_expr *idx[8];
  if (e->u.load.nidx > 8) {
    cg_error(g, e->span, "a vector load of '%s' with %d indices: run FlattenBuffer (flatten) first", e->u.load.buf->name,
             e->u.load.nidx);
    return NULL;
  }
  for (int i = 0; i < e->u.load.nidx; i++)
    if (!(idx[i] = simplified(g, lane_rec(g, e->u.load.idx[i], lane, hook)))) return NULL;
  tir_expr *r = tir_load(g->ctx, e->u.load.buf, idx, e->u.load.nidx);
  r->dtype = scalar_of(e->dtype);
  r->span = e->span;
  return r;
}

static tir_expr *lane_call(cg *g, const tir_expr *e, tir_expr *lane, const cg_lane_hook *hook) {
  int n = e->u.call.nargs;
  tir_expr **args = tir_alloc(g->ctx, sizeof *args * (size_t)(n ? n : 1));
  if (!strncmp(e->u.call.op, "masked_", 7) || !strcmp(e->u.call.op, "get_active_lane_mask")) {
    cg_error(g, e->span, "the C code generator does not know the intrinsic '%s' (a lane mask: read and printed only)",
             e->u.call.op);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    if (e->u.call.args[i]->dtype.code == TIR_TC_HANDLE) {
      cg_error(g, e->span, "the vector call '%s' takes a pointer: it has no lane-wise form", e->u.call.op);
      return NULL;
    }
    if (!(args[i] = lane_rec(g, e->u.call.args[i], lane, hook))) return NULL;
  }
  tir_expr *r = tir_call(g->ctx, scalar_of(e->dtype), e->u.call.op, args, n);
  r->span = e->span;
  return r;
}

static tir_expr *lane_rec(cg *g, const tir_expr *e, tir_expr *lane, const cg_lane_hook *hook) {
  tir_ctx *c = g->ctx;
  if (e->dtype.lanes == 1 && e->kind != TIR_BUFFER_LOAD) return (tir_expr *)e;
  switch (e->kind) {
  case TIR_RAMP: return lane_ramp(g, e, lane, hook);
  case TIR_BROADCAST:
    if (e->u.bcast.value->dtype.lanes != 1) break;
    return e->u.bcast.value;
  case TIR_BUFFER_LOAD: return lane_load(g, e, lane, hook);
  case TIR_NOT: {
    tir_expr *a = lane_rec(g, e->u.un.a, lane, hook);
    return a ? tir_not(c, a) : NULL;
  }
  case TIR_CAST: {
    tir_expr *a = lane_rec(g, e->u.un.a, lane, hook);
    return a ? tir_cast(c, scalar_of(e->dtype), a) : NULL;
  }
  case TIR_SELECT: {
    tir_expr *x = lane_rec(g, e->u.select.cond, lane, hook), *t = lane_rec(g, e->u.select.t, lane, hook),
             *f = lane_rec(g, e->u.select.f, lane, hook);
    return x && t && f ? tir_select(c, x, t, f) : NULL;
  }
  case TIR_CALL: return lane_call(g, e, lane, hook);
  case TIR_LET: {
    tir_var_map m = {0};
    tir_var_map_set(&m, e->u.let.var, e->u.let.value);
    tir_expr *body = tir_substitute_expr(c, e->u.let.body, &m);
    tir_var_map_free(&m);
    return lane_rec(g, body, lane, hook);
  }
  default:
    if (TIR_IS_BINARY(e->kind)) {
      if (e->u.bin.a->dtype.lanes != e->u.bin.b->dtype.lanes) break;
      tir_expr *a = lane_rec(g, e->u.bin.a, lane, hook), *b = lane_rec(g, e->u.bin.b, lane, hook);
      return a && b ? tir_binary(c, e->kind, a, b) : NULL;
    }
    break;
  }
  char ty[32];
  cg_error(g, e->span, "this %s expression has no lane-wise form in the code generator", tir_dtype_str(e->dtype, ty));
  return NULL;
}

tir_expr *cg_lane_of(cg *g, const tir_expr *e, tir_expr *lane, const cg_lane_hook *hook) {
  return lane_rec(g, e, lane, hook);
}

tir_expr *cg_lane_index(cg *g, const tir_expr *idx, tir_expr *lane) {
  return simplified(g, lane_rec(g, idx, lane, NULL));
}

int cg_store_lanes(const tir_stmt *s) {
  int n = s->u.store.value->dtype.lanes;
  for (int i = 0; i < s->u.store.nidx; i++)
    if (s->u.store.idx[i]->dtype.lanes > n) n = s->u.store.idx[i]->dtype.lanes;
  return n;
}

/* does e read the buffer over data? */
typedef struct {
  const tir_expr *data;
  bool found;
} reads_ctx;
static bool reads_cb(tir_visitor *v, const tir_expr *e) {
  reads_ctx *r = v->user;
  if ((e->kind == TIR_BUFFER_LOAD && e->u.load.buf->data == r->data) || e == r->data) r->found = true;
  return !r->found;
}
bool cg_expr_reads(const tir_expr *e, const tir_expr *data) {
  reads_ctx r = {data, false};
  tir_visitor v = {.expr = reads_cb, .user = &r};
  tir_visit_expr(&v, e);
  return r.found;
}

/* the store's index and value at lane, or false */
static bool store_lane(cg *g, const tir_stmt *s, tir_expr *lane, tir_expr **idx, tir_expr **val) {
  *idx = cg_lane_index(g, s->u.store.idx[0], lane);
  *val = *idx ? cg_lane_of(g, s->u.store.value, lane, NULL) : NULL;
  return *val != NULL;
}

static void lane_loop_open(cg *g, tir_expr *lane, int n) {
  cg_enter(g);
  const char *name = cg_define(g, lane, "lane");
  tir_analyzer_bind_range(cg_bounds(g), lane, tir_i32(g->ctx, 0), tir_i32(g->ctx, n));
  cg_linef(g, "for (int32_t %s = 0; %s < %d; ++%s) {", name, name, n, name);
  g->indent++;
}

static void lane_loop_close(cg *g) {
  g->indent--;
  cg_linef(g, "}");
  cg_leave(g);
}

void cg_c_vector_store(cg *g, const tir_stmt *s) {
  const tir_buffer *b = s->u.store.buf;
  int n = cg_store_lanes(s);
  if (s->u.store.nidx != 1) {
    cg_error(g, s->span, "buffer '%s' is stored with %d indices: run FlattenBuffer (flatten) before code generation",
             b->name, s->u.store.nidx);
    return;
  }
  char ty[32];
  if (!cg_type(g, scalar_of(s->u.store.value->dtype), ty, s->span)) return;
  const char *buf = cg_buffer_ptr(g, b);
  cg_note_access(g, b->data, TIR_AOT_WRITE);
  tir_expr *idx, *val;
  cg_enter(g);
  tir_expr *lane = tir_var(g->ctx, "lane", TIR_INT32);
  if (!cg_expr_reads(s->u.store.value, b->data)) {
    lane_loop_open(g, lane, n);
    if (store_lane(g, s, lane, &idx, &val)) {
      char *i = cg_index_str(g, idx), *v = cg_expr_str(g, val);
      cg_linef(g, "%s[%s] = %s;", buf, i, v);
    }
    lane_loop_close(g);
    cg_leave(g);
    return;
  }
  /* the value reads what the store writes: all lanes first */
  cg_linef(g, "{");
  g->indent++;
  const char *tmp = cg_tmp(g, "lanes");
  cg_linef(g, "%s %s[%d];", ty, tmp, n);
  lane_loop_open(g, lane, n);
  val = cg_lane_of(g, s->u.store.value, lane, NULL);
  if (val) cg_linef(g, "%s[%s] = %s;", tmp, cg_var(g, lane), cg_expr_str(g, val));
  lane_loop_close(g);
  lane_loop_open(g, lane, n);
  idx = cg_lane_index(g, s->u.store.idx[0], lane);
  if (idx) cg_linef(g, "%s[%s] = %s[%s];", buf, cg_index_str(g, idx), tmp, cg_var(g, lane));
  lane_loop_close(g);
  g->indent--;
  cg_linef(g, "}");
  cg_leave(g);
}
