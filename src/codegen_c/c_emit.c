/* c_emit.c - the C printer's plumbing: text, indentation, scoped unique
 * names, C spellings of dtypes, and the helper functions (floordiv, min...)
 * printed once at the top of a unit. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_c/c_printer.h"

/* ---- text ---- */

static void text_reserve(cg_text *t, size_t more) {
  if (t->len + more + 1 <= t->cap) return;
  size_t cap = t->cap ? t->cap : 256;
  while (cap < t->len + more + 1) cap *= 2;
  char *s = realloc(t->s, cap);
  if (!s) abort();
  t->s = s;
  t->cap = cap;
}

void cg_text_puts(cg_text *t, const char *s) {
  size_t n = strlen(s);
  text_reserve(t, n);
  memcpy(t->s + t->len, s, n + 1);
  t->len += n;
}

void cg_text_printf(cg_text *t, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n > 0) {
    text_reserve(t, (size_t)n);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap2);
    t->len += (size_t)n;
  }
  va_end(ap2);
}

void cg_text_free(cg_text *t) {
  free(t->s);
  *t = (cg_text){0};
}

/* ---- state ---- */

void cg_init(cg *g, const cg_target *t, tir_ctx *c, tir_diag *d) {
  memset(g, 0, sizeof *g);
  g->target = t;
  g->ctx = c;
  g->d = d;
}

void cg_free(cg *g) {
  if (g->an) tir_analyzer_free(g->an);
  g->an = NULL;
  if (g->bounds) tir_analyzer_free(g->bounds);
  g->bounds = NULL;
  free(g->names);
  g->names = NULL;
  tir_ptrmap_free(&g->name_head);
  tir_strmap_free(&g->name_count);
  tir_strmap_free(&g->next_suffix);
  free(g->spans);
  g->spans = NULL;
  g->nspans = g->spans_cap = 0;
  g->nnames = g->names_cap = 0;
  free(g->void_ptrs);
  g->void_ptrs = NULL;
  g->nvoid_ptrs = g->cap_void_ptrs = 0;
  free(g->jam_made);
  g->jam_made = NULL;
  g->njam_made = g->jam_made_cap = 0;
}

void cg_note_void_ptr(cg *g, const void *var) {
  if (g->nvoid_ptrs == g->cap_void_ptrs) {
    g->cap_void_ptrs = g->cap_void_ptrs ? 2 * g->cap_void_ptrs : 8;
    g->void_ptrs = realloc(g->void_ptrs, sizeof *g->void_ptrs * (size_t)g->cap_void_ptrs);
    if (!g->void_ptrs) abort();
  }
  g->void_ptrs[g->nvoid_ptrs++] = var;
}

bool cg_is_void_ptr(const cg *g, const void *var) {
  for (int i = 0; i < g->nvoid_ptrs; i++)
    if (g->void_ptrs[i] == var) return true;
  return false;
}

tir_analyzer *cg_bounds(cg *g) {
  if (!g->bounds) g->bounds = tir_analyzer_new(g->ctx, NULL);
  return g->bounds;
}

void cg_error(cg *g, tir_span sp, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  g->failed = true;
  if (!g->d) return;
  if (!sp.line) sp = g->where; /* a node a pass made: the statement or function around it */
  /* one error per place and cause (a buffer's dtype is asked for by its
   * parameter, its packed wrapper and its metadata) */
  for (int i = g->d->n - 1; i >= 0 && i >= g->d->n - 64; i--) { /* the recent ones: linear in the errors */
    const tir_diag_entry *e = &g->d->items[i];
    if (e->sev == TIR_SEV_ERROR && e->span.line == sp.line && e->span.col == sp.col && !strcmp(e->msg, msg)) return;
  }
  tir_diag_add(g->d, TIR_SEV_ERROR, sp, "%s", msg);
}

/* ---- names ---- */

/* a function symbol the emitted code cannot define as it is */
/* a function's symbol: no reserved name, nor a function of the host C
 * library (cuda_runtime.h declares them all: select, rand, time) */
bool cg_reserved_symbol(const char *n) { return cg_reserved_name(n) || cg_host_libc(n); }

static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* sym (its first len bytes) is one of the sorted globals */
static bool global_sym(const cg *g, const char *n, size_t len) {
  char buf[128];
  if (len >= sizeof buf) return false; /* longer than any name cg_define makes */
  memcpy(buf, n, len);
  buf[len] = 0;
  const char *key = buf;
  return g->nglobals && bsearch(&key, g->globals, (size_t)g->nglobals, sizeof *g->globals, cmp_name);
}

/* n is a global SYM itself, SYM_packed or SYM_kernelN */
static bool is_global(const cg *g, const char *n) {
  size_t len = strlen(n);
  if (global_sym(g, n, len)) return true;
  if (len > 7 && !strcmp(n + len - 7, "_packed") && global_sym(g, n, len - 7)) return true;
  size_t d = len;
  while (d > 0 && isdigit((unsigned char)n[d - 1])) d--;
  return d < len && d >= 7 && !strncmp(n + d - 7, "_kernel", 7) && global_sym(g, n, d - 7);
}

static bool name_taken(const cg *g, const char *n) {
  if (cg_reserved_name(n)) return true;
  if (is_global(g, n)) return true;
  return tir_strmap_get(&g->name_count, n, 0) > 0;
}

void cg_push_name(cg *g, const void *key, const char *name) {
  if (g->nnames == g->names_cap) {
    g->names_cap = g->names_cap ? 2 * g->names_cap : 64;
    g->names = realloc(g->names, sizeof *g->names * (size_t)g->names_cap);
    if (!g->names) abort();
  }
  int prev = key ? (int)tir_ptrmap_get(&g->name_head, key, 0) - 1 : -1;
  g->names[g->nnames++] = (cg_name){key, name, g->depth, prev};
  if (key) tir_ptrmap_put(&g->name_head, key, g->nnames);
  if (name) ++*tir_strmap_at(&g->name_count, name, 0);
}

/* a name out of scope frees its suffix: base_k (k without leading zeros)
 * lowers base's next_suffix to k */
static void release_suffix(cg *g, const char *name) {
  const char *us = strrchr(name, '_');
  if (!us || us == name || !us[1] || us[1] == '0') return;
  long k = 0;
  for (const char *p = us + 1; *p; p++) {
    if (!isdigit((unsigned char)*p) || k > 100000000) return;
    k = k * 10 + (*p - '0');
  }
  char base[128];
  size_t len = (size_t)(us - name);
  if (len >= sizeof base) return;
  memcpy(base, name, len);
  base[len] = 0;
  if (tir_strmap_get(&g->next_suffix, base, 0) > k) *tir_strmap_at(&g->next_suffix, base, 0) = k;
}

const char *cg_define(cg *g, const void *key, const char *hint) {
  char base[96];
  size_t k = 0;
  for (const char *p = hint && *hint ? hint : "v"; *p && k < sizeof base - 12; p++)
    base[k++] = (isalnum((unsigned char)*p) || *p == '_') ? *p : '_';
  base[k] = 0;
  /* names the generator reserves for itself get a prefix, or no suffix
   * would ever free them */
  if (isdigit((unsigned char)base[0]) || !strncmp(base, "tir_", 4) || !strncmp(base, "__", 2) ||
      !strncmp(base, "cuda", 4) || (base[0] == '_' && isupper((unsigned char)base[1]))) {
    memmove(base + 1, base, k + 1);
    base[0] = isdigit((unsigned char)base[1]) ? '_' : 'v';
  }
  char cand[128];
  snprintf(cand, sizeof cand, "%s", base);
  if (name_taken(g, cand)) {
    /* the smallest free suffix: the search starts past those known taken
     * (next_suffix), so that n names of one hint take linear time, not n^2 */
    long *next = tir_strmap_at(&g->next_suffix, base, 1);
    long i = *next;
    for (;; i++) {
      snprintf(cand, sizeof cand, "%s_%ld", base, i);
      if (!name_taken(g, cand)) break;
    }
    *next = i + 1;
  }
  const char *n = tir_strdup(g->ctx, cand);
  cg_push_name(g, key, n);
  return n;
}

const char *cg_lookup(cg *g, const void *key) {
  long i = key ? tir_ptrmap_get(&g->name_head, key, 0) : 0;
  if (i) return g->names[i - 1].name;
  for (int k = g->nnames - 1; !key && k >= 0; k--) /* a NULL key (none is pushed so, but as the list had it) */
    if (!g->names[k].key) return g->names[k].name;
  return NULL;
}

const char *cg_var(cg *g, const tir_expr *var) {
  const char *n = cg_lookup(g, var);
  if (n) return n;
  cg_error(g, var->span, "variable '%s' is used where it is not defined", var->u.var.name);
  return "tir_undefined";
}

const char *cg_buffer_ptr(cg *g, const tir_buffer *b) {
  const char *n = cg_lookup(g, b); /* a view at an offset of its data (decl_buffer) */
  if (n) return n;
  n = cg_lookup(g, b->data);
  if (n && cg_is_void_ptr(g, b->data)) { /* the CUDA host's untyped handle: no element to index */
    cg_error(g, b->span, "buffer '%s' is indexed through the handle '%s' (void *) here: not supported (the C and "
                         "CUDA kernels see it typed; index it inside the kernel)", b->name, n);
    return n;
  }
  if (n) return n;
  cg_error(g, b->span, "buffer '%s' is used where it is not allocated or declared", b->name);
  return "tir_undefined";
}

const char *cg_tmp(cg *g, const char *hint) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s", hint);
  g->tmp_counter++;
  return cg_define(g, (const void *)(intptr_t)-g->tmp_counter, buf);
}

void cg_enter(cg *g) { g->depth++; }

void cg_leave(cg *g) {
  while (g->nnames > 0 && g->names[g->nnames - 1].depth >= g->depth) {
    const cg_name *e = &g->names[--g->nnames];
    if (e->key) tir_ptrmap_put(&g->name_head, e->key, e->prev + 1);
    if (e->name && --*tir_strmap_at(&g->name_count, e->name, 0) == 0) release_suffix(g, e->name);
  }
  g->depth--;
}

void cg_open(cg *g) {
  cg_text_puts(g->out, " {\n");
  g->indent++;
  cg_enter(g);
}

void cg_close(cg *g) {
  cg_leave(g);
  g->indent--;
  cg_line_start(g);
  cg_text_puts(g->out, "}\n");
}

/* ---- lines ---- */

void cg_line_start(cg *g) {
  for (int i = 0; i < g->indent; i++) cg_text_puts(g->out, "  ");
}

void cg_linef(cg *g, const char *fmt, ...) {
  cg_line_start(g);
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n >= (int)sizeof buf) {
    char *big = malloc((size_t)n + 1);
    if (!big) abort();
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    cg_text_puts(g->out, big);
    free(big);
  } else {
    cg_text_puts(g->out, buf);
  }
  cg_text_puts(g->out, "\n");
}

/* ---- types ---- */

static const char *const type_suffix[CG_NTYPES] = {"i8",  "i16", "i32", "i64", "u8",  "u16",
                                                   "u32", "u64", "f32", "f64", "f16", "bf16"};
/* NULL: the target's own (f16_type, bf16_type) */
static const char *const type_c[CG_NTYPES] = {"int8_t",   "int16_t",  "int32_t", "int64_t", "uint8_t", "uint16_t",
                                             "uint32_t", "uint64_t", "float",   "double",  NULL,      NULL};
enum { T_F32 = 8, T_F64 = 9, T_F16 = 10, T_BF16 = 11 };

static const char *type_name(const cg_target *t, int i) {
  if (i == T_F16) return t->f16_type;
  if (i == T_BF16) return t->bf16_type;
  return type_c[i];
}

int cg_type_index(tir_dtype t) {
  if (t.lanes != 1) return -1;
  int b = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : t.bits == 64 ? 3 : -1;
  if (b < 0) return -1;
  if (t.code == TIR_TC_INT) return b;
  if (t.code == TIR_TC_UINT) return 4 + b;
  if (t.code == TIR_TC_FLOAT && t.bits == 32) return T_F32;
  if (t.code == TIR_TC_FLOAT && t.bits == 64) return T_F64;
  if (t.code == TIR_TC_FLOAT && t.bits == 16) return T_F16;
  if (t.code == TIR_TC_BFLOAT && t.bits == 16) return T_BF16;
  return -1;
}

bool cg_type(cg *g, tir_dtype t, char *buf, tir_span sp) {
  if (tir_dtype_is_bool(t) && t.lanes == 1) {
    snprintf(buf, 32, "%s", g->target->bool_type);
    return true;
  }
  if (t.code == TIR_TC_HANDLE) {
    snprintf(buf, 32, "%s", t.bits == 0 ? "void" : "void *");
    return true;
  }
  int i = cg_type_index(t);
  const char *name = i >= 0 ? type_name(g->target, i) : NULL;
  if (!name) {
    char s[32];
    if (t.lanes == 1 && (i == T_F16 || i == T_BF16))
      cg_error(g, sp, "dtype %s is not supported by the C code generator (C11 has no portable %s type); --emit=cuda supports it",
               tir_dtype_str(t, s), s);
    else
      cg_error(g, sp, "dtype %s has no C type in this code generator", tir_dtype_str(t, s));
    snprintf(buf, 32, "int");
    return false;
  }
  if (i == T_F16) g->used_f16 = true;
  if (i == T_BF16) g->used_bf16 = true;
  snprintf(buf, 32, "%s", name);
  return true;
}

/* ---- helpers ---- */

void cg_need_helper(cg *g, cg_helper h, tir_dtype t) {
  int i = cg_type_index(t);
  if (i >= 0) g->helpers[h][i] = true;
}

/* 16-bit floats: floordiv/floormod computed in float */
static void emit_half_helper(cg_text *out, const char *pre, const char *T, const char *S, cg_helper h) {
  if (h == CG_FLOORDIV)
    cg_text_printf(out, "%s %s tir_floordiv_%s(%s a, %s b) { return (%s)floorf((float)a / (float)b); }\n", pre, T, S, T,
                   T, T);
  else
    cg_text_printf(out,
                   "%s %s tir_floormod_%s(%s a, %s b) {\n  float x = (float)a, y = (float)b;\n"
                   "  return (%s)(x - floorf(x / y) * y);\n}\n",
                   pre, T, S, T, T, T);
}

/* T.exp of a float32 (c_intrin.c): e^x computed in double and rounded once
 * to float, which is e^x correctly rounded for every float x (checked
 * exhaustively: tests/exp/exp_f32_check.c, make check-exp); glibc's expf, which a call of expf
 * gets, is not for 170,648 of them (0.06 % of values drawn uniformly from
 * [-102, 88]), and no loop calling it vectorizes.
 * e^x = 2^k e^r, k = round(x / ln 2) by the 1.5 * 2^52 shifter, r = x - k
 * ln 2 (ln 2 split in two: k ln2_hi exact) in [-0.35, 0.35], e^r by its
 * Taylor polynomial to r^13 (truncation below 2^-57), 2^k built in the
 * exponent bits; |x| > 110 is 110 with x's sign first (e^110 overflows a
 * float, e^-110 is below half its least subnormal), by integer selects:
 * no branch, no table, so gcc vectorizes a loop of it.  NaN stays NaN. */
static const char EXP_F32[] =
    "static inline float tir_exp_f32(float x) {\n"
    "  union { float f; uint32_t u; } in = {.f = x};\n"
    "  uint32_t mag = in.u & 0x7fffffffu;\n"
    "  mag = mag > 0x42dc0000u && mag <= 0x7f800000u ? 0x42dc0000u : mag; /* |x| > 110: 110 */\n"
    "  in.u = (in.u & 0x80000000u) | mag;\n"
    "  double d = (double)in.f;\n"
    "  union { double f; uint64_t u; } k = {.f = d * 1.4426950408889634 + 6755399441055744.0};\n"
    "  double kd = k.f - 6755399441055744.0; /* round(x / ln 2) */\n"
    "  double r = (d - kd * 0.6931471805598903) - kd * 5.497923018708371e-14;\n"
    "  double p = 1.0 / 6227020800.0;\n"
    "  p = p * r + 1.0 / 479001600.0;\n"
    "  p = p * r + 1.0 / 39916800.0;\n"
    "  p = p * r + 1.0 / 3628800.0;\n"
    "  p = p * r + 1.0 / 362880.0;\n"
    "  p = p * r + 1.0 / 40320.0;\n"
    "  p = p * r + 1.0 / 5040.0;\n"
    "  p = p * r + 1.0 / 720.0;\n"
    "  p = p * r + 1.0 / 120.0;\n"
    "  p = p * r + 1.0 / 24.0;\n"
    "  p = p * r + 1.0 / 6.0;\n"
    "  p = p * r + 0.5;\n"
    "  p = p * r + 1.0;\n"
    "  p = p * r + 1.0;\n"
    "  union { uint64_t u; double f; } s = {.u = (k.u + 1023u) << 52}; /* 2^k */\n"
    "  return (float)(p * s.f);\n"
    "}\n";

static void emit_helper(const cg *g, cg_text *out, cg_helper h, int i) {
  const char *T = type_name(g->target, i), *S = type_suffix[i], *pre = g->target->helper_prefix;
  bool is_float = i >= T_F32, is_unsigned = i >= 4 && i < 8;
  if (!T) return;
  if ((i == T_F16 || i == T_BF16) && (h == CG_FLOORDIV || h == CG_FLOORMOD)) {
    emit_half_helper(out, pre, T, S, h);
    return;
  }
  switch (h) {
  case CG_FLOORDIV:
    if (is_float)
      cg_text_printf(out, "%s %s tir_floordiv_%s(%s a, %s b) { return floor%s(a / b); }\n", pre, T, S, T, T,
                     i == T_F32 ? "f" : "");
    else if (is_unsigned)
      cg_text_printf(out, "%s %s tir_floordiv_%s(%s a, %s b) { return (%s)(a / b); }\n", pre, T, S, T, T, T);
    else if (i >= 2) /* 32/64 bits: INT_MIN / -1 traps in C and wraps in TIR */
      cg_text_printf(out,
                     "%s %s tir_floordiv_%s(%s a, %s b) {\n  if (b == -1) return (%s)(0u - (%s)a);\n"
                     "  %s q = (%s)(a / b);\n"
                     "  return (%s)((a %% b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q);\n}\n",
                     pre, T, S, T, T, T, type_name(g->target, i + 4), T, T, T);
    else
      cg_text_printf(out,
                     "%s %s tir_floordiv_%s(%s a, %s b) {\n  %s q = (%s)(a / b);\n"
                     "  return (%s)((a %% b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q);\n}\n",
                     pre, T, S, T, T, T, T, T);
    break;
  case CG_FLOORMOD:
    if (is_float)
      cg_text_printf(out, "%s %s tir_floormod_%s(%s a, %s b) { return a - floor%s(a / b) * b; }\n", pre, T, S, T, T,
                     i == T_F32 ? "f" : "");
    else if (is_unsigned)
      cg_text_printf(out, "%s %s tir_floormod_%s(%s a, %s b) { return (%s)(a %% b); }\n", pre, T, S, T, T, T);
    else if (i >= 2)
      cg_text_printf(out,
                     "%s %s tir_floormod_%s(%s a, %s b) {\n  if (b == -1) return 0;\n  %s r = (%s)(a %% b);\n"
                     "  return (%s)((r != 0 && ((r < 0) != (b < 0))) ? r + b : r);\n}\n",
                     pre, T, S, T, T, T, T, T);
    else
      cg_text_printf(out,
                     "%s %s tir_floormod_%s(%s a, %s b) {\n  %s r = (%s)(a %% b);\n"
                     "  return (%s)((r != 0 && ((r < 0) != (b < 0))) ? r + b : r);\n}\n",
                     pre, T, S, T, T, T, T, T);
    break;
  case CG_CLZ: { /* i: an unsigned type (4..7: 8 to 64 bits) */
    int bits = 8 << (i - 4);
    cg_text_printf(out, "%s int32_t tir_clz_%s(%s x) { return x == 0 ? %d : (int32_t)%s((%s)x) - %d; }\n", pre, S, T, bits,
                   bits == 64 ? "__builtin_clzll" : "__builtin_clz", bits == 64 ? "unsigned long long" : "unsigned",
                   (bits == 64 ? 64 : 32) - bits);
    break;
  }
  case CG_NOT: cg_text_printf(out, "%s %s tir_not_%s(%s x) { return (%s)~x; }\n", pre, T, S, T, T); break;
  case CG_TRUNCDIV:
    cg_text_printf(out, "%s %s tir_truncdiv_%s(%s a, %s b) { return b == -1 ? (%s)(0u - (%s)a) : a / b; }\n", pre, T,
                   S, T, T, T, type_name(g->target, i + 4));
    break;
  case CG_TRUNCMOD:
    cg_text_printf(out, "%s %s tir_truncmod_%s(%s a, %s b) { return b == -1 ? 0 : a %% b; }\n", pre, T, S, T, T);
    break;
  case CG_MIN:
    cg_text_printf(out, "%s %s tir_min_%s(%s a, %s b) { return a < b ? a : b; }\n", pre, T, S, T, T);
    break;
  case CG_MAX:
    cg_text_printf(out, "%s %s tir_max_%s(%s a, %s b) { return a > b ? a : b; }\n", pre, T, S, T, T);
    break;
  case CG_EXP:
    if (i == T_F32) cg_text_puts(out, EXP_F32);
    break;
  default: break;
  }
}

void cg_emit_helpers(const cg *g, cg_text *out) {
  for (int h = 0; h < CG_HELPER_COUNT; h++)
    for (int i = 0; i < CG_NTYPES; i++)
      if (g->helpers[h][i]) emit_helper(g, out, (cg_helper)h, i);
}


const char *cg_type_suffix(int i) { return i >= 0 && i < CG_NTYPES ? type_suffix[i] : "x"; }
