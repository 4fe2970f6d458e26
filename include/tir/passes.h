/* tir/passes.h - passes and the pass manager. */
#ifndef TIR_PASSES_H
#define TIR_PASSES_H

#include <stdio.h>
#include "tir/diag.h"
#include "tir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: exported from libtir.so, which hides everything else (a new
 * public header puts its declarations between the same two pragmas: docs/embedding.md) */
#pragma GCC visibility push(default)

/* A pass: returns the new function (sharing untouched subtrees with f), or
 * NULL with errors in d.  Never modifies f. */
typedef tir_func *(*tir_pass_fn)(tir_ctx *c, const tir_func *f, tir_diag *d);

typedef struct tir_pass_info {
  const char *name;  /* TVM's name: "CompactBufferAllocation" */
  const char *alias; /* "compact" */
  const char *doc;   /* one line */
  tir_pass_fn fn;
} tir_pass_info;

/* the registry, in a fixed order; *n gets the count */
const tir_pass_info *tir_pass_registry(int *n);
/* by name or alias; NULL if unknown */
const tir_pass_info *tir_pass_lookup(const char *name);

/* the passes */
tir_func *tir_pass_simplify(tir_ctx *c, const tir_func *f, tir_diag *d);
/* every loop from 0 by 1: min and step into the body, as TVM's CanonicalizeLoop */
tir_func *tir_pass_canonicalize_loop(tir_ctx *c, const tir_func *f, tir_diag *d);
tir_func *tir_pass_compact_buffer_allocation(tir_ctx *c, const tir_func *f, tir_diag *d);
tir_func *tir_pass_lower_match_buffer(tir_ctx *c, const tir_func *f, tir_diag *d);
/* lowering to flat loops (src/passes/, one file each; see docs) */
/* a reduction over threadIdx-bound loops as T.tvm_thread_allreduce (TVM's LowerCrossThreadReduction) */
tir_func *tir_pass_lower_cross_thread_reduction(tir_ctx *c, const tir_func *f, tir_diag *d);
tir_func *tir_pass_lower_init_block(tir_ctx *c, const tir_func *f, tir_diag *d);
tir_func *tir_pass_plan_buffer_allocation(tir_ctx *c, const tir_func *f, tir_diag *d);
tir_func *tir_pass_convert_blocks_to_opaque(tir_ctx *c, const tir_func *f, tir_diag *d);
tir_func *tir_pass_lower_opaque_block(tir_ctx *c, const tir_func *f, tir_diag *d);
tir_func *tir_pass_flatten_buffer(tir_ctx *c, const tir_func *f, tir_diag *d);
tir_func *tir_pass_lower_intrin(tir_ctx *c, const tir_func *f, tir_diag *d);
tir_func *tir_pass_remove_no_op(tir_ctx *c, const tir_func *f, tir_diag *d);
/* T.tvm_thread_allreduce (under its reduce_scope attr) as a shared-memory
 * tree reduction with T.tvm_storage_sync barriers (lowered IR) */
tir_func *tir_pass_lower_thread_allreduce(tir_ctx *c, const tir_func *f, tir_diag *d);

/* ---- pipelines ---- */
typedef struct tir_pipeline tir_pipeline;

typedef struct tir_pipeline_opts {
  bool verify_each;            /* run the verifier after each pass (default on) */
  bool print_after_all;
  const char *print_after;     /* a pass name or alias, or NULL */
  bool time_passes;
  FILE *print_stream;          /* where IR dumps go (stderr in tirc) */
  /* run every function before the pipeline and after each pass on the same
   * seeded random inputs (tir_exec_args_randomize) and compare every buffer
   * argument: ints bit-exact, floats within TIR_EXEC_RTOL/ATOL; a
   * difference, or a checked-execution error the input did not have, fails
   * the pass that made it (tir/exec.h) */
  bool verify_exec;
  uint64_t exec_seed;
  const char *const *exec_assign; /* "NAME=VALUE" scalar inputs, or NULL */
  int exec_nassign;
} tir_pipeline_opts;

/* "compact,lower_match" or a named pipeline ("default"); NULL with an error
 * listing the known passes on an unknown name.  Owned by the caller. */
tir_pipeline *tir_pipeline_parse(const char *spec, tir_diag *d);
tir_pipeline *tir_pipeline_from_list(const char *const *names, int n, tir_diag *d);
void tir_pipeline_free(tir_pipeline *p); /* NULL is fine */
/* runs every pass on every function of m; returns a new module or NULL */
tir_module *tir_pipeline_run(tir_pipeline *p, tir_ctx *c, const tir_module *m,
                             const tir_pipeline_opts *o, tir_diag *d);
/* the same, where m and everything else c holds are no longer needed: the
 * IR the passes replace is dropped as they go (the live IR copied into c
 * afresh once the dead is as large), so memory stays near twice the live
 * IR instead of growing with every pass; m and every pointer into c but
 * the result are invalid after it (tirc runs its pipeline this way).  Not
 * with verify_exec, which runs the input: then as tir_pipeline_run. */
tir_module *tir_pipeline_run_reclaim(tir_pipeline *p, tir_ctx *c, tir_module *m,
                                     const tir_pipeline_opts *o, tir_diag *d);
/* record an extra timed phase (e.g. "parse", "print") for the report */
void tir_pipeline_record_time(tir_pipeline *p, const char *label, double ms);
/* per-pass wall-time table of the last run, appended to out (time_passes) */
void tir_pipeline_report_times(const tir_pipeline *p, FILE *out);
/* adds a row (e.g. "parse", "print") to the timing table; the same label
 * again accumulates */
void tir_pipeline_record_time(tir_pipeline *p, const char *label, double ms);
/* the passes of a parsed pipeline, in order; *n gets the count */
const tir_pass_info *const *tir_pipeline_passes(const tir_pipeline *p, int *n);

/* named pipelines ("default" = the full lowering pipeline): name, the comma
 * list it stands for, one line of doc; *n gets the count */
typedef struct tir_named_pipeline {
  const char *name;
  const char *spec;
  const char *doc;
} tir_named_pipeline;
const tir_named_pipeline *tir_pipeline_named(int *n);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
