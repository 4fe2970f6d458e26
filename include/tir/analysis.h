/* tir/analysis.h - the arithmetic analyzer (simplify, bounds, proofs,
 * integer sets and regions, backed by isl), block access regions, and the IR
 * verifier. */
#ifndef TIR_ANALYSIS_H
#define TIR_ANALYSIS_H

#include "tir/diag.h"
#include "tir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: exported from libtir.so, which hides everything else (a new
 * public header puts its declarations between the same two pragmas: docs/embedding.md) */
#pragma GCC visibility push(default)

/* An analyzer holds a context of facts about vars.  Exprs it builds are
 * allocated in the ctx given at creation.  Owns its isl_ctx; free with
 * tir_analyzer_free.  d may be NULL: isl errors become diagnostics there. */
typedef struct tir_analyzer tir_analyzer;
tir_analyzer *tir_analyzer_new(tir_ctx *c, tir_diag *d);
void tir_analyzer_free(tir_analyzer *a);

/* var == value from now on (value is simplified and substituted) */
void tir_analyzer_bind(tir_analyzer *a, const tir_expr *var, tir_expr *value);
/* var in [min, min + extent) */
void tir_analyzer_bind_range(tir_analyzer *a, const tir_expr *var, tir_expr *min, tir_expr *extent);
/* scoped constraints (branch conditions, predicates): returns a token to
 * pass to exit, which drops this constraint and all entered after it */
int tir_analyzer_enter_constraint(tir_analyzer *a, tir_expr *cond);
void tir_analyzer_exit_constraint(tir_analyzer *a, int token);

/* canonical, readable, never larger, same meaning */
tir_expr *tir_simplify(tir_analyzer *a, tir_expr *e);

/* constant bounds; *min = INT64_MIN / *max = INT64_MAX where unbounded */
void tir_const_bound(tir_analyzer *a, tir_expr *e, int64_t *min, int64_t *max);
/* every + - * node of e's dtype from e's root (a signed int) provably
 * computes, as an exact integer, a value in `bits`-bit two's complement: the
 * C code generator prints such a tree with C's signed operators */
bool tir_arith_fits(tir_analyzer *a, const tir_expr *e, int bits);
/* e == coeff*k + base for some integer k; coeff 0 means e == base */
typedef struct { int64_t coeff, base; } tir_modular_set;
tir_modular_set tir_modular_set_of(tir_analyzer *a, tir_expr *e);

/* true only when proved (isl for quasi-affine facts; bounds otherwise) */
bool tir_can_prove(tir_analyzer *a, tir_expr *cond);
bool tir_can_prove_equal(tir_analyzer *a, tir_expr *x, tir_expr *y);

/* ---- integer sets and regions ---- */
typedef struct tir_relax_var {
  const tir_expr *var;
  tir_expr *min, *extent;
} tir_relax_var;

/* One access: a region (ndim ranges) of some buffer, where the `relax` vars
 * range over their domains, `conds` hold (e.g. enclosing if conditions), and
 * every other var stays symbolic. */
typedef struct tir_access_region {
  const tir_range *region;
  int ndim;
  const tir_relax_var *relax;
  int nrelax;
  tir_expr *const *conds;
  int nconds;
} tir_access_region;

/* The bounding box of the union of the accesses: out[d] = {min, extent},
 * min symbolic in the kept vars, extent a constant where a constant upper
 * bound can be proved.  Exact through isl where quasi-affine, interval
 * arithmetic otherwise.  Returns false when some dim cannot be bounded (out
 * then undefined). */
bool tir_region_bbox(tir_analyzer *a, const tir_access_region *acc, int nacc, int ndim, tir_range *out);

/* ---- values carried across the iterations of a loop ----
 * One access of a buffer inside the body of a loop L: its indices; `dims`,
 * the loops around it inside L (outer first: var, min, extent) and then the
 * vars bound by its enclosing blocks and lets (var, min = the value bound,
 * extent = NULL); `loop_ids`, one id per loop (the For statement: two
 * accesses share a loop where they share its id); the conditions it runs
 * under (an if, a block predicate, an if_then_else branch; neg[i]: the
 * condition is false there); `seq`, its place in execution order within
 * one iteration of the innermost loop both accesses share (a store's write
 * comes after the reads of its value). */
typedef struct tir_flow_access {
  tir_expr *const *idx;
  int ndim;
  const tir_relax_var *dims;
  int ndims, nloops;
  const void *const *loop_ids;
  tir_expr *const *conds;
  const bool *neg;
  int nconds;
  int seq;
  bool write;
} tir_flow_access;

/* true only when proved: in some iteration of the loop `var` (min <= var <
 * min + extent, ascending; `outer` the loops around it) a read of acc reads
 * an element that no earlier access of that iteration wrote and that an
 * earlier iteration wrote.  Such a buffer's value is carried from one
 * iteration to the next: allocated inside the loop, it would be a new
 * buffer each iteration.  False where isl cannot tell (an index it cannot
 * express exactly, its quota). */
bool tir_loop_carries(tir_analyzer *a, const tir_expr *var, tir_expr *min, tir_expr *extent,
                      const tir_relax_var *outer, int nouter, const tir_flow_access *acc, int nacc);

/* The range of e as relax vars range over their domains (interval
 * arithmetic; min/extent simplified).  False when unbounded. */
bool tir_eval_range(tir_analyzer *a, tir_expr *e, const tir_relax_var *relax, int nrelax, tir_range *out);

/* ---- block access regions (TVM's GetBlockReadWriteRegion): the reads and
 * writes of a block computed from its body, relaxing the loops inside it;
 * used when a block has no T.reads/T.writes.  Results are ctx-owned arrays. */
void tir_block_infer_access(tir_ctx *c, const tir_block *blk,
                            tir_buffer_region **reads, int *nreads,
                            tir_buffer_region **writes, int *nwrites);
/* the same, given the buffers in scope (function params, enclosing
 * allocations): a tvm_access_ptr names its buffer by data var only */
void tir_block_infer_access_in(tir_ctx *c, const tir_block *blk, tir_buffer *const *scope, int nscope,
                               tir_buffer_region **reads, int *nreads,
                               tir_buffer_region **writes, int *nwrites);
/* the same, the buffers in scope given as a lookup: buffer_of(arg, data)
 * returns the buffer in scope over data, or NULL; it is asked only where
 * the block holds such a call (a reader of many buffers in scope need not
 * list them for each block) */
typedef tir_buffer *(*tir_buffer_of_data_fn)(void *arg, const tir_expr *data);
void tir_block_infer_access_by(tir_ctx *c, const tir_block *blk, tir_buffer_of_data_fn buffer_of, void *arg,
                               tir_buffer_region **reads, int *nreads,
                               tir_buffer_region **writes, int *nwrites);

/* ---- the IR verifier: every var defined before use and bound once, every
 * buffer declared in scope, index count == buffer rank, dtypes consistent,
 * block reads/writes naming declared buffers.  False with errors in d. */
bool tir_verify_func(const tir_func *f, tir_diag *d);
/* as tir_verify_func, for what a pass made: a loop pragma (a "pragma_*"
 * attr) may name a var no loop binds any more (LowerOpaqueBlock drops a
 * unit loop and keeps its pragmas, about its var, as TVM's does) */
bool tir_verify_func_lowered(const tir_func *f, tir_diag *d);

/* the first scalable-vector value of f (T.vscale(), a float32xvscalex4
 * value or buffer), or NULL; tir_func_check_scalable reports it as an
 * error of `what` (a pass, a code generator, the interpreter) and returns
 * false, true when there is none */
const tir_expr *tir_func_find_scalable(const tir_func *f);
bool tir_func_check_scalable(const tir_func *f, const char *what, tir_diag *d);

/* a buffer of f with strides but not one per dimension (TVM 0.27's
 * cache_index writes T.sblock_alloc_buffer((32, 3), "int32", strides=(1,))),
 * read and printed as it is: reported as an error of `what`, false; true
 * when there is none */
bool tir_func_check_strides(const tir_func *f, const char *what, tir_diag *d);

/* a block of f with no realize (T.sblock(..., no_realize=True), TVM's bare
 * SBlock), read and printed as it is: reported as an error of `what`,
 * false; true when there is none */
bool tir_func_check_no_realize(const tir_func *f, const char *what, tir_diag *d);

/* the three above in turn: what tirc reads and prints but does not lower,
 * emit or run (the pass manager, the code generators and the interpreter
 * ask this once per function) */
bool tir_func_check_lowerable(const tir_func *f, const char *what, tir_diag *d);

/* a warning of `what` for the first buffer of f with an allocated_addr
 * (TVM 0.27's placement in a TIRx memory pool), which the code generators
 * do not honour: each buffer is allocated on its own, as TVM's lowering
 * outside TIRx's tile passes allocates it (the interpreter too, quietly:
 * it checks passes, whose results that does not change) */
void tir_func_warn_allocated_addr(const tir_func *f, const char *what, tir_diag *d);

/* ---- accesses certainly executed out of bounds: a match_buffer region or
 * a slice_tensor box whose index is affine over constant loop ranges and
 * that runs unconditionally (no guard, predicate or possibly empty loop
 * around it).  False with one error in d at the access, naming the loop
 * values that reach it.  A buffer load or store, or a tvm_access_ptr,
 * proved out of bounds the same way is a warning (TVM's tests hold such
 * loads; TVM's LowerMatchBuffer writes access_ptr extents past the end of
 * strided views).  The reader runs it on every function it reads. */
bool tir_check_bounds(const tir_func *f, tir_diag *d);
/* the same, with a load or store proved out of bounds an error where
 * access_errors (code generation: it is out of bounds each time it runs) */
bool tir_check_bounds_ex(const tir_func *f, tir_diag *d, bool access_errors);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
