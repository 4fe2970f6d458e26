/* carry_check.c - a cheap exact test before isl's, for tir_loop_carries:
 * a read of a buffer whose value no earlier iteration of the loop can
 * have given it.  Each index is an affine form over the access's own dims
 * (its loops, each min + t with t in [0, extent - 1]; its bindings, their
 * values), the loop's var, and vars one value for every access (the loops
 * around the loop, parameters).  A read is not carried when
 *
 *  - every write, at an earlier iteration, touches elements apart from
 *    what the read touches at a later one in some dimension: the forms
 *    differ by a * (i - i') + [L, H], and no k = i - i' >= 1 of the loop
 *    puts 0 in a * k + [L, H]; or
 *  - one write of the iteration, unconditional and wholly before the read
 *    (no ordered loop of the loop's body around both, earlier in order),
 *    writes every element of a box holding all the read touches.
 *
 * A fused loop's floordiv and floormod by a constant c are affine where
 * exact: the offsets whose coefficient divides c split (t = m q + r), the
 * rest of the dividend a multiple of c plus a part in [0, c - 1]; of vars
 * one value for all accesses alone, one more such var (an atom).  Split
 * offsets are not independent of the offset split: a write with some
 * covers nothing.  Conditions are left out (fewer elements read or
 * written elsewhere only strengthen the answer), and so it only ever
 * answers "not carried"; where it cannot tell (a form not affine, a range
 * not constant), isl does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer_internal.h"

/* coef * key: a var one value for all accesses, or (ext > 0) one of the
 * access's loops' offsets t in [0, ext - 1] */
typedef struct lterm {
  const void *key;
  int64_t coef, ext;
} lterm;

typedef struct lform {
  int64_t k;
  lterm *t;
  int n, cap;
} lform;

/* what the accesses of one check share: the loop's var, and the keys of
 * floordiv/floormod of vars one value for all accesses ("atoms", by their
 * forms' text) and of the parts of split offsets, freed with it */
typedef struct carry_ctx {
  const tir_expr *var;
  tir_strmap atoms; /* form text -> index in tok + 1 */
  char **tok;
  int ntok, cap;
} carry_ctx;

static const void *new_key(carry_ctx *cx) {
  if (cx->ntok == cx->cap) {
    cx->cap = cx->cap ? 2 * cx->cap : 16;
    cx->tok = realloc(cx->tok, sizeof *cx->tok * (size_t)cx->cap);
    if (!cx->tok) abort();
  }
  char *t = malloc(1);
  if (!t) abort();
  cx->tok[cx->ntok++] = t;
  return t;
}

/* an offset t split as m * q + r (q in [0, ext / m - 1], r in [0, m - 1]) */
typedef struct split_rec {
  const void *t, *q, *r;
  int64_t m;
} split_rec;

/* one access: its dims by var, their forms (memo) */
typedef struct acc_forms {
  carry_ctx *cx;
  split_rec *splits; /* an access whose offsets were split covers nothing (covers) */
  int nsplits, splits_cap;
  const tir_flow_access *x;
  tir_ptrmap at; /* var -> dim index + 1; -1 where two dims bind it */
  lform *dim;
  char *state;   /* per dim: 0 not yet, 1 in progress, 2 done, 3 failed */
  lform *idx;    /* per index */
  bool ok;       /* every index affine */
} acc_forms;

#define LIN_MAX 1000000000000LL /* past this, a form is given up (no overflow) */

static bool lf_add_term(lform *f, const void *key, int64_t coef, int64_t ext) {
  if (!coef) return true;
  for (int i = 0; i < f->n; i++)
    if (f->t[i].key == key) {
      f->t[i].coef += coef;
      if (f->t[i].coef > LIN_MAX || f->t[i].coef < -LIN_MAX) return false;
      if (!f->t[i].coef) f->t[i] = f->t[--f->n];
      return true;
    }
  if (f->n == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 4;
    f->t = realloc(f->t, sizeof *f->t * (size_t)f->cap);
    if (!f->t) abort();
  }
  f->t[f->n++] = (lterm){key, coef, ext};
  return true;
}

static bool scaled(int64_t a, int64_t s, int64_t *out) {
  if (a > LIN_MAX || a < -LIN_MAX || s > LIN_MAX || s < -LIN_MAX) return false;
  if (a && (s > LIN_MAX / (a < 0 ? -a : a) || s < -LIN_MAX / (a < 0 ? -a : a))) return false;
  *out = a * s;
  return true;
}

/* f += s * g */
static bool lf_add_form(lform *f, const lform *g, int64_t s) {
  int64_t v;
  if (!scaled(g->k, s, &v)) return false;
  f->k += v;
  if (f->k > LIN_MAX || f->k < -LIN_MAX) return false;
  for (int i = 0; i < g->n; i++)
    if (!scaled(g->t[i].coef, s, &v) || !lf_add_term(f, g->t[i].key, v, g->t[i].ext)) return false;
  return true;
}

static bool dim_form(acc_forms *af, int j);
static bool lf_add_expr(acc_forms *af, lform *f, const tir_expr *e, int64_t s);

/* the parts of offset t (extent ext) split by m, made once per access */
static const split_rec *split_of(acc_forms *af, const void *t, int64_t m) {
  for (int i = 0; i < af->nsplits; i++)
    if (af->splits[i].t == t && af->splits[i].m == m) return &af->splits[i];
  if (af->nsplits == af->splits_cap) {
    af->splits_cap = af->splits_cap ? 2 * af->splits_cap : 4;
    af->splits = realloc(af->splits, sizeof *af->splits * (size_t)af->splits_cap);
    if (!af->splits) abort();
  }
  split_rec *r = &af->splits[af->nsplits++];
  *r = (split_rec){t, new_key(af->cx), new_key(af->cx), m};
  return r;
}

static int by_key(const void *a, const void *b) {
  const lterm *x = a, *y = b;
  return (x->key > y->key) - (x->key < y->key);
}

/* f += s * (g floordiv c), or floormod where `mod`; g is consumed.  Exact
 * only: g = c * (fixed part / c + high offsets / c) + low, the fixed
 * part's coefficients multiples of c and low in [0, c - 1], once offsets
 * t * coef with coef dividing c are split (t = m q + r, m = c / coef).
 * Of vars one value for all accesses alone (not the loop's), an atom. */
static bool lf_add_divmod(acc_forms *af, lform *f, lform *g, int64_t c, bool mod, int64_t s) {
  bool ok = true, fixed_only = true, divisible = g->k % c == 0;
  for (int i = 0; i < g->n; i++) {
    if (g->t[i].ext) fixed_only = false;
    else if (g->t[i].key == af->cx->var) fixed_only = false, divisible = divisible && g->t[i].coef % c == 0;
    else divisible = divisible && g->t[i].coef % c == 0;
  }
  if (fixed_only && !divisible && g->n) {
    qsort(g->t, (size_t)g->n, sizeof *g->t, by_key);
    char buf[64];
    size_t cap = 64 + 48 * (size_t)g->n, n = 0;
    char *text = malloc(cap);
    if (!text) abort();
    n += (size_t)snprintf(text + n, cap - n, "%c%lld:%lld", mod ? '%' : '/', (long long)c, (long long)g->k);
    for (int i = 0; i < g->n; i++) {
      snprintf(buf, sizeof buf, " %p*%lld", g->t[i].key, (long long)g->t[i].coef);
      n += (size_t)snprintf(text + n, cap - n, "%s", buf);
    }
    long *at = tir_strmap_at(&af->cx->atoms, text, 0);
    if (!*at) {
      new_key(af->cx);
      *at = af->cx->ntok;
    }
    ok = lf_add_term(f, af->cx->tok[*at - 1], s, 0);
    free(text);
    free(g->t);
    return ok;
  }
  lform q = {ana_floordiv(g->k, c), NULL, 0, 0}, low = {ana_floormod(g->k, c), NULL, 0, 0};
  for (int i = 0; i < g->n && ok; i++) {
    const lterm *t = &g->t[i];
    if (t->coef % c == 0) ok = lf_add_term(&q, t->key, t->coef / c, t->ext);
    else if (!t->ext) ok = false;
    else if (t->coef > 0 && c % t->coef == 0 && t->ext % (c / t->coef) == 0) {
      int64_t m = c / t->coef;
      const split_rec *sp = split_of(af, t->key, m);
      if (t->ext / m > 1) ok = lf_add_term(&q, sp->q, 1, t->ext / m);
      if (ok && m > 1) ok = lf_add_term(&low, sp->r, t->coef, m);
    } else ok = lf_add_term(&low, t->key, t->coef, t->ext);
  }
  int64_t lo = low.k, hi = low.k, span = 0;
  for (int i = 0; i < low.n && ok; i++) {
    ok = scaled(low.t[i].coef, low.t[i].ext - 1, &span);
    *(span < 0 ? &lo : &hi) += span;
    ok = ok && lo >= -LIN_MAX && hi <= LIN_MAX;
  }
  ok = ok && lo >= 0 && hi <= c - 1 && lf_add_form(f, mod ? &low : &q, s);
  free(q.t);
  free(low.t);
  free(g->t);
  return ok;
}

/* f += s * e */
static bool lf_add_expr(acc_forms *af, lform *f, const tir_expr *e, int64_t s) {
  if (!e || e->dtype.lanes != 1 || !tir_dtype_is_int(e->dtype)) return false;
  int64_t v;
  switch (e->kind) {
  case TIR_INT_IMM:
    if (!scaled(e->u.int_val, s, &v)) return false;
    f->k += v;
    return f->k <= LIN_MAX && f->k >= -LIN_MAX;
  case TIR_VAR: {
    long j = tir_ptrmap_get(&af->at, e, 0);
    if (j < 0) return false;
    if (!j) return lf_add_term(f, e, s, 0);
    return dim_form(af, (int)j - 1) && lf_add_form(f, &af->dim[j - 1], s);
  }
  case TIR_ADD: return lf_add_expr(af, f, e->u.bin.a, s) && lf_add_expr(af, f, e->u.bin.b, s);
  case TIR_SUB: return lf_add_expr(af, f, e->u.bin.a, s) && lf_add_expr(af, f, e->u.bin.b, -s);
  case TIR_MUL:
    if (tir_is_const_int(e->u.bin.b, &v)) return scaled(v, s, &v) && lf_add_expr(af, f, e->u.bin.a, v);
    if (tir_is_const_int(e->u.bin.a, &v)) return scaled(v, s, &v) && lf_add_expr(af, f, e->u.bin.b, v);
    return false;
  case TIR_FLOORDIV:
  case TIR_FLOORMOD: {
    if (!tir_is_const_int(e->u.bin.b, &v) || v <= 0 || v > LIN_MAX) return false;
    lform g = {0};
    if (!lf_add_expr(af, &g, e->u.bin.a, 1)) {
      free(g.t);
      return false;
    }
    return lf_add_divmod(af, f, &g, v, e->kind == TIR_FLOORMOD, s);
  }
  case TIR_CAST: {
    /* a widening int cast keeps the value */
    tir_dtype from = e->u.un.a->dtype;
    if (!tir_dtype_is_int(from) || from.lanes != 1) return false;
    bool same = e->dtype.code == from.code, to_signed = e->dtype.code == TIR_TC_INT;
    if (!(same ? e->dtype.bits >= from.bits : to_signed && e->dtype.bits > from.bits)) return false;
    return lf_add_expr(af, f, e->u.un.a, s);
  }
  default: return false;
  }
}

/* dim j's form: a binding's value, or a loop's min + its offset */
static bool dim_form(acc_forms *af, int j) {
  if (af->state[j] == 2) return true;
  if (af->state[j]) return false; /* failed, or bound through itself */
  af->state[j] = 1;
  const tir_relax_var *d = &af->x->dims[j];
  lform *f = &af->dim[j];
  bool ok = lf_add_expr(af, f, d->min, 1);
  if (ok && d->extent) {
    /* an ordered loop's offset is named by the loop, so that accesses
     * inside one loop can be compared at one iteration of it */
    int64_t ext;
    ok = tir_is_const_int(d->extent, &ext) && ext >= 1 && ext <= LIN_MAX;
    if (ok && ext > 1) ok = lf_add_term(f, j < af->x->nloops ? af->x->loop_ids[j] : (const void *)d, 1, ext);
  }
  af->state[j] = ok ? 2 : 3;
  return ok;
}

static void forms_init(acc_forms *af, carry_ctx *cx, const tir_flow_access *x) {
  memset(af, 0, sizeof *af);
  af->cx = cx;
  af->x = x;
  int nd = x->ndims > 0 ? x->ndims : 1, ni = x->ndim > 0 ? x->ndim : 1;
  af->dim = calloc((size_t)nd, sizeof *af->dim);
  af->state = calloc((size_t)nd, 1);
  af->idx = calloc((size_t)ni, sizeof *af->idx);
  if (!af->dim || !af->state || !af->idx) abort();
  for (int j = 0; j < x->ndims; j++) {
    const tir_expr *v = x->dims[j].var;
    tir_ptrmap_put(&af->at, v, tir_ptrmap_get(&af->at, v, 0) ? -1 : j + 1);
  }
  af->ok = true;
  for (int d = 0; d < x->ndim && af->ok; d++) af->ok = lf_add_expr(af, &af->idx[d], x->idx[d], 1);
}

static void forms_free(acc_forms *af) {
  for (int j = 0; j < af->x->ndims; j++) free(af->dim[j].t);
  for (int d = 0; d < af->x->ndim; d++) free(af->idx[d].t);
  free(af->dim);
  free(af->state);
  free(af->idx);
  free(af->splits);
  tir_ptrmap_free(&af->at);
}

/* the range of a var one value for all accesses: an outer loop's (constant) */
typedef struct fixed_ranges {
  tir_ptrmap at; /* var -> index in lo/hi + 1 */
  int64_t *lo, *hi;
} fixed_ranges;

/* s * [lo, hi] added to [*L, *H] */
static bool add_range(int64_t *L, int64_t *H, int64_t s, int64_t lo, int64_t hi) {
  int64_t a, b;
  if (!scaled(lo, s, &a) || !scaled(hi, s, &b)) return false;
  *L += a < b ? a : b;
  *H += a < b ? b : a;
  return *L >= -LIN_MAX && *L <= LIN_MAX && *H >= -LIN_MAX && *H <= LIN_MAX;
}

/* the ordered loops around both r and w (the first `n` of w's): at one
 * iteration of them, their offsets are one value for both */
typedef struct shared_loops {
  const void *const *ids;
  int n;
} shared_loops;

static bool is_shared(const shared_loops *sh, const void *key) {
  for (int i = 0; sh && i < sh->n; i++)
    if (sh->ids[i] == key) return true;
  return false;
}

/* [L, H]: the range of r - w, each one's offsets apart but the shared
 * ones, the vars one value for both by their ranges (`skip`, the loop's
 * var, left out) */
static bool diff_range(const lform *r, const lform *w, const fixed_ranges *fr, const shared_loops *sh,
                       const void *skip, int64_t *L, int64_t *H) {
  *L = *H = r->k - w->k;
  for (int side = 0; side < 2; side++) {
    const lform *f = side ? w : r;
    int64_t sg = side ? -1 : 1;
    for (int i = 0; i < f->n; i++) {
      const lterm *t = &f->t[i];
      if (t->key == skip) continue;
      bool shared = t->ext && is_shared(sh, t->key);
      if (t->ext && !shared) {
        if (!add_range(L, H, sg * t->coef, 0, t->ext - 1)) return false;
        continue;
      }
      /* one value for both: its net coefficient, counted once (on r's side, or w's where r has none) */
      int64_t net = sg * t->coef;
      const lform *o = side ? r : w;
      bool in_other = false;
      for (int q = 0; q < o->n; q++)
        if (o->t[q].key == t->key) {
          in_other = true;
          net += -sg * o->t[q].coef;
        }
      if (in_other && side) continue; /* counted from r */
      if (!net) continue;
      if (shared) {
        if (!add_range(L, H, net, 0, t->ext - 1)) return false;
        continue;
      }
      long k = tir_ptrmap_get(&fr->at, t->key, 0);
      if (!k || !add_range(L, H, net, fr->lo[k - 1], fr->hi[k - 1])) return false;
    }
  }
  return true;
}

static int64_t coef_of(const lform *f, const void *key) {
  for (int i = 0; i < f->n; i++)
    if (f->t[i].key == key) return f->t[i].coef;
  return 0;
}

/* no k in [1, K] with 0 in a * k + [L, H] */
static bool apart(int64_t a, int64_t L, int64_t H, int64_t K) {
  if (K < 1) return true;
  if (!a) return L > 0 || H < 0;
  int64_t lo, hi;
  if (a > 0) { /* -H <= a k <= -L */
    lo = -ana_floordiv(H, a);
    hi = ana_floordiv(-L, a);
  } else { /* L <= b k <= H, b = -a */
    lo = -ana_floordiv(-L, -a);
    hi = ana_floordiv(H, -a);
  }
  if (lo < 1) lo = 1;
  if (hi > K) hi = K;
  return lo > hi;
}

/* does w, at an earlier iteration, write nothing r reads at a later one? */
static bool pair_apart(const acc_forms *r, const acc_forms *w, const tir_expr *var, const fixed_ranges *fr,
                       int64_t K, bool have_range, int64_t vlo, int64_t vhi) {
  if (K < 1) return true;
  for (int d = 0; d < r->x->ndim; d++) {
    const lform *fr_ = &r->idx[d], *fw = &w->idx[d];
    int64_t L, H;
    if (!diff_range(fr_, fw, fr, NULL, var, &L, &H)) continue;
    /* r(i) - w(i') = ar (i - i') + (ar - aw) i' + [L, H], i' a value of the loop but its last */
    int64_t ar = coef_of(fr_, var), aw = coef_of(fw, var);
    if (ar != aw && (!have_range || !add_range(&L, &H, ar - aw, vlo, vhi - 1))) continue;
    if (apart(ar, L, H, K)) return true;
  }
  return false;
}

static bool lf_equal(const lform *f, const lform *g) {
  if (f->k != g->k || f->n != g->n) return false;
  for (int i = 0; i < f->n; i++)
    if (coef_of(g, f->t[i].key) != f->t[i].coef) return false;
  return true;
}

/* does w write every element of the box [lo, hi] of its forms at one
 * iteration of the shared loops (each other offset in one dimension,
 * each dimension's offsets leaving no gap)? */
static bool dense(const acc_forms *w, const shared_loops *sh) {
  for (int d = 0; d < w->x->ndim; d++) {
    const lform *f = &w->idx[d];
    int64_t reach = 0;
    bool *used = calloc((size_t)(f->n ? f->n : 1), 1);
    if (!used) abort();
    bool ok = true;
    for (int step = 0; step < f->n && ok; step++) {
      int best = -1; /* the unused offset of least |coef| */
      for (int i = 0; i < f->n; i++) {
        if (used[i] || !f->t[i].ext || is_shared(sh, f->t[i].key)) continue;
        if (best < 0 || llabs(f->t[i].coef) < llabs(f->t[best].coef)) best = i;
      }
      if (best < 0) break;
      used[best] = true;
      int64_t c = llabs(f->t[best].coef), span;
      ok = c <= reach + 1 && scaled(c, f->t[best].ext - 1, &span) && (reach += span) <= LIN_MAX;
      for (int e = 0; e < w->x->ndim && ok; e++) /* in no other dimension */
        if (e != d && coef_of(&w->idx[e], f->t[best].key)) ok = false;
    }
    free(used);
    if (!ok) return false;
  }
  return true;
}

/* are w's conditions all constant true (a block's predicate True)? */
static bool unconditional(const tir_flow_access *w) {
  for (int i = 0; i < w->nconds; i++) {
    const tir_expr *c = w->conds[i];
    bool neg = w->neg && w->neg[i];
    if (!c || c->kind != TIR_INT_IMM || (c->u.int_val != 0) == neg) return false;
  }
  return true;
}

/* does w, at each iteration of the ordered loops around both, write all r
 * reads there before r reads it?  (w unconditional, earlier in order) */
static bool covers(acc_forms *r, acc_forms *w, const fixed_ranges *fr) {
  const tir_flow_access *rx = r->x, *wx = w->x;
  if (!unconditional(wx) || wx->seq >= rx->seq || w->nsplits) return false;
  shared_loops sh = {wx->loop_ids, 0};
  while (sh.n < wx->nloops && sh.n < rx->nloops && wx->loop_ids[sh.n] == rx->loop_ids[sh.n]) sh.n++;
  /* one offset of a shared loop is one value of its var only where its
   * min is one value for both (not over a loop each ranges on its own) */
  for (int j = 0; j < sh.n; j++)
    if (!dim_form(r, j) || !dim_form(w, j) || !lf_equal(&r->dim[j], &w->dim[j])) return false;
  for (int d = 0; d < rx->ndim; d++) {
    /* w's least and greatest element: r - least >= 0 and r - greatest <= 0 */
    const lform *wf = &w->idx[d];
    lform lo = {wf->k, NULL, 0, 0}, hi = {wf->k, NULL, 0, 0};
    bool ok = true;
    for (int i = 0; i < wf->n && ok; i++) {
      const lterm *t = &wf->t[i];
      int64_t span;
      if (!t->ext || is_shared(&sh, t->key))
        ok = lf_add_term(&lo, t->key, t->coef, t->ext) && lf_add_term(&hi, t->key, t->coef, t->ext);
      else if ((ok = scaled(t->coef, t->ext - 1, &span))) *(span < 0 ? &lo.k : &hi.k) += span;
    }
    int64_t L, H, L2, H2;
    ok = ok && lo.k >= -LIN_MAX && hi.k <= LIN_MAX && diff_range(&r->idx[d], &lo, fr, &sh, NULL, &L, &H) &&
         diff_range(&r->idx[d], &hi, fr, &sh, NULL, &L2, &H2) && L >= 0 && H2 <= 0;
    free(lo.t);
    free(hi.t);
    if (!ok) return false;
  }
  return dense(w, &sh);
}

void ana_uncarried_reads(const tir_expr *var, tir_expr *min, tir_expr *extent, const tir_relax_var *outer,
                         int nouter, const tir_flow_access *acc, int nacc, bool *uncarried) {
  /* the iterations k apart: 1 .. extent - 1; where there are none, nothing is carried */
  int64_t vmin = 0, vext = 0, m, e;
  bool const_ext = tir_is_const_int(extent, &vext) && vext <= LIN_MAX;
  int64_t K = const_ext ? vext - 1 : LIN_MAX;
  for (int i = 0; i < nacc; i++) uncarried[i] = K < 1 && !acc[i].write;
  if (K < 1) return;
  bool have_range = const_ext && tir_is_const_int(min, &vmin) && vmin >= -LIN_MAX && vmin <= LIN_MAX;
  fixed_ranges fr = {0};
  fr.lo = malloc(sizeof *fr.lo * (size_t)(nouter + 1));
  fr.hi = malloc(sizeof *fr.hi * (size_t)(nouter + 1));
  if (!fr.lo || !fr.hi) abort();
  int nfr = 0;
  for (int i = 0; i <= nouter; i++) {
    const tir_expr *v = i < nouter ? outer[i].var : var;
    bool known = i < nouter ? tir_is_const_int(outer[i].min, &m) && tir_is_const_int(outer[i].extent, &e)
                            : (m = vmin, e = vext, have_range);
    if (!known || e < 1 || m < -LIN_MAX || m > LIN_MAX || e > LIN_MAX || tir_ptrmap_get(&fr.at, v, 0)) continue;
    fr.lo[nfr] = m;
    fr.hi[nfr] = m + e - 1;
    tir_ptrmap_put(&fr.at, v, ++nfr);
  }
  acc_forms *af = malloc(sizeof *af * (size_t)(nacc ? nacc : 1));
  if (!af) abort();
  carry_ctx cx = {.var = var};
  for (int i = 0; i < nacc; i++) forms_init(&af[i], &cx, &acc[i]);
  for (int ri = 0; ri < nacc; ri++) {
    const tir_flow_access *r = &acc[ri];
    if (r->write || !af[ri].ok) continue;
    bool all_apart = true, covered = false;
    for (int wi = 0; wi < nacc && all_apart; wi++) {
      if (!acc[wi].write || acc[wi].ndim != r->ndim) continue;
      all_apart = af[wi].ok && pair_apart(&af[ri], &af[wi], var, &fr, K, have_range, vmin, vmin + vext - 1);
    }
    for (int wi = 0; wi < nacc && !all_apart && !covered; wi++)
      covered = acc[wi].write && acc[wi].ndim == r->ndim && af[wi].ok && covers(&af[ri], &af[wi], &fr);
    uncarried[ri] = all_apart || covered;
  }
  for (int i = 0; i < nacc; i++) forms_free(&af[i]);
  for (int i = 0; i < cx.ntok; i++) free(cx.tok[i]);
  free(cx.tok);
  tir_strmap_free(&cx.atoms);
  free(af);
  free(fr.lo);
  free(fr.hi);
  tir_ptrmap_free(&fr.at);
}
