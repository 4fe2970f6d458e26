/* region_affine.c - the bounding box of a union of accesses where interval
 * arithmetic is already exact, so that no isl set need be built.
 *
 * An access dim whose index is affine in the relaxed vars, sum c_j*r_j +
 * K + b (K a sum of kept vars, b a constant), with each r_j over a box
 * [m_j, m_j + e_j) (m_j affine in kept vars, e_j a constant >= 1) and every
 * region extent a constant >= 1, covers for each value of the kept vars
 * exactly the integers between
 *   lo = K + b + sum_j c_j * (c_j > 0 ? m_j : m_j + e_j - 1)
 *   hi = K + b + sum_j c_j * (c_j > 0 ? m_j + e_j - 1 : m_j) + extent - 1
 * at its ends: the r_j are independent, so each term reaches its own min and
 * max at once (at box corners).  The union's box is then the hull of these,
 * and when every lo (and every hi) differs from the others by a constant,
 * that hull is one affine end, which is what isl's dim_min / dim_max give.
 * A condition that compares one relaxed var with a constant (k == 0 under a
 * reduction's init, i < 5) narrows that var's box and keeps it a box; an
 * access whose box becomes empty is no access at all, as for isl.
 * Anything else (other conditions, floordiv/floormod left after canonical form,
 * products of vars, loads, ends that are no constant apart) returns false
 * and the caller asks isl. */
#include <stdlib.h>
#include <string.h>

#include "analysis/analyzer_internal.h"

#define AFF_MAX_TERMS 16

/* base + sum k_i * var_i over kept vars (no two terms the same var) */
typedef struct kform {
  int64_t base;
  int n;
  const tir_expr *var[AFF_MAX_TERMS];
  int64_t k[AFF_MAX_TERMS];
} kform;

static bool kf_add_term(kform *f, const tir_expr *v, int64_t k) {
  for (int i = 0; i < f->n; i++)
    if (f->var[i] == v) return !__builtin_add_overflow(f->k[i], k, &f->k[i]);
  if (f->n == AFF_MAX_TERMS) return false;
  f->var[f->n] = v;
  f->k[f->n++] = k;
  return true;
}

/* f += k * g */
static bool kf_add(kform *f, const kform *g, int64_t k) {
  int64_t t;
  if (__builtin_mul_overflow(g->base, k, &t) || __builtin_add_overflow(f->base, t, &f->base)) return false;
  for (int i = 0; i < g->n; i++)
    if (__builtin_mul_overflow(g->k[i], k, &t) || !kf_add_term(f, g->var[i], t)) return false;
  return true;
}

/* same kept part: the two differ by a constant */
static bool kf_same_vars(const kform *f, const kform *g) {
  int nf = 0, ng = 0;
  for (int i = 0; i < f->n; i++) nf += f->k[i] != 0;
  for (int i = 0; i < g->n; i++) ng += g->k[i] != 0;
  if (nf != ng) return false;
  for (int i = 0; i < f->n; i++) {
    if (!f->k[i]) continue;
    int j = 0;
    while (j < g->n && g->var[j] != f->var[i]) j++;
    if (j == g->n || g->k[j] != f->k[i]) return false;
  }
  return true;
}

static int relax_index(const tir_access_region *acc, const tir_expr *v) {
  for (int i = 0; i < acc->nrelax; i++)
    if (acc->relax[i].var == v) return i;
  return -1;
}

/* the linear reading of a canonical expr: k * e into f (kept vars) and
 * coef[] (relaxed vars, NULL when none may occur) */
static bool read_lin(const tir_access_region *acc, const tir_expr *e, int64_t k, tir_dtype dt, kform *f,
                     int64_t *coef) {
  int64_t c, t;
  switch (e->kind) {
  case TIR_INT_IMM:
    return !__builtin_mul_overflow(e->u.int_val, k, &t) && !__builtin_add_overflow(f->base, t, &f->base);
  case TIR_ADD:
  case TIR_SUB:
    return read_lin(acc, e->u.bin.a, k, dt, f, coef) &&
           read_lin(acc, e->u.bin.b, e->kind == TIR_SUB ? -k : k, dt, f, coef);
  case TIR_MUL:
    if (tir_is_const_int(e->u.bin.b, &c))
      return !__builtin_mul_overflow(c, k, &t) && read_lin(acc, e->u.bin.a, t, dt, f, coef);
    if (tir_is_const_int(e->u.bin.a, &c))
      return !__builtin_mul_overflow(c, k, &t) && read_lin(acc, e->u.bin.b, t, dt, f, coef);
    return false;
  case TIR_VAR: {
    if (!tir_dtype_eq(e->dtype, dt)) return false;
    int j = relax_index(acc, e);
    if (j < 0) return kf_add_term(f, e, k);
    return coef && !__builtin_add_overflow(coef[j], k, &coef[j]);
  }
  default: return false;
  }
}

/* the relax domains of one access as kept forms: [min, min + ext) */
typedef struct dom {
  kform min;
  int64_t ext;
} dom;

static bool read_doms(tir_analyzer *a, const tir_access_region *acc, tir_dtype dt, dom *doms) {
  for (int j = 0; j < acc->nrelax; j++) {
    const tir_relax_var *r = &acc->relax[j];
    if (!tir_dtype_eq(r->var->dtype, dt) || !r->min || !r->extent) return false;
    tir_expr *ext = ana_canonical(a, r->extent);
    if (!tir_is_const_int(ext, &doms[j].ext) || doms[j].ext < 1) return false;
    memset(&doms[j].min, 0, sizeof doms[j].min);
    if (!read_lin(acc, ana_canonical(a, r->min), 1, dt, &doms[j].min, NULL)) return false;
  }
  return true;
}

/* lo and hi of dim d of one access (relax vars bound as ranges) */
static bool access_ends(tir_analyzer *a, const tir_access_region *acc, const dom *doms, int d, tir_dtype dt,
                        kform *lo, kform *hi) {
  int64_t ext, coef[64] = {0};
  if (acc->nrelax > 64) return false;
  const tir_range *r = &acc->region[d];
  if (!tir_dtype_eq(r->min->dtype, dt) || !tir_is_const_int(ana_canonical(a, r->extent), &ext) || ext < 1)
    return false;
  kform f;
  memset(&f, 0, sizeof f);
  if (!read_lin(acc, ana_canonical(a, r->min), 1, dt, &f, coef)) return false;
  *lo = f;
  *hi = f;
  for (int j = 0; j < acc->nrelax; j++) {
    int64_t c = coef[j], span;
    if (!c) continue;
    if (__builtin_mul_overflow(c, doms[j].ext - 1, &span)) return false;
    if (!kf_add(lo, &doms[j].min, c) || !kf_add(hi, &doms[j].min, c)) return false;
    kform *far = c > 0 ? hi : lo; /* the end that takes min + ext - 1 */
    if (__builtin_add_overflow(far->base, span, &far->base)) return false;
  }
  return !__builtin_add_overflow(hi->base, ext - 1, &hi->base);
}

/* kept vars in the order isl would name them (first use, as written), so
 * that equal coefficients print in the same order either way */
static void note_vars(const tir_access_region *acc, const tir_expr *e, const tir_expr **seen, int *n, int cap) {
  if (!e) return;
  if (e->kind == TIR_VAR) {
    if (relax_index(acc, e) >= 0) return;
    for (int i = 0; i < *n; i++)
      if (seen[i] == e) return;
    if (*n < cap) seen[(*n)++] = e;
    return;
  }
  if (TIR_IS_BINARY(e->kind)) {
    note_vars(acc, e->u.bin.a, seen, n, cap);
    note_vars(acc, e->u.bin.b, seen, n, cap);
  }
}

static bool kf_fits(const kform *f, tir_dtype dt) {
  for (int i = 0; i < f->n; i++)
    if (!ana_fits(dt, f->k[i])) return false;
  return ana_fits(dt, f->base);
}

static tir_expr *kf_expr(tir_analyzer *a, const kform *f, const tir_expr *const *order, int norder, tir_dtype dt) {
  tir_ctx *c = a->c;
  tir_expr *sum = tir_int(c, dt, f->base);
  bool *used = calloc((size_t)(f->n ? f->n : 1), sizeof *used);
  if (!used) abort();
  for (int o = 0; o <= norder; o++)
    for (int i = 0; i < f->n; i++) {
      if (used[i] || !f->k[i] || (o < norder && f->var[i] != order[o])) continue;
      used[i] = true;
      sum = tir_binary(c, TIR_ADD, sum, tir_binary(c, TIR_MUL, (tir_expr *)f->var[i], tir_int(c, dt, f->k[i])));
    }
  free(used);
  return ana_canonical(a, sum);
}

typedef struct hull {
  kform lo, hi;
  bool any;
} hull;

/* widen the hull by one access's ends: false when not a constant apart */
static bool hull_add(hull *h, const kform *lo, const kform *hi) {
  if (!h->any) {
    h->lo = *lo;
    h->hi = *hi;
    h->any = true;
    return kf_same_vars(lo, hi);
  }
  if (!kf_same_vars(&h->lo, lo) || !kf_same_vars(&h->hi, hi)) return false;
  if (lo->base < h->lo.base) h->lo = *lo;
  if (hi->base > h->hi.base) h->hi = *hi;
  return true;
}

static bool access_usable(const tir_access_region *acc, int ndim) { return acc->ndim == ndim && acc->nrelax <= 64; }

static int64_t floor_div(int64_t p, int64_t q) { return ana_floordiv(p, q); }
static int64_t ceil_div(int64_t p, int64_t q) { return -ana_floordiv(-p, q); }

/* c*r + b <= 0 narrows dom j (constant min); false when not a box */
static bool narrow_le(dom *dm, int64_t c, int64_t b) {
  if (dm->min.n) return false; /* a symbolic min: max(min, k) is no affine end */
  int64_t lo = dm->min.base, hi, t;
  if (__builtin_add_overflow(lo, dm->ext - 1, &hi)) return false;
  t = -b; /* c*r <= t */
  if (c > 0) {
    int64_t m = floor_div(t, c);
    if (m < hi) hi = m;
  } else {
    int64_t m = ceil_div(-t, -c); /* r >= t / c */
    if (m > lo) lo = m;
  }
  dm->min.base = lo;
  dm->ext = hi < lo ? 0 : hi - lo + 1;
  return true;
}

/* a comparison of one relaxed var with a constant: narrows its box */
static bool narrow_cmp(tir_analyzer *a, const tir_access_region *acc, tir_expr *cond, dom *doms) {
  if (!TIR_IS_CMP(cond->kind) || cond->kind == TIR_NE || !ana_is_index_type(cond->u.bin.a->dtype)) return false;
  tir_dtype dt = cond->u.bin.a->dtype;
  int64_t coef[64] = {0};
  kform f;
  memset(&f, 0, sizeof f);
  tir_expr *diff = ana_canonical(a, tir_binary(a->c, TIR_SUB, cond->u.bin.a, cond->u.bin.b));
  if (!read_lin(acc, diff, 1, dt, &f, coef)) return false;
  int j = -1;
  for (int i = 0; i < f.n; i++)
    if (f.k[i]) return false; /* a kept var: empty for some of its values */
  for (int i = 0; i < acc->nrelax; i++) {
    if (!coef[i]) continue;
    if (j >= 0) return false;
    j = i;
  }
  int64_t c = j >= 0 ? coef[j] : 0, b = f.base;
  const int64_t lim = (int64_t)1 << 62;
  if (j < 0 || c <= -lim || c >= lim || b <= -lim || b >= lim) return false;
  switch (cond->kind) { /* diff = c*r + b, OP 0 */
  case TIR_LT: return narrow_le(&doms[j], c, b + 1);
  case TIR_LE: return narrow_le(&doms[j], c, b);
  case TIR_GT: return narrow_le(&doms[j], -c, -b + 1);
  case TIR_GE: return narrow_le(&doms[j], -c, -b);
  default: return narrow_le(&doms[j], c, b) && narrow_le(&doms[j], -c, -b); /* EQ */
  }
}

/* the access's conditions narrow its boxes; *empty when one is false */
static bool narrow_conds(tir_analyzer *a, const tir_access_region *acc, dom *doms, bool *empty) {
  *empty = false;
  for (int i = 0; i < acc->nconds; i++) {
    tir_expr *stack[16];
    int n = 0;
    stack[n++] = ana_canonical(a, acc->conds[i]);
    while (n > 0) {
      tir_expr *c = stack[--n];
      bool v;
      if (c->kind == TIR_INT_IMM && tir_dtype_is_bool(c->dtype)) {
        v = c->u.int_val != 0;
        if (!v) *empty = true;
        continue;
      }
      if (c->kind == TIR_AND && n + 2 <= 16) {
        stack[n++] = c->u.bin.a;
        stack[n++] = c->u.bin.b;
        continue;
      }
      if (!narrow_cmp(a, acc, c, doms)) return false;
    }
  }
  for (int j = 0; j < acc->nrelax; j++)
    if (doms[j].ext < 1) *empty = true;
  return true;
}

bool ana_affine_bbox(tir_analyzer *a, const tir_access_region *acc, int nacc, int ndim, tir_range *out) {
  if (nacc <= 0 || ndim <= 0 || a->nconds > 0) return false;
  for (int i = 0; i < nacc; i++)
    if (!access_usable(&acc[i], ndim)) return false;
  hull *h = malloc(sizeof *h * (size_t)ndim);
  dom *doms = NULL;
  if (!h) abort();
  for (int d = 0; d < ndim; d++) h[d].any = false;
  bool ok = true;
  for (int i = 0; i < nacc && ok; i++) {
    const tir_access_region *ac = &acc[i];
    for (int d = 0; d < ndim && ok; d++)
      ok = ac->region[d].min && ac->region[d].extent && ana_is_index_type(ac->region[d].min->dtype) &&
           tir_dtype_eq(ac->region[d].min->dtype, acc[0].region[d].min->dtype);
    if (!ok) break;
    ana_saved sv;
    ana_push_ranges(a, ac->relax, ac->nrelax, &sv);
    free(doms);
    doms = malloc(sizeof *doms * (size_t)(ac->nrelax ? ac->nrelax : 1));
    if (!doms) abort();
    tir_dtype dt0 = acc[0].region[0].min->dtype;
    bool empty = false;
    ok = read_doms(a, ac, dt0, doms) && narrow_conds(a, ac, doms, &empty);
    for (int d = 0; d < ndim && ok && !empty; d++) {
      kform lo, hi;
      tir_dtype dt = acc[0].region[d].min->dtype;
      ok = tir_dtype_eq(dt, dt0) && access_ends(a, ac, doms, d, dt, &lo, &hi) && hull_add(&h[d], &lo, &hi);
    }
    ana_pop_ranges(a, &sv);
  }
  for (int d = 0; d < ndim && ok; d++) ok = h[d].any; /* every access empty: isl's answer */
  if (ok) {
    const tir_expr *order[AFF_MAX_TERMS * 2];
    int norder = 0;
    for (int i = 0; i < nacc; i++) {
      for (int d = 0; d < ndim; d++) {
        note_vars(&acc[i], acc[i].region[d].min, order, &norder, AFF_MAX_TERMS * 2);
        note_vars(&acc[i], acc[i].region[d].extent, order, &norder, AFF_MAX_TERMS * 2);
      }
      for (int j = 0; j < acc[i].nrelax; j++) {
        note_vars(&acc[i], acc[i].relax[j].min, order, &norder, AFF_MAX_TERMS * 2);
        note_vars(&acc[i], acc[i].relax[j].extent, order, &norder, AFF_MAX_TERMS * 2);
      }
    }
    for (int d = 0; d < ndim; d++) {
      tir_dtype dt = acc[0].region[d].min->dtype;
      int64_t ext;
      if (__builtin_sub_overflow(h[d].hi.base, h[d].lo.base, &ext) || __builtin_add_overflow(ext, 1, &ext) ||
          !ana_fits(dt, ext) || !kf_fits(&h[d].lo, dt)) {
        ok = false;
        break;
      }
      out[d].min = kf_expr(a, &h[d].lo, order, norder, dt);
      out[d].extent = tir_int(a->c, dt, ext);
    }
  }
  free(doms);
  free(h);
  return ok;
}
