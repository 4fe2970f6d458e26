/* isl_bridge.c - quasi-affine facts to isl and back.
 *
 * An expr becomes a linear form over the dims of a query: the kept vars
 * (parameters or set dims), the tuple dims (a region's d<j>, a read's
 * loops), and existential dims: the relaxed vars of one access, and one
 * fresh dim for each floor division, min, max, select or truncdiv (with
 * the constraints that define it) and for each atom isl cannot express (a
 * load, a product of vars: bounded by the atom's bounds), so a proof over
 * the fresh dims stays sound.  The same subexpression twice is the same
 * dim.  Conditions become formulas of linear constraints (negations pushed
 * to the atoms), and the constraints of a fresh dim that nothing else uses
 * are left out: each defines its dim as a function of the others, so they
 * hold for some value of it whatever the rest is.  The sets are built
 * through isl's constraint API, not its text reader (whose piecewise
 * arithmetic was most of tirc's time on programs of mins and mods).
 *
 * The context (var ranges, bound values, entered constraints) is added for
 * every var met.  A claim is proved when the context and its negation have
 * no integer point; a region's box is the per-dim min/max (isl_pw_aff in
 * the kept vars) of the union of accesses.  Every isl object is freed on
 * every path; isl errors (on_error=continue) become diagnostics and a "not
 * proved". */
#include <limits.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "analysis/analyzer_internal.h"
#include "tir/visit.h"

typedef struct sbuf {
  char *s;
  size_t n, cap;
} sbuf;

static void sb_puts(sbuf *b, const char *s) {
  size_t k = strlen(s);
  if (b->n + k + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->n + k + 1) cap *= 2;
    char *p = realloc(b->s, cap);
    if (!p) abort();
    b->s = p;
    b->cap = cap;
  }
  memcpy(b->s + b->n, s, k + 1);
  b->n += k;
}

__attribute__((format(printf, 2, 3))) static void sb_printf(sbuf *b, const char *fmt, ...) {
  char tmp[128];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (k >= 0 && (size_t)k < sizeof tmp) sb_puts(b, tmp);
}

/* ---- dims, linear forms, formulas ---- */

/* a dim: kind in the low 2 bits, index above */
enum { D_VAR = 0, D_TUP = 1, D_EX = 2 };
#define DIM(k, i) ((int)(((unsigned)(i) << 2) | (unsigned)(k)))
#define DKIND(d) ((d) & 3)
#define DIDX(d) ((d) >> 2)

/* c0 + sum k[i] * d[i], in 128 bits (a sum of int64 terms scaled by an
 * int64 constant stays exact; past 128 bits the query is not asked) */
typedef __int128 big;
typedef struct lin {
  big c0;
  int n, cap;
  int *d;
  big *k;
} lin;

typedef enum { F_TRUE, F_FALSE, F_GE, F_EQ, F_AND, F_OR } fkind;

/* an atom (lin >= 0, lin = 0), or an and/or of kids */
typedef struct fm {
  fkind k;
  lin l;
  struct fm **kid;
  int nkid, capkid;
} fm;

/* what an existential dim is, for the same subexpression to reuse it */
typedef struct cse {
  int kind; /* CSE_* */
  const tir_expr *e;
  int64_t c;
  int dim;
} cse;
enum { CSE_OPAQUE, CSE_FLOOR, CSE_TRUNC, CSE_EXPR };

typedef struct def {
  int owner; /* the ex dim it defines */
  fm *f;
} def;

/* the translation state */
typedef struct tx {
  tir_analyzer *a;
  /* kept (parameter or set) vars met, in order; ctx_done: context emitted */
  const tir_expr **vars;
  int nvars, capvars, ctx_done;
  /* relaxed vars of the current access: rdim[i] is relax[i]'s dim */
  const tir_relax_var *relax;
  int nrelax;
  int *rdim;
  /* the current disjunct's existential dims and their definitions */
  int nex, natoms, nfresh;
  cse *cs;
  int ncs, capcs;
  def *defs;
  int ndefs, capdefs;
  /* floor_params: a floor of kept vars only, floor(x / c) with c > 0, is
   * one more kept var (its expr in vars), defined by pdefs (the bounding
   * box's: isl's bounds over a param are cheaper than over an existential
   * it must find the div of) */
  bool floor_params;
  fm *pdefs;
  /* every formula made, freed at the end */
  fm **pool;
  int npool, cappool;
  bool fail;
} tx;

static void *grow(void *p, int *cap, size_t elem) {
  *cap = *cap ? *cap * 2 : 8;
  void *q = realloc(p, elem * (size_t)*cap);
  if (!q) abort();
  return q;
}

static void lin_free(lin *l) {
  free(l->d);
  free(l->k);
  memset(l, 0, sizeof *l);
}

/* l += k * dim */
static void lin_term(tx *t, lin *l, int dim, big k) {
  if (!k) return;
  for (int i = 0; i < l->n; i++)
    if (l->d[i] == dim) {
      if (__builtin_add_overflow(l->k[i], k, &l->k[i])) t->fail = true;
      if (!l->k[i]) {
        l->d[i] = l->d[l->n - 1];
        l->k[i] = l->k[l->n - 1];
        l->n--;
      }
      return;
    }
  if (l->n == l->cap) {
    int cap = l->cap;
    l->d = grow(l->d, &cap, sizeof *l->d);
    cap = l->cap;
    l->k = grow(l->k, &cap, sizeof *l->k);
    l->cap = cap;
  }
  l->d[l->n] = dim;
  l->k[l->n++] = k;
}

static void lin_addc(tx *t, lin *l, big c) {
  if (__builtin_add_overflow(l->c0, c, &l->c0)) t->fail = true;
}

/* l += s * x */
static void lin_add(tx *t, lin *l, const lin *x, big s) {
  big v;
  if (__builtin_mul_overflow(x->c0, s, &v)) t->fail = true;
  else lin_addc(t, l, v);
  for (int i = 0; i < x->n; i++) {
    if (__builtin_mul_overflow(x->k[i], s, &v)) t->fail = true;
    else lin_term(t, l, x->d[i], v);
  }
}

static lin lin_copy(tx *t, const lin *x) {
  lin l = {0};
  lin_add(t, &l, x, 1);
  return l;
}

static fm *fm_new(tx *t, fkind k) {
  fm *f = calloc(1, sizeof *f);
  if (!f) abort();
  f->k = k;
  if (t->npool == t->cappool) t->pool = grow(t->pool, &t->cappool, sizeof *t->pool);
  t->pool[t->npool++] = f;
  return f;
}

/* lin >= 0 or lin = 0 (taken); a constant one is true or false */
static fm *fm_atom(tx *t, fkind k, lin l) {
  if (!l.n) {
    bool holds = k == F_GE ? l.c0 >= 0 : l.c0 == 0;
    lin_free(&l);
    return fm_new(t, holds ? F_TRUE : F_FALSE);
  }
  fm *f = fm_new(t, k);
  f->l = l;
  return f;
}

/* kid into an and/or (flattened; true in an and, false in an or, left out) */
static void fm_push(tx *t, fm *p, fm *kid) {
  (void)t;
  if (!kid) return;
  if ((p->k == F_AND && kid->k == F_TRUE) || (p->k == F_OR && kid->k == F_FALSE)) return;
  if (kid->k == p->k) {
    for (int i = 0; i < kid->nkid; i++) fm_push(t, p, kid->kid[i]);
    return;
  }
  if (p->nkid == p->capkid) p->kid = grow(p->kid, &p->capkid, sizeof *p->kid);
  p->kid[p->nkid++] = kid;
}

static fm *fm_and2(tx *t, fm *x, fm *y) {
  fm *f = fm_new(t, F_AND);
  fm_push(t, f, x);
  fm_push(t, f, y);
  return f;
}

static fm *fm_or2(tx *t, fm *x, fm *y) {
  fm *f = fm_new(t, F_OR);
  fm_push(t, f, x);
  fm_push(t, f, y);
  return f;
}

/* not f, its negation pushed to the atoms (integers: not (l >= 0) is
 * -l - 1 >= 0) */
static fm *fm_neg(tx *t, const fm *f) {
  switch (f->k) {
  case F_TRUE: return fm_new(t, F_FALSE);
  case F_FALSE: return fm_new(t, F_TRUE);
  case F_GE: {
    lin l = {0};
    lin_add(t, &l, &f->l, -1);
    lin_addc(t, &l, -1);
    return fm_atom(t, F_GE, l);
  }
  case F_EQ: {
    lin p = lin_copy(t, &f->l), q = {0};
    lin_addc(t, &p, -1);
    lin_add(t, &q, &f->l, -1);
    lin_addc(t, &q, -1);
    return fm_or2(t, fm_atom(t, F_GE, p), fm_atom(t, F_GE, q));
  }
  case F_AND:
  case F_OR: {
    fm *r = fm_new(t, f->k == F_AND ? F_OR : F_AND);
    for (int i = 0; i < f->nkid; i++) fm_push(t, r, fm_neg(t, f->kid[i]));
    return r;
  }
  }
  return fm_new(t, F_FALSE);
}

/* a op b (both taken) */
static fm *fm_cmp(tx *t, tir_expr_kind op, lin a, lin b) {
  lin l = {0};
  fm *r;
  switch (op) {
  case TIR_LT: /* a < b: b - a - 1 >= 0; a >= b: a - b >= 0 */
  case TIR_LE:
  case TIR_GT:
  case TIR_GE: {
    bool below = op == TIR_LT || op == TIR_LE;
    lin_add(t, &l, below ? &b : &a, 1);
    lin_add(t, &l, below ? &a : &b, -1);
    if (op == TIR_LT || op == TIR_GT) lin_addc(t, &l, -1);
    r = fm_atom(t, F_GE, l);
    break;
  }
  case TIR_EQ:
  case TIR_NE:
    lin_add(t, &l, &a, 1);
    lin_add(t, &l, &b, -1);
    r = fm_atom(t, F_EQ, l);
    if (op == TIR_NE) r = fm_neg(t, r);
    break;
  default: r = fm_new(t, F_FALSE); t->fail = true; break;
  }
  lin_free(&a);
  lin_free(&b);
  return r;
}

/* lo <= x < lo + ext, over lins (not taken) */
static fm *fm_range(tx *t, const lin *x, const lin *lo, const lin *ext) {
  lin p = {0}, q = {0};
  lin_add(t, &p, x, 1);
  lin_add(t, &p, lo, -1);
  lin_add(t, &q, lo, 1);
  lin_add(t, &q, ext, 1);
  lin_add(t, &q, x, -1);
  lin_addc(t, &q, -1);
  return fm_and2(t, fm_atom(t, F_GE, p), fm_atom(t, F_GE, q));
}

static lin lin_dim(int dim) {
  lin l = {0};
  tx dummy = {0};
  lin_term(&dummy, &l, dim, 1);
  return l;
}

static void tx_reset_disjunct(tx *t) {
  t->nex = t->natoms = t->nfresh = 0;
  t->ncs = t->ndefs = 0;
}

static void tx_free(tx *t) {
  for (int i = 0; i < t->npool; i++) {
    lin_free(&t->pool[i]->l);
    free(t->pool[i]->kid);
    free(t->pool[i]);
  }
  free(t->pool);
  free(t->vars);
  free(t->rdim);
  free(t->cs);
  free(t->defs);
}

static int new_ex(tx *t) { return DIM(D_EX, t->nex++); }

static void add_def(tx *t, int owner, fm *f) {
  if (t->ndefs == t->capdefs) t->defs = grow(t->defs, &t->capdefs, sizeof *t->defs);
  t->defs[t->ndefs++] = (def){owner, f};
}

static int cse_find(tx *t, int kind, const tir_expr *e, int64_t c) {
  for (int i = 0; i < t->ncs; i++)
    if (t->cs[i].kind == kind && t->cs[i].c == c && ana_expr_equal(t->cs[i].e, e)) return t->cs[i].dim;
  return -1;
}

static void cse_add(tx *t, int kind, const tir_expr *e, int64_t c, int dim) {
  if (t->ncs == t->capcs) t->cs = grow(t->cs, &t->capcs, sizeof *t->cs);
  t->cs[t->ncs++] = (cse){kind, e, c, dim};
}

static void push_ptr(const tir_expr ***arr, int *n, int *cap, const tir_expr *e) {
  if (*n == *cap) *arr = grow((void *)*arr, cap, sizeof **arr);
  (*arr)[(*n)++] = e;
}

static int relax_index(const tx *t, const tir_expr *v) {
  for (int i = 0; i < t->nrelax; i++)
    if (t->relax[i].var == v) return i;
  return -1;
}

/* a kept var's dim (met first now: the next one) */
static int var_dim(tx *t, const tir_expr *v) {
  int i;
  for (i = 0; i < t->nvars; i++)
    if (t->vars[i] == v || (v->kind != TIR_VAR && t->vars[i]->kind != TIR_VAR && ana_expr_equal(t->vars[i], v))) break;
  if (i == t->nvars) push_ptr(&t->vars, &t->nvars, &t->capvars, v);
  return DIM(D_VAR, i);
}

/* a var's dim: the current access's relaxed one, else the kept one */
static int name_var(tx *t, const tir_expr *v) {
  int r = relax_index(t, v);
  return r >= 0 ? t->rdim[r] : var_dim(t, v);
}

static lin emit_int(tx *t, const tir_expr *e);
static fm *emit_bool(tx *t, const tir_expr *e);

/* lo <= name <= hi from the atom's bounds */
static fm *bound_defs(tx *t, const tir_expr *e, int dim) {
  int64_t lo, hi;
  ana_bound(t->a, e, &lo, &hi);
  fm *f = fm_new(t, F_AND);
  if (lo != INT64_MIN) {
    lin l = lin_dim(dim);
    lin_addc(t, &l, -lo);
    fm_push(t, f, fm_atom(t, F_GE, l));
  }
  if (hi != INT64_MAX) {
    lin l = {0};
    lin_term(t, &l, dim, -1);
    lin_addc(t, &l, hi);
    fm_push(t, f, fm_atom(t, F_GE, l));
  }
  return f;
}

/* an atom isl cannot express: a fresh dim bounded by the atom's bounds
 * (the same atom twice is the same dim within one disjunct) */
static lin emit_opaque(tx *t, const tir_expr *e) {
  int d = cse_find(t, CSE_OPAQUE, e, 0);
  if (d < 0) {
    d = new_ex(t);
    t->natoms++;
    cse_add(t, CSE_OPAQUE, e, 0, d);
    add_def(t, d, bound_defs(t, e, d));
  }
  return lin_dim(d);
}

/* q = floor(x / c), c > 0, for the dim q: c*q <= x <= c*q + c - 1 */
static fm *floor_def(tx *t, const lin *x, int q, int64_t c) {
  lin lo = lin_copy(t, x), hi = {0};
  lin_term(t, &lo, q, -(big)c); /* x - c*q >= 0 */
  lin_add(t, &hi, x, -1);       /* c*q + c - 1 - x >= 0 */
  lin_term(t, &hi, q, c);
  lin_addc(t, &hi, (big)c - 1);
  return fm_and2(t, fm_atom(t, F_GE, lo), fm_atom(t, F_GE, hi));
}

/* an existential q = floor(x / c), c > 0 (x taken); the same (key, key_c)
 * is the same dim */
static int floor_dim(tx *t, const tir_expr *key, int64_t key_c, lin x, int64_t c) {
  int d = cse_find(t, CSE_FLOOR, key, key_c);
  if (d < 0) {
    d = new_ex(t);
    cse_add(t, CSE_FLOOR, key, key_c, d);
    add_def(t, d, floor_def(t, &x, d, c));
  }
  lin_free(&x);
  return d;
}

/* x // c or x % c (floor), c != 0 */
static lin emit_floor(tx *t, const tir_expr *e, int64_t c) {
  lin x = emit_int(t, e->u.bin.a);
  if (!x.n) { /* a constant: its floor division, exact */
    big q = x.c0 / c;
    if (x.c0 % c && (x.c0 < 0) != (c < 0)) q--;
    if (e->kind == TIR_FLOORMOD) q = x.c0 - q * c;
    x.c0 = q;
    return x;
  }
  bool params_only = t->floor_params && c > 0 && !t->fail;
  for (int i = 0; i < x.n && params_only; i++) params_only = DKIND(x.d[i]) == D_VAR;
  int q;
  if (params_only) {
    /* q = x // c, a kept var defined by pdefs */
    const tir_expr *fe = e->kind == TIR_FLOORDIV ? e : tir_binary(t->a->c, TIR_FLOORDIV, e->u.bin.a, e->u.bin.b);
    int before = t->nvars;
    q = var_dim(t, fe);
    if (t->nvars > before) {
      if (!t->pdefs) t->pdefs = fm_new(t, F_AND);
      fm_push(t, t->pdefs, floor_def(t, &x, q, c));
    }
  } else {
    /* x // -m == floor(-x / m) */
    lin arg = {0};
    lin_add(t, &arg, &x, c < 0 ? -1 : 1);
    q = floor_dim(t, e->u.bin.a, c, arg, c < 0 ? -c : c);
  }
  if (e->kind == TIR_FLOORDIV) {
    lin_free(&x);
    return lin_dim(q);
  }
  lin_term(t, &x, q, -(big)c); /* x % c == x - c * (x // c) */
  return x;
}

/* q = truncdiv(x, c), c > 0: floor(x / c) where x >= 0, ceil(x / c) below */
static lin emit_truncdiv(tx *t, const tir_expr *e, int64_t c) {
  lin x = emit_int(t, e->u.bin.a);
  int q = cse_find(t, CSE_TRUNC, e->u.bin.a, c);
  if (q < 0) {
    q = new_ex(t);
    t->nfresh++;
    cse_add(t, CSE_TRUNC, e->u.bin.a, c, q);
    /* x >= 0 and x - c*q >= 0 and c*q + c - 1 - x >= 0 */
    lin nonneg = lin_copy(t, &x), p1 = lin_copy(t, &x), p2 = {0};
    lin_term(t, &p1, q, -c);
    lin_add(t, &p2, &x, -1);
    lin_term(t, &p2, q, c);
    lin_addc(t, &p2, c - 1);
    fm *pos = fm_atom(t, F_GE, nonneg);
    pos = fm_and2(t, pos, fm_and2(t, fm_atom(t, F_GE, p1), fm_atom(t, F_GE, p2)));
    /* -x - 1 >= 0 and x - c*q + c - 1 >= 0 and c*q - x >= 0 */
    lin neg = {0}, n1 = lin_copy(t, &x), n2 = {0};
    lin_add(t, &neg, &x, -1);
    lin_addc(t, &neg, -1);
    lin_term(t, &n1, q, -c);
    lin_addc(t, &n1, c - 1);
    lin_add(t, &n2, &x, -1);
    lin_term(t, &n2, q, c);
    fm *ng = fm_atom(t, F_GE, neg);
    ng = fm_and2(t, ng, fm_and2(t, fm_atom(t, F_GE, n1), fm_atom(t, F_GE, n2)));
    add_def(t, q, fm_or2(t, pos, ng));
  }
  if (e->kind == TIR_DIV) {
    lin_free(&x);
    return lin_dim(q);
  }
  lin_term(t, &x, q, -c);
  return x;
}

/* s = cond ? x : y, over formulas and lins (cond taken) */
static lin emit_choice(tx *t, const tir_expr *key, fm *cond, lin x, lin y) {
  int s = cse_find(t, CSE_EXPR, key, 0);
  if (s < 0) {
    s = new_ex(t);
    cse_add(t, CSE_EXPR, key, 0, s);
    lin sx = lin_dim(s), sy = lin_dim(s);
    lin_add(t, &sx, &x, -1);
    lin_add(t, &sy, &y, -1);
    fm *nc = fm_neg(t, cond);
    add_def(t, s, fm_or2(t, fm_and2(t, cond, fm_atom(t, F_EQ, sx)), fm_and2(t, nc, fm_atom(t, F_EQ, sy))));
  }
  lin_free(&x);
  lin_free(&y);
  return lin_dim(s);
}

/* the operands of a chain of one min or max kind (its nested nodes of
 * that kind looked through), pushed to *out */
static void chain_leaves(const tir_expr *e, tir_expr_kind k, const tir_expr ***out, int *n, int *cap) {
  if (e->kind == k) {
    chain_leaves(e->u.bin.a, k, out, n, cap);
    chain_leaves(e->u.bin.b, k, out, n, cap);
    return;
  }
  push_ptr(out, n, cap, e);
}

/* max(l1, ..., ln) (min the same, reversed) of a nested chain: one dim m
 * with m >= every leaf and m <= some leaf: n pieces, where a dim for each
 * node of the chain would give isl 2^(n-1) of them to intersect */
static lin emit_minmax_chain(tx *t, const tir_expr *e) {
  int d = cse_find(t, CSE_EXPR, e, 0);
  if (d >= 0) return lin_dim(d);
  const tir_expr **leaves = NULL;
  int n = 0, cap = 0;
  chain_leaves(e, e->kind, &leaves, &n, &cap);
  lin *ls = calloc((size_t)n, sizeof *ls);
  if (!ls) abort();
  for (int i = 0; i < n; i++) ls[i] = emit_int(t, leaves[i]);
  lin r = {0};
  if (!t->fail) {
    d = new_ex(t);
    cse_add(t, CSE_EXPR, e, 0, d);
    big s = e->kind == TIR_MAX ? 1 : -1; /* max: m - leaf >= 0; min: leaf - m >= 0 */
    fm *all = fm_new(t, F_AND), *some = fm_new(t, F_OR);
    for (int i = 0; i < n; i++) {
      lin ge = lin_dim(d), le = {0};
      lin_add(t, &ge, &ls[i], -1); /* m - leaf */
      lin_add(t, &le, &ge, -1);    /* leaf - m */
      if (s < 0) {
        lin tmp = ge;
        ge = le;
        le = tmp;
      }
      fm_push(t, all, fm_atom(t, F_GE, ge));
      fm_push(t, some, fm_atom(t, F_GE, le));
    }
    add_def(t, d, fm_and2(t, all, some));
    r = lin_dim(d);
  }
  for (int i = 0; i < n; i++) lin_free(&ls[i]);
  free(ls);
  free(leaves);
  return r;
}

static lin emit_int(tx *t, const tir_expr *e) {
  lin r = {0};
  int64_t c;
  if (t->fail) return r;
  if (!ana_is_index_type(e->dtype)) {
    t->fail = true;
    return r;
  }
  switch (e->kind) {
  case TIR_INT_IMM: r.c0 = e->u.int_val; return r;
  case TIR_VAR: lin_term(t, &r, name_var(t, e), 1); return r;
  case TIR_ADD:
  case TIR_SUB: {
    r = emit_int(t, e->u.bin.a);
    lin y = emit_int(t, e->u.bin.b);
    lin_add(t, &r, &y, e->kind == TIR_ADD ? 1 : -1);
    lin_free(&y);
    return r;
  }
  case TIR_MUL:
    if (tir_is_const_int(e->u.bin.b, &c) || tir_is_const_int(e->u.bin.a, &c)) {
      const tir_expr *x = tir_is_const_int(e->u.bin.b, NULL) ? e->u.bin.a : e->u.bin.b;
      lin y = emit_int(t, x);
      lin_add(t, &r, &y, c);
      lin_free(&y);
      return r;
    }
    break;
  case TIR_FLOORDIV:
  case TIR_FLOORMOD:
    if (tir_is_const_int(e->u.bin.b, &c) && c != 0 && c != INT64_MIN) return emit_floor(t, e, c);
    break;
  case TIR_DIV:
  case TIR_MOD:
    if (tir_is_const_int(e->u.bin.b, &c) && c > 0) return emit_truncdiv(t, e, c);
    if (tir_is_const_int(e->u.bin.b, &c) && c < 0 && c != INT64_MIN) {
      /* truncdiv(x, -m) == -truncdiv(x, m); truncmod(x, -m) == truncmod(x, m) */
      r = emit_truncdiv(t, e, -c);
      if (e->kind == TIR_DIV) {
        lin n = {0};
        lin_add(t, &n, &r, -1);
        lin_free(&r);
        return n;
      }
      return r;
    }
    break;
  case TIR_MIN:
  case TIR_MAX: {
    if ((e->u.bin.a->kind == e->kind || e->u.bin.b->kind == e->kind) && ana_is_index_type(e->u.bin.a->dtype) &&
        ana_is_index_type(e->u.bin.b->dtype))
      return emit_minmax_chain(t, e);
    /* min(x, y) is x where x <= y, else y (isl's pieces); max the same with >= */
    lin x = emit_int(t, e->u.bin.a), y = emit_int(t, e->u.bin.b);
    if (t->fail) {
      lin_free(&x);
      lin_free(&y);
      return r;
    }
    fm *cond = fm_cmp(t, e->kind == TIR_MIN ? TIR_LE : TIR_GE, lin_copy(t, &x), lin_copy(t, &y));
    return emit_choice(t, e, cond, x, y);
  }
  case TIR_SELECT:
  case TIR_CALL: {
    const tir_expr *cnd, *a, *b;
    if (e->kind == TIR_SELECT) {
      cnd = e->u.select.cond, a = e->u.select.t, b = e->u.select.f;
    } else if (!strcmp(e->u.call.op, "if_then_else") && e->u.call.nargs == 3) {
      cnd = e->u.call.args[0], a = e->u.call.args[1], b = e->u.call.args[2];
    } else {
      break;
    }
    fm *cond = emit_bool(t, cnd);
    lin x = emit_int(t, a), y = emit_int(t, b);
    if (t->fail || !cond) {
      t->fail = true;
      lin_free(&x);
      lin_free(&y);
      return r;
    }
    int before = t->nex;
    r = emit_choice(t, e, cond, x, y);
    if (t->nex > before) t->nfresh++;
    return r;
  }
  case TIR_CAST:
    if (ana_is_index_type(e->u.un.a->dtype)) {
      int64_t lo, hi;
      ana_bound(t->a, e->u.un.a, &lo, &hi);
      if (lo != INT64_MIN && hi != INT64_MAX && ana_fits(e->dtype, lo) && ana_fits(e->dtype, hi))
        return emit_int(t, e->u.un.a);
    }
    break;
  default: break;
  }
  return emit_opaque(t, e);
}

static fm *emit_bool(tx *t, const tir_expr *e) {
  if (t->fail) return NULL;
  if (e->kind == TIR_INT_IMM && tir_dtype_is_bool(e->dtype)) return fm_new(t, e->u.int_val ? F_TRUE : F_FALSE);
  if (TIR_IS_CMP(e->kind) && ana_is_index_type(e->u.bin.a->dtype)) {
    lin x = emit_int(t, e->u.bin.a), y = emit_int(t, e->u.bin.b);
    return fm_cmp(t, e->kind, x, y);
  }
  if (e->kind == TIR_AND || e->kind == TIR_OR) {
    fm *x = emit_bool(t, e->u.bin.a), *y = emit_bool(t, e->u.bin.b);
    if (!x || !y) {
      t->fail = true;
      return NULL;
    }
    return e->kind == TIR_AND ? fm_and2(t, x, y) : fm_or2(t, x, y);
  }
  if (e->kind == TIR_NOT) {
    fm *x = emit_bool(t, e->u.un.a);
    return x ? fm_neg(t, x) : NULL;
  }
  t->fail = true;
  return NULL;
}

/* does the constraint split isl's work (a `!=` or an `or` in it)? */
static bool disjunctive(const tir_expr *e) {
  if (e->kind == TIR_NE || e->kind == TIR_OR) return true;
  if (e->kind == TIR_AND) return disjunctive(e->u.bin.a) || disjunctive(e->u.bin.b);
  if (e->kind == TIR_NOT) return disjunctive(e->u.un.a);
  return false;
}

/* context facts about every kept var met so far (and those they mention) */
static void emit_context(tx *t, fm *out) {
  for (; t->ctx_done < t->nvars && !t->fail; t->ctx_done++) {
    const tir_expr *v = t->vars[t->ctx_done];
    if (v->kind != TIR_VAR) continue; /* a floor param: its pdefs */
    const ana_var *info = ana_lookup(t->a, v);
    int d = var_dim(t, v);
    if (v->u.var.size_var) fm_push(t, out, fm_atom(t, F_GE, lin_dim(d)));
    if (info && info->value && ana_is_index_type(info->value->dtype)) {
      lin x = emit_int(t, info->value);
      if (!t->fail) fm_push(t, out, fm_cmp(t, TIR_EQ, lin_dim(d), x));
      else lin_free(&x);
    } else if (info && info->min) {
      lin x = emit_int(t, info->min), y = emit_int(t, info->extent), dv = lin_dim(d);
      if (!t->fail) fm_push(t, out, fm_range(t, &dv, &x, &y));
      lin_free(&x);
      lin_free(&y);
      lin_free(&dv);
    }
    /* a var's range isl cannot express is dropped: fewer facts stay sound */
    t->fail = false;
  }
}
typedef struct var_list_v {
  tir_visitor v;
  const tir_expr **vs;
  int n, cap;
} var_list_v;

static bool list_visit(tir_visitor *v, const tir_expr *e) {
  var_list_v *l = v->user;
  if (e->kind == TIR_VAR) push_ptr(&l->vs, &l->n, &l->cap, e);
  return true;
}

/* the vars e names (malloc'd, *n of them; repeats possible) */
static const tir_expr **collect_vars(const tir_expr *e, int *n) {
  var_list_v l = {{.expr = list_visit}, NULL, 0, 0};
  l.v.user = &l;
  tir_visit_expr(&l.v, e);
  *n = l.n;
  return l.vs;
}

/* v and the vars its bound value or range names (a few levels) */
static void add_var(tir_ptrmap *in, const tir_analyzer *a, const tir_expr *v, int depth) {
  if (tir_ptrmap_get(in, v, 0)) return;
  tir_ptrmap_put(in, v, 1);
  const ana_var *info = depth < 8 ? ana_lookup(a, v) : NULL;
  const tir_expr *named[3] = {info ? info->value : NULL, info ? info->min : NULL, info ? info->extent : NULL};
  for (int k = 0; k < 3; k++) {
    if (!named[k]) continue;
    int n;
    const tir_expr **vs = collect_vars(named[k], &n);
    for (int j = 0; j < n; j++) add_var(in, a, vs[j], depth + 1);
    free(vs);
  }
}

/* which entered constraints bear on the query: those that share a var
 * with it, or with one that does, and those of no var.  The others cannot
 * change its answer but for a context that holds nowhere, and leaving them
 * out stays sound (fewer facts); with them every query of a function of n
 * shape vars named all n (Simplify was cubic in n: 250 match_buffers of
 * symbolic shapes took 90 s) */
static bool *relevant_conds(tx *t) {
  tir_analyzer *a = t->a;
  int n = a->nconds;
  bool *rel = calloc((size_t)n + 1, sizeof *rel);
  const tir_expr ***vs = calloc((size_t)n + 1, sizeof *vs); /* each constraint's vars, found once */
  int *nv = calloc((size_t)n + 1, sizeof *nv);
  if (!rel || !vs || !nv) abort();
  for (int i = 0; i < n; i++) vs[i] = collect_vars(a->conds[i].cond, &nv[i]);
  tir_ptrmap in = {0};
  for (int i = 0; i < t->nvars; i++) {
    if (t->vars[i]->kind == TIR_VAR) {
      add_var(&in, a, t->vars[i], 0);
      continue;
    }
    int nfv;
    const tir_expr **fv = collect_vars(t->vars[i], &nfv); /* a floor param's vars */
    for (int j = 0; j < nfv; j++) add_var(&in, a, fv[j], 0);
    free(fv);
  }
  for (int i = 0; i < t->nrelax; i++) add_var(&in, a, t->relax[i].var, 0);
  bool changed = true;
  while (changed) {
    changed = false;
    for (int i = 0; i < n; i++) {
      if (rel[i]) continue;
      bool hit = !nv[i]; /* a constraint of no var bears on every query */
      for (int j = 0; j < nv[i] && !hit; j++) hit = tir_ptrmap_get(&in, vs[i][j], 0);
      if (!hit) continue;
      rel[i] = changed = true;
      for (int j = 0; j < nv[i]; j++) add_var(&in, a, vs[i][j], 0);
    }
  }
  for (int i = 0; i < n; i++) free(vs[i]);
  free(vs);
  free(nv);
  tir_ptrmap_free(&in);
  return rel;
}

/* the entered constraints isl can express.  A disjunctive one (`!=`,
 * `or`: an else branch's `not (x == k)`) doubles the pieces isl works on:
 * of those only the innermost MAX_DISJ are kept, so that a chain of n
 * elifs costs O(n) per query, not the isl quota (55 elifs took 2.7 s in
 * Simplify).  Fewer facts stay sound. */
#define MAX_DISJ 4

static void emit_conds(tx *t, fm *out) {
  int disj = 0;
  bool *rel = relevant_conds(t);
  for (int i = t->a->nconds - 1; i >= 0; i--) {
    if (!rel[i]) continue;
    const tir_expr *cond = t->a->conds[i].cond;
    bool d = disjunctive(cond);
    if (d && disj >= MAX_DISJ) continue;
    fm *c = emit_bool(t, cond);
    if (!t->fail && c) {
      fm_push(t, out, c);
      if (d) disj++;
    }
    t->fail = false;
  }
  free(rel);
}

static void mark_dims(const fm *f, bool *used) {
  if (f->k == F_GE || f->k == F_EQ) {
    for (int i = 0; i < f->l.n; i++)
      if (DKIND(f->l.d[i]) == D_EX) used[DIDX(f->l.d[i])] = true;
    return;
  }
  for (int i = 0; i < f->nkid; i++) mark_dims(f->kid[i], used);
}

/* body and the definitions of the existential dims it uses (and those
 * they use): the current disjunct as one formula */
static fm *finish(tx *t, fm *body) {
  bool *used = calloc((size_t)t->nex + 1, sizeof *used);
  bool *in = calloc((size_t)t->ndefs + 1, sizeof *in);
  if (!used || !in) abort();
  mark_dims(body, used);
  for (bool changed = true; changed;) {
    changed = false;
    for (int k = t->ndefs - 1; k >= 0; k--)
      if (!in[k] && used[DIDX(t->defs[k].owner)]) {
        in[k] = changed = true;
        mark_dims(t->defs[k].f, used);
      }
  }
  fm *all = fm_new(t, F_AND);
  fm_push(t, all, body);
  for (int k = 0; k < t->ndefs; k++)
    if (in[k]) fm_push(t, all, t->defs[k].f);
  free(used);
  free(in);
  return all;
}

/* ---- formulas to isl sets ---- */

/* where a query's dims go: set dims [tuple][vars][existential], or with
 * vars_are_params the kept vars as params and set dims [tuple][existential] */
typedef struct layout {
  bool vars_are_params;
  int ntuple, nvars;
} layout;

/* v as an isl_val (two 64-bit chunks past a long) */
static isl_val *big_val(isl_ctx *ctx, big v) {
  if (v >= LONG_MIN && v <= LONG_MAX) return isl_val_int_from_si(ctx, (long)v);
  unsigned __int128 m = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
  uint64_t chunks[2] = {(uint64_t)m, (uint64_t)(m >> 64)};
  isl_val *r = isl_val_int_from_chunks(ctx, 2, sizeof(uint64_t), chunks);
  return v < 0 ? isl_val_neg(r) : r;
}

static isl_constraint *set_coef(isl_constraint *c, enum isl_dim_type type, int pos, big k) {
  if (k >= INT_MIN && k <= INT_MAX) return isl_constraint_set_coefficient_si(c, type, pos, (int)k);
  return isl_constraint_set_coefficient_val(c, type, pos, big_val(isl_constraint_get_ctx(c), k));
}

static isl_basic_set *add_atom(isl_basic_set *b, isl_local_space *ls, const layout *L, const fm *f) {
  isl_constraint *c = f->k == F_EQ ? isl_constraint_alloc_equality(isl_local_space_copy(ls))
                                   : isl_constraint_alloc_inequality(isl_local_space_copy(ls));
  if (f->l.c0 >= INT_MIN && f->l.c0 <= INT_MAX) c = isl_constraint_set_constant_si(c, (int)f->l.c0);
  else c = isl_constraint_set_constant_val(c, big_val(isl_local_space_get_ctx(ls), f->l.c0));
  for (int i = 0; i < f->l.n; i++) {
    int d = f->l.d[i], ix = DIDX(d);
    if (DKIND(d) == D_VAR) {
      if (L->vars_are_params) c = set_coef(c, isl_dim_param, ix, f->l.k[i]);
      else c = set_coef(c, isl_dim_set, L->ntuple + ix, f->l.k[i]);
    } else if (DKIND(d) == D_TUP) {
      c = set_coef(c, isl_dim_set, ix, f->l.k[i]);
    } else {
      int base = L->ntuple + (L->vars_are_params ? 0 : L->nvars);
      c = set_coef(c, isl_dim_set, base + ix, f->l.k[i]);
    }
  }
  return isl_basic_set_add_constraint(b, c);
}

static isl_set *fm_set(isl_space *sp, isl_local_space *ls, const layout *L, const fm *f) {
  switch (f->k) {
  case F_TRUE: return isl_set_universe(isl_space_copy(sp));
  case F_FALSE: return isl_set_empty(isl_space_copy(sp));
  case F_GE:
  case F_EQ: return isl_set_from_basic_set(add_atom(isl_basic_set_universe(isl_space_copy(sp)), ls, L, f));
  case F_AND: {
    for (int i = 0; i < f->nkid; i++)
      if (f->kid[i]->k == F_FALSE) return isl_set_empty(isl_space_copy(sp));
    isl_basic_set *b = isl_basic_set_universe(isl_space_copy(sp));
    for (int i = 0; i < f->nkid; i++)
      if (f->kid[i]->k == F_GE || f->kid[i]->k == F_EQ) b = add_atom(b, ls, L, f->kid[i]);
    isl_set *s = isl_set_from_basic_set(b);
    for (int i = 0; i < f->nkid; i++)
      if (f->kid[i]->k == F_OR) s = isl_set_intersect(s, fm_set(sp, ls, L, f->kid[i]));
    return s;
  }
  case F_OR: {
    isl_set *s = isl_set_empty(isl_space_copy(sp));
    for (int i = 0; i < f->nkid; i++) s = isl_set_union(s, fm_set(sp, ls, L, f->kid[i]));
    return s;
  }
  }
  return NULL;
}

/* the set of f over its layout with nex existential dims; with project,
 * all but the tuple's dims projected out */
static isl_set *build(tir_analyzer *a, const layout *L, int nex, const fm *f, bool project) {
  int nparam = L->vars_are_params ? L->nvars : 0;
  int nrest = (L->vars_are_params ? 0 : L->nvars) + nex;
  isl_space *sp = isl_space_set_alloc(a->isl, (unsigned)nparam, (unsigned)(L->ntuple + nrest));
  isl_local_space *ls = isl_local_space_from_space(isl_space_copy(sp));
  isl_set *s = fm_set(sp, ls, L, f);
  isl_local_space_free(ls);
  isl_space_free(sp);
  if (project && nrest) s = isl_set_project_out(s, isl_dim_set, (unsigned)L->ntuple, (unsigned)nrest);
  return s;
}

/* the union of the disjuncts, over [params][tuple] */
typedef struct disj {
  fm *f;
  int nex;
} disj;

static isl_set *build_union(tir_analyzer *a, const layout *L, const disj *d, int n) {
  isl_space *sp = isl_space_set_alloc(a->isl, (unsigned)L->nvars, (unsigned)L->ntuple);
  isl_set *s = isl_set_empty(sp);
  for (int i = 0; i < n; i++) s = isl_set_union(s, build(a, L, d[i].nex, d[i].f, true));
  return s;
}

/* ---- memo keys: a formula as text, its dims by position ---- */

static void ser(sbuf *b, const fm *f) {
  switch (f->k) {
  case F_TRUE: sb_puts(b, "T"); return;
  case F_FALSE: sb_puts(b, "F"); return;
  case F_GE:
  case F_EQ:
    sb_printf(b, "%c%lld:%llu", f->k == F_GE ? 'G' : 'E', (long long)(f->l.c0 >> 64), (unsigned long long)f->l.c0);
    for (int i = 0; i < f->l.n; i++)
      sb_printf(b, ",%lld:%llu*%d", (long long)(f->l.k[i] >> 64), (unsigned long long)f->l.k[i], f->l.d[i]);
    return;
  case F_AND:
  case F_OR:
    sb_puts(b, f->k == F_AND ? "&(" : "|(");
    for (int i = 0; i < f->nkid; i++) {
      if (i) sb_puts(b, " ");
      ser(b, f->kid[i]);
    }
    sb_puts(b, ")");
    return;
  }
}
/* isl's work per query is bounded (isl_ctx_set_max_operations): a query
 * over many min/max/mod pieces gives up (isl_error_quota) and the caller
 * falls back to interval arithmetic, which is not an error of the input */
static void isl_begin(tir_analyzer *a) {
  isl_ctx_reset_operations(a->isl);
  isl_ctx_set_max_operations(a->isl, a->isl_max_ops);
}

/* after a query: a quota hit is forgotten (the answer was "unknown") */
static void isl_end(tir_analyzer *a) {
  if (isl_ctx_last_error(a->isl) == isl_error_quota) isl_ctx_reset_error(a->isl);
}

static void isl_diag(tir_analyzer *a) {
  if (isl_ctx_last_error(a->isl) == isl_error_quota) {
    isl_ctx_reset_error(a->isl);
    return;
  }
  const char *msg = isl_ctx_last_error_msg(a->isl);
  if (a->d) tir_diag_add(a->d, TIR_SEV_WARNING, (tir_span){0, 0}, "isl: %s", msg ? msg : "error");
  isl_ctx_reset_error(a->isl);
}


/* is s one of the entered constraints, or a conjunct of one?  (a literal
 * match, as TVM's analyzer keeps its literal constraints: it finds what
 * emit_conds does not give isl, which keeps only a few disjunctive ones) */
static bool conjunct_equal(const tir_expr *c, const tir_expr *s) {
  if (c->kind == TIR_AND) return conjunct_equal(c->u.bin.a, s) || conjunct_equal(c->u.bin.b, s);
  return ana_expr_equal(c, s);
}

/* { [vars, dims] : ctx and defs and not claim } is empty */
bool ana_isl_prove(tir_analyzer *a, tir_expr *cond) {
  if (!cond) return false;
  for (int i = a->nconds - 1; i >= 0; i--)
    if (conjunct_equal(a->conds[i].cond, cond)) return true;
  if (!a->isl) return false;
  isl_begin(a);
  tx t = {0};
  t.a = a;
  fm *claim = emit_bool(&t, cond);
  bool ok = !t.fail && claim;
  bool proved = false;
  if (ok) {
    fm *body = fm_new(&t, F_AND);
    fm_push(&t, body, fm_neg(&t, claim));
    emit_conds(&t, body);
    emit_context(&t, body);
    fm *f = finish(&t, body);
    /* the formula holds all the answer depends on: a query asked again
     * (the simplifier's min/max folding asks the same pairs of every
     * access of a region) is answered from the memo */
    sbuf key = {0};
    sb_printf(&key, "%d:%d:", t.nvars, t.nex);
    ser(&key, f);
    long known = tir_strmap_get(&a->prove_memo, key.s, -1);
    if (known >= 0) proved = known;
    else {
      layout L = {false, 0, t.nvars};
      isl_set *s = build(a, &L, t.nex, f, false);
      isl_bool empty = s ? isl_set_is_empty(s) : isl_bool_error;
      if (empty == isl_bool_error) isl_diag(a);
      proved = empty == isl_bool_true;
      isl_set_free(s);
      if (empty != isl_bool_error) *tir_strmap_at(&a->prove_memo, key.s, 0) = proved;
    }
    free(key.s);
  }
  tx_free(&t);
  isl_end(a);
  return proved;
}

/* ---- isl values and affs back to exprs ---- */

static bool val_to_i64(isl_val *v, int64_t *out) {
  bool ok = v && isl_val_is_int(v) == isl_bool_true;
  if (ok) {
    long num = isl_val_get_num_si(v);
    *out = num;
  }
  isl_val_free(v);
  return ok;
}

/* the param dims of an aff are the kept vars, in t->vars order */
static tir_expr *aff_to_expr(tir_analyzer *a, const tx *t, isl_aff *aff, tir_dtype dt) {
  tir_ctx *c = a->c;
  int64_t den, k;
  if (!val_to_i64(isl_aff_get_denominator_val(aff), &den) || den <= 0) return NULL;
  /* numerator terms, all divided by den at the end */
  isl_val *cst = isl_aff_get_constant_val(aff);
  cst = isl_val_mul(cst, isl_val_int_from_si(a->isl, den));
  if (!val_to_i64(cst, &k)) return NULL;
  tir_expr *sum = tir_int(c, dt, k);
  isl_size np = isl_aff_dim(aff, isl_dim_param);
  for (int i = 0; i < np && sum; i++) {
    isl_val *v = isl_val_mul(isl_aff_get_coefficient_val(aff, isl_dim_param, i), isl_val_int_from_si(a->isl, den));
    if (!val_to_i64(v, &k)) return NULL;
    if (k) sum = tir_binary(c, TIR_ADD, sum, tir_binary(c, TIR_MUL, (tir_expr *)t->vars[i], tir_int(c, dt, k)));
  }
  isl_size nd = isl_aff_dim(aff, isl_dim_div);
  for (int i = 0; i < nd && sum; i++) {
    isl_val *v = isl_val_mul(isl_aff_get_coefficient_val(aff, isl_dim_div, i), isl_val_int_from_si(a->isl, den));
    if (!val_to_i64(v, &k)) return NULL;
    if (!k) continue;
    isl_aff *div = isl_aff_get_div(aff, i);
    int64_t dd;
    isl_val *dv = isl_aff_get_denominator_val(div);
    tir_expr *inner = NULL;
    if (val_to_i64(dv, &dd) && dd > 0) {
      isl_aff *num = isl_aff_scale_val(isl_aff_copy(div), isl_val_int_from_si(a->isl, dd));
      inner = aff_to_expr(a, t, num, dt);
      isl_aff_free(num);
    }
    isl_aff_free(div);
    if (!inner) return NULL;
    tir_expr *q = tir_binary(c, TIR_FLOORDIV, inner, tir_int(c, dt, dd));
    sum = tir_binary(c, TIR_ADD, sum, tir_binary(c, TIR_MUL, q, tir_int(c, dt, k)));
  }
  if (!sum) return NULL;
  if (den != 1) sum = tir_binary(c, TIR_FLOORDIV, sum, tir_int(c, dt, den));
  return ana_canonical(a, sum);
}

/* a single-piece pw_aff as an expr (taken) */
static tir_expr *pw_to_expr(tir_analyzer *a, const tx *t, isl_pw_aff *pa, tir_dtype dt) {
  tir_expr *r = NULL;
  if (pa && isl_pw_aff_n_piece(pa) == 1 && isl_pw_aff_involves_nan(pa) == isl_bool_false &&
      isl_pw_aff_isa_aff(pa) == isl_bool_true) {
    isl_aff *aff = isl_pw_aff_as_aff(pa);
    pa = NULL;
    if (aff) r = aff_to_expr(a, t, aff, dt);
    isl_aff_free(aff);
  }
  isl_pw_aff_free(pa);
  return r;
}

/* ---- the bounding box of a union of accesses ---- */

/* a new disjunct over the relaxed vars relax[0..n): each its own
 * existential dim, but the first ntuple, which are tuple dims */
static void begin_disjunct(tx *t, const tir_relax_var *relax, int n, int ntuple) {
  tx_reset_disjunct(t);
  t->relax = relax;
  t->nrelax = n;
  free(t->rdim);
  t->rdim = malloc(sizeof *t->rdim * (size_t)(n ? n : 1));
  if (!t->rdim) abort();
  for (int i = 0; i < n; i++) t->rdim[i] = i < ntuple ? DIM(D_TUP, i) : new_ex(t);
}

/* one access as a formula over [d0 ...] */
static fm *emit_access(tx *t, const tir_access_region *acc, int ndim) {
  fm *body = fm_new(t, F_AND);
  for (int d = 0; d < ndim && d < acc->ndim; d++) {
    lin mn = emit_int(t, acc->region[d].min), ext = emit_int(t, acc->region[d].extent), dd = lin_dim(DIM(D_TUP, d));
    if (!t->fail) fm_push(t, body, fm_range(t, &dd, &mn, &ext));
    lin_free(&mn);
    lin_free(&ext);
    lin_free(&dd);
  }
  for (int i = 0; i < acc->nrelax && !t->fail; i++) {
    lin mn = emit_int(t, acc->relax[i].min), ext = emit_int(t, acc->relax[i].extent), v = lin_dim(t->rdim[i]);
    if (!t->fail) fm_push(t, body, fm_range(t, &v, &mn, &ext));
    lin_free(&mn);
    lin_free(&ext);
    lin_free(&v);
  }
  for (int i = 0; i < acc->nconds && !t->fail; i++) {
    fm *c = emit_bool(t, acc->conds[i]);
    if (!t->fail && c) fm_push(t, body, c);
    else t->fail = false; /* a condition isl cannot express only narrows less */
  }
  return body;
}

/* the extent: a constant when one piece is constant or its max is finite */
static tir_expr *extent_expr(tir_analyzer *a, const tx *t, isl_pw_aff *ext, tir_dtype dt) {
  isl_val *mx = isl_pw_aff_max_val(isl_pw_aff_copy(ext));
  int64_t k;
  if (val_to_i64(mx, &k) && k >= 0) {
    isl_pw_aff_free(ext);
    return tir_int(a->c, dt, k);
  }
  return pw_to_expr(a, t, ext, dt);
}

bool ana_isl_bbox(tir_analyzer *a, const tir_access_region *acc, int nacc, int ndim, tir_range *out) {
  if (!a->isl || nacc <= 0) return false;
  isl_begin(a);
  tx t = {0};
  t.a = a;
  t.floor_params = true;
  disj *ds = calloc((size_t)nacc, sizeof *ds);
  if (!ds) abort();
  for (int i = 0; i < nacc && !t.fail; i++) {
    begin_disjunct(&t, acc[i].relax, acc[i].nrelax, 0);
    fm *body = emit_access(&t, &acc[i], ndim);
    ds[i].f = finish(&t, body);
    ds[i].nex = t.nex;
  }
  bool ok = !t.fail && t.natoms == 0;
  fm *ctx = NULL;
  int ctx_nex = 0;
  if (ok) {
    begin_disjunct(&t, NULL, 0, 0);
    fm *body = fm_new(&t, F_AND);
    emit_conds(&t, body);
    emit_context(&t, body);
    /* the params context cannot name a fresh dim or an atom: dropped then */
    if (!t.natoms && !t.nfresh) {
      ctx = finish(&t, body);
      ctx_nex = t.nex;
    }
    t.fail = false;
  }
  isl_set *s = NULL;
  if (ok) {
    layout L = {true, ndim, t.nvars};
    s = build_union(a, &L, ds, nacc);
    if (s && ctx) {
      layout P = {true, 0, t.nvars};
      isl_set *p = build(a, &P, ctx_nex, ctx, true);
      s = isl_set_intersect_params(s, isl_set_params(p));
    }
    if (s && t.pdefs) {
      layout P = {true, 0, t.nvars};
      s = isl_set_intersect_params(s, isl_set_params(build(a, &P, 0, t.pdefs, true)));
    }
    if (!s) isl_diag(a);
    ok = s && isl_set_is_empty(s) == isl_bool_false;
  }
  tir_dtype dt = TIR_INT32;
  if (nacc && acc[0].ndim && acc[0].region[0].min) dt = acc[0].region[0].min->dtype;
  for (int d = 0; d < ndim && ok; d++) {
    isl_set *pdom = isl_set_params(isl_set_copy(s));
    isl_pw_aff *mn = isl_pw_aff_gist(isl_set_dim_min(isl_set_copy(s), d), isl_set_copy(pdom));
    isl_pw_aff *mx = isl_pw_aff_gist(isl_set_dim_max(isl_set_copy(s), d), isl_set_copy(pdom));
    isl_pw_aff *ext = isl_pw_aff_add(isl_pw_aff_sub(mx, isl_pw_aff_copy(mn)),
                                     isl_pw_aff_val_on_domain(isl_set_copy(pdom), isl_val_one(a->isl)));
    ext = isl_pw_aff_intersect_domain(ext, pdom);
    tir_dtype ddt = dt;
    if (acc[0].ndim > d && acc[0].region[d].min) ddt = acc[0].region[d].min->dtype;
    out[d].min = pw_to_expr(a, &t, mn, ddt);
    out[d].extent = ext ? extent_expr(a, &t, ext, ddt) : NULL;
    if (!out[d].min || !out[d].extent) out[d].min = out[d].extent = NULL; /* the caller falls back */
  }
  isl_set_free(s);
  free(ds);
  tx_free(&t);
  isl_end(a);
  return ok;
}

/* the max of a quasi-affine int expr over the context */
bool ana_isl_max(tir_analyzer *a, tir_expr *e, int64_t *out) {
  if (!a->isl || !ana_is_index_type(e->dtype)) return false;
  isl_begin(a);
  tx t = {0};
  t.a = a;
  lin x = emit_int(&t, e);
  bool found = false;
  if (!t.fail) {
    fm *body = fm_new(&t, F_AND);
    fm_push(&t, body, fm_cmp(&t, TIR_EQ, lin_dim(DIM(D_TUP, 0)), x));
    emit_conds(&t, body);
    emit_context(&t, body);
    fm *f = finish(&t, body);
    layout L = {false, 1, t.nvars};
    isl_set *s = build(a, &L, t.nex, f, true);
    if (s) {
      isl_pw_aff *pa = isl_set_dim_max(s, 0);
      isl_val *v = pa ? isl_pw_aff_max_val(pa) : NULL;
      found = val_to_i64(v, out);
    }
  } else {
    lin_free(&x);
  }
  tx_free(&t);
  isl_end(a);
  return found;
}

/* ---- values carried across a loop's iterations (tir_loop_carries) ---- */

/* access x as a disjunct over the tuple [read loops, d0 ...]: its dims
 * ranged or bound, existential but for the first `ntuple` loops (the
 * read's own, in the tuple), its conditions, d<j> = its indices.  With
 * `lvar`, the loop's var is one more dim of x, below `lvar`'s own value:
 * an earlier iteration.  *exact stays true only when nothing was dropped
 * and nothing became an opaque atom.  The disjunct's relaxed dims stay
 * in t->rdim (for emit_prec); dims is the caller's, freed after. */
static fm *emit_flow(tx *t, const tir_flow_access *x, int ntuple, int nloops_r, const tir_relax_var *lvar,
                     tir_relax_var **dims_out, bool *exact) {
  int n = x->ndims + (lvar ? 1 : 0);
  tir_relax_var *dims = malloc(sizeof *dims * (size_t)(n ? n : 1));
  if (!dims) abort();
  if (x->ndims) memcpy(dims, x->dims, sizeof *dims * (size_t)x->ndims);
  if (lvar) dims[x->ndims] = *lvar;
  *dims_out = dims;
  begin_disjunct(t, dims, n, ntuple);
  *exact = true;
  fm *body = fm_new(t, F_AND);
  for (int i = 0; i < n; i++) {
    t->fail = false;
    lin mn = emit_int(t, dims[i].min), v = lin_dim(t->rdim[i]);
    if (lvar && i == x->ndims) {
      /* mn <= e < lvar's own value: the loop's var as the kept var */
      lin up = lin_dim(var_dim(t, lvar->var)), ext = {0};
      lin_add(t, &ext, &up, 1);
      lin_add(t, &ext, &mn, -1);
      if (!t->fail) fm_push(t, body, fm_range(t, &v, &mn, &ext));
      lin_free(&up);
      lin_free(&ext);
    } else if (!dims[i].extent) {
      if (!t->fail) fm_push(t, body, fm_cmp(t, TIR_EQ, lin_copy(t, &v), lin_copy(t, &mn)));
    } else {
      lin ext = emit_int(t, dims[i].extent);
      if (!t->fail) fm_push(t, body, fm_range(t, &v, &mn, &ext));
      lin_free(&ext);
    }
    if (t->fail) *exact = false;
    lin_free(&mn);
    lin_free(&v);
  }
  for (int i = 0; i < x->nconds; i++) {
    t->fail = false;
    fm *c = emit_bool(t, x->conds[i]);
    if (!t->fail && c) fm_push(t, body, x->neg && x->neg[i] ? fm_neg(t, c) : c);
    else *exact = false; /* fewer conditions: more elements */
  }
  for (int j = 0; j < x->ndim; j++) {
    t->fail = false;
    lin e = emit_int(t, x->idx[j]);
    if (!t->fail) fm_push(t, body, fm_cmp(t, TIR_EQ, lin_dim(DIM(D_TUP, nloops_r + j)), e));
    else {
      *exact = false;
      lin_free(&e);
    }
  }
  if (t->natoms) *exact = false;
  t->fail = false;
  return body;
}

/* w runs before r in one iteration of the loop: lexicographically earlier
 * in the loops they share, or at the same point of them and earlier in
 * order.  NULL where it never does.  w's dims are t->rdim's; r's loops
 * are the tuple's first dims. */
static fm *emit_prec(tx *t, const tir_flow_access *w, const tir_flow_access *r) {
  int p = 0;
  while (p < w->nloops && p < r->nloops && w->loop_ids[p] == r->loop_ids[p]) p++;
  fm *any = NULL;
  for (int j = 0; j <= p; j++) {
    if (j == p && w->seq >= r->seq) break;
    fm *c = fm_new(t, F_AND);
    for (int i = 0; i < j; i++)
      fm_push(t, c, fm_cmp(t, TIR_EQ, lin_dim(t->rdim[i]), lin_dim(DIM(D_TUP, i))));
    if (j < p) fm_push(t, c, fm_cmp(t, TIR_LT, lin_dim(t->rdim[j]), lin_dim(DIM(D_TUP, j))));
    if (!any) any = fm_new(t, F_OR);
    fm_push(t, any, c);
  }
  return any;
}

typedef struct dlist {
  disj *d;
  int n, cap;
} dlist;

static void dl_push(dlist *l, fm *f, int nex) {
  if (l->n == l->cap) l->d = grow(l->d, &l->cap, sizeof *l->d);
  l->d[l->n++] = (disj){f, nex};
}

static void ser_list(sbuf *b, const dlist *l) {
  sb_puts(b, "[");
  for (int i = 0; i < l->n; i++) {
    sb_printf(b, "%d:", l->d[i].nex);
    ser(b, l->d[i].f);
    sb_puts(b, ";");
  }
  sb_puts(b, "]");
}

/* is some element r reads not written earlier in the iteration, and
 * written in an earlier one? */
static bool read_carried(tir_analyzer *a, const tir_expr *var, tir_expr *min, tir_expr *extent,
                         const tir_relax_var *outer, int nouter, const tir_flow_access *acc, int nacc, int ri) {
  const tir_flow_access *r = &acc[ri];
  tx t = {0};
  t.a = a;
  int ntuple = r->nloops + r->ndim;
  dlist R = {0}, C = {0}, W = {0};
  bool exact;
  tir_relax_var *dims;
  fm *body = emit_flow(&t, r, r->nloops, r->nloops, NULL, &dims, &exact);
  bool ok = exact;
  if (ok) dl_push(&R, finish(&t, body), t.nex);
  free(dims);
  tir_relax_var lv = {var, min, extent};
  for (int i = 0; i < nacc && ok; i++) {
    const tir_flow_access *w = &acc[i];
    if (!w->write || w->ndim != r->ndim) continue;
    body = emit_flow(&t, w, 0, r->nloops, NULL, &dims, &exact);
    fm *prec = emit_prec(&t, w, r);
    if (prec) dl_push(&C, finish(&t, fm_and2(&t, body, prec)), t.nex);
    free(dims);
    body = emit_flow(&t, w, 0, r->nloops, &lv, &dims, &exact);
    if (exact) dl_push(&W, finish(&t, body), t.nex);
    free(dims);
  }
  bool carried = false;
  if (ok && W.n) {
    /* the loops' ranges: the parameters' context (a range with a select,
     * a truncdiv or an atom isl cannot express is left out) */
    begin_disjunct(&t, NULL, 0, 0);
    fm *ctx = fm_new(&t, F_AND);
    for (int i = 0; i <= nouter; i++) {
      const tir_relax_var *o = i < nouter ? &outer[i] : &lv;
      int na = t.natoms, nf = t.nfresh;
      t.fail = false;
      lin v = lin_dim(var_dim(&t, o->var)), mn = emit_int(&t, o->min), ext = emit_int(&t, o->extent);
      if (!t.fail && t.natoms == na && t.nfresh == nf) fm_push(&t, ctx, fm_range(&t, &v, &mn, &ext));
      lin_free(&v);
      lin_free(&mn);
      lin_free(&ext);
    }
    for (int i = 0; i < t.nvars; i++)
      if (t.vars[i]->u.var.size_var) fm_push(&t, ctx, fm_atom(&t, F_GE, lin_dim(DIM(D_VAR, i))));
    t.fail = false;
    ctx = finish(&t, ctx);
    int cnex = t.nex;
    sbuf key = {0};
    sb_printf(&key, "%d:%d:%d:", t.nvars, ntuple, cnex);
    ser_list(&key, &R);
    ser_list(&key, &C);
    ser_list(&key, &W);
    ser(&key, ctx);
    long known = tir_strmap_get(&a->flow_memo, key.s, -1);
    if (known >= 0) carried = known;
    else {
      layout L = {true, ntuple, t.nvars}, P = {true, 0, t.nvars};
      isl_set *Rs = build_union(a, &L, R.d, R.n), *Cs = build_union(a, &L, C.d, C.n);
      isl_set *Ws = build_union(a, &L, W.d, W.n), *X = isl_set_params(build(a, &P, cnex, ctx, true));
      isl_set *bad = isl_set_intersect_params(isl_set_intersect(isl_set_subtract(Rs, Cs), Ws), X);
      isl_bool empty = bad ? isl_set_is_empty(bad) : isl_bool_error;
      if (empty == isl_bool_error) isl_diag(a);
      carried = empty == isl_bool_false;
      isl_set_free(bad);
      if (empty != isl_bool_error) *tir_strmap_at(&a->flow_memo, key.s, 0) = carried;
    }
    free(key.s);
  }
  free(R.d);
  free(C.d);
  free(W.d);
  t.relax = NULL;
  tx_free(&t);
  return carried;
}

bool tir_loop_carries(tir_analyzer *a, const tir_expr *var, tir_expr *min, tir_expr *extent,
                      const tir_relax_var *outer, int nouter, const tir_flow_access *acc, int nacc) {
  if (!a || !a->isl || !var || !min || !extent) return false;
  bool carried = false;
  bool *uncarried = malloc(sizeof *uncarried * (size_t)(nacc ? nacc : 1));
  if (!uncarried) abort();
  ana_uncarried_reads(var, min, extent, outer, nouter, acc, nacc, uncarried);
  for (int i = 0; i < nacc && !carried; i++) {
    if (acc[i].write || uncarried[i]) continue;
    isl_begin(a);
    carried = read_carried(a, var, min, extent, outer, nouter, acc, nacc, i);
    isl_end(a);
  }
  free(uncarried);
  return carried;
}
