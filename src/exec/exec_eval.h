/* exec_eval.h - the compiler's state and the evaluators shared by
 * exec_expr.c and exec_stmt.c (internal). */
#ifndef TIR_EXEC_EVAL_H
#define TIR_EXEC_EVAL_H

#include "exec/exec_internal.h"

struct xc {
  tir_exec_prog *p;
  tir_diag *d;
  bool failed;
  tir_ptrmap vars;  /* var -> slot + 1 */
  tir_ptrmap bufs;  /* buffer -> descriptor + 1 */
  uint8_t *defd;    /* per slot: bound in the scope being compiled */
  uint8_t *hslot;   /* per slot: holds a handle (moved to the program) */
  int capslots, capbufs;
  int thread_depth; /* inside thread loops */
  int loop_depth;   /* serial/while loops around, within the block or thread loop */
  tir_ptrmap pools; /* data var of a PlanMemory backing (tir.memory_pool) -> 1 */
  const tir_expr *reducer; /* the T.comm_reducer of the innermost "reduce_scope" attr, or NULL */
  int *thread_slots;       /* the slots of the threadIdx loops around, outermost first (malloc'd) */
  const char **thread_tags; /* their tags (malloc'd) */
  int nthread_slots, capthread_slots;
  tir_span stmt_span; /* of the statement being compiled (for an expr with no span of its own) */
};

/* T.tvm_thread_allreduce(n, source[n], cond, result[n], thread vars...)
 * under c->reducer: r made its evaluator, or NULL with an error (exec_allreduce.c) */
const xe *xc_allreduce(xc *c, const tir_expr *e, xe *r);

/* compile-time errors (the program cannot be run as written) */
void xc_error(xc *c, tir_span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int xc_slot(xc *c, const tir_expr *var);          /* the var's first slot (lanes slots) */
int xc_buf(xc *c, const tir_buffer *b, int extra_dims); /* descriptor index */
const xe *xc_expr(xc *c, const tir_expr *e, int lane);
const xe *xc_const_int(xc *c, tir_dtype t, int64_t v);
const xs *xc_stmt(xc *c, const tir_stmt *s);
xvc xc_class(tir_dtype t);
const xacc *xc_access(xc *c, const tir_buffer *b, tir_expr *const *idx, int nidx, int lane, tir_span sp,
                      tir_dtype elem);
/* the declaration of b (shape, strides, elem_offset from its fields) */
xs *xc_decl(xc *c, const tir_buffer *b, const xe *data);
/* run the declaration part of a decl node: fill b's descriptor */
bool x_declare(const xs *s, xframe *fr, xstore *st, int64_t off);

static inline int64_t x_wrapk(const xe *e, int64_t v) {
  if (!e->sh) return v;
  uint64_t u = (uint64_t)v << e->sh;
  return e->uns ? (int64_t)(u >> e->sh) : (int64_t)u >> e->sh;
}

#define EVI(x) ((x)->fn.i((x), fr))
#define EVF(x) ((x)->fn.f((x), fr))
#define EVH(x) ((x)->fn.h((x), fr))

/* v's value, by its class */
static inline xval x_eval_val(const xe *v, xframe *fr) {
  xval r;
  if (v->vc == XV_FLOAT) r.f = EVF(v);
  else r.i = EVI(v);
  return r;
}

/* val (of v's class) stored at a's element idx, marked written */
static inline void x_store_value(const xacc *a, xframe *fr, const int64_t *idx, const xe *v, xval val) {
  xstore *st;
  uint8_t *p = x_addr_fast(a, fr, idx, true, &st);
  if (!p) return;
  if (v->vc == XV_FLOAT) x_write_float(p, a->ek, val.f);
  else x_write_int(p, a->ek, val.i);
  if (st->init) memset(st->init + (p - st->data), X_INIT_TAG(fr->run->p, a->buf), (size_t)a->lbytes);
}

#endif
