/* printer_expr.c - the TVMScript printer's text buffer, its namespace of
 * printed names, and expressions with Python precedence and minimal
 * parentheses. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intrin/intrin.h"
#include "ir/const_fold.h"
#include "script/printer.h"

/* ------------------------------------------------------------------ */
/* text                                                                */

static void reserve(pr_text *t, size_t more) {
  if (t->len + more + 1 <= t->cap) return;
  size_t cap = t->cap ? t->cap : 256;
  while (cap < t->len + more + 1) cap *= 2;
  char *s = realloc(t->s, cap);
  if (!s) abort(); /* out of memory */
  t->s = s;
  t->cap = cap;
}

void pr_puts(pr_text *t, const char *s) {
  size_t n = strlen(s);
  reserve(t, n);
  memcpy(t->s + t->len, s, n + 1);
  t->len += n;
}

void pr_printf(pr_text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  reserve(t, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

/* ------------------------------------------------------------------ */
/* names                                                               */

void pr_init(printer *p, tir_dialect d) {
  memset(p, 0, sizeof *p);
  p->dialect = d;
  reserve(&p->out, 0);
  p->out.s[0] = 0;
}

void pr_free(printer *p) {
  pr_pop_to(p, 0);
  free(p->names);
  tir_ptrmap_free(&p->key_head);
  tir_strmap_free(&p->taken);
  tir_strmap_free(&p->next_suffix);
  tir_ptrmap_free(&p->fv_at);
  tir_ptrmap_free(&p->fv_stmts);
  free(p->loops);
  free(p->decl_vars);
  free(p->decl_at);
  free(p->env);
  free(p->env_tag);
  free(p->free_bufs);
  free(p->free_at);
  tir_ptrmap_free(&p->free_data);
  tir_ptrmap_free(&p->free_stmts);
  free(p->out.s);
}

/* the innermost entry of key, or NULL */
const pr_name *pr_entry(const printer *p, const void *key) {
  long i = tir_ptrmap_get(&p->key_head, key, 0);
  return i ? &p->names[i - 1] : NULL;
}

const char *pr_lookup(const printer *p, const void *key) {
  const pr_name *e = pr_entry(p, key);
  return e ? e->text : NULL;
}

static bool name_taken(const printer *p, const char *s) {
  /* `T` is the dialect's alias, used inside every function; `I` is only
   * used on the class decorator, so a var may be named I, as written */
  if (!strcmp(s, "T")) return true;
  return tir_strmap_get(&p->taken, s, 0) > 0;
}

static bool is_keyword(const char *s) {
  static const char *const kw[] = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
      "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
      "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
      "return", "try", "while", "with", "yield"};
  for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
    if (!strcmp(s, kw[i])) return true;
  return false;
}

/* a valid Python identifier from a name hint (malloc'd) */
static char *sanitize(const char *hint) {
  if (!hint || !*hint) hint = "v";
  size_t n = strlen(hint);
  char *s = malloc(n + 3);
  if (!s) abort();
  size_t k = 0;
  if (hint[0] >= '0' && hint[0] <= '9') s[k++] = 'v';
  for (size_t i = 0; i < n; i++) {
    char c = hint[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    s[k++] = ok ? c : '_';
  }
  s[k] = 0;
  if (is_keyword(s)) {
    s[k++] = '_';
    s[k] = 0;
  }
  return s;
}

static void push_name(printer *p, const void *key, char *text, bool alias, const tir_buffer *buf) {
  if (p->nnames == p->capnames) {
    int cap = p->capnames ? p->capnames * 2 : 32;
    pr_name *n = realloc(p->names, sizeof *n * (size_t)cap);
    if (!n) abort();
    p->names = n;
    p->capnames = cap;
  }
  pr_name *e = &p->names[p->nnames];
  e->key = key;
  e->text = text;
  e->alias = alias;
  e->buf = buf;
  e->chained = key != NULL;
  e->prev = (int)tir_ptrmap_get(&p->key_head, key, 0) - 1;
  e->first = e->prev >= 0 ? p->names[e->prev].first : p->nnames;
  e->plain = !alias ? p->nnames : e->prev >= 0 ? p->names[e->prev].plain : -1;
  p->nnames++;
  if (key) tir_ptrmap_put(&p->key_head, key, p->nnames);
  if (!alias) ++*tir_strmap_at(&p->taken, text, 0);
}

/* the top entry leaves key_head's chains (popped, or kept only as a
 * reserved name) */
static void unchain(printer *p, pr_name *e) {
  if (!e->chained) return;
  tir_ptrmap_put(&p->key_head, e->key, e->prev + 1);
  e->chained = false;
}

/* the entries from mark up stay as names no var is given, but no key
 * finds them any longer (pr_pop_flat) */
void pr_reserve_from(printer *p, int mark) {
  static const char reserved = 0;
  for (int i = p->nnames - 1; i >= mark; i--) {
    pr_name *e = &p->names[i];
    unchain(p, e);
    if (e->alias) ++*tir_strmap_at(&p->taken, e->text, 0);
    e->key = &reserved;
    e->alias = false;
    e->buf = NULL;
  }
}

const char *pr_define(printer *p, const void *key, const char *hint) {
  char *base = sanitize(hint);
  char *name = base;
  if (name_taken(p, name)) {
    /* the smallest free suffix, searched from past those known taken
     * (next_suffix; a name going out of scope lowers it, pr_pop_to), so
     * that n names of one hint take linear time, not n^2 */
    long *next = tir_strmap_at(&p->next_suffix, base, 1);
    size_t n = strlen(base) + 24;
    name = malloc(n);
    if (!name) abort();
    long i = *next;
    for (;; i++) {
      snprintf(name, n, "%s_%ld", base, i);
      if (!name_taken(p, name)) break;
    }
    *next = i + 1;
    free(base);
  }
  push_name(p, key, name, false, NULL);
  return name;
}

const tir_buffer *pr_data_buffer(const printer *p, const tir_expr *v) {
  const pr_name *e = pr_entry(p, v);
  return e ? e->buf : NULL;
}

void pr_define_alias(printer *p, const void *key, const char *text, const tir_buffer *buf) {
  size_t n = strlen(text);
  char *s = malloc(n + 1);
  if (!s) abort();
  memcpy(s, text, n + 1);
  push_name(p, key, s, true, buf);
}

/* hint_k out of scope: hint's next suffix is at most k again */
static void release_suffix(printer *p, const char *name) {
  const char *us = strrchr(name, '_');
  if (!us || us == name || !us[1] || us[1] == '0') return;
  long k = 0;
  for (const char *q = us + 1; *q; q++) {
    if (*q < '0' || *q > '9' || k > 100000000) return;
    k = k * 10 + (*q - '0');
  }
  size_t len = (size_t)(us - name);
  char *base = malloc(len + 1);
  if (!base) abort();
  memcpy(base, name, len);
  base[len] = 0;
  if (tir_strmap_get(&p->next_suffix, base, 0) > k) *tir_strmap_at(&p->next_suffix, base, 0) = k;
  free(base);
}

void pr_forget_from(printer *p, int mark, const tir_ptrmap *keys) {
  for (int i = p->nnames - 1; i >= mark; i--) {
    pr_name *e = &p->names[i];
    if (e->alias || !e->chained || !tir_ptrmap_get(keys, e->key, 0)) continue;
    /* only the innermost entry of its key can leave the chain */
    if ((int)tir_ptrmap_get(&p->key_head, e->key, 0) != i + 1) continue;
    unchain(p, e);
    if (--*tir_strmap_at(&p->taken, e->text, 0) == 0) release_suffix(p, e->text);
    e->alias = true;
  }
}

void pr_pop_to(printer *p, int mark) {
  while (p->nnames > mark) {
    pr_name *e = &p->names[p->nnames - 1];
    unchain(p, e);
    if (!e->alias && --*tir_strmap_at(&p->taken, e->text, 0) == 0) release_suffix(p, e->text);
    free(e->text);
    p->nnames--;
  }
}

void pr_var_name(printer *p, const tir_expr *v) {
  const char *n = pr_lookup(p, v);
  if (n) {
    pr_puts(&p->out, n);
    return;
  }
  if (tir_ptrmap_get(&p->fv_at, v, 0)) p->fv_missed = true; /* placed after this use */
  char *s = sanitize(v->u.var.name);
  pr_puts(&p->out, s);
  free(s);
}

void pr_buffer_name(printer *p, const tir_buffer *b) {
  const char *n = pr_lookup(p, b);
  if (n) {
    pr_puts(&p->out, n);
    return;
  }
  char *s = sanitize(b->name);
  pr_puts(&p->out, s);
  free(s);
}

/* ------------------------------------------------------------------ */
/* literals                                                            */

void pr_dtype_str(pr_text *t, tir_dtype d) {
  char buf[32];
  pr_printf(t, "\"%s\"", tir_dtype_str(d, buf));
}

void pr_string_lit(pr_text *t, const char *s) {
  pr_puts(t, "\"");
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    switch (*c) {
    case '"': pr_puts(t, "\\\""); break;
    case '\\': pr_puts(t, "\\\\"); break;
    case '\n': pr_puts(t, "\\n"); break;
    case '\t': pr_puts(t, "\\t"); break;
    case '\r': pr_puts(t, "\\r"); break;
    default:
      if (*c < 0x20 || *c == 0x7f) pr_printf(t, "\\x%02x", *c);
      else pr_printf(t, "%c", *c);
    }
  }
  pr_puts(t, "\"");
}

/* TVM 0.27 reads T.<dtype> as a type for 1, 4, 8, 16, 32 and 64 lanes: its
 * x2 names call constructors its FFI does not have (T.int32x2), and it has
 * no name for other lane counts (T.int32x3, T.uint8x128) */
bool pr_type_named(tir_dtype d) {
  return tir_dtype_is_scalable(d) || d.lanes == 1 || d.lanes == 4 || d.lanes == 8 || d.lanes == 16 || d.lanes == 32 ||
         d.lanes == 64;
}

void pr_type_annot(printer *p, tir_dtype d) {
  char buf[32];
  pr_printf(&p->out, "T.%s", tir_dtype_str(d, buf));
}

void pr_var_decl_ctor(printer *p, const tir_expr *v) {
  char buf[32];
  tir_dtype d = v->dtype;
  if (tir_dtype_is_handle(d)) {
    pr_puts(&p->out, "T.handle(");
    if (v->u.var.ptr_elem.bits) {
      pr_dtype_str(&p->out, v->u.var.ptr_elem);
      if (v->u.var.ptr_scope && strcmp(v->u.var.ptr_scope, "global")) {
        pr_puts(&p->out, ", ");
        pr_string_lit(&p->out, v->u.var.ptr_scope);
      }
    }
    pr_puts(&p->out, ")");
    return;
  }
  pr_printf(&p->out, "T.%s(%s)", tir_dtype_str(d, buf), v->u.var.size_var ? "is_size_var=True" : "");
}

/* %.17g, with ".0" when it reads as an int (as TVM prints FloatImm) */
static void pr_float_value(pr_text *t, double v) {
  if (isnan(v)) { pr_puts(t, signbit(v) ? "\"-nan\"" : "\"nan\""); return; } /* TVM keeps the sign: T.float32("-nan") */
  if (isinf(v)) { pr_puts(t, v > 0 ? "\"inf\"" : "\"-inf\""); return; }
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", v);
  pr_puts(t, buf);
  if (!strpbrk(buf, ".e")) pr_puts(t, ".0");
}

/* ------------------------------------------------------------------ */
/* precedence                                                          */

enum {
  P_OR = 1, P_AND, P_NOT, P_CMP, P_BOR, P_XOR, P_BAND, P_SHIFT, P_ADD, P_MUL, P_UNARY, P_ATOM
};

static bool is_int32(tir_dtype d) { return tir_dtype_eq(d, TIR_INT32); }

/* the Python operator of a binary node, or NULL where it prints as a call */
static const char *bin_op(const tir_expr *e, int *prec) {
  switch (e->kind) {
  case TIR_ADD: *prec = P_ADD; return "+";
  case TIR_SUB: *prec = P_ADD; return "-";
  case TIR_MUL: *prec = P_MUL; return "*";
  case TIR_DIV: *prec = P_MUL; return tir_dtype_is_float(e->dtype) ? "/" : NULL;
  case TIR_FLOORDIV: *prec = P_MUL; return "//";
  case TIR_FLOORMOD: *prec = P_MUL; return "%";
  case TIR_EQ: *prec = P_CMP; return "==";
  case TIR_NE: *prec = P_CMP; return "!=";
  case TIR_LT: *prec = P_CMP; return "<";
  case TIR_LE: *prec = P_CMP; return "<=";
  case TIR_GT: *prec = P_CMP; return ">";
  case TIR_GE: *prec = P_CMP; return ">=";
  case TIR_AND: *prec = P_AND; return "and";
  case TIR_OR: *prec = P_OR; return "or";
  default: *prec = P_ATOM; return NULL;
  }
}

/* bitwise intrinsics print as Python operators, as TVM prints them */
static const char *bitwise_op(const tir_expr *e, int *prec) {
  static const struct { const char *name, *op; int prec; } ops[] = {
      {"bitwise_and", "&", P_BAND}, {"bitwise_or", "|", P_BOR}, {"bitwise_xor", "^", P_XOR},
      {"shift_left", "<<", P_SHIFT}, {"shift_right", ">>", P_SHIFT}};
  if (e->kind != TIR_CALL || e->u.call.nargs != 2) return NULL;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(e->u.call.op, ops[i].name)) {
      *prec = ops[i].prec;
      return ops[i].op;
    }
  return NULL;
}

/* a bitwise call printed with TVM's constructor (T.LShift(a, b)): of two
 * constants, which reading `1 << 3` would fold, or an int32 / int64 shifted
 * by 0, which reading `x << 0` would (to x) */
static bool bits_as_ctor(const tir_expr *e) {
  int pr;
  const char *bop = bitwise_op(e, &pr);
  if (!bop) return false;
  const tir_expr *a = e->u.call.args[0], *b = e->u.call.args[1];
  if (a->kind == TIR_INT_IMM && b->kind == TIR_INT_IMM) return true;
  return (!strcmp(bop, "<<") || !strcmp(bop, ">>")) && b->kind == TIR_INT_IMM && b->u.int_val == 0 &&
         tir_dtype_eq(a->dtype, b->dtype) && (tir_dtype_eq(b->dtype, TIR_INT32) || tir_dtype_eq(b->dtype, TIR_INT64));
}

static int prec_of(const tir_expr *e) {
  int pr;
  if (TIR_IS_BINARY(e->kind) && bin_op(e, &pr)) return pr;
  if (bitwise_op(e, &pr)) return bits_as_ctor(e) ? P_ATOM : pr;
  if (e->kind == TIR_NOT) return P_NOT;
  if (e->kind == TIR_INT_IMM && is_int32(e->dtype) && e->u.int_val < 0) return P_UNARY;
  return P_ATOM;
}

static void pr_sub(printer *p, const tir_expr *e, bool parens) {
  if (parens) pr_puts(&p->out, "(");
  pr_expr(p, e);
  if (parens) pr_puts(&p->out, ")");
}

/* the var's own name, under the X.data aliases of the buffers declared
 * over it; NULL where it has none */
static const char *plain_name(const printer *p, const void *key) {
  const pr_name *e = pr_entry(p, key);
  return e && e->plain >= 0 ? p->names[e->plain].text : NULL;
}

/* named: NULL, or per arg the buffer whose `X.data` was written there
 * (tir_expr.u.call.named), printed so while X is in scope with that data;
 * a var with no buffer there was written by its own name (the reader's
 * calls): printed so */
static void pr_args_named(printer *p, tir_expr *const *args, int n, const tir_buffer *const *named, uint64_t bare) {
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(&p->out, ", ");
    const char *via = named && named[i] && named[i]->data == args[i] ? pr_lookup(p, named[i]) : NULL;
    const char *own = named && !named[i] && args[i]->kind == TIR_VAR ? plain_name(p, args[i]) : NULL;
    if (via) pr_printf(&p->out, "%s%s", via, i < 64 && (bare >> i & 1) ? "" : pr_data_suffix(p, named[i]));
    else if (own) pr_puts(&p->out, own);
    else pr_expr(p, args[i]);
  }
}

static void pr_args(printer *p, tir_expr *const *args, int n) { pr_args_named(p, args, n, NULL, 0); }

/* ", 4)" or, scalable, ", T.vscale() * 4)" */
static void pr_lanes(printer *p, int lanes) {
  if (lanes & TIR_LANES_SCALABLE) pr_printf(&p->out, ", T.vscale() * %d)", lanes & ~TIR_LANES_SCALABLE);
  else pr_printf(&p->out, ", %d)", lanes);
}

static void pr_call2(printer *p, const char *fn, const tir_expr *a, const tir_expr *b) {
  pr_printf(&p->out, "T.%s(", fn);
  pr_expr(p, a);
  pr_puts(&p->out, ", ");
  pr_expr(p, b);
  pr_puts(&p->out, ")");
}

/* TVM's node constructor for a binary kind */
static const char *node_ctor(tir_expr_kind k) {
  switch (k) {
  case TIR_ADD: return "Add";
  case TIR_SUB: return "Sub";
  case TIR_MUL: return "Mul";
  case TIR_DIV: return "Div";
  case TIR_MOD: return "Mod";
  case TIR_FLOORDIV: return "FloorDiv";
  case TIR_FLOORMOD: return "FloorMod";
  case TIR_MIN: return "Min";
  case TIR_MAX: return "Max";
  case TIR_EQ: return "EQ";
  case TIR_NE: return "NE";
  case TIR_LT: return "LT";
  case TIR_LE: return "LE";
  case TIR_GT: return "GT";
  case TIR_GE: return "GE";
  case TIR_AND: return "And";
  default: return "Or";
  }
}

/* an int32 constant: printed as a Python int */
static bool is_py_int(const tir_expr *e) {
  return e->kind == TIR_INT_IMM && tir_dtype_eq(e->dtype, TIR_INT32);
}

static void pr_binary(printer *p, const tir_expr *e) {
  int pr;
  /* a node that reading `a + b` would fold away (x + 0, 2 * 3) is written
   * with its constructor, as TVM does, so it reads back unchanged */
  /* and a comparison of two int32 constants, which print as Python's ints
   * (3 < 4 is Python's True) */
  /* T.min(x, x) of one var TVM's op folds to x (a.same_as(b)): T.Min */
  bool same_var = (e->kind == TIR_MIN || e->kind == TIR_MAX) && e->u.bin.a == e->u.bin.b && e->u.bin.a->kind == TIR_VAR;
  /* nodes TVM's operators refuse to build: a float // or % (ints only), a
   * float / by a zero constant ("Divide by zero"); their constructors read */
  /* a bool's / (T.truncdiv refuses a bool; T.Div reads) */
  bool ctor_only = ((e->kind == TIR_FLOORDIV || e->kind == TIR_FLOORMOD) && !tir_dtype_is_int(e->dtype)) ||
                   (e->kind == TIR_DIV && tir_dtype_is_bool(e->dtype)) ||
                   (e->kind == TIR_DIV && e->u.bin.b->kind == TIR_FLOAT_IMM && e->u.bin.b->u.float_val == 0);
  if (same_var || ctor_only || ir_const_fold(e->kind, e->u.bin.a, e->u.bin.b).kind != IR_FOLD_NONE ||
      (p->in_lambda && (e->kind == TIR_AND || e->kind == TIR_OR)) ||
      /* TVM reads `a and b` of vectors as a & b: T.And(a, b) keeps the node */
      ((e->kind == TIR_AND || e->kind == TIR_OR) && e->dtype.lanes != 1) ||
      (TIR_IS_CMP(e->kind) && is_py_int(e->u.bin.a) && is_py_int(e->u.bin.b)) ||
      /* two strings: `"a" == "b"` is Python's compare, read as a bool */
      (e->u.bin.a->kind == TIR_STRING_IMM && e->u.bin.b->kind == TIR_STRING_IMM)) {
    pr_call2(p, node_ctor(e->kind), e->u.bin.a, e->u.bin.b);
    return;
  }
  const char *op = bin_op(e, &pr);
  if (!op) {
    const char *fn = e->kind == TIR_DIV ? "truncdiv" : e->kind == TIR_MOD ? "truncmod"
                   : e->kind == TIR_MIN ? "min" : "max";
    pr_call2(p, fn, e->u.bin.a, e->u.bin.b);
    return;
  }
  int pa = prec_of(e->u.bin.a), pb = prec_of(e->u.bin.b);
  bool cmp = pr == P_CMP;
  pr_sub(p, e->u.bin.a, cmp ? pa <= pr : pa < pr);
  pr_printf(&p->out, " %s ", op);
  pr_sub(p, e->u.bin.b, pb <= pr);
}

static void pr_int(printer *p, const tir_expr *e) {
  char buf[32];
  int64_t v = e->u.int_val;
  if (tir_dtype_is_bool(e->dtype)) pr_printf(&p->out, "T.bool(%s)", v ? "True" : "False");
  else if (is_int32(e->dtype)) pr_printf(&p->out, "%lld", (long long)v);
  else if (e->dtype.code == TIR_TC_UINT && e->dtype.bits == 64 && e->dtype.lanes == 1 && v == -1)
    pr_puts(&p->out, "T.max_value(\"uint64\")"); /* TVM reads its T.uint64(18446744073709551615) print no more than any past int64 */
  else if (e->dtype.code == TIR_TC_UINT && e->dtype.bits == 64 && e->dtype.lanes == 1 && v < 0)
    /* 2^63 and up: TVM reads no T.uint64 past int64 (nor prints one it can
     * read), but folds a sum of two to the constant */
    pr_printf(&p->out, "(T.uint64(%lld) + T.uint64(%llu))", (long long)INT64_MAX,
              (unsigned long long)((uint64_t)v - (uint64_t)INT64_MAX));
  else if (e->dtype.code == TIR_TC_UINT && e->dtype.bits == 64) /* held as int64 bits */
    pr_printf(&p->out, "T.%s(%llu)", tir_dtype_str(e->dtype, buf), (unsigned long long)v);
  else if (e->dtype.lanes == 1 && (e->dtype.code == TIR_TC_UINT1 || (e->dtype.bits != 8 && e->dtype.bits != 16 &&
                                                                      e->dtype.bits != 32 && e->dtype.bits != 64)))
    /* int4, uint3, uint1 ...: TVM 0.27 has no T.int4 (its own print of one,
     * T.int4(3), it cannot read back); T.IntImm reads as the constant */
    pr_printf(&p->out, "T.IntImm(\"%s\", %lld)", tir_dtype_str(e->dtype, buf), (long long)v);
  else pr_printf(&p->out, "T.%s(%lld)", tir_dtype_str(e->dtype, buf), (long long)v);
}

static void pr_float(printer *p, const tir_expr *e) {
  char buf[32];
  /* float64's extremes: TVM reads T.float64(1.7976931348623157e+308) no
   * more than its own print of it ("exceeds maximum of float32"), and
   * T.max_value / T.min_value as the same constants */
  if (tir_dtype_eq(e->dtype, TIR_FLOAT64) && (e->u.float_val == DBL_MAX || e->u.float_val == -DBL_MAX)) {
    pr_printf(&p->out, "T.%s_value(\"float64\")", e->u.float_val > 0 ? "max" : "min");
    return;
  }
  if (e->dtype.code == TIR_TC_F8_E8M0FNU && e->dtype.lanes == 1 && e->u.float_val == 0x1p128) {
    pr_puts(&p->out, "T.max_value(\"float8_e8m0fnu\")"); /* TVM's own, past the literals it reads */
    return;
  }
  pr_printf(&p->out, "T.%s(", tir_dtype_str(e->dtype, buf));
  pr_float_value(&p->out, e->u.float_val);
  pr_puts(&p->out, ")");
}

static bool takes_dtype_arg(const char *op) {
  return !strcmp(op, "call_extern") || !strcmp(op, "call_pure_extern") ||
         !strcmp(op, "call_llvm_intrin") || !strcmp(op, "call_llvm_pure_intrin") || !strcmp(op, "reinterpret") ||
         !strcmp(op, "vectorlow") || !strcmp(op, "vectorhigh") || !strcmp(op, "vectorcombine") ||
         !strcmp(op, "s_tir.cp_async_raw") || !strcmp(op, "get_active_lane_mask") || !strcmp(op, "masked_load");
}

/* the default extent of buf.access_ptr: shape[0] * strides[0] with strides,
 * else the product of the shape */
static bool default_extent(const tir_buffer *b, const tir_expr *ext) {
  if (b->nstrides) {
    if (!b->ndim || ext->kind != TIR_MUL) return false;
    const tir_expr *x = ext->u.bin.a, *y = ext->u.bin.b;
    return (pr_deep_equal(x, b->shape[0]) && pr_deep_equal(y, b->strides[0])) ||
           (pr_deep_equal(y, b->shape[0]) && pr_deep_equal(x, b->strides[0]));
  }
  int64_t prod = 1, v, want;
  for (int i = 0; i < b->ndim; i++) {
    if (!tir_is_const_int(b->shape[i], &v)) return false;
    prod *= v;
  }
  return tir_is_const_int(ext, &want) && want == prod;
}

/* T.tvm_access_ptr(T.type_annotation(dt), X.data, off, ext, mask) of a
 * buffer X in scope prints as X.access_ptr(...), the spelling TVM reads
 * back as the same call */
static bool pr_access_ptr(printer *p, const tir_expr *e) {
  tir_expr *const *a = e->u.call.args;
  if (strcmp(e->u.call.op, "tvm_access_ptr") || e->u.call.nargs != 5 || e->u.call.written_out) return false;
  if (a[0]->kind != TIR_CALL || strcmp(a[0]->u.call.op, "type_annotation") || a[1]->kind != TIR_VAR)
    return false;
  const tir_buffer *b = pr_data_buffer(p, a[1]);
  int64_t mask, lanes = a[0]->dtype.lanes, ev;
  tir_dtype et = a[0]->dtype;
  et.lanes = 1;
  if (!b || !tir_dtype_eq(et, b->dtype) || b->dtype.lanes != 1 || !tir_is_const_int(a[4], &mask) || mask < 1 || mask > 3)
    return false;
  static const char *const modes[] = {"", "r", "w", "rw"};
  if (lanes > 1) {
    /* content_lanes: TVM's base is elem_offset / lanes whatever the offset;
     * the extent (in vectors) is written out */
    const tir_expr *eo = b->elem_offset;
    bool base_ok = tir_is_const_int(eo, &ev) ? (tir_is_const_int(a[2], &mask) && mask == ev / lanes)
                                             : (a[2]->kind == TIR_DIV && pr_deep_equal(a[2]->u.bin.a, eo) &&
                                                tir_is_const_int(a[2]->u.bin.b, &ev) && ev == lanes);
    if (!base_ok || !tir_is_const_int(a[4], &mask)) return false;
    pr_buffer_name(p, b);
    pr_printf(&p->out, ".access_ptr(\"%s\", ", modes[mask]);
    if (e->u.call.ptr_elem.bits) {
      pr_puts(&p->out, "ptr_type=");
      pr_dtype_str(&p->out, e->u.call.ptr_elem);
      pr_puts(&p->out, ", ");
    }
    pr_printf(&p->out, "content_lanes=%lld, extent=", (long long)lanes);
    pr_expr(p, a[3]);
    pr_puts(&p->out, ")");
    return true;
  }
  const tir_expr *off = NULL; /* NULL: offset 0 */
  tir_expr off_c;
  if (pr_deep_equal(a[2], b->elem_offset)) off = NULL;
  else if (b->elem_offset->kind == TIR_INT_IMM && b->elem_offset->u.int_val == 0) off = a[2];
  else if (a[2]->kind == TIR_ADD && pr_deep_equal(a[2]->u.bin.a, b->elem_offset)) off = a[2]->u.bin.b;
  else if (tir_is_const_int(b->elem_offset, &ev) && tir_is_const_int(a[2], &mask) &&
           tir_dtype_eq(a[2]->dtype, b->elem_offset->dtype)) { /* elem_offset + offset, folded */
    off_c = (tir_expr){.kind = TIR_INT_IMM, .dtype = a[2]->dtype, .u.int_val = mask - ev};
    off = &off_c;
  } else return false;
  if (!tir_is_const_int(a[4], &mask)) return false;
  pr_buffer_name(p, b);
  pr_printf(&p->out, ".access_ptr(\"%s\"", modes[mask]);
  if (e->u.call.ptr_elem.bits) {
    pr_puts(&p->out, ", ptr_type=");
    pr_dtype_str(&p->out, e->u.call.ptr_elem);
  }
  if (off) {
    pr_puts(&p->out, ", offset=");
    pr_expr(p, off);
  }
  if (off || !default_extent(b, a[3])) {
    pr_puts(&p->out, ", extent=");
    pr_expr(p, a[3]);
  }
  pr_puts(&p->out, ")");
  return true;
}

/* T.comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0.0)]): its vars are
 * the lambda's, in scope for its results only */
static void pr_comm_reducer(printer *p, const tir_expr *e) {
  int n = e->u.call.nargs / 4, mark = p->nnames;
  tir_expr *const *a = e->u.call.args;
  pr_puts(&p->out, "T.comm_reducer(lambda ");
  for (int i = 0; i < 2 * n; i++) {
    if (i) pr_puts(&p->out, ", ");
    pr_puts(&p->out, pr_define(p, a[i], a[i]->u.var.name));
  }
  pr_puts(&p->out, ": ");
  if (n > 1) pr_puts(&p->out, "(");
  bool in_lambda = p->in_lambda;
  p->in_lambda = true;
  pr_args(p, a + 2 * n, n);
  p->in_lambda = in_lambda;
  if (n > 1) pr_puts(&p->out, ")");
  pr_pop_to(p, mark);
  pr_puts(&p->out, ", [");
  pr_args(p, a + 3 * n, n);
  pr_puts(&p->out, "])");
}

void pr_ptr_type(printer *p, tir_dtype elem, const char *scope) {
  pr_puts(&p->out, "T.handle(");
  pr_dtype_str(&p->out, elem);
  pr_puts(&p->out, ", ");
  pr_string_lit(&p->out, scope ? scope : "global");
  pr_puts(&p->out, ")");
}

/* a call's result type as a dtype argument: a typed pointer as TVM prints
 * its type, T.handle("float32", "global").ty */
static void pr_call_type(printer *p, const tir_expr *e) {
  if (e->u.call.ptr_elem.bits) {
    pr_ptr_type(p, e->u.call.ptr_elem, e->u.call.ptr_scope);
    pr_puts(&p->out, ".ty");
  } else {
    pr_dtype_str(&p->out, e->dtype);
  }
}

static void pr_call(printer *p, const tir_expr *e) {
  const char *op = e->u.call.op;
  if (e->u.call.global) { /* Module.f(args) */
    pr_puts(&p->out, op);
    pr_puts(&p->out, "(");
    pr_args_named(p, e->u.call.args, e->u.call.nargs, e->u.call.named, e->u.call.named_bare);
    pr_puts(&p->out, ")");
    return;
  }
  if (tir_is_comm_reducer(e)) {
    pr_comm_reducer(p, e);
    return;
  }
  if (!strcmp(op, "bitwise_not") && e->u.call.nargs == 1 && tir_dtype_is_bool(e->u.call.args[0]->dtype)) {
    pr_puts(&p->out, "~"); /* of a bool, as TVM prints it (T.bitwise_not takes integers) */
    pr_sub(p, e->u.call.args[0], prec_of(e->u.call.args[0]) < P_ATOM);
    return;
  }
  int64_t nv;
  if (!strcmp(op, "Shuffle") && e->u.call.nargs >= 1 && tir_is_const_int(e->u.call.args[0], &nv) && nv >= 1 &&
      nv < e->u.call.nargs) { /* T.Shuffle([vectors], [indices]) */
    pr_puts(&p->out, "T.Shuffle([");
    for (int i = 1; i < e->u.call.nargs; i++) {
      if (i == 1 + nv) pr_puts(&p->out, "], [");
      else if (i > 1) pr_puts(&p->out, ", ");
      pr_expr(p, e->u.call.args[i]);
    }
    pr_puts(&p->out, "])");
    return;
  }
  if (!strcmp(op, "call_ffi_kernel") && e->u.call.nargs >= 1 && tir_is_const_int(e->u.call.args[0], &nv) &&
      nv >= 0 && 1 + nv < e->u.call.nargs) { /* [n, tags..., symbol, args...] (reader_call.c) */
    pr_puts(&p->out, "T.call_ffi_kernel(");
    pr_args_named(p, e->u.call.args + 1 + nv, e->u.call.nargs - 1 - (int)nv, e->u.call.named ? e->u.call.named + 1 + nv : NULL, 1 + nv < 64 ? e->u.call.named_bare >> (1 + nv) : 0);
    pr_puts(&p->out, ", launch_params=[");
    pr_args(p, e->u.call.args + 1, (int)nv);
    pr_puts(&p->out, "], ret_ty=");
    pr_dtype_str(&p->out, e->dtype);
    pr_puts(&p->out, ")");
    return;
  }
  if (pr_access_ptr(p, e)) return;
  int pr;
  const char *bop = bitwise_op(e, &pr);
  if (bop && bits_as_ctor(e)) { /* TVM's constructor */
    static const struct { const char *op, *ctor; } C[] = {{"<<", "LShift"}, {">>", "RShift"}, {"&", "BitwiseAnd"},
                                                           {"|", "BitwiseOr"}, {"^", "BitwiseXor"}};
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++)
      if (!strcmp(bop, C[i].op)) {
        pr_call2(p, C[i].ctor, e->u.call.args[0], e->u.call.args[1]);
        return;
      }
  }
  if (bop) {
    const tir_expr *a = e->u.call.args[0], *b = e->u.call.args[1];
    pr_sub(p, a, prec_of(a) < pr);
    pr_printf(&p->out, " %s ", bop);
    pr_sub(p, b, prec_of(b) <= pr);
    return;
  }
  if (!strcmp(op, "type_annotation") && e->u.call.nargs == 0) {
    pr_puts(&p->out, "T.type_annotation(");
    pr_dtype_str(&p->out, e->dtype);
    pr_puts(&p->out, ")");
    return;
  }
  if (!strcmp(op, "tvm_access_ptr") && e->u.call.ptr_elem.bits) { /* its pointer type kept */
    pr_puts(&p->out, "T.call_intrin(");
    pr_call_type(p, e);
    pr_printf(&p->out, ", \"%s.%s\", ", p->dialect == TIR_DIALECT_TIRX ? "tirx" : "tir", op);
    pr_args(p, e->u.call.args, e->u.call.nargs);
    pr_puts(&p->out, ")");
    return;
  }
  if (!strcmp(op, "buffer_offset") && tir_dtype_eq(e->dtype, TIR_INT32) && e->u.call.nargs == 1 &&
      e->u.call.args[0]->kind == TIR_BUFFER_LOAD &&
      e->u.call.args[0]->u.load.nidx == e->u.call.args[0]->u.load.buf->ndim) {
    /* TVM's A.elem_offset_of([i, j]) (which TVM prints T.buffer_offset(A[i,
     * j]), a function its parser does not have) */
    const tir_expr *ld = e->u.call.args[0];
    pr_buffer_name(p, ld->u.load.buf);
    pr_puts(&p->out, ".elem_offset_of([");
    pr_args(p, ld->u.load.idx, ld->u.load.nidx);
    pr_puts(&p->out, "])");
    return;
  }
  if ((e->u.call.written_out || !strcmp(op, "buffer_offset")) && strcmp(op, "tvm_access_ptr")) {
    /* T.call_intrin("int32", "tirx.tvm_storage_sync", ...) as written:
     * TVM types it by its dtype, and its T.tvm_storage_sync(...) as void */
    pr_puts(&p->out, "T.call_intrin(");
    pr_call_type(p, e);
    /* an opaque call of a known op with arguments it does not take
     * (reader_call.c) is named "tirx.<op>" */
    const char *tvm_op = !strncmp(op, "tirx.", 5) ? op + 5 : tir_intrin_tvm_op(op);
    pr_printf(&p->out, ", \"%s.%s\"", p->dialect == TIR_DIALECT_TIRX ? "tirx" : "tir", tvm_op);
    if (e->u.call.nargs) pr_puts(&p->out, ", ");
    pr_args_named(p, e->u.call.args, e->u.call.nargs, e->u.call.named, e->u.call.named_bare);
    pr_puts(&p->out, ")");
    return;
  }
  if (!strcmp(op, "cuda.func_call") && e->u.call.nargs >= 2 &&
      e->u.call.args[e->u.call.nargs - 1]->kind == TIR_STRING_IMM) { /* TVM's keywords, as its printer writes them */
    int n = e->u.call.nargs;
    pr_puts(&p->out, "T.cuda.func_call(");
    pr_args(p, e->u.call.args, n - 1);
    pr_puts(&p->out, ", source_code=");
    pr_expr(p, e->u.call.args[n - 1]);
    if (!tir_dtype_eq(e->dtype, TIR_VOID)) {
      pr_puts(&p->out, ", return_type=");
      pr_dtype_str(&p->out, e->dtype);
    }
    pr_puts(&p->out, ")");
    return;
  }
  if (!strcmp(op, "tvm_struct_get") && e->u.call.nargs == 3) { /* the dtype last, as TVM writes it */
    pr_puts(&p->out, "T.tvm_struct_get(");
    pr_args(p, e->u.call.args, 3);
    pr_puts(&p->out, ", ");
    pr_call_type(p, e);
    pr_puts(&p->out, ")");
    return;
  }
  pr_printf(&p->out, "T.%s(", op);
  if (takes_dtype_arg(op) || ((!strcmp(op, "ptx_legacy.ldmatrix") || !strcmp(op, "cuda.mma_fill_legacy") ||
                               !strcmp(op, "cuda.mma_store_legacy") || !strcmp(op, "cuda.mma_fill") ||
                               !strcmp(op, "cuda.mma_store")) &&
                              !tir_dtype_eq(e->dtype, TIR_VOID))) {
    pr_call_type(p, e);
    if (e->u.call.nargs) pr_puts(&p->out, ", ");
  }
  pr_args_named(p, e->u.call.args, e->u.call.nargs, e->u.call.named, e->u.call.named_bare);
  pr_puts(&p->out, ")");
}

bool pr_scalar_access(const printer *p, const tir_buffer *b, tir_expr *const *idx, int nidx) {
  int64_t k;
  return p->dialect == TIR_DIALECT_TIRX && b->scalar && b->ndim == 1 && nidx == 1 && tir_is_const_int(idx[0], &k) &&
         k == 0;
}

static void pr_load(printer *p, const tir_expr *e) {
  pr_buffer_name(p, e->u.load.buf);
  if (pr_scalar_access(p, e->u.load.buf, e->u.load.idx, e->u.load.nidx)) return; /* a local scalar: `x` */
  pr_puts(&p->out, "[");
  if (e->u.load.nidx == 0) pr_puts(&p->out, "()");
  pr_args(p, e->u.load.idx, e->u.load.nidx);
  pr_puts(&p->out, "]");
}

void pr_expr(printer *p, const tir_expr *e) {
  char buf[32];
  if (!e) {
    pr_puts(&p->out, "None");
    return;
  }
  switch (e->kind) {
  case TIR_VAR: pr_var_name(p, e); break;
  case TIR_INT_IMM: pr_int(p, e); break;
  case TIR_FLOAT_IMM: pr_float(p, e); break;
  case TIR_STRING_IMM: pr_string_lit(&p->out, e->u.str); break;
  case TIR_NOT:
    pr_puts(&p->out, "not ");
    pr_sub(p, e->u.un.a, prec_of(e->u.un.a) < P_NOT);
    break;
  case TIR_CAST:
    pr_printf(&p->out, "T.Cast(\"%s\", ", tir_dtype_str(e->dtype, buf));
    pr_expr(p, e->u.un.a);
    pr_puts(&p->out, ")");
    break;
  case TIR_SELECT:
    pr_puts(&p->out, "T.Select(");
    pr_expr(p, e->u.select.cond);
    pr_puts(&p->out, ", ");
    pr_expr(p, e->u.select.t);
    pr_puts(&p->out, ", ");
    pr_expr(p, e->u.select.f);
    pr_puts(&p->out, ")");
    break;
  case TIR_CALL: pr_call(p, e); break;
  case TIR_BUFFER_LOAD: pr_load(p, e); break;
  case TIR_RAMP:
    pr_puts(&p->out, "T.Ramp(");
    pr_expr(p, e->u.ramp.base);
    pr_puts(&p->out, ", ");
    pr_expr(p, e->u.ramp.stride);
    pr_lanes(p, e->u.ramp.lanes);
    break;
  case TIR_BROADCAST:
    pr_puts(&p->out, "T.Broadcast(");
    pr_expr(p, e->u.bcast.value);
    pr_lanes(p, e->u.bcast.lanes);
    break;
  case TIR_LET:
    pr_puts(&p->out, "T.Let(");
    pr_expr(p, e->u.let.body);
    pr_puts(&p->out, ", where={");
    pr_expr(p, e->u.let.var);
    pr_puts(&p->out, ": ");
    pr_expr(p, e->u.let.value);
    pr_puts(&p->out, "})");
    break;
  default:
    if (TIR_IS_BINARY(e->kind)) pr_binary(p, e);
    else pr_puts(&p->out, "None");
    break;
  }
}

char *tir_print_expr(const tir_expr *e) {
  printer p;
  pr_init(&p, TIR_DIALECT_TIRX);
  pr_expr(&p, e);
  char *s = p.out.s;
  p.out.s = NULL;
  pr_free(&p);
  return s;
}
