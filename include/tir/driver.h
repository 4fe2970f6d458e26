/* tir/driver.h - text in, text out: the whole of tirc in one call, for
 * bindings (the Python package calls it through ctypes) and for embedders
 * who want tirc's behaviour without building IR themselves. */
#ifndef TIR_DRIVER_H
#define TIR_DRIVER_H

#include <stddef.h>

#include "tir/diag.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: exported from libtir.so, which hides everything else (a new
 * public header puts its declarations between the same two pragmas: docs/embedding.md) */
#pragma GCC visibility push(default)

/* Reads the TVMScript src (len bytes), runs the passes (a pipeline string
 * as tirc's --passes; NULL: none when emitting "tir", else "default"), and
 * prints the result as emit: "tir", "c", "h", "cuda", "metadata" (JSON of
 * the C), "metadata-cuda" or "metadata-text".  symbol, when not NULL,
 * renames the function of a one-function module (tirc's --symbol).
 * Returns malloc'd text (free it with tir_free), or NULL with errors in d
 * (warnings may be there either way). */
char *tir_transform_text(const char *src, size_t len, const char *passes, const char *emit, const char *symbol,
                         tir_diag *d);
/* Runs fn(arg) on a thread of its own with a stack of `bytes` (0: 1 GiB, or
 * TIR_STACK_MB mebibytes from the environment), address space reserved
 * and only the pages touched used, and returns when it ends.  The passes
 * recurse once per level of the IR's nesting, and some nest a level per
 * parameter or allocation (a 64,000-parameter function is 64,000 deep after
 * FlattenBuffer), more than a usual 8 MiB stack holds; tir_transform_text
 * and tirc run on such a thread.  With overflow_msg not NULL, running out
 * of the stack writes overflow_msg to stderr and exits with status 1 (a
 * SIGSEGV handler on an alternate stack while fn runs; other faults go to
 * the handler before it).  Returns 0, or -1 when no thread could be made
 * and fn ran on the caller's stack. */
int tir_run_with_stack(void (*fn)(void *), void *arg, size_t bytes, const char *overflow_msg);

/* frees what tir_transform_text (or any tir_ call returning malloc'd text) returned */
void tir_free(void *p);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
