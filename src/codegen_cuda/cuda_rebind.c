/* cuda_rebind.c - what a kernel's threads do to each other that CUDA would
 * get wrong: a thread tag bound again inside a binding of the same tag
 * (below), and a store that every thread makes to one element (further
 * below, "a reduction across threads left unlowered").
 *
 * TVM's schedules write this for cooperative fetching (dlight's matmul:
 * `for ty in T.thread_binding(16, "threadIdx.y")` around the k loop, and in
 * it `for ty2 in T.thread_binding(16, "threadIdx.y")` copying a tile to
 * shared memory).  CUDA has one threadIdx.y: TVM lowers the inner loop to
 * the same index, so thread ty runs the inner iteration ty2 == ty only.  The
 * IR means a loop: every thread runs every inner iteration.  The two agree
 * when running one inner iteration per thread index has the effect of
 * running all of them in every thread, which is what this file proves, at
 * the inner binding, or refuses with the reason:
 *   - the extents are equal (one index covers the inner loop once);
 *   - the inner binding is not under an `if`, loop bound or `while` that
 *     differs between the threads of the outer index (else only some
 *     iterations would run);
 *   - its body uses no var whose value differs between those threads (the
 *     outer index, a let or loop var computed from it, a local value), so
 *     each inner iteration does the same in every thread;
 *   - its body writes no local (per-thread) storage it does not allocate,
 *     reads no local storage from outside whose value differs between the
 *     threads, and reads no buffer it writes, so running an iteration
 *     several times equals running it once;
 *   - its body calls nothing with a side effect (barriers, atomics).
 * The barriers that the shared writes then need before the other threads
 * read them are placed by cuda_sync.c, as for any shared access.
 *
 * Which local values differ between the threads of a tag is a fixed point
 * over the kernel (cuda_rebindings_ok, at the end): a value is the same in
 * every thread unless it comes from a thread index, from a local value
 * that differs, or from control flow that differs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_cuda/cuda_internal.h"
#include "ir/ptrmap.h"
#include "intrin/intrin.h"
#include "passes/ptr_set.h"
#include "tir/visit.h"


typedef struct rebind_check {
  cg *host;
  const tir_stmt *active[6]; /* the outermost binding of each tag being walked */
  ptr_set dep[6];            /* vars whose values differ between that binding's threads */
  ptr_set tvars[6];          /* the vars of that binding and of its rebindings */
  int nonuniform[6];         /* > 0: under control flow that differs between them */
  int pinned[6];             /* > 0: under an if that at most one of them passes */
  ptr_set local;             /* data vars of per-thread storage (local, warp) */
  ptr_set shared;            /* data vars of shared storage (one per block) */
  /* per tag: the per-thread buffers whose values may differ between its
   * threads, and the loops that some of them may leave early; found by
   * walking the kernel until they stop growing (see cuda_rebindings_ok) */
  ptr_set lvary[6], vloop[6];
  struct rb_loop { const tir_stmt *loop; int base[6]; } *loops;
  int nloops, caploops;
  /* the buffers (data vars) of other storage whose loads flow into each
   * per-thread buffer and let var (the key: its index in taints) */
  tir_ptrmap taint_of;
  ptr_set *taints;
  int ntaints, captaints;
  bool explicit_sync; /* the kernel has a T.tvm_storage_sync of its own */
  const tir_stmt *launched[6]; /* a launch of each tag in the kernel, of more than one thread, or NULL */
  bool final; /* the last walk: the checks report */
  bool grew;  /* a walk added to lvary or vloop */
  bool ok;
} rebind_check;


static bool is_local_scope(const char *scope) {
  return scope && (!strncmp(scope, "local", 5) || !strncmp(scope, "warp", 4));
}

/* ---- does an expression differ between the threads of one index? ---- */

typedef struct {
  const ptr_set *dep, *lvary;
  const tir_expr *found; /* the var (or the local buffer's data var) found */
} vary_find;

static bool vary_expr(tir_visitor *v, const tir_expr *e) {
  vary_find *f = v->user;
  if (f->found) return false;
  if (e->kind == TIR_VAR && ptr_set_has(f->dep, e)) f->found = e;
  else if (e->kind == TIR_BUFFER_LOAD && ptr_set_has(f->lvary, e->u.load.buf->data)) f->found = e->u.load.buf->data;
  return !f->found;
}

static bool thread_var_of(const rebind_check *rc, int ti, const tir_expr *v) { return ptr_set_has(&rc->tvars[ti], v); }

static const tir_expr *varies(const rebind_check *rc, int ti, const tir_expr *e) {
  if (!e) return NULL;
  vary_find f = {&rc->dep[ti], &rc->lvary[ti], NULL};
  tir_visitor v = {.expr = vary_expr, .user = &f};
  tir_visit_expr(&v, e);
  return f.found;
}

/* a condition: T.tvm_thread_invariant(c) is the same in every thread, as
 * its writer states (TVM's LLM kernels wrap their tile loops' conditions) */
static bool cond_varies(const rebind_check *rc, int ti, const tir_expr *c) {
  if (c && c->kind == TIR_CALL && c->u.call.nargs == 1) {
    const char *op = c->u.call.op;
    if (!strncmp(op, "tir.", 4)) op += 4;
    if (!strcmp(op, "tvm_thread_invariant")) return false;
  }
  return varies(rc, ti, c) != NULL;
}

static void lvary_add(rebind_check *rc, int ti, const void *data) {
  if (ptr_set_has(&rc->lvary[ti], data)) return;
  ptr_set_add(&rc->lvary[ti], data);
  rc->grew = true;
}

/* the per-thread buffers a call may write or read through a pointer (its
 * data var, address_of(L[i])), and with a call that has an effect, any it
 * names (T.tvm_thread_allreduce writes its results, given as loads) */
typedef struct {
  rebind_check *rc;
  bool effect;
} escape_find;

static bool escape_expr(tir_visitor *v, const tir_expr *e) {
  escape_find *f = v->user;
  const void *data = NULL;
  if (e->kind == TIR_VAR) data = e;
  else if (e->kind == TIR_BUFFER_LOAD && f->effect) data = e->u.load.buf->data;
  else if (e->kind == TIR_CALL && !strcmp(e->u.call.op, "address_of") && e->u.call.nargs == 1 &&
           e->u.call.args[0]->kind == TIR_BUFFER_LOAD)
    data = e->u.call.args[0]->u.load.buf->data;
  if (data && ptr_set_has(&f->rc->local, data))
    for (int ti = 0; ti < 6; ti++)
      if (f->rc->active[ti]) lvary_add(f->rc, ti, data);
  return true;
}

static void escapes(rebind_check *rc, const tir_expr *e) {
  bool effect = false;
  if (e && e->kind == TIR_CALL) {
    const tir_intrin *in = tir_intrin_lookup(e->u.call.op);
    effect = !in || !in->pure;
  }
  escape_find f = {rc, effect};
  tir_visitor v = {.expr = escape_expr, .user = &f};
  tir_visit_expr(&v, e);
}

/* ---- what loads flow into a value ---- */

static ptr_set *taint(rebind_check *rc, const void *key, bool make) {
  long i = tir_ptrmap_get(&rc->taint_of, key, -1);
  if (i >= 0) return &rc->taints[i];
  if (!make) return NULL;
  if (rc->ntaints == rc->captaints) {
    rc->captaints = rc->captaints ? 2 * rc->captaints : 16;
    rc->taints = realloc(rc->taints, sizeof *rc->taints * (size_t)rc->captaints);
    if (!rc->taints) abort();
  }
  rc->taints[rc->ntaints] = (ptr_set){0};
  tir_ptrmap_put(&rc->taint_of, key, rc->ntaints);
  return &rc->taints[rc->ntaints++];
}

typedef struct {
  rebind_check *rc;
  ptr_set *into;
  bool grew;
} taint_find;

static void taint_union(taint_find *f, const ptr_set *from) {
  if (!from || from == f->into) return;
  for (size_t i = 0; i < from->cap; i++)
    if (from->keys[i] && !ptr_set_has(f->into, from->keys[i])) {
      ptr_set_add(f->into, from->keys[i]);
      f->grew = true;
    }
}

static bool taint_expr(tir_visitor *v, const tir_expr *e) {
  taint_find *f = v->user;
  if (e->kind == TIR_VAR) {
    taint_union(f, taint(f->rc, e, false));
  } else if (e->kind == TIR_BUFFER_LOAD) {
    const void *data = e->u.load.buf->data;
    if (ptr_set_has(&f->rc->local, data)) taint_union(f, taint(f->rc, data, false));
    else if (!ptr_set_has(f->into, data)) ptr_set_add(f->into, data), f->grew = true;
  }
  return true;
}

/* adds to key's set the buffers e's value comes from; true if it grew */
static bool taint_flow(rebind_check *rc, const void *key, const tir_expr *e) {
  taint_find f = {rc, taint(rc, key, true), false};
  tir_visitor v = {.expr = taint_expr, .user = &f};
  tir_visit_expr(&v, e);
  return f.grew;
}

/* does e's value come from a load of buffer data (through per-thread
 * buffers and lets too)? */
static bool tainted_by(rebind_check *rc, const tir_expr *e, const void *data) {
  ptr_set tmp = {0};
  taint_find f = {rc, &tmp, false};
  tir_visitor v = {.expr = taint_expr, .user = &f};
  tir_visit_expr(&v, e);
  bool has = ptr_set_has(&tmp, data);
  ptr_set_free(&tmp);
  return has;
}

/* ---- the inner binding's body ---- */

typedef struct {
  const ptr_set *dep, *local, *lvary;
  ptr_set own;     /* data vars allocated inside the body */
  ptr_set written; /* data vars the body stores to */
  const char *why; /* the first reason it cannot run once per index */
  const char *name;
} body_scan;

static void body_fail(body_scan *b, const char *why, const char *name) {
  if (b->why) return;
  b->why = why;
  b->name = name;
}

static bool body_expr(tir_visitor *v, const tir_expr *e) {
  body_scan *b = v->user;
  if (b->why) return false;
  if (e->kind == TIR_VAR && ptr_set_has(b->dep, e))
    body_fail(b, "uses '%s', whose value differs between the threads of the outer index", e->u.var.name);
  else if (e->kind == TIR_BUFFER_LOAD && ptr_set_has(b->lvary, e->u.load.buf->data) &&
           !ptr_set_has(&b->own, e->u.load.buf->data))
    body_fail(b, "reads the per-thread buffer '%s' of the outer thread, whose value may differ between its threads",
              e->u.load.buf->name);
  else if (e->kind == TIR_CALL) {
    const tir_intrin *in = tir_intrin_lookup(e->u.call.op);
    if (!in || !in->pure) body_fail(b, "calls '%s', which has an effect", e->u.call.op);
  }
  return !b->why;
}

static bool body_stmt(tir_visitor *v, const tir_stmt *s) {
  body_scan *b = v->user;
  if (b->why) return false;
  switch (s->kind) {
  case TIR_ALLOC_BUFFER:
  case TIR_DECL_BUFFER:
    if (s->kind == TIR_ALLOC_BUFFER) ptr_set_add(&b->own, s->u.decl.buf->data);
    break;
  case TIR_ALLOCATE: ptr_set_add(&b->own, s->u.alloc.var); break;
  case TIR_BUFFER_STORE: {
    const tir_buffer *buf = s->u.store.buf;
    if (ptr_set_has(&b->own, buf->data)) break;
    if (ptr_set_has(b->local, buf->data)) body_fail(b, "writes the per-thread buffer '%s' of the outer thread", buf->name);
    else ptr_set_add(&b->written, buf->data);
    break;
  }
  case TIR_WHILE:
  case TIR_BREAK:
  case TIR_CONTINUE: body_fail(b, "holds a %s", s->kind == TIR_WHILE ? "while loop" : "break or continue"); break;
  default: break;
  }
  return !b->why;
}

/* the loads of a buffer the body writes (after the whole body is scanned) */
typedef struct {
  const ptr_set *written;
  const tir_expr *load;
} reread_find;

static bool reread_expr(tir_visitor *v, const tir_expr *e) {
  reread_find *f = v->user;
  if (f->load) return false;
  if (e->kind == TIR_BUFFER_LOAD && ptr_set_has(f->written, e->u.load.buf->data)) f->load = e;
  return !f->load;
}

/* can the nested binding `inner` of tag ti run once per thread index? */
static void check_inner(rebind_check *rc, int ti, const tir_stmt *inner) {
  const tir_stmt *outer = rc->active[ti];
  int oline = outer->span.line ? outer->span.line : outer->u.attr.value->span.line;
  tir_span at = inner->span.line ? inner->span : inner->u.attr.value->span;
  int64_t a, b;
  const tir_expr *oe = outer->u.attr.value, *ie = inner->u.attr.value;
  if (!(tir_is_const_int(oe, &a) && tir_is_const_int(ie, &b) && a == b) && !tir_expr_identical(oe, ie)) {
    cg_error(rc->host, at, "%s is bound again inside its binding at line %d with another extent: CUDA has one %s, "
             "so the inner loop can run on it only with the outer loop's extent", cuda_tag_name(ti), oline, cuda_tag_name(ti));
    rc->ok = false;
    return;
  }
  if (rc->nonuniform[ti]) {
    cg_error(rc->host, at, "%s is bound again inside its binding at line %d under a condition or loop bound that "
             "depends on the outer %s: on CUDA only some of its iterations would run", cuda_tag_name(ti), oline, cuda_tag_name(ti));
    rc->ok = false;
    return;
  }
  body_scan bs = {.dep = &rc->dep[ti], .local = &rc->local, .lvary = &rc->lvary[ti]};
  tir_visitor v = {.expr = body_expr, .stmt = body_stmt, .user = &bs};
  tir_visit_stmt(&v, inner->u.attr.body);
  if (!bs.why && bs.written.n) {
    reread_find f = {&bs.written, NULL};
    tir_visitor rv = {.expr = reread_expr, .user = &f};
    tir_visit_stmt(&rv, inner->u.attr.body);
    if (f.load) body_fail(&bs, "reads '%s', which it writes", f.load->u.load.buf->name);
  }
  if (bs.why) {
    char why[256];
    snprintf(why, sizeof why, bs.why, bs.name ? bs.name : "");
    cg_error(rc->host, at,
             "%s is bound again inside its binding at line %d, and its body %s: CUDA runs each inner iteration in "
             "one thread only (the index is the outer one), which would not do what every thread's loop does",
             cuda_tag_name(ti), oline, why);
    rc->ok = false;
  }
  ptr_set_free(&bs.own);
  ptr_set_free(&bs.written);
}

/* ---- a reduction across threads left unlowered ----
 *
 * `S[i] = S[i] + f(tx)` run by every thread of a threadIdx.x launch, at an
 * index that does not depend on threadIdx.x and under no condition that
 * at most one of those threads passes (`v == e`, v an affine function of
 * threadIdx.x with a coefficient other than 0, e independent of it), is an update of one element by all those threads at once: on CUDA
 * they race and updates are lost, where the IR (and tirc's interpreter, and
 * the C) accumulate them in thread order.  That is a block reducing over a
 * thread-bound loop, which LowerCrossThreadReduction (lower_cross_thread)
 * turns into T.tvm_thread_allreduce where it can; what is left is refused
 * at the store, by name.  The same for a blockIdx launch
 * and a global buffer. */

typedef struct {
  const tir_buffer *buf;
  const tir_expr *idx;
  bool found;
} rmw_find;

static bool rmw_expr(tir_visitor *v, const tir_expr *e) {
  rmw_find *f = v->user;
  if (f->found) return false;
  if (e->kind == TIR_BUFFER_LOAD && e->u.load.buf->data == f->buf->data && e->u.load.nidx == 1 &&
      tir_expr_identical(e->u.load.idx[0], f->idx))
    f->found = true;
  return !f->found;
}

static bool tainted_by(rebind_check *rc, const tir_expr *e, const void *data);

/* a store outside every launch of a threadIdx tag the kernel launches:
 * CUDA runs the whole kernel in each of the block's threads, so each of
 * them makes it. One value stored by all is the same store; one that
 * reads memory the threads share may read it before another thread's
 * write (or after another's store of it: an update runs once per thread).
 * TVM's LowerCrossThreadReduction wraps such a consumer of a reduction in
 * a thread loop guarded by threadIdx.x == 0; tirc's refuses it here. */
static void check_store_outside(rebind_check *rc, const tir_stmt *s) {
  const tir_buffer *b = s->u.store.buf;
  if (ptr_set_has(&rc->local, b->data)) return;
  for (int ti = 3; ti < 6 && rc->ok; ti++) {
    const tir_stmt *launch = rc->launched[ti];
    if (!launch || rc->active[ti]) continue;
    /* memory the threads share, loaded here or into a per-thread buffer or
     * let the store reads (`L[0] = S[bx]; O[bx] = L[0]`, a reduction's
     * consumer that writes a local buffer, which TVM's pass leaves in
     * every thread) */
    ptr_set from = {0};
    taint_find f = {rc, &from, false};
    tir_visitor v = {.expr = taint_expr, .user = &f};
    tir_visit_expr(&v, s->u.store.value);
    for (int d = 0; d < s->u.store.nidx; d++) tir_visit_expr(&v, s->u.store.idx[d]);
    ptr_set_free(&from);
    if (!f.grew) continue;
    cg_error(rc->host, s->span,
             "this store to %s is outside the %s launch at line %d, so every thread of the block makes it (CUDA runs "
             "the kernel in each), reading memory the threads share: put it in the launch and guard it so that one "
             "thread makes it (as TVM's LowerCrossThreadReduction does for a reduction's consumer)",
             b->name, cuda_tag_name(ti), launch->span.line ? launch->span.line : launch->u.attr.value->span.line);
    rc->ok = false;
  }
}

static void check_store(rebind_check *rc, const tir_stmt *s) {
  const tir_buffer *b = s->u.store.buf;
  check_store_outside(rc, s);
  if (s->u.store.nidx != 1 || ptr_set_has(&rc->local, b->data)) return;
  bool shared = ptr_set_has(&rc->shared, b->data);
  for (int ti = 0; ti < 6 && rc->ok; ti++) {
    const tir_stmt *launch = rc->active[ti];
    int64_t ext;
    if (!launch || rc->pinned[ti] || (ti < 3 && shared)) continue;
    if (tir_is_const_int(launch->u.attr.value, &ext) && ext <= 1) continue;
    if (varies(rc, ti, s->u.store.idx[0])) continue;
    rmw_find f = {b, s->u.store.idx[0], false};
    tir_visitor v = {.expr = rmw_expr, .user = &f};
    tir_visit_expr(&v, s->u.store.value);
    /* read into a per-thread buffer or let first: some threads may read what others already wrote (unless
     * the kernel orders its shared memory with barriers of its own; global memory has none across blocks) */
    if (!f.found && !(shared && rc->explicit_sync) && tainted_by(rc, s->u.store.value, b->data)) f.found = true;
    if (!f.found && !varies(rc, ti, s->u.store.value)) continue; /* one value, stored by every thread */
    cg_error(rc->host, s->span,
             "every thread of the %s launch at line %d %s %s at one index, which does not depend on %s: %s, which "
             "would race on CUDA; write it as T.tvm_thread_allreduce (lower_cross_thread, TVM's "
             "LowerCrossThreadReduction, does so for a block reducing by +, *, max, min, argmax or argmin with the "
             "identity as its init), or guard the store so that one thread makes it",
             cuda_tag_name(ti), launch->span.line ? launch->span.line : launch->u.attr.value->span.line,
             f.found ? "updates" : "stores its own value to", b->name, cuda_tag_name(ti),
             f.found ? "a reduction across threads" : "threads writing different values to one place");
    rc->ok = false;
  }
}

/* is e c * t + d (sums, differences, products by constants other than 0)
 * for t one of the tag's thread vars and d independent of them? */
static bool affine_in_thread(const rebind_check *rc, int ti, const tir_expr *e, bool *has) {
  if (!varies(rc, ti, e)) return true;
  if (e->kind == TIR_VAR) { /* the launch's var or a rebinding's, not a let */
    if (!thread_var_of(rc, ti, e)) return false;
    *has = true;
    return true;
  }
  int64_t c;
  if (e->kind == TIR_ADD || e->kind == TIR_SUB)
    return affine_in_thread(rc, ti, e->u.bin.a, has) && affine_in_thread(rc, ti, e->u.bin.b, has);
  if (e->kind == TIR_MUL) {
    if (tir_is_const_int(e->u.bin.b, &c) && c != 0) return affine_in_thread(rc, ti, e->u.bin.a, has);
    if (tir_is_const_int(e->u.bin.a, &c) && c != 0) return affine_in_thread(rc, ti, e->u.bin.b, has);
  }
  return false;
}

/* is e a sum of terms k * v (k >= 0 constant, v a thread index of any
 * tag, never negative) and constants >= 0, in which the tag's own index
 * appears with total coefficient *coef (0 where it does not)? */
static bool nonneg_thread_sum(const rebind_check *rc, int ti, const tir_expr *e, int64_t k, int64_t *coef) {
  int64_t c;
  if (tir_is_const_int(e, &c)) return c * k >= 0 || c == 0;
  if (e->kind == TIR_VAR) {
    if (thread_var_of(rc, ti, e)) {
      *coef += k;
      return true;
    }
    for (int t = 0; t < 6; t++)
      if (t != ti && rc->active[t] && thread_var_of(rc, t, e)) return k >= 0;
    return false;
  }
  if (e->kind == TIR_ADD)
    return nonneg_thread_sum(rc, ti, e->u.bin.a, k, coef) && nonneg_thread_sum(rc, ti, e->u.bin.b, k, coef);
  if (e->kind == TIR_MUL && tir_is_const_int(e->u.bin.b, &c) && c >= 0)
    return nonneg_thread_sum(rc, ti, e->u.bin.a, k * c, coef);
  if (e->kind == TIR_MUL && tir_is_const_int(e->u.bin.a, &c) && c >= 0)
    return nonneg_thread_sum(rc, ti, e->u.bin.b, k * c, coef);
  if (e->kind == TIR_CAST && tir_dtype_is_int(e->u.un.a->dtype) && e->dtype.bits >= e->u.un.a->dtype.bits)
    return nonneg_thread_sum(rc, ti, e->u.un.a, k, coef);
  return false;
}

/* does cond hold for at most one thread index of the tag (a conjunct
 * affine(t) == independent, or s < c where s is a sum as above with the
 * tag's index at a coefficient >= c: only index 0 passes, as dlight's
 * `T.where(bx * 1024 + tx < 1)` for a reduction to one element)? */
static bool pins(const rebind_check *rc, int ti, const tir_expr *cond) {
  if (cond->kind == TIR_AND) return pins(rc, ti, cond->u.bin.a) || pins(rc, ti, cond->u.bin.b);
  int64_t c, coef = 0;
  if ((cond->kind == TIR_LT || cond->kind == TIR_LE) && tir_is_const_int(cond->u.bin.b, &c) &&
      nonneg_thread_sum(rc, ti, cond->u.bin.a, 1, &coef) && coef > 0 &&
      (cond->kind == TIR_LT ? c <= coef : c < coef))
    return true;
  if (cond->kind != TIR_EQ) return false;
  for (int side = 0; side < 2; side++) {
    const tir_expr *a = side ? cond->u.bin.b : cond->u.bin.a, *b = side ? cond->u.bin.a : cond->u.bin.b;
    bool has = false;
    if (!varies(rc, ti, b) && affine_in_thread(rc, ti, a, &has) && has) return true;
  }
  return false;
}

/* ---- the walk over the kernel ---- */

static void loop_push(rebind_check *rc, const tir_stmt *loop) {
  if (rc->nloops == rc->caploops) {
    rc->caploops = rc->caploops ? 2 * rc->caploops : 16;
    rc->loops = realloc(rc->loops, sizeof *rc->loops * (size_t)rc->caploops);
    if (!rc->loops) abort();
  }
  struct rb_loop *l = &rc->loops[rc->nloops++];
  l->loop = loop;
  memcpy(l->base, rc->nonuniform, sizeof l->base);
}

/* a store to per-thread storage differs between the threads of a tag when
 * its value or index does, or when only some of them make it */
static void local_store(rebind_check *rc, const tir_stmt *s) {
  const void *data = s->u.store.buf->data;
  if (taint_flow(rc, data, s->u.store.value)) rc->grew = true;
  for (int ti = 0; ti < 6; ti++) {
    if (!rc->active[ti] || ptr_set_has(&rc->lvary[ti], data)) continue;
    bool v = rc->nonuniform[ti] || varies(rc, ti, s->u.store.value);
    for (int i = 0; i < s->u.store.nidx && !v; i++) v = varies(rc, ti, s->u.store.idx[i]);
    if (v) lvary_add(rc, ti, data);
  }
}

static bool walk_stmt(tir_visitor *v, const tir_stmt *s) {
  rebind_check *rc = v->user;
  if (!rc->ok) return false;
  switch (s->kind) {
  case TIR_ALLOC_BUFFER:
    if (is_local_scope(s->u.decl.buf->scope)) ptr_set_add(&rc->local, s->u.decl.buf->data);
    if (s->u.decl.buf->scope && !strncmp(s->u.decl.buf->scope, "shared", 6)) ptr_set_add(&rc->shared, s->u.decl.buf->data);
    return true;
  case TIR_ALLOCATE:
    if (is_local_scope(s->u.alloc.scope)) ptr_set_add(&rc->local, s->u.alloc.var);
    if (s->u.alloc.scope && !strncmp(s->u.alloc.scope, "shared", 6)) ptr_set_add(&rc->shared, s->u.alloc.var);
    return true;
  case TIR_BUFFER_STORE:
    escapes(rc, s->u.store.value);
    if (ptr_set_has(&rc->local, s->u.store.buf->data)) local_store(rc, s);
    else if (rc->final) check_store(rc, s);
    return true;
  case TIR_EVALUATE: {
    const tir_expr *e = s->u.eval.value;
    if (e && e->kind == TIR_CALL && (!strcmp(e->u.call.op, "tvm_storage_sync") || !strcmp(e->u.call.op, "tir.tvm_storage_sync")))
      rc->explicit_sync = true;
    escapes(rc, e);
    return true;
  }
  case TIR_LET_STMT:
    escapes(rc, s->u.let.value);
    if (taint_flow(rc, s->u.let.var, s->u.let.value)) rc->grew = true;
    for (int ti = 0; ti < 6; ti++)
      if (rc->active[ti] && varies(rc, ti, s->u.let.value)) ptr_set_add(&rc->dep[ti], s->u.let.var);
    return true;
  case TIR_BREAK:
  case TIR_CONTINUE: /* under control flow that differs between threads: they leave the loop at different times */
    if (rc->nloops) {
      struct rb_loop *l = &rc->loops[rc->nloops - 1];
      for (int ti = 0; ti < 6; ti++)
        if (rc->active[ti] && rc->nonuniform[ti] > l->base[ti] && !ptr_set_has(&rc->vloop[ti], l->loop)) {
          ptr_set_add(&rc->vloop[ti], l->loop);
          rc->grew = true;
        }
    }
    return true;
  case TIR_FOR:
  case TIR_IF:
  case TIR_WHILE: {
    bool nu[6] = {0};
    for (int ti = 0; ti < 6; ti++) {
      if (!rc->active[ti]) continue;
      if (s->kind == TIR_FOR) {
        nu[ti] = varies(rc, ti, s->u.loop.min) || varies(rc, ti, s->u.loop.extent) || varies(rc, ti, s->u.loop.step);
        if (nu[ti]) ptr_set_add(&rc->dep[ti], s->u.loop.var);
        nu[ti] |= ptr_set_has(&rc->vloop[ti], s);
      } else if (s->kind == TIR_WHILE) {
        nu[ti] = cond_varies(rc, ti, s->u.whl.cond) || ptr_set_has(&rc->vloop[ti], s);
      } else {
        nu[ti] = cond_varies(rc, ti, s->u.ifs.cond);
      }
      rc->nonuniform[ti] += nu[ti];
    }
    if (s->kind == TIR_FOR || s->kind == TIR_WHILE) {
      loop_push(rc, s);
      tir_visit_stmt(v, s->kind == TIR_FOR ? s->u.loop.body : s->u.whl.body);
      rc->nloops--;
    } else {
      bool pin[6] = {0};
      for (int ti = 0; ti < 6; ti++) rc->pinned[ti] += pin[ti] = rc->active[ti] && pins(rc, ti, s->u.ifs.cond);
      tir_visit_stmt(v, s->u.ifs.then_s);
      for (int ti = 0; ti < 6; ti++) rc->pinned[ti] -= pin[ti];
      if (s->u.ifs.else_s) tir_visit_stmt(v, s->u.ifs.else_s);
    }
    for (int ti = 0; ti < 6; ti++) rc->nonuniform[ti] -= nu[ti];
    return false;
  }
  case TIR_ATTR: {
    if (!cuda_is_thread_attr(s)) return true;
    int ti = cuda_tag_index(cuda_attr_tag(s));
    if (ti < 0) return true; /* reported when printed */
    const tir_expr *var = s->u.attr.node;
    if (rc->active[ti]) {
      if (rc->final) check_inner(rc, ti, s);
      /* the inner index is the outer one: it differs between the threads as the outer does */
      if (tir_is_var(var)) ptr_set_add(&rc->dep[ti], var), ptr_set_add(&rc->tvars[ti], var);
      tir_visit_stmt(v, s->u.attr.body);
      return false;
    }
    rc->active[ti] = s;
    if (tir_is_var(var)) ptr_set_add(&rc->dep[ti], var), ptr_set_add(&rc->tvars[ti], var);
    int pinned = rc->pinned[ti], nonuniform = rc->nonuniform[ti];
    rc->pinned[ti] = rc->nonuniform[ti] = 0;
    tir_visit_stmt(v, s->u.attr.body);
    rc->pinned[ti] = pinned, rc->nonuniform[ti] = nonuniform;
    rc->active[ti] = NULL;
    ptr_set_free(&rc->dep[ti]);
    ptr_set_free(&rc->tvars[ti]);
    return false;
  }
  default: return true;
  }
}

/* Which per-thread values are the same in every thread of a tag is a
 * fixed point (a value stored in one loop iteration is read in the next):
 * walks start from "all the same" and add what differs until a walk adds
 * nothing; each walk only adds, so there are at most as many as there are
 * per-thread buffers and loops to add, times the 6 tags (past MAX_WALKS,
 * every per-thread buffer is taken to differ, as before this analysis).
 * The last walk makes the checks. */
enum { MAX_WALKS = 32 };

/* the kernel's launches of more than one thread, per tag */
static bool launch_find(tir_visitor *v, const tir_stmt *s) {
  rebind_check *rc = v->user;
  int64_t ext;
  if (cuda_is_thread_attr(s)) {
    int ti = cuda_tag_index(cuda_attr_tag(s));
    if (ti >= 0 && !rc->launched[ti] && !(tir_is_const_int(s->u.attr.value, &ext) && ext <= 1)) rc->launched[ti] = s;
  }
  return true;
}

bool cuda_rebindings_ok(cg *host, const tir_stmt *body) {
  rebind_check rc = {.host = host, .ok = true};
  tir_visitor lv = {.stmt = launch_find, .user = &rc};
  tir_visit_stmt(&lv, body);
  tir_visitor v = {.stmt = walk_stmt, .user = &rc};
  int walks = 0;
  do {
    rc.grew = false;
    tir_visit_stmt(&v, body);
  } while (rc.grew && ++walks < MAX_WALKS);
  if (rc.grew)
    for (size_t i = 0; i < rc.local.cap; i++)
      if (rc.local.keys[i])
        for (int ti = 0; ti < 6; ti++) ptr_set_add(&rc.lvary[ti], rc.local.keys[i]);
  rc.final = true;
  tir_visit_stmt(&v, body);
  for (int i = 0; i < 6; i++) {
    ptr_set_free(&rc.dep[i]), ptr_set_free(&rc.tvars[i]);
    ptr_set_free(&rc.lvary[i]), ptr_set_free(&rc.vloop[i]);
  }
  free(rc.loops);
  for (int i = 0; i < rc.ntaints; i++) ptr_set_free(&rc.taints[i]);
  free(rc.taints);
  tir_ptrmap_free(&rc.taint_of);
  ptr_set_free(&rc.local);
  ptr_set_free(&rc.shared);
  return rc.ok;
}
