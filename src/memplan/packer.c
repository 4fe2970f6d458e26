/* packer.c - tir_plan_intervals: a portfolio of greedy placement rules, then
 * the exact search run after run (guided by what the runs before could not
 * place), then a seeded local search; every plan validated. */
#include <stdlib.h>
#include <string.h>

#include "memplan/search.h"
#include "tir/memplan.h"

#define TIR_PLAN_SEARCH_MAX 2000 /* buffers the search and local search take on */
#define SWO_PERIOD 30            /* runs per preorder before its priorities restart */

typedef struct ctx {
  const tir_interval *iv;
  int n;
  int **adj; /* conflicts of each interval */
  int *deg;
} ctx;

static bool meet(const tir_interval *a, const tir_interval *b) { return a->lower < b->upper && b->lower < a->upper; }

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) abort();
  return p;
}

/* ---- sorting with a key (qsort has no context argument) ---- */

typedef struct keyed {
  int64_t k1, k2, k3;
  int id;
} keyed;

static int by_key(const void *x, const void *y) { /* descending keys, then ascending id */
  const keyed *a = x, *b = y;
  if (a->k1 != b->k1) return a->k1 > b->k1 ? -1 : 1;
  if (a->k2 != b->k2) return a->k2 > b->k2 ? -1 : 1;
  if (a->k3 != b->k3) return a->k3 > b->k3 ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

/* the conflict graph, by a sweep over intervals sorted by lower */
static void conflicts(ctx *c) {
  int n = c->n;
  keyed *by = xmalloc(sizeof *by * (size_t)n);
  for (int i = 0; i < n; i++) by[i] = (keyed){-c->iv[i].lower, 0, 0, i};
  qsort(by, (size_t)n, sizeof *by, by_key); /* descending -lower: ascending lower */
  int *cap = calloc((size_t)(n ? n : 1), sizeof *cap);
  c->adj = calloc((size_t)(n ? n : 1), sizeof *c->adj);
  c->deg = calloc((size_t)(n ? n : 1), sizeof *c->deg);
  if (!cap || !c->adj || !c->deg) abort();
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
}

static void free_ctx(ctx *c) {
  for (int i = 0; i < c->n; i++) free(c->adj[i]);
  free(c->adj);
  free(c->deg);
}

static int64_t align_up(int64_t v, int64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

typedef struct span {
  int64_t lo, hi;
} span;

static int by_lo(const void *x, const void *y) {
  const span *a = x, *b = y;
  return (a->lo > b->lo) - (a->lo < b->lo);
}

static int64_t arena_of(const tir_interval *iv, const int64_t *off, int n) {
  int64_t a = 0;
  for (int i = 0; i < n; i++)
    if (off[i] + iv[i].size > a) a = off[i] + iv[i].size;
  return a;
}

/* places the intervals in order, each in a gap among its placed conflicts:
 * the lowest that fits (first fit, fit 0) or the tightest (best fit, 1); or
 * (2) as TVM USMP's greedy PostSortAllocation does: at the largest end of a
 * placed conflict, aligned ("we need to make sure we pick the largest
 * offset of them all"), gaps below left unused */
static int64_t place(const ctx *c, const int *order, int fit, int64_t align, int64_t *off, span *buf, char *placed) {
  int n = c->n;
  memset(placed, 0, (size_t)n);
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
    if (fit == 2) { /* USMP: past the highest placed conflict */
      at = 0;
      for (int e = 0; e < m; e++)
        if (align_up(buf[e].hi, align) > at) at = align_up(buf[e].hi, align);
    } else {
      for (int e = 0; e <= m; e++) {
        int64_t start = align_up(cur, align);
        int64_t end = e < m ? buf[e].lo : INT64_MAX;
        if (end - start >= size) {
          int64_t gap = e < m ? end - start : INT64_MAX;
          if (!fit) {
            at = start;
            break;
          }
          if (at < 0 || gap < bestgap) at = start, bestgap = gap;
          if (e == m) break;
        }
        if (e < m && buf[e].hi > cur) cur = buf[e].hi;
      }
    }
    off[i] = at;
    placed[i] = 1;
    if (at + size > arena) arena = at + size;
  }
  return arena;
}

int64_t tir_plan_lower_bound(const tir_interval *iv, int n) {
  keyed *ev = xmalloc(sizeof *ev * (size_t)(2 * n + 1));
  int m = 0;
  for (int i = 0; i < n; i++) {
    if (iv[i].upper <= iv[i].lower || iv[i].size <= 0) continue;
    ev[m++] = (keyed){-iv[i].lower, -1, 0, i};     /* starts, after ends at the same point */
    ev[m++] = (keyed){-iv[i].upper, 0, 0, ~i};     /* ends */
  }
  qsort(ev, (size_t)m, sizeof *ev, by_key);
  int64_t live = 0, best = 0;
  for (int e = 0; e < m; e++) {
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
  free_ctx(&c);
  return ok;
}

/* ---- the search, run after run ---- */

typedef struct driver {
  ctx *c;
  tir_search *srch;
  int64_t align, budget, used;
  int64_t *best_off, best, *off;
  const char **winner;
  int *order, *base;
  int64_t *pri, *total_max; /* priorities; the most bytes live in a section of each buffer's range */
  int *sec_w;               /* sections each buffer spans */
  const char *heur;
  int *hrank[8];            /* each preorder's rank of each buffer (computed once) */
  const int *cur_rank;
  int runs;
} driver;

static driver *drv_sort_ctx; /* qsort has no context argument */
static const char *const heurs[8] = {"LS", "TWA", "TAW", "eS", "AS", "SL", "WAT", "TS"};

static int64_t heur_key(const driver *dv, int i, char h) {
  const tir_interval *v = &dv->c->iv[i];
  switch (h) {
  case 'W': return dv->sec_w[i];                      /* width */
  case 'A': return (v->upper - v->lower) * v->size;  /* area */
  case 'T': return dv->total_max[i];                 /* the fullest section it is in */
  case 'S': return v->size;
  case 'L': return -v->lower;                        /* earliest start first */
  default: return v->upper;                          /* 'e': latest end first */
  }
}

static int by_heur(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  const driver *dv = drv_sort_ctx;
  for (const char *h = dv->heur; *h; h++) {
    int64_t p = heur_key(dv, a, *h), q = heur_key(dv, b, *h);
    if (p != q) return p > q ? -1 : 1;
  }
  return (a > b) - (a < b);
}

static int by_pri(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  const driver *dv = drv_sort_ctx;
  if (dv->pri[a] != dv->pri[b]) return dv->pri[a] > dv->pri[b] ? -1 : 1;
  return (dv->cur_rank[a] > dv->cur_rank[b]) - (dv->cur_rank[a] < dv->cur_rank[b]);
}

/* the buffers in preorder h (heurs[h]), by priority first when with_pri */
static void preorder(driver *dv, int h, bool with_pri) {
  int n = dv->c->n;
  drv_sort_ctx = dv;
  if (!dv->hrank[h]) {
    dv->heur = heurs[h];
    for (int i = 0; i < n; i++) dv->order[i] = i;
    qsort(dv->order, (size_t)n, sizeof *dv->order, by_heur);
    dv->hrank[h] = xmalloc(sizeof *dv->hrank[h] * (size_t)n);
    for (int r = 0; r < n; r++) dv->hrank[h][dv->order[r]] = r;
  }
  dv->cur_rank = dv->hrank[h];
  for (int r = 0; r < n; r++) dv->order[dv->hrank[h][r] >= 0 ? dv->hrank[h][r] : 0] = r;
  if (with_pri) qsort(dv->order, (size_t)n, sizeof *dv->order, by_pri);
}

/* one run at cap: 1 found (kept when below the best), 0 proven none, -1 budget */
static int run(driver *dv, int64_t cap, int sel, int val, int64_t budget) {
  if (budget > dv->budget - dv->used) budget = dv->budget - dv->used;
  if (budget <= 0) return -1;
  int64_t nodes = 0;
  int r = tir_search_run(dv->srch, cap, dv->order, sel, val, budget, dv->off, &nodes);
  dv->used += nodes;
  dv->runs++;
  if (r == 1) {
    int64_t a = arena_of(dv->c->iv, dv->off, dv->c->n);
    if (a < dv->best) {
      dv->best = a;
      memcpy(dv->best_off, dv->off, sizeof *dv->off * (size_t)dv->c->n);
      *dv->winner = "exact search";
    }
  }
  return r;
}

/* tries cap within `budget` nodes: first one complete run (a quarter),
 * then short runs, each preorder boosting the buffers the run before could
 * not place (squeaky wheel); 1 found, 0 proven none, -1 not found */
static int probe(driver *dv, int64_t cap, int64_t budget) {
  int n = dv->c->n;
  int64_t stop = dv->used + budget;
  if (stop > dv->budget) stop = dv->budget;
  preorder(dv, 0, false);
  int64_t first = budget / 4 < 50000 ? budget / 4 : 50000;
  int r = run(dv, cap, 0, 0, first > n + 100 ? first : n + 100);
  if (r >= 0) return r;
  for (int i = 0; dv->used < stop; i++) {
    int cycle = i / SWO_PERIOD;
    if (i % SWO_PERIOD == 0) memset(dv->pri, 0, sizeof *dv->pri * (size_t)n);
    preorder(dv, cycle % 8, true);
    r = run(dv, cap, (cycle / 8) % 6, (cycle / 48) % 3, stop - dv->used < n + 100 ? stop - dv->used : n + 100);
    if (r >= 0) return r; /* found, or proven none */
    for (int b = 0; b < n; b++)
      if (tir_search_left(dv->srch, b)) dv->pri[b] += 1 + i % SWO_PERIOD;
  }
  return -1;
}

/* ---- the local search: first fit in an order, two buffers swapped at a time ---- */

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void local_search(driver *dv, span *buf, char *placed) {
  const ctx *c = dv->c;
  int n = c->n;
  if (n < 2) return;
  /* the best plan's buffers by offset: first fit in that order gives no worse */
  keyed *ks = xmalloc(sizeof *ks * (size_t)n);
  for (int i = 0; i < n; i++) ks[i] = (keyed){-dv->best_off[i], 0, 0, i};
  qsort(ks, (size_t)n, sizeof *ks, by_key);
  int *ord = dv->order;
  for (int i = 0; i < n; i++) ord[i] = ks[i].id;
  free(ks);
  int64_t cur = place(c, ord, 0, dv->align, dv->off, buf, placed);
  dv->used += n;
  if (cur < dv->best) {
    dv->best = cur;
    memcpy(dv->best_off, dv->off, sizeof *dv->off * (size_t)n);
    *dv->winner = "local search";
  }
  int64_t lb = tir_plan_lower_bound(c->iv, n);
  uint64_t seed = 0x13;
  while (dv->used + n <= dv->budget && dv->best > lb) {
    int a = (int)(rng_next(&seed) % (uint64_t)n), b = (int)(rng_next(&seed) % (uint64_t)n);
    if (a == b) continue;
    int t = ord[a];
    ord[a] = ord[b];
    ord[b] = t;
    int64_t arena = place(c, ord, 0, dv->align, dv->off, buf, placed);
    dv->used += n;
    if (arena <= cur) {
      cur = arena;
      if (arena < dv->best) {
        dv->best = arena;
        memcpy(dv->best_off, dv->off, sizeof *dv->off * (size_t)n);
        *dv->winner = "local search";
      }
    } else { /* undo */
      ord[b] = ord[a];
      ord[a] = t;
    }
  }
}

/* the search phases on the packable intervals: the bound, then bisection
 * below the best found, then the local search; true when proven optimal */
static bool improve(ctx *c, int64_t lb, int64_t align, int64_t budget, int64_t *best, int64_t *best_off,
                    const char **winner, int64_t *used, int *runs, span *buf, char *placed) {
  int n = c->n;
  driver dv = {0};
  dv.c = c;
  dv.align = align;
  dv.budget = budget;
  dv.best = *best;
  dv.best_off = best_off;
  dv.winner = winner;
  dv.off = xmalloc(sizeof *dv.off * (size_t)n);
  dv.order = xmalloc(sizeof *dv.order * (size_t)n);
  dv.pri = calloc((size_t)n, sizeof *dv.pri);
  dv.total_max = calloc((size_t)n, sizeof *dv.total_max);
  dv.sec_w = xmalloc(sizeof *dv.sec_w * (size_t)n);
  if (!dv.pri || !dv.total_max) abort();
  dv.srch = tir_search_new(c->iv, n, c->adj, c->deg, align);
  const int64_t *total;
  tir_search_sections(dv.srch, &total);
  for (int i = 0; i < n; i++) {
    int a, z;
    tir_search_span(dv.srch, i, &a, &z);
    dv.sec_w[i] = z - a;
    for (int k = a; k < z; k++)
      if (total[k] > dv.total_max[i]) dv.total_max[i] = total[k];
  }
  /* the bound: most of the budget */
  bool proven = false;
  int r = probe(&dv, lb, budget * 7 / 10);
  if (r == 1) proven = true;
  /* then below the best, by bisection; proven when every failure is */
  bool all_proven = r == 0;
  int64_t lo = lb + 1, hi = dv.best - 1;
  int64_t phase_end = budget * 9 / 10;
  while (!proven && lo <= hi && dv.used < phase_end) {
    int64_t mid = lo + (hi - lo) / 2, steps = 1;
    for (int64_t w = hi - lo; w > 1; w /= 2) steps++;
    int64_t share = (phase_end - dv.used) / steps;
    if (share < n + 100) share = n + 100;
    r = probe(&dv, mid, share);
    if (r == 1) hi = dv.best - 1;
    else {
      lo = mid + 1;
      if (r < 0) all_proven = false;
    }
  }
  if (!proven && lo > hi && all_proven) proven = true;
  if (!proven && dv.best > lb) local_search(&dv, buf, placed);
  *best = dv.best;
  *used = dv.used;
  *runs = dv.runs;
  tir_search_free(dv.srch);
  free(dv.off);
  free(dv.order);
  free(dv.pri);
  free(dv.total_max);
  free(dv.sec_w);
  for (int h = 0; h < 8; h++) free(dv.hrank[h]);
  return proven || dv.best == lb;
}

/* ---- the portfolio ---- */

static const char *const rule_names[TIR_PLAN_RULES] = {
    "first-fit/size",      "best-fit/size",      "first-fit/length",    "best-fit/length",
    "first-fit/area",      "best-fit/area",      "first-fit/start",     "best-fit/start",
    "first-fit/conflicts", "best-fit/conflicts", "usmp_greedy_by_size", "usmp_greedy_by_conflicts"};

/* USMP's tie: the name compared as a string, greater first */
static const char *const *usmp_names;
static int by_usmp(const void *x, const void *y) {
  const keyed *a = x, *b = y;
  if (a->k1 != b->k1) return a->k1 > b->k1 ? -1 : 1;
  if (a->k2 != b->k2) return a->k2 > b->k2 ? -1 : 1;
  if (usmp_names) {
    int c = strcmp(usmp_names[a->id], usmp_names[b->id]);
    if (c) return c > 0 ? -1 : 1;
  }
  return (a->id > b->id) - (a->id < b->id);
}

int tir_plan_intervals(tir_interval *iv, int n, const tir_plan_options *o, tir_plan_stats *st, tir_diag *d) {
  int64_t align = o && o->alignment > 1 ? o->alignment : 1;
  tir_plan_stats s = {0};
  for (int i = 0; i < n; i++)
    if (iv[i].size < 0) {
      tir_error(d, ((tir_span){0, 0}), "interval %d has a negative size (%lld bytes)", i, (long long)iv[i].size);
      return -1;
    }
  /* the intervals that hold bytes while live; the others take offset 0 */
  int *map = xmalloc(sizeof *map * (size_t)n), m = 0;
  for (int i = 0; i < n; i++) {
    iv[i].offset = 0;
    if (iv[i].size > 0 && iv[i].lower < iv[i].upper) map[m++] = i;
  }
  tir_interval *pv = xmalloc(sizeof *pv * (size_t)m);
  for (int k = 0; k < m; k++) pv[k] = iv[map[k]];
  const char **names = NULL;
  if (o && o->names) {
    names = xmalloc(sizeof *names * (size_t)m);
    for (int k = 0; k < m; k++) names[k] = o->names[map[k]];
  }
  s.lower_bound = tir_plan_lower_bound(pv, m);
  ctx c = {pv, m, NULL, NULL};
  conflicts(&c);
  keyed *ks = xmalloc(sizeof *ks * (size_t)m);
  int *order = xmalloc(sizeof *order * (size_t)m);
  int64_t *off = xmalloc(sizeof *off * (size_t)m), *best_off = xmalloc(sizeof *best_off * (size_t)m);
  span *buf = xmalloc(sizeof *buf * (size_t)m);
  char *placed = xmalloc((size_t)m);
  int64_t best = -1;
  for (int r = 0; r < TIR_PLAN_RULES; r++) {
    for (int i = 0; i < m; i++) {
      const tir_interval *v = &pv[i];
      int64_t len = v->upper - v->lower, deg = c.deg[i];
      switch (r / 2) {
      case 0: ks[i] = (keyed){v->size, len, 0, i}; break;         /* XLA's spatial order */
      case 1: ks[i] = (keyed){len, v->size, 0, i}; break;         /* XLA's temporal order */
      case 2: ks[i] = (keyed){v->size * len, v->size, 0, i}; break; /* area */
      case 3: ks[i] = (keyed){-v->lower, v->size, 0, i}; break;   /* start */
      case 4: ks[i] = (keyed){deg, v->size, 0, i}; break;         /* conflicts */
      default:                                                     /* USMP: size or conflicts, then the other, then the name */
        ks[i] = r == 10 ? (keyed){v->size, deg, 0, i} : (keyed){deg, v->size, 0, i};
      }
    }
    usmp_names = names;
    qsort(ks, (size_t)m, sizeof *ks, r >= 10 ? by_usmp : by_key);
    for (int i = 0; i < m; i++) order[i] = ks[i].id;
    int64_t arena = place(&c, order, r >= 10 ? 2 : r % 2, align, off, buf, placed);
    s.rule[s.candidates] = rule_names[r];
    s.rule_arena[s.candidates] = arena;
    s.candidates++;
    if (best < 0 || arena < best) {
      best = arena;
      memcpy(best_off, off, sizeof *off * (size_t)m);
      s.winner = rule_names[r];
    }
  }
  if (m == 0) best = 0, s.winner = "-";
  int64_t budget = o && o->node_budget ? o->node_budget : 2000000;
  bool proven = best == s.lower_bound;
  if (!proven && budget > 0 && m <= TIR_PLAN_SEARCH_MAX)
    proven = improve(&c, s.lower_bound, align, budget, &best, best_off, &s.winner, &s.nodes, &s.runs, buf, placed);
  for (int k = 0; k < m; k++) iv[map[k]].offset = best_off[k];
  s.arena = best;
  s.proven_optimal = proven;
  s.gap_percent = s.lower_bound ? 100.0 * (double)(s.arena - s.lower_bound) / (double)s.lower_bound : 0;
  for (int k = 0; k < m; k++) pv[k].offset = best_off[k];
  bool valid = tir_plan_valid(pv, m, align) && arena_of(pv, best_off, m) == best;
  free_ctx(&c);
  free(ks);
  free(order);
  free(off);
  free(best_off);
  free(buf);
  free(placed);
  free(pv);
  free(map);
  free(names);
  if (st) *st = s;
  if (!valid || !tir_plan_valid(iv, n, align)) {
    tir_error(d, ((tir_span){0, 0}), "internal error: the memory plan failed validation");
    return -1;
  }
  return 0;
}
