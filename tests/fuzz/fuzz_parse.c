/* fuzz_parse.c - libFuzzer harness for the reader, the printer, structural
 * equality and the seed passes.  Build and run (see tests/fuzz/README.md):
 *   clang -fsanitize=fuzzer,address,undefined -Iinclude tests/fuzz/fuzz_parse.c \
 *         /tmp/fuzzbuild/lib/libtir.a $(pkg-config --libs tree-sitter isl) -lm -o fuzz_parse
 *   ./fuzz_parse -dict=tests/fuzz/tvmscript.dict CORPUS_DIR tests/passes examples
 * Any input must give a module or diagnostics, never a crash or a leak; and
 * printing must round-trip (see round_trip; else the harness aborts: the
 * printer or the reader gives a wrong answer), and the chunked read must
 * read the same (see chunked). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tir/tir.h"

static void fail(const char *what, const char *text, tir_diag *d) {
  char *msg = tir_diag_format(d, "printed", text, strlen(text));
  fprintf(stderr, "fuzz_parse: %s\n--- printed:\n%s\n--- diagnostics:\n%s\n", what, text, msg ? msg : "");
  free(msg);
  abort();
}

/* print and read back, in ctx: the module, or abort */
static tir_module *reprint(tir_ctx *ctx, const tir_module *m, char **text) {
  *text = tir_print_module(m, NULL);
  if (!*text) abort();
  tir_diag d;
  tir_diag_init(&d);
  tir_module *back = tir_parse(ctx, *text, strlen(*text), &d);
  if (!back) fail("the printed module does not read back", *text, &d);
  if (back->nfuncs != m->nfuncs) fail("the printed module reads back with another function count", *text, &d);
  tir_diag_free(&d);
  return back;
}

/* The printing is a fixpoint after one round (the first may drop what the
 * printer leaves implicit, e.g. a global_symbol equal to the name): m1 =
 * read(print(m)) and m2 = read(print(m1)) must be structurally equal and
 * print the same. */
static void round_trip(const tir_module *m) {
  tir_ctx *ctx = tir_ctx_new();
  char *t0, *t1, *t2;
  tir_module *m1 = reprint(ctx, m, &t0);
  tir_module *m2 = reprint(ctx, m1, &t1);
  t2 = tir_print_module(m2, NULL);
  tir_diag none;
  tir_diag_init(&none);
  for (int i = 0; i < m1->nfuncs; i++)
    if (!tir_struct_equal_func(m1->funcs[i], m2->funcs[i])) fail("a reprinted module reads back different", t1, &none);
  if (strcmp(t1, t2)) fail("a reprinted module prints different", t2, &none);
  tir_diag_free(&none);
  free(t0);
  free(t1);
  free(t2);
  tir_ctx_free(ctx);
}

/* The reader's chunked parse (TIR_READ_CHUNK_BYTES=1: a chunk ends after
 * every compound statement of a function body) must read what the whole
 * parse reads: the same module, or an error too. */
static void chunked(const uint8_t *data, size_t size, const tir_module *whole) {
  tir_ctx *ctx = tir_ctx_new();
  tir_diag d;
  tir_diag_init(&d);
  setenv("TIR_READ_CHUNK_BYTES", "1", 1);
  tir_module *m = tir_parse(ctx, (const char *)data, size, &d);
  unsetenv("TIR_READ_CHUNK_BYTES");
  if (!m != !whole) {
    fprintf(stderr, "fuzz_parse: the chunked read %s where the whole read %s\n", m ? "succeeds" : "fails",
            whole ? "succeeds" : "fails");
    abort();
  }
  if (m) {
    char *a = tir_print_module(whole, NULL), *b = tir_print_module(m, NULL);
    if (!a || !b || strcmp(a, b)) {
      fprintf(stderr, "fuzz_parse: the chunked read differs:\n--- whole:\n%s\n--- chunked:\n%s\n", a, b);
      abort();
    }
    free(a);
    free(b);
  }
  free(tir_diag_format(&d, "fuzz", (const char *)data, size));
  tir_diag_free(&d);
  tir_ctx_free(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tir_ctx *ctx = tir_ctx_new();
  tir_diag d;
  tir_diag_init(&d);
  tir_module *m = tir_parse(ctx, (const char *)data, size, &d);
  chunked(data, size, m);
  if (m) {
    round_trip(m);
    tir_pipeline *p = tir_pipeline_parse("compact,lower_match", &d);
    tir_pipeline_opts o = {.verify_each = true};
    tir_module *r = p ? tir_pipeline_run(p, ctx, m, &o, &d) : NULL;
    if (r) free(tir_print_module(r, NULL));
    tir_pipeline_free(p);
  }
  free(tir_diag_format(&d, "fuzz", (const char *)data, size));
  tir_diag_free(&d);
  tir_ctx_free(ctx);
  return 0;
}
