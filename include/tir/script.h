/* tir/script.h - reading and printing TVMScript. */
#ifndef TIR_SCRIPT_H
#define TIR_SCRIPT_H

#include "tir/diag.h"
#include "tir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: exported from libtir.so, which hides everything else (a new
 * public header puts its declarations between the same two pragmas: docs/embedding.md) */
#pragma GCC visibility push(default)

/* Parse TVMScript source (len bytes; may contain NULs, which are an error).
 * Accepts `from tvm.script import tir as T` (old: T.block, block-level
 * T.alloc_buffer) and `... import tirx as T` (T.sblock, T.sblock_alloc_buffer,
 * statement-level T.alloc_buffer).  A bare @T.prim_func gives a module
 * with one function and name NULL; @I.ir_module class gives several.
 * Returns NULL with errors in d on bad input.  Nodes live in c. */
tir_module *tir_parse(tir_ctx *c, const char *src, size_t len, tir_diag *d);

typedef struct tir_parse_opts {
  /* a buffer load or store proved out of bounds each time it runs is an
   * error, not a warning (for a caller that generates code from it:
   * tir_check_bounds_ex); so is a negative constant extent (TVM's own
   * overflowed print), which the passes' input check refuses too */
  bool oob_access_errors;
} tir_parse_opts;
tir_module *tir_parse_ex(tir_ctx *c, const char *src, size_t len, const tir_parse_opts *o, tir_diag *d);

typedef enum {
  TIR_DIALECT_TIRX, /* default: what apache-tvm 0.27 reads: tirx, T.sblock, @T.prim_func(s_tir=True) */
  TIR_DIALECT_TIR,  /* the old spelling: tir, T.block */
} tir_dialect;

typedef struct tir_print_opts {
  tir_dialect dialect;
  bool no_import; /* omit the import line */
  /* print a function as its text was written where tirc filled something
   * in that TVM fills in again as it reads: a block's reads and writes the
   * reader inferred, and s_tir=True of a tirx function that holds blocks
   * but did not say it (TVM reads such a function otherwise); for a module
   * no pass has changed (tirc without --passes) */
  bool as_written;
} tir_print_opts;

/* malloc'd text; the caller frees */
char *tir_print_module(const tir_module *m, const tir_print_opts *o);
char *tir_print_func(const tir_func *f, const tir_print_opts *o);
char *tir_print_expr(const tir_expr *e);
char *tir_print_stmt(const tir_stmt *s);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
