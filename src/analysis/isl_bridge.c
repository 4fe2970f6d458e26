/* isl_bridge.c - quasi-affine facts to isl and back.
 *
 * An expr becomes isl text over named dims: vars are `v<id>`, the relaxed
 * vars of one access `e<acc>_<id>`, and anything isl cannot express (a
 * load, a product of vars, a truncdiv, a select) becomes a fresh dim `t<i>`
 * with the constraints that define or bound it, so a proof over the fresh
 * dims stays sound.  The context (var ranges, bound values, entered
 * constraints) is added for every var met.  A claim is proved when the
 * context and its negation have no integer point; a region's box is the
 * per-dim min/max (isl_pw_aff in the kept vars) of the union of accesses.
 * Every isl object is freed on every path; isl errors (on_error=continue)
 * become diagnostics and a "not proved". */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ilp.h>
#include <isl/set.h>
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
  if (k >= 0 && (size_t)k < sizeof tmp) {
    sb_puts(b, tmp);
    return;
  }
  char *big = malloc((size_t)k + 1);
  if (!big) abort();
  va_start(ap, fmt);
  vsnprintf(big, (size_t)k + 1, fmt, ap);
  va_end(ap);
  sb_puts(b, big);
  free(big);
}

/* the translation state */
typedef struct tx {
  tir_analyzer *a;
  /* kept (parameter or set) vars met, in order; ctx_done: context emitted */
  const tir_expr **vars;
  int nvars, capvars, ctx_done;
  /* relaxed vars of the current access (existential dims) */
  const tir_relax_var *relax;
  int nrelax, acc;
  /* opaque atoms -> fresh dims t<i> */
  const tir_expr **atoms;
  int natoms, capatoms, nfresh;
  sbuf exist; /* names of relaxed/fresh dims of the current disjunct */
  sbuf defs;  /* " and ..." constraints defining fresh dims */
  bool fail;
} tx;

static void tx_free(tx *t) {
  free(t->vars);
  free(t->atoms);
  free(t->exist.s);
  free(t->defs.s);
}

static void push_ptr(const tir_expr ***arr, int *n, int *cap, const tir_expr *e) {
  if (*n == *cap) {
    *cap = *cap ? *cap * 2 : 16;
    const tir_expr **p = realloc(*arr, sizeof *p * (size_t)*cap);
    if (!p) abort();
    *arr = p;
  }
  (*arr)[(*n)++] = e;
}

static void add_exist(tx *t, const char *name) {
  if (t->exist.n) sb_puts(&t->exist, ", ");
  sb_puts(&t->exist, name);
}

static int relax_index(const tx *t, const tir_expr *v) {
  for (int i = 0; i < t->nrelax; i++)
    if (t->relax[i].var == v) return i;
  return -1;
}

static void name_var(tx *t, const tir_expr *v, sbuf *out) {
  if (relax_index(t, v) >= 0) {
    sb_printf(out, "e%d_%u", t->acc, v->u.var.id);
    return;
  }
  int i;
  for (i = 0; i < t->nvars; i++)
    if (t->vars[i] == v) break;
  if (i == t->nvars) push_ptr(&t->vars, &t->nvars, &t->capvars, v);
  sb_printf(out, "v%u", v->u.var.id);
}

static void emit_int(tx *t, const tir_expr *e, sbuf *out);
static void emit_bool(tx *t, const tir_expr *e, sbuf *out);

/* a fresh dim for e: returns its index; constraints go to defs */
static int fresh(tx *t, char *name, size_t cap) {
  int i = t->nfresh++;
  snprintf(name, cap, "t%d_%d", t->acc, i);
  add_exist(t, name);
  return i;
}

static void bound_defs(tx *t, const tir_expr *e, const char *name) {
  int64_t lo, hi;
  ana_bound(t->a, e, &lo, &hi);
  if (lo != INT64_MIN) sb_printf(&t->defs, " and %s >= %lld", name, (long long)lo);
  if (hi != INT64_MAX) sb_printf(&t->defs, " and %s <= %lld", name, (long long)hi);
}

/* an atom isl cannot express: a fresh dim bounded by the atom's bounds
 * (the same atom twice is the same dim within one disjunct) */
static void emit_opaque(tx *t, const tir_expr *e, sbuf *out) {
  for (int i = 0; i < t->natoms; i++)
    if (ana_expr_equal(t->atoms[i], e)) {
      sb_printf(out, "o%d_%d", t->acc, i);
      return;
    }
  char name[48];
  int i = t->natoms;
  push_ptr(&t->atoms, &t->natoms, &t->capatoms, e);
  snprintf(name, sizeof name, "o%d_%d", t->acc, i);
  add_exist(t, name);
  bound_defs(t, e, name);
  sb_puts(out, name);
}

static void emit_truncdiv(tx *t, const tir_expr *e, int64_t c, sbuf *out) {
  char q[48];
  fresh(t, q, sizeof q);
  sbuf x = {0};
  emit_int(t, e->u.bin.a, &x);
  if (x.s) {
    sb_printf(&t->defs, " and ((%s >= 0 and %s = floor((%s)/%lld)) or (%s < 0 and -%s = floor((-(%s))/%lld)))", x.s,
              q, x.s, (long long)c, x.s, q, x.s, (long long)c);
    if (e->kind == TIR_DIV) sb_puts(out, q);
    else sb_printf(out, "((%s) - %lld*%s)", x.s, (long long)c, q);
  }
  free(x.s);
}

static void emit_select(tx *t, const tir_expr *cond, const tir_expr *x, const tir_expr *y, sbuf *out) {
  char s[48];
  fresh(t, s, sizeof s);
  sbuf c = {0}, xa = {0}, ya = {0};
  emit_bool(t, cond, &c);
  emit_int(t, x, &xa);
  emit_int(t, y, &ya);
  if (c.s && xa.s && ya.s)
    sb_printf(&t->defs, " and ((%s and %s = %s) or (not (%s) and %s = %s))", c.s, s, xa.s, c.s, s, ya.s);
  else
    t->fail = true;
  free(c.s);
  free(xa.s);
  free(ya.s);
  sb_puts(out, s);
}

static void emit_bin(tx *t, const char *pre, const tir_expr *x, const char *mid, const tir_expr *y,
                     const char *post, sbuf *out) {
  sb_puts(out, pre);
  emit_int(t, x, out);
  sb_puts(out, mid);
  emit_int(t, y, out);
  sb_puts(out, post);
}

static void emit_int(tx *t, const tir_expr *e, sbuf *out) {
  int64_t c;
  if (t->fail) return;
  if (!ana_is_index_type(e->dtype)) {
    t->fail = true;
    return;
  }
  switch (e->kind) {
  case TIR_INT_IMM: sb_printf(out, "(%lld)", (long long)e->u.int_val); return;
  case TIR_VAR: name_var(t, e, out); return;
  case TIR_ADD: emit_bin(t, "(", e->u.bin.a, " + ", e->u.bin.b, ")", out); return;
  case TIR_SUB: emit_bin(t, "(", e->u.bin.a, " - ", e->u.bin.b, ")", out); return;
  case TIR_MUL:
    if (tir_is_const_int(e->u.bin.b, &c) || tir_is_const_int(e->u.bin.a, &c)) {
      const tir_expr *x = tir_is_const_int(e->u.bin.b, NULL) ? e->u.bin.a : e->u.bin.b;
      sb_printf(out, "(%lld*(", (long long)c);
      emit_int(t, x, out);
      sb_puts(out, "))");
      return;
    }
    break;
  case TIR_FLOORDIV:
  case TIR_FLOORMOD:
    if (tir_is_const_int(e->u.bin.b, &c) && c < 0 && c != INT64_MIN) {
      /* x // -m == floor(-x / m); x % -m == -((-x) mod m) */
      sb_puts(out, e->kind == TIR_FLOORDIV ? "floor((-(" : "(-((-(");
      emit_int(t, e->u.bin.a, out);
      if (e->kind == TIR_FLOORDIV) sb_printf(out, "))/%lld)", (long long)-c);
      else sb_printf(out, ")) mod %lld))", (long long)-c);
      return;
    }
    if (tir_is_const_int(e->u.bin.b, &c) && c > 0) {
      if (e->kind == TIR_FLOORDIV) {
        sb_puts(out, "floor((");
        emit_int(t, e->u.bin.a, out);
        sb_printf(out, ")/%lld)", (long long)c);
      } else {
        sb_puts(out, "((");
        emit_int(t, e->u.bin.a, out);
        sb_printf(out, ") mod %lld)", (long long)c);
      }
      return;
    }
    break;
  case TIR_DIV:
  case TIR_MOD:
    if (tir_is_const_int(e->u.bin.b, &c) && c > 0) {
      emit_truncdiv(t, e, c, out);
      return;
    }
    if (tir_is_const_int(e->u.bin.b, &c) && c < 0 && c != INT64_MIN) {
      /* truncdiv(x, -m) == -truncdiv(x, m); truncmod(x, -m) == truncmod(x, m) */
      sb_puts(out, e->kind == TIR_DIV ? "(-(" : "((");
      emit_truncdiv(t, e, -c, out);
      sb_puts(out, "))");
      return;
    }
    break;
  case TIR_MIN: emit_bin(t, "min(", e->u.bin.a, ", ", e->u.bin.b, ")", out); return;
  case TIR_MAX: emit_bin(t, "max(", e->u.bin.a, ", ", e->u.bin.b, ")", out); return;
  case TIR_SELECT: emit_select(t, e->u.select.cond, e->u.select.t, e->u.select.f, out); return;
  case TIR_CALL:
    if (!strcmp(e->u.call.op, "if_then_else") && e->u.call.nargs == 3) {
      emit_select(t, e->u.call.args[0], e->u.call.args[1], e->u.call.args[2], out);
      return;
    }
    break;
  case TIR_CAST:
    if (ana_is_index_type(e->u.un.a->dtype)) {
      int64_t lo, hi;
      ana_bound(t->a, e->u.un.a, &lo, &hi);
      if (lo != INT64_MIN && hi != INT64_MAX && ana_fits(e->dtype, lo) && ana_fits(e->dtype, hi)) {
        emit_int(t, e->u.un.a, out);
        return;
      }
    }
    break;
  default: break;
  }
  emit_opaque(t, e, out);
}

static const char *cmp_op(tir_expr_kind k) {
  switch (k) {
  case TIR_EQ: return " = ";
  case TIR_NE: return " != ";
  case TIR_LT: return " < ";
  case TIR_LE: return " <= ";
  case TIR_GT: return " > ";
  default: return " >= ";
  }
}

static void emit_bool(tx *t, const tir_expr *e, sbuf *out) {
  if (t->fail) return;
  if (e->kind == TIR_INT_IMM && tir_dtype_is_bool(e->dtype)) {
    sb_puts(out, e->u.int_val ? "(0 = 0)" : "(1 = 0)");
    return;
  }
  if (TIR_IS_CMP(e->kind) && ana_is_index_type(e->u.bin.a->dtype)) {
    emit_bin(t, "(", e->u.bin.a, cmp_op(e->kind), e->u.bin.b, ")", out);
    return;
  }
  if (e->kind == TIR_AND || e->kind == TIR_OR) {
    sb_puts(out, "(");
    emit_bool(t, e->u.bin.a, out);
    sb_puts(out, e->kind == TIR_AND ? " and " : " or ");
    emit_bool(t, e->u.bin.b, out);
    sb_puts(out, ")");
    return;
  }
  if (e->kind == TIR_NOT) {
    sb_puts(out, "not (");
    emit_bool(t, e->u.un.a, out);
    sb_puts(out, ")");
    return;
  }
  t->fail = true;
}

/* context facts about every kept var met so far (and those they mention) */
static void emit_context(tx *t, sbuf *out) {
  for (; t->ctx_done < t->nvars && !t->fail; t->ctx_done++) {
    const tir_expr *v = t->vars[t->ctx_done];
    const ana_var *info = ana_lookup(t->a, v);
    sbuf name = {0};
    name_var(t, v, &name);
    if (v->u.var.size_var) sb_printf(out, " and %s >= 0", name.s);
    if (info && info->value && ana_is_index_type(info->value->dtype)) {
      sbuf x = {0};
      emit_int(t, info->value, &x);
      if (!t->fail) sb_printf(out, " and %s = %s", name.s, x.s);
      free(x.s);
    } else if (info && info->min) {
      sbuf x = {0}, y = {0};
      emit_int(t, info->min, &x);
      emit_int(t, info->extent, &y);
      if (!t->fail) sb_printf(out, " and %s <= %s < %s + %s", x.s, name.s, x.s, y.s);
      free(x.s);
      free(y.s);
    }
    free(name.s);
    /* a var's range isl cannot express is dropped: fewer facts stay sound */
    t->fail = false;
  }
}

/* the entered constraints isl can express.  A disjunctive one (`!=`,
 * `or`: an else branch's `not (x == k)`) doubles the pieces isl works on:
 * of those only the innermost MAX_DISJ are kept, so that a chain of n
 * elifs costs O(n) per query, not the isl quota (55 elifs took 2.7 s in
 * Simplify).  Fewer facts stay sound. */
#define MAX_DISJ 4

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
  for (int i = 0; i < t->nvars; i++) add_var(&in, a, t->vars[i], 0);
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

static void emit_conds(tx *t, sbuf *out) {
  int disj = 0;
  bool *rel = relevant_conds(t);
  for (int i = t->a->nconds - 1; i >= 0; i--) {
    if (!rel[i]) continue;
    sbuf c = {0};
    emit_bool(t, t->a->conds[i].cond, &c);
    bool d = c.s && (strstr(c.s, " != ") || strstr(c.s, " or "));
    if (!t->fail && c.s && (!d || disj++ < MAX_DISJ)) sb_printf(out, " and %s", c.s);
    t->fail = false;
    free(c.s);
  }
  free(rel);
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

static isl_set *read_set(tir_analyzer *a, const char *text) {
  isl_set *s = isl_set_read_from_str(a->isl, text);
  if (!s) isl_diag(a);
  return s;
}

/* is s one of the entered constraints, or a conjunct of one?  (a literal
 * match, as TVM's analyzer keeps its literal constraints: it finds what
 * emit_conds does not give isl, which keeps only a few disjunctive ones) */
static bool conjunct_equal(const tir_expr *c, const tir_expr *s) {
  if (c->kind == TIR_AND) return conjunct_equal(c->u.bin.a, s) || conjunct_equal(c->u.bin.b, s);
  return ana_expr_equal(c, s);
}

/* { [] : exists (dims : ctx and defs and not claim) } is empty */
bool ana_isl_prove(tir_analyzer *a, tir_expr *cond) {
  if (!cond) return false;
  for (int i = a->nconds - 1; i >= 0; i--)
    if (conjunct_equal(a->conds[i].cond, cond)) return true;
  if (!a->isl) return false;
  isl_begin(a);
  tx t = {0};
  t.a = a;
  t.acc = 0;
  sbuf claim = {0}, ctx = {0};
  emit_bool(&t, cond, &claim);
  bool ok = !t.fail && claim.s;
  if (ok) {
    emit_conds(&t, &ctx);
    emit_context(&t, &ctx);
  }
  bool proved = false;
  if (ok) {
    sbuf text = {0};
    sb_puts(&text, "{ [");
    for (int i = 0; i < t.nvars; i++) sb_printf(&text, "%sv%u", i ? ", " : "", t.vars[i]->u.var.id);
    sb_puts(&text, "] : ");
    if (t.exist.n) sb_printf(&text, "exists (%s : ", t.exist.s);
    sb_printf(&text, "not (%s)%s%s", claim.s, ctx.s ? ctx.s : "", t.defs.s ? t.defs.s : "");
    if (t.exist.n) sb_puts(&text, ")");
    sb_puts(&text, " }");
    /* the text holds all the answer depends on: a query asked again
     * (the simplifier's min/max folding asks the same pairs of every
     * access of a region) is answered from the memo */
    long known = tir_strmap_get(&a->prove_memo, text.s, -1);
    isl_set *s = known < 0 ? read_set(a, text.s) : NULL;
    if (known >= 0) proved = known;
    else if (s) {
      isl_bool empty = isl_set_is_empty(s);
      if (empty == isl_bool_error) isl_diag(a);
      proved = empty == isl_bool_true;
      isl_set_free(s);
      if (empty != isl_bool_error) *tir_strmap_at(&a->prove_memo, text.s, 0) = proved;
    }
    free(text.s);
  }
  free(claim.s);
  free(ctx.s);
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

/* a new disjunct k: its fresh dims, atoms and definitions start over */
static void reset_disjunct(tx *t, int k) {
  t->acc = k;
  t->natoms = 0;
  t->nfresh = 0;
  t->exist.n = 0;
  if (t->exist.s) t->exist.s[0] = 0;
  t->defs.n = 0;
  if (t->defs.s) t->defs.s[0] = 0;
}


static void emit_access(tx *t, const tir_access_region *acc, int ndim, sbuf *out) {
  sbuf body = {0};
  for (int d = 0; d < ndim && d < acc->ndim; d++) {
    sbuf mn = {0}, ext = {0};
    emit_int(t, acc->region[d].min, &mn);
    emit_int(t, acc->region[d].extent, &ext);
    if (!t->fail) sb_printf(&body, " and %s <= d%d < %s + %s", mn.s, d, mn.s, ext.s);
    free(mn.s);
    free(ext.s);
  }
  for (int i = 0; i < acc->nrelax && !t->fail; i++) {
    sbuf mn = {0}, ext = {0};
    char name[48];
    snprintf(name, sizeof name, "e%d_%u", t->acc, acc->relax[i].var->u.var.id);
    add_exist(t, name);
    emit_int(t, acc->relax[i].min, &mn);
    emit_int(t, acc->relax[i].extent, &ext);
    if (!t->fail) sb_printf(&body, " and %s <= %s < %s + %s", mn.s, name, mn.s, ext.s);
    free(mn.s);
    free(ext.s);
  }
  for (int i = 0; i < acc->nconds && !t->fail; i++) {
    sbuf c = {0};
    emit_bool(t, acc->conds[i], &c);
    if (!t->fail) sb_printf(&body, " and %s", c.s);
    else t->fail = false; /* a condition isl cannot read only narrows less */
    free(c.s);
  }
  sb_puts(out, "[");
  for (int d = 0; d < ndim; d++) sb_printf(out, "%sd%d", d ? ", " : "", d);
  sb_puts(out, "] : ");
  if (t->exist.n) sb_printf(out, "exists (%s : ", t->exist.s);
  sb_printf(out, "0 = 0%s%s", body.s ? body.s : "", t->defs.s ? t->defs.s : "");
  if (t->exist.n) sb_puts(out, ")");
  free(body.s);
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
  sbuf sets = {0}, ctx = {0};
  for (int i = 0; i < nacc && !t.fail; i++) {
    reset_disjunct(&t, i);
    t.relax = acc[i].relax;
    t.nrelax = acc[i].nrelax;
    if (i) sb_puts(&sets, "; ");
    emit_access(&t, &acc[i], ndim, &sets);
  }
  bool ok = !t.fail && t.natoms == 0;
  t.relax = NULL;
  t.nrelax = 0;
  t.acc = nacc;
  if (ok) {
    t.exist.n = 0;
    t.natoms = t.nfresh = 0;
    emit_conds(&t, &ctx);
    emit_context(&t, &ctx);
    if (t.exist.n) { /* the params context cannot name fresh dims: drop it */
      free(ctx.s);
      memset(&ctx, 0, sizeof ctx);
    }
    t.fail = false;
  }
  isl_set *s = NULL;
  if (ok) {
    sbuf text = {0};
    sb_puts(&text, "[");
    for (int i = 0; i < t.nvars; i++) sb_printf(&text, "%sv%u", i ? ", " : "", t.vars[i]->u.var.id);
    sb_printf(&text, "] -> { %s }", sets.s);
    s = read_set(a, text.s);
    free(text.s);
    if (s && ctx.s) {
      sbuf ptext = {0};
      sb_puts(&ptext, "[");
      for (int i = 0; i < t.nvars; i++) sb_printf(&ptext, "%sv%u", i ? ", " : "", t.vars[i]->u.var.id);
      sb_printf(&ptext, "] -> { : 0 = 0%s }", ctx.s);
      isl_set *p = read_set(a, ptext.s);
      free(ptext.s);
      s = p ? isl_set_intersect_params(s, p) : (isl_set_free(s), NULL);
    }
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
  free(sets.s);
  free(ctx.s);
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
  sbuf x = {0}, ctx = {0};
  emit_int(&t, e, &x);
  bool ok = !t.fail && x.s;
  if (ok) {
    emit_conds(&t, &ctx);
    emit_context(&t, &ctx);
  }
  bool found = false;
  if (ok) {
    sbuf text = {0};
    sb_puts(&text, "{ [r] : exists (");
    for (int i = 0; i < t.nvars; i++) sb_printf(&text, "%sv%u", i ? ", " : "", t.vars[i]->u.var.id);
    if (t.exist.n) sb_printf(&text, "%s%s", t.nvars ? ", " : "", t.exist.s);
    if (!t.nvars && !t.exist.n) sb_puts(&text, "unused_");
    sb_printf(&text, " : r = %s%s%s) }", x.s, ctx.s ? ctx.s : "", t.defs.s ? t.defs.s : "");
    isl_set *s = read_set(a, text.s);
    free(text.s);
    if (s) {
      isl_pw_aff *pa = isl_set_dim_max(s, 0);
      isl_val *v = pa ? isl_pw_aff_max_val(pa) : NULL;
      found = val_to_i64(v, out);
    }
  }
  free(x.s);
  free(ctx.s);
  tx_free(&t);
  isl_end(a);
  return found;
}

/* ---- values carried across a loop's iterations (tir_loop_carries) ---- */

/* "e<k>_<id>" */
static void dim_name(char *buf, size_t cap, int k, const tir_expr *v) {
  snprintf(buf, cap, "e%d_%u", k, v->u.var.id);
}

/* access x as disjunct k over the tuple [read loops, d0 ...]: its dims
 * ranged or bound, existential but for the first `ntuple` loops (the
 * read's own, in the tuple), its conditions, d<j> = its indices.  With
 * `lvar`, the loop's var is one more dim of x, below `lvar`'s own value:
 * an earlier iteration.  *exact stays true only when nothing was dropped
 * and nothing became an opaque atom. */
static void emit_flow(tx *t, int k, const tir_flow_access *x, int ntuple, const tir_relax_var *lvar, sbuf *body,
                      bool *exact) {
  reset_disjunct(t, k);
  int n = x->ndims + (lvar ? 1 : 0);
  tir_relax_var *dims = malloc(sizeof *dims * (size_t)(n ? n : 1));
  if (!dims) abort();
  if (x->ndims) memcpy(dims, x->dims, sizeof *dims * (size_t)x->ndims);
  if (lvar) dims[x->ndims] = *lvar;
  t->relax = dims;
  t->nrelax = n;
  *exact = true;
  sb_puts(body, "0 = 0");
  for (int i = 0; i < n; i++) {
    char name[48];
    dim_name(name, sizeof name, k, dims[i].var);
    if (i >= ntuple) add_exist(t, name);
    sbuf mn = {0}, ext = {0};
    t->fail = false;
    emit_int(t, dims[i].min, &mn);
    if (lvar && i == x->ndims) {
      if (!t->fail) sb_printf(body, " and %s <= %s < v%u", mn.s, name, lvar->var->u.var.id);
    } else if (!dims[i].extent) {
      if (!t->fail) sb_printf(body, " and %s = %s", name, mn.s);
    } else {
      emit_int(t, dims[i].extent, &ext);
      if (!t->fail) sb_printf(body, " and %s <= %s < %s + %s", mn.s, name, mn.s, ext.s);
    }
    if (t->fail) *exact = false;
    free(mn.s);
    free(ext.s);
  }
  for (int i = 0; i < x->nconds; i++) {
    sbuf c = {0};
    t->fail = false;
    emit_bool(t, x->conds[i], &c);
    if (!t->fail) sb_printf(body, x->neg && x->neg[i] ? " and not (%s)" : " and %s", c.s);
    else *exact = false; /* fewer conditions: more elements */
    free(c.s);
  }
  for (int j = 0; j < x->ndim; j++) {
    sbuf e = {0};
    t->fail = false;
    emit_int(t, x->idx[j], &e);
    if (!t->fail) sb_printf(body, " and d%d = %s", j, e.s);
    else *exact = false;
    free(e.s);
  }
  if (t->natoms) *exact = false;
  t->fail = false;
  t->relax = NULL;
  t->nrelax = 0;
  free(dims);
}

/* one disjunct "[tuple] : exists (...: body defs)" appended to out */
static void flow_disjunct(tx *t, const char *tuple, const char *body, sbuf *out) {
  if (out->n) sb_puts(out, "; ");
  sb_printf(out, "[%s] : ", tuple);
  if (t->exist.n) sb_printf(out, "exists (%s : ", t->exist.s);
  sb_puts(out, body);
  if (t->defs.s) sb_puts(out, t->defs.s);
  if (t->exist.n) sb_puts(out, ")");
}

/* w runs before r in one iteration of the loop: lexicographically earlier
 * in the loops they share, or at the same point of them and earlier in
 * order.  False where it never does. */
static bool emit_prec(int kw, const tir_flow_access *w, const tir_flow_access *r, sbuf *out) {
  int p = 0;
  while (p < w->nloops && p < r->nloops && w->loop_ids[p] == r->loop_ids[p]) p++;
  sbuf s = {0};
  for (int j = 0; j <= p; j++) {
    if (j == p && w->seq >= r->seq) break;
    sb_puts(&s, s.n ? " or (0 = 0" : "(0 = 0");
    for (int i = 0; i < j; i++)
      sb_printf(&s, " and e%d_%u = e0_%u", kw, w->dims[i].var->u.var.id, r->dims[i].var->u.var.id);
    if (j < p) sb_printf(&s, " and e%d_%u < e0_%u", kw, w->dims[j].var->u.var.id, r->dims[j].var->u.var.id);
    sb_puts(&s, ")");
  }
  bool any = s.n > 0;
  if (any) sb_printf(out, " and (%s)", s.s);
  free(s.s);
  return any;
}

static isl_set *flow_set(tir_analyzer *a, const char *params, const char *tuple, const char *disj) {
  sbuf text = {0};
  if (disj && *disj) sb_printf(&text, "[%s] -> { %s }", params, disj);
  else sb_printf(&text, "[%s] -> { [%s] : 1 = 0 }", params, tuple);
  isl_set *s = read_set(a, text.s);
  free(text.s);
  return s;
}

/* the texts of one query with their names renamed n0, n1, ... in order
 * of appearance (isl's keywords kept), so that queries alike but for
 * their vars' ids have one key */
static char *memo_key(const char *const *parts, int n) {
  static const char *const kw[] = {"exists", "and", "or", "not", "floor", "ceil", "mod", "min", "max", NULL};
  tir_strmap names = {0};
  sbuf k = {0};
  sb_puts(&k, "");
  for (int i = 0; i < n; i++) {
    const char *s = parts[i] ? parts[i] : "";
    while (*s) {
      if (!(isalpha((unsigned char)*s) || *s == '_')) {
        sb_printf(&k, "%c", *s++);
        continue;
      }
      const char *e = s;
      while (isalnum((unsigned char)*e) || *e == '_') e++;
      char *tok = malloc((size_t)(e - s) + 1);
      if (!tok) abort();
      memcpy(tok, s, (size_t)(e - s));
      tok[e - s] = 0;
      bool keep = false;
      for (int j = 0; kw[j] && !keep; j++) keep = !strcmp(kw[j], tok);
      if (keep) sb_puts(&k, tok);
      else {
        long *id = tir_strmap_at(&names, tok, -1);
        if (*id < 0) *id = (long)names.n - 1;
        sb_printf(&k, "n%ld", *id);
      }
      free(tok);
      s = e;
    }
    sb_puts(&k, "\x01");
  }
  tir_strmap_free(&names);
  return k.s;
}

/* is some element r reads not written earlier in the iteration, and
 * written in an earlier one? */
static bool read_carried(tir_analyzer *a, const tir_expr *var, tir_expr *min, tir_expr *extent,
                         const tir_relax_var *outer, int nouter, const tir_flow_access *acc, int nacc, int ri) {
  const tir_flow_access *r = &acc[ri];
  tx t = {0};
  t.a = a;
  sbuf tuple = {0}, rs = {0}, cs = {0}, ps = {0}, ctx = {0}, body = {0};
  for (int i = 0; i < r->nloops; i++) sb_printf(&tuple, "%se0_%u", i ? ", " : "", r->dims[i].var->u.var.id);
  for (int j = 0; j < r->ndim; j++) sb_printf(&tuple, "%sd%d", (r->nloops || j) ? ", " : "", j);
  bool exact;
  emit_flow(&t, 0, r, r->nloops, NULL, &body, &exact);
  bool ok = exact;
  if (ok) flow_disjunct(&t, tuple.s ? tuple.s : "", body.s, &rs);
  tir_relax_var lv = {var, min, extent};
  for (int i = 0; i < nacc && ok; i++) {
    const tir_flow_access *w = &acc[i];
    if (!w->write || w->ndim != r->ndim) continue;
    int kc = 1 + 2 * i, kp = 2 + 2 * i;
    free(body.s);
    memset(&body, 0, sizeof body);
    emit_flow(&t, kc, w, 0, NULL, &body, &exact);
    if (emit_prec(kc, w, r, &body)) flow_disjunct(&t, tuple.s ? tuple.s : "", body.s, &cs);
    free(body.s);
    memset(&body, 0, sizeof body);
    emit_flow(&t, kp, w, 0, &lv, &body, &exact);
    if (exact) flow_disjunct(&t, tuple.s ? tuple.s : "", body.s, &ps);
  }
  bool carried = false;
  if (ok && ps.n) {
    /* the loops' ranges: the parameters' context */
    t.relax = NULL;
    t.nrelax = 0;
    sb_puts(&ctx, "0 = 0");
    for (int i = 0; i <= nouter; i++) {
      const tir_relax_var *o = i < nouter ? &outer[i] : &lv;
      sbuf v = {0}, mn = {0}, ext = {0};
      t.fail = false;
      reset_disjunct(&t, 0);
      name_var(&t, o->var, &v);
      emit_int(&t, o->min, &mn);
      emit_int(&t, o->extent, &ext);
      if (!t.fail && !t.natoms && !t.nfresh) sb_printf(&ctx, " and %s <= %s < %s + %s", mn.s, v.s, mn.s, ext.s);
      free(v.s);
      free(mn.s);
      free(ext.s);
    }
    for (int i = 0; i < t.nvars; i++)
      if (t.vars[i]->u.var.size_var) sb_printf(&ctx, " and v%u >= 0", t.vars[i]->u.var.id);
    sbuf params = {0};
    sb_puts(&params, "");
    for (int i = 0; i < t.nvars; i++) sb_printf(&params, "%sv%u", i ? ", " : "", t.vars[i]->u.var.id);
    const char *P = params.s ? params.s : "", *T = tuple.s ? tuple.s : "";
    const char *parts[] = {P, T, rs.s, cs.s, ps.s, ctx.s};
    char *key = memo_key(parts, 6);
    long known = tir_strmap_get(&a->flow_memo, key, -1);
    isl_set *R = NULL, *C = NULL, *W = NULL, *X = NULL;
    if (known < 0) {
      R = flow_set(a, P, T, rs.s), C = flow_set(a, P, T, cs.s), W = flow_set(a, P, T, ps.s);
      sbuf ctext = {0};
      sb_printf(&ctext, "[%s] -> { : %s }", P, ctx.s);
      X = read_set(a, ctext.s);
      free(ctext.s);
    }
    if (known >= 0) carried = known;
    else if (R && C && W && X) {
      isl_set *bad = isl_set_intersect_params(isl_set_intersect(isl_set_subtract(R, C), W), X);
      isl_bool empty = isl_set_is_empty(bad);
      if (empty == isl_bool_error) isl_diag(a);
      carried = empty == isl_bool_false;
      isl_set_free(bad);
      if (empty != isl_bool_error) *tir_strmap_at(&a->flow_memo, key, 0) = carried;
    } else {
      isl_set_free(R);
      isl_set_free(C);
      isl_set_free(W);
      isl_set_free(X);
    }
    free(key);
    free(params.s);
  }
  free(tuple.s);
  free(rs.s);
  free(cs.s);
  free(ps.s);
  free(ctx.s);
  free(body.s);
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
