/* c_stmt.c - printing lowered statements as C: one statement a line,
 * names from the source.  Thread launches (T.launch_thread) become plain
 * loops, allocations arrays in the scope where they are allocated. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "codegen_c/c_printer.h"
#include "tir/visit.h"

/* ---- does a statement use a var (or a buffer over that data var)? ---- */

typedef struct {
  const void *var;
  bool found;
  bool stores; /* a store into a buffer over var counts as a use */
} use_ctx;

static bool walk_uses(const tir_stmt *s, const void *var, bool stores);

static bool use_expr(tir_visitor *v, const tir_expr *e) {
  use_ctx *u = v->user;
  if (e == u->var || (e->kind == TIR_BUFFER_LOAD && e->u.load.buf->data == u->var)) u->found = true;
  return !u->found;
}

static bool use_stmt(tir_visitor *v, const tir_stmt *s) {
  use_ctx *u = v->user;
  /* what the printer leaves out is no use: a value evaluated for nothing
   * (print_evaluate), the node and value of an attr other than a launch
   * (print_attr: its body only), a loop's annotations */
  if (s->kind == TIR_EVALUATE && s->u.eval.value->kind != TIR_CALL) return false;
  if (s->kind == TIR_ATTR && strcmp(s->u.attr.key, "thread_extent") && strcmp(s->u.attr.key, "virtual_thread")) {
    u->found |= s->u.attr.body && walk_uses(s->u.attr.body, u->var, u->stores);
    return false;
  }
  if (s->kind == TIR_FOR && s->u.loop.annotations) {
    u->found |= cg_expr_uses_var(s->u.loop.var, u->var) || cg_expr_uses_var(s->u.loop.min, u->var) ||
                cg_expr_uses_var(s->u.loop.extent, u->var) ||
                (s->u.loop.step && cg_expr_uses_var(s->u.loop.step, u->var)) ||
                walk_uses(s->u.loop.body, u->var, u->stores);
    return false;
  }
  if (!u->stores) return !u->found;
  if (s->kind == TIR_BUFFER_STORE && s->u.store.buf->data == u->var) u->found = true;
  if ((s->kind == TIR_DECL_BUFFER || s->kind == TIR_ALLOC_BUFFER) && s->u.decl.buf->data == u->var &&
      s->u.decl.body && cg_uses_var(s->u.decl.body, u->var))
    u->found = true;
  return !u->found;
}

static bool walk_uses(const tir_stmt *s, const void *var, bool stores) {
  use_ctx u = {var, false, stores};
  tir_visitor v = {.expr = use_expr, .stmt = use_stmt, .user = &u};
  tir_visit_stmt(&v, s);
  return u.found;
}

bool cg_uses_var(const tir_stmt *s, const void *var) { return walk_uses(s, var, true); }

/* ---- every var cg_uses_var finds in a statement, in one walk ---- */

static bool set_expr(tir_visitor *v, const tir_expr *e) {
  tir_ptrmap *m = v->user;
  if (e->kind == TIR_VAR) tir_ptrmap_put(m, e, 1);
  if (e->kind == TIR_BUFFER_LOAD && e->u.load.buf->data) tir_ptrmap_put(m, e->u.load.buf->data, 1);
  return true;
}

static bool set_stmt(tir_visitor *v, const tir_stmt *s) {
  tir_ptrmap *m = v->user;
  /* as use_stmt: what the printer leaves out is no use */
  if (s->kind == TIR_EVALUATE && s->u.eval.value->kind != TIR_CALL) return false;
  if (s->kind == TIR_ATTR && strcmp(s->u.attr.key, "thread_extent") && strcmp(s->u.attr.key, "virtual_thread")) {
    if (s->u.attr.body) cg_used_vars(s->u.attr.body, m);
    return false;
  }
  if (s->kind == TIR_FOR && s->u.loop.annotations) {
    const tir_expr *parts[] = {s->u.loop.var, s->u.loop.min, s->u.loop.extent, s->u.loop.step};
    for (int i = 0; i < 4; i++)
      if (parts[i]) tir_visit_expr(v, parts[i]);
    cg_used_vars(s->u.loop.body, m);
    return false;
  }
  if (s->kind == TIR_BUFFER_STORE && s->u.store.buf->data) tir_ptrmap_put(m, s->u.store.buf->data, 1);
  return true;
}

void cg_used_vars(const tir_stmt *s, tir_ptrmap *out) {
  tir_visitor v = {.expr = set_expr, .stmt = set_stmt, .user = out};
  tir_visit_stmt(&v, s);
}

bool cg_expr_uses_var(const tir_expr *e, const void *var) {
  use_ctx u = {var, false, false};
  tir_visitor v = {.expr = use_expr, .user = &u};
  tir_visit_expr(&v, e);
  return u.found;
}

/* s reads var (a load of a buffer over it, or the var itself), stores aside */
static bool reads_var(const tir_stmt *s, const void *var) { return walk_uses(s, var, false); }

/* may s write the array of var: a store into a buffer over it, or the var
 * itself as a value (a pointer handed on: an extern, an access_ptr) */
static bool may_write_expr(tir_visitor *v, const tir_expr *e) {
  use_ctx *u = v->user;
  if (e == u->var) u->found = true;
  return !u->found;
}

static bool may_write_stmt(tir_visitor *v, const tir_stmt *s) {
  use_ctx *u = v->user;
  if (s->kind == TIR_BUFFER_STORE && s->u.store.buf->data == u->var) u->found = true;
  return !u->found;
}

/* one walk of s: whether var's first access in program order is a read (a
 * load, or var handed on) or a store (one that reads var first counts as a
 * read), the elements stored at constant indices, and whether any store's
 * or read's index is not constant */
enum { COVER_MAX = 256 };
typedef struct {
  const void *var;
  int first; /* 1 a read, 2 a write */
  bool dyn_store, dyn_read;
  int64_t written[COVER_MAX];
  int nwritten;
  int64_t read[COVER_MAX];
  int nread;
} access_ctx;

static bool access_expr(tir_visitor *v, const tir_expr *e) {
  access_ctx *c = v->user;
  int64_t k;
  if (e == c->var) { /* handed on: read anywhere */
    c->dyn_read = true;
    if (!c->first) c->first = 1;
  }
  if (e->kind == TIR_BUFFER_LOAD && e->u.load.buf->data == c->var) {
    if (!c->first) c->first = 1;
    if (e->u.load.nidx == 1 && tir_is_const_int(e->u.load.idx[0], &k) && c->nread < COVER_MAX) c->read[c->nread++] = k;
    else c->dyn_read = true;
  }
  return true;
}

static bool access_stmt(tir_visitor *v, const tir_stmt *s) {
  access_ctx *c = v->user;
  int64_t k;
  if (s->kind == TIR_BUFFER_STORE && s->u.store.buf->data == c->var) {
    if (!c->first) { /* its value and indices are read before it stores */
      bool reads = cg_expr_uses_var(s->u.store.value, c->var);
      for (int i = 0; i < s->u.store.nidx && !reads; i++) reads = cg_expr_uses_var(s->u.store.idx[i], c->var);
      c->first = reads ? 1 : 2;
    }
    if (s->u.store.nidx == 1 && tir_is_const_int(s->u.store.idx[0], &k) && c->nwritten < COVER_MAX &&
        cg_store_lanes(s) == 1)
      c->written[c->nwritten++] = k;
    else
      c->dyn_store = true;
  }
  return true;
}

static bool stored(const access_ctx *c, int64_t e) {
  for (int j = 0; j < c->nwritten; j++)
    if (c->written[j] == e) return true;
  return false;
}

bool cg_read_first(const tir_stmt *s, const void *var, int64_t nelems) {
  access_ctx *c = calloc(1, sizeof *c);
  if (!c) abort();
  c->var = var;
  tir_visitor w = {.expr = access_expr, .stmt = access_stmt, .user = c};
  tir_visit_stmt(&w, s);
  bool unset = c->first == 1;
  if (!unset && !c->dyn_store) {
    for (int i = 0; i < c->nread && !unset; i++) unset = !stored(c, c->read[i]);
    if (!unset && c->dyn_read) { /* every element stored at a constant index? */
      unset = nelems < 0 || nelems > COVER_MAX;
      for (int64_t e = 0; e < nelems && !unset; e++) unset = !stored(c, e);
    }
  }
  free(c);
  return unset;
}

/* whether var's first store in program order is inside an IfThenElse or a
 * while loop (0: no store met, 1: not, 2: it is) */
static int first_store_cond(const tir_stmt *s, const void *var, bool cond) {
  if (!s) return 0;
  int r = 0;
  switch (s->kind) {
  case TIR_BUFFER_STORE: return s->u.store.buf->data == var ? (cond ? 2 : 1) : 0;
  case TIR_LET_STMT: return first_store_cond(s->u.let.body, var, cond);
  case TIR_FOR: return first_store_cond(s->u.loop.body, var, cond);
  case TIR_WHILE: return first_store_cond(s->u.whl.body, var, true);
  case TIR_IF:
    if ((r = first_store_cond(s->u.ifs.then_s, var, true))) return r;
    return first_store_cond(s->u.ifs.else_s, var, true);
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n && !r; i++) r = first_store_cond(s->u.seq.stmts[i], var, cond);
    return r;
  case TIR_ALLOCATE: return first_store_cond(s->u.alloc.body, var, cond);
  case TIR_DECL_BUFFER: case TIR_ALLOC_BUFFER: return first_store_cond(s->u.decl.body, var, cond);
  case TIR_ATTR: return first_store_cond(s->u.attr.body, var, cond);
  case TIR_ASSERT: return first_store_cond(s->u.assrt.body, var, cond);
  default: return 0;
  }
}

bool cg_first_store_conditional(const tir_stmt *s, const void *var) { return first_store_cond(s, var, false) == 2; }

bool cg_may_write_var(const tir_stmt *s, const void *var) {
  use_ctx u = {var, false, true};
  tir_visitor v = {.expr = may_write_expr, .stmt = may_write_stmt, .user = &u};
  tir_visit_stmt(&v, s);
  return u.found;
}

/* ---- statements ---- */

static void print_store(cg *g, const tir_stmt *s) {
  const tir_buffer *b = s->u.store.buf;
  if (s->u.store.nidx != 1) {
    cg_error(g, s->span, "buffer '%s' is stored with %d indices: run FlattenBuffer (flatten) before code generation",
             b->name, s->u.store.nidx);
    return;
  }
  if (cg_store_lanes(s) != 1) {
    if (!(g->target->vector_store && g->target->vector_store(g, s))) cg_c_vector_store(g, s);
    return;
  }
  cg_note_access(g, b->data, TIR_AOT_WRITE);
  cg_line_start(g);
  cg_text_printf(g->out, "%s[", cg_buffer_ptr(g, b));
  cg_index(g, s->u.store.idx[0]);
  cg_text_puts(g->out, "] = ");
  cg_expr(g, s->u.store.value);
  cg_text_puts(g->out, ";\n");
}

static bool is_zero(const tir_expr *e) {
  int64_t v;
  return tir_is_const_int(e, &v) && v == 0;
}

static bool find_alloc(tir_visitor *v, const tir_stmt *s) {
  if (s->kind == TIR_ALLOCATE || s->kind == TIR_ALLOC_BUFFER) *(bool *)v->user = true;
  return true;
}

/* a way out of a loop other than its end: an assert (return -1) or a break */
static bool find_exit(tir_visitor *v, const tir_stmt *s) {
  if (s->kind == TIR_ASSERT || s->kind == TIR_BREAK) *(bool *)v->user = true;
  return true;
}

static bool find_jump(tir_visitor *v, const tir_stmt *s) {
  if (s->kind == TIR_BREAK || s->kind == TIR_CONTINUE) *(bool *)v->user = true;
  return true;
}

bool cg_has_jump(const tir_stmt *s) {
  bool found = false;
  tir_visitor v = {.stmt = find_jump, .user = &found};
  tir_visit_stmt(&v, s);
  return found;
}

/* what a loop's kind means to the C compiler, as pragmas each compiler
 * knows (and no other sees): T.parallel as an OpenMP loop (when built with
 * OpenMP, and only when the body allocates nothing: a large temporary is a
 * static array, which threads would share), T.vectorized as independent
 * iterations, T.unroll as unrolling */
static bool loop_pragmas(cg *g, const tir_stmt *loop, const tir_expr *extent) {
  if (!loop || loop->kind != TIR_FOR) return false;
  int64_t n = 0;
  bool konst = tir_is_const_int(extent, &n);
  if (loop->u.loop.kind != TIR_FOR_UNROLLED && g->target->unroll && g->target->unroll(g, loop)) {
    cg_linef(g, "#pragma unroll");
    return false;
  }
  switch (loop->u.loop.kind) {
  case TIR_FOR_UNROLLED:
    if (konst && n > 1024) {
      /* a T.unroll(10^6) is a request no compiler should take literally:
       * a plain loop (issue 11: handled in time linear in its size) */
    } else if (g->target->is_cuda) {
      cg_linef(g, "#pragma unroll");
    } else if (konst && n > 0) {
      cg_linef(g, "#if defined(__clang__)");
      cg_linef(g, "#pragma clang loop unroll_count(%lld)", (long long)n);
      cg_linef(g, "#elif defined(__GNUC__)");
      cg_linef(g, "#pragma GCC unroll %lld", (long long)n);
      cg_linef(g, "#endif");
    }
    break;
  case TIR_FOR_VECTORIZED: {
    if (g->target->is_cuda) break;
    /* gcc ignores ivdep on a loop with another exit, and says so (a warning) */
    bool exits = false;
    tir_visitor v = {.stmt = find_exit, .user = &exits};
    tir_visit_stmt(&v, loop->u.loop.body);
    if (exits) break;
    cg_linef(g, "#if defined(__clang__)");
    cg_linef(g, "#pragma clang loop vectorize(enable)");
    cg_linef(g, "#elif defined(__GNUC__)");
    cg_linef(g, "#pragma GCC ivdep");
    cg_linef(g, "#endif");
    break;
  }
  case TIR_FOR_PARALLEL: {
    if (g->target->is_cuda) break;
    bool allocs = false;
    tir_visitor v = {.stmt = find_alloc, .user = &allocs};
    tir_visit_stmt(&v, loop->u.loop.body);
    if (allocs || cg_has_jump(loop->u.loop.body)) break; /* OpenMP loops cannot be left by break */
    cg_linef(g, "#ifdef _OPENMP");
    cg_linef(g, "#pragma omp parallel for");
    cg_linef(g, "#endif");
    return true;
  }
  default: break;
  }
  return false;
}

/* LowerInitBlock's reduction init, `if (v == min) S` first in a loop
 * body, runs in the first iteration only, before the rest of it: S (with v
 * as min) is peeled before the loop, which keeps the rest.  The same for
 * the init of a reduction over several loops, `if (v == min && w == 0 &&
 * ...) S` first in the body of the innermost of a nest of loops over v, w,
 * ... (the inner ones of constant bounds, the condition naming each loop of
 * the nest once): S runs once, before everything else the nest runs.  The
 * rest (the nest without the if), or NULL when there is nothing to peel;
 * vars and mins (n of them) the substitution for S. */
static bool cond_covers(const tir_expr *c, const tir_expr **vars, tir_expr **mins, int n, bool *seen) {
  if (c->kind == TIR_AND) return cond_covers(c->u.bin.a, vars, mins, n, seen) && cond_covers(c->u.bin.b, vars, mins, n, seen);
  if (c->kind != TIR_EQ) return false;
  for (int i = 0; i < n; i++)
    if ((c->u.bin.a == vars[i] && tir_expr_identical(c->u.bin.b, mins[i])) ||
        (c->u.bin.b == vars[i] && tir_expr_identical(c->u.bin.a, mins[i]))) {
      if (seen[i]) return false;
      seen[i] = true;
      return true;
    }
  return false;
}

const tir_stmt *cg_peel_first(cg *g, const tir_stmt *body, const tir_expr *var, const tir_expr *min,
                                  const tir_stmt **first, const tir_expr **vars, tir_expr **mins, int *nvars) {
  const tir_stmt *chain[CG_PEEL_MAX];
  int n = 0, nloops = 0;
  vars[n] = var;
  mins[n++] = (tir_expr *)min;
  const tir_stmt *cur = body;
  while (cur && cur->kind == TIR_FOR && n < CG_PEEL_MAX) {
    int64_t e, m;
    if (!tir_is_const_int(cur->u.loop.extent, &e) || e <= 0 || !tir_is_const_int(cur->u.loop.min, &m)) return NULL;
    chain[nloops++] = cur;
    vars[n] = cur->u.loop.var;
    mins[n++] = cur->u.loop.min;
    cur = cur->u.loop.body;
  }
  if (!cur || cur->kind != TIR_SEQ || cur->u.seq.n < 2) return NULL;
  const tir_stmt *s = cur->u.seq.stmts[0];
  if (s->kind != TIR_IF || s->u.ifs.else_s) return NULL;
  bool seen[CG_PEEL_MAX] = {false};
  if (!cond_covers(s->u.ifs.cond, vars, mins, n, seen)) return NULL;
  for (int i = 0; i < n; i++)
    if (!seen[i]) return NULL;
  if (cg_has_jump(s->u.ifs.then_s)) return NULL; /* a break peeled would leave no loop */
  *first = s->u.ifs.then_s;
  *nvars = n;
  tir_stmt *rest = cur->u.seq.n == 2 ? cur->u.seq.stmts[1] : tir_seq(g->ctx, cur->u.seq.stmts + 1, cur->u.seq.n - 1);
  for (int i = nloops - 1; i >= 0; i--) { /* the nest again, around the rest */
    tir_stmt *loop = tir_stmt_copy(g->ctx, chain[i]);
    loop->u.loop.body = rest;
    rest = loop;
  }
  return rest;
}

void cg_loop(cg *g, const tir_expr *var, const tir_expr *min, const tir_expr *extent, const tir_stmt *body,
             const tir_stmt *loop) {
  if (loop && loop->kind == TIR_FOR && body == loop->u.loop.body && g->target->loop && g->target->loop(g, loop)) return;
  if (loop && loop->kind == TIR_FOR && body == loop->u.loop.body && cg_split_loop(g, loop)) return;
  if (loop && loop->kind == TIR_FOR && body == loop->u.loop.body && cg_jam_loop(g, loop)) return;
  const tir_stmt *first = NULL, *rest = NULL;
  const tir_expr *pvars[CG_PEEL_MAX];
  tir_expr *pmins[CG_PEEL_MAX];
  int npeel = 0;
  /* C only: CUDA places barriers between the statements of the body */
  if (!g->target->is_cuda && loop && loop->kind == TIR_FOR && loop->u.loop.kind != TIR_FOR_PARALLEL &&
      (rest = cg_peel_first(g, body, var, min, &first, pvars, pmins, &npeel))) {
    tir_var_map m = {0};
    for (int i = 0; i < npeel; i++) tir_var_map_set(&m, pvars[i], pmins[i]);
    tir_stmt *init = tir_substitute_stmt(g->ctx, (tir_stmt *)first, &m);
    tir_var_map_free(&m);
    int64_t ext;
    bool some = tir_is_const_int(extent, &ext) && ext > 0;
    if (!some) {
      cg_line_start(g);
      cg_text_puts(g->out, "if (0 < ");
      cg_expr(g, extent);
      cg_text_puts(g->out, ")");
      cg_open(g);
      cg_stmt(g, init);
      cg_close(g);
    } else {
      cg_stmt(g, init);
    }
    body = rest;
  }
  cg_hoisted hoisted;
  body = cg_hoist_invariants(g, var, body, &hoisted);
  cg_text loop_text = {0};
  cg_text *saved_out = g->out;
  g->out = &loop_text; /* the loop, then the declarations it uses before it */
  char ty[32];
  cg_type(g, var->dtype, ty, var->span);
  char *lo = cg_expr_str(g, min);
  char *ext = cg_expr_str(g, extent);
  cg_enter(g); /* the loop var's scope */
  const char *v = cg_define(g, var, var->u.var.name);
  tir_analyzer_bind_range(cg_bounds(g), var, (tir_expr *)min, (tir_expr *)extent);
  bool omp = loop_pragmas(g, loop, extent);
  cg_line_start(g);
  int64_t kmin, kext;
  if (is_zero(min))
    cg_text_printf(g->out, "for (%s %s = 0; %s < %s; ++%s)", ty, v, v, ext, v);
  else if (tir_is_const_int(min, &kmin) && tir_is_const_int(extent, &kext))
    cg_text_printf(g->out, "for (%s %s = %s; %s < %lld; ++%s)", ty, v, lo, v, (long long)(kmin + kext), v);
  else
    cg_text_printf(g->out, "for (%s %s = %s; %s < %s + %s; ++%s)", ty, v, lo, v, lo, ext, v);
  cg_open(g);
  if (!(omp && cg_outline_body(g, body))) cg_stmt(g, body);
  if (loop && g->target->loop_end) g->target->loop_end(g, loop);
  cg_close(g);
  cg_leave(g);
  g->out = saved_out;
  cg_hoisted_emit(g, &hoisted, loop_text.s);
  cg_text_free(&loop_text);
}

static void print_if(cg *g, const tir_stmt *s) {
  cg_line_start(g);
  cg_text_puts(g->out, "if (");
  cg_expr(g, s->u.ifs.cond);
  cg_text_puts(g->out, ")");
  cg_open(g);
  cg_stmt(g, s->u.ifs.then_s);
  if (s->u.ifs.else_s) {
    cg_leave(g);
    g->indent--;
    cg_line_start(g);
    cg_text_puts(g->out, "} else");
    cg_open(g);
    cg_stmt(g, s->u.ifs.else_s);
  }
  cg_close(g);
}

static void print_let(cg *g, const tir_stmt *s) {
  const tir_expr *var = s->u.let.var;
  char ty[32];
  cg_type(g, var->dtype, ty, var->span);
  char *val = cg_expr_str(g, s->u.let.value);
  const char *n = cg_define(g, var, var->u.var.name);
  bool unused = !cg_uses_var(s->u.let.body, var);
  /* nvcc's front end counts no (void)x as a use (#550-D: set but never used) */
  const char *attr = unused && g->target->is_cuda ? "[[maybe_unused]] " : "";
  char ety[32];
  if (var->dtype.code == TIR_TC_HANDLE && var->u.var.ptr_elem.bits && cg_type(g, var->u.var.ptr_elem, ety, var->span))
    cg_linef(g, "%s%s *%s = (%s *)(%s);", attr, ety, n, ety, val); /* T.let[T.handle("float32")] */
  else if (var->dtype.code == TIR_TC_HANDLE) {
    cg_linef(g, "%svoid *%s = %s;", attr, n, val);
    cg_note_void_ptr(g, var);
  } else
    cg_linef(g, "%s%s %s = %s;", attr, ty, n, val);
  if (unused && !g->target->is_cuda) cg_linef(g, "(void)%s;", n);
  cg_stmt(g, s->u.let.body);
}

/* the product of extents as a C expression, and its value when constant */
static char *size_expr(cg *g, tir_expr *const *ext, int n, int64_t *konst) {
  cg_text t = {0};
  int64_t k = 1;
  bool is_const = true;
  for (int i = 0; i < n; i++) {
    int64_t v;
    if (!tir_is_const_int(ext[i], &v)) is_const = false;
    else if (__builtin_mul_overflow(k, v, &k)) k = INT64_MAX; /* refused as too large where it is allocated */
  }
  if (!is_const && g->target->is_cuda) { /* a kernel's arrays are static: a symbolic extent's constant bound (min(n, 1)) */
    bool bounded = true;
    k = 1;
    for (int i = 0; i < n && bounded; i++) {
      int64_t v, lo;
      if (!tir_is_const_int(ext[i], &v)) tir_const_bound(cg_bounds(g), ext[i], &lo, &v);
      bounded = v >= 0 && v != INT64_MAX && !__builtin_mul_overflow(k, v, &k);
    }
    is_const = bounded;
    if (bounded && k == 0) k = 1;
  }
  /* an extent a pass left at or below 0 (a compacted buffer of a loop that never runs: no access executes):
   * one element, as C has no array of none */
  if (is_const && k < 1) k = 1;
  if (is_const) {
    cg_text_printf(&t, "%lld", (long long)k);
  } else {
    for (int i = 0; i < n; i++) {
      if (i) cg_text_puts(&t, " * ");
      char *e = cg_expr_str(g, ext[i]);
      cg_text_printf(&t, "(%s)", e);
    }
  }
  *konst = is_const ? k : -1;
  char *s = (char *)tir_strdup(g->ctx, t.s ? t.s : "1");
  cg_text_free(&t);
  return s;
}

/* an array for an allocation: automatic when small, static when large and
 * constant (the stack would not hold it), a VLA when symbolic */
static void declare_array(cg *g, const tir_stmt *s, const void *key, const char *hint, tir_dtype t,
                          tir_expr *const *ext, int n, int align, const tir_stmt *body) {
  char ty[32];
  cg_type(g, t, ty, s->span);
  int64_t k;
  char *size = size_expr(g, ext, n, &k);
  const char *name = cg_define(g, key, hint);
  if (g->target->alloc_buffer && g->target->alloc_buffer(g, s, name, ty, size)) {
    cg_stmt(g, body);
    return;
  }
  if (!cg_uses_var(body, key)) {
    cg_stmt(g, body);
    return;
  }
  int bytes = tir_dtype_bytes(t);
  if (align <= 0) align = 64;
  cg_note_span(g, key, key, 0, k >= 0 ? k * bytes : INT64_MAX); /* an object of its own */
  /* an array read and never written, or read before it is first written:
   * what it reads is undefined (the interpreter refuses it); the C reads
   * zeros, which gcc's -Wuninitialized accepts */
  bool zero = !g->target->is_cuda && (!cg_may_write_var(body, key) || cg_read_first(body, key, k));
  /* a small array first stored under a condition (a reduction's init on
   * its first iteration, `if (k == 0) acc[0] = 0;`): gcc -O2 keeps it in
   * registers and cannot follow the condition (-Wmaybe-uninitialized);
   * zeroed, which costs nothing it can see */
  if (!zero && !g->target->is_cuda && k >= 0 && k * bytes <= 64 && cg_first_store_conditional(body, key)) zero = true;
  if (k >= 0 && k * bytes > 65536)
    cg_linef(g, "static _Alignas(%d) %s %s[%s];", align, ty, name, size);
  else if (k >= 0)
    cg_linef(g, "_Alignas(%d) %s %s[%s]%s;", align, ty, name, size, zero ? " = {0}" : "");
  else {
    cg_linef(g, "%s %s[(%s) > 0 ? (%s) : 1];", ty, name, size, size); /* C has no array of none */
    if (zero) cg_linef(g, "memset(%s, 0, sizeof %s);", name, name);
  }
  if (!g->target->is_cuda && !reads_var(body, key)) cg_linef(g, "(void)%s;", name); /* only stored: gcc's -Wunused-but-set */
  cg_stmt(g, body);
}

static const char *annotation_str(const tir_attr_val *annots, const char *key) {
  const tir_attr_val *v = annots ? tir_av_get(annots, key) : NULL;
  return v && v->kind == TIR_AV_EXPR && v->expr && v->expr->kind == TIR_STRING_IMM ? v->expr->u.str : NULL;
}

const tir_stmt *cg_workspace(const tir_func *f, const char **mode) {
  const tir_stmt *s = f->body;
  while (s && s->kind == TIR_DECL_BUFFER) s = s->u.decl.body;
  if (!s || s->kind != TIR_ALLOC_BUFFER) return NULL;
  const char *pool = annotation_str(s->u.decl.annotations, "tir.memory_pool");
  if (!pool || strcmp(pool, "workspace")) return NULL;
  const char *m = annotation_str(s->u.decl.annotations, "tir.workspace");
  if (mode) *mode = m ? m : "malloc";
  return s;
}

typedef struct buf_use {
  const tir_buffer *b;
  bool found;
} buf_use;

static bool buf_use_expr(tir_visitor *v, const tir_expr *e) {
  buf_use *u = v->user;
  if (e->kind == TIR_BUFFER_LOAD && e->u.load.buf == u->b) u->found = true;
  return !u->found;
}

static bool buf_use_stmt(tir_visitor *v, const tir_stmt *s) {
  buf_use *u = v->user;
  if (s->kind == TIR_BUFFER_STORE && s->u.store.buf == u->b) u->found = true;
  return !u->found;
}

bool cg_buffer_used(const tir_stmt *s, const tir_buffer *b) {
  int known = cg_index_has(s, b, 1);
  if (known >= 0) return known;
  buf_use u = {b, false};
  tir_visitor v = {.expr = buf_use_expr, .stmt = buf_use_stmt, .user = &u};
  tir_visit_stmt(&v, s);
  return u.found;
}

/* the workspace of a planned function: malloc'd (freed after the body and
 * before every early return), a static array, or the caller's (param) */
static void print_workspace(cg *g, const tir_stmt *s, const char *mode) {
  const tir_buffer *b = s->u.decl.buf;
  int64_t n = 0;
  tir_is_const_int(b->shape[0], &n);
  int align = b->data_alignment > 0 ? b->data_alignment : 64;
  int64_t rounded = (n + align - 1) / align * align;
  if (!strcmp(mode, "param")) { /* defined as the function's last parameter */
    cg_stmt(g, s->u.decl.body);
    return;
  }
  const char *name = cg_define(g, b->data, b->name);
  if (!strcmp(mode, "static")) {
    cg_linef(g, "static _Alignas(%d) uint8_t %s[%lld];", align, name, (long long)(rounded ? rounded : align));
    cg_stmt(g, s->u.decl.body);
    return;
  }
  g->used_malloc = true;
  cg_linef(g, "uint8_t *%s = (uint8_t *)aligned_alloc(%d, %lld);", name, align, (long long)(rounded ? rounded : align));
  cg_linef(g, "if (!%s) return -1;", name);
  const char *saved = g->cleanup;
  size_t k = strlen(name) + 16;
  char *line = tir_alloc(g->ctx, k);
  snprintf(line, k, "free(%s);", name);
  g->cleanup = line;
  cg_stmt(g, s->u.decl.body);
  g->cleanup = saved;
  cg_linef(g, "free(%s);", name);
}

static void print_alloc_buffer(cg *g, const tir_stmt *s) {
  const tir_buffer *b = s->u.decl.buf;
  const char *pool = annotation_str(s->u.decl.annotations, "tir.memory_pool");
  if (pool && !strcmp(pool, "workspace") && !g->target->is_cuda) {
    const char *mode = annotation_str(s->u.decl.annotations, "tir.workspace");
    print_workspace(g, s, mode ? mode : "malloc");
    return;
  }
  if (b->ndim != 1 || b->nstrides) {
    cg_error(g, s->span, "buffer '%s' is not flat: run FlattenBuffer (flatten) before code generation", b->name);
    return;
  }
  declare_array(g, s, b->data, b->name, b->dtype, b->shape, b->ndim, b->data_alignment, s->u.decl.body);
}

static void print_decl_buffer(cg *g, const tir_stmt *s) {
  const tir_buffer *b = s->u.decl.buf;
  int64_t off;
  const char *data = cg_lookup(g, b->data);
  if (!data) {
    cg_error(g, s->span, "buffer '%s' declares data '%s' that is not allocated", b->name, b->data->u.var.name);
    return;
  }
  if (b->ndim != 1 || b->nstrides) {
    cg_error(g, s->span, "buffer '%s' is not flat: run FlattenBuffer (flatten) before code generation", b->name);
    return;
  }
  tir_dtype pe = b->data->u.var.ptr_elem;
  /* an untyped data var names the same elements unless C declared it void * */
  bool same_type = pe.bits == 0 ? !cg_is_void_ptr(g, b->data) : tir_dtype_eq(pe, b->dtype);
  if (tir_is_const_int(b->elem_offset, &off) && off == 0 && same_type) {
    cg_stmt(g, s->u.decl.body); /* another name for the same elements */
    return;
  }
  /* a view at an offset of its data (PlanMemory's temporaries) */
  char ty[32];
  cg_type(g, b->dtype, ty, s->span);
  char *offset = cg_expr_str(g, b->elem_offset);
  const char *name = cg_define(g, b, b->name);
  int64_t n = 1, e;
  for (int d = 0; d < b->ndim && n >= 0; d++) n = tir_is_const_int(b->shape[d], &e) && e >= 0 ? n * e : -1;
  if (n >= 0 && tir_is_const_int(b->elem_offset, &off)) { /* the bytes of its data it covers */
    int64_t eb = tir_dtype_bytes(b->dtype);
    cg_note_span(g, b, b->data, off * eb, (off + n) * eb);
  }
  bool used = cg_buffer_used(s->u.decl.body, b);
  const char *attr = !used && g->target->is_cuda ? "[[maybe_unused]] " : ""; /* nvcc counts no (void)x */
  if (tir_is_const_int(b->elem_offset, &off) && off == 0) cg_linef(g, "%s%s *%s = (%s *)%s;", attr, ty, name, ty, data);
  else cg_linef(g, "%s%s *%s = (%s *)%s + %s;", attr, ty, name, ty, data, offset);
  if (!used && !g->target->is_cuda) cg_linef(g, "(void)%s;", name);
  cg_stmt(g, s->u.decl.body);
}

static void print_evaluate(cg *g, const tir_stmt *s) {
  const tir_expr *v = s->u.eval.value;
  if (g->target->evaluate && g->target->evaluate(g, s)) return;
  if (v->kind == TIR_CALL && !strcmp(v->u.call.op, "slice_tensor")) {
    cg_c_slice_tensor(g, s);
    return;
  }
  if (v->kind != TIR_CALL) return; /* a value without effect */
  cg_line_start(g);
  if (v->dtype.code != TIR_TC_HANDLE || v->dtype.bits != 0) cg_text_puts(g->out, "(void)");
  cg_expr(g, v);
  cg_text_puts(g->out, ";\n");
}

static void print_attr(cg *g, const tir_stmt *s) {
  if (g->target->attr && g->target->attr(g, s)) return;
  const char *key = s->u.attr.key;
  if ((!strcmp(key, "thread_extent") || !strcmp(key, "virtual_thread")) && tir_is_var(s->u.attr.node)) {
    tir_expr zero = {.kind = TIR_INT_IMM, .dtype = s->u.attr.node->dtype};
    cg_loop(g, s->u.attr.node, &zero, s->u.attr.value, s->u.attr.body, s);
    return;
  }
  cg_stmt(g, s->u.attr.body);
}

static void print_seq(cg *g, const tir_stmt *s) {
  for (int i = 0; i < s->u.seq.n; i++) {
    if (g->target->before_seq_item) g->target->before_seq_item(g, s, i);
    cg_stmt(g, s->u.seq.stmts[i]);
  }
}

void cg_stmt(cg *g, const tir_stmt *s) {
  if (!s || g->failed) return;
  if (s->span.line) g->where = s->span;
  switch (s->kind) {
  case TIR_BUFFER_STORE: print_store(g, s); break;
  case TIR_LET_STMT: print_let(g, s); break;
  case TIR_FOR: cg_loop(g, s->u.loop.var, s->u.loop.min, s->u.loop.extent, s->u.loop.body, s); break;
  case TIR_WHILE:
    cg_line_start(g);
    cg_text_puts(g->out, "while (");
    cg_expr(g, s->u.whl.cond);
    cg_text_puts(g->out, ")");
    cg_open(g);
    cg_stmt(g, s->u.whl.body);
    if (g->target->loop_end) g->target->loop_end(g, s);
    cg_close(g);
    break;
  case TIR_IF: print_if(g, s); break;
  case TIR_EVALUATE: print_evaluate(g, s); break;
  case TIR_SEQ: print_seq(g, s); break;
  case TIR_ALLOCATE:
    declare_array(g, s, s->u.alloc.var, s->u.alloc.var->u.var.name, s->u.alloc.dtype, s->u.alloc.extents,
                  s->u.alloc.n, 64, s->u.alloc.body);
    break;
  case TIR_DECL_BUFFER: print_decl_buffer(g, s); break;
  case TIR_ALLOC_BUFFER: print_alloc_buffer(g, s); break;
  case TIR_ATTR: print_attr(g, s); break;
  case TIR_ASSERT:
    if (g->target->is_cuda) { /* in a kernel (the host's asserts are codegen_cuda.c's) */
      cg_error(g, s->span, "an assert inside a CUDA kernel is not supported: a kernel returns no status (check the "
                           "condition before the launch)");
      break;
    }
    cg_line_start(g);
    cg_text_puts(g->out, "if (!(");
    cg_expr(g, s->u.assrt.cond);
    cg_text_puts(g->out, "))");
    cg_open(g);
    if (g->cleanup) cg_linef(g, "%s", g->cleanup);
    cg_linef(g, "return -1;");
    cg_close(g);
    cg_stmt(g, s->u.assrt.body);
    break;
  case TIR_BLOCK_REALIZE:
    cg_error(g, s->span, "block '%s' is not lowered: run the lowering passes (--passes=default) before code generation",
             s->u.realize.block->name);
    break;
  case TIR_BREAK: cg_linef(g, "break;"); break;
  case TIR_CONTINUE: cg_linef(g, "continue;"); break;
  default: cg_error(g, s->span, "unknown statement kind %d", (int)s->kind); break;
  }
}
