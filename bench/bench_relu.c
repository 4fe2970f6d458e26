/* bench_relu.c - generated C against memcpy of the same bytes, for two
 * relus (issue 12):
 *  - bench/relu_f32.tir: TVM's te.create_prim_func(topi.nn.relu) of a
 *    (64, 1024, 1024) float32 tensor (64 Mi elements, 256 MiB each way),
 *    as mod.script() prints it; the target is at least 0.8x memcpy's
 *    bandwidth;
 *  - examples/relu.tir: the seed's int8 relu, tiled for a GPU and staged
 *    through shared memory (a CUDA kernel first), run as plain loops.
 * Runs the library end to end: parses the TIR, lowers it with the
 * "default" pipeline, prints C (tir_codegen_c) into build/bench/NAME_gen.c,
 * compiles that with `cc -O3 -march=native -shared`, loads it, and times
 * it against memcpy over the same bytes (median of 5 each, alternating).
 * Run from the repository root (make bench). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tir/tir.h"

typedef int32_t (*relu_fn)(void *, void *);

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

/* a TIR file -> C text (malloc'd), or NULL */
static char *generate(const char *path, const char *symbol) {
  size_t len;
  char *src = read_file(path, &len);
  if (!src) return NULL;
  tir_ctx *c = tir_ctx_new();
  tir_diag d;
  tir_diag_init(&d);
  char *out = NULL;
  tir_module *m = tir_parse(c, src, len, &d);
  if (m && m->nfuncs == 1) m->funcs[0] = tir_func_with_symbol(c, m->funcs[0], symbol);
  tir_pipeline *p = m ? tir_pipeline_parse("default", &d) : NULL;
  tir_module *low = p ? tir_pipeline_run(p, c, m, NULL, &d) : NULL;
  if (low) out = tir_codegen_c(low, &d);
  if (!out) {
    char *msg = tir_diag_format(&d, path, src, len);
    fprintf(stderr, "%s", msg ? msg : "");
    free(msg);
  }
  if (p) tir_pipeline_free(p);
  tir_diag_free(&d);
  tir_ctx_free(c);
  free(src);
  return out;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* median of `reps` runs of f (and of memcpy over the same n bytes),
 * alternating so that both see the same machine */
static void time_both(int reps, relu_fn f, void *a, void *b, size_t n, double *t_f, double *t_copy) {
  double tf[16], tc[16];
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    if (f(a, b) != 0) fprintf(stderr, "the kernel returned nonzero\n");
    tf[r] = now() - t0;
    t0 = now();
    memcpy(b, a, n);
    tc[r] = now() - t0;
  }
  qsort(tf, (size_t)reps, sizeof *tf, cmp_double);
  qsort(tc, (size_t)reps, sizeof *tc, cmp_double);
  *t_f = tf[reps / 2];
  *t_copy = tc[reps / 2];
}

/* generate, build and load SYMBOL of a TIR file; NULL on failure */
static relu_fn build(const char *path, const char *symbol, void **handle) {
  char *code = generate(path, symbol);
  if (!code) return NULL;
  char c_path[256], so_path[256], cmd[1024];
  snprintf(c_path, sizeof c_path, "build/bench/%s_gen.c", symbol);
  snprintf(so_path, sizeof so_path, "./build/bench/%s_gen.so", symbol);
  FILE *f = fopen(c_path, "w");
  if (!f) {
    fprintf(stderr, "cannot write %s (run from the repository root)\n", c_path);
    free(code);
    return NULL;
  }
  fputs(code, f);
  fclose(f);
  free(code);
  snprintf(cmd, sizeof cmd, "cc -std=c11 -O3 -march=native -Wall -Wextra -Werror -fPIC -shared %s -o %s -lm", c_path,
           so_path);
  if (system(cmd) != 0) {
    fprintf(stderr, "compiling %s failed\n", c_path);
    return NULL;
  }
  *handle = dlopen(so_path, RTLD_NOW);
  relu_fn fn = *handle ? (relu_fn)(uintptr_t)dlsym(*handle, symbol) : NULL;
  if (!fn) fprintf(stderr, "cannot load %s from %s\n", symbol, so_path);
  return fn;
}

int main(void) {
  size_t n = (size_t)256 * 256 * 64 * 64; /* 256 MiB: 64 Mi float32, or 256 Mi int8 */
  void *h1 = NULL, *h2 = NULL;
  relu_fn f32 = build("bench/relu_f32.tir", "relu_f32", &h1);
  relu_fn seed = build("examples/relu.tir", "relu", &h2);
  if (!f32 || !seed) return 1;
  unsigned char *a = aligned_alloc(64, n), *b = aligned_alloc(64, n); /* the calling convention: 64-byte aligned */
  if (!a || !b) return 1;
  float *af = (float *)(void *)a;
  for (size_t i = 0; i < n / 4; i++) af[i] = (float)(int32_t)((uint32_t)(i * 2654435761u) >> 8) - 8388608.0f;
  memset(b, 0, n);
  double t_relu, t_copy;
  time_both(5, f32, a, b, n, &t_relu, &t_copy);
  memset(b, 0, n);
  if (f32(a, b) != 0) return 1; /* the timed runs end with memcpy's copy: check a run of its own */
  const float *bf = (const float *)(void *)b;
  for (size_t i = 0; i < n / 4; i++)
    if (bf[i] != (af[i] > 0 ? af[i] : 0)) {
      fprintf(stderr, "relu_f32: element %zu wrong\n", i);
      return 1;
    }
  printf("relu float32, 64 Mi elements (bench/relu_f32.tir, TVM's topi.nn.relu): %zu bytes read + %zu written\n", n, n);
  printf("  relu (generated C): %.1f ms, %.2f GB/s\n", t_relu * 1e3, 2.0 * (double)n / t_relu * 1e-9);
  printf("  memcpy, same bytes: %.1f ms, %.2f GB/s\n", t_copy * 1e3, 2.0 * (double)n / t_copy * 1e-9);
  printf("  relu bandwidth / memcpy bandwidth: %.2f (target 0.8)\n", t_copy / t_relu);
  for (size_t i = 0; i < n; i++) a[i] = (unsigned char)(i * 2654435761u >> 24);
  time_both(5, seed, a, b, n, &t_relu, &t_copy);
  printf("relu int8, the seed's GPU-tiled examples/relu.tir run as loops: %zu bytes read + %zu written\n", n, n);
  printf("  relu (generated C): %.1f ms, %.2f GB/s\n", t_relu * 1e3, 2.0 * (double)n / t_relu * 1e-9);
  printf("  memcpy, same bytes: %.1f ms, %.2f GB/s\n", t_copy * 1e3, 2.0 * (double)n / t_copy * 1e-9);
  printf("  relu bandwidth / memcpy bandwidth: %.2f\n", t_copy / t_relu);
  free(a);
  free(b);
  dlclose(h1);
  dlclose(h2);
  return 0;
}
