/* c_outline.c - the body of an OpenMP loop as a function of its own.
 *
 * GCC outlines `#pragma omp parallel for` into a function that reads every
 * variable it shares from a struct: the loop body no longer sees that its
 * buffer parameters are restrict and aligned, nor that two temporaries of
 * the workspace do not overlap, and gcc keeps each partial sum of a
 * reduction in memory (issue 12: the scheduled layer_norm of
 * bench/bench_ops.py ran 4.6x slower built with -fopenmp on one thread than
 * without it).  So the body of such a loop is printed as
 *
 *   static void SYM_parN(float *restrict x, float *restrict x_sum, int32_t i) { BODY }
 *
 * before SYM, the loop calls it, and GCC inlines it back into its outlined
 * function with the parameters' restrict intact.  Parameters: every name
 * the body uses that is defined outside it, by value.  A buffer pointer is
 * restrict where the enclosing function's parameter is, or where it is a
 * temporary (a view of the workspace at a constant offset, or an array of
 * its own) whose bytes overlap no other temporary the body uses; the
 * function's aligned parameters are told aligned again.  A body that
 * returns (T.assert), declares buffers, or uses a data pointer as a value
 * (address_of, access_ptr) stays inline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_c/c_printer.h"
#include "tir/visit.h"

typedef struct capture {
  const void *key;
  const char *name;
  const tir_buffer *buf; /* a pointer to buf's elements, or NULL: a scalar Var */
  const tir_expr *var;
} capture;

typedef struct outline_scan {
  cg *g;
  capture *caps;
  int n, cap;
  bool refuse;
} outline_scan;

static void add_capture(outline_scan *o, const void *key, const char *name, const tir_buffer *b, const tir_expr *v) {
  for (int i = 0; i < o->n; i++)
    if (!strcmp(o->caps[i].name, name)) return;
  if (o->n == o->cap) {
    o->cap = o->cap ? 2 * o->cap : 16;
    o->caps = realloc(o->caps, sizeof *o->caps * (size_t)o->cap);
    if (!o->caps) abort();
  }
  o->caps[o->n++] = (capture){key, name, b, v};
}

static void buffer_use(outline_scan *o, const tir_buffer *b) {
  const char *n = cg_lookup(o->g, b);
  const void *key = b;
  if (!n) {
    n = cg_lookup(o->g, b->data);
    key = b->data;
  }
  if (n) add_capture(o, key, n, b, NULL);
}

static bool scan_expr(tir_visitor *v, const tir_expr *e) {
  outline_scan *o = v->user;
  if (e->kind == TIR_VAR) {
    const char *n = cg_lookup(o->g, e);
    if (n && tir_dtype_is_handle(e->dtype)) o->refuse = true; /* a data pointer as a value */
    else if (n) add_capture(o, e, n, NULL, e);
  } else if (e->kind == TIR_BUFFER_LOAD) {
    buffer_use(o, e->u.load.buf);
  }
  return !o->refuse;
}

static bool scan_stmt(tir_visitor *v, const tir_stmt *s) {
  outline_scan *o = v->user;
  switch (s->kind) {
  case TIR_ASSERT:
  case TIR_DECL_BUFFER:
  case TIR_ALLOC_BUFFER:
  case TIR_ALLOCATE: o->refuse = true; break;
  case TIR_BUFFER_STORE: buffer_use(o, s->u.store.buf); break;
  default: break;
  }
  return !o->refuse;
}

void cg_note_span(cg *g, const void *key, const void *base, int64_t lo, int64_t hi) {
  if (g->nspans == g->spans_cap) {
    g->spans_cap = g->spans_cap ? 2 * g->spans_cap : 16;
    g->spans = realloc(g->spans, sizeof *g->spans * (size_t)g->spans_cap);
    if (!g->spans) abort();
  }
  g->spans[g->nspans++] = (cg_span_info){key, base, lo, hi};
}

/* the bytes [lo, hi) of base that a temporary's name covers, when known */
static const cg_span_info *span_of(const cg *g, const void *key) {
  for (int i = g->nspans - 1; i >= 0; i--)
    if (g->spans[i].key == key) return &g->spans[i];
  return NULL;
}

static const cg_param_info *param_of(const cg *g, const void *key) {
  long i = tir_ptrmap_get(&g->param_index, key, 0);
  return i ? &g->param_info[i - 1] : NULL;
}

/* a temporary the body uses whose bytes overlap no other temporary's */
static bool temp_restrict(const cg *g, const capture *caps, int n, int i) {
  const cg_span_info *a = span_of(g, caps[i].key);
  if (!a) return false;
  for (int j = 0; j < n; j++) {
    if (j == i || !caps[j].buf || param_of(g, caps[j].key)) continue;
    const cg_span_info *b = span_of(g, caps[j].key);
    if (!b) return false;
    if (a->base == b->base && a->lo < b->hi && b->lo < a->hi) return false;
  }
  return true;
}

static const cg_span_info *buffer_span(const cg *g, const tir_buffer *b) {
  const cg_span_info *s = span_of(g, b);
  return s ? s : span_of(g, b->data);
}

bool cg_distinct_memory(const cg *g, const tir_buffer *a, const tir_buffer *b) {
  if (a->data == b->data) { /* two views of one data: their known bytes apart */
    const cg_span_info *sa = span_of(g, a), *sb = span_of(g, b);
    return a != b && sa && sb && (sa->hi <= sb->lo || sb->hi <= sa->lo);
  }
  const cg_param_info *pa = param_of(g, a->data), *pb = param_of(g, b->data);
  if ((pa && pa->is_restrict) || (pb && pb->is_restrict)) return true;
  if (pa || pb) return false;
  const cg_span_info *sa = buffer_span(g, a), *sb = buffer_span(g, b);
  if (!sa || !sb) return false;
  return sa->base != sb->base || sa->hi <= sb->lo || sb->hi <= sa->lo;
}

bool cg_outline_body(cg *g, const tir_stmt *body) {
  if (g->target->is_cuda || !g->pre || !g->func_symbol) return false;
  outline_scan o = {.g = g};
  tir_visitor v = {.expr = scan_expr, .stmt = scan_stmt, .user = &o};
  tir_visit_stmt(&v, body);
  if (o.refuse || g->failed) {
    free(o.caps);
    return false;
  }
  /* the function's name: SYM_parN, free among the module's names */
  char fname[160];
  for (;;) {
    snprintf(fname, sizeof fname, "%s_par%d", g->func_symbol, g->outline_counter++);
    const char *got = cg_define(g, (const void *)(intptr_t)-(1000000 + g->outline_counter), fname);
    if (!strcmp(got, fname)) break;
  }
  const char *name = tir_strdup(g->ctx, fname);
  cg_text sig = {0}, call = {0}, fn = {0};
  for (int i = 0; i < o.n; i++) {
    const capture *c = &o.caps[i];
    char ty[32];
    if (i) {
      cg_text_puts(&sig, ", ");
      cg_text_puts(&call, ", ");
    }
    if (c->buf) {
      const cg_param_info *p = param_of(g, c->key);
      bool r = p ? p->is_restrict : temp_restrict(g, o.caps, o.n, i);
      cg_type(g, c->buf->dtype, ty, c->buf->span);
      cg_text_printf(&sig, "%s *%s%s", ty, r ? "restrict " : "", c->name);
    } else {
      cg_type(g, c->var->dtype, ty, c->var->span);
      cg_text_printf(&sig, "%s %s", ty, c->name);
    }
    cg_text_puts(&call, c->name);
  }
  cg_text_printf(&fn, "/* the body of a parallel loop of %s, a function of its own: OpenMP's outlining would lose "
                      "restrict and alignment */\nstatic void %s(%s) {\n",
                 g->func_symbol, name, sig.s ? sig.s : "void");
  /* print the body into fn, at depth 1 of a scope of its own */
  cg_text *saved_out = g->out;
  int saved_indent = g->indent;
  const char *saved_cleanup = g->cleanup;
  g->out = &fn;
  g->indent = 1;
  g->cleanup = NULL;
  bool any_align = false;
  for (int i = 0; i < o.n; i++) {
    const cg_param_info *p = o.caps[i].buf ? param_of(g, o.caps[i].key) : NULL;
    if (!p || !p->align) continue;
    if (!any_align) cg_linef(g, "#if defined(__GNUC__)");
    any_align = true;
    char ty[32];
    cg_type(g, o.caps[i].buf->dtype, ty, o.caps[i].buf->span);
    cg_linef(g, "%s = (%s *)__builtin_assume_aligned(%s, %d);", o.caps[i].name, ty, o.caps[i].name, p->align);
  }
  if (any_align) cg_linef(g, "#endif");
  cg_enter(g);
  cg_stmt(g, body);
  cg_leave(g);
  cg_text_puts(&fn, "}\n\n");
  g->out = saved_out;
  g->indent = saved_indent;
  g->cleanup = saved_cleanup;
  cg_text_puts(g->pre, fn.s);
  cg_linef(g, "%s(%s);", name, call.s ? call.s : "");
  cg_text_free(&sig);
  cg_text_free(&call);
  cg_text_free(&fn);
  free(o.caps);
  return true;
}
