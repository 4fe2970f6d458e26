/* search.c - the exact search of the interval packer: buffers are placed
 * in non-decreasing offset order, each at the lowest offset its placed
 * conflicts leave it (first fit in the order of an optimal solution's
 * offsets reproduces that solution, so this is complete); branch over the
 * buffers that can take the lowest free offset, prune where the bytes still
 * to place at some program point do not fit under the capacity.  A
 * deterministic node budget bounds it. */
#include <stdlib.h>
#include <string.h>

#include "memplan/search.h"

typedef struct srch {
  const tir_interval *iv;
  int n;
  int **adj;
  const int *deg;
  int64_t cap, align;
  int64_t *lo;        /* lowest offset each unplaced buffer can take */
  char *placed;
  int64_t *off;
  int nsec;           /* program points between consecutive range ends */
  int *sec_lo, *sec_hi; /* each buffer's sections [sec_lo, sec_hi) */
  int64_t *rest;      /* bytes of unplaced buffers live in a section */
  int64_t *top;       /* the highest end of a placed buffer in a section */
  int64_t nodes, budget;
  int *order;         /* candidate scratch per depth */
} srch;

static int64_t align_up(int64_t v, int64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int find_point(const int64_t *pts, int n, int64_t v) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (pts[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* does every section still fit, with the next offset at least x? */
static bool fits(const srch *s, int64_t x) {
  for (int k = 0; k < s->nsec; k++) {
    if (!s->rest[k]) continue;
    int64_t floor = s->top[k] > x ? s->top[k] : x;
    if (floor + s->rest[k] > s->cap) return false;
  }
  return true;
}

static bool dfs(srch *s, int left, int64_t x) {
  if (left == 0) return true;
  if (++s->nodes > s->budget) return false;
  /* the lowest offset any unplaced buffer can take */
  int64_t next = -1;
  for (int i = 0; i < s->n; i++)
    if (!s->placed[i]) {
      int64_t l = align_up(s->lo[i] > x ? s->lo[i] : x, s->align);
      if (next < 0 || l < next) next = l;
    }
  if (!fits(s, next)) return false;
  /* candidates: the buffers that can sit at `next`, largest first */
  int *cand = s->order + (size_t)(s->n - left) * (size_t)s->n;
  int nc = 0;
  for (int i = 0; i < s->n; i++)
    if (!s->placed[i] && align_up(s->lo[i] > x ? s->lo[i] : x, s->align) == next) cand[nc++] = i;
  for (int a = 1; a < nc; a++) { /* insertion sort: size desc, then length desc, then id */
    int v = cand[a], b = a - 1;
    while (b >= 0) {
      const tir_interval *p = &s->iv[cand[b]], *q = &s->iv[v];
      bool before = q->size > p->size ||
                    (q->size == p->size && (q->upper - q->lower > p->upper - p->lower ||
                                            (q->upper - q->lower == p->upper - p->lower && v < cand[b])));
      if (!before) break;
      cand[b + 1] = cand[b];
      b--;
    }
    cand[b + 1] = v;
  }
  for (int a = 0; a < nc; a++) {
    int i = cand[a];
    const tir_interval *b = &s->iv[i];
    if (next + b->size > s->cap) continue;
    /* place i at next */
    s->placed[i] = 1;
    s->off[i] = next;
    int64_t *saved_lo = malloc(sizeof *saved_lo * (size_t)(s->deg[i] ? s->deg[i] : 1));
    int64_t *saved_top = malloc(sizeof *saved_top * (size_t)(s->sec_hi[i] - s->sec_lo[i] + 1));
    for (int e = 0; e < s->deg[i]; e++) {
      int j = s->adj[i][e];
      saved_lo[e] = s->lo[j];
      if (!s->placed[j] && s->lo[j] < next + b->size) s->lo[j] = next + b->size;
    }
    for (int k = s->sec_lo[i]; k < s->sec_hi[i]; k++) {
      saved_top[k - s->sec_lo[i]] = s->top[k];
      s->rest[k] -= b->size;
      if (s->top[k] < next + b->size) s->top[k] = next + b->size;
    }
    bool ok = dfs(s, left - 1, next);
    for (int k = s->sec_lo[i]; k < s->sec_hi[i]; k++) {
      s->top[k] = saved_top[k - s->sec_lo[i]];
      s->rest[k] += b->size;
    }
    for (int e = 0; e < s->deg[i]; e++) s->lo[s->adj[i][e]] = saved_lo[e];
    free(saved_lo);
    free(saved_top);
    s->placed[i] = 0;
    if (ok) return true;
    if (s->nodes > s->budget) return false;
  }
  return false;
}

int tir_plan_search(const tir_interval *iv, int n, int **adj, const int *deg, int64_t cap, int64_t align,
                    int64_t budget, int64_t *off, int64_t *nodes) {
  srch s = {iv, n, adj, deg, cap, align > 1 ? align : 1, NULL, NULL, off, 0, NULL, NULL, NULL, NULL, 0, budget, NULL};
  size_t nn = n > 0 ? (size_t)n : 1;
  int64_t *pts = malloc(sizeof *pts * 2 * nn);
  s.lo = calloc(nn, sizeof *s.lo);
  s.placed = calloc(nn, 1);
  s.sec_lo = malloc(sizeof *s.sec_lo * nn);
  s.sec_hi = malloc(sizeof *s.sec_hi * nn);
  s.order = malloc(sizeof *s.order * nn * nn); /* the callers keep n small (TIR_PLAN_SEARCH_MAX) */
  if (!pts || !s.lo || !s.placed || !s.sec_lo || !s.sec_hi || !s.order) abort();
  int np = 0;
  for (int i = 0; i < n; i++) pts[np++] = iv[i].lower, pts[np++] = iv[i].upper;
  qsort(pts, (size_t)np, sizeof *pts, cmp64);
  int u = 0;
  for (int k = 0; k < np; k++)
    if (!u || pts[k] != pts[u - 1]) pts[u++] = pts[k];
  s.nsec = u > 0 ? u - 1 : 0;
  s.rest = calloc((size_t)(s.nsec + 1), sizeof *s.rest);
  s.top = calloc((size_t)(s.nsec + 1), sizeof *s.top);
  if (!s.rest || !s.top) abort();
  for (int i = 0; i < n; i++) {
    s.sec_lo[i] = find_point(pts, u, iv[i].lower);
    s.sec_hi[i] = find_point(pts, u, iv[i].upper);
    for (int k = s.sec_lo[i]; k < s.sec_hi[i]; k++) s.rest[k] += iv[i].size;
  }
  int r = dfs(&s, n, 0) ? 1 : (s.nodes > budget ? -1 : 0);
  *nodes = s.nodes;
  free(pts);
  free(s.lo);
  free(s.placed);
  free(s.sec_lo);
  free(s.sec_hi);
  free(s.order);
  free(s.rest);
  free(s.top);
  return r;
}
