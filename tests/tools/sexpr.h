/* sexpr.h - a tiny S-expression reader of int exprs for the analyzer's
 * tests and arith_driver: integers, names (int32 vars, one per name),
 * (+ a b) (- a b) (* a b) (// a b) floordiv, (% a b) floormod, (div a b)
 * truncdiv, (mod a b) truncmod, (min a b) (max a b), (< a b) (<= a b)
 * (> a b) (>= a b) (== a b) (!= a b), (and a b) (or a b) (not a),
 * (select c a b), (i64 x) a cast to int64, true / false. */
#ifndef TIR_TEST_SEXPR_H
#define TIR_TEST_SEXPR_H
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tir/ir.h"

typedef struct sx_vars {
  const char *names[64];
  tir_expr *vars[64];
  int n;
} sx_vars;

static tir_expr *sx_var(tir_ctx *c, sx_vars *vs, const char *name, size_t len) {
  for (int i = 0; i < vs->n; i++)
    if (strlen(vs->names[i]) == len && !strncmp(vs->names[i], name, len)) return vs->vars[i];
  if (vs->n == 64) return NULL;
  const char *nm = tir_strndup(c, name, len);
  vs->names[vs->n] = nm;
  vs->vars[vs->n] = tir_var(c, nm, TIR_INT32);
  return vs->vars[vs->n++];
}

static void sx_skip(const char **p) {
  while (**p && isspace((unsigned char)**p)) (*p)++;
}

static tir_expr *sx_parse(tir_ctx *c, sx_vars *vs, const char **p) {
  sx_skip(p);
  if (**p == '(') {
    (*p)++;
    sx_skip(p);
    const char *op = *p;
    while (**p && !isspace((unsigned char)**p) && **p != ')') (*p)++;
    size_t n = (size_t)(*p - op);
    tir_expr *args[3] = {0};
    int na = 0;
    for (;;) {
      sx_skip(p);
      if (**p == ')') { (*p)++; break; }
      if (!**p || na == 3) return NULL;
      if (!(args[na++] = sx_parse(c, vs, p))) return NULL;
    }
    static const struct { const char *s; tir_expr_kind k; } ops[] = {
        {"+", TIR_ADD}, {"-", TIR_SUB}, {"*", TIR_MUL}, {"//", TIR_FLOORDIV}, {"%", TIR_FLOORMOD},
        {"div", TIR_DIV}, {"mod", TIR_MOD}, {"min", TIR_MIN}, {"max", TIR_MAX}, {"<", TIR_LT},
        {"<=", TIR_LE}, {">", TIR_GT}, {">=", TIR_GE}, {"==", TIR_EQ}, {"!=", TIR_NE},
        {"and", TIR_AND}, {"or", TIR_OR}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
      if (strlen(ops[i].s) == n && !strncmp(ops[i].s, op, n)) return na == 2 ? tir_binary(c, ops[i].k, args[0], args[1]) : NULL;
    if (n == 3 && !strncmp(op, "not", 3) && na == 1) return tir_not(c, args[0]);
    if (n == 6 && !strncmp(op, "select", 6) && na == 3) return tir_select(c, args[0], args[1], args[2]);
    if (n == 3 && !strncmp(op, "i64", 3) && na == 1) return tir_cast(c, TIR_INT64, args[0]);
    if (n == 6 && !strncmp(op, "likely", 6) && na == 1) return tir_call(c, TIR_BOOL, "likely", args, 1);
    return NULL;
  }
  const char *s = *p;
  if (*s == '-' || isdigit((unsigned char)*s)) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s) return NULL;
    *p = end;
    return tir_i32(c, v);
  }
  while (**p && (isalnum((unsigned char)**p) || **p == '_')) (*p)++;
  size_t len = (size_t)(*p - s);
  if (!len) return NULL;
  if (len == 4 && !strncmp(s, "true", 4)) return tir_bool(c, true);
  if (len == 5 && !strncmp(s, "false", 5)) return tir_bool(c, false);
  return sx_var(c, vs, s, len);
}

static tir_expr *sx_read(tir_ctx *c, sx_vars *vs, const char *text) {
  const char *p = text;
  tir_expr *e = sx_parse(c, vs, &p);
  sx_skip(&p);
  return (e && !*p) ? e : NULL;
}
#endif
