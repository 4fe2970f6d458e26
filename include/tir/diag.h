/* tir/diag.h - diagnostics: the library never prints or exits on bad input;
 * it appends diagnostics here and returns NULL or an error code. */
#ifndef TIR_DIAG_H
#define TIR_DIAG_H

#include <stdarg.h>
#include "tir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: exported from libtir.so, which hides everything else (a new
 * public header puts its declarations between the same two pragmas: docs/embedding.md) */
#pragma GCC visibility push(default)

typedef enum { TIR_SEV_ERROR, TIR_SEV_WARNING, TIR_SEV_NOTE } tir_severity;

typedef struct tir_diag_entry {
  tir_severity sev;
  tir_span span;
  char *msg; /* owned by the list */
} tir_diag_entry;

typedef struct tir_diag {
  tir_diag_entry *items;
  int n, cap;
  int nerrors;
} tir_diag;

/* a list lives wherever the caller puts it; init zeroes it, free releases its memory */
void tir_diag_init(tir_diag *d);
void tir_diag_free(tir_diag *d);
void tir_diag_clear(tir_diag *d);
void tir_diag_add(tir_diag *d, tir_severity sev, tir_span sp, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void tir_diag_vadd(tir_diag *d, tir_severity sev, tir_span sp, const char *fmt, va_list ap);
#define tir_error(d, sp, ...) tir_diag_add((d), TIR_SEV_ERROR, (sp), __VA_ARGS__)
#define tir_warning(d, sp, ...) tir_diag_add((d), TIR_SEV_WARNING, (sp), __VA_ARGS__)
bool tir_diag_has_errors(const tir_diag *d);

/* Render every entry as "file:line:col: error: msg", then the source line and a
 * caret under the column (when src is given and the line exists).  Returns a
 * malloc'd string the caller frees. */
char *tir_diag_format(const tir_diag *d, const char *filename, const char *src, size_t src_len);

/* the same, with options: colour (ANSI escapes, as a terminal shows them)
 * and a limit on the errors shown (0: none), the rest counted in a note */
typedef struct tir_diag_format_opts {
  bool color;
  int error_limit;
} tir_diag_format_opts;
char *tir_diag_format_ex(const tir_diag *d, const char *filename, const char *src, size_t src_len,
                         const tir_diag_format_opts *o);

/* the candidate nearest to word by edit distance, when it is near enough
 * to be a likely misspelling (for "did you mean"), else NULL; n < 0: cands
 * ends with NULL */
const char *tir_suggest(const char *word, const char *const *cands, int n);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
