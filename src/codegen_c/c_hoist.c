/* c_hoist.c - integer divisions and remainders that do not change in a
 * loop, computed once before it.
 *
 * GCC -O3 moves most loop-invariant arithmetic out of a loop itself, but
 * not a division or remainder on a path the loop body takes only under a
 * condition: the padding loop of a scheduled pool2d (bench/bench_ops.py),
 *
 *   for (ax3 ...) pad[f * 114 + ax3] = (1 <= f % 114 && ... ? data[f / 114 * 12544 + ...] : -FLT_MAX);
 *
 * runs an `idiv` per element inside the loop (gcc 12 -O3 -march=native;
 * 1.46 ms, 0.73 ms with the two terms computed before the loop by hand).
 * So before each loop, every largest integer term of the body that holds
 * a `a / c` or `a % c` (floor or truncating, c a constant other than 0 and
 * -1), uses no variable the loop or its body binds and reads no memory
 * (`f / 114 * 12544 + f % 114 * 112`, or `f % 114` alone) becomes a
 * variable declared before the loop, where the loop uses it.  Such a term
 * cannot trap, so computing it when the loop would not have is harmless. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_c/c_printer.h"
#include "tir/visit.h"

typedef struct hoist {
  cg *g;
  var_list bound;      /* vars the loop and its body bind */
  var_list picked;     /* the terms to hoist, by identity */
  tir_expr **terms;    /* the terms hoisted, as first met (children replaced) */
  tir_expr **vars;     /* and their variables */
  int n, cap;
} hoist;

static bool bound_stmt(tir_visitor *v, const tir_stmt *s) {
  hoist *h = v->user;
  if (s->kind == TIR_FOR) var_list_add(&h->bound, s->u.loop.var);
  else if (s->kind == TIR_LET_STMT) var_list_add(&h->bound, s->u.let.var);
  else if (s->kind == TIR_ATTR && s->u.attr.node && tir_is_var(s->u.attr.node)) var_list_add(&h->bound, s->u.attr.node);
  return true;
}

static bool bound_expr(tir_visitor *v, const tir_expr *e) {
  hoist *h = v->user;
  if (e->kind == TIR_LET) var_list_add(&h->bound, e->u.let.var);
  return true;
}

static bool is_bound(const hoist *h, const tir_expr *v) {
  return var_list_has(&h->bound, v);
}

static bool is_divmod(tir_expr_kind k) { return k == TIR_DIV || k == TIR_MOD || k == TIR_FLOORDIV || k == TIR_FLOORMOD; }

/* integer arithmetic on vars not bound in the loop, no memory read, no
 * division that could trap */
static bool invariant(const hoist *h, const tir_expr *e) {
  if (!tir_dtype_is_int(e->dtype) || e->dtype.lanes != 1) return false;
  int64_t c;
  switch (e->kind) {
  case TIR_INT_IMM: return true;
  case TIR_VAR: return !is_bound(h, e);
  case TIR_ADD:
  case TIR_SUB:
  case TIR_MUL:
  case TIR_MIN:
  case TIR_MAX: return invariant(h, e->u.bin.a) && invariant(h, e->u.bin.b);
  case TIR_DIV:
  case TIR_MOD:
  case TIR_FLOORDIV:
  case TIR_FLOORMOD:
    if (!tir_is_const_int(e->u.bin.b, &c) || c == 0 || c == -1) return false;
    return invariant(h, e->u.bin.a);
  case TIR_CAST: return tir_dtype_is_int(e->u.un.a->dtype) && invariant(h, e->u.un.a);
  default: return false;
  }
}

static bool has_divmod(const tir_expr *e) {
  switch (e->kind) {
  case TIR_DIV:
  case TIR_MOD:
  case TIR_FLOORDIV:
  case TIR_FLOORMOD: return true;
  case TIR_ADD:
  case TIR_SUB:
  case TIR_MUL:
  case TIR_MIN:
  case TIR_MAX: return has_divmod(e->u.bin.a) || has_divmod(e->u.bin.b);
  case TIR_CAST: return has_divmod(e->u.un.a);
  default: return false;
  }
}

/* the largest invariant terms holding a division, outermost first (a
 * visitor that does not descend into what it takes) */
static bool pick_expr(tir_visitor *v, const tir_expr *e) {
  hoist *h = v->user;
  if (!has_divmod(e) || !invariant(h, e)) return true;
  var_list_add(&h->picked, e);
  return false;
}

static tir_expr *hoist_expr(tir_mutator *m, tir_expr *e) {
  hoist *h = m->user;
  bool picked = false;
  picked = var_list_has(&h->picked, e);
  if (!picked) return e;
  for (int i = 0; i < h->n; i++)
    if (tir_expr_identical(h->terms[i], e)) return h->vars[i]; /* the same vars, not an alpha-renaming */
  char hint[96];
  if (is_divmod(e->kind) && e->u.bin.a->kind == TIR_VAR)
    snprintf(hint, sizeof hint, "%s_%s", e->u.bin.a->u.var.name, e->kind == TIR_DIV || e->kind == TIR_FLOORDIV ? "q" : "r");
  else
    snprintf(hint, sizeof hint, "%s", is_divmod(e->kind) ? "t" : "base");
  if (h->n == h->cap) {
    h->cap = h->cap ? 2 * h->cap : 8;
    h->terms = realloc(h->terms, sizeof *h->terms * (size_t)h->cap);
    h->vars = realloc(h->vars, sizeof *h->vars * (size_t)h->cap);
    if (!h->terms || !h->vars) abort();
  }
  h->terms[h->n] = e;
  h->vars[h->n] = tir_var(h->g->ctx, tir_strdup(h->g->ctx, hint), e->dtype);
  return h->vars[h->n++];
}

/* does text hold name as a C identifier? */
static bool names(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *p = text ? strstr(text, name) : NULL; p; p = strstr(p + 1, name)) {
    bool before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
    bool after = isalnum((unsigned char)p[n]) || p[n] == '_';
    if (!before && !after) return true;
  }
  return false;
}

const tir_stmt *cg_hoist_invariants(cg *g, const tir_expr *loop_var, const tir_stmt *body, cg_hoisted *out) {
  memset(out, 0, sizeof *out);
  if (g->target->is_cuda || !body) return body;
  hoist h = {.g = g};
  var_list_add(&h.bound, loop_var);
  tir_visitor v = {.stmt = bound_stmt, .expr = bound_expr, .user = &h};
  tir_visit_stmt(&v, body);
  tir_visitor pick = {.expr = pick_expr, .user = &h};
  tir_visit_stmt(&pick, body);
  tir_mutator m = {.expr = hoist_expr, .ctx = g->ctx, .user = &h};
  tir_stmt *res = tir_mutate_stmt(&m, (tir_stmt *)body);
  if (h.n) {
    out->n = h.n;
    out->names = calloc((size_t)h.n, sizeof *out->names);
    out->lines = calloc((size_t)h.n, sizeof *out->lines);
    if (!out->names || !out->lines) abort();
  }
  for (int i = 0; i < h.n; i++) {
    char ty[32];
    cg_type(g, h.vars[i]->dtype, ty, h.terms[i]->span);
    char *val = cg_expr_str(g, h.terms[i]);
    const char *name = cg_define(g, h.vars[i], h.vars[i]->u.var.name);
    cg_text line = {0};
    cg_text *saved = g->out;
    g->out = &line;
    cg_linef(g, "%s %s = %s; /* invariant in the %s loop */", ty, name, val, loop_var->u.var.name);
    g->out = saved;
    out->names[i] = name;
    out->lines[i] = line.s;
    tir_analyzer_bind(cg_bounds(g), h.vars[i], h.terms[i]);
  }
  var_list_free(&h.bound);
  var_list_free(&h.picked);
  free(h.terms);
  free(h.vars);
  return res;
}

/* the declarations the loop (its text) uses, directly or through another
 * one, then the loop */
void cg_hoisted_emit(cg *g, cg_hoisted *h, const char *loop_text) {
  bool *keep = h->n ? calloc((size_t)h->n, sizeof *keep) : NULL;
  for (int i = h->n - 1; i >= 0; i--) {
    keep[i] = names(loop_text, h->names[i]);
    for (int j = i + 1; j < h->n && !keep[i]; j++) keep[i] = keep[j] && names(h->lines[j], h->names[i]);
  }
  for (int i = 0; i < h->n; i++)
    if (keep[i]) cg_text_puts(g->out, h->lines[i]);
  if (loop_text) cg_text_puts(g->out, loop_text);
  for (int i = 0; i < h->n; i++) free(h->lines[i]);
  free(h->lines);
  free(h->names);
  free(keep);
  memset(h, 0, sizeof *h);
}
