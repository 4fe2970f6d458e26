/* scalable.c - tir_func_find_scalable: where a function uses a scalable
 * vector (T.vscale(), a float32xvscalex4 value).  tirc reads and prints
 * them; its passes, code generators and interpreter refuse a function that
 * uses one, at that place (their lane counts are not known before run
 * time, and nothing here reasons about that). */
#include <string.h>

#include "tir/analysis.h"
#include "tir/visit.h"

typedef struct {
  const tir_expr *found;   /* the first with a source position */
  const tir_expr *nospan;  /* else the first */
} sc_find;

static bool sc_expr(tir_visitor *v, const tir_expr *e) {
  sc_find *f = v->user;
  if (f->found) return false;
  if (tir_dtype_is_scalable(e->dtype) ||
      (e->kind == TIR_CALL && (!strcmp(e->u.call.op, "vscale") || !strcmp(e->u.call.op, "tir.vscale")))) {
    if (e->span.line) f->found = e;
    else if (!f->nospan) f->nospan = e;
  }
  return !f->found;
}

static bool sc_stmt(tir_visitor *v, const tir_stmt *s) {
  sc_find *f = v->user;
  if (f->found) return false;
  if ((s->kind == TIR_ALLOC_BUFFER || s->kind == TIR_DECL_BUFFER) && tir_dtype_is_scalable(s->u.decl.buf->dtype))
    f->found = s->u.decl.buf->data;
  if (s->kind == TIR_ALLOCATE && tir_dtype_is_scalable(s->u.alloc.dtype)) f->found = s->u.alloc.var;
  return !f->found;
}

const tir_expr *tir_func_find_scalable(const tir_func *f) {
  sc_find fd = {NULL, NULL};
  tir_visitor v = {.expr = sc_expr, .stmt = sc_stmt, .user = &fd, .visit_buffer_fields = true};
  for (int i = 0; i < f->nparams && !fd.found; i++) {
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (b && tir_dtype_is_scalable(b->dtype)) fd.found = b->data;
  }
  if (!fd.found) tir_visit_stmt(&v, f->body);
  return fd.found ? fd.found : fd.nospan;
}

bool tir_func_check_scalable(const tir_func *f, const char *what, tir_diag *d) {
  const tir_expr *e = tir_func_find_scalable(f);
  if (!e) return true;
  tir_error(d, e->span.line ? e->span : f->span,
            "%s: function '%s' uses scalable vectors (T.vscale, Arm SVE): tirc reads and prints them, but does not "
            "lower, emit or run them",
            what, f->name);
  return false;
}

/* ---- strides: one per dimension, or none ---- */

typedef struct {
  const tir_buffer *bad;
} st_find;

static void st_check(st_find *f, const tir_buffer *b) {
  if (!f->bad && b && b->nstrides && b->nstrides != b->ndim) f->bad = b;
}

static bool st_stmt(tir_visitor *v, const tir_stmt *s) {
  st_find *f = v->user;
  if (f->bad) return false;
  if (s->kind == TIR_ALLOC_BUFFER || s->kind == TIR_DECL_BUFFER) st_check(f, s->u.decl.buf);
  if (s->kind == TIR_BLOCK_REALIZE) {
    const tir_block *b = s->u.realize.block;
    for (int i = 0; i < b->n_alloc; i++) st_check(f, b->alloc_buffers[i]);
    for (int i = 0; i < b->n_match; i++) st_check(f, b->match_buffers[i].buf);
  }
  return !f->bad;
}

bool tir_func_check_strides(const tir_func *f, const char *what, tir_diag *d) {
  st_find fd = {NULL};
  for (int i = 0; i < f->nparams && f->buffer_map; i++) st_check(&fd, f->buffer_map[i]);
  tir_visitor v = {.stmt = st_stmt, .user = &fd};
  if (!fd.bad) tir_visit_stmt(&v, f->body);
  if (!fd.bad) return true;
  tir_error(d, fd.bad->span.line ? fd.bad->span : f->span,
            "%s: buffer '%s' has %d dimensions but %d strides (as TVM's cache_index writes it): tirc reads and "
            "prints it, but lowers, emits and runs a buffer with one stride per dimension only",
            what, fd.bad->name, fd.bad->ndim, fd.bad->nstrides);
  return false;
}

/* ---- blocks with no realize (TVM's bare SBlock) ---- */

static bool nr_stmt(tir_visitor *v, const tir_stmt *s) {
  const tir_block **found = v->user;
  if (*found) return false;
  if (s->kind == TIR_BLOCK_REALIZE && s->u.realize.block && s->u.realize.block->no_realize)
    *found = s->u.realize.block;
  return !*found;
}

bool tir_func_check_no_realize(const tir_func *f, const char *what, tir_diag *d) {
  const tir_block *found = NULL;
  tir_visitor v = {.stmt = nr_stmt, .user = &found};
  if (f->body) tir_visit_stmt(&v, f->body);
  if (!found) return true;
  tir_error(d, found->span.line ? found->span : f->span,
            "%s: block '%s' of function '%s' has no realize (no_realize=True): tirc reads and prints it, but does "
            "not lower, emit or run it (TVM's lowering leaves it too)",
            what, found->name ? found->name : "", f->name);
  return false;
}

bool tir_func_check_lowerable(const tir_func *f, const char *what, tir_diag *d) {
  return tir_func_check_scalable(f, what, d) && tir_func_check_strides(f, what, d) &&
         tir_func_check_no_realize(f, what, d);
}

/* ---- allocated_addr: kept, not honoured ---- */

static bool aa_stmt(tir_visitor *v, const tir_stmt *s) {
  const tir_buffer **found = v->user;
  if (*found) return false;
  if ((s->kind == TIR_ALLOC_BUFFER || s->kind == TIR_DECL_BUFFER) && s->u.decl.buf->naddr) *found = s->u.decl.buf;
  if (s->kind == TIR_BLOCK_REALIZE) {
    const tir_block *b = s->u.realize.block;
    for (int i = 0; i < b->n_alloc && !*found; i++)
      if (b->alloc_buffers[i]->naddr) *found = b->alloc_buffers[i];
    for (int i = 0; i < b->n_match && !*found; i++)
      if (b->match_buffers[i].buf->naddr) *found = b->match_buffers[i].buf;
  }
  return !*found;
}

void tir_func_warn_allocated_addr(const tir_func *f, const char *what, tir_diag *d) {
  const tir_buffer *found = NULL;
  for (int i = 0; i < f->nparams && f->buffer_map && !found; i++)
    if (f->buffer_map[i] && f->buffer_map[i]->naddr) found = f->buffer_map[i];
  tir_visitor v = {.stmt = aa_stmt, .user = &found};
  if (!found && f->body) tir_visit_stmt(&v, f->body);
  if (!found) return;
  tir_warning(d, found->span.line ? found->span : f->span,
              "%s: the allocated_addr of buffer '%s' (a place in a TIRx memory pool) is not honoured: each buffer "
              "is allocated on its own, as TVM's lowering outside TIRx's tile passes allocates it",
              what, found->name);
}
