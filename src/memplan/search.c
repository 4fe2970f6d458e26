/* search.c - the exact search of the interval packer.
 *
 * Buffers are placed in non-decreasing offset order, each at the highest
 * end of its placed conflicts (its "floor": it rests on one of them or on
 * 0).  Every plan can be pushed down until each buffer rests so, without
 * raising the arena; placing that plan's buffers in the order of their
 * offsets reproduces it, so searching these placements is complete.
 *
 * At each node the level is the lowest floor of an unplaced buffer.  The
 * search picks one section (the span between consecutive range ends) where
 * a buffer can start at the level, and branches: one of the section's
 * buffers starts there, or none does (each is barred from the level, and
 * must later rest on something higher).  Every plan so placed is found on
 * exactly one path, whatever the section picked: the pick is a heuristic.
 *
 * Pruning (each sound):
 *  - section inference: the unplaced buffers of a section lie above the
 *    lowest of their floors, so that plus their bytes fits the capacity;
 *  - twins: buffers with the same range and size are interchangeable: they
 *    are placed in preorder;
 *  - stacks: two buffers with the same range, one right on the other, can
 *    swap places: such a stack goes up in preorder;
 *  - decomposition: when the unplaced buffers fall apart into groups whose
 *    ranges do not meet, each group is solved on its own, and a group
 *    without a solution fails the node without trying the others' choices.
 * A deterministic node budget bounds each run. */
#include <stdlib.h>
#include <string.h>

#include "memplan/search.h"

typedef struct excl_save {
  int b;
  int64_t excl;
} excl_save;

struct tir_search {
  const tir_interval *iv;
  int n;
  int **adj;
  const int *deg;
  int64_t align;
  int nsec;
  int *sl, *sh;     /* each buffer's sections [sl, sh) */
  int *same;        /* the next buffer with the same range (a cycle) */
  int64_t *total;   /* bytes live in each section */
  /* one run */
  int64_t cap;
  int sel, val;
  int *rank;        /* preorder rank of each buffer */
  int *byrank;      /* the buffer of each rank */
  int *twin;        /* the previous buffer in preorder with the same range and size, or -1 */
  int *nx, *pv;     /* the unplaced buffers, a list by rank with head n */
  int64_t *lo;      /* the highest end of a placed conflict */
  int64_t *excl;    /* barred at or below this offset */
  int *ucount;      /* unplaced conflicts */
  int64_t *off;
  char *placed;
  int64_t *rest;    /* bytes of unplaced buffers live in a section */
  int64_t *top;     /* the highest end of a placed buffer in a section */
  int64_t *tstack;  /* saved tops */
  size_t tsp;
  int64_t *score;   /* scratch: the waste each candidate makes */
  int *lvl;         /* scratch: the buffers that can start at the level */
  int64_t *floor_;  /* scratch: the lowest floor of an unplaced buffer in a section */
  int *cnt;         /* scratch: buffers that can start at the level in a section */
  int *ws;          /* a stack of scratch slices (candidates, groups) */
  size_t wtop, wcap;
  int64_t *stack;   /* saved floors */
  size_t sp;
  excl_save *estack;
  size_t esp, ecap;
  int *trail;       /* the buffers placed, in order */
  size_t tn;
  int *reach;       /* scratch of the decomposition */
  int *live_off, *live; /* the buffers live in each section */
  int *wit;         /* the last buffer of each section's list that showed it fits */
  unsigned *stamp;  /* sections counted in the current epoch */
  unsigned epoch;
  uint64_t *mark;   /* sections to check, a bitset */
  size_t mwords;
  int64_t nodes, budget;
  size_t deepest;   /* the most buffers placed at once in this run */
  int *dtrail;      /* the buffers placed then */
  size_t lcp;       /* how much of dtrail the trail still shares */
  char *left;       /* the buffers unplaced then (at the end of the run) */
  int *cross;       /* unplaced buffers live on both sides of each section start */
};

/* m ints on the scratch stack: their index */
static size_t ws_push(tir_search *s, size_t m) {
  if (s->wtop + m > s->wcap) {
    while (s->wtop + m > s->wcap) s->wcap *= 2;
    s->ws = realloc(s->ws, sizeof *s->ws * s->wcap);
    if (!s->ws) abort();
  }
  s->wtop += m;
  return s->wtop - m;
}

static int64_t align_up(int64_t v, int64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) abort();
  return p;
}

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

typedef struct keyed3 {
  int64_t lower, upper;
  int id;
} keyed3;

static int by_range(const void *x, const void *y) {
  const keyed3 *a = x, *b = y;
  if (a->lower != b->lower) return a->lower < b->lower ? -1 : 1;
  if (a->upper != b->upper) return a->upper < b->upper ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
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

tir_search *tir_search_new(const tir_interval *iv, int n, int **adj, const int *deg, int64_t align) {
  tir_search *s = calloc(1, sizeof *s);
  if (!s) abort();
  s->iv = iv;
  s->n = n;
  s->adj = adj;
  s->deg = deg;
  s->align = align > 1 ? align : 1;
  size_t nn = n > 0 ? (size_t)n : 1;
  int64_t *pts = xmalloc(sizeof *pts * 2 * nn);
  int np = 0;
  for (int i = 0; i < n; i++) pts[np++] = iv[i].lower, pts[np++] = iv[i].upper;
  qsort(pts, (size_t)np, sizeof *pts, cmp64);
  int u = 0;
  for (int k = 0; k < np; k++)
    if (!u || pts[k] != pts[u - 1]) pts[u++] = pts[k];
  s->nsec = u > 0 ? u - 1 : 0;
  size_t ns = (size_t)s->nsec + 1;
  s->sl = xmalloc(sizeof *s->sl * nn);
  s->sh = xmalloc(sizeof *s->sh * nn);
  s->total = calloc(ns, sizeof *s->total);
  if (!s->total) abort();
  for (int i = 0; i < n; i++) {
    s->sl[i] = find_point(pts, u, iv[i].lower);
    s->sh[i] = find_point(pts, u, iv[i].upper);
    for (int k = s->sl[i]; k < s->sh[i]; k++) s->total[k] += iv[i].size;
  }
  free(pts);
  s->same = xmalloc(sizeof *s->same * nn);
  keyed3 *ks = xmalloc(sizeof *ks * nn);
  for (int i = 0; i < n; i++) ks[i] = (keyed3){iv[i].lower, iv[i].upper, i};
  qsort(ks, (size_t)n, sizeof *ks, by_range);
  for (int a = 0, z; a < n; a = z) {
    for (z = a + 1; z < n && ks[z].lower == ks[a].lower && ks[z].upper == ks[a].upper; z++) {}
    for (int q = a; q < z; q++) s->same[ks[q].id] = ks[q + 1 < z ? q + 1 : a].id;
  }
  free(ks);
  size_t sumdeg = 0;
  for (int i = 0; i < n; i++) sumdeg += (size_t)deg[i];
  s->rank = xmalloc(sizeof *s->rank * nn);
  s->byrank = xmalloc(sizeof *s->byrank * nn);
  s->twin = xmalloc(sizeof *s->twin * nn);
  s->nx = xmalloc(sizeof *s->nx * (nn + 1));
  s->pv = xmalloc(sizeof *s->pv * (nn + 1));
  s->lo = xmalloc(sizeof *s->lo * nn);
  s->excl = xmalloc(sizeof *s->excl * nn);
  s->ucount = xmalloc(sizeof *s->ucount * nn);
  s->placed = xmalloc(nn);
  s->left = xmalloc(nn);
  s->dtrail = xmalloc(sizeof *s->dtrail * nn);
  s->cross = calloc(ns, sizeof *s->cross);
  if (!s->cross) abort();
  s->rest = xmalloc(sizeof *s->rest * ns);
  s->top = xmalloc(sizeof *s->top * ns);
  size_t sumspan = 0;
  for (int i = 0; i < n; i++) sumspan += (size_t)(s->sh[i] - s->sl[i]);
  s->tstack = xmalloc(sizeof *s->tstack * (sumspan + 1));
  s->score = xmalloc(sizeof *s->score * nn);
  s->lvl = xmalloc(sizeof *s->lvl * nn);
  s->floor_ = xmalloc(sizeof *s->floor_ * ns);
  s->cnt = xmalloc(sizeof *s->cnt * ns);
  s->reach = xmalloc(sizeof *s->reach * ns);
  s->stamp = calloc(ns, sizeof *s->stamp);
  s->mwords = (ns + 63) / 64;
  s->mark = calloc(s->mwords, sizeof *s->mark);
  if (!s->mark) abort();
  s->live_off = calloc(ns + 1, sizeof *s->live_off);
  if (!s->stamp || !s->live_off) abort();
  for (int i = 0; i < n; i++)
    for (int k = s->sl[i]; k < s->sh[i]; k++) s->live_off[k + 1]++;
  for (int k = 0; k < s->nsec; k++) s->live_off[k + 1] += s->live_off[k];
  s->live = xmalloc(sizeof *s->live * (size_t)(s->live_off[s->nsec] + 1));
  s->wit = xmalloc(sizeof *s->wit * ns);
  for (int k = 0; k < s->nsec; k++) s->wit[k] = s->live_off[k];
  {
    int *fill = calloc(ns, sizeof *fill);
    if (!fill) abort();
    for (int i = 0; i < n; i++)
      for (int k = s->sl[i]; k < s->sh[i]; k++) s->live[s->live_off[k] + fill[k]++] = i;
    free(fill);
  }
  s->wcap = 4 * nn;
  s->ws = xmalloc(sizeof *s->ws * s->wcap);
  s->stack = xmalloc(sizeof *s->stack * (sumdeg + 1));
  s->ecap = nn + 1;
  s->estack = xmalloc(sizeof *s->estack * s->ecap);
  s->trail = xmalloc(sizeof *s->trail * nn);
  return s;
}

void tir_search_free(tir_search *s) {
  if (!s) return;
  free(s->sl);
  free(s->sh);
  free(s->total);
  free(s->same);
  free(s->rank);
  free(s->byrank);
  free(s->twin);
  free(s->nx);
  free(s->pv);
  free(s->lo);
  free(s->excl);
  free(s->ucount);
  free(s->placed);
  free(s->left);
  free(s->dtrail);
  free(s->cross);
  free(s->rest);
  free(s->top);
  free(s->tstack);
  free(s->score);
  free(s->lvl);
  free(s->floor_);
  free(s->cnt);
  free(s->reach);
  free(s->stamp);
  free(s->mark);
  free(s->live_off);
  free(s->live);
  free(s->wit);
  free(s->ws);
  free(s->stack);
  free(s->estack);
  free(s->trail);
  free(s);
}

bool tir_search_left(const tir_search *s, int b) { return s->left[b]; }

int tir_search_sections(const tir_search *s, const int64_t **total) {
  *total = s->total;
  return s->nsec;
}

void tir_search_span(const tir_search *s, int b, int *first, int *end) {
  *first = s->sl[b];
  *end = s->sh[b];
}

static void unlink_(tir_search *s, int r) {
  s->nx[s->pv[r]] = s->nx[r];
  s->pv[s->nx[r]] = s->pv[r];
}

static void relink(tir_search *s, int r) {
  s->nx[s->pv[r]] = r;
  s->pv[s->nx[r]] = r;
}

static void place(tir_search *s, int b, int64_t at) {
  const tir_interval *v = &s->iv[b];
  s->placed[b] = 1;
  s->off[b] = at;
  s->trail[s->tn++] = b;
  if (s->tn > s->deepest) { /* the deepest path: copy what differs from the last one kept */
    for (size_t q = s->lcp; q < s->tn; q++) s->dtrail[q] = s->trail[q];
    s->deepest = s->lcp = s->tn;
  }
  unlink_(s, s->rank[b]);
  for (int e = 0; e < s->deg[b]; e++) {
    int j = s->adj[b][e];
    s->stack[s->sp++] = s->lo[j];
    if (!s->placed[j] && s->lo[j] < at + v->size) s->lo[j] = at + v->size;
    s->ucount[j]--;
  }
  for (int k = s->sl[b]; k < s->sh[b]; k++) {
    s->rest[k] -= v->size;
    s->tstack[s->tsp++] = s->top[k];
    if (s->top[k] < at + v->size) s->top[k] = at + v->size;
    if (k > s->sl[b]) s->cross[k]--;
  }
}

/* undoes the last placement, b (the list is left to the caller when `list` is false) */
static void unplace(tir_search *s, int b, bool list) {
  const tir_interval *v = &s->iv[b];
  for (int k = s->sh[b] - 1; k >= s->sl[b]; k--) {
    s->rest[k] += v->size;
    s->top[k] = s->tstack[--s->tsp];
  }
  for (int e = s->deg[b] - 1; e >= 0; e--) {
    s->lo[s->adj[b][e]] = s->stack[--s->sp];
    s->ucount[s->adj[b][e]]++;
  }
  for (int k = s->sl[b] + 1; k < s->sh[b]; k++) s->cross[k]++;
  if (list) relink(s, s->rank[b]);
  s->placed[b] = 0;
  s->tn--;
  if (s->tn < s->lcp) s->lcp = s->tn;
}

/* buffers with the same range stacked one right on the other can swap
 * places: such a stack goes up in preorder */
static bool stacked_out_of_order(const tir_search *s, int b, int64_t at) {
  if (s->iv[b].size % s->align) return false;
  for (int a = s->same[b]; a != b; a = s->same[a])
    if (s->placed[a] && s->off[a] + s->iv[a].size == at && s->rank[a] > s->rank[b] && s->iv[a].size % s->align == 0)
      return true;
  return false;
}

static int dfs(tir_search *s, bool split);

/* solves the unplaced buffers group by group when they fall apart */
static int by_groups(tir_search *s, bool *handled) {
  *handled = false;
  int ns = s->nsec, ng = 0;
  int *reach = s->reach; /* the furthest section end of an unplaced buffer starting at k */
  for (int k = 0; k < ns; k++) reach[k] = -1;
  for (int r = s->nx[s->n]; r != s->n; r = s->nx[r]) {
    int b = s->byrank[r];
    if (reach[s->sl[b]] < s->sh[b]) reach[s->sl[b]] = s->sh[b];
  }
  int end = -1;
  for (int k = 0; k < ns; k++) {
    if (reach[k] < 0) continue;
    if (k >= end) ng++, end = reach[k];
    else if (reach[k] > end) end = reach[k];
  }
  if (ng < 2) return 0;
  *handled = true;
  /* the group of each section where an unplaced buffer starts */
  int g = -1;
  end = -1;
  for (int k = 0; k < ns; k++) {
    if (reach[k] < 0) continue;
    if (k >= end) g++, end = reach[k];
    else if (reach[k] > end) end = reach[k];
    reach[k] = g;
  }
  /* the unplaced buffers and their groups, a slice past those of the callers */
  int m = 0;
  for (int r = s->nx[s->n]; r != s->n; r = s->nx[r]) m++;
  size_t base = ws_push(s, 2 * (size_t)m);
#define SAVED(q) s->ws[base + 2 * (size_t)(q)]
#define GOF(q) s->ws[base + 2 * (size_t)(q) + 1]
  m = 0;
  for (int r = s->nx[s->n]; r != s->n; r = s->nx[r]) {
    SAVED(m) = r;
    GOF(m) = reach[s->sl[s->byrank[r]]];
    m++;
  }
  size_t mark = s->tn;
  int rc = 1;
  for (g = 0; g < ng && rc == 1; g++) {
    int prev = s->n; /* the list holds only group g */
    for (int q = 0; q < m; q++)
      if (GOF(q) == g) {
        s->nx[prev] = SAVED(q);
        s->pv[SAVED(q)] = prev;
        prev = SAVED(q);
      }
    s->nx[prev] = s->n;
    s->pv[s->n] = prev;
    rc = dfs(s, false);
  }
  if (rc != 1)
    while (s->tn > mark) unplace(s, s->trail[s->tn - 1], false);
  int prev = s->n; /* the list of all m, less those placed */
  for (int q = 0; q < m; q++) {
    if (s->placed[s->byrank[SAVED(q)]]) continue;
    s->nx[prev] = SAVED(q);
    s->pv[SAVED(q)] = prev;
    prev = SAVED(q);
  }
#undef SAVED
#undef GOF
  s->nx[prev] = s->n;
  s->pv[s->n] = prev;
  s->wtop = base;
  return rc;
}

/* the floor of b, or -1 when b is barred from it */
static int64_t floor_of(const tir_search *s, int b) {
  int64_t l = align_up(s->lo[b], s->align);
  return l <= s->excl[b] ? -1 : l;
}

/* the lowest offset b can take from here on */
static int64_t lowest(const tir_search *s, int b) {
  int64_t f = floor_of(s, b);
  return f >= 0 ? f : align_up(s->excl[b] + 1, s->align);
}

/* the lowest floor of an unplaced buffer in section k (INT64_MAX: none) */
static int64_t sec_floor(const tir_search *s, int k) {
  int64_t f = INT64_MAX;
  for (int q = s->live_off[k]; q < s->live_off[k + 1]; q++) {
    int b = s->live[q];
    if (s->placed[b]) continue;
    int64_t l = lowest(s, b);
    if (l < f) f = l;
  }
  return f;
}

/* the marked sections: a bitset */
static void mark_clear(tir_search *s) { memset(s->mark, 0, sizeof *s->mark * s->mwords); }

static void mark_span(tir_search *s, int b) {
  int a = s->sl[b], z = s->sh[b]; /* bits [a, z) */
  while (a < z) {
    int w = a >> 6, lo = a & 63, hi = z - (w << 6) < 64 ? z - (w << 6) : 64;
    uint64_t bits = (hi == 64 ? ~0ULL : (1ULL << hi) - 1) & ~((1ULL << lo) - 1);
    s->mark[w] |= bits;
    a = (w + 1) << 6;
  }
}

/* the sections whose floors the last placement (b) may have raised: b's and
 * those of the conflicts it lifted */
static void mark_placed(tir_search *s, int b) {
  mark_clear(s);
  mark_span(s, b);
  size_t at = s->sp - (size_t)s->deg[b];
  for (int e = 0; e < s->deg[b]; e++) {
    int j = s->adj[b][e];
    if (!s->placed[j] && s->stack[at + (size_t)e] != s->lo[j]) mark_span(s, j);
  }
}

#define FOR_MARKED(s, k)                                                                   \
  for (size_t w_ = 0; w_ < (s)->mwords; w_++)                                              \
    for (uint64_t m_ = (s)->mark[w_]; m_; m_ &= m_ - 1)                                    \
      for (int k = (int)(w_ * 64 + (size_t)__builtin_ctzll(m_)), once_ = 1; once_; once_ = 0)

/* is buffer b (unplaced) still placeable? */
static bool buffer_ok(const tir_search *s, int b) {
  if (floor_of(s, b) < 0 && !s->ucount[b]) return false; /* barred with nothing left to rest on */
  return lowest(s, b) + s->iv[b].size <= s->cap;
}

/* section inference on the sections marked from `base` up: some unplaced
 * buffer of each lies low enough for all of them to fit above it */
static bool sections_ok(tir_search *s) {
  FOR_MARKED(s, k) {
    if (!s->rest[k]) continue;
    int64_t limit = s->cap - s->rest[k];
    int a = s->live_off[k], z = s->live_off[k + 1], w = s->wit[k], i = w;
    bool ok = false;
    do { /* from the buffer that showed it last time: often still does */
      int b = s->live[i];
      if (!s->placed[b] && lowest(s, b) <= limit) {
        ok = true;
        s->wit[k] = i;
      }
      if (++i == z) i = a;
    } while (!ok && i != w);
    if (!ok) return false;
  }
  return true;
}

/* the bytes below the floors of the marked sections that nothing can use */
static int64_t marked_waste(const tir_search *s) {
  int64_t w = 0;
  FOR_MARKED(s, k) {
    int64_t f = sec_floor(s, k);
    if (f == INT64_MAX) continue;
    w += f - s->top[k];
    if (f + s->rest[k] > s->cap) w += (int64_t)1 << 40;
  }
  return w;
}

/* after placing b: b's lifted conflicts placeable, and the sections fit */
static bool placed_ok(tir_search *s, int b) {
  size_t at = s->sp - (size_t)s->deg[b];
  for (int e = 0; e < s->deg[b]; e++) {
    int j = s->adj[b][e];
    if (!s->placed[j] && (s->stack[at + (size_t)e] != s->lo[j] || !s->ucount[j]) && !buffer_ok(s, j)) return false;
  }
  mark_placed(s, b);
  return sections_ok(s);
}

/* 1 a completion was found (left in place), 0 none exists, -1 out of
 * budget.  The caller has checked the state; `split`: look for groups. */
static int dfs(tir_search *s, bool split) {
  int head = s->n, rc = 0;
  size_t emark = s->esp;
  for (;;) { /* each pass: one node; barring a section's buffers loops back */
    if (s->nx[head] == head) {
      rc = 1;
      break;
    }
    if (++s->nodes > s->budget) {
      rc = -1;
      break;
    }
    /* the level, and the buffers that can start there (in preorder) */
    int64_t next = INT64_MAX;
    int nl = 0;
    for (int r = s->nx[head]; r != head; r = s->nx[r]) {
      int b = s->byrank[r];
      int64_t f = floor_of(s, b);
      if (f < 0 || f > next) continue;
      if (f < next) next = f, nl = 0;
      s->lvl[nl++] = b;
    }
    if (next == INT64_MAX) break; /* every one barred */
    if (split) {
      bool handled;
      rc = by_groups(s, &handled);
      if (handled) break;
    }
    split = true;
    /* the section to branch on */
    s->epoch++;
    size_t sbase = s->wtop;
    for (int a = 0; a < nl; a++) {
      int b = s->lvl[a];
      for (int k = s->sl[b]; k < s->sh[b]; k++) {
        if (s->stamp[k] != s->epoch) {
          s->stamp[k] = s->epoch;
          s->cnt[k] = 0;
          size_t at = ws_push(s, 1);
          s->ws[at] = k;
        }
        s->cnt[k]++;
      }
    }
    int k = -1;
    int64_t best = 0;
    for (size_t q0 = sbase; q0 < s->wtop; q0++) {
      int q = s->ws[q0];
      int64_t slack = s->cap - next - s->rest[q], key;
      switch (s->sel) {
      case 0: key = (slack > 0 ? (int64_t)1 << 40 : 0) + s->cnt[q]; break; /* tight, then fewest choices */
      case 1: key = q; break;                                               /* earliest */
      case 2: key = (slack > 0 ? (int64_t)1 << 40 : 0) + q; break;          /* tight, then earliest */
      case 3: key = -q; break;                                              /* latest */
      case 4: key = slack; break;                                           /* least slack */
      default: key = s->cnt[q]; break;                                      /* fewest choices */
      }
      if (k < 0 || key < best || (key == best && q < k)) k = q, best = key;
    }
    s->wtop = sbase;
    /* its buffers that can start at the level, in preorder, by length or by waste */
    int nc = 0;
    for (int a = 0; a < nl; a++) {
      int b = s->lvl[a];
      if (s->sl[b] <= k && k < s->sh[b]) nc++;
    }
    size_t base = ws_push(s, (size_t)nc);
#define CAND(a) s->ws[base + (size_t)(a)]
    nc = 0;
    for (int a = 0; a < nl; a++) {
      int b = s->lvl[a];
      if (s->sl[b] <= k && k < s->sh[b]) CAND(nc++) = b;
    }
    if (s->val == 1) { /* longest first */
      for (int a = 1; a < nc; a++) {
        int v = CAND(a), z = a - 1;
        int64_t w = s->sh[v] - s->sl[v];
        while (z >= 0 && s->sh[CAND(z)] - s->sl[CAND(z)] < w) CAND(z + 1) = CAND(z), z--;
        CAND(z + 1) = v;
      }
    } else if (s->val == 2 && nc > 1) { /* least waste first */
      for (int a = 0; a < nc; a++) {
        int b = CAND(a);
        s->nodes++;
        place(s, b, next);
        mark_placed(s, b);
        int64_t w = marked_waste(s);
        unplace(s, b, true);
        s->score[b] = w - marked_waste(s);
      }
      for (int a = 1; a < nc; a++) {
        int v = CAND(a), z = a - 1;
        while (z >= 0 && s->score[CAND(z)] > s->score[v]) CAND(z + 1) = CAND(z), z--;
        CAND(z + 1) = v;
      }
    }
    for (int a = 0; a < nc && rc >= 0; a++) {
      int b = CAND(a);
      if (s->twin[b] >= 0 && !s->placed[s->twin[b]]) continue;
      if (stacked_out_of_order(s, b, next)) continue;
      place(s, b, next);
      if (placed_ok(s, b)) {
        bool gap = false; /* the unplaced may fall apart only where b was the last across */
        for (int q = s->sl[b] + 1; q < s->sh[b] && !gap; q++) gap = !s->cross[q];
        rc = dfs(s, gap);
        if (rc == 1) break;
      }
      unplace(s, b, true);
    }
    if (rc != 0 || s->cap - next - s->rest[k] <= 0) { /* the level must be used in section k */
      s->wtop = base;
      break;
    }
    /* none starts at the level in section k: bar its buffers there */
    if (s->esp + (size_t)nc > s->ecap) {
      while (s->esp + (size_t)nc > s->ecap) s->ecap *= 2;
      s->estack = realloc(s->estack, sizeof *s->estack * s->ecap);
      if (!s->estack) abort();
    }
    bool ok = true;
    for (int a = 0; a < nc; a++) {
      s->estack[s->esp++] = (excl_save){CAND(a), s->excl[CAND(a)]};
      s->excl[CAND(a)] = next;
      if (!buffer_ok(s, CAND(a))) ok = false;
    }
    if (ok) {
      mark_clear(s);
      for (int a = 0; a < nc; a++) mark_span(s, CAND(a));
      ok = sections_ok(s);
    }
#undef CAND
    s->wtop = base;
    if (!ok) break;
  }
  while (s->esp > emark) {
    s->esp--;
    s->excl[s->estack[s->esp].b] = s->estack[s->esp].excl;
  }
  return rc;
}

int tir_search_run(tir_search *s, int64_t cap, const int *order, int sel, int val, int64_t budget, int64_t *off,
                   int64_t *nodes) {
  const tir_interval *iv = s->iv;
  int n = s->n;
  s->cap = cap;
  s->sel = sel;
  s->val = val;
  s->budget = budget;
  s->nodes = 0;
  s->off = off;
  s->sp = s->esp = s->tn = s->deepest = s->lcp = 0;
  for (int r = 0; r < n; r++) s->byrank[r] = order[r], s->rank[order[r]] = r;
  for (int r = 0; r < n; r++) { /* twins are adjacent in a preorder that ties on range and size */
    int b = s->byrank[r];
    s->twin[b] = -1;
    for (int q = r - 1; q >= 0 && r - q <= 8; q--) {
      int c = s->byrank[q];
      if (iv[c].lower == iv[b].lower && iv[c].upper == iv[b].upper && iv[c].size == iv[b].size) {
        s->twin[b] = c;
        break;
      }
    }
  }
  for (int r = 0; r < n; r++) s->nx[r] = r + 1, s->pv[r] = r - 1;
  s->nx[n] = n ? 0 : n;
  s->pv[n] = n ? n - 1 : n;
  if (n) s->pv[0] = n;
  for (int i = 0; i < n; i++) {
    s->lo[i] = 0;
    s->excl[i] = -1;
    s->ucount[i] = s->deg[i];
    s->placed[i] = 0;
  }
  memset(s->cross, 0, sizeof *s->cross * (size_t)(s->nsec + 1));
  for (int i = 0; i < n; i++)
    for (int k = s->sl[i] + 1; k < s->sh[i]; k++) s->cross[k]++;
  memcpy(s->rest, s->total, sizeof *s->rest * (size_t)(s->nsec + 1));
  memset(s->top, 0, sizeof *s->top * (size_t)(s->nsec + 1));
  s->tsp = 0;
  /* the root: every buffer placeable, every section fits */
  int r = 0;
  bool ok = true;
  for (int i = 0; i < n && ok; i++) ok = buffer_ok(s, i);
  for (int k = 0; k < s->nsec && ok; k++) ok = s->total[k] <= cap;
  if (ok) r = dfs(s, true);
  s->wtop = 0;
  *nodes = s->nodes;
  memset(s->left, 1, (size_t)n);
  for (size_t q = 0; q < s->deepest; q++) s->left[s->dtrail[q]] = 0;
  return r;
}
