/* cuda_prefetch.c - the global loads of a tile fetched to shared memory,
 * issued one iteration early into registers.
 *
 * A GPU schedule's k loop (dlight's matmul and its kin) copies a tile from
 * global to shared memory, then computes on it:
 *
 *   for (k = 0; k < 256; ++k) {
 *     Xs[..] = X[.. k ..];            every thread its part of the tile
 *     __syncthreads();
 *     ... compute on Xs ...
 *     __syncthreads();
 *   }
 *
 * and each iteration waits for its global loads before it can compute.
 * Loading iteration k+1's values into registers while iteration k computes
 * hides that wait (what CUTLASS calls register double buffering):
 *
 *   float2 R[..]; R[..] = X[.. k=0 ..];
 *   for (k = 0; k < 256; ++k) {
 *     Xs[..] = R[..];
 *     if (k + 1 < 256) R[..] = X[.. k+1 ..];
 *     __syncthreads();
 *     ... compute on Xs ...
 *     __syncthreads();
 *   }
 *
 * (bench/gpu on an H200: dlight's 4096^3 float32 matmul 7.212 -> 7.181 ms,
 * 1.004x TVM's CUDA build of the same TIR, which ran at 0.999x-1.000x).  The
 * same loads run, in the same threads, one iteration earlier; the shared
 * stores keep their place.  Done only where that provably keeps the meaning:
 *   - L is a serial loop (no step), not unrolled, of a constant extent >= 2 or
 *     bounds that read no buffer (then the first loads wait for 0 < extent);
 *     its body (under allocations) is a sequence whose first items are
 *     copies, and at least one item follows them;
 *   - a copy is, under thread bindings (a cooperative fetch binds the
 *     block's threads again: cuda_rebind.c has proved by then that each
 *     thread runs its own index), loops of constant bounds (printed
 *     unrolled, or vectorized) and guards (an if without else whose
 *     condition reads no buffer: the same for the loads, made early, and the
 *     stores of one iteration), one store of one lane to shared memory,
 *     whose indices read no buffer and whose value reads only buffers that
 *     the kernel never writes: the memory of a __restrict__ parameter that
 *     no store, pointer (address_of, tvm_access_ptr, a handle) or impure
 *     call of the kernel reaches; its calls are pure;
 *   - at most PREFETCH_MAX elements are held in registers in all.
 * The registers are a local array per copy, indexed by the copy's loops
 * (unrolled, so nvcc keeps them in registers).  The rewritten statement
 * means this only as CUDA code, where a rebinding runs one index per
 * thread: it is made after cuda_rebindings_ok and printed at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_cuda/cuda_internal.h"
#include "intrin/intrin.h"
#include "tir/analysis.h"
#include "tir/visit.h"

#define PREFETCH_MAX 64 /* elements held in registers per thread, all copies of one loop */
#define PREFETCH_DEPTH 8

/* ---- what the kernel writes, or lets escape ---- */

typedef struct pf_scan {
  ptr_set written; /* data vars stored to, or whose pointer escapes */
} pf_scan;

static bool is_addr_call(const char *op) {
  return !strcmp(op, "address_of") || !strcmp(op, "tvm_access_ptr") || !strcmp(op, "tirx.address_of") ||
         !strcmp(op, "tirx.tvm_access_ptr");
}

static bool call_pure(const tir_expr *e) {
  if (e->u.call.global) return false;
  const tir_intrin *in = tir_intrin_lookup(e->u.call.op);
  return in && in->pure && !tir_intrin_read_only(in) && !is_addr_call(e->u.call.op);
}

static bool escape_expr(tir_visitor *v, const tir_expr *e) {
  pf_scan *ps = v->user;
  if (e->kind == TIR_VAR && e->dtype.code == TIR_TC_HANDLE) ptr_set_add(&ps->written, e);
  if (e->kind == TIR_BUFFER_LOAD) ptr_set_add(&ps->written, e->u.load.buf->data);
  return true;
}

static bool scan_expr(tir_visitor *v, const tir_expr *e) {
  pf_scan *ps = v->user;
  /* a bare handle (an argument, a let) may be written through */
  if (e->kind == TIR_VAR && e->dtype.code == TIR_TC_HANDLE) ptr_set_add(&ps->written, e);
  if (e->kind == TIR_CALL && !call_pure(e) && strcmp(e->u.call.op, "if_then_else") &&
      strcmp(e->u.call.op, "tirx.if_then_else")) {
    /* every buffer an impure call or a pointer reaches */
    tir_visitor ev = {.expr = escape_expr, .user = ps};
    for (int i = 0; i < e->u.call.nargs; i++) tir_visit_expr(&ev, e->u.call.args[i]);
    return false;
  }
  return true;
}

static bool scan_stmt(tir_visitor *v, const tir_stmt *s) {
  pf_scan *ps = v->user;
  if (s->kind == TIR_BUFFER_STORE) ptr_set_add(&ps->written, s->u.store.buf->data);
  if (s->kind == TIR_DECL_BUFFER || s->kind == TIR_ALLOC_BUFFER) {
    /* a buffer declared over an expression of a pointer: treat the pointer as escaping */
    tir_visitor ev = {.expr = escape_expr, .user = ps};
    tir_visit_expr(&ev, s->u.decl.buf->elem_offset);
  }
  return true;
}

/* ---- the copies ---- */

typedef struct pf_ctx {
  tir_ctx *x;
  const ptr_set *unrolled; /* loops cuda_unroll plans to unroll, in the original body */
  const var_list *restrict_data; /* data vars of the kernel's __restrict__ parameters */
  pf_scan scan;
  tir_analyzer *an; /* made at the first rewrite: simplifies the loads' indices at L's next value */
  int made;
} pf_ctx;

static bool is_restrict(const pf_ctx *pc, const tir_expr *data) {
  for (int i = 0; i < pc->restrict_data->n; i++)
    if (pc->restrict_data->vars[i] == data) return true;
  return false;
}

static bool is_global(const tir_buffer *b) { return !b->scope || !*b->scope || !strcmp(b->scope, "global"); }

/* e reads only read-only global memory (in_index: no buffer at all), through pure operations */
static bool value_ok(const pf_ctx *pc, const tir_expr *e, bool in_index) {
  if (!e) return true;
  switch (e->kind) {
  case TIR_VAR: return e->dtype.code != TIR_TC_HANDLE;
  case TIR_INT_IMM:
  case TIR_FLOAT_IMM: return true;
  case TIR_NOT:
  case TIR_CAST: return value_ok(pc, e->u.un.a, in_index);
  case TIR_SELECT:
    return value_ok(pc, e->u.select.cond, in_index) && value_ok(pc, e->u.select.t, in_index) &&
           value_ok(pc, e->u.select.f, in_index);
  case TIR_RAMP: return value_ok(pc, e->u.ramp.base, in_index) && value_ok(pc, e->u.ramp.stride, in_index);
  case TIR_BROADCAST: return value_ok(pc, e->u.bcast.value, in_index);
  case TIR_CALL:
    if (!call_pure(e) && strcmp(e->u.call.op, "if_then_else") && strcmp(e->u.call.op, "tirx.if_then_else"))
      return false;
    for (int i = 0; i < e->u.call.nargs; i++)
      if (!value_ok(pc, e->u.call.args[i], in_index)) return false;
    return true;
  case TIR_BUFFER_LOAD: {
    const tir_buffer *b = e->u.load.buf;
    if (in_index || !is_global(b) || !is_restrict(pc, b->data) || ptr_set_has(&pc->scan.written, b->data))
      return false;
    for (int i = 0; i < e->u.load.nidx; i++)
      if (!value_ok(pc, e->u.load.idx[i], true)) return false;
    return true;
  }
  default:
    if (TIR_IS_BINARY(e->kind)) return value_ok(pc, e->u.bin.a, in_index) && value_ok(pc, e->u.bin.b, in_index);
    return false; /* lets, strings, anything else */
  }
}

/* a copy: its wrappers outermost first (thread bindings and loops), its store */
typedef struct pf_copy {
  const tir_stmt *wrap[PREFETCH_DEPTH];
  int nwrap;
  const tir_stmt *store;
  int64_t elems; /* the loops' iterations */
} pf_copy;

static bool is_shared(const tir_buffer *b) { return b->scope && !strncmp(b->scope, "shared", 6); }

static bool copy_of(const pf_ctx *pc, const tir_stmt *s, pf_copy *c) {
  c->nwrap = 0;
  c->elems = 1;
  for (;;) {
    if (cuda_is_thread_attr(s)) {
      const char *tag = cuda_attr_tag(s);
      int64_t ext;
      if (!tag || strncmp(tag, "threadIdx.", 10) || !tir_is_var(s->u.attr.node) ||
          !tir_is_const_int(s->u.attr.value, &ext))
        return false;
    } else if (s->kind == TIR_FOR) {
      int64_t mn, ext;
      tir_for_kind k = s->u.loop.kind;
      if (s->u.loop.step || !tir_is_const_int(s->u.loop.min, &mn) || !tir_is_const_int(s->u.loop.extent, &ext) ||
          ext < 1 || ext > PREFETCH_MAX)
        return false;
      if (!(k == TIR_FOR_VECTORIZED || k == TIR_FOR_UNROLLED || k == TIR_FOR_SERIAL)) return false;
      c->elems *= ext;
      if (c->elems > PREFETCH_MAX) return false;
    } else if (s->kind == TIR_IF) { /* a guard, the same for the copy's loads and its stores */
      if (s->u.ifs.else_s || !value_ok(pc, s->u.ifs.cond, true)) return false;
    } else {
      break;
    }
    if (c->nwrap == PREFETCH_DEPTH) return false;
    c->wrap[c->nwrap++] = s;
    s = s->kind == TIR_FOR ? s->u.loop.body : s->kind == TIR_IF ? s->u.ifs.then_s : s->u.attr.body;
  }
  if (s->kind != TIR_BUFFER_STORE || !is_shared(s->u.store.buf) || s->u.store.value->dtype.lanes != 1 ||
      !value_ok(pc, s->u.store.value, false))
    return false;
  for (int i = 0; i < s->u.store.nidx; i++)
    if (!value_ok(pc, s->u.store.idx[i], true)) return false;
  c->store = s;
  return true;
}

/* whether e loads a buffer declared by one of the n statements (the allocations and declarations
 * inside L, which the loads made before L cannot name) */
typedef struct pf_decl_use {
  tir_stmt *const *decls;
  int n;
  bool found;
} pf_decl_use;

static bool decl_use_expr(tir_visitor *v, const tir_expr *e) {
  pf_decl_use *du = v->user;
  if (e->kind == TIR_BUFFER_LOAD)
    for (int i = 0; i < du->n; i++)
      if (du->decls[i]->kind != TIR_ALLOCATE && du->decls[i]->u.decl.buf == e->u.load.buf) du->found = true;
  return !du->found;
}

static bool loads_declared(const tir_expr *e, tir_stmt *const *decls, int n) {
  pf_decl_use du = {decls, n, false};
  tir_visitor v = {.expr = decl_use_expr, .user = &du};
  tir_visit_expr(&v, e);
  return du.found;
}

/* which copy a clone makes */
enum { TO_REGS, FROM_REGS };

/* the copy again, with fresh vars for its bindings and loops, L's var as
 * lv_to: TO_REGS stores its value to R, FROM_REGS stores R to its place */
static tir_stmt *clone_copy(pf_ctx *pc, const pf_copy *c, tir_buffer *R, const tir_expr *lv, tir_expr *lv_to,
                            int how) {
  tir_ctx *x = pc->x;
  tir_var_map m = {0};
  if (lv_to) tir_var_map_set(&m, lv, lv_to);
  tir_expr *fresh[PREFETCH_DEPTH];
  tir_expr *flat = NULL;
  for (int i = 0; i < c->nwrap; i++) {
    const tir_stmt *w = c->wrap[i];
    fresh[i] = NULL;
    if (w->kind == TIR_IF) continue;
    const tir_expr *v = w->kind == TIR_FOR ? w->u.loop.var : w->u.attr.node;
    fresh[i] = tir_var(x, v->u.var.name, v->dtype);
    tir_var_map_set(&m, v, fresh[i]);
    if (w->kind == TIR_FOR) { /* flat = flat * extent + (v - min) */
      int64_t mn, ext;
      tir_is_const_int(w->u.loop.min, &mn);
      tir_is_const_int(w->u.loop.extent, &ext);
      tir_expr *off = fresh[i];
      if (mn) off = tir_binary(x, TIR_SUB, off, tir_int(x, v->dtype, mn));
      if (!tir_dtype_eq(v->dtype, TIR_INT32)) off = tir_cast(x, TIR_INT32, off);
      flat = flat ? tir_binary(x, TIR_ADD, tir_binary(x, TIR_MUL, flat, tir_i32(x, ext)), off) : off;
    }
  }
  if (!flat) flat = tir_i32(x, 0);
  const tir_stmt *st = c->store;
  tir_stmt *body;
  if (how == TO_REGS) {
    tir_expr *value = tir_substitute_expr(x, st->u.store.value, &m);
    if (lv_to) {
      if (!pc->an) pc->an = tir_analyzer_new(x, NULL);
      value = tir_simplify(pc->an, value);
    }
    body = tir_store(x, R, value, &flat, 1);
  } else {
    tir_expr **idx = malloc(sizeof *idx * (size_t)(st->u.store.nidx ? st->u.store.nidx : 1));
    if (!idx) abort();
    for (int i = 0; i < st->u.store.nidx; i++) idx[i] = tir_substitute_expr(x, st->u.store.idx[i], &m);
    body = tir_store(x, st->u.store.buf, tir_load(x, R, &flat, 1), idx, st->u.store.nidx);
    free(idx);
  }
  body->span = st->span;
  for (int i = c->nwrap - 1; i >= 0; i--) {
    const tir_stmt *w = c->wrap[i];
    tir_stmt *n;
    if (w->kind == TIR_IF) {
      tir_expr *cond = tir_substitute_expr(x, w->u.ifs.cond, &m);
      if (lv_to && how == TO_REGS) cond = tir_simplify(pc->an, cond);
      n = tir_if(x, cond, body, NULL);
    } else if (w->kind == TIR_FOR) {
      tir_for_kind k = w->u.loop.kind == TIR_FOR_VECTORIZED ? TIR_FOR_VECTORIZED : TIR_FOR_UNROLLED;
      n = tir_for(x, fresh[i], w->u.loop.min, w->u.loop.extent, k, NULL, NULL, body);
    } else {
      n = tir_attr_stmt(x, w->u.attr.key, fresh[i], w->u.attr.value, body);
      n->u.attr.thread_tag = w->u.attr.thread_tag;
    }
    n->span = w->span;
    body = n;
  }
  tir_var_map_free(&m);
  return body;
}

/* the allocations around L's sequence, outermost first */
#define PF_MAX_WRAP 16

static tir_stmt *rewrite_loop(pf_ctx *pc, tir_stmt *L) {
  int64_t mn = 0, ext = 0;
  if (L->kind != TIR_FOR || L->u.loop.kind != TIR_FOR_SERIAL || L->u.loop.step || ptr_set_has(pc->unrolled, L))
    return L;
  /* bounds of constants, or of expressions that read no buffer (a symbolic extent: the first
   * iteration's loads, made before the loop, then wait for `0 < extent`) */
  bool cmin = tir_is_const_int(L->u.loop.min, &mn), cext = tir_is_const_int(L->u.loop.extent, &ext);
  if ((cext && ext < 2) || (!cext && !value_ok(pc, L->u.loop.extent, true)) ||
      (!cmin && !value_ok(pc, L->u.loop.min, true)))
    return L;
  tir_stmt *wraps[PF_MAX_WRAP];
  int nw = 0;
  tir_stmt *s = L->u.loop.body;
  while (s->kind == TIR_ALLOC_BUFFER || s->kind == TIR_DECL_BUFFER || s->kind == TIR_ALLOCATE) {
    if (nw == PF_MAX_WRAP) return L;
    wraps[nw++] = s;
    s = s->kind == TIR_ALLOCATE ? s->u.alloc.body : s->u.decl.body;
  }
  if (s->kind != TIR_SEQ || s->u.seq.n < 2) return L;
  pf_copy copies[8];
  int nc = 0;
  int64_t total = 0;
  while (nc < 8 && nc < s->u.seq.n - 1 && copy_of(pc, s->u.seq.stmts[nc], &copies[nc]) &&
         !loads_declared(copies[nc].store->u.store.value, wraps, nw)) {
    if (total + copies[nc].elems > PREFETCH_MAX) break;
    total += copies[nc].elems;
    nc++;
  }
  if (!nc) return L;
  tir_ctx *x = pc->x;
  const tir_expr *lv = L->u.loop.var;
  tir_buffer *R[8];
  tir_stmt **prologue = malloc(sizeof *prologue * (size_t)nc);
  tir_stmt **early = malloc(sizeof *early * (size_t)nc);
  tir_stmt **items = malloc(sizeof *items * (size_t)(s->u.seq.n + 1));
  if (!prologue || !early || !items) abort();
  for (int i = 0; i < nc; i++) {
    const tir_stmt *st = copies[i].store;
    char name[160];
    snprintf(name, sizeof name, "%s_next", st->u.store.buf->name);
    tir_expr *n = tir_i32(x, copies[i].elems);
    R[i] = tir_buffer_new(x, name, st->u.store.value->dtype, &n, 1, NULL, 0, NULL, "local", 16, 0, NULL);
    prologue[i] = clone_copy(pc, &copies[i], R[i], lv, L->u.loop.min, TO_REGS);
    items[i] = clone_copy(pc, &copies[i], R[i], lv, NULL, FROM_REGS);
    tir_expr *next = tir_binary(x, TIR_ADD, (tir_expr *)lv, tir_int(x, lv->dtype, 1));
    early[i] = clone_copy(pc, &copies[i], R[i], lv, next, TO_REGS);
  }
  /* if (L + 1 < min + extent) the next iteration's loads */
  tir_expr *end = cmin && cext         ? tir_int(x, lv->dtype, mn + ext)
                  : cmin && mn == 0 ? L->u.loop.extent
                                    : tir_binary(x, TIR_ADD, L->u.loop.min, L->u.loop.extent);
  tir_expr *cond = tir_binary(x, TIR_LT, tir_binary(x, TIR_ADD, (tir_expr *)lv, tir_int(x, lv->dtype, 1)), end);
  items[nc] = tir_if(x, cond, nc == 1 ? early[0] : tir_seq(x, early, nc), NULL);
  for (int i = nc; i < s->u.seq.n; i++) items[i + 1] = s->u.seq.stmts[i];
  tir_stmt *body = tir_seq(x, items, s->u.seq.n + 1);
  for (int i = nw - 1; i >= 0; i--) { /* the allocations again, around the new sequence */
    tir_stmt *w = tir_stmt_copy(x, wraps[i]);
    if (w->kind == TIR_ALLOCATE) w->u.alloc.body = body;
    else w->u.decl.body = body;
    body = w;
  }
  tir_stmt *loop = tir_stmt_copy(x, L);
  loop->u.loop.body = body;
  tir_stmt **outer = malloc(sizeof *outer * (size_t)(nc + 1));
  if (!outer) abort();
  for (int i = 0; i < nc; i++) outer[i] = prologue[i];
  int nout = nc;
  if (!cext) { /* the loop may not run: nor may its first loads */
    outer[0] = tir_if(x, tir_binary(x, TIR_LT, tir_int(x, L->u.loop.extent->dtype, 0), L->u.loop.extent),
                      nc == 1 ? prologue[0] : tir_seq(x, prologue, nc), NULL);
    nout = 1;
  }
  outer[nout] = loop;
  tir_stmt *r = tir_seq(x, outer, nout + 1);
  for (int i = nc - 1; i >= 0; i--) r = tir_alloc_buffer_stmt(x, R[i], r);
  free(outer);
  free(prologue);
  free(early);
  free(items);
  pc->made++;
  return r;
}

static tir_stmt *pf_stmt(tir_mutator *m, tir_stmt *s) { return rewrite_loop(m->user, s); }

tir_stmt *cuda_prefetch(tir_ctx *x, tir_stmt *body, const ptr_set *unrolled, const var_list *restrict_data) {
  pf_ctx pc = {.x = x, .unrolled = unrolled, .restrict_data = restrict_data};
  tir_visitor v = {.expr = scan_expr, .stmt = scan_stmt, .user = &pc.scan};
  tir_visit_stmt(&v, body);
  tir_mutator m = {.stmt = pf_stmt, .ctx = x, .user = &pc};
  tir_stmt *r = tir_mutate_stmt(&m, body);
  ptr_set_free(&pc.scan.written);
  if (pc.an) tir_analyzer_free(pc.an);
  return pc.made ? r : body;
}
