/* fuzz_parse.c - libFuzzer harness for the reader and the seed passes:
 *   clang -fsanitize=fuzzer,address,undefined -Iinclude tests/fuzz/fuzz_parse.c \
 *         build/lib/libtir.a $(pkg-config --libs tree-sitter isl) -lm -o fuzz_parse
 *   ./fuzz_parse tests/passes/roundtrip
 * Any input must give a module or diagnostics, never a crash or a leak. */
#include <stdint.h>
#include <stdlib.h>

#include "tir/tir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tir_ctx *ctx = tir_ctx_new();
  tir_diag d;
  tir_diag_init(&d);
  tir_module *m = tir_parse(ctx, (const char *)data, size, &d);
  if (m) {
    tir_pipeline *p = tir_pipeline_parse("compact,lower_match", &d);
    tir_pipeline_opts o = {.verify_each = true};
    tir_module *r = p ? tir_pipeline_run(p, ctx, m, &o, &d) : NULL;
    if (r) {
      char *s = tir_print_module(r, NULL);
      free(s);
    }
    tir_pipeline_free(p);
  }
  char *msg = tir_diag_format(&d, "fuzz", (const char *)data, size);
  free(msg);
  tir_diag_free(&d);
  tir_ctx_free(ctx);
  return 0;
}
