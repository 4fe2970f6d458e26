/* bench_analyzer - throughput of the analyzer on generated quasi-affine
 * exprs (sums, products by constants, floordiv/floormod by constants,
 * min/max over four vars with ranges): simplifications per second, and
 * proofs per second: `e == simplify(e)` through tir_can_prove (canonical
 * form first, isl when that does not decide), the same claim sent to isl
 * directly, a comparison decided by bounds, and bounding boxes of 2-d
 * accesses (tir_region_bbox).  Usage: bench_analyzer [N]; one line per
 * figure: name, count, rate per second, outcome. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analysis/analyzer_internal.h"
#include "tir/tir.h"

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}
static int pick(int n) { return (int)(rnd() % (uint64_t)n); }

static tir_expr *gen(tir_ctx *c, tir_expr **vars, int depth) {
  if (depth == 0 || pick(4) == 0) return pick(4) ? vars[pick(4)] : tir_i32(c, pick(40) - 10);
  static const int divs[] = {2, 3, 4, 8, 16};
  tir_expr *a = gen(c, vars, depth - 1);
  switch (pick(8)) {
  case 0: return tir_binary(c, TIR_MUL, a, tir_i32(c, divs[pick(5)]));
  case 1: return tir_binary(c, TIR_FLOORDIV, a, tir_i32(c, divs[pick(5)]));
  case 2: return tir_binary(c, TIR_FLOORMOD, a, tir_i32(c, divs[pick(5)]));
  case 3: return tir_binary(c, TIR_MIN, a, gen(c, vars, depth - 1));
  case 4: return tir_binary(c, TIR_MAX, a, gen(c, vars, depth - 1));
  case 5: return tir_binary(c, TIR_SUB, a, gen(c, vars, depth - 1));
  default: return tir_binary(c, TIR_ADD, a, gen(c, vars, depth - 1));
  }
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  tir_ctx *c = tir_ctx_new();
  tir_analyzer *a = tir_analyzer_new(c, NULL);
  tir_expr *vars[4];
  const char *names[4] = {"x", "y", "z", "w"};
  for (int i = 0; i < 4; i++) {
    vars[i] = tir_var(c, names[i], TIR_INT32);
    tir_analyzer_bind_range(a, vars[i], tir_i32(c, pick(8)), tir_i32(c, 1 + pick(64)));
  }
  tir_expr **es = malloc(sizeof *es * (size_t)n), **ss = malloc(sizeof *ss * (size_t)n);
  if (!es || !ss) return 1;
  for (int i = 0; i < n; i++) es[i] = gen(c, vars, 1 + pick(4));

  double t0 = now();
  for (int i = 0; i < n; i++) ss[i] = tir_simplify(a, es[i]);
  double t1 = now();
  int proved = 0, np = n / 10 > 0 ? n / 10 : 1;
  for (int i = 0; i < np; i++) proved += tir_can_prove(a, tir_binary(c, TIR_EQ, es[i], ss[i]));
  double t2 = now();
  int by_isl = 0;
  for (int i = 0; i < np; i++) by_isl += ana_isl_prove(a, tir_binary(c, TIR_EQ, es[i], ss[i]));
  double t2b = now();
  int decided = 0;
  for (int i = 0; i < n; i++)
    decided += tir_can_prove(a, tir_binary(c, TIR_LT, vars[i % 4], tir_i32(c, 100)));
  double t3 = now();
  /* bounding boxes: 2-d accesses [e_i, e_{i+1}] (extent 1), with the first
   * var relaxed over its range and the others kept */
  int nb = n / 20 > 0 ? n / 20 : 1, boxed = 0;
  tir_relax_var rv = {vars[0], tir_i32(c, 0), tir_i32(c, 16)};
  for (int i = 0; i < nb; i++) {
    tir_range rg[2] = {{es[i], tir_i32(c, 1)}, {es[(i + 1) % n], tir_i32(c, 1)}}, out[2];
    tir_access_region acc = {rg, 2, &rv, 1, NULL, 0};
    boxed += tir_region_bbox(a, &acc, 1, 2, out);
  }
  double t4 = now();
  /* one line per figure: name, count, rate, outcome (stable for scripts) */
  printf("%-24s %8d %12.0f /s  %d of %d\n", "simplify", n, n / (t1 - t0), n, n);
  printf("%-24s %8d %12.0f /s  %d of %d proved\n", "prove e==simp(e)", np, np / (t2 - t1), proved, np);
  printf("%-24s %8d %12.0f /s  %d of %d proved\n", "prove via isl", np, np / (t2b - t2), by_isl, np);
  printf("%-24s %8d %12.0f /s  %d of %d proved\n", "prove via bounds", n, n / (t3 - t2b), decided, n);
  printf("%-24s %8d %12.0f /s  %d of %d bounded\n", "region bbox", nb, nb / (t4 - t3), boxed, nb);
  free(es);
  free(ss);
  tir_analyzer_free(a);
  tir_ctx_free(c);
  return proved == np && decided == n && boxed == nb ? 0 : 1; /* isl alone may give up (quota) */
}
