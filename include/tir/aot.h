/* tir/aot.h - AOT kernel metadata: what a runtime needs to load and launch
 * the code that tir_codegen_c / tir_codegen_cuda print, without reading the
 * generated source.
 *
 * The description is filled by the same walk that prints the code (the
 * code generators record each argument, its packed-block slot, the
 * buffers' access and each kernel's launch as they print them), so it
 * describes exactly that code.  Printed as JSON (jansson; fixed key order,
 * no timestamps: the same input gives the same bytes) or as an indented
 * text dump.  The schema is in docs/aot-metadata.md. */
#ifndef TIR_AOT_H
#define TIR_AOT_H

#include <stddef.h>
#include <stdint.h>

#include "tir/diag.h"
#include "tir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: exported from libtir.so, which hides everything else (a new
 * public header puts its declarations between the same two pragmas: docs/embedding.md) */
#pragma GCC visibility push(default)

#define TIR_AOT_FORMAT "tirc-aot"
#define TIR_AOT_VERSION_MAJOR 1 /* bumped when a key changes meaning or goes */
#define TIR_AOT_VERSION_MINOR 0 /* bumped when keys are added */

typedef enum tir_aot_target { TIR_AOT_TARGET_C, TIR_AOT_TARGET_CUDA } tir_aot_target;

/* a size: a constant, or (symbolic) an expression over the function's size
 * vars in TVMScript syntax; expr is NULL when the value is constant */
typedef struct tir_aot_size {
  int64_t value;
  char *expr;
} tir_aot_size;

enum { TIR_AOT_READ = 1, TIR_AOT_WRITE = 2 };

typedef struct tir_aot_arg {
  int index;          /* in the C function's parameter order */
  char *name;         /* the C parameter's name */
  bool is_buffer;     /* a pointer to the buffer's first element, else a scalar by value */
  tir_dtype dtype;    /* element type (buffer) or value type (scalar) */
  int ndim;
  tir_aot_size *shape, *strides; /* buffers: ndim each (strides in elements) */
  tir_aot_size bytes;            /* buffers: bytes spanned; scalars: sizeof */
  int access;                    /* TIR_AOT_READ | TIR_AOT_WRITE (buffers) */
  size_t offset, size, align;    /* its slot in the packed argument block */
  /* a scalar that is a size var of a buffer parameter (not itself a
   * parameter): the first buffer argument, field and dim it is bound from */
  int bound_arg, bound_dim;      /* -1 when not bound */
  const char *bound_field;       /* "shape", "strides" or "elem_offset" */
} tir_aot_arg;

/* a temporary kept in the caller's workspace, at offset.  The code
 * generators keep temporaries in static or automatic arrays today, so the
 * workspace is empty (bytes 0); memory planning (issue 13) fills this. */
typedef struct tir_aot_temp {
  char *name;
  char *scope;       /* "global", "shared" ... */
  char *storage;     /* "workspace" */
  tir_aot_size bytes;
  int64_t offset;
} tir_aot_temp;

typedef struct tir_aot_kparam {
  char *name;
  bool is_pointer;
  tir_dtype dtype;   /* element type (pointer) or value type */
  size_t size;       /* bytes the parameter takes in the kernel's parameter space */
} tir_aot_kparam;

typedef struct tir_aot_kernel {
  char *name;                        /* extern "C": unmangled */
  tir_aot_size grid[3], block[3];
  tir_aot_size threads_per_block, total_threads;
  int64_t shared_bytes, dynamic_shared_bytes;
  int nparams;
  tir_aot_kparam *params;
  int nreads, nwrites;
  char **reads, **writes;            /* buffer names (the kernel's parameter names) */
} tir_aot_kernel;

typedef struct tir_aot_func {
  char *name, *symbol, *packed_symbol;
  int nargs;
  tir_aot_arg *args;
  size_t args_bytes, args_align;     /* the packed block */
  int64_t workspace_bytes;           /* what the caller passes as `workspace` */
  size_t workspace_align;
  int ntemps;
  tir_aot_temp *temps;
  int nkernels;
  tir_aot_kernel *kernels;           /* CUDA */
} tir_aot_func;

typedef struct tir_aot_module {
  tir_aot_target target;
  char input_sha256[65];             /* hex; empty when no input bytes were given */
  int nfuncs;
  tir_aot_func *funcs;
} tir_aot_module;

/* Builds the description of the code that tir_codegen_c (target C) or
 * tir_codegen_cuda (CUDA) prints for the lowered module m.  input/len: the
 * input file's bytes, for input_sha256 (may be NULL).  Caller owns the
 * result (tir_aot_free); NULL with errors in d where the codegen fails. */
tir_aot_module *tir_aot_build(const tir_module *m, tir_aot_target target, const void *input, size_t len,
                              tir_diag *d);
/* Both: malloc'd text, caller frees. */
char *tir_aot_to_json(const tir_aot_module *a);
char *tir_aot_to_text(const tir_aot_module *a);
void tir_aot_free(tir_aot_module *a);

/* The code generators with their description: the code as tir_codegen_c /
 * tir_codegen_cuda print it, and, when meta is not NULL, *meta set to the
 * description of exactly that code (caller frees both). */
char *tir_codegen_c_aot(const tir_module *m, tir_aot_module **meta, tir_diag *d);
char *tir_codegen_cuda_aot(const tir_module *m, tir_aot_module **meta, tir_diag *d);

/* SHA-256 of len bytes as 64 hex digits and a NUL. */
void tir_sha256_hex(const void *data, size_t len, char out[65]);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
