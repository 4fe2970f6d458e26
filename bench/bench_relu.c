/* bench_relu.c - the generated C of examples/relu.tir against memcpy of the
 * same bytes.  Runs the library end to end: parses the example, lowers it
 * with the "default" pipeline, prints C (tir_codegen_c) into
 * build/bench/relu_gen.c, compiles that with `cc -O2 -shared`, loads it, and
 * times relu() against memcpy over the same 256 MiB; prints the ratio.
 * Run from the repository root (make bench). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tir/tir.h"

typedef int32_t (*relu_fn)(int8_t *, int8_t *);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s) s[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return s;
}

/* examples/relu.tir -> C text (malloc'd), or NULL */
static char *generate(void) {
  size_t len;
  char *src = read_file("examples/relu.tir", &len);
  if (!src) return NULL;
  tir_ctx *c = tir_ctx_new();
  tir_diag d;
  tir_diag_init(&d);
  char *out = NULL;
  tir_module *m = tir_parse(c, src, len, &d);
  tir_pipeline *p = m ? tir_pipeline_parse("default", &d) : NULL;
  tir_module *low = p ? tir_pipeline_run(p, c, m, NULL, &d) : NULL;
  if (low) out = tir_codegen_c(low, &d);
  if (!out) {
    char *msg = tir_diag_format(&d, "examples/relu.tir", src, len);
    fprintf(stderr, "%s", msg ? msg : "");
    free(msg);
  }
  if (p) tir_pipeline_free(p);
  tir_diag_free(&d);
  tir_ctx_free(c);
  free(src);
  return out;
}

static double best_of(int reps, relu_fn f, int8_t *a, int8_t *b, size_t n) {
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    if (f) f(a, b);
    else memcpy(b, a, n);
    double t = now() - t0;
    if (t < best) best = t;
  }
  return best;
}

int main(void) {
  char *code = generate();
  if (!code) return 1;
  FILE *f = fopen("build/bench/relu_gen.c", "w");
  if (!f) {
    fprintf(stderr, "cannot write build/bench/relu_gen.c (run from the repository root)\n");
    free(code);
    return 1;
  }
  fputs(code, f);
  fclose(f);
  free(code);
  if (system("cc -std=c11 -O2 -march=native -fPIC -shared build/bench/relu_gen.c -o build/bench/relu_gen.so -lm") != 0) {
    fprintf(stderr, "compiling build/bench/relu_gen.c failed\n");
    return 1;
  }
  void *h = dlopen("./build/bench/relu_gen.so", RTLD_NOW);
  relu_fn relu = h ? (relu_fn)(uintptr_t)dlsym(h, "relu") : NULL;
  if (!relu) {
    fprintf(stderr, "cannot load relu from build/bench/relu_gen.so\n");
    return 1;
  }
  size_t n = (size_t)256 * 256 * 64 * 64;
  int8_t *a = malloc(n), *b = malloc(n);
  if (!a || !b) return 1;
  for (size_t i = 0; i < n; i++) a[i] = (int8_t)(i * 2654435761u >> 24);
  memset(b, 0, n);
  double t_relu = best_of(3, relu, a, b, n), t_copy = best_of(3, NULL, a, b, n);
  printf("bytes: %zu read + %zu written\n", n, n);
  printf("relu (generated C): %.1f ms, %.2f GB/s\n", t_relu * 1e3, 2.0 * (double)n / t_relu * 1e-9);
  printf("memcpy, same bytes: %.1f ms, %.2f GB/s\n", t_copy * 1e3, 2.0 * (double)n / t_copy * 1e-9);
  printf("relu / memcpy time ratio: %.2f\n", t_relu / t_copy);
  free(a);
  free(b);
  dlclose(h);
  return 0;
}
