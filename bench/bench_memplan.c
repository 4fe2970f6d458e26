/* bench_memplan.c - the interval packer on the standard sets: MiniMalloc's
 * eleven "challenging" instances A-K (capacity 1,048,576), TVM USMP's
 * interval lists, seed 002's temporaries (../shared/data/memplan, or the
 * directory in $MEMPLAN_DATA), instances whose optimum is known by
 * construction, and 10,000 random intervals (the rules alone).  Prints a
 * table and checks the targets of issue 13; exits 1 if one is missed.
 * Run from the repository root (make bench-memplan). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../tests/unit/memplan_gen.h"
#include "tir/tir.h"

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

static int failures;

static void check(bool ok, const char *what) {
  if (!ok) {
    printf("MISSED: %s\n", what);
    failures++;
  }
}

static double pct(int64_t a, int64_t lb) { return lb ? 100.0 * (double)(a - lb) / (double)lb : 0; }

/* one instance of the data set: a table row; the arena, or -1 */
static int64_t row(const char *dir, const char *file, const char *label, double *secs, tir_plan_stats *out) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  size_t len;
  char *text = read_file(path, &len);
  if (!text) {
    printf("| %s | (no %s) |\n", label, path);
    failures++;
    return -1;
  }
  tir_diag d;
  tir_diag_init(&d);
  int n;
  char **ids;
  tir_interval *iv = tir_plan_read_csv(text, len, &n, &ids, &d);
  if (!iv) {
    printf("| %s | (unreadable) |\n", label);
    failures++;
    tir_diag_free(&d);
    free(text);
    return -1;
  }
  tir_plan_stats st;
  tir_plan_options o = {.names = (const char *const *)ids};
  double t0 = now();
  int rc = tir_plan_intervals(iv, n, &o, &st, &d);
  *secs = now() - t0;
  check(rc == 0, "a plan");
  int64_t xla = INT64_MAX, usmp = INT64_MAX;
  for (int r = 0; r < st.candidates; r++) {
    if (!strncmp(st.rule[r], "best-fit/size", 13) || !strncmp(st.rule[r], "best-fit/length", 15))
      xla = st.rule_arena[r] < xla ? st.rule_arena[r] : xla;
    if (!strncmp(st.rule[r], "usmp", 4)) usmp = st.rule_arena[r] < usmp ? st.rule_arena[r] : usmp;
  }
  printf("| %s | %d | %lld | %.1f %% | %.1f %% | %lld | %.2f %% | %s | %s | %lld | %.2f s |\n", label, n,
         (long long)st.lower_bound, pct(xla, st.lower_bound), pct(usmp, st.lower_bound), (long long)st.arena,
         st.gap_percent, st.proven_optimal ? "yes" : "no", st.winner, (long long)st.nodes, *secs);
  *out = st;
  for (int i = 0; i < n; i++) free(ids[i]);
  free(ids);
  free(iv);
  free(text);
  tir_diag_free(&d);
  return rc == 0 ? st.arena : -1;
}

int main(int argc, char **argv) {
  const char *dir = getenv("MEMPLAN_DATA");
  struct stat sb;
  static const char *const tries[] = {"../shared/data/memplan", "../../shared/data/memplan"};
  for (int i = 0; !dir && i < 2; i++)
    if (!stat(tries[i], &sb)) dir = tries[i];
  bool quick = argc > 1 && !strcmp(argv[1], "--quick");
  printf("## the packer (tir_plan_intervals, default budget of 2,000,000 nodes)\n\n");
  if (!dir) {
    printf("no data: set MEMPLAN_DATA to the memplan data directory\n");
    return 1;
  }
  printf("| instance | buffers | lower bound | XLA best-fit | USMP greedy | tirc arena | over LB | proven optimal | "
         "won by | search nodes | time |\n|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|\n");
  tir_plan_stats st;
  double secs;
  for (char c = 'A'; c <= 'K' && !quick; c++) {
    char file[64], label[64];
    snprintf(file, sizeof file, "%c.1048576.csv", c);
    snprintf(label, sizeof label, "MiniMalloc %c", c);
    int64_t a = row(dir, file, label, &secs, &st);
    char what[128];
    snprintf(what, sizeof what, "MiniMalloc %c fits 1,048,576 bytes in at most 10 s", c);
    check(a >= 0 && a <= 1048576 && secs <= 10, what);
  }
  int64_t a = row(dir, "usmp_deep_speech.csv", "USMP deep_speech", &secs, &st);
  check(a == 100352, "USMP deep_speech at 100,352 bytes");
  static const char *const usmp[] = {"usmp_simple.csv", "usmp_five.csv", "usmp_alloc_max.csv"};
  for (int i = 0; i < 3; i++) {
    a = row(dir, usmp[i], usmp[i], &secs, &st);
    check(a == st.lower_bound, "USMP lists at the lower bound");
  }
  a = row(dir, "seed002_temps.csv", "seed 002 temporaries", &secs, &st);
  check(a == st.lower_bound, "seed 002's temporaries at the lower bound");

  /* known optima: a 1 MiB x 200-step rectangle cut into n pieces (heights
   * multiples of 1 KiB) */
  printf("\n## instances with a known optimum (a capacity x time rectangle cut in pieces: OPT = LB)\n\n"
         "| buffers | instances | optimal | mean gap | worst gap | mean time |\n|---:|---:|---:|---:|---:|---:|\n");
  static const int sizes[] = {25, 50, 100, 200};
  for (int si = 0; si < 4; si++) {
    int n = sizes[si], count = quick ? 4 : 20, opt = 0;
    double gap = 0, worst = 0, t = 0;
    uint64_t seed = 1000 + (uint64_t)n;
    for (int k = 0; k < count; k++) {
      tir_interval *iv = malloc(sizeof *iv * (size_t)n);
      int m = memplan_gen_known(iv, n, 1 << 20, 200, 1024, &seed);
      tir_diag d;
      tir_diag_init(&d);
      double t0 = now();
      int rc = tir_plan_intervals(iv, m, NULL, &st, &d);
      t += now() - t0;
      check(rc == 0 && m == n && st.lower_bound == 1 << 20, "a generated instance planned");
      opt += st.arena == st.lower_bound;
      gap += st.gap_percent;
      if (st.gap_percent > worst) worst = st.gap_percent;
      tir_diag_free(&d);
      free(iv);
    }
    printf("| %d | %d | %d | %.2f %% | %.2f %% | %.2f s |\n", n, count, opt, gap / count, worst, t / count);
    if (n <= 100) check(opt == count, "optimal on every generated instance of up to 100 buffers");
    else check(gap / count <= 2.0, "mean gap at most 2 % at 200 buffers");
  }

  /* speed of the rules alone */
  {
    int n = 10000;
    tir_interval *iv = malloc(sizeof *iv * (size_t)n);
    uint64_t seed = 7;
    for (int i = 0; i < n; i++) {
      int64_t lo = (int64_t)(memplan_gen_next(&seed) % 20000);
      iv[i] = (tir_interval){lo, lo + 1 + (int64_t)(memplan_gen_next(&seed) % 200),
                             64 * (1 + (int64_t)(memplan_gen_next(&seed) % 1024)), 0};
    }
    tir_diag d;
    tir_diag_init(&d);
    tir_plan_options o = {.node_budget = -1};
    double t0 = now();
    int rc = tir_plan_intervals(iv, n, &o, &st, &d);
    double t1 = now() - t0;
    printf("\n10,000 random intervals, the rules alone: %.2f s (arena %.2f %% over the bound)\n", t1, st.gap_percent);
    check(rc == 0 && t1 < 1.0, "10,000 intervals planned in under 1 s");
    tir_diag_free(&d);
    free(iv);
  }
  printf(failures ? "\n%d target(s) missed\n" : "\nall targets met\n", failures);
  return failures ? 1 : 0;
}
