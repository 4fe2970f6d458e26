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
      cg_error(g, a->span.line ? a->span : call->span, "T.%s: argument %d of the C library's '%s' is %s%s; got %s", op, i + 1, name,
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
  return true;
}

const char *cg_libc_arg_cast(const char *name, int i, const tir_expr *arg) {
  char w;
  const char *sig = lookup(name, &w);
  if (!sig || arg->kind == TIR_STRING_IMM) return NULL; /* a literal is a const char * already */
  int nparams = (int)strlen(sig) - 1;
  if (nparams > 0 && sig[nparams] == '.') nparams--;
  if (i < 0 || i >= nparams) return NULL;
  char c = sig[i + 1];
  if (is_pointer_code(c)) return code_name(c, w); /* A.data is a float *; C++ converts no void * */
  if (strchr("ILQZ", c) && tir_dtype_is_float(arg->dtype)) return code_name(c, w); /* abs(x) of a float: C's conversion, said */
  return NULL;
}
