/* reader_scalar.c - TVM 0.27's local scalars in the tirx dialect.
 *
 * `x: T.int32 = v`, `x: T.int32`, `x = v` (v a number or a non-pointer
 * expression) and `x = T.local_scalar(T.int32)` allocate a (1,) "local"
 * buffer x marked scalar (`T.alloc_scalar(dtype, scope)` and
 * `T.shared_scalar(dtype)` one in their scope; `T.decl_scalar(dtype, data,
 * scope, elem_offset=)` declares one over data) (TVM: an AllocBuffer whose buffer has the layout
 * TileLayout(S[1])); `x = v` and `x += v` on a name bound to a (1,) buffer
 * store into x[0]; a use of a scalar's name loads x[0].  The immutable
 * binding is `x: T.let[T.int32] = v` (a LetStmt; TVM's Bind). */
#include <string.h>

#include "script/reader.h"

tir_buffer *rd_scalar_new(rd *r, const char *name, tir_dtype t, const char *scope, tir_span sp) {
  tir_expr *one = tir_i32(r->c, 1);
  tir_buffer *b = tir_buffer_new(r->c, name, t, &one, 1, NULL, 0, NULL, scope, 0, 0, NULL);
  b->scalar = true;
  b->span = sp;
  rd_push_sym(r, name, (rval){.k = RV_BUFFER, .buf = b, .sp = sp});
  return b;
}

tir_buffer *rd_scalar_target(rd *r, const char *name) {
  rd_sym *s = rd_lookup(r, name);
  if (!s || s->val.k != RV_BUFFER) return NULL;
  tir_buffer *b = s->val.buf;
  int64_t n;
  return b->ndim == 1 && tir_is_const_int(b->shape[0], &n) && n == 1 ? b : NULL;
}

tir_expr *rd_scalar_load(rd *r, tir_buffer *b, tir_span sp) {
  tir_expr *zero = tir_int(r->c, b->shape[0]->dtype, 0);
  tir_expr *e = tir_load(r->c, b, &zero, 1);
  e->span = sp;
  return e;
}

tir_stmt *rd_scalar_store(rd *r, tir_buffer *b, rval v, tir_span sp) {
  if (!rd_store_kind_ok(r, v, b->dtype, b->name)) return NULL;
  tir_expr *e = rd_convert(r, v, b->dtype);
  if (!e) return NULL;
  tir_expr *zero = tir_int(r->c, b->shape[0]->dtype, 0);
  tir_stmt *s = tir_store(r->c, b, e, &zero, 1);
  s->span = sp;
  return s;
}
