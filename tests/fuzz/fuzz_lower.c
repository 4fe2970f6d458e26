/* fuzz_lower.c - libFuzzer harness for the whole lowering path: reader, the
 * `default` pipeline (every pass, verifier after each, the live IR moved to a
 * fresh ctx after each: TIR_RECLAIM=always), the printer and both
 * code generators.  Build and run (see tests/fuzz/README.md):
 *   clang -fsanitize=fuzzer,address,undefined -Iinclude tests/fuzz/fuzz_lower.c \
 *         /tmp/fuzzbuild/lib/libtir.a $(pkg-config --libs tree-sitter isl) -lm -o fuzz_lower
 *   ./fuzz_lower -dict=tests/fuzz/tvmscript.dict CORPUS_DIR
 * Any input must give output or diagnostics, never a crash, a hang or a leak. */
#include <stdint.h>
#include <stdlib.h>

#include "tir/tir.h"

static void print_and_free(char *s) { free(s); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  setenv("TIR_RECLAIM", "always", 1); /* the pipeline moves the live IR after every pass */
  return 0;
}

static void lower_and_emit(tir_ctx *ctx, tir_module *m, tir_diag *d) {
  print_and_free(tir_print_module(m, NULL));
  tir_pipeline *p = tir_pipeline_parse("default", d);
  if (!p) return;
  tir_pipeline_opts o = {.verify_each = true};
  tir_module *r = tir_pipeline_run_reclaim(p, ctx, m, &o, d);
  tir_pipeline_free(p);
  if (!r) return;
  tir_print_opts po = {.dialect = TIR_DIALECT_TIR};
  print_and_free(tir_print_module(r, &po));
  print_and_free(tir_codegen_c(r, d));
  print_and_free(tir_codegen_cuda(r, d));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tir_ctx *ctx = tir_ctx_new();
  tir_diag d;
  tir_diag_init(&d);
  tir_module *m = tir_parse(ctx, (const char *)data, size, &d);
  if (m) lower_and_emit(ctx, m, &d);
  print_and_free(tir_diag_format(&d, "fuzz", (const char *)data, size));
  tir_diag_free(&d);
  tir_ctx_free(ctx);
  return 0;
}
