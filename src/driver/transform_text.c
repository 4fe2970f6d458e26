/* transform_text.c - tir_transform_text: read, run a pipeline, print. */
#include <stdlib.h>
#include <string.h>

#include "tir/tir.h"

void tir_free(void *p) { free(p); }

typedef struct transform_job {
  const char *src, *passes, *emit, *symbol;
  size_t len;
  tir_diag *d;
  char *text;
} transform_job;

static char *transform(const char *src, size_t len, const char *passes, const char *emit, const char *symbol,
                       tir_diag *d) {
  if (!emit) emit = "tir";
  static const char *const emits[] = {"tir", "c", "h", "cuda", "metadata", "metadata-cuda", "metadata-text", NULL};
  bool known = false;
  for (int i = 0; emits[i]; i++) known |= !strcmp(emits[i], emit);
  if (!known) {
    const char *near = tir_suggest(emit, emits, -1);
    if (near) tir_error(d, ((tir_span){0, 0}), "unknown emit kind '%s'; did you mean '%s'?", emit, near);
    else tir_error(d, ((tir_span){0, 0}), "unknown emit kind '%s'", emit);
    return NULL;
  }
  if (!passes && strcmp(emit, "tir")) passes = "default";
  tir_pipeline *pl = NULL;
  if (passes && *passes && !(pl = tir_pipeline_parse(passes, d))) return NULL;
  tir_ctx *ctx = tir_ctx_new();
  char *text = NULL;
  tir_module *m = tir_parse(ctx, src, len, d);
  if (m && pl) m = tir_pipeline_run_reclaim(pl, ctx, m, NULL, d); /* the input is not needed after */
  if (m && symbol) {
    if (m->nfuncs != 1) {
      tir_error(d, ((tir_span){0, 0}), "a symbol names one function, and the module has %d", m->nfuncs);
      m = NULL;
    } else {
      tir_module *r = tir_module_new_like(ctx, m);
      tir_module_add(ctx, r, tir_func_with_symbol(ctx, m->funcs[0], symbol));
      m = r;
    }
  }
  if (m) {
    if (!strcmp(emit, "c")) text = tir_codegen_c(m, d);
    else if (!strcmp(emit, "h")) text = tir_codegen_h(m, d);
    else if (!strcmp(emit, "cuda")) text = tir_codegen_cuda(m, d);
    else if (!strncmp(emit, "metadata", 8)) {
      tir_aot_module *a = tir_aot_build(m, strcmp(emit, "metadata-cuda") ? TIR_AOT_TARGET_C : TIR_AOT_TARGET_CUDA, src,
                                        len, d);
      if (a) text = strcmp(emit, "metadata-text") ? tir_aot_to_json(a) : tir_aot_to_text(a);
      tir_aot_free(a);
    } else {
      text = tir_print_module(m, NULL);
    }
  }
  tir_pipeline_free(pl);
  tir_ctx_free(ctx);
  if (text && tir_diag_has_errors(d)) {
    free(text);
    text = NULL;
  }
  return text;
}

static void transform_on_stack(void *p) {
  transform_job *j = p;
  j->text = transform(j->src, j->len, j->passes, j->emit, j->symbol, j->d);
}

/* on a deep stack (tir_run_with_stack): the caller's may be small */
char *tir_transform_text(const char *src, size_t len, const char *passes, const char *emit, const char *symbol,
                         tir_diag *d) {
  transform_job j = {.src = src, .passes = passes, .emit = emit, .symbol = symbol, .len = len, .d = d};
  tir_run_with_stack(transform_on_stack, &j, 0, NULL);
  return j.text;
}
