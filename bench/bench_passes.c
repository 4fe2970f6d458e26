/* bench_passes.c - time tirc's reader, a pass pipeline and the printer,
 * in process, on one file.
 *
 *   build/bench/bench_passes [FILE [PIPELINE [ITERS]]]
 *   defaults: examples/relu.tir  compact,lower_match  200
 *
 * Prints the median wall time in microseconds of parse, passes and print,
 * one line each, as `bench_passes: PHASE FILE median_us=N`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tir/tir.h"

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return v[n / 2];
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
  fclose(f);
  if (buf) { buf[n] = 0; *len = (size_t)n; }
  return buf;
}

int main(int argc, char **argv) {
  const char *file = argc > 1 ? argv[1] : "examples/relu.tir";
  const char *spec = argc > 2 ? argv[2] : "compact,lower_match";
  int iters = argc > 3 ? atoi(argv[3]) : 200;
  if (iters < 1) iters = 1;
  size_t len;
  char *src = slurp(file, &len);
  if (!src) {
    fprintf(stderr, "bench_passes: cannot read %s\n", file);
    return 1;
  }
  double *tp = malloc(sizeof(double) * (size_t)iters * 3), *tr = tp + iters, *tw = tr + iters;
  int rc = 0;
  for (int i = 0; i < iters && rc == 0; i++) {
    tir_ctx *c = tir_ctx_new();
    tir_diag d;
    tir_diag_init(&d);
    double t0 = now_us();
    tir_module *m = tir_parse(c, src, len, &d);
    double t1 = now_us();
    tir_pipeline *p = tir_pipeline_parse(spec, &d);
    tir_pipeline_opts o = {.verify_each = false};
    tir_module *r = (m && p) ? tir_pipeline_run(p, c, m, &o, &d) : NULL;
    double t2 = now_us();
    char *text = r ? tir_print_module(r, NULL) : NULL;
    double t3 = now_us();
    if (!text) {
      char *msg = tir_diag_format(&d, file, src, len);
      fprintf(stderr, "%s", msg);
      free(msg);
      rc = 1;
    }
    tp[i] = t1 - t0;
    tr[i] = t2 - t1;
    tw[i] = t3 - t2;
    free(text);
    tir_pipeline_free(p);
    tir_diag_free(&d);
    tir_ctx_free(c);
  }
  if (rc == 0) {
    printf("bench_passes: parse  %s median_us=%.1f\n", file, median(tp, iters));
    printf("bench_passes: passes %s median_us=%.1f (%s)\n", file, median(tr, iters), spec);
    printf("bench_passes: print  %s median_us=%.1f\n", file, median(tw, iters));
  }
  free(tp);
  free(src);
  return rc;
}
