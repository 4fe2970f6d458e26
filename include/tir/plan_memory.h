/* tir/plan_memory.h - PlanMemory: the memory plan of lowered functions.
 *
 * Per function: the live range of each temporary (time steps are the leaf
 * statements in program order; a touch inside a loop widens to the whole
 * loop), pools as XLA's colours (`workspace`: global temporaries outside
 * kernels; `shared`: each kernel's shared memory; `local`: left to the
 * compiler), in-place reuse where isl proves it safe, and offsets from the
 * interval packer (tir/memplan.h).  The function comes back with one backing
 * buffer per pool instance and each temporary a view of it at its offset:
 *
 *   workspace = T.alloc_buffer((N,), "uint8", annotations={"tir.memory_pool": "workspace", ...})
 *   a = T.decl_buffer((1048576,), data=workspace.data, elem_offset=K)
 *
 * The report describes the plan in XLA's BufferAssignment grammar. */
#ifndef TIR_PLAN_MEMORY_H
#define TIR_PLAN_MEMORY_H

#include "tir/diag.h"
#include "tir/ir.h"
#include "tir/memplan.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef enum tir_memplan_target {
  TIR_MEMPLAN_AUTO, /* CUDA when the function launches threads, else C */
  TIR_MEMPLAN_C,    /* workspace aligned to 64 */
  TIR_MEMPLAN_CUDA, /* workspace aligned to 256, shared memory to 16 */
} tir_memplan_target;

typedef struct tir_memplan_opts {
  tir_memplan_target target;
  int64_t node_budget; /* the packer's (0: its default) */
  bool no_reuse;       /* every temporary its own bytes (the plan without reuse) */
  const char *workspace; /* how generated C holds the workspace: "malloc" (NULL), "param" or "static";
                          * recorded as the backing's "tir.workspace" annotation */
} tir_memplan_opts;

typedef enum tir_memplan_kind {
  TIR_MEMPLAN_PARAM,     /* a parameter: reported, not planned */
  TIR_MEMPLAN_WORKSPACE, /* the function's global temporaries */
  TIR_MEMPLAN_SHARED,    /* one kernel's shared memory */
  TIR_MEMPLAN_LOCAL,     /* a temporary left to the compiler (thread-local, or not plannable) */
} tir_memplan_kind;

typedef struct tir_memplan_value {
  const char *name;
  tir_dtype dtype;
  int64_t *shape; /* ndim entries (-1: symbolic) */
  int ndim;
  int64_t bytes, offset;
  int64_t first, end; /* live over steps [first, end); -1 when never touched */
  const char *shares; /* the value it took the bytes of in place, or NULL */
} tir_memplan_value;

typedef struct tir_memplan_alloc {
  tir_memplan_kind kind;
  int param;           /* PARAM: its index */
  bool live_out;       /* PARAM: written by the function */
  const char *kernel;  /* SHARED: the kernel (its first launch's var), else NULL */
  const char *why;     /* LOCAL: why it is not planned */
  int64_t size;        /* -1: symbolic */
  int nvalues;
  tir_memplan_value *values;
  /* WORKSPACE / SHARED: the packer's figures */
  int64_t lower_bound, no_reuse_bytes;
  bool proven_optimal;
  const char *winner;
} tir_memplan_alloc;

typedef struct tir_memplan_report {
  const char *func;
  int64_t steps; /* leaf statements */
  int nallocs;
  tir_memplan_alloc *allocs;
} tir_memplan_report;

/* Plans f (lowered IR).  Returns the planned function (f itself when there
 * is nothing to plan), or NULL with errors in d.  r, when not NULL, gets the
 * plan (free with tir_memplan_report_free). */
tir_func *tir_plan_memory(tir_ctx *c, const tir_func *f, const tir_memplan_opts *o, tir_memplan_report *r,
                          tir_diag *d);
/* the pass of the registry (PlanMemory, plan_memory): the target from f */
tir_func *tir_pass_plan_memory(tir_ctx *c, const tir_func *f, tir_diag *d);
void tir_memplan_report_free(tir_memplan_report *r);
/* the plan in XLA's BufferAssignment grammar, then the live ranges and the
 * peak, then one stats line per planned pool (malloc'd) */
char *tir_memplan_report_text(const tir_memplan_report *r);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
