/* c_libc.c - the signatures of the C library functions the generated code's
 * headers declare (<math.h>, <string.h>, <stdio.h>, <stdlib.h>), for
 * T.call_extern of one of them: a call with the wrong number of arguments,
 * a pointer where the function takes a number (or the other way round), or
 * a result used as what the function does not return, is refused by name
 * (the C compiler would refuse the output); a pointer argument is cast to
 * the parameter's type, as C++ (CUDA) needs and C's typed buffers need
 * (A.data is a float *, printf takes a const char *).
 *
 * A signature is a string: the result, then each parameter, then '.' for a
 * variadic function.  Codes: F the real floating type of the name's width
 * (double; float for NAMEf, long double for NAMEl), X long double, G any
 * real (a type-generic macro), I int, L long, Q long long, Z size_t, V void
 * (result), D a struct (div_t: no TIR dtype holds it), S const char *, C
 * char *, P const void *, W void *, N int *, R pointer to F, O FILE *. */
#include <stdlib.h>
#include <string.h>

#include "codegen_c/c_printer.h"

typedef struct {
  const char *name;
  const char *sig;
} libc_sig;

/* sorted by name (bsearch); the float and long double variants of a math
 * function (NAMEf, NAMEl) are found by their base */
static const libc_sig sigs[] = {
    {"INT16_C", "GG"}, {"INT32_C", "GG"}, {"INT64_C", "GG"}, {"INT8_C", "GG"}, {"INTMAX_C", "GG"},
    {"UINT16_C", "GG"}, {"UINT32_C", "GG"}, {"UINT64_C", "GG"}, {"UINT8_C", "GG"}, {"UINTMAX_C", "GG"},
    {"abort", "V"}, {"abs", "II"}, {"acos", "FF"}, {"acosh", "FF"}, {"asin", "FF"}, {"asinh", "FF"},
    {"atan", "FF"}, {"atan2", "FFF"}, {"atanh", "FF"}, {"calloc", "WZZ"}, {"cbrt", "FF"}, {"ceil", "FF"},
    {"copysign", "FFF"}, {"cos", "FF"}, {"cosh", "FF"}, {"div", "DII"}, {"erf", "FF"}, {"erfc", "FF"},
    {"exit", "VI"}, {"exp", "FF"}, {"exp2", "FF"}, {"expm1", "FF"}, {"fabs", "FF"}, {"fdim", "FFF"},
    {"fflush", "IO"}, {"floor", "FF"}, {"fma", "FFFF"}, {"fmax", "FFF"}, {"fmin", "FFF"}, {"fmod", "FFF"},
    {"fpclassify", "IG"}, {"fprintf", "IOS."}, {"free", "VW"}, {"frexp", "FFN"}, {"hypot", "FFF"},
    {"ilogb", "IF"}, {"isfinite", "IG"}, {"isgreater", "IGG"}, {"isgreaterequal", "IGG"}, {"isinf", "IG"},
    {"isless", "IGG"}, {"islessequal", "IGG"}, {"islessgreater", "IGG"}, {"isnan", "IG"}, {"isnormal", "IG"},
    {"isunordered", "IGG"}, {"labs", "LL"}, {"ldexp", "FFI"}, {"lgamma", "FF"}, {"llabs", "QQ"},
    {"llrint", "QF"}, {"llround", "QF"}, {"log", "FF"}, {"log10", "FF"}, {"log1p", "FF"}, {"log2", "FF"},
    {"logb", "FF"}, {"lrint", "LF"}, {"lround", "LF"}, {"malloc", "WZ"}, {"memcmp", "IPPZ"},
    {"memcpy", "WWPZ"}, {"memmove", "WWPZ"}, {"memset", "WWIZ"}, {"modf", "FFR"}, {"nan", "FS"},
    {"nearbyint", "FF"}, {"nextafter", "FFF"}, {"nexttoward", "FFX"}, {"pow", "FFF"}, {"printf", "IS."},
    {"putchar", "II"}, {"puts", "IS"}, {"realloc", "WWZ"}, {"remainder", "FFF"}, {"remquo", "FFFN"},
    {"rint", "FF"}, {"round", "FF"}, {"scalbln", "FFL"}, {"scalbn", "FFI"}, {"signbit", "IG"}, {"sin", "FF"},
    {"sinh", "FF"}, {"snprintf", "ICZS."}, {"sprintf", "ICS."}, {"sqrt", "FF"}, {"strcmp", "ISS"},
    {"strcpy", "CCS"}, {"strlen", "ZS"}, {"strncmp", "ISSZ"}, {"tan", "FF"}, {"tanh", "FF"}, {"tgamma", "FF"},
    {"trunc", "FF"},
};

static int cmp_sig(const void *k, const void *e) { return strcmp(k, ((const libc_sig *)e)->name); }

/* the signature of name, and the width of its F ('d', 'f' or 'l'), or NULL */
static const char *lookup(const char *name, char *width) {
  const libc_sig *s = bsearch(name, sigs, sizeof sigs / sizeof sigs[0], sizeof sigs[0], cmp_sig);
  *width = 'd';
  if (s) return s->sig;
  size_t n = strlen(name);
  if (n < 2 || n > 63 || (name[n - 1] != 'f' && name[n - 1] != 'l')) return NULL;
  char base[64];
  memcpy(base, name, n - 1);
  base[n - 1] = 0;
  s = bsearch(base, sigs, sizeof sigs / sizeof sigs[0], sizeof sigs[0], cmp_sig);
  if (!s || !strchr(s->sig, 'F')) return NULL; /* only the math functions have NAMEf / NAMEl */
  *width = name[n - 1];
  return s->sig;
}

static bool is_pointer_code(char c) { return strchr("SCPWNRO", c) != NULL; }

static const char *code_name(char c, char width) {
  switch (c) {
  case 'F': return width == 'f' ? "float" : width == 'l' ? "long double" : "double";
  case 'X': return "long double";
  case 'G': return "a real number";
  case 'I': return "int";
  case 'L': return "long";
  case 'Q': return "long long";
  case 'Z': return "size_t";
  case 'S': return "const char *";
  case 'C': return "char *";
  case 'P': return "const void *";
  case 'W': return "void *";
  case 'N': return "int *";
  case 'R': return width == 'f' ? "float *" : width == 'l' ? "long double *" : "double *";
  case 'O': return "FILE *";
  default: return "?";
  }
}

/* ---- printf formats ----
 * What a literal format of the printf family takes after it, one kind per
 * argument: 'i' an int (a TIR int of 32 bits or fewer, or a bool: C
 * promotes it), 'I' a 64-bit int (%ld, %lu, %zd, %jd, %td: int64_t is a
 * long), 'f' a double (a float32 or float64), 's' a string (a literal, or a
 * pointer cast to const char *), 'p' a pointer (cast to void *).  gcc's
 * -Wformat (in -Wall) refuses the C where they disagree. */
enum { FMT_MAX = 64 };

/* a width or precision at *c: digits, or '*' (an int argument, kinds[*n]);
 * false past FMT_MAX arguments */
static bool fmt_number(const char **c, char *kinds, int *n) {
  if (**c != '*') {
    while (**c >= '0' && **c <= '9') (*c)++;
    return true;
  }
  if (*n == FMT_MAX) return false;
  kinds[(*n)++] = 'i';
  (*c)++;
  return true;
}

/* the kinds of the arguments f takes (at most FMT_MAX), or -1 with *bad the
 * conversion tirc does not take (%n, %Lf, %lld, an unknown one) */
static int fmt_kinds(const char *f, char *kinds, const char **bad) {
  int n = 0;
  for (const char *c = f; *c; c++) {
    if (*c != '%') continue;
    const char *start = c++;
    if (*c == '%') continue;
    while (*c && strchr("-+ #0'I", *c)) c++;
    if (!fmt_number(&c, kinds, &n)) goto refuse;
    if (*c == '.') {
      c++;
      if (!fmt_number(&c, kinds, &n)) goto refuse;
    }
    char len = 0; /* 0, 'h' (h, hh), 'l' (l, j, z, t: 64 bits), 'q' (ll, q, L) */
    if (*c == 'h') len = 'h', c += c[1] == 'h' ? 2 : 1;
    else if (*c == 'l' && c[1] == 'l') len = 'q', c += 2;
    else if (*c == 'l' || *c == 'j' || *c == 'z' || *c == 't') len = 'l', c++;
    else if (*c == 'L' || *c == 'q') len = 'q', c++;
    char k = 0;
    if (*c && strchr("diouxXc", *c)) k = len == 'l' ? 'I' : len == 'q' || (*c == 'c' && len) ? 0 : 'i';
    else if (*c && strchr("fFeEgGaA", *c)) k = len == 0 || len == 'l' ? 'f' : 0;
    else if (*c == 's') k = len ? 0 : 's';
    else if (*c == 'p') k = len ? 0 : 'p';
    if (!k || n == FMT_MAX) {
      *bad = start;
      return -1;
    }
    kinds[n++] = k;
    if (!*c) break;
  }
  return n;
refuse:
  *bad = f;
  return -1;
}

/* the position of the format among a printf-family function's arguments
 * (from 0), or -1 */
static int fmt_index(const char *name) {
  if (!strcmp(name, "printf")) return 0;
  if (!strcmp(name, "fprintf") || !strcmp(name, "sprintf")) return 1;
  if (!strcmp(name, "snprintf")) return 2;
  return -1;
}

static bool fmt_takes(char k, const tir_expr *a) {
  bool str = a->kind == TIR_STRING_IMM, ptr = str || tir_dtype_is_handle(a->dtype);
  if (a->dtype.lanes != 1 && !str) return false;
  switch (k) {
  case 'i': return !ptr && (tir_dtype_is_bool(a->dtype) || (tir_dtype_is_int(a->dtype) && a->dtype.bits <= 32));
  case 'I': return !ptr && tir_dtype_is_int(a->dtype) && a->dtype.bits == 64;
  case 'f': return !ptr && a->dtype.code == TIR_TC_FLOAT && (a->dtype.bits == 32 || a->dtype.bits == 64);
  default: return ptr; /* 's', 'p' */
  }
}

/* the printf-family call's format checked against its arguments */
static bool check_format(cg *g, const tir_expr *call, const char *name, int fi) {
  const tir_expr *const *args = (const tir_expr *const *)call->u.call.args + 1;
  int nargs = call->u.call.nargs - 1;
  const tir_expr *f = args[fi];
  if (f->kind != TIR_STRING_IMM) {
    if (nargs > fi + 1) { /* gcc cannot check it, and neither can tirc */
      cg_error(g, call->span, "T.call_extern: the format of '%s' is not a string literal, so its %d other argument%s "
               "cannot be checked against it", name, nargs - fi - 1, nargs - fi - 1 == 1 ? "" : "s");
      return false;
    }
    return true;
  }
  char kinds[FMT_MAX];
  const char *bad = NULL;
  int n = fmt_kinds(f->u.str, kinds, &bad);
  if (n < 0) {
    int w = 1;
    while (bad[w] && !strchr("diouxXcfFeEgGaAspn%", bad[w])) w++;
    cg_error(g, call->span, "T.call_extern: the format of '%s': its conversion '%.*s' is not one tirc emits (an int, "
             "a 64-bit int as %%ld, a float or double, %%s or %%p)", name, bad[w] ? w + 1 : w, bad);
    return false;
  }
  if (n != nargs - fi - 1) {
    cg_error(g, call->span, "T.call_extern: the format of '%s' takes %d argument%s after it, not %d", name, n,
             n == 1 ? "" : "s", nargs - fi - 1);
    return false;
  }
  for (int i = 0; i < n; i++) {
    const tir_expr *a = args[fi + 1 + i];
    if (fmt_takes(kinds[i], a)) continue;
    static const char *const what[] = {"an int of 32 bits or fewer", "a 64-bit int (%ld, %lu)", "a float32 or float64",
                                       "a string or pointer", "a pointer"};
    const char *w = what[strchr("iIfsp", kinds[i]) - "iIfsp"];
    char t[32];
    cg_error(g, a->kind != TIR_VAR && a->span.line ? a->span : call->span, /* a var's span is its definition */
             "T.call_extern: argument %d of '%s' is %s, where its format takes %s", fi + 2 + i, name,
             a->kind == TIR_STRING_IMM ? "a string" : tir_dtype_str(a->dtype, t), w);
    return false;
  }
  return true;
}

bool cg_libc_known(const char *name) {
  char w;
  return lookup(name, &w) != NULL;
}

bool cg_libc_check(cg *g, const tir_expr *call, bool as_stmt) {
  const char *name = call->u.call.args[0]->u.str, *op = call->u.call.op;
  char w;
  const char *sig = lookup(name, &w);
  if (!sig) return true;
  int nparams = (int)strlen(sig) - 1;
  bool variadic = nparams > 0 && sig[nparams] == '.';
  if (variadic) nparams--;
  int nargs = call->u.call.nargs - 1;
  if (nargs < nparams || (!variadic && nargs > nparams)) {
    cg_error(g, call->span, "T.%s: the C library's '%s' takes %s%d argument%s, not %d", op, name,
             variadic ? "at least " : "", nparams, nparams == 1 ? "" : "s", nargs);
    return false;
  }
  for (int i = 0; i < nparams; i++) {
    const tir_expr *a = call->u.call.args[i + 1];
    char c = sig[i + 1];
    bool str = a->kind == TIR_STRING_IMM, ptr = str || tir_dtype_is_handle(a->dtype);
    bool num = !ptr && (tir_dtype_is_int(a->dtype) || tir_dtype_is_float(a->dtype) || tir_dtype_is_bool(a->dtype));
    const char *why = NULL;
    if (is_pointer_code(c) && !ptr) why = "a number";
    else if (!is_pointer_code(c) && !num) why = ptr ? (str ? "a string" : "a pointer") : "a value of no C number type";
    else if (str && c != 'S' && c != 'P') why = "a string literal, which it cannot take there";
    else if (num && a->dtype.lanes != 1) why = "a vector";
    if (why) {
      cg_error(g, a->kind != TIR_VAR && a->span.line ? a->span : call->span,
               "T.%s: argument %d of the C library's '%s' is %s%s; got %s", op, i + 1, name,
               c == 'G' ? "" : "a ", code_name(c, w), why);
      return false;
    }
  }
  char r = sig[0];
  bool handle = tir_dtype_is_handle(call->dtype);
  const char *bad = NULL;
  if (r == 'V' && !as_stmt) bad = "returns nothing";
  else if (r == 'D' && !as_stmt) bad = "returns a struct (div_t), which no TIR dtype holds";
  else if (is_pointer_code(r) && !handle && !as_stmt) bad = "returns a pointer";
  else if (r != 'V' && r != 'D' && !is_pointer_code(r) && handle && call->dtype.bits && !as_stmt) bad = "returns a number";
  if (bad) {
    char t[32];
    cg_error(g, call->span, "T.%s: the C library's '%s' %s, but the call's dtype is %s%s", op, name, bad,
             tir_dtype_str(call->dtype, t),
             r == 'V' || r == 'D' ? " and its value is used (call it as a statement, T.evaluate)" : "");
    return false;
  }
  int fi = fmt_index(name);
  return fi < 0 || check_format(g, call, name, fi);
}

const char *cg_libc_arg_cast(const tir_expr *call, int i) {
  const char *name = call->u.call.args[0]->u.str;
  const tir_expr *arg = call->u.call.args[i + 1];
  char w;
  const char *sig = lookup(name, &w);
  if (!sig || arg->kind == TIR_STRING_IMM) return NULL; /* a literal is a const char * already */
  int nparams = (int)strlen(sig) - 1;
  if (nparams > 0 && sig[nparams] == '.') nparams--;
  int fi = fmt_index(name);
  if (i >= nparams && fi >= 0 && call->u.call.args[fi + 1]->kind == TIR_STRING_IMM) {
    /* a pointer the format prints: as the conversion takes it */
    char kinds[FMT_MAX];
    const char *bad;
    int n = fmt_kinds(call->u.call.args[fi + 1]->u.str, kinds, &bad), k = i - fi - 1;
    if (!tir_dtype_is_handle(arg->dtype) || k < 0 || k >= n) return NULL;
    return kinds[k] == 's' ? "const char *" : kinds[k] == 'p' ? "void *" : NULL;
  }
  if (i < 0 || i >= nparams) return NULL;
  char c = sig[i + 1];
  if (is_pointer_code(c)) return code_name(c, w); /* A.data is a float *; C++ converts no void * */
  if (strchr("ILQZ", c) && tir_dtype_is_float(arg->dtype)) return code_name(c, w); /* abs(x) of a float: C's conversion, said */
  return NULL;
}
