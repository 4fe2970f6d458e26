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
#include <string.h>
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

/* an affine index: c0*r0 + c1*r1 + k0*kept + b (r relaxed, kept not) */
static tir_expr *gen_affine(tir_ctx *c, tir_expr **vars) {
  static const int ks[] = {-3, -1, 0, 1, 2, 4, 8};
  tir_expr *e = tir_i32(c, pick(20) - 5);
  for (int i = 0; i < 4; i++) {
    int k = ks[pick(7)];
    if (k) e = tir_binary(c, TIR_ADD, e, tir_binary(c, TIR_MUL, vars[i], tir_i32(c, k)));
  }
  return e;
}

/* the isl-free box against isl's on unions of 1-3 affine 2-d accesses:
 * where both answer, the same text; returns the number compared, *bad the
 * number that differ, *fast how often the fast path answered */
static int check_affine_box(tir_ctx *c, tir_analyzer *a, tir_expr **vars, int n, int *bad, int *fast) {
  int compared = 0;
  *bad = *fast = 0;
  for (int i = 0; i < n; i++) {
    int nacc = 1 + pick(3);
    tir_access_region acc[3];
    tir_range rg[3][2];
    tir_relax_var rv[3][2];
    tir_expr *cs[3][1];
    for (int k = 0; k < nacc; k++) {
      /* vars 0, 1 relaxed (the second over a range that starts at var 3) */
      rv[k][0] = (tir_relax_var){vars[0], tir_i32(c, pick(4)), tir_i32(c, 1 + pick(8))};
      rv[k][1] = (tir_relax_var){vars[1], pick(2) ? vars[3] : tir_i32(c, 0), tir_i32(c, 1 + pick(4))};
      for (int d = 0; d < 2; d++) {
        tir_expr *m = k && pick(4) ? tir_binary(c, TIR_ADD, rg[0][d].min, tir_i32(c, pick(9) - 4)) : gen_affine(c, vars);
        rg[k][d] = (tir_range){m, tir_i32(c, 1 + pick(3))};
      }
      /* sometimes a condition: var OP constant (narrows), or one over two vars */
      static const tir_expr_kind ops[] = {TIR_EQ, TIR_LT, TIR_LE, TIR_GT, TIR_GE, TIR_NE};
      int nc = 0;
      if (pick(2)) {
        tir_expr *lhs = pick(4) ? tir_binary(c, TIR_MUL, vars[pick(2)], tir_i32(c, pick(5) - 2)) : gen_affine(c, vars);
        cs[k][nc++] = tir_binary(c, ops[pick(6)], lhs, tir_i32(c, pick(12) - 3));
      }
      acc[k] = (tir_access_region){rg[k], 2, rv[k], 2, cs[k], nc};
    }
    tir_range f[2], g[2];
    bool okf = ana_affine_bbox(a, acc, nacc, 2, f);
    bool okg = ana_isl_bbox(a, acc, nacc, 2, g);
    *fast += okf;
    if (!okf || !okg) continue;
    compared++;
    for (int d = 0; d < 2; d++) {
      if (!g[d].min || !g[d].extent) continue; /* isl gave up on this dim: the fast box is exact anyway */
      char *x = tir_print_expr(f[d].min), *y = tir_print_expr(g[d].min);
      char *u = tir_print_expr(f[d].extent), *v = tir_print_expr(g[d].extent);
      if (strcmp(x, y) || strcmp(u, v)) {
        if (*bad < 5) fprintf(stderr, "bbox differs: fast [%s, +%s] isl [%s, +%s]\n", x, u, y, v);
        (*bad)++;
      }
      free(x);
      free(y);
      free(u);
      free(v);
    }
  }
  return compared;
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
  /* the same boxes, isl-free where exact: affine accesses, and the check
   * that the isl-free answer is isl's */
  int na = n / 20 > 0 ? n / 20 : 1, fast_boxed = 0;
  tir_expr **as = malloc(sizeof *as * (size_t)(na + 1));
  if (!as) return 1;
  for (int i = 0; i <= na; i++) as[i] = gen_affine(c, vars);
  double t5 = now();
  for (int i = 0; i < na; i++) {
    tir_range rg[2] = {{as[i], tir_i32(c, 1)}, {as[i + 1], tir_i32(c, 2)}}, out[2];
    tir_access_region acc = {rg, 2, &rv, 1, NULL, 0};
    fast_boxed += tir_region_bbox(a, &acc, 1, 2, out);
  }
  double t6 = now();
  int nbad, nfast, ncmp = check_affine_box(c, a, vars, na, &nbad, &nfast);
  /* one line per figure: name, count, rate, outcome (stable for scripts) */
  printf("%-24s %8d %12.0f /s  %d of %d\n", "simplify", n, n / (t1 - t0), n, n);
  printf("%-24s %8d %12.0f /s  %d of %d proved\n", "prove e==simp(e)", np, np / (t2 - t1), proved, np);
  printf("%-24s %8d %12.0f /s  %d of %d proved\n", "prove via isl", np, np / (t2b - t2), by_isl, np);
  printf("%-24s %8d %12.0f /s  %d of %d proved\n", "prove via bounds", n, n / (t3 - t2b), decided, n);
  printf("%-24s %8d %12.0f /s  %d of %d bounded\n", "region bbox", nb, nb / (t4 - t3), boxed, nb);
  printf("%-24s %8d %12.0f /s  %d of %d bounded\n", "region bbox affine", na, na / (t6 - t5), fast_boxed, na);
  printf("%-24s %8d %12s     %d of %d as isl's (isl-free on %d)\n", "bbox isl-free == isl", ncmp, "-",
         ncmp - nbad, ncmp, nfast);
  free(as);
  free(es);
  free(ss);
  tir_analyzer_free(a);
  tir_ctx_free(c);
  return proved == np && decided == n && boxed == nb && fast_boxed == na && nbad == 0 ? 0 : 1; /* isl alone may give up (quota) */
}
