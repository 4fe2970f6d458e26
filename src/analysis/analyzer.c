/* analyzer.c - the analyzer's context: vars bound to values or ranges,
 * scoped constraints, and the two proof entry points. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <isl/options.h>

#include "analysis/analyzer_internal.h"
#include "tir/visit.h"

static void *grow(void *p, int *cap, int need, size_t elem) {
  if (need <= *cap) return p;
  int ncap = *cap ? *cap * 2 : 16;
  while (ncap < need) ncap *= 2;
  void *q = realloc(p, (size_t)ncap * elem);
  if (!q) abort(); /* out of memory is not bad input */
  *cap = ncap;
  return q;
}

tir_analyzer *tir_analyzer_new(tir_ctx *c, tir_diag *d) {
  tir_analyzer *a = calloc(1, sizeof *a);
  if (!a) abort();
  a->c = c;
  a->d = d;
  a->isl = isl_ctx_alloc();
  a->isl_max_ops = ANA_ISL_MAX_OPS;
  if (a->isl) isl_options_set_on_error(a->isl, ISL_ON_ERROR_CONTINUE);
  return a;
}

void tir_analyzer_free(tir_analyzer *a) {
  if (!a) return;
  if (a->isl) isl_ctx_free(a->isl);
  tir_strmap_free(&a->flow_memo);
  tir_strmap_free(&a->prove_memo);
  free(a->vars);
  free(a->slot_keys);
  free(a->slot_idx);
  free(a->conds);
  free(a->facts);
  free(a);
}

/* ---- var -> slot index ---- */

static int hash_pos(const tir_analyzer *a, const tir_expr *var) {
  uint64_t h = (uint64_t)(uintptr_t)var;
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15ull;
  int i = (int)((h >> 7) & (uint64_t)(a->slot_cap - 1));
  while (a->slot_keys[i] && a->slot_keys[i] != var) i = (i + 1) & (a->slot_cap - 1);
  return i;
}

static void index_put(tir_analyzer *a, const tir_expr *var, int idx);

static void index_grow(tir_analyzer *a) {
  const tir_expr **keys = a->slot_keys;
  int *vals = a->slot_idx, cap = a->slot_cap;
  a->slot_cap = cap ? cap * 2 : 64;
  a->slot_keys = calloc((size_t)a->slot_cap, sizeof *a->slot_keys);
  a->slot_idx = malloc(sizeof *a->slot_idx * (size_t)a->slot_cap);
  if (!a->slot_keys || !a->slot_idx) abort();
  a->slot_n = 0;
  for (int i = 0; i < cap; i++)
    if (keys[i]) index_put(a, keys[i], vals[i]);
  free(keys);
  free(vals);
}

static void index_put(tir_analyzer *a, const tir_expr *var, int idx) {
  if ((a->slot_n + 1) * 2 > a->slot_cap) index_grow(a);
  int i = hash_pos(a, var);
  if (!a->slot_keys[i]) {
    a->slot_keys[i] = var;
    a->slot_n++;
  }
  a->slot_idx[i] = idx;
}

static int index_get(const tir_analyzer *a, const tir_expr *var) {
  if (!a->slot_cap) return -1;
  int i = hash_pos(a, var);
  if (!a->slot_keys[i]) return -1;
  int k = a->slot_idx[i];
  return k < a->nvars && a->vars[k].var == var ? k : -1;
}

static ana_var *var_slot(tir_analyzer *a, const tir_expr *var) {
  int k = index_get(a, var);
  if (k >= 0) return &a->vars[k];
  a->vars = grow(a->vars, &a->capvars, a->nvars + 1, sizeof *a->vars);
  index_put(a, var, a->nvars);
  ana_var *v = &a->vars[a->nvars++];
  memset(v, 0, sizeof *v);
  v->var = var;
  return v;
}

const ana_var *ana_lookup(const tir_analyzer *a, const tir_expr *var) {
  int k = index_get(a, var);
  return k >= 0 ? &a->vars[k] : NULL;
}

void tir_analyzer_bind(tir_analyzer *a, const tir_expr *var, tir_expr *value) {
  if (!a || !tir_is_var(var) || !value) return;
  tir_expr *v = tir_simplify(a, value);
  ana_var *s = var_slot(a, var);
  s->value = v;
  s->min = s->extent = NULL;
}

void tir_analyzer_bind_range(tir_analyzer *a, const tir_expr *var, tir_expr *min, tir_expr *extent) {
  if (!a || !tir_is_var(var) || !min || !extent) return;
  int64_t kv;
  if ((tir_is_const_int(min, &kv) && !ana_fits(min->dtype, kv)) ||
      (tir_is_const_int(extent, &kv) && !ana_fits(extent->dtype, kv)))
    return; /* a constant its dtype cannot hold is no range (issue 11) */
  tir_expr *mn = tir_simplify(a, min);
  tir_expr *ext = tir_simplify(a, extent);
  int64_t k;
  if (tir_is_const_int(ext, &k) && k == 1) {
    tir_analyzer_bind(a, var, mn);
    return;
  }
  ana_var *s = var_slot(a, var);
  s->value = NULL;
  s->min = mn;
  s->extent = ext;
}

void ana_push_ranges(tir_analyzer *a, const tir_relax_var *relax, int n, ana_saved *s) {
  s->nvars = a->nvars;
  s->n = 0;
  s->slots = n <= 8 ? s->inline_slots : malloc(sizeof *s->slots * (size_t)n);
  if (!s->slots) abort();
  for (int i = 0; i < n; i++) {
    int k = index_get(a, relax[i].var);
    if (k >= 0 && k < s->nvars) s->slots[s->n++] = (ana_saved_slot){k, a->vars[k]};
    tir_analyzer_bind_range(a, relax[i].var, relax[i].min, relax[i].extent);
  }
}

void ana_pop_ranges(tir_analyzer *a, ana_saved *s) {
  for (int i = s->n - 1; i >= 0; i--) a->vars[s->slots[i].idx] = s->slots[i].old;
  a->nvars = s->nvars;
  if (s->slots != s->inline_slots) free(s->slots);
}

/* a condition that reads memory (a buffer load, a call that may have
 * effects or read state) may stop holding when the memory is written inside
 * its scope (if B[i] < 3: B[i] = 100; then B[i] < 3 is false): such a
 * conjunct is no fact, as TVM's analyzer takes only pure constraints
 * (SideEffect(c) <= kPure in RewriteSimplifier::EnterConstraint) */
static bool reads_state_cb(tir_visitor *v, const tir_expr *e) {
  static const char *const PURE[] = {"likely", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
                                     "shift_left", "shift_right", "popcount", "clz", "fabs", "abs", "floor", "ceil",
                                     "trunc", "round", "nearbyint", "isnan", "isinf", "isfinite", NULL};
  bool *found = v->user;
  if (e->kind == TIR_BUFFER_LOAD) *found = true;
  if (e->kind == TIR_CALL) {
    bool pure = false;
    for (int i = 0; PURE[i] && !pure; i++) pure = !strcmp(e->u.call.op, PURE[i]);
    if (!pure) *found = true;
  }
  return !*found;
}

static tir_expr *pure_conjuncts(tir_analyzer *a, tir_expr *c) {
  if (!c) return NULL;
  if (c->kind == TIR_AND) {
    tir_expr *x = pure_conjuncts(a, c->u.bin.a), *y = pure_conjuncts(a, c->u.bin.b);
    if (x == c->u.bin.a && y == c->u.bin.b) return c;
    return !x ? y : !y ? x : tir_binary(a->c, TIR_AND, x, y);
  }
  bool found = false;
  tir_visitor v = {.expr = reads_state_cb, .user = &found};
  tir_visit_expr(&v, c);
  return found ? NULL : c;
}

int tir_analyzer_enter_constraint(tir_analyzer *a, tir_expr *cond) {
  if (!a) return 0;
  int token = a->nconds;
  if (!cond || !(cond = pure_conjuncts(a, cond))) return token;
  tir_expr *c = tir_simplify(a, cond);
  a->conds = grow(a->conds, &a->capconds, a->nconds + 1, sizeof *a->conds);
  a->conds[a->nconds].cond = c;
  a->conds[a->nconds].nfacts_before = a->nfacts;
  a->nconds++;
  ana_add_facts(a, c);
  return token;
}

void tir_analyzer_exit_constraint(tir_analyzer *a, int token) {
  if (!a || token < 0 || token >= a->nconds) return;
  a->nfacts = a->conds[token].nfacts_before;
  a->nconds = token;
}

bool tir_can_prove(tir_analyzer *a, tir_expr *cond) {
  if (!a || !cond) return false;
  tir_expr *s = ana_canonical(a, cond);
  int64_t v;
  if (s->kind == TIR_INT_IMM) {
    v = s->u.int_val;
    return v != 0;
  }
  return ana_isl_prove(a, s);
}

bool tir_can_prove_equal(tir_analyzer *a, tir_expr *x, tir_expr *y) {
  if (!a || !x || !y) return false;
  if (ana_is_index_type(x->dtype) && ana_is_index_type(y->dtype)) {
    tir_expr *yy = tir_dtype_eq(x->dtype, y->dtype) ? y : tir_cast(a->c, x->dtype, y);
    tir_expr *d = ana_canonical(a, tir_binary(a->c, TIR_SUB, x, yy));
    int64_t k;
    if (tir_is_const_int(d, &k)) return k == 0;
    return tir_can_prove(a, tir_binary(a->c, TIR_EQ, x, yy));
  }
  return ana_expr_equal(tir_simplify(a, x), tir_simplify(a, y));
}

/* ---- small shared helpers ---- */

/* the types of TVM's IsIndexType (int32, int64, scalar): the arithmetic the analyzer
 * may treat as not overflowing; int8 and int16 wrap (their values are
 * computed in int and narrowed back), so their sums and comparisons are
 * left as they are, as TVM's simplifier leaves them */
bool ana_is_index_type(tir_dtype t) { return t.code == TIR_TC_INT && t.lanes == 1 && (t.bits == 32 || t.bits == 64); }

bool ana_fits(tir_dtype t, int64_t v) {
  if (t.code == TIR_TC_INT) {
    if (t.bits >= 64) return true;
    int64_t lim = (int64_t)1 << (t.bits - 1);
    return v >= -lim && v < lim;
  }
  if (t.code == TIR_TC_UINT) {
    if (t.bits >= 63) return v >= 0; /* uint63's largest is int64's */
    return v >= 0 && v < ((int64_t)1 << t.bits);
  }
  return false;
}

int64_t ana_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

int64_t ana_floormod(int64_t a, int64_t b) { return a - ana_floordiv(a, b) * b; }

int64_t ana_gcd(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static bool list_equal(tir_expr *const *x, tir_expr *const *y, int n) {
  for (int i = 0; i < n; i++)
    if (!ana_expr_equal(x[i], y[i])) return false;
  return true;
}

/* the factors of a product (nested products flattened) into fs; false
 * when there are more than nmax */
static bool product_factors(const tir_expr *e, const tir_expr **fs, int *n, int nmax) {
  if (e->kind == TIR_MUL)
    return product_factors(e->u.bin.a, fs, n, nmax) && product_factors(e->u.bin.b, fs, n, nmax);
  if (*n == nmax) return false;
  fs[(*n)++] = e;
  return true;
}

/* two products with the same factors in any order (i * m * 4, m * 4 * i) */
static bool same_factors(const tir_expr *x, const tir_expr *y) {
  const tir_expr *fx[16], *fy[16];
  int nx = 0, ny = 0;
  if (!product_factors(x, fx, &nx, 16) || !product_factors(y, fy, &ny, 16) || nx != ny) return false;
  for (int i = 0; i < nx; i++) {
    int j = 0;
    while (j < ny && !ana_expr_equal(fx[i], fy[j])) j++;
    if (j == ny) return false;
    fy[j] = fy[--ny]; /* each factor of y matches once */
  }
  return true;
}

bool ana_expr_equal(const tir_expr *x, const tir_expr *y) {
  if (x == y) return true;
  if (!x || !y || x->kind != y->kind || !tir_dtype_eq(x->dtype, y->dtype)) return false;
  switch (x->kind) {
  case TIR_VAR: return false; /* identity */
  case TIR_INT_IMM: return x->u.int_val == y->u.int_val;
  case TIR_FLOAT_IMM: return x->u.float_val == y->u.float_val;
  case TIR_STRING_IMM: return !strcmp(x->u.str, y->u.str);
  case TIR_NOT:
  case TIR_CAST: return ana_expr_equal(x->u.un.a, y->u.un.a);
  case TIR_SELECT:
    return ana_expr_equal(x->u.select.cond, y->u.select.cond) &&
           ana_expr_equal(x->u.select.t, y->u.select.t) && ana_expr_equal(x->u.select.f, y->u.select.f);
  case TIR_CALL:
    return !strcmp(x->u.call.op, y->u.call.op) && x->u.call.nargs == y->u.call.nargs &&
           list_equal(x->u.call.args, y->u.call.args, x->u.call.nargs);
  case TIR_BUFFER_LOAD:
    return x->u.load.buf == y->u.load.buf && x->u.load.nidx == y->u.load.nidx &&
           list_equal(x->u.load.idx, y->u.load.idx, x->u.load.nidx);
  case TIR_RAMP:
    return x->u.ramp.lanes == y->u.ramp.lanes && ana_expr_equal(x->u.ramp.base, y->u.ramp.base) &&
           ana_expr_equal(x->u.ramp.stride, y->u.ramp.stride);
  case TIR_BROADCAST:
    return x->u.bcast.lanes == y->u.bcast.lanes && ana_expr_equal(x->u.bcast.value, y->u.bcast.value);
  case TIR_LET:
    return x->u.let.var == y->u.let.var && ana_expr_equal(x->u.let.value, y->u.let.value) &&
           ana_expr_equal(x->u.let.body, y->u.let.body);
  case TIR_MIN:
  case TIR_MAX:
  case TIR_EQ:
  case TIR_NE:
  case TIR_AND:
  case TIR_OR: /* commutative: either order */
    return (ana_expr_equal(x->u.bin.a, y->u.bin.a) && ana_expr_equal(x->u.bin.b, y->u.bin.b)) ||
           (ana_expr_equal(x->u.bin.a, y->u.bin.b) && ana_expr_equal(x->u.bin.b, y->u.bin.a));
  case TIR_MUL: /* commutative and associative: the same factors */
    return (ana_expr_equal(x->u.bin.a, y->u.bin.a) && ana_expr_equal(x->u.bin.b, y->u.bin.b)) ||
           same_factors(x, y);
  default:
    if (TIR_IS_BINARY(x->kind))
      return ana_expr_equal(x->u.bin.a, y->u.bin.a) && ana_expr_equal(x->u.bin.b, y->u.bin.b);
    return false;
  }
}

int ana_size_of(const tir_expr *e, int (*size)(const tir_expr *)) {
  if (!e) return 0;
  int n = 1;
  switch (e->kind) {
  case TIR_NOT:
  case TIR_CAST: return n + size(e->u.un.a);
  case TIR_SELECT: return n + size(e->u.select.cond) + size(e->u.select.t) + size(e->u.select.f);
  case TIR_CALL:
    for (int i = 0; i < e->u.call.nargs; i++) n += size(e->u.call.args[i]);
    return n;
  case TIR_BUFFER_LOAD:
    for (int i = 0; i < e->u.load.nidx; i++) n += size(e->u.load.idx[i]);
    return n;
  case TIR_RAMP: return n + size(e->u.ramp.base) + size(e->u.ramp.stride);
  case TIR_BROADCAST: return n + size(e->u.bcast.value);
  case TIR_LET: return n + size(e->u.let.value) + size(e->u.let.body);
  default:
    if (TIR_IS_BINARY(e->kind)) return n + size(e->u.bin.a) + size(e->u.bin.b);
    return n;
  }
}

int ana_expr_size(const tir_expr *e) { return ana_size_of(e, ana_expr_size); }
