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
 *     reads no local storage from outside, and reads no buffer it writes,
 *     so running an iteration several times equals running it once;
 *   - its body calls nothing with a side effect (barriers, atomics).
 * The barriers that the shared writes then need before the other threads
 * read them are placed by cuda_sync.c, as for any shared access. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_cuda/cuda_internal.h"
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
  bool ok;
} rebind_check;


static bool is_local_scope(const char *scope) {
  return scope && (!strncmp(scope, "local", 5) || !strncmp(scope, "warp", 4));
}

/* ---- does an expression differ between the threads of one index? ---- */

typedef struct {
  const ptr_set *dep, *local;
  const tir_expr *found; /* the var (or the local buffer's data var) found */
} vary_find;

static bool vary_expr(tir_visitor *v, const tir_expr *e) {
  vary_find *f = v->user;
  if (f->found) return false;
  if (e->kind == TIR_VAR && ptr_set_has(f->dep, e)) f->found = e;
  else if (e->kind == TIR_BUFFER_LOAD && ptr_set_has(f->local, e->u.load.buf->data)) f->found = e->u.load.buf->data;
  return !f->found;
}

static bool thread_var_of(const rebind_check *rc, int ti, const tir_expr *v) { return ptr_set_has(&rc->tvars[ti], v); }

static const tir_expr *varies(const rebind_check *rc, int ti, const tir_expr *e) {
  if (!e) return NULL;
  vary_find f = {&rc->dep[ti], &rc->local, NULL};
  tir_visitor v = {.expr = vary_expr, .user = &f};
  tir_visit_expr(&v, e);
  return f.found;
}

/* ---- the inner binding's body ---- */

typedef struct {
  const ptr_set *dep, *local;
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
  else if (e->kind == TIR_BUFFER_LOAD && ptr_set_has(b->local, e->u.load.buf->data) &&
           !ptr_set_has(&b->own, e->u.load.buf->data))
    body_fail(b, "reads the per-thread buffer '%s' of the outer thread", e->u.load.buf->name);
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
  body_scan bs = {.dep = &rc->dep[ti], .local = &rc->local};
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
 * thread-bound loop, which TVM's LowerCrossThreadReduction turns into
 * T.tvm_thread_allreduce before its CUDA code generator; tirc has no such
 * pass, so the store is refused by name.  The same for a blockIdx launch
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

static void check_store(rebind_check *rc, const tir_stmt *s) {
  const tir_buffer *b = s->u.store.buf;
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
    if (!f.found && !varies(rc, ti, s->u.store.value)) continue; /* one value, stored by every thread */
    cg_error(rc->host, s->span,
             "every thread of the %s launch at line %d %s %s at one index, which does not depend on %s: %s, which "
             "would race on CUDA; lower it into T.tvm_thread_allreduce first (TVM's LowerCrossThreadReduction, "
             "which tirc does not have), or guard the store so that one thread makes it",
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

/* does cond hold for at most one thread index of the tag (a conjunct
 * affine(t) == independent)? */
static bool pins(const rebind_check *rc, int ti, const tir_expr *cond) {
  if (cond->kind == TIR_AND) return pins(rc, ti, cond->u.bin.a) || pins(rc, ti, cond->u.bin.b);
  if (cond->kind != TIR_EQ) return false;
  for (int side = 0; side < 2; side++) {
    const tir_expr *a = side ? cond->u.bin.b : cond->u.bin.a, *b = side ? cond->u.bin.a : cond->u.bin.b;
    bool has = false;
    if (!varies(rc, ti, b) && affine_in_thread(rc, ti, a, &has) && has) return true;
  }
  return false;
}

/* ---- the walk over the kernel ---- */

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
    check_store(rc, s);
    return true;
  case TIR_LET_STMT:
    for (int ti = 0; ti < 6; ti++)
      if (rc->active[ti] && varies(rc, ti, s->u.let.value)) ptr_set_add(&rc->dep[ti], s->u.let.var);
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
      } else {
        nu[ti] = s->kind == TIR_WHILE || varies(rc, ti, s->u.ifs.cond);
      }
      rc->nonuniform[ti] += nu[ti];
    }
    if (s->kind == TIR_FOR) tir_visit_stmt(v, s->u.loop.body);
    else if (s->kind == TIR_WHILE) tir_visit_stmt(v, s->u.whl.body);
    else {
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
      check_inner(rc, ti, s);
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

bool cuda_rebindings_ok(cg *host, const tir_stmt *body) {
  rebind_check rc = {.host = host, .ok = true};
  tir_visitor v = {.stmt = walk_stmt, .user = &rc};
  tir_visit_stmt(&v, body);
  for (int i = 0; i < 6; i++) ptr_set_free(&rc.dep[i]), ptr_set_free(&rc.tvars[i]);
  ptr_set_free(&rc.local);
  ptr_set_free(&rc.shared);
  return rc.ok;
}
