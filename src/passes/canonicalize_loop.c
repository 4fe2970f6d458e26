/* canonicalize_loop.c - CanonicalizeLoop (alias canonicalize_loop), as TVM
 * 0.27's s_tir.transform.CanonicalizeLoop: every loop starts at 0 and steps
 * by 1.  A loop `for i in range(min, min + extent, step)` becomes
 *
 *     for i in range(ceildiv(extent, step)):   # extent itself when step is 1
 *         body[i := i * step + min]            # the value simplified
 *
 * keeping its kind, thread and annotations (the loop var keeps its name).
 * A step that is not provably positive is an error at the loop, with TVM's
 * message: a negative or symbolic step has no lowering (TVM refuses it
 * too).  Loops already canonical (min 0, step 1 or none) are left as they
 * are, an explicit step of 1 included (as TVM leaves them). */
#include <stdio.h>
#include <stdlib.h>

#include "tir/analysis.h"
#include "tir/passes.h"
#include "tir/script.h"
#include "tir/visit.h"

typedef struct canon {
  tir_analyzer *a;
  tir_diag *d;
  bool failed;
} canon;

static bool is_int_const(const tir_expr *e, int64_t v) {
  int64_t x;
  return e && tir_is_const_int(e, &x) && x == v;
}

static tir_stmt *canon_for(tir_mutator *m, tir_stmt *s) {
  canon *st = m->user;
  tir_ctx *c = m->ctx;
  if (s->kind != TIR_FOR || st->failed) return s;
  tir_expr *mn = s->u.loop.min, *ext = s->u.loop.extent, *step = s->u.loop.step;
  bool unit = !step || is_int_const(step, 1);
  if (is_int_const(mn, 0) && unit) return s; /* as TVM: an explicit step of 1 stays */
  tir_expr *v = s->u.loop.var;
  if (!unit) {
    tir_expr *pos = tir_binary(c, TIR_GT, step, tir_int(c, step->dtype, 0));
    if (!tir_can_prove(st->a, pos)) {
      char *txt = tir_print_expr(step);
      tir_error(st->d, s->span.line ? s->span : step->span, "Loop step for %s may not be positive: %s",
                v->u.var.name ? v->u.var.name : "?", txt ? txt : "?");
      free(txt);
      st->failed = true;
      return s;
    }
    /* ceildiv(extent, step) == floordiv(extent + step - 1, step) for step > 0 */
    tir_expr *num = tir_binary(c, TIR_SUB, tir_binary(c, TIR_ADD, ext, step), tir_int(c, step->dtype, 1));
    ext = tir_simplify(st->a, tir_binary(c, TIR_FLOORDIV, num, step));
  }
  tir_expr *val = unit ? v : tir_binary(c, TIR_MUL, v, step);
  if (!is_int_const(mn, 0)) val = tir_binary(c, TIR_ADD, val, mn);
  val = tir_simplify(st->a, val);
  tir_var_map map = {0};
  tir_var_map_set(&map, v, val);
  tir_stmt *body = tir_substitute_stmt(c, s->u.loop.body, &map);
  tir_var_map_free(&map);
  tir_stmt *n = tir_stmt_copy(c, s);
  n->u.loop.min = tir_int(c, v->dtype, 0);
  n->u.loop.extent = ext;
  n->u.loop.step = NULL;
  n->u.loop.body = body;
  return n;
}

tir_func *tir_pass_canonicalize_loop(tir_ctx *c, const tir_func *f, tir_diag *d) {
  canon st = {.a = tir_analyzer_new(c, d), .d = d};
  tir_mutator m = {.stmt = canon_for, .ctx = c, .user = &st};
  tir_func *out = tir_func_copy(c, f);
  out->body = tir_mutate_stmt(&m, f->body);
  tir_analyzer_free(st.a);
  return st.failed ? NULL : out;
}
