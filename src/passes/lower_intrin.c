/* lower_intrin.c - LowerIntrin (alias lower_intrin): lowers the pointer
 * intrinsics to what the code generators print directly:
 *   T.tvm_access_ptr(T.type_annotation(dt), data, offset, extent, mask)
 * becomes T.address_of(buf[offset]), buf the 1-D buffer over `data` of
 * element type dt declared in the function (a parameter's flat view, a
 * DeclBuffer or an AllocBuffer), which drops the type_annotation.  Where no
 * such buffer exists (a raw Allocate, or a different element type) the call
 * is kept: the code generators print it as `(dt *)data + offset`.
 * slice_tensor and math intrinsics are left to the code generators.  Run
 * after FlattenBuffer. */
#include <stdlib.h>
#include <string.h>

#include "tir/passes.h"
#include "tir/visit.h"

typedef struct intrin_lower {
  tir_buffer **bufs; /* 1-D buffers declared in the function */
  int n, cap;
} intrin_lower;

static void add_buf(intrin_lower *il, tir_buffer *b) {
  if (!b || b->ndim != 1 || b->nstrides != 0) return;
  if (il->n == il->cap) {
    il->cap = il->cap ? 2 * il->cap : 16;
    il->bufs = realloc(il->bufs, sizeof *il->bufs * (size_t)il->cap);
    if (!il->bufs) abort();
  }
  il->bufs[il->n++] = b;
}

static bool collect(tir_visitor *v, const tir_stmt *s) {
  if (s->kind == TIR_DECL_BUFFER || s->kind == TIR_ALLOC_BUFFER) add_buf(v->user, s->u.decl.buf);
  return true;
}

static tir_buffer *buffer_of(const intrin_lower *il, const tir_expr *data, tir_dtype t) {
  for (int i = 0; i < il->n; i++) {
    tir_buffer *b = il->bufs[i];
    int64_t off;
    if (b->data == data && tir_dtype_eq(b->dtype, t) && tir_is_const_int(b->elem_offset, &off) && off == 0)
      return b;
  }
  return NULL;
}

static tir_expr *lower_access_ptr(tir_mutator *m, tir_expr *e) {
  if (e->kind != TIR_CALL || strcmp(e->u.call.op, "tvm_access_ptr") || e->u.call.nargs != 5) return e;
  tir_expr *ann = e->u.call.args[0];
  if (ann->kind != TIR_CALL || strcmp(ann->u.call.op, "type_annotation")) return e;
  tir_buffer *b = buffer_of(m->user, e->u.call.args[1], ann->dtype);
  if (!b) return e;
  tir_expr *offset = e->u.call.args[2];
  tir_expr *load = tir_load(m->ctx, b, &offset, 1);
  tir_expr *r = tir_call(m->ctx, TIR_HANDLE, "address_of", &load, 1);
  r->span = e->span;
  return r;
}

tir_func *tir_pass_lower_intrin(tir_ctx *c, const tir_func *f, tir_diag *d) {
  (void)d;
  intrin_lower il = {0};
  for (int i = 0; i < f->nparams; i++) add_buf(&il, f->buffer_map ? f->buffer_map[i] : NULL);
  tir_visitor v = {.stmt = collect, .user = &il};
  tir_visit_stmt(&v, f->body);
  tir_mutator m = {.expr = lower_access_ptr, .ctx = c, .user = &il};
  tir_func *out = tir_func_copy(c, f);
  out->body = tir_mutate_stmt(&m, f->body);
  free(il.bufs);
  return out;
}
