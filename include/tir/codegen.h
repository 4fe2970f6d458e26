/* tir/codegen.h - printing lowered IR as C or CUDA source. */
#ifndef TIR_CODEGEN_H
#define TIR_CODEGEN_H

#include "tir/diag.h"
#include "tir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: exported from libtir.so, which hides everything else (a new
 * public header puts its declarations between the same two pragmas: docs/embedding.md) */
#pragma GCC visibility push(default)

/* One self-contained C11 translation unit for a lowered module: a function
 * `int32_t SYMBOL(T0 *restrict p0, ...)` per PrimFunc.  malloc'd text, or
 * NULL with errors in d (e.g. IR that is not lowered). */
char *tir_codegen_c(const tir_module *m, tir_diag *d);
/* The C header that declares what tir_codegen_c defines (each function and
 * its SYMBOL_packed entry point), from the same walk. */
char *tir_codegen_h(const tir_module *m, tir_diag *d);
/* CUDA: a __global__ kernel per launch and an extern "C" host launcher. */
char *tir_codegen_cuda(const tir_module *m, tir_diag *d);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
