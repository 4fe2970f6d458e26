/* pass_manager.c - pipelines of passes: parsing "a,b,c" (names, aliases or
 * named pipelines), running every pass on every function of a module,
 * verifying the IR after each pass, printing it, timing it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tir/analysis.h"
#include "tir/passes.h"
#include "tir/script.h"
#include "passes/verify_exec.h"
#include "tir/visit.h"

/* ---- named pipelines (extend the table; a spec may name other pipelines) ---- */
static const tir_named_pipeline named[] = {
    {"default", "canonicalize_loop,lower_cross_thread,lower_init,plan_alloc,to_opaque,compact,lower_match,simplify,lower_opaque,flatten,lower_thread_allreduce,simplify,remove_noop,lower_intrin", "the full lowering pipeline (TVM's order)"},
};
/* ---- end of the named pipelines ---- */

enum { MAX_EXPANSION_DEPTH = 8 };

typedef struct {
  char *label;
  double ms;
} time_row;

struct tir_pipeline {
  const tir_pass_info **passes;
  double *ms;          /* per pass, wall ms of the last run */
  int n, cap;
  time_row *rows;      /* caller-recorded rows (parse, print) */
  int nrows;
  double verify_ms;
  bool ran;
};

const tir_named_pipeline *tir_pipeline_named(int *n) {
  if (n) *n = (int)(sizeof named / sizeof named[0]);
  return named;
}

static const tir_named_pipeline *find_named(const char *name) {
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
    if (!strcmp(named[i].name, name)) return &named[i];
  return NULL;
}

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) abort();
  return q;
}

static void push_pass(tir_pipeline *p, const tir_pass_info *info) {
  if (p->n == p->cap) {
    p->cap = p->cap ? p->cap * 2 : 8;
    p->passes = xrealloc(p->passes, sizeof *p->passes * (size_t)p->cap);
    p->ms = xrealloc(p->ms, sizeof *p->ms * (size_t)p->cap);
  }
  p->ms[p->n] = 0;
  p->passes[p->n++] = info;
}

/* "unknown pass 'x'; known passes: ..., pipelines: ..." */
static void unknown_error(const char *name, tir_diag *d) {
  size_t cap = 256, len = 0;
  char *list = xrealloc(NULL, cap);
  list[0] = 0;
  int n;
  const tir_pass_info *reg = tir_pass_registry(&n);
  for (int i = 0; i < n; i++) {
    size_t need = strlen(reg[i].alias) + strlen(reg[i].name) + 8;
    if (len + need >= cap) list = xrealloc(list, cap = (cap + need) * 2);
    len += (size_t)snprintf(list + len, cap - len, "%s%s (%s)", i ? ", " : "", reg[i].alias, reg[i].name);
  }
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
    size_t need = strlen(named[i].name) + 16;
    if (len + need >= cap) list = xrealloc(list, cap = (cap + need) * 2);
    len += (size_t)snprintf(list + len, cap - len, "%s%s", i ? ", " : "; pipelines: ", named[i].name);
  }
  const char **cands = xrealloc(NULL, sizeof *cands * (size_t)(2 * n + (int)(sizeof named / sizeof named[0])));
  int nc = 0;
  for (int i = 0; i < n; i++) cands[nc++] = reg[i].alias, cands[nc++] = reg[i].name;
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) cands[nc++] = named[i].name;
  const char *near = tir_suggest(name, cands, nc);
  if (near) tir_error(d, ((tir_span){0, 0}), "unknown pass '%s'; did you mean '%s'? (known passes: %s)", name, near, list);
  else tir_error(d, ((tir_span){0, 0}), "unknown pass '%s'; known passes: %s", name, list);
  free(cands);
  free(list);
}

static bool add_name(tir_pipeline *p, const char *name, int depth, tir_diag *d);

/* parse a comma list into p; false with an error */
static bool add_spec(tir_pipeline *p, const char *spec, int depth, tir_diag *d) {
  const char *s = spec;
  if (!*s) return true;
  for (;;) {
    const char *end = strchr(s, ',');
    size_t len = end ? (size_t)(end - s) : strlen(s);
    while (len && (*s == ' ' || *s == '\t')) s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
    if (!len) {
      tir_error(d, ((tir_span){0, 0}), "empty pass name in pipeline '%s'", spec);
      return false;
    }
    char *name = xrealloc(NULL, len + 1);
    memcpy(name, s, len);
    name[len] = 0;
    bool ok = add_name(p, name, depth, d);
    free(name);
    if (!ok) return false;
    if (!end) return true;
    s = end + 1;
  }
}

static bool add_name(tir_pipeline *p, const char *name, int depth, tir_diag *d) {
  const tir_pass_info *info = tir_pass_lookup(name);
  if (info) {
    push_pass(p, info);
    return true;
  }
  const tir_named_pipeline *np = find_named(name);
  if (np) {
    if (depth >= MAX_EXPANSION_DEPTH) {
      tir_error(d, ((tir_span){0, 0}), "pipeline '%s' expands into itself", name);
      return false;
    }
    return add_spec(p, np->spec, depth + 1, d);
  }
  unknown_error(name, d);
  return false;
}

static tir_pipeline *new_pipeline(void) {
  tir_pipeline *p = calloc(1, sizeof *p);
  if (!p) abort();
  return p;
}

tir_pipeline *tir_pipeline_parse(const char *spec, tir_diag *d) {
  if (!spec) {
    tir_error(d, ((tir_span){0, 0}), "no pipeline given");
    return NULL;
  }
  tir_pipeline *p = new_pipeline();
  if (!add_spec(p, spec, 0, d)) {
    tir_pipeline_free(p);
    return NULL;
  }
  return p;
}

tir_pipeline *tir_pipeline_from_list(const char *const *names, int n, tir_diag *d) {
  tir_pipeline *p = new_pipeline();
  for (int i = 0; i < n; i++) {
    if (!names[i] || !add_name(p, names[i], 0, d)) {
      if (!names[i]) tir_error(d, ((tir_span){0, 0}), "NULL pass name");
      tir_pipeline_free(p);
      return NULL;
    }
  }
  return p;
}

void tir_pipeline_free(tir_pipeline *p) {
  if (!p) return;
  for (int i = 0; i < p->nrows; i++) free(p->rows[i].label);
  free(p->rows);
  free(p->passes);
  free(p->ms);
  free(p);
}

const tir_pass_info *const *tir_pipeline_passes(const tir_pipeline *p, int *n) {
  if (n) *n = p ? p->n : 0;
  return p ? p->passes : NULL;
}

/* ---- running ---- */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* re-emit the verifier's findings, naming the pass that broke the IR */
static bool verify_module(tir_pipeline *p, const tir_module *m, const tir_pass_info *after, tir_diag *d) {
  double t0 = now_ms();
  bool ok = true;
  for (int i = 0; i < m->nfuncs; i++) {
    tir_diag tmp;
    tir_diag_init(&tmp);
    if (!(after ? tir_verify_func_lowered(m->funcs[i], &tmp) : tir_verify_func(m->funcs[i], &tmp))) {
      ok = false;
      for (int k = 0; k < tmp.n; k++) {
        if (after)
          tir_diag_add(d, tmp.items[k].sev, tmp.items[k].span,
                       "IR verification failed after pass '%s' in function '%s': %s", after->name,
                       m->funcs[i]->name, tmp.items[k].msg);
        else
          tir_diag_add(d, tmp.items[k].sev, tmp.items[k].span,
                       "IR verification failed on the input, function '%s': %s", m->funcs[i]->name,
                       tmp.items[k].msg);
      }
    }
    tir_diag_free(&tmp);
  }
  p->verify_ms += now_ms() - t0;
  return ok;
}

static void print_ir(const tir_module *m, const tir_pass_info *info, FILE *out) {
  if (!out) return;
  char *text = tir_print_module(m, NULL);
  fprintf(out, "; IR after %s (%s)\n%s", info->name, info->alias, text ? text : "; <print failed>\n");
  if (text && *text && text[strlen(text) - 1] != '\n') fputc('\n', out);
  free(text);
}

static bool should_print(const tir_pipeline_opts *o, const tir_pass_info *info) {
  if (o->print_after_all) return true;
  return o->print_after && tir_pass_lookup(o->print_after) == info;
}

/* one pass over every function: a new module, or NULL */
static tir_module *run_pass(tir_pipeline *p, int k, tir_ctx *c, const tir_module *m, tir_diag *d) {
  const tir_pass_info *info = p->passes[k];
  tir_module *out = tir_module_new_like(c, m);
  double t0 = now_ms();
  for (int i = 0; i < m->nfuncs; i++) {
    int before = d ? d->nerrors : 0;
    /* the pass runs in a scratch ctx: what it allocates for its analysis
     * dies with it, and only the nodes of its result are kept (promoted
     * into c; what it shares with its input stays shared) */
    tir_ctx *scratch = tir_ctx_new();
    tir_ctx_reserve_id(scratch, tir_ctx_peek_id(c) - 1);
    tir_func *f = info->fn(scratch, m->funcs[i], d);
    if (f) f = tir_func_promote(c, f, scratch);
    tir_ctx_free(scratch);
    if (!f) {
      if (!d || d->nerrors == before)
        tir_error(d, m->funcs[i]->span, "pass '%s' failed on function '%s'", info->name, m->funcs[i]->name);
      p->ms[k] += now_ms() - t0;
      return NULL;
    }
    tir_module_add(c, out, f);
  }
  p->ms[k] += now_ms() - t0;
  return out;
}

/* reclaim: cur, what of it lives in c, moved into a fresh ctx that then
 * takes c's place (the rest of c freed); *live its size */
static const tir_module *reclaim(tir_pipeline *p, tir_ctx *c, const tir_module *cur, size_t *live) {
  double t0 = now_ms();
  tir_ctx *fresh = tir_ctx_new();
  tir_module *copy = tir_module_promote(fresh, cur, c);
  tir_ctx_swap(c, fresh);
  tir_ctx_free(fresh);
  *live = tir_ctx_bytes(c);
  tir_pipeline_record_time(p, "reclaim", now_ms() - t0);
  return copy;
}

/* A region read as A[0:T.int64(8)] keeps TVM's int32 min beside its int64
 * extent (as does an inferred whole dimension of an int64 buffer), which
 * only the printer needs: the passes take a constant min in its extent's
 * type, as tirc had always read it (the same value) */
static void unify_range(tir_ctx *c, tir_range *g) {
  if (!g->min || !g->extent || tir_dtype_eq(g->min->dtype, g->extent->dtype) || !tir_dtype_is_int(g->extent->dtype) ||
      !tir_dtype_is_int(g->min->dtype) || g->min->dtype.lanes != 1 || g->extent->dtype.lanes != 1 ||
      g->min->dtype.bits > g->extent->dtype.bits)
    return;
  /* a constant min in the extent's type; another cast to it (A[vi:vi + T.int64(2)], A[n:T.uint32(8)]),
   * as the reader had converted it; a wider extent of a narrower constant (A[T.uint8(2):16]) likewise */
  if (g->min->kind == TIR_INT_IMM) g->min = tir_int(c, g->extent->dtype, g->min->u.int_val);
  else g->min = tir_cast(c, g->extent->dtype, g->min);
}

static void unify_region(tir_visitor *v, const tir_buffer_region *r, const tir_stmt *owner) {
  (void)owner;
  for (int i = 0; i < r->n; i++) unify_range(v->user, &r->region[i]);
}

/* a block iter var's domain (T.axis.spatial((1, T.int64(8)), i)) likewise;
 * and a launch's extent of another type than its var (an int32 env_thread
 * var over T.int64(8)) in the var's type, as the reader had converted it */
static bool unify_stmt(tir_visitor *v, const tir_stmt *s) {
  if (s->kind == TIR_ATTR && s->u.attr.key && s->u.attr.value && tir_is_var(s->u.attr.node) &&
      (!strcmp(s->u.attr.key, "thread_extent") || !strcmp(s->u.attr.key, "virtual_thread")) &&
      !tir_dtype_eq(s->u.attr.value->dtype, s->u.attr.node->dtype) && tir_dtype_is_int(s->u.attr.value->dtype)) {
    int64_t k;
    tir_stmt *w = (tir_stmt *)s; /* the module is the pipeline's input, unified in place as its regions are */
    w->u.attr.value = tir_is_const_int(s->u.attr.value, &k) ? tir_int(v->user, s->u.attr.node->dtype, k)
                                                           : tir_cast(v->user, s->u.attr.node->dtype, s->u.attr.value);
    return true;
  }
  if (s->kind != TIR_BLOCK_REALIZE) return true;
  tir_block *b = s->u.realize.block;
  for (int i = 0; i < b->n_iter; i++) unify_range(v->user, &b->iter_vars[i].dom);
  return true;
}

static void unify_ranges(tir_ctx *c, const tir_module *m) {
  tir_visitor v = {.stmt = unify_stmt, .region = unify_region, .user = c};
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i]->body) tir_visit_stmt(&v, m->funcs[i]->body);
}

/* a buffer with strides, but not one per dimension (TVM's cache_index
 * writes `T.sblock_alloc_buffer((4, 2), strides=(1,))`): TVM's passes
 * lower it as a compact row-major buffer (its CompactBufferAllocation
 * rebuilds it without them), and so do tirc's, with a warning; printed as
 * written when no pass runs */
static void row_major_strides(tir_diag *d, tir_buffer *b) {
  if (!b || !b->nstrides || b->nstrides == b->ndim) return;
  tir_warning(d, b->span, "buffer '%s' has %d dimensions but %d stride%s (as TVM's cache_index writes it): lowered as "
              "a row-major buffer without strides, as TVM's passes lower it", b->name, b->ndim, b->nstrides,
              b->nstrides == 1 ? "" : "s");
  b->strides = NULL;
  b->nstrides = 0;
}

static bool strides_stmt(tir_visitor *v, const tir_stmt *s) {
  tir_diag *d = v->user;
  if (s->kind == TIR_ALLOC_BUFFER || s->kind == TIR_DECL_BUFFER) row_major_strides(d, s->u.decl.buf);
  if (s->kind == TIR_BLOCK_REALIZE) {
    const tir_block *b = s->u.realize.block;
    for (int i = 0; i < b->n_alloc; i++) row_major_strides(d, b->alloc_buffers[i]);
  }
  return true;
}

static void unify_strides(const tir_module *m, tir_diag *d) {
  tir_visitor v = {.stmt = strides_stmt, .user = d};
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i]->body) tir_visit_stmt(&v, m->funcs[i]->body);
}

static tir_module *run(tir_pipeline *p, tir_ctx *c, const tir_module *m, const tir_pipeline_opts *o, tir_diag *d,
                       bool may_reclaim) {
  static const tir_pipeline_opts defaults = {.verify_each = true};
  if (!p || !c || !m) return NULL;
  if (!o) o = &defaults;
  if (o->print_after && !tir_pass_lookup(o->print_after)) {
    unknown_error(o->print_after, d);
    return NULL;
  }
  for (int k = 0; k < p->n; k++) p->ms[k] = 0;
  p->verify_ms = 0;
  p->ran = true;
  if (o->verify_each && !verify_module(p, m, NULL, d)) return NULL;
  if (p->n > 0) unify_ranges(c, m);
  if (p->n > 0) unify_strides(m, d);
  /* scalable vectors: read and printed, lowered by no pass (checked once:
   * no pass makes one) */
  if (p->n > 0) {
    char what[96];
    snprintf(what, sizeof what, "pass '%s'", p->passes[0]->name);
    for (int i = 0; i < m->nfuncs; i++)
      if (!tir_func_check_lowerable(m->funcs[i], what, d))
        return NULL;
  }
  tir_verify_exec *vx = NULL;
  if (o->verify_exec && !(vx = tir_verify_exec_begin(m, o, d))) return NULL;
  const tir_module *cur = m;
  /* reclaiming (not with --verify-exec, which keeps the input's names): the
   * IR the passes replaced is dropped once it is as large as what is live
   * (at most one copy of the live IR per doubling: linear) */
  may_reclaim = may_reclaim && !vx;
  size_t live = 0; /* not known: the input's ctx holds the reader's garbage too */
  /* TIR_RECLAIM=always: after every pass, whatever the sizes (the tests
   * and the fuzzer run the small programs they have this way) */
  const char *env = getenv("TIR_RECLAIM");
  size_t slack = env && !strcmp(env, "always") ? 0 : (size_t)1 << 20;
  for (int k = 0; k < p->n; k++) {
    tir_module *next = run_pass(p, k, c, cur, d);
    if (!next) {
      tir_verify_exec_free(vx);
      return NULL;
    }
    cur = next;
    if (o->verify_each && !verify_module(p, cur, p->passes[k], d)) {
      tir_verify_exec_free(vx);
      return NULL;
    }
    if (should_print(o, p->passes[k])) print_ir(cur, p->passes[k], o->print_stream);
    if (vx && !tir_verify_exec_step(vx, cur, p->passes[k]->name, d)) {
      tir_verify_exec_free(vx);
      return NULL;
    }
    if (may_reclaim && k + 1 < p->n && (!slack || tir_ctx_bytes(c) > live + live / 2 + slack))
      cur = reclaim(p, c, cur, &live);
  }
  tir_verify_exec_free(vx);
  if (cur == m) { /* no passes: still a new module, as promised */
    tir_module *copy = tir_module_new_like(c, m);
    for (int i = 0; i < m->nfuncs; i++) tir_module_add(c, copy, m->funcs[i]);
    return copy;
  }
  return (tir_module *)cur;
}

tir_module *tir_pipeline_run(tir_pipeline *p, tir_ctx *c, const tir_module *m, const tir_pipeline_opts *o,
                             tir_diag *d) {
  return run(p, c, m, o, d, false);
}

tir_module *tir_pipeline_run_reclaim(tir_pipeline *p, tir_ctx *c, tir_module *m, const tir_pipeline_opts *o,
                                     tir_diag *d) {
  return run(p, c, m, o, d, true);
}

/* ---- timing ---- */

void tir_pipeline_record_time(tir_pipeline *p, const char *label, double ms) {
  if (!p || !label) return;
  for (int i = 0; i < p->nrows; i++)
    if (!strcmp(p->rows[i].label, label)) {
      p->rows[i].ms += ms;
      return;
    }
  p->rows = xrealloc(p->rows, sizeof *p->rows * (size_t)(p->nrows + 1));
  size_t len = strlen(label);
  char *copy = xrealloc(NULL, len + 1);
  memcpy(copy, label, len + 1);
  p->rows[p->nrows++] = (time_row){copy, ms};
}

static void time_line(FILE *out, double ms, double total, const char *what, const char *alias) {
  double share = total > 0 ? 100.0 * ms / total : 0.0;
  if (alias)
    fprintf(out, "  %10.3f  %6.1f%%  %s (%s)\n", ms, share, what, alias);
  else
    fprintf(out, "  %10.3f  %6.1f%%  %s\n", ms, share, what);
}

void tir_pipeline_report_times(const tir_pipeline *p, FILE *out) {
  if (!p || !out) return;
  double total = p->verify_ms;
  for (int k = 0; k < p->n; k++) total += p->ms[k];
  for (int i = 0; i < p->nrows; i++) total += p->rows[i].ms;
  fprintf(out, "===- pass execution timing report -===\n");
  fprintf(out, "  %10s  %7s  %s\n", "wall ms", "share", "pass");
  /* rows recorded before the run (parse) come first, the rest (print) last */
  for (int i = 0; i < p->nrows; i++)
    if (!strcmp(p->rows[i].label, "parse")) time_line(out, p->rows[i].ms, total, p->rows[i].label, NULL);
  for (int k = 0; k < p->n; k++) time_line(out, p->ms[k], total, p->passes[k]->name, p->passes[k]->alias);
  if (p->verify_ms > 0) time_line(out, p->verify_ms, total, "verify", NULL);
  for (int i = 0; i < p->nrows; i++)
    if (strcmp(p->rows[i].label, "parse")) time_line(out, p->rows[i].ms, total, p->rows[i].label, NULL);
  time_line(out, total, total, "total", NULL);
}
