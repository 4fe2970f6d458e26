/* bench_tsparse.c - tree-sitter's own parse of a TVMScript file, with the
 * grammar objects tirc uses and no IR built: the floor under tirc's read
 * (README, issue 12's small sizes).  Best of REPS parses, each with a fresh
 * parser, as tirc's process makes one.
 *
 *   build/bench/bench_tsparse [FILE...] (default: examples/relu.tir examples/chain.tir) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_python(void);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int bench(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(b);
    return 1;
  }
  fclose(f);
  int reps = n < 100000 ? 50 : 10;
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    TSParser *p = ts_parser_new();
    ts_parser_set_language(p, tree_sitter_python());
    TSTree *t = ts_parser_parse_string(p, NULL, b, (uint32_t)n);
    double t1 = now();
    ts_tree_delete(t);
    ts_parser_delete(p);
    if (t1 - t0 < best) best = t1 - t0;
  }
  printf("%s: %ld bytes, tree-sitter alone %.3f ms (best of %d), %.2f MB/s\n", path, n, best * 1e3, reps,
         (double)n / best / 1e6);
  free(b);
  return 0;
}

int main(int argc, char **argv) {
  static char *dflt[] = {"examples/relu.tir", "examples/chain.tir"};
  char **files = argc > 1 ? argv + 1 : dflt;
  int n = argc > 1 ? argc - 1 : 2, rc = 0;
  for (int i = 0; i < n; i++) rc |= bench(files[i]);
  return rc;
}
