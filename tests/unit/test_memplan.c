/* test_memplan.c - the interval packer: the lower bound, the validator,
 * plans valid and between the bound and the sum of sizes on random
 * instances, known optima, and the CSV reader's errors. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "memplan_gen.h"
#include "testutil.h"

START_TEST(lower_bound_and_validator) {
  tir_interval iv[3] = {{0, 4, 10, 0}, {2, 6, 20, 10}, {4, 8, 30, 30}};
  ck_assert_int_eq(tir_plan_lower_bound(iv, 3), 50); /* [4, 6): 20 + 30; [0, 4) ends where [4, 8) starts */
  ck_assert(tir_plan_valid(iv, 3, 1));
  iv[2].offset = 0; /* 0 and 2 never meet, but 1 and 2 do, at [10, 30) */
  ck_assert(!tir_plan_valid(iv, 3, 1));
  iv[2].offset = 15;
  ck_assert(!tir_plan_valid(iv, 3, 1));
  iv[2].offset = 30;
  ck_assert(tir_plan_valid(iv, 3, 1));
  ck_assert(!tir_plan_valid(iv, 3, 64)); /* 10 and 30 are not 64-aligned */
}
END_TEST

static uint32_t seed = 7;
static uint32_t rnd(void) {
  seed ^= seed << 13;
  seed ^= seed >> 17;
  seed ^= seed << 5;
  return seed;
}

START_TEST(random_instances) {
  tir_diag d;
  tir_diag_init(&d);
  for (int t = 0; t < 300; t++) {
    int n = 1 + (int)(rnd() % 40);
    tir_interval iv[40];
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
      int64_t lo = rnd() % 50, len = 1 + rnd() % 20;
      iv[i] = (tir_interval){lo, lo + len, 1 + rnd() % 1000, -1};
      sum += iv[i].size;
    }
    tir_plan_stats st;
    int64_t align = t % 3 ? 1 : 64;
    tir_plan_options o = {.alignment = align, .node_budget = 5000};
    ck_assert_int_eq(tir_plan_intervals(iv, n, &o, &st, &d), 0);
    ck_assert(tir_plan_valid(iv, n, align));
    int64_t arena = 0;
    for (int i = 0; i < n; i++)
      if (iv[i].offset + iv[i].size > arena) arena = iv[i].offset + iv[i].size;
    ck_assert_int_eq(arena, st.arena);
    /* LB <= tirc <= each rule <= the sum of sizes */
    ck_assert_int_le(st.lower_bound, st.arena);
    ck_assert_int_eq(st.candidates, TIR_PLAN_RULES);
    for (int r = 0; r < st.candidates; r++) {
      ck_assert_int_le(st.arena, st.rule_arena[r]);
      if (align == 1) ck_assert_int_le(st.rule_arena[r], sum);
    }
    if (st.arena == st.lower_bound) ck_assert(st.proven_optimal); /* and the search may prove more */
  }
  ck_assert_int_eq(d.n, 0);
  tir_diag_free(&d);
}
END_TEST

/* a capacity x time rectangle cut into pieces: OPT = LB = capacity */
START_TEST(known_optimum_small) {
  tir_diag d;
  tir_diag_init(&d);
  /* two columns of time, each cut in two rows of different heights */
  tir_interval iv[4] = {{0, 10, 300, 0}, {0, 10, 700, 0}, {10, 20, 500, 0}, {10, 20, 500, 0}};
  tir_plan_stats st;
  ck_assert_int_eq(tir_plan_intervals(iv, 4, NULL, &st, &d), 0);
  ck_assert_int_eq(st.lower_bound, 1000);
  ck_assert_int_eq(st.arena, 1000);
  ck_assert(st.proven_optimal);
  tir_diag_free(&d);
}
END_TEST

/* first fit in every order of up to 8 buffers: the optimum (first fit in
 * the order of an optimal plan's offsets places each buffer no higher) */
static int64_t first_fit_order(const tir_interval *iv, const int *perm, int n) {
  int64_t off[9], arena = 0;
  for (int k = 0; k < n; k++) {
    int i = perm[k];
    int64_t x = 0;
    bool moved = true;
    while (moved) { /* lowest offset clear of every placed conflict */
      moved = false;
      for (int q = 0; q < k; q++) {
        int j = perm[q];
        bool meet = iv[i].lower < iv[j].upper && iv[j].lower < iv[i].upper;
        if (meet && x < off[j] + iv[j].size && off[j] < x + iv[i].size) {
          x = off[j] + iv[j].size;
          moved = true;
        }
      }
    }
    off[i] = x;
    if (x + iv[i].size > arena) arena = x + iv[i].size;
  }
  return arena;
}

static int64_t brute(const tir_interval *iv, int *perm, int k, int n) {
  if (k == n) return first_fit_order(iv, perm, n);
  int64_t best = INT64_MAX;
  for (int i = k; i < n; i++) {
    int t = perm[k]; perm[k] = perm[i]; perm[i] = t;
    int64_t r = brute(iv, perm, k + 1, n);
    if (r < best) best = r;
    t = perm[k]; perm[k] = perm[i]; perm[i] = t;
  }
  return best;
}

START_TEST(exact_equals_brute_force) {
  tir_diag d;
  tir_diag_init(&d);
  for (int t = 0; t < 160; t++) {
    int n = t < 40 ? 8 : 2 + (int)(rnd() % 7);
    tir_interval iv[8];
    for (int i = 0; i < n; i++) {
      int64_t lo = rnd() % 9;
      iv[i] = (tir_interval){lo, lo + 1 + rnd() % 6, 1 + rnd() % 9, 0};
      if (i && t % 4 == 1 && rnd() % 3 == 0) iv[i] = iv[i - 1]; /* twins */
      if (i && t % 4 == 2 && rnd() % 3 == 0) iv[i].lower = iv[i - 1].lower, iv[i].upper = iv[i - 1].upper;
    }
    int perm[8];
    for (int i = 0; i < n; i++) perm[i] = i;
    int64_t want = brute(iv, perm, 0, n);
    tir_plan_stats st;
    ck_assert_int_eq(tir_plan_intervals(iv, n, NULL, &st, &d), 0);
    ck_assert_int_eq(st.arena, want);
    ck_assert(st.proven_optimal);
    for (int r = 0; r < st.candidates; r++) ck_assert_int_ge(st.rule_arena[r], want); /* no rule beats it */
  }
  tir_diag_free(&d);
}
END_TEST

/* the known-optimum generator: OPT = LB = the capacity; the packer reaches
 * it on every instance of up to 60 buffers */
START_TEST(known_optimum_generated) {
  tir_diag d;
  tir_diag_init(&d);
  uint64_t seed = 42;
  for (int t = 0; t < 40; t++) {
    tir_interval iv[60];
    int n = memplan_gen_known(iv, 10 + t, 4096, 50, 64, &seed);
    ck_assert_int_eq(n, 10 + t);
    ck_assert_int_eq(tir_plan_lower_bound(iv, n), 4096);
    tir_plan_stats st;
    tir_plan_options o = {.alignment = 64};
    ck_assert_int_eq(tir_plan_intervals(iv, n, &o, &st, &d), 0);
    ck_assert_int_eq(st.arena, 4096);
    ck_assert(st.proven_optimal);
  }
  ck_assert_int_eq(d.n, 0);
  tir_diag_free(&d);
}
END_TEST

/* USMP's greedy rules: greedy_by_size orders by size, then conflicts,
 * then the name (greater first); greedy_by_conflicts by conflicts, then
 * size, then the name; each buffer goes right past the highest placed
 * conflict.  The names alone change the arena on this one (figures worked
 * by hand from TVM's greedy.cc) */
static int64_t usmp_arena(const tir_interval *in, int n, const char *const *names, int rule) {
  tir_interval iv[8];
  memcpy(iv, in, sizeof *iv * (size_t)n);
  tir_diag d;
  tir_diag_init(&d);
  tir_plan_options o = {.names = names, .node_budget = -1};
  tir_plan_stats st;
  ck_assert_int_eq(tir_plan_intervals(iv, n, &o, &st, &d), 0);
  ck_assert_str_eq(st.rule[rule], rule == 10 ? "usmp_greedy_by_size" : "usmp_greedy_by_conflicts");
  tir_diag_free(&d);
  return st.rule_arena[rule];
}

START_TEST(usmp_rules) {
  const char *up[5] = {"a", "b", "c", "d", "e"}, *down[5] = {"e", "d", "c", "b", "a"};
  tir_interval iv[5] = {{0, 3, 32, 0}, {3, 4, 16, 0}, {2, 4, 32, 0}, {1, 4, 16, 0}, {0, 1, 48, 0}};
  /* by size: e (48 bytes), then a and c (32 bytes, 3 conflicts each: the
   * greater name first), then d (16, 3 conflicts), b (16, 2).  Names a..e:
   * e 0, c 0, a past e at 48, d past a at 80, b past d at 96: 112.  Names
   * reversed (a is "e"): e 0, a 48, c past a at 80, d 112, b 128: 144 */
  ck_assert_int_eq(usmp_arena(iv, 5, up, 10), 112);
  ck_assert_int_eq(usmp_arena(iv, 5, down, 10), 144);
  ck_assert_int_eq(usmp_arena(iv, 5, up, 11), 112);
  ck_assert_int_eq(usmp_arena(iv, 5, down, 11), 96);
}
END_TEST

static void csv_error(const char *text, const char *msg, int line, int col) {
  tir_diag d;
  tir_diag_init(&d);
  int n;
  char **ids;
  ck_assert_ptr_null(tir_plan_read_csv(text, strlen(text), &n, &ids, &d));
  ck_assert_int_ge(d.n, 1);
  ck_assert_msg(strstr(d.items[0].msg, msg), "got '%s'", d.items[0].msg);
  ck_assert_int_eq(d.items[0].span.line, line);
  ck_assert_int_eq(d.items[0].span.col, col);
  tir_diag_free(&d);
}

START_TEST(csv) {
  const char *ok = "id,lower,upper,size\na,0,4,16\nb,2,6,32\n";
  tir_diag d;
  tir_diag_init(&d);
  int n;
  char **ids;
  tir_interval *iv = tir_plan_read_csv(ok, strlen(ok), &n, &ids, &d);
  ck_assert_ptr_nonnull(iv);
  ck_assert_int_eq(n, 2);
  ck_assert_str_eq(ids[1], "b");
  ck_assert_int_eq(iv[1].size, 32);
  char *out = tir_plan_write_csv(iv, ids, n);
  ck_assert_str_eq(out, "id,lower,upper,size,offset\na,0,4,16,0\nb,2,6,32,0\n");
  free(out);
  for (int i = 0; i < n; i++) free(ids[i]);
  free(ids);
  free(iv);
  tir_diag_free(&d);
  csv_error("id,low,upper,size\n", "expected the header", 1, 1);
  csv_error("id,lower,upper,size\na,0,4,-16\n", "size must be positive", 2, 7);
  csv_error("id,lower,upper,size\na,4,4,16\n", "empty live range", 2, 5);
  csv_error("id,lower,upper,size\na,0,x4,16\n", "upper is not an integer", 2, 5);
  csv_error("id,lower,upper,size\na,0,4\n", "missing column 'size'", 2, 6);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("memplan");
  TCase *t = tcase_create("memplan");
  tcase_add_test(t, lower_bound_and_validator);
  tcase_add_test(t, random_instances);
  tcase_add_test(t, known_optimum_small);
  tcase_add_test(t, exact_equals_brute_force);
  tcase_add_test(t, known_optimum_generated);
  tcase_add_test(t, usmp_rules);
  tcase_add_test(t, csv);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tir_test_run_suite(suite()); }
