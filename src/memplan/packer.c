/* packer.c - tir_plan_intervals: a portfolio of greedy placement rules over
 * the conflict graph of live ranges, the best plan kept and validated. */
#include <stdlib.h>
#include <string.h>

#include "memplan/search.h"
#include "tir/memplan.h"

#define TIR_PLAN_SEARCH_MAX 2000 /* buffers: the search keeps n * n candidate slots */

typedef struct ctx {
  const tir_interval *iv;
  int n;
  int **adj; /* conflicts of each interval */
  int *deg;
} ctx;

static bool meet(const tir_interval *a, const tir_interval *b) { return a->lower < b->upper && b->lower < a->upper; }

static int cmp_lower(const void *x, const void *y, const tir_interval *iv) {
  const tir_interval *a = &iv[*(const int *)x], *b = &iv[*(const int *)y];
  return (a->lower > b->lower) - (a->lower < b->lower);
}

/* ---- sorting with a key (qsort has no context argument) ---- */

typedef struct keyed {
  int64_t k1, k2;
  int id;
} keyed;

static int by_key(const void *x, const void *y) {
  const keyed *a = x, *b = y;
  if (a->k1 != b->k1) return a->k1 > b->k1 ? -1 : 1; /* descending */
  if (a->k2 != b->k2) return a->k2 > b->k2 ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

/* the conflict graph, by a sweep over intervals sorted by lower */
static void conflicts(ctx *c) {
  int n = c->n;
  keyed *by = malloc(sizeof *by * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) by[i] = (keyed){-c->iv[i].lower, 0, i};
  qsort(by, (size_t)n, sizeof *by, by_key); /* descending -lower: ascending lower */
  int *cap = calloc((size_t)(n ? n : 1), sizeof *cap);
  c->adj = calloc((size_t)(n ? n : 1), sizeof *c->adj);
  c->deg = calloc((size_t)(n ? n : 1), sizeof *c->deg);
  if (!by || !cap || !c->adj || !c->deg) abort();
  for (int x = 0; x < n; x++) {
    int i = by[x].id;
    for (int y = x + 1; y < n && c->iv[by[y].id].lower < c->iv[i].upper; y++) {
      int j = by[y].id;
      if (!meet(&c->iv[i], &c->iv[j])) continue;
      for (int side = 0; side < 2; side++) {
        int a = side ? j : i, b = side ? i : j;
        if (c->deg[a] == cap[a]) {
          cap[a] = cap[a] ? 2 * cap[a] : 4;
          c->adj[a] = realloc(c->adj[a], sizeof **c->adj * (size_t)cap[a]);
          if (!c->adj[a]) abort();
        }
        c->adj[a][c->deg[a]++] = b;
      }
    }
  }
  free(cap);
  free(by);
  (void)cmp_lower;
}

static int64_t align_up(int64_t v, int64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

typedef struct span {
  int64_t lo, hi;
} span;

static int by_lo(const void *x, const void *y) {
  const span *a = x, *b = y;
  return (a->lo > b->lo) - (a->lo < b->lo);
}

/* places the intervals in order, each in a gap among its placed
 * conflicts: the lowest that fits (first fit) or the tightest (best fit) */
static int64_t place(const ctx *c, const int *order, bool best, int64_t align, int64_t *off, span *buf) {
  int n = c->n;
  char *placed = calloc((size_t)(n ? n : 1), 1);
  int64_t arena = 0;
  for (int k = 0; k < n; k++) {
    int i = order[k];
    int64_t size = c->iv[i].size;
    int m = 0;
    for (int e = 0; e < c->deg[i]; e++) {
      int j = c->adj[i][e];
      if (placed[j]) buf[m++] = (span){off[j], off[j] + c->iv[j].size};
    }
    qsort(buf, (size_t)m, sizeof *buf, by_lo);
    int64_t at = -1, bestgap = -1, cur = 0;
    for (int e = 0; e <= m; e++) {
      int64_t start = align_up(cur, align);
      int64_t end = e < m ? buf[e].lo : INT64_MAX;
      if (end - start >= size) {
        int64_t gap = e < m ? end - start : INT64_MAX;
        if (!best) {
          at = start;
          break;
        }
        if (at < 0 || gap < bestgap) at = start, bestgap = gap;
        if (e == m) break;
      }
      if (e < m && buf[e].hi > cur) cur = buf[e].hi;
    }
    off[i] = at;
    placed[i] = 1;
    if (at + size > arena) arena = at + size;
  }
  free(placed);
  return arena;
}

int64_t tir_plan_lower_bound(const tir_interval *iv, int n) {
  keyed *ev = malloc(sizeof *ev * (size_t)(2 * n + 1));
  if (!ev) abort();
  for (int i = 0; i < n; i++) {
    ev[2 * i] = (keyed){-iv[i].lower, -1, i};     /* starts, after ends at the same point */
    ev[2 * i + 1] = (keyed){-iv[i].upper, 0, ~i}; /* ends */
  }
  qsort(ev, (size_t)(2 * n), sizeof *ev, by_key);
  int64_t live = 0, best = 0;
  for (int e = 0; e < 2 * n; e++) {
    if (ev[e].id >= 0) live += iv[ev[e].id].size;
    else live -= iv[~ev[e].id].size;
    if (live > best) best = live;
  }
  free(ev);
  return best;
}

bool tir_plan_valid(const tir_interval *iv, int n, int64_t alignment) {
  ctx c = {iv, n, NULL, NULL};
  conflicts(&c);
  bool ok = true;
  for (int i = 0; i < n && ok; i++) {
    if (iv[i].offset < 0 || (alignment > 1 && iv[i].offset % alignment)) ok = false;
    for (int e = 0; e < c.deg[i] && ok; e++) {
      const tir_interval *a = &iv[i], *b = &iv[c.adj[i][e]];
      if (a->offset < b->offset + b->size && b->offset < a->offset + a->size) ok = false;
    }
  }
  for (int i = 0; i < n; i++) free(c.adj[i]);
  free(c.adj);
  free(c.deg);
  return ok;
}

int tir_plan_intervals(tir_interval *iv, int n, const tir_plan_options *o, tir_plan_stats *st, tir_diag *d) {
  int64_t align = o && o->alignment > 1 ? o->alignment : 1;
  tir_plan_stats s = {0};
  s.lower_bound = tir_plan_lower_bound(iv, n);
  ctx c = {iv, n, NULL, NULL};
  conflicts(&c);
  int nn = n ? n : 1;
  keyed *ks = malloc(sizeof *ks * (size_t)nn);
  int *order = malloc(sizeof *order * (size_t)nn);
  int64_t *off = malloc(sizeof *off * (size_t)nn), *best_off = malloc(sizeof *best_off * (size_t)nn);
  span *buf = malloc(sizeof *buf * (size_t)nn);
  if (!ks || !order || !off || !best_off || !buf) abort();
  static const char *const rules[] = {"first-fit/size", "first-fit/length", "first-fit/area", "first-fit/start",
                                      "first-fit/conflicts", "usmp_greedy_by_size", "usmp_greedy_by_conflicts"};
  int64_t best = -1;
  for (int r = 0; r < 7; r++)
    for (int fit = 0; fit < (r >= 5 ? 1 : 2); fit++) {
      for (int i = 0; i < n; i++) {
        const tir_interval *v = &iv[i];
        int64_t len = v->upper - v->lower;
        switch (r) {
        case 0: ks[i] = (keyed){v->size, len, i}; break;             /* XLA's spatial order */
        case 1: ks[i] = (keyed){len, v->size, i}; break;             /* XLA's temporal order */
        case 2: ks[i] = (keyed){v->size * len, v->size, i}; break;   /* area */
        case 3: ks[i] = (keyed){-v->lower, v->size, i}; break;       /* start */
        case 4: ks[i] = (keyed){c.deg[i], v->size, i}; break;        /* conflicts */
        case 5: ks[i] = (keyed){v->size, -v->lower, i}; break;       /* USMP greedy_by_size: size, then first */
        default: ks[i] = (keyed){c.deg[i], v->size, i}; break;       /* USMP greedy_by_conflicts */
        }
      }
      qsort(ks, (size_t)n, sizeof *ks, by_key);
      for (int i = 0; i < n; i++) order[i] = ks[i].id;
      int64_t arena = place(&c, order, fit == 1, align, off, buf);
      s.candidates++;
      if (best < 0 || arena < best) {
        best = arena;
        memcpy(best_off, off, sizeof *off * (size_t)n);
        s.winner = fit ? (r == 0 ? "best-fit/size" : r == 1 ? "best-fit/length" : r == 2 ? "best-fit/area"
                                 : r == 3 ? "best-fit/start" : "best-fit/conflicts")
                       : rules[r];
      }
    }
  /* the exact search, by bisection on the capacity between the bound and
   * the best rule's arena */
  int64_t budget = o && o->node_budget ? o->node_budget : 2000000;
  bool proven = n == 0 || best == s.lower_bound;
  if (!proven && budget > 0 && n <= TIR_PLAN_SEARCH_MAX) {
    int64_t lo = s.lower_bound, hi = best - 1, used = 0;
    while (lo <= hi && used < budget) {
      int64_t mid = lo + (hi - lo) / 2, nodes = 0;
      int r = tir_plan_search(iv, n, c.adj, c.deg, mid, align, budget - used, off, &nodes);
      used += nodes;
      if (r == 1) {
        int64_t arena = 0;
        for (int i = 0; i < n; i++)
          if (off[i] + iv[i].size > arena) arena = off[i] + iv[i].size;
        best = arena;
        memcpy(best_off, off, sizeof *off * (size_t)n);
        s.winner = "exact search";
        hi = arena - 1;
      } else if (r == 0) {
        lo = mid + 1; /* nothing fits in mid bytes */
      } else {
        break;
      }
    }
    s.nodes = used;
    proven = lo > hi;
  }
  for (int i = 0; i < n; i++) iv[i].offset = best_off[i];
  s.arena = n ? best : 0;
  s.proven_optimal = proven;
  s.gap_percent = s.lower_bound ? 100.0 * (double)(s.arena - s.lower_bound) / (double)s.lower_bound : 0;
  for (int i = 0; i < n; i++) free(c.adj[i]);
  free(c.adj);
  free(c.deg);
  free(ks);
  free(order);
  free(off);
  free(best_off);
  free(buf);
  if (st) *st = s;
  if (!tir_plan_valid(iv, n, align)) {
    tir_error(d, ((tir_span){0, 0}), "internal error: the memory plan failed validation");
    return -1;
  }
  return 0;
}
