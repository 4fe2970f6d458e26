/* reader_call.c - calls in expressions: T.int32(5), T.max, T.Cast,
 * T.if_then_else, intrinsics checked by the intrinsic table, and
 * buf.access_ptr(...) desugared as semantics.md says. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "intrin/intrin.h"
#include "tir/analysis.h"
#include "script/reader.h"
#include "tir/visit.h"

/* names that are T.* statements or frames: known, but not expressions */
static const char *const STMT_NAMES[] = {
    "reads", "writes", "where", "func_attr", "match_buffer", "init", "evaluate", "axis.spatial",
    "axis.reduce", "axis.scan", "axis.opaque", "axis.remap", "grid", "serial", "parallel",
    "vectorized", "unroll", "thread_binding", "local_scalar", "launch_thread", "env_thread", "attr", "device_entry", "break_loop", "continue_loop", "alloc_local", "alloc_shared", "Assert",
    "decl_buffer", "allocate", "prim_func", "Buffer", "handle", "axis", "alloc_buffer", "let", "bind", "buffer_store", "static_assert", "hint", NULL};
static const char *const TIR_ONLY[] = {"block", "block_attr", NULL};
static const char *const TIRX_ONLY[] = {"sblock", "sblock_attr", "sblock_alloc_buffer", NULL};
static const char *const EXPR_NAMES[] = {
    "max", "min", "abs", "if_then_else", "Select", "Cast", "cast", "floordiv", "floormod",
    "truncdiv", "truncmod", "Let", "Ramp", "Broadcast", "call_extern", "call_pure_extern", "var",
    "call_intrin", "comm_reducer", "type_annotation", "min_value", "max_value", "infinity", "target", "reinterpret", "ceildiv", "Add", "Sub", "Mul", "Div", "Mod",
    "FloorDiv", "FloorMod", "Min", "Max", "EQ", "NE", "LT", "LE", "GT", "GE", "And", "Or", "ramp", "broadcast", "Shuffle",
    "meta_var", "TileLayout", "S", NULL};

/* TVM's node constructors T.Add(a, b), ...: the node itself, not folded
 * (the printer writes them where `a + b` would fold when read back) */
static const struct { const char *name; tir_expr_kind kind; } NODE_CTORS[] = {
    {"Add", TIR_ADD}, {"Sub", TIR_SUB}, {"Mul", TIR_MUL}, {"Div", TIR_DIV}, {"Mod", TIR_MOD},
    {"FloorDiv", TIR_FLOORDIV}, {"FloorMod", TIR_FLOORMOD}, {"Min", TIR_MIN}, {"Max", TIR_MAX},
    {"EQ", TIR_EQ}, {"NE", TIR_NE}, {"LT", TIR_LT}, {"LE", TIR_LE}, {"GT", TIR_GT}, {"GE", TIR_GE},
    {"And", TIR_AND}, {"Or", TIR_OR}};

/* TVM 0.27 T.* names tirc does not read (frames, node constructors,
 * target-specific intrinsics): a clear error instead of "unknown" */
static const char *const TVM_UNSUPPORTED[] = {
    "Break",
    "Call", "CallEffectKind", "CommReducer", "ComposeLayout", "Continue",
    "DtypeConstructor", "Else", "ExecScope",
    "Iter", "IterVar", "Layout", "LetAnnotation",
    "LocalVectorAnnotation", "Optional", "R",
    "Reduce", "Return", "SMEMPool", "ScopeIdDef",
    "TMEMPool", "TensorMap", "Then",
    "Tuple", "Var", "alloc_cast_frag", "alloc_scalar",
    "assume", "break_loop",
    "buffer", "buffer_var", "call_cpacked",
    "call_kernel",
    "constexpr", "continue_loop", "decl_scalar", "func_ret",
    "inline",
    "macro",
    "ptr",
    "shared_scalar",
    "tvm_warp_shuffle", "tvm_warp_activemask", NULL};

/* TVM 0.27's TIRx tile programming: execution scopes and their ids, tile
 * primitives, tensor memory (lowered by its LowerTIRx, which tirc does not
 * have); a T.NAME or T.NAME.x of these is refused naming the model */
static const char *const TVM_TILE[] = {
    "cta_id", "thread_id", "warp_id", "lane_id", "scope_id", "cluster_id", "warpgroup_id", "cta_id_in_cluster",
    "cta_id_in_pair", "thread_id_in_wg", "warp_id_in_wg", "cta", "warp", "thread", "cluster", "warpgroup", "wg",
    "tile", "tmem", "cooperative_tensor_fill", "cooperative_tensor_load", "cooperative_tensor_multiply_accumulate",
    "cooperative_tensor_store", "alloc_tcgen05_ldst_frag", "tensormap_encode_tiled", "wg_reg_tile",
    "tvm_kernel_replace_point", "ExecScope", "ScopeIdDef", "SMEMPool", "TMEMPool", "TensorMap", "filter", "selector",
    NULL};

static bool in_list(const char *const *l, const char *s) {
  for (; *l; l++)
    if (!strcmp(*l, s)) return true;
  return false;
}

/* TVM 0.27's target namespaces (T.metal.simdgroup_load, T.nki.*): the
 * target named in the refusal */
static const char *target_namespace(const char *name) {
  static const struct { const char *prefix, *target; } NS[] = {
      {"metal.", "Metal"},   {"nki.", "Trainium (NKI)"}, {"cuda.", "CUDA"},      {"ptx.", "CUDA (PTX)"},
      {"ptx_legacy.", "CUDA (PTX)"}, {"rocm.", "ROCm"},  {"hexagon.", "Hexagon"}, {"trn.", "Trainium"},
      {"nvshmem.", "NVSHMEM"}, {"tcgen05.", "CUDA (tcgen05)"}};
  for (size_t i = 0; i < sizeof NS / sizeof NS[0]; i++)
    if (!strncmp(name, NS[i].prefix, strlen(NS[i].prefix))) return NS[i].target;
  return NULL;
}

bool rd_is_known_t_name(rd *r, const char *name) {
  tir_dtype t;
  return in_list(STMT_NAMES, name) || in_list(EXPR_NAMES, name) || tir_intrin_lookup(name) ||
         tir_dtype_parse(name, &t) || in_list(r->tirx ? TIRX_ONLY : TIR_ONLY, name);
}

/* the name's part before its first '.' */
static const char *rd_first_token(rd *r, const char *name) {
  size_t n = strcspn(name, ".");
  char *t = tir_alloc(r->c, n + 1);
  memcpy(t, name, n);
  t[n] = 0;
  return t;
}

/* "unknown name 'T.x'", with a hint when x belongs to the other dialect */
void rd_unknown_t(rd *r, const char *name, tir_span sp) {
  if (in_list(r->tirx ? TIR_ONLY : TIRX_ONLY, name))
    tir_error(r->d, sp, "unknown name 'T.%s' in the %s dialect (the import line says '%s as T')", name,
              r->tirx ? "tirx" : "tir", r->tirx ? "tirx" : "tir");
  else if (in_list(TVM_TILE, name) || (strchr(name, '.') && in_list(TVM_TILE, rd_first_token(r, name))))
    tir_error(r->d, sp, "T.%s belongs to TVM 0.27's TIRx tile programming (execution scopes, scope ids, tile "
              "primitives), which tirc does not support", name);
  else if (in_list(TVM_UNSUPPORTED, name))
    tir_error(r->d, sp, "T.%s (TVM 0.27) is not supported by tirc", name);
  else if (!strncmp(name, "ptx.", 4) && strncmp(name, "ptx.addr", 8))
    tir_error(r->d, sp, "T.%s is an instruction of TVM 0.27's T.ptx: a statement, called with its operands", name);
  else if (target_namespace(name))
    tir_error(r->d, sp, "T.%s is a %s intrinsic of TVM 0.27 that tirc does not support (tirc reads the C and CUDA "
              "intrinsics it lists in docs/intrinsics.md)", name, target_namespace(name));
  else {
    /* the nearest of every name T.* knows: statements, expressions, the
     * dialect's own, the intrinsics and the common dtypes */
    static const char *const DTYPES[] = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                         "uint64", "float16", "float32", "float64", "bfloat16", NULL};
    const char *const *lists[] = {STMT_NAMES, EXPR_NAMES, r->tirx ? TIRX_ONLY : TIR_ONLY, DTYPES};
    int n = 0, nc = 0;
    const tir_intrin *t = tir_intrin_table(&n);
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
      for (int i = 0; lists[l][i]; i++) nc++;
    const char **cands = tir_alloc(r->c, sizeof *cands * (size_t)(nc + n));
    nc = 0;
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
      for (int i = 0; lists[l][i]; i++) cands[nc++] = lists[l][i];
    for (int i = 0; i < n; i++) cands[nc++] = t[i].name;
    const char *near = tir_suggest(name, cands, nc);
    if (near) tir_error(r->d, sp, "unknown name 'T.%s'; did you mean 'T.%s'?", name, near);
    else tir_error(r->d, sp, "unknown name 'T.%s'", name);
  }
}

/* ---- arguments ---- */

/* Python's *seq and **dict in a call's arguments: their items, as the
 * positional and keyword arguments they stand for (TVM's parser evaluates
 * them in Python); RV_ERR after an error */
rval rd_splat_value(rd *r, TSNode c, bool dict) {
  if (!dict) { /* *range(n), *"ab": what a for runs over (rd_iter_items) */
    rval v = {.k = RV_TUPLE, .sp = rd_span(c)};
    return rd_iter_items(r, rd_child(c, 0), &v.items, &v.n) ? v : rv_err();
  }
  rval v = rd_eval(r, rd_child(c, 0));
  if (v.k == RV_ERR) return v;
  if (dict ? v.k != RV_DICT : v.k != RV_TUPLE) {
    tir_error(r->d, rd_span(c), dict ? "** expects a dict" : "* expects a tuple or list");
    return rv_err();
  }
  for (int i = 0; dict && i < v.n; i++)
    if (v.keys[i].k != RV_STR) {
      tir_error(r->d, rd_span(c), "** expects a dict of string keys");
      return rv_err();
    }
  return v;
}

/* the index of name in the comma-separated list csv, or -1 */
static int csv_index(const char *csv, const char *name) {
  size_t n = strlen(name);
  int i = 0;
  for (const char *p = csv; *p; i++) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && !strncmp(p, name, n)) return i;
    if (!e) break;
    p = e + 1;
  }
  return -1;
}

static bool check_signature(rd *r, const char *fn, const rd_tvm_signature *s, const rd_args *a) {
  bool forward = false; /* TVM's _dtype_forward: dtype= is the first positional argument */
  for (int k = 0; k < a->nkw; k++) forward |= s->dtype_kw == 2 && !strcmp(a->kw[k], "dtype");
  int given = a->npos + (forward ? 1 : 0);
  if (!s->varargs && given > s->npos) {
    int at = s->npos - (forward ? 1 : 0);
    tir_error(r->d, at >= 0 && at < a->npos ? a->pos[at].sp : a->sp,
              "T.%s takes at most %d positional argument%s (%d given)", fn, s->npos, s->npos == 1 ? "" : "s", given);
    return false;
  }
  if (a->span_none && csv_index(s->pos, "span") < 0 && csv_index(s->kwonly, "span") < 0 && !s->varkw) {
    tir_error(r->d, a->span_sp, "T.%s takes no keyword argument 'span'", fn);
    return false;
  }
  for (int k = 0; k < a->nkw; k++) {
    const char *kw = a->kw[k];
    if (s->dtype_kw && !strcmp(kw, "dtype")) continue; /* dropped, or taken first */
    int i = csv_index(s->pos, kw);
    if (i >= 0 && i < given) {
      tir_error(r->d, a->kwsp[k], "T.%s got multiple values for argument '%s'", fn, kw);
      return false;
    }
    if (i >= 0 || csv_index(s->kwonly, kw) >= 0 || s->varkw) continue;
    if ((!strcmp(kw, "axis_separators") || !strcmp(kw, "buffer_type")) &&
        csv_index("Buffer,alloc_buffer,decl_buffer,match_buffer,sblock_alloc_buffer,alloc_shared,alloc_local", fn) >= 0)
      continue; /* the old dialect's keywords: refused by the buffer reader, naming the dialect */
    tir_error(r->d, a->kwsp[k], "T.%s takes no keyword argument '%s'", fn, kw);
    return false;
  }
  return true;
}

bool rd_eval_call_args(rd *r, TSNode call, rd_args *a) {
  if (!rd_eval_args(r, rd_field(call, "arguments"), a)) return false;
  if (!r->tirx) return true;
  const char *fn = rd_t_name(r, rd_field(call, "function"));
  const rd_tvm_signature *s = fn ? rd_tvm_signature_of(fn) : NULL;
  if (s && !check_signature(r, fn, s, a)) return false;
  /* a span given by position (T.FloorDiv(a, b, None)): None is dropped
   * as span=None is */
  int at = s ? csv_index(s->pos, "span") : -1;
  if (at >= 0 && at == a->npos - 1 && a->pos[at].k == RV_NONE) a->npos--;
  return true;
}

void rd_add_kwarg(rd *r, rd_args *a, const char *name, rval v, tir_span sp) {
  const char **kw = tir_alloc(r->c, sizeof *kw * (size_t)(a->nkw + 1));
  rval *kwv = tir_alloc(r->c, sizeof *kwv * (size_t)(a->nkw + 1));
  tir_span *kwsp = tir_alloc(r->c, sizeof *kwsp * (size_t)(a->nkw + 1));
  for (int i = 0; i < a->nkw; i++) kw[i] = a->kw[i], kwv[i] = a->kwv[i], kwsp[i] = a->kwsp[i];
  kw[a->nkw] = name, kwv[a->nkw] = v, kwsp[a->nkw] = sp;
  a->kw = kw, a->kwv = kwv, a->kwsp = kwsp;
  a->nkw++;
}

bool rd_eval_args(rd *r, TSNode al, rd_args *a) {
  memset(a, 0, sizeof *a);
  a->sp = rd_span(al);
  if (rd_is(al, "generator_expression")) { /* f(x for x in t): its one argument */
    a->pos = rd_tmp(r, sizeof *a->pos);
    a->pos[0] = rd_eval(r, al);
    a->npos = 1;
    return a->pos[0].k != RV_ERR;
  }
  uint32_t cnt = rd_child_count(al), nkw = 0, npos = 0;
  /* the splats are evaluated first, to size the arrays (each argument is
   * still evaluated once, in order) */
  rval *spl = NULL;
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = rd_child(al, i);
    bool ls = rd_is(c, "list_splat"), ds = rd_is(c, "dictionary_splat");
    if (ls || ds) {
      if (!spl) spl = rd_tmp(r, sizeof *spl * cnt);
      spl[i] = rd_splat_value(r, c, ds);
      if (spl[i].k == RV_ERR) return false;
      if (ls) npos += (uint32_t)spl[i].n;
      else nkw += (uint32_t)spl[i].n;
    } else if (rd_is(c, "keyword_argument")) {
      nkw++;
    } else {
      npos++;
    }
  }
  /* sized to the two kinds: an rval is 128 bytes and most calls have no
   * keywords; scratch, freed when the statement is read */
  a->pos = rd_tmp(r, sizeof *a->pos * (npos + 1));
  a->kw = nkw ? rd_tmp(r, sizeof *a->kw * nkw) : NULL;
  a->kwv = nkw ? rd_tmp(r, sizeof *a->kwv * nkw) : NULL;
  a->kwsp = nkw ? rd_tmp(r, sizeof *a->kwsp * nkw) : NULL;
  bool ok = true, seen_kw = false; /* (a span=None keyword is not counted in nkw) */
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = rd_child(al, i);
    if (rd_is_extra(c)) continue;
    if (rd_is(c, "keyword_argument")) {
      seen_kw = true;
      a->kw[a->nkw] = rd_text(r, rd_field(c, "name"));
      a->kwsp[a->nkw] = rd_span(c);
      for (int k = 0; k < a->nkw && ok; k++)
        if (!strcmp(a->kw[k], a->kw[a->nkw])) { /* Python's own SyntaxError */
          tir_error(r->d, rd_span(c), "keyword argument repeated: %s", a->kw[a->nkw]);
          ok = false;
        }
      rval v = rd_eval(r, rd_field(c, "value"));
      ok = ok && v.k != RV_ERR;
      /* span=None: TVM's ops, constructors and builders take a source span
       * and ignore None (tirc keeps its own spans) */
      if (v.k == RV_NONE && !strcmp(a->kw[a->nkw], "span")) {
        a->span_none = true, a->span_sp = a->kwsp[a->nkw];
        continue;
      }
      a->kwv[a->nkw++] = v;
    } else if (rd_is(c, "list_splat")) {
      for (int k = 0; k < spl[i].n; k++) a->pos[a->npos++] = spl[i].items[k];
    } else if (rd_is(c, "dictionary_splat")) {
      for (int k = 0; k < spl[i].n; k++) {
        a->kw[a->nkw] = spl[i].keys[k].s;
        a->kwsp[a->nkw] = rd_span(c);
        a->kwv[a->nkw++] = spl[i].items[k];
      }
    } else if (rd_is(c, "generator_expression")) {
      tir_error(r->d, rd_span(c), "unsupported argument form (a generator expression)");
      ok = false;
    } else {
      if (a->nkw || seen_kw) { /* Python's SyntaxError */
        tir_error(r->d, rd_span(c), "positional argument follows keyword argument");
        ok = false;
      }
      rval v = rd_eval(r, c);
      ok = ok && v.k != RV_ERR;
      a->pos[a->npos++] = v;
    }
  }
  return ok;
}

bool rd_no_kwargs(rd *r, const rd_args *a, const char *name) {
  if (!a->nkw) return true;
  tir_error(r->d, a->kwsp[0], "T.%s takes no keyword argument '%s'", name, a->kw[0]);
  return false;
}

rval *rd_kwarg(rd_args *a, const char *name) {
  for (int i = 0; i < a->nkw; i++)
    if (!strcmp(a->kw[i], name)) return &a->kwv[i];
  return NULL;
}

rval *rd_arg(rd_args *a, int i, const char *name) {
  if (i >= 0 && i < a->npos) return &a->pos[i];
  return name ? rd_kwarg(a, name) : NULL;
}

static bool want_args(rd *r, const char *name, rd_args *a, int lo, int hi) {
  if (a->npos >= lo && a->npos <= hi) return true;
  if (lo == hi)
    tir_error(r->d, a->sp, "T.%s expects %d argument%s, got %d", name, lo, lo == 1 ? "" : "s", a->npos);
  else
    tir_error(r->d, a->sp, "T.%s expects %d to %d arguments, got %d", name, lo, hi, a->npos);
  return false;
}

/* ---- helpers ---- */

/* Python's float() of a string: a decimal number, or inf / infinity / nan
 * with an optional sign, any case, surrounded by optional spaces (no hex) */
static bool py_float(const char *s, double *out) {
  while (*s == ' ' || *s == '\t') s++;
  if (!*s || strpbrk(s, "xX(")) return false;
  char *end;
  double d = strtod(s, &end);
  if (end == s) return false;
  while (*end == ' ' || *end == '\t') end++;
  if (*end) return false;
  *out = d; /* past double's range strtod gives +-HUGE_VAL (inf), as Python's float() */
  return true;
}

static rval lit_or_cast(rd *r, tir_dtype t, rd_args *a, const char *name) {
  if (a->npos == 0 && a->nkw == 0) /* a fresh var, where a buffer field takes one (rd_as_expr refuses it) */
    return (rval){.k = RV_FRESH, .sp = a->sp, .dt = t, .s = name};
  if (a->npos == 0) {
    tir_error(r->d, a->sp, "T.%s() declares a variable: write 'x = T.%s()'", name, name);
    return rv_err();
  }
  if (!want_args(r, name, a, 1, 1)) return rv_err();
  rval v = a->pos[0];
  if (v.k == RV_STR && tir_dtype_is_float(t) && py_float(v.s, &v.f)) {
    v.k = RV_FLOAT; /* T.float32("inf"), as TVM prints inf and nan (Python's float() of the string) */
  } else if (v.k == RV_STR) {
    tir_error(r->d, v.sp, "T.%s expects a number or an expression, got a string%s", name,
              tir_dtype_is_float(t) ? " that is not a float (\"inf\", \"-inf\", \"nan\" or a number)" : "");
    return rv_err();
  }
  /* a float made an integer is truncated, and must then fit (TVM's
   * make_const: "cannot make uint from negative value", an int literal
   * past the range); a bool from an integer constant or a truncated float
   * is 0 or 1 (T.bool(1.5) is True, T.bool(2.5) refused, as in TVM) */
  if (v.k == RV_FLOAT && (tir_dtype_is_int(t) || tir_dtype_is_bool(t)) && t.lanes == 1) {
    double tr = trunc(v.f);
    bool fits = isfinite(tr);
    if (fits && tir_dtype_is_bool(t)) fits = tr == 0 || tr == 1;
    else if (fits && t.code == TIR_TC_UINT) fits = tr >= 0 && (t.bits >= 64 ? tr < 18446744073709551616.0 : tr < ldexp(1, t.bits));
    else if (fits) fits = t.bits >= 64 ? tr >= -9223372036854775808.0 && tr < 9223372036854775808.0
                                      : tr >= -ldexp(1, t.bits - 1) && tr < ldexp(1, t.bits - 1);
    if (!fits) {
      char s1[32];
      tir_error(r->d, v.sp, "float literal %g out of range for %s", v.f, tir_dtype_str(t, s1));
      return rv_err();
    }
    if (tir_dtype_is_bool(t)) return rv_expr(tir_bool(r->c, tr != 0), v.sp);
  }
  int64_t iv;
  if (tir_dtype_is_bool(t) && t.lanes == 1 && v.k == RV_EXPR && v.e && !tir_dtype_is_bool(v.e->dtype) &&
      tir_is_const_int(v.e, &iv) && iv != 0 && iv != 1) {
    tir_error(r->d, v.sp, "T.bool of %lld: a bool is 0 or 1 (compare with 0)", (long long)iv);
    return rv_err();
  }
  tir_expr *e = rd_convert(r, v, t);
  return e ? rv_expr(e, a->sp) : rv_err();
}

static rval binop_call(rd *r, const char *name, rd_args *a) {
  if (a->nkw) {
    tir_error(r->d, a->kwsp[0], "T.%s takes no keyword argument '%s'", name, a->kw[0]);
    return rv_err();
  }
  if (!want_args(r, name, a, 2, 2)) return rv_err();
  rval x = a->pos[0], y = a->pos[1];
  bool pyx = x.k == RV_INT || x.k == RV_FLOAT || x.k == RV_BOOL;
  bool pyy = y.k == RV_INT || y.k == RV_FLOAT || y.k == RV_BOOL;
  if (pyx && pyy) { /* TIR constants first (T.max(0.5, 1) is float32 1.0), as TVM's ops convert them */
    tir_expr *ex = rd_as_expr(r, x);
    if (!ex) return rv_err();
    x = rv_expr(ex, x.sp);
    if (!strcmp(name, "max") || !strcmp(name, "min")) {
      tir_expr *ey = rd_as_expr(r, y);
      if (!ey) return rv_err();
      y = rv_expr(ey, y.sp);
    }
  }
  rval v = rd_binop(r, name, x, y, a->sp);
  if (pyx && pyy && v.k != RV_ERR) v = rv_expr(rd_as_expr(r, v), a->sp);
  return v;
}

/* the args from index `from` on as exprs; Python numbers adopt `like`'s dtype
 * when like is given */
static tir_expr **exprs_of(rd *r, rd_args *a, int from, const tir_expr *like) {
  int n = a->npos - from;
  tir_expr **es = tir_alloc(r->c, sizeof *es * (size_t)(n > 0 ? n : 1));
  for (int i = 0; i < n; i++) {
    rval v = a->pos[from + i];
    if (like && (v.k == RV_INT || v.k == RV_FLOAT) && !tir_dtype_is_handle(like->dtype))
      es[i] = rd_convert(r, v, like->dtype);
    else
      es[i] = rd_as_expr(r, v);
    if (!es[i]) return NULL;
  }
  return es;
}

static const tir_expr *first_expr(rd_args *a, int from) {
  for (int i = from; i < a->npos; i++)
    if (a->pos[i].k == RV_EXPR) return a->pos[i].e;
  return NULL;
}

static rval checked_call(rd *r, const char *op, tir_dtype t, tir_expr **args, int n, tir_span sp) {
  if (!tir_intrin_check(r->c, op, args, n, sp, r->d, &t)) return rv_err();
  tir_expr *e = tir_call(r->c, t, op, args, n);
  e->span = sp;
  return rv_expr(e, sp);
}

/* T.fabs / T.abs of a float constant: TVM folds it (float16, bfloat16,
 * float32, float64; it refuses the small floats) */
static rval fold_fabs(rd *r, rval v) {
  if (v.k != RV_EXPR || !v.e || v.e->kind != TIR_CALL || v.e->u.call.nargs != 1) return v;
  const tir_expr *x = v.e->u.call.args[0];
  if (x->kind != TIR_FLOAT_IMM || x->dtype.lanes != 1 || tir_dtype_is_small_float(x->dtype)) return v;
  return rv_expr(tir_float(r->c, x->dtype, fabs(x->u.float_val)), v.sp);
}

/* a buffer passed to a packed call is its DLTensor, as TVM's T.call_packed
 * packs it: T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(shape..),
 * T.tvm_stack_make_shape(strides..) or 0, ndim, a zero of A's dtype,
 * A's elem_offset) */
static bool packs_buffers(const char *name) {
  static const char *const P[] = {"call_packed", "call_cpacked", "call_packed_lowered", "call_cpacked_lowered",
                                  "tvm_call_packed", "tvm_call_cpacked", "tvm_call_packed_lowered",
                                  "tvm_call_cpacked_lowered"};
  for (size_t i = 0; i < sizeof P / sizeof *P; i++)
    if (!strcmp(name, P[i])) return true;
  return false;
}

static tir_expr *pack_buffer(rd *r, const tir_buffer *b, tir_span sp) {
  if (b->dtype.lanes != 1) {
    tir_error(r->d, sp, "buffer '%s' of a vector dtype cannot be packed into a packed call's DLTensor", b->name);
    return NULL;
  }
  tir_expr *zero = tir_dtype_is_float(b->dtype) ? tir_float(r->c, b->dtype, 0.0) : tir_int(r->c, b->dtype, 0);
  tir_expr *shape = tir_call(r->c, TIR_HANDLE, "tvm_stack_make_shape", b->shape, b->ndim);
  tir_expr *strides = b->nstrides ? tir_call(r->c, TIR_HANDLE, "tvm_stack_make_shape", b->strides, b->nstrides)
                                  : tir_i32(r->c, 0);
  tir_expr *args[6] = {b->data, shape, strides, tir_i32(r->c, b->ndim), zero, b->elem_offset};
  tir_expr *e = tir_call(r->c, TIR_HANDLE, "tvm_stack_make_array", args, 6);
  shape->span = strides->span = e->span = sp;
  return e;
}

static rval abs_call(rd *r, rd_args *a);

/* TVM's calls that may take their dtype first (as call_intrin's dtype) */
static bool dtype_first_optional(const char *name, int *nargs) {
  static const struct { const char *name; int n; } OPS[] = {
      {"ptx_legacy.ldmatrix", 7}, {"cuda.mma_fill_legacy", 3}, {"cuda.mma_store_legacy", 6},
      {"cuda.mma_fill", 3}, {"cuda.mma_store", 6}};
  for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
    if (!strcmp(name, OPS[i].name)) return *nargs = OPS[i].n, true;
  return false;
}

/* T.cuda.func_call(name, *args, source_code=, return_type="void",
 * lazy_args=()): TVM 0.27's call_intrin(return_type, "tirx.cuda.func_call",
 * name, *args, source_code); lazy_args, which TVM keeps as the call's
 * attrs (tirc's calls hold none), is refused unless empty */
static rval cuda_func_call(rd *r, rd_args *a) {
  rval *src = NULL;
  tir_dtype t = TIR_VOID;
  for (int i = 0; i < a->nkw; i++) {
    if (!strcmp(a->kw[i], "source_code")) src = &a->kwv[i];
    else if (!strcmp(a->kw[i], "return_type")) {
      if (!rd_parse_dtype(r, a->kwv[i], &t)) return rv_err();
    } else if (!strcmp(a->kw[i], "lazy_args")) {
      if (!(a->kwv[i].k == RV_TUPLE && a->kwv[i].n == 0)) {
        tir_error(r->d, a->kwsp[i], "T.cuda.func_call's lazy_args (TVM keeps them as the call's attributes, which "
                                    "tirc's calls do not hold) is not supported by tirc");
        return rv_err();
      }
    } else {
      tir_error(r->d, a->kwsp[i], "T.cuda.func_call takes no keyword argument '%s'", a->kw[i]);
      return rv_err();
    }
  }
  if (!src || src->k != RV_STR) {
    tir_error(r->d, src ? src->sp : a->sp, "T.cuda.func_call expects its source_code= as a string");
    return rv_err();
  }
  if (a->npos < 1) {
    tir_error(r->d, a->sp, "T.cuda.func_call expects the function's name first");
    return rv_err();
  }
  tir_expr **args = tir_alloc(r->c, sizeof *args * (size_t)(a->npos + 1));
  for (int i = 0; i < a->npos; i++)
    if (!(args[i] = rd_as_expr(r, a->pos[i]))) return rv_err();
  if (!(args[a->npos] = rd_as_expr(r, *src))) return rv_err();
  return checked_call(r, "cuda.func_call", t, args, a->npos + 1, a->sp);
}

/* T.ptr_byte_offset(data, byte_offset, dtype): data + byte_offset as a
 * pointer to dtype in data's storage scope ("global" where data is no typed
 * pointer), TVM 0.27's call_intrin(PointerType(dtype, scope),
 * "tirx.ptr_byte_offset", data, byte_offset, T.type_annotation(dtype)) */
static rval ptr_byte_offset(rd *r, rd_args *a) {
  for (int i = 0; i < a->nkw; i++)
    if (!strcmp(a->kw[i], "dtype")) { /* TVM's _op_wrapper drops it, and then misses the argument */
      tir_error(r->d, a->kwsp[i], "T.ptr_byte_offset takes its dtype by position (TVM's wrapper drops a dtype= "
                                  "keyword): T.ptr_byte_offset(data, byte_offset, \"float32\")");
      return rv_err();
    }
  rd_kw_positional(r, "ptr_byte_offset", a);
  if (a->nkw) {
    tir_error(r->d, a->kwsp[0], "T.ptr_byte_offset takes no keyword argument '%s'", a->kw[0]);
    return rv_err();
  }
  if (a->npos != 3) {
    tir_error(r->d, a->sp, "T.ptr_byte_offset expects (data, byte_offset, dtype), got %d arguments", a->npos);
    return rv_err();
  }
  tir_expr *args[3];
  for (int i = 0; i < 2; i++)
    if (!(args[i] = rd_as_expr(r, a->pos[i]))) return rv_err();
  tir_dtype t;
  if (a->pos[2].k == RV_EXPR && a->pos[2].e && a->pos[2].e->kind == TIR_CALL &&
      !strcmp(a->pos[2].e->u.call.op, "type_annotation"))
    t = a->pos[2].e->dtype;
  else if (!rd_parse_dtype(r, a->pos[2], &t))
    return rv_err();
  if (tir_dtype_eq(t, TIR_VOID)) {
    tir_error(r->d, a->pos[2].sp, "T.ptr_byte_offset: the pointer's element dtype cannot be void");
    return rv_err();
  }
  args[2] = tir_call(r->c, t, "type_annotation", NULL, 0);
  args[2]->span = a->pos[2].sp;
  rval v = checked_call(r, "ptr_byte_offset", TIR_HANDLE, args, 3, a->sp);
  if (v.k != RV_EXPR) return v;
  v.e->u.call.ptr_elem = t;
  const tir_expr *d = args[0];
  if (d->kind == TIR_VAR && d->u.var.ptr_scope && strcmp(d->u.var.ptr_scope, "global"))
    v.e->u.call.ptr_scope = d->u.var.ptr_scope;
  return v;
}

static rval table_call(rd *r, const char *name, rd_args *a) {
  const tir_intrin *in = tir_intrin_lookup(name);
  tir_dtype elem = TIR_VOID;
  if (rd_is_bit_op_name(name)) rd_wrap_bit_literals(a->pos, a->npos);
  int nargs;
  bool dfo = dtype_first_optional(name, &nargs);
  if (a->nkw) {
    tir_error(r->d, a->kwsp[0], "T.%s takes no keyword arguments", name);
    return rv_err();
  }
  if (dfo && !elem.bits && a->npos == nargs + 1 && a->pos[0].k == RV_STR) {
    /* TVM's spelling with the dtype first: the call's dtype (for ldmatrix
     * the buffer's element dtype) */
    if (!rd_parse_dtype(r, a->pos[0], &elem)) return rv_err();
    a->pos++, a->npos--;
  }
  if (packs_buffers(name))
    for (int i = 0; i < a->npos; i++)
      if (a->pos[i].k == RV_BUFFER) {
        tir_expr *e = pack_buffer(r, a->pos[i].buf, a->pos[i].sp);
        if (!e) return rv_err();
        a->pos[i] = rv_expr(e, a->pos[i].sp);
      }
  /* T.likely of a Python int or bool: TVM's IntImm of it (int32, bool), no call */
  if (a->npos == 1 && !a->nkw && (a->pos[0].k == RV_INT || a->pos[0].k == RV_BOOL) && !strcmp(name, "likely"))
    return rv_expr(rd_as_expr(r, a->pos[0]), a->pos[0].sp);
  /* rounding and the float classes of an integer, as TVM's ops fold them:
   * T.floor(i) is i, T.isnan(i) False, T.isfinite(i) True, T.fabs(i) T.abs(i) */
  static const char *const ROUNDS[] = {"floor", "ceil", "round", "trunc", "nearbyint", "isnan", "isinf", "isfinite",
                                       "fabs", NULL};
  /* T.round(10): TVM's int32 10; T.trunc(1.5): its float32 1.5, folded below as TVM's op folds it */
  if (a->npos == 1 && (a->pos[0].k == RV_INT || a->pos[0].k == RV_BOOL || a->pos[0].k == RV_FLOAT) &&
      in_list(ROUNDS, name))
    a->pos[0] = rv_expr(rd_as_expr(r, a->pos[0]), a->pos[0].sp);
  /* the float classes by dtype as TVM 0.27's ops take them: a bool, a
   * bfloat16, a small float (float8, float6, float4) or a handle is refused
   * (TVM: "not supported for finiteness ops"), as is T.isinf / T.isfinite of
   * a float vector (TVM's compare against a scalar infinity fails); of an int
   * vector they fold to vectors of bools */
  /* T.fabs of a small float (TVM's abs refuses it) and T.pow of a bfloat16
   * or a small float ("power only applies to float": float16/32/64) */
  if ((!strcmp(name, "fabs") || !strcmp(name, "pow")) && a->npos >= 1 && !a->nkw)
    for (int i = 0; i < a->npos && i < 2; i++) {
      if (a->pos[i].k != RV_EXPR || !a->pos[i].e) continue;
      tir_dtype t = a->pos[i].e->dtype;
      if (tir_dtype_is_float(t) && t.code != TIR_TC_FLOAT && (t.code != TIR_TC_BFLOAT || !strcmp(name, "pow"))) {
        char ts[64];
        tir_error(r->d, a->pos[i].sp, "T.%s of a %s: TVM's %s takes float16, %sfloat32 or float64", name,
                  tir_dtype_str(t, ts), name, !strcmp(name, "fabs") ? "bfloat16, " : "");
        return rv_err();
      }
    }
  bool fclass = !strcmp(name, "isnan") || !strcmp(name, "isinf") || !strcmp(name, "isfinite");
  if (fclass && a->npos == 1 && !a->nkw && a->pos[0].k == RV_EXPR && a->pos[0].e) {
    tir_dtype t = a->pos[0].e->dtype;
    bool ieee = t.code == TIR_TC_FLOAT && (t.bits == 16 || t.bits == 32 || t.bits == 64);
    char ts[64];
    if (tir_dtype_is_bool(t) || (!ieee && !tir_dtype_is_int(t))) {
      tir_error(r->d, a->pos[0].sp, "T.%s of a %s: TVM's float classes take an int or a float16, float32 or float64",
                name, tir_dtype_str(t, ts));
      return rv_err();
    }
    if (ieee && t.lanes != 1 && strcmp(name, "isnan")) {
      tir_error(r->d, a->pos[0].sp, "T.%s of a %s vector: TVM's op refuses it (its compare with a scalar infinity)",
                name, tir_dtype_str(t, ts));
      return rv_err();
    }
    if (!ieee && t.lanes != 1) {
      if (tir_dtype_is_scalable(t)) {
        tir_error(r->d, a->pos[0].sp, "T.%s of a scalable vector is not supported", name);
        return rv_err();
      }
      tir_expr *no = tir_broadcast(r->c, tir_bool(r->c, false), t.lanes);
      if (strcmp(name, "isfinite")) return rv_expr(no, a->sp);
      /* TVM's isfinite: not isinf(x) and not isnan(x), unfolded */
      tir_expr *nn = tir_not(r->c, no);
      return rv_expr(tir_binary(r->c, TIR_AND, nn, tir_not(r->c, tir_broadcast(r->c, tir_bool(r->c, false), t.lanes))), a->sp);
    }
  }
  /* the rounding functions of a bool or an int vector: TVM's return the
   * value itself, as of an int */
  if (a->npos == 1 && !a->nkw && a->pos[0].k == RV_EXPR && a->pos[0].e &&
      (tir_dtype_is_bool(a->pos[0].e->dtype) || (tir_dtype_is_int(a->pos[0].e->dtype) && a->pos[0].e->dtype.lanes != 1)) &&
      (!strcmp(name, "floor") || !strcmp(name, "ceil") || !strcmp(name, "round") || !strcmp(name, "trunc") ||
       !strcmp(name, "nearbyint")))
    return a->pos[0];
  if (a->npos == 1 && !a->nkw && a->pos[0].k == RV_EXPR && a->pos[0].e && a->pos[0].e->dtype.lanes == 1 &&
      (tir_dtype_is_int(a->pos[0].e->dtype) || tir_dtype_is_bool(a->pos[0].e->dtype))) {
    tir_expr *x = a->pos[0].e;
    bool isint = tir_dtype_is_int(x->dtype);
    if (isint && (!strcmp(name, "floor") || !strcmp(name, "ceil") || !strcmp(name, "round") ||
                  !strcmp(name, "trunc") || !strcmp(name, "nearbyint")))
      return a->pos[0];
    if (!strcmp(name, "isnan") || !strcmp(name, "isinf")) return rv_expr(tir_bool(r->c, false), a->sp);
    if (!strcmp(name, "isfinite")) return rv_expr(tir_bool(r->c, true), a->sp);
    if (isint && !strcmp(name, "fabs")) return abs_call(r, a);
  }
  /* of a float constant (any width), folded as TVM's ops fold them:
   * round to nearest even (as nearbyint), floor, ceil, trunc; the float
   * classes; T.likely of a bool constant is the constant */
  if (a->npos == 1 && !a->nkw && a->pos[0].k == RV_EXPR && a->pos[0].e && a->pos[0].e->dtype.lanes == 1) {
    tir_expr *x = a->pos[0].e;
    if (x->kind == TIR_FLOAT_IMM) {
      double v = x->u.float_val;
      if (!strcmp(name, "floor")) return rv_expr(tir_float(r->c, x->dtype, floor(v)), a->sp);
      if (!strcmp(name, "ceil")) return rv_expr(tir_float(r->c, x->dtype, ceil(v)), a->sp);
      if (!strcmp(name, "trunc")) return rv_expr(tir_float(r->c, x->dtype, trunc(v)), a->sp);
      if (!strcmp(name, "round") || !strcmp(name, "nearbyint")) return rv_expr(tir_float(r->c, x->dtype, nearbyint(v)), a->sp);
      if (!strcmp(name, "isnan")) return rv_expr(tir_bool(r->c, isnan(v)), a->sp);
      if (!strcmp(name, "isinf")) return rv_expr(tir_bool(r->c, isinf(v)), a->sp);
      if (!strcmp(name, "isfinite")) return rv_expr(tir_bool(r->c, isfinite(v)), a->sp);
    }
    if (x->kind == TIR_INT_IMM && (tir_dtype_is_bool(x->dtype) || tir_dtype_is_int(x->dtype)) && !strcmp(name, "likely"))
      return a->pos[0];
  }
  /* Python numbers: T.pow converts and promotes (T.pow(x_f16, 2.5) is
   * T.pow(T.Cast("float32", x), T.float32(2.5))); TVM's fmod, nextafter,
   * hypot, copysign, atan2 and ldexp convert them alone (2 an int32, 2.5 a
   * float32); the others take the first expression's dtype */
  if (!strcmp(name, "pow") && a->npos == 2 && !a->nkw) {
    /* TVM's pow converts a Python number first (1.5 a float32, 2 an
     * int32), then matches the two: T.pow(1.5, T.float16(2.0)) is float32 */
    if (a->pos[0].k == RV_EXPR || a->pos[1].k == RV_EXPR)
      for (int i = 0; i < 2; i++)
        if (a->pos[i].k == RV_FLOAT || a->pos[i].k == RV_INT || a->pos[i].k == RV_BOOL) {
          tir_expr *c = rd_as_expr(r, a->pos[i]);
          if (!c) return rv_err();
          a->pos[i] = rv_expr(c, a->pos[i].sp);
        }
    if (a->pos[0].k == RV_EXPR && a->pos[1].k == RV_EXPR && a->pos[0].e && a->pos[1].e) {
      tir_expr *x = a->pos[0].e, *y = a->pos[1].e; /* TVM's BinaryOpMatchTypes, constants folded */
      if (!rd_match_types(r, &x, &y, a->sp)) return rv_err();
      a->pos[0] = rv_expr(x, a->pos[0].sp), a->pos[1] = rv_expr(y, a->pos[1].sp);
    }
  }
  /* TVM's bitwise and shift functions take integers and bools: a float
   * (a Python 1.5 too, which tirc converted to the other operand's type)
   * is refused ("Expected integer argument"); a Python int beside a Python
   * bool becomes a bool, 0 or 1 ("exceeds range of bool"), and the call
   * is T.bool(..) & T.bool(..) */
  if (rd_is_bit_op_name(name) && a->npos == 2 && !a->nkw) {
    for (int i = 0; i < 2; i++)
      if (a->pos[i].k == RV_FLOAT || (a->pos[i].k == RV_EXPR && a->pos[i].e && tir_dtype_is_float(a->pos[i].e->dtype))) {
        tir_error(r->d, a->pos[i].sp, "T.%s of a float: TVM's bitwise operators take integers and bools", name);
        return rv_err();
      }
    for (int i = 0; i < 2; i++)
      if (a->pos[i].k == RV_INT && a->pos[1 - i].k == RV_BOOL) {
        if (a->pos[i].i != 0 && a->pos[i].i != 1) {
          tir_error(r->d, a->pos[i].sp, "T.%s of %lld and a bool: TVM makes the int a bool, and %lld exceeds its range",
                    name, (long long)a->pos[i].i, (long long)a->pos[i].i);
          return rv_err();
        }
        a->pos[i].k = RV_BOOL;
      }
  }
  bool alone = !strcmp(name, "fmod") || !strcmp(name, "nextafter") || !strcmp(name, "hypot") ||
               !strcmp(name, "copysign") || !strcmp(name, "atan2") || !strcmp(name, "ldexp") || !strcmp(name, "fma");
  tir_expr **args = exprs_of(r, a, 0, !alone && (in->same_dtype_args || in->kinds[0] == TIR_IA_FLOAT) ? first_expr(a, 0) : NULL);
  if (!args) return rv_err();
  if (!strcmp(name, "dp4a") && a->npos == 2) { /* T.dp4a(a, b): TVM's acc=0 */
    tir_expr **a3 = rd_tmp(r, sizeof *a3 * 3);
    a3[0] = args[0], a3[1] = args[1], a3[2] = tir_i32(r->c, 0);
    return checked_call(r, name, TIR_VOID, a3, 3, a->sp);
  }
  /* T.sqrt(2): TVM makes an int32 call of the int32 2 (its float math on
   * an int), which tirc does not model: refused by name, not made float */
  if (in->kinds[0] == TIR_IA_FLOAT && !alone)
    for (int i = 0; i < a->npos; i++)
      if (a->pos[i].k == RV_INT && tir_dtype_is_int(args[i]->dtype)) {
        tir_error(r->d, a->pos[i].sp, "T.%s of a Python int is an int32 call in TVM (not float math); write a float (%lld.0) or T.float32(...)",
                  name, (long long)a->pos[i].i);
        return rv_err();
      }
  /* T.bitwise_and(n64, n32), T.shift_left(...): TVM's functions match the
   * operands' types as its operators do (n64 & T.Cast("int64", n32)) */
  if (!strncmp(name, "shift_", 6) && a->npos == 2 && (tir_dtype_is_bool(args[0]->dtype) || tir_dtype_is_bool(args[1]->dtype))) {
    tir_error(r->d, a->sp, "a shift of a bool (TVM shifts integers only)"); /* T.shift_left(x, True) too */
    return rv_err();
  }
  if (rd_is_bit_op_name(name) && a->npos == 2 && !tir_dtype_eq(args[0]->dtype, args[1]->dtype) &&
      (tir_dtype_is_int(args[0]->dtype) || tir_dtype_is_bool(args[0]->dtype)) &&
      (tir_dtype_is_int(args[1]->dtype) || tir_dtype_is_bool(args[1]->dtype)) &&
      !rd_match_types(r, &args[0], &args[1], a->sp))
    return rv_err();
  rval v = checked_call(r, name, TIR_VOID, args, a->npos, a->sp);
  if (v.k == RV_EXPR && v.e && v.e->kind == TIR_CALL && !strcmp(name, "tvm_access_ptr")) v.e->u.call.written_out = true;
  if (v.k == RV_EXPR && v.e && v.e->kind == TIR_CALL && elem.bits) v.e->dtype = elem;
  if (!strcmp(name, "fabs")) return fold_fabs(r, v);
  tir_expr *f = v.k == RV_EXPR && v.e && v.e->kind == TIR_CALL && v.e->u.call.nargs == 2
                    ? rd_fold_bits(r, name, v.e->u.call.args[0], v.e->u.call.args[1])
                    : NULL; /* T.shift_left(3, 2) is 12 in TVM */
  return f ? rv_expr(f, a->sp) : v;
}

/* v, a handle call, typed as the pointer type ty says (T.handle(elem, scope).ty) */
static rval typed_pointer(rd *r, rval v, rval ty) {
  if (v.k == RV_EXPR && v.e && v.e->kind == TIR_CALL && ty.k == RV_HANDLE_T && ty.dt.bits) {
    v.e->u.call.ptr_elem = ty.dt;
    v.e->u.call.ptr_scope = ty.s && strcmp(ty.s, "global") ? tir_strdup(r->c, ty.s) : NULL;
  }
  return v;
}

static rval extern_call(rd *r, const char *name, rd_args *a) {
  tir_dtype t;
  if (a->npos < 2) {
    tir_error(r->d, a->sp, "T.%s expects a dtype, a function name and arguments", name);
    return rv_err();
  }
  /* the void dtype: "void", or "" as TVM's T.Call(dtype="") spells it */
  if (a->pos[0].k == RV_STR && a->pos[0].s && !a->pos[0].s[0]) t = TIR_VOID;
  else if (!rd_parse_dtype(r, a->pos[0], &t)) return rv_err();
  if (!strncmp(name, "call_llvm_", 10) && a->pos[1].k == RV_STR) a->pos[1].llvm_id = false; /* its name, as TVM prints it */
  tir_expr **args = exprs_of(r, a, 1, NULL);
  if (!args) return rv_err();
  if (!strcmp(name, "call_intrin")) {
    const char *op = rd_as_str(r, a->pos[1], "the intrinsic name");
    if (!op) return rv_err();
    if (!strncmp(op, "tir.", 4)) op += 4;
    else if (!strncmp(op, "tirx.", 5)) op += 5; /* TVM 0.27 names its ops tirx.* */
    op = tir_intrin_from_tvm_op(r->c, op); /* tirx.simdgroup_load is T.metal.simdgroup_load */
    const tir_intrin *in = tir_intrin_lookup(op);
    int n = a->npos - 2;
    if (in && in->arity == TIR_ARITY_RANGE && (n < in->min_args || (in->max_args >= 0 && n > in->max_args))) {
      /* TVM's Call checks no arity: T.call_intrin("void",
       * "tirx.tvm_storage_sync") is read, and printed T.tvm_storage_sync(),
       * which TVM's parser then refuses.  Kept as an opaque call named as
       * written ("tirx.tvm_storage_sync": no pass knows it, the code
       * generators and the interpreter refuse it) and printed back as the
       * T.call_intrin it is */
      const char *raw = a->pos[1].s;
      char *nm = tir_alloc(r->c, strlen(raw) + 6);
      sprintf(nm, "%s%s", strncmp(raw, "tir.", 4) && strncmp(raw, "tirx.", 5) ? "tirx." : "", raw);
      if (!strncmp(nm, "tir.", 4)) sprintf(nm, "tirx.%s", raw + 4);
      char want[48];
      if (in->max_args < 0) snprintf(want, sizeof want, "at least %d", in->min_args);
      else if (in->min_args == in->max_args) snprintf(want, sizeof want, "%d", in->min_args);
      else snprintf(want, sizeof want, "%d to %d", in->min_args, in->max_args);
      tir_warning(r->d, a->sp, "T.call_intrin of '%s' with %d argument%s (T.%s takes %s): kept as an opaque call, "
                  "as TVM reads it unchecked; no pass knows it, and the code generators refuse it",
                  nm, n, n == 1 ? "" : "s", in->name, want);
      tir_expr *e = tir_call(r->c, t, nm, args + 1, n);
      e->span = a->sp;
      e->u.call.written_out = true;
      return typed_pointer(r, rv_expr(e, a->sp), a->pos[0]);
    }
    if (in) {
      /* the dtype written is the call's: one the intrinsic's rule would
       * change (T.call_intrin("float32", "tirx.exp", x) of a bfloat16 x)
       * is refused, not retyped */
      tir_dtype want = t;
      if (!tir_intrin_check(r->c, op, args + 1, a->npos - 2, a->sp, r->d, &want)) return rv_err();
      if (!tir_dtype_eq(want, t)) {
        char s1[32], s2[32];
        tir_error(r->d, a->pos[0].sp, "T.call_intrin of '%s' as %s: that intrinsic of these arguments is %s (a cast says a conversion)",
                  op, tir_dtype_str(t, s1), tir_dtype_str(want, s2));
        return rv_err();
      }
      rval v = checked_call(r, op, t, args + 1, a->npos - 2, a->sp);
      if (v.k == RV_EXPR && v.e && v.e->kind == TIR_CALL) v.e->u.call.written_out = true; /* printed as written */
      return typed_pointer(r, v, a->pos[0]);
    }
    /* as TVM, which refuses an operator it has not registered */
    tir_error(r->d, a->pos[1].sp, "T.call_intrin: unknown intrinsic '%s'", a->pos[1].s);
    return rv_err();
  }
  return typed_pointer(r, checked_call(r, name, t, args, a->npos - 1, a->sp), a->pos[0]);
}

/* T.tvm_struct_get(handle, index, field, dtype): the dtype comes last (a
 * string, or `dtype=`) and is the call's, not an argument */
static rval struct_get(rd *r, rd_args *a) {
  rval *dt = a->npos == 4 ? &a->pos[3] : rd_kwarg(a, "dtype");
  if (!dt || a->npos + a->nkw != 4) {
    tir_error(r->d, a->sp, "T.tvm_struct_get expects (handle, index, field, dtype)");
    return rv_err();
  }
  tir_dtype t;
  if (!rd_parse_dtype(r, *dt, &t)) return rv_err();
  a->npos = 3; /* the dtype is not an argument */
  tir_expr **args = exprs_of(r, a, 0, NULL);
  if (!args) return rv_err();
  return typed_pointer(r, checked_call(r, "tvm_struct_get", t, args, 3, a->sp), *dt);
}

/* T.iter_var(var, None, iter_type, thread_tag) as a value (TVM's IterVar in
 * T.func_attr({"tirx.device_thread_axis": [...]})); var a declared int var
 * or T.int32() (a var of its own, named v as TVM names it).  The node of a
 * thread_extent attr is read by the attr (reader_stmt.c, iter_var_attr) */
static rval iter_var_value(rd *r, rd_args *a) {
  static const char *const P[] = {"var", "dom", "iter_type", "thread_tag", NULL};
  rval *v[4];
  bool bad = a->npos > 4 || rd_unknown_kwarg(a, P) >= 0;
  for (int k = 0; k < 4; k++) v[k] = rd_arg(a, k, P[k]);
  if (bad || !v[0] || !v[1] || !v[2] || !v[3]) {
    tir_error(r->d, a->sp, "T.iter_var expects (var, dom, iter_type, thread_tag)");
    return rv_err();
  }
  tir_expr *var = NULL;
  if (v[0]->k == RV_FRESH && tir_dtype_is_int(v[0]->dt)) {
    var = tir_var(r->c, "v", v[0]->dt);
    var->span = v[0]->sp;
  } else if (v[0]->k == RV_EXPR && v[0]->e->kind == TIR_VAR && tir_dtype_is_int(v[0]->e->dtype)) {
    var = v[0]->e;
  } else {
    tir_error(r->d, v[0]->sp, "T.iter_var's var must be an integer var (a name, or T.int32())");
    return rv_err();
  }
  bool dom_range = v[1]->k == RV_ATTR && v[1]->av && v[1]->av->kind == TIR_AV_RANGE;
  if (v[1]->k != RV_NONE && !dom_range) {
    tir_error(r->d, v[1]->sp, "T.iter_var as a value is read with a domain of None or a T.Range only (one as the node "
                              "of a thread_extent attr is T.launch_thread)");
    return rv_err();
  }
  if (v[2]->k != RV_STR || v[3]->k != RV_STR) {
    tir_error(r->d, v[2]->k != RV_STR ? v[2]->sp : v[3]->sp, "T.iter_var's iter_type and thread_tag must be strings");
    return rv_err();
  }
  static const char *const TYPES[] = {"DataPar", "ThreadIndex", "CommReduce", "Ordered", "DimInfo", "Unrolled",
                                      "Vectorized", "Parallelized", "Tensorized", "Opaque", NULL};
  if (!in_list(TYPES, v[2]->s)) {
    tir_error(r->d, v[2]->sp, "T.iter_var: unknown iter_type '%s'", v[2]->s);
    return rv_err();
  }
  tir_attr_val *items[4] = {tir_av_expr(r->c, var), dom_range ? v[1]->av : rd_as_attr(r, (rval){.k = RV_NONE, .sp = v[1]->sp}),
                            tir_av_expr(r->c, tir_string(r->c, v[2]->s)), tir_av_expr(r->c, tir_string(r->c, v[3]->s))};
  if (!items[1]) return rv_err();
  tir_attr_val *d = tir_av_list(r->c, items, 4);
  d->kind = TIR_AV_ITER_VAR;
  return (rval){.k = RV_ATTR, .sp = a->sp, .av = d};
}

/* T.vectorlow("int8x8", v) and the other calls whose dtype comes first */
static rval dtype_first_call(rd *r, const char *name, rd_args *a) {
  tir_dtype t;
  if (a->npos < 1) {
    tir_error(r->d, a->sp, "T.%s expects a dtype and its arguments", name);
    return rv_err();
  }
  if (!rd_parse_dtype(r, a->pos[0], &t)) return rv_err();
  tir_expr **args = exprs_of(r, a, 1, NULL);
  if (!args) return rv_err();
  return checked_call(r, name, t, args, a->npos - 1, a->sp);
}

/* T.s_tir.cp_async_raw.legacy([elem_dtype,] dst, dst_offset, src, src_offset,
 * bytes), the hand-written form of TVM's tests (T.ptx_cp_async before
 * 0.27): TVM folds each offset into its pointer, a tvm_access_ptr of the
 * element dtype (int8 when none is given; into the offset of a pointer
 * that is a tvm_access_ptr already), and builds the raw call of offsets 0
 * (backend/cuda/op.py's ptx_cp_async_legacy). tirc builds the same. */
static tir_expr *legacy_access_ptr(rd *r, tir_expr *ptr, tir_expr *off, tir_dtype elem, tir_span sp) {
  if (ptr->kind == TIR_CALL && !strcmp(ptr->u.call.op, "tvm_access_ptr") && ptr->u.call.nargs == 5) {
    tir_expr *base = rd_bin_expr(r, TIR_ADD, ptr->u.call.args[2], off);
    if (!base) return NULL;
    tir_expr *args[5] = {ptr->u.call.args[0], ptr->u.call.args[1], base, tir_i32(r->c, 1), ptr->u.call.args[4]};
    rval v = checked_call(r, "tvm_access_ptr", ptr->dtype, args, 5, sp);
    if (v.k != RV_EXPR) return NULL;
    v.e->u.call.ptr_elem = ptr->u.call.ptr_elem; /* the pointer's type is the inner call's */
    v.e->u.call.written_out = ptr->u.call.written_out;
    return v.e;
  }
  tir_expr *args[5] = {tir_call(r->c, elem, "type_annotation", NULL, 0), ptr, off, tir_i32(r->c, 1), tir_i32(r->c, 1)};
  rval v = checked_call(r, "tvm_access_ptr", TIR_VOID, args, 5, sp);
  if (v.k != RV_EXPR) return NULL;
  v.e->u.call.written_out = true; /* T.tvm_access_ptr's own pointer type (the element's), not A.access_ptr's */
  return v.e;
}

static void kw_to_pos(rd *r, rd_args *a, int k, int at);

static rval cp_async_legacy(rd *r, rd_args *a) {
  const char *name = "T.s_tir.cp_async_raw.legacy";
  int k = 0;
  while (k < a->nkw && strcmp(a->kw[k], "dtype")) k++;
  if (k < a->nkw) kw_to_pos(r, a, k, 0);
  if (a->nkw) {
    tir_error(r->d, a->kwsp[0], "%s takes no keyword argument '%s'", name, a->kw[0]);
    return rv_err();
  }
  tir_dtype elem = TIR_INT8;
  int from = 0;
  if (a->npos == 6) {
    if (!rd_parse_dtype(r, a->pos[0], &elem)) return rv_err();
    from = 1;
  } else if (a->npos != 5) {
    tir_error(r->d, a->sp, "%s expects ([dtype,] dst, dst_offset, src, src_offset, bytes), got %d arguments", name,
              a->npos);
    return rv_err();
  }
  tir_expr **x = exprs_of(r, a, from, NULL);
  if (!x) return rv_err();
  for (int i = 0; i < 2; i++)
    if (x[2 * i]->dtype.code != TIR_TC_HANDLE) {
      char b[32];
      tir_error(r->d, a->pos[from + 2 * i].sp, "argument %d of %s must be a pointer (handle), got %s", from + 2 * i + 1,
                name, tir_dtype_str(x[2 * i]->dtype, b));
      return rv_err();
    }
  tir_expr *dst = legacy_access_ptr(r, x[0], x[1], elem, a->sp), *src = dst ? legacy_access_ptr(r, x[2], x[3], elem, a->sp) : NULL;
  if (!src) return rv_err();
  tir_expr *args[5] = {dst, tir_i32(r->c, 0), src, tir_i32(r->c, 0), x[4]};
  return checked_call(r, "s_tir.cp_async_raw", elem, args, 5, a->sp);
}

/* T.infinity(dtype) of a float dtype: the constant, as TVM folds it */
static rval infinity_value(rd *r, rd_args *a) {
  rval *v = rd_arg(a, 0, "dtype");
  tir_dtype t;
  if (!v || a->npos + a->nkw != 1) {
    tir_error(r->d, a->sp, "T.infinity expects a dtype");
    return rv_err();
  }
  if (!rd_parse_dtype(r, *v, &t)) return rv_err();
  if (t.lanes != 1 || !tir_dtype_is_float(t) || !(t.bits == 16 || t.bits == 32 || t.bits == 64)) {
    char b[32];
    tir_error(r->d, a->sp, "T.infinity: dtype %s has no infinity in tirc (float16/32/64, bfloat16)", tir_dtype_str(t, b));
    return rv_err();
  }
  return rv_expr(tir_float(r->c, t, INFINITY), a->sp);
}

/* T.min_value / T.max_value of a scalar dtype: the constant, as TVM folds it */
static rval limit_value(rd *r, rd_args *a, bool max) {
  const char *name = max ? "max_value" : "min_value";
  rval *v = rd_arg(a, 0, "dtype");
  tir_dtype t;
  if (!v || a->npos + a->nkw != 1) {
    tir_error(r->d, a->sp, "T.%s expects a dtype", name);
    return rv_err();
  }
  if (!rd_parse_dtype(r, *v, &t)) return rv_err();
  if (t.lanes != 1) goto bad;
  if (t.code == TIR_TC_INT && t.bits >= 2 && t.bits <= 64) {
    int64_t hi = t.bits == 64 ? INT64_MAX : (int64_t)((1ull << (t.bits - 1)) - 1);
    return rv_expr(tir_int(r->c, t, max ? hi : -hi - 1), a->sp);
  }
  if (t.code == TIR_TC_UINT && t.bits > 1 && t.bits <= 64) /* uint64's largest is held as its bits, -1 */
    return rv_expr(tir_int(r->c, t, max ? (t.bits == 64 ? -1 : (int64_t)((1ull << t.bits) - 1)) : 0), a->sp);
  if (tir_dtype_is_float(t) && (t.bits == 16 || t.bits == 32 || t.bits == 64)) {
    double m = t.code == TIR_TC_BFLOAT ? 3.4028234663852886e+38 /* TVM's, float32's: -inf and inf in bfloat16 */ : t.bits == 16 ? 65504.0 : t.bits == 32 ? 3.4028234663852886e+38
                                                                                                        : 1.7976931348623157e+308;
    return rv_expr(tir_float(r->c, t, max ? m : -m), a->sp);
  }
  if (tir_dtype_is_small_float(t)) {
    /* TVM's bound (tir_dtype_float_max), 0 the least of a type without
     * negatives; float8_e8m0fnu's largest is TVM's 2^128, past the literals
     * it reads (printed back as T.max_value) */
    double m = t.code == TIR_TC_F8_E8M0FNU ? 0x1p128 : tir_dtype_float_max(t);
    return rv_expr(tir_float(r->c, t, max ? m : tir_dtype_float_nonneg(t) ? 0.0 : -m), a->sp);
  }
bad: {
  char b[32];
  tir_error(r->d, a->sp, "T.%s: no %s value for dtype %s in tirc", name, max ? "largest" : "smallest", tir_dtype_str(t, b));
  return rv_err();
}
}

static rval type_annotation(rd *r, rd_args *a) {
  rval *v = rd_arg(a, 0, "dtype");
  tir_dtype t;
  if (!v) {
    tir_error(r->d, a->sp, "T.type_annotation expects a dtype");
    return rv_err();
  }
  if (!rd_parse_dtype(r, *v, &t)) return rv_err();
  return checked_call(r, "type_annotation", t, NULL, 0, a->sp);
}

static rval if_then_else(rd *r, rd_args *a, bool select) {
  const char *name = select ? "Select" : "if_then_else";
  if (!want_args(r, name, a, 3, 3)) return rv_err();
  tir_expr *c = rd_as_expr(r, a->pos[0]);
  tir_expr **tf;
  if (select) {
    /* T.Select is TVM's node: a Python number is its own type (1 an int32,
     * 1.5 a float32) and the branches must match ("mismatched types") */
    tf = exprs_of(r, a, 1, NULL);
  } else {
    /* TVM 0.27's if_then_else matches its branches' dtypes as arithmetic
     * does (a Python number promoted: rd_promote_lit); Select does not */
    rval t = a->pos[1], f = a->pos[2];
    bool pt = t.k == RV_INT || t.k == RV_FLOAT || t.k == RV_BOOL, pf = f.k == RV_INT || f.k == RV_FLOAT || f.k == RV_BOOL;
    tf = tir_alloc(r->c, sizeof *tf * 2);
    if (pt != pf) {
      tir_expr *o = rd_as_expr(r, pt ? f : t);
      tir_expr *l = o ? rd_promote_lit(r, pt ? t : f, &o) : NULL;
      tf[0] = pt ? l : o, tf[1] = pt ? o : l;
      if (tf[0] && tf[1] && !rd_match_types(r, &tf[0], &tf[1], a->sp)) return rv_err();
    } else {
      tf[0] = rd_as_expr(r, t), tf[1] = rd_as_expr(r, f);
      if (tf[0] && tf[1] && !rd_match_types(r, &tf[0], &tf[1], a->sp)) return rv_err();
    }
    if (!tf[0] || !tf[1]) tf = NULL;
  }
  if (!c || !tf) return rv_err();
  if (!tir_dtype_is_bool(c->dtype)) {
    char b[32];
    tir_error(r->d, a->pos[0].sp, "the condition of T.%s must be a bool, got %s", name, tir_dtype_str(c->dtype, b));
    return rv_err();
  }
  if (c->dtype.lanes != 1 && c->dtype.lanes != tf[0]->dtype.lanes) { /* TVM: a scalar, or as many lanes as the values */
    tir_error(r->d, a->pos[0].sp, "the condition of T.%s has %d lanes but its values have %d", name, c->dtype.lanes,
              tf[0]->dtype.lanes);
    return rv_err();
  }
  if (!tir_dtype_eq(tf[0]->dtype, tf[1]->dtype)) {
    char x[32], y[32];
    tir_error(r->d, a->sp, "the branches of T.%s have different dtypes %s and %s", name,
              tir_dtype_str(tf[0]->dtype, x), tir_dtype_str(tf[1]->dtype, y));
    return rv_err();
  }
  if (select) return rv_expr(tir_select(r->c, c, tf[0], tf[1]), a->sp);
  if (c->kind == TIR_INT_IMM) return rv_expr(c->u.int_val ? tf[0] : tf[1], a->sp);
  tir_expr *args[3] = {c, tf[0], tf[1]};
  return checked_call(r, name, TIR_VOID, args, 3, a->sp);
}

static rval abs_call(rd *r, rd_args *a) {
  if (!want_args(r, "abs", a, 1, 1)) return rv_err();
  rval v = a->pos[0];
  if (v.k == RV_INT || v.k == RV_FLOAT) {
    if (v.k == RV_INT) v.i = v.i < 0 ? (int64_t)(0 - (uint64_t)v.i) : v.i; /* -2^63 stays (wraps) */
    else v.f = fabs(v.f); /* abs(-0.0) is 0.0 */
    return rv_expr(rd_as_expr(r, v), a->sp);
  }
  tir_expr *e = rd_as_expr(r, v);
  if (!e) return rv_err();
  /* TVM 0.27's abs takes ints, uints and the float16/32/64 and bfloat16
   * floats: "Data type T.bool not supported for absolute op" */
  if (tir_dtype_is_bool(e->dtype) || (tir_dtype_is_float(e->dtype) && e->dtype.code != TIR_TC_FLOAT &&
                                       e->dtype.code != TIR_TC_BFLOAT)) {
    char ts[64];
    tir_error(r->d, v.sp, "T.abs of a %s: TVM's abs takes an int or a float16, bfloat16, float32 or float64",
              tir_dtype_str(e->dtype, ts));
    return rv_err();
  }
  if (tir_dtype_is_float(e->dtype)) return fold_fabs(r, checked_call(r, "fabs", TIR_VOID, &e, 1, a->sp));
  if (e->dtype.code == TIR_TC_UINT) return rv_expr(e, a->sp);
  if (!tir_dtype_is_int(e->dtype)) {
    tir_error(r->d, v.sp, "T.abs expects a number");
    return rv_err();
  }
  if (e->kind == TIR_INT_IMM) { /* |INT_MIN| wraps to INT_MIN in the dtype, as the C computes it */
    uint64_t m = e->u.int_val < 0 ? 0 - (uint64_t)e->u.int_val : (uint64_t)e->u.int_val;
    int bits = e->dtype.bits < 64 ? e->dtype.bits : 64;
    if (bits < 64 && (m >> (bits - 1) & 1)) m |= ~(((uint64_t)1 << bits) - 1);
    return rv_expr(tir_int(r->c, e->dtype, (int64_t)m), a->sp);
  }
  tir_expr *zero = tir_int(r->c, e->dtype, 0);
  tir_expr *neg = tir_binary(r->c, TIR_SUB, zero, e); /* TVM writes -x as 0 - x here */
  return rv_expr(tir_select(r->c, rd_bin_expr(r, TIR_GE, e, zero), e, neg), a->sp);
}

static rval cast_call(rd *r, rd_args *a, bool node) {
  /* T.Cast(dtype, value) builds the node; T.cast(value, dtype) folds constants;
   * a third positional None is TVM's span */
  if (a->npos == 3 && a->pos[2].k == RV_NONE) a->npos = 2;
  if (!want_args(r, node ? "Cast" : "cast", a, node ? 2 : 1, 2)) return rv_err();
  rval *dt = node ? &a->pos[0] : rd_arg(a, 1, "dtype");
  rval *val = node ? &a->pos[1] : &a->pos[0];
  tir_dtype t;
  if (!dt) {
    tir_error(r->d, a->sp, "T.cast expects a dtype");
    return rv_err();
  }
  if (!rd_parse_dtype(r, *dt, &t)) return rv_err();
  if (!node) {
    tir_expr *e = rd_convert(r, *val, t);
    return e ? rv_expr(e, a->sp) : rv_err();
  }
  tir_expr *e = rd_as_expr(r, *val);
  if (e && e->dtype.lanes != t.lanes) { /* TVM's Cast node keeps the lanes */
    char b1[32], b2[32];
    tir_error(r->d, a->sp, "T.Cast to %s of a %s value: a cast keeps the lanes", tir_dtype_str(t, b1),
              tir_dtype_str(e->dtype, b2));
    return rv_err();
  }
  if (!e) return rv_err();
  tir_expr *c = tir_cast(r->c, t, e);
  if (c->kind == TIR_CAST) c->span = a->sp;
  return rv_expr(c, a->sp);
}

/* k * T.vscale() or T.vscale() * k (k a constant): k, else 0 */
int rd_scalable_lanes(const tir_expr *e) {
  if (!e || e->kind != TIR_MUL) return 0;
  for (int side = 0; side < 2; side++) {
    const tir_expr *c = side ? e->u.bin.a : e->u.bin.b, *v = side ? e->u.bin.b : e->u.bin.a;
    int64_t k;
    if (v->kind == TIR_CALL && v->u.call.nargs == 0 &&
        (!strcmp(v->u.call.op, "vscale") || !strcmp(v->u.call.op, "tir.vscale")) && tir_is_const_int(c, &k) &&
        k >= 1 && k < TIR_LANES_SCALABLE)
      return (int)k;
  }
  return 0;
}

static bool lanes_arg(rd *r, rval v, int *lanes) {
  int64_t n;
  int k = v.k == RV_EXPR ? rd_scalable_lanes(v.e) : 0;
  if (k) { /* T.vscale() * 4: a scalable vector */
    *lanes = TIR_LANES_SCALABLE | k;
    return true;
  }
  if (!rd_as_int(r, v, &n, "the lane count")) return false;
  if (n < 2 || n >= TIR_LANES_SCALABLE) {
    tir_error(r->d, v.sp, "lane count %lld out of range", (long long)n);
    return false;
  }
  *lanes = (int)n;
  return true;
}

/* T.Shuffle([vectors], [indices]): the lanes picked by index from the
 * vectors laid end to end (TVM's Shuffle node); held as the call
 * Shuffle(nvectors, vectors..., indices...) */
static rval shuffle_call(rd *r, rd_args *a) {
  if (!want_args(r, "Shuffle", a, 2, 2)) return rv_err();
  rval vs = a->pos[0], is = a->pos[1];
  if (vs.k != RV_TUPLE || is.k != RV_TUPLE || vs.n < 1 || is.n < 1) {
    tir_error(r->d, a->sp, "T.Shuffle expects ([vectors], [indices])");
    return rv_err();
  }
  int n = 1 + vs.n + is.n, total = 0;
  tir_expr **args = tir_alloc(r->c, sizeof *args * (size_t)n);
  args[0] = tir_i32(r->c, vs.n);
  tir_dtype elem = TIR_VOID;
  for (int i = 0; i < vs.n; i++) {
    tir_expr *v = rd_as_expr(r, vs.items[i]);
    if (!v) return rv_err();
    tir_dtype t = tir_dtype_with_lanes(v->dtype, 1);
    if (i && !tir_dtype_eq(t, elem)) {
      char x[32], y[32];
      tir_error(r->d, vs.items[i].sp, "T.Shuffle's vectors differ in element type (%s and %s)", tir_dtype_str(elem, x),
                tir_dtype_str(t, y));
      return rv_err();
    }
    elem = t;
    total += v->dtype.lanes;
    args[1 + i] = v;
  }
  for (int i = 0; i < is.n; i++) {
    tir_expr *x = rd_as_expr(r, is.items[i]);
    int64_t k;
    if (!x) return rv_err();
    if (!tir_is_const_int(x, &k) || k < 0 || k >= total) {
      tir_error(r->d, is.items[i].sp, "a T.Shuffle index must be a constant lane in [0, %d)", total);
      return rv_err();
    }
    args[1 + vs.n + i] = x;
  }
  tir_expr *e = tir_call(r->c, tir_dtype_with_lanes(elem, is.n), "Shuffle", args, n);
  e->span = a->sp;
  return rv_expr(e, a->sp);
}

/* T.call_ffi_kernel(symbol, args..., launch_params=[tags], ret_ty="int32")
 * (SplitHostDevice's launch of a device kernel, TVM 0.27): a Call of op
 * "call_ffi_kernel" typed ret_ty whose args hold the launch params first,
 * as Shuffle holds its shape: [n, tag_1 .. tag_n, symbol, args...] */
static rval ffi_kernel_call(rd *r, rd_args *a) {
  rval *lp = NULL, *rt = NULL;
  for (int i = 0; i < a->nkw; i++) {
    if (!strcmp(a->kw[i], "launch_params")) lp = &a->kwv[i];
    else if (!strcmp(a->kw[i], "ret_ty")) rt = &a->kwv[i];
    else {
      tir_error(r->d, a->kwsp[i], "T.call_ffi_kernel takes no keyword argument '%s' (launch_params=, ret_ty=)",
                a->kw[i]);
      return rv_err();
    }
  }
  if (!lp || lp->k != RV_TUPLE) {
    tir_error(r->d, lp ? lp->sp : a->sp, "T.call_ffi_kernel expects launch_params=[...] (a list of launch tags)");
    return rv_err();
  }
  if (a->npos < 1 || a->pos[0].k != RV_STR) {
    tir_error(r->d, a->npos ? a->pos[0].sp : a->sp, "T.call_ffi_kernel expects the kernel's symbol (a string) first");
    return rv_err();
  }
  tir_dtype t = TIR_INT32;
  if (rt && (rt->k != RV_STR || !tir_dtype_parse(rt->s, &t))) {
    tir_error(r->d, rt->sp, "T.call_ffi_kernel's ret_ty must be a dtype string (\"int32\")");
    return rv_err();
  }
  int n = 1 + lp->n + a->npos;
  tir_expr **args = tir_alloc(r->c, sizeof *args * (size_t)n);
  args[0] = tir_i32(r->c, lp->n);
  for (int i = 0; i < lp->n; i++) {
    if (lp->items[i].k != RV_STR) {
      tir_error(r->d, lp->items[i].sp, "a launch param of T.call_ffi_kernel must be a string (\"threadIdx.x\")");
      return rv_err();
    }
    args[1 + i] = tir_string(r->c, lp->items[i].s);
  }
  for (int i = 0; i < a->npos; i++) {
    tir_expr *x = rd_as_expr(r, a->pos[i]);
    if (!x) return rv_err();
    args[1 + lp->n + i] = x;
  }
  tir_expr *e = tir_call(r->c, t, "call_ffi_kernel", args, n);
  e->span = a->sp;
  return rv_expr(e, a->sp);
}

static rval vector_call(rd *r, const char *name, rd_args *a) {
  int lanes;
  if (!strcmp(name, "Ramp")) {
    if (!want_args(r, name, a, 3, 3)) return rv_err();
    tir_expr *base = rd_as_expr(r, a->pos[0]);
    if (!base) return rv_err();
    if (a->pos[1].k == RV_FLOAT && tir_dtype_is_int(base->dtype) && base->dtype.bits <= 64 &&
        !(fabs(a->pos[1].f) < ldexp(1.0, base->dtype.bits - 1))) { /* TVM makes an int of it: past the dtype, refused */
      char t[32];
      tir_error(r->d, a->pos[1].sp, "T.Ramp stride %g: out of range for %s (TVM makes the Python float an integer of "
                "the base's type)", a->pos[1].f, tir_dtype_str(base->dtype, t));
      return rv_err();
    }
    tir_expr *stride = rd_convert(r, a->pos[1], base->dtype);
    if (!stride || !lanes_arg(r, a->pos[2], &lanes)) return rv_err();
    if (base->dtype.lanes != 1 || stride->dtype.lanes != 1) { /* TVM: base and stride are scalars */
      tir_error(r->d, (base->dtype.lanes != 1 ? a->pos[0] : a->pos[1]).sp, "the %s of T.Ramp must be a scalar, not a vector",
                base->dtype.lanes != 1 ? "base" : "stride");
      return rv_err();
    }
    return rv_expr(tir_ramp(r->c, base, stride, lanes), a->sp);
  }
  if (!want_args(r, name, a, 2, 2)) return rv_err();
  tir_expr *v = rd_as_expr(r, a->pos[0]);
  if (!v || !lanes_arg(r, a->pos[1], &lanes)) return rv_err();
  if (v->dtype.lanes != 1) { /* TVM: a Broadcast's value is a scalar */
    tir_error(r->d, a->pos[0].sp, "the value of T.Broadcast must be a scalar, not a vector");
    return rv_err();
  }
  return rv_expr(tir_broadcast(r->c, v, lanes), a->sp);
}

static rval let_call(rd *r, rd_args *a) {
  static const char *const known[] = {"body", "where", NULL};
  int unk = rd_unknown_kwarg(a, known);
  if (unk >= 0) {
    tir_error(r->d, a->kwsp[unk], "T.Let takes no keyword argument '%s'", a->kw[unk]);
    return rv_err();
  }
  rval *where = rd_arg(a, 1, "where");
  if (a->npos < 1 || !where || where->k != RV_DICT || where->n != 1 || where->keys[0].k != RV_EXPR ||
      where->keys[0].e->kind != TIR_VAR) {
    tir_error(r->d, a->sp, "T.Let expects (body, where={var: value})");
    return rv_err();
  }
  tir_expr *var = where->keys[0].e;
  tir_dtype vt = rd_natural_dtype(where->items[0], var->dtype);
  if (!tir_dtype_eq(vt, var->dtype)) { /* TVM's Let: value->ty == var->ty, no conversion */
    char s1[32], s2[32];
    tir_error(r->d, where->items[0].sp, "T.Let binds '%s' (%s) to a %s value (use T.Cast)", var->u.var.name,
              tir_dtype_str(var->dtype, s1), tir_dtype_str(vt, s2));
    return rv_err();
  }
  tir_expr *val = rd_convert(r, where->items[0], var->dtype);
  tir_expr *body = rd_as_expr(r, a->pos[0]);
  if (!val || !body) return rv_err();
  return rv_expr(tir_let(r->c, var, val, body), a->sp);
}

static rval reinterpret(rd *r, rd_args *a) {
  tir_dtype t;
  if (!want_args(r, "reinterpret", a, 2, 2) || !rd_parse_dtype(r, a->pos[0], &t)) return rv_err();
  tir_expr *e = rd_as_expr(r, a->pos[1]);
  if (!e) return rv_err();
  return typed_pointer(r, checked_call(r, "reinterpret", t, &e, 1, a->sp), a->pos[0]);
}

/* T.ceildiv(a, b): (a + b - 1) // b, the expression TVM 0.27 builds, its 1
 * in the sum's dtype (an int8 ceildiv stays int8) */
static rval ceildiv(rd *r, rd_args *a) {
  if (!want_args(r, "ceildiv", a, 2, 2)) return rv_err();
  if (a->pos[0].k == RV_INT && a->pos[1].k == RV_INT) {
    /* two Python ints: TIR constants first (int32 where they fit), the sum
     * wrapping in that dtype, as TVM's ceildiv computes it */
    for (int i = 0; i < 2; i++) {
      tir_expr *e = rd_as_expr(r, a->pos[i]);
      if (!e) return rv_err();
      a->pos[i] = rv_expr(e, a->pos[i].sp);
    }
  }
  rval s = rd_binop(r, "+", a->pos[0], a->pos[1], a->sp);
  rval one = {.k = RV_INT, .i = 1, .sp = a->sp};
  if (s.k == RV_EXPR && s.e && tir_dtype_is_int(s.e->dtype) && s.e->dtype.lanes == 1)
    one = rv_expr(tir_int(r->c, s.e->dtype, 1), a->sp);
  s = rd_binop(r, "-", s, one, a->sp);
  return rd_binop(r, "//", s, a->pos[1], a->sp);
}

/* TVM's T.* wrappers take a `dtype=` keyword: the call_* family and
 * reinterpret put it first (_dtype_forward), the other ops drop it
 * (_op_wrapper); a few raw ops and the constructors take none (or read
 * it themselves: T.type_annotation(dtype=...)) */
static const char *const DTYPE_FIRST[] = {"call_extern", "call_pure_extern", "call_intrin", "reinterpret",
                                          "call_llvm_intrin", "call_llvm_pure_intrin", "vectorlow", "vectorhigh",
                                          "vectorcombine", "cuda.mma_fill_legacy", "cuda.mma_store_legacy", "ptx_legacy.ldmatrix",
                                          "cuda.mma_fill", "cuda.mma_store",
                                          "get_active_lane_mask", "masked_load", NULL};
static const char *const DTYPE_IGNORED[] = {"if_then_else", "abs", "floordiv", "floormod", "truncdiv",
                                            "truncmod", "ceildiv", NULL};
static const char *const DTYPE_REFUSED[] = {"type_annotation", "tvm_storage_sync", "tvm_warp_shuffle",
                                            "tvm_warp_shuffle_up", "tvm_warp_shuffle_down",
                                            "tvm_warp_shuffle_xor", "tvm_warp_activemask", NULL};

static void drop_kwarg(rd_args *a, int k) {
  for (int i = k + 1; i < a->nkw; i++) {
    a->kw[i - 1] = a->kw[i];
    a->kwv[i - 1] = a->kwv[i];
    a->kwsp[i - 1] = a->kwsp[i];
  }
  a->nkw--;
}

/* keyword argument k of a becomes its positional argument at index at (0
 * or npos) */
static void kw_to_pos(rd *r, rd_args *a, int k, int at) {
  rval *pos = rd_tmp(r, sizeof *pos * (size_t)(a->npos + 1));
  memcpy(pos, a->pos, sizeof *pos * (size_t)at);
  pos[at] = a->kwv[k];
  memcpy(pos + at + 1, a->pos + at, sizeof *pos * (size_t)(a->npos - at));
  a->pos = pos;
  a->npos++;
  drop_kwarg(a, k);
}

/* TVM's T.* signatures whose parameters tirc reads by position: a keyword
 * naming the next parameter becomes that positional argument
 * (T.if_then_else(cond=c, t=x, f=y), T.launch_thread(thread=, extent=)) */
int rd_unknown_kwarg(const rd_args *a, const char *const *known) {
  for (int i = 0; i < a->nkw; i++)
    if (!in_list(known, a->kw[i])) return i;
  return -1;
}

void rd_kw_positional(rd *r, const char *name, rd_args *a) {
  static const struct { const char *fn; const char *p[4]; } SIG[] = {
      {"attr", {"node_or_dict", "attr_key", "value"}},
      {"launch_thread", {"thread", "extent"}},
      {"env_thread", {"thread_tag", "dtype"}},
      {"if_then_else", {"cond", "t", "f"}},
      {"Select", {"condition", "true_value", "false_value"}},
      {"Ramp", {"base", "stride", "lanes"}},
      {"ramp", {"base", "stride", "lanes"}},
      {"Broadcast", {"value", "lanes"}},
      {"broadcast", {"value", "lanes"}},
      {"reinterpret", {"dtype", "value"}},
      {"Cast", {"dtype", "value"}},
      {"likely", {"cond"}},
  };
  if (!name || !a->nkw) return;
  for (size_t s = 0; s < sizeof SIG / sizeof SIG[0]; s++) {
    if (strcmp(SIG[s].fn, name)) continue;
    for (int j = a->npos; j < 4 && SIG[s].p[j]; j++) {
      int k = 0;
      while (k < a->nkw && strcmp(a->kw[k], SIG[s].p[j])) k++;
      if (k == a->nkw) return; /* a gap: what follows stays a keyword (refused by name) */
      kw_to_pos(r, a, k, a->npos);
    }
    return;
  }
  /* the expression functions (intrinsics, node constructors, casts and
   * calls) and a few statements of one value: their parameters by TVM's
   * names (tvm_signatures.c); builders that read keywords themselves
   * (buffers, loops, blocks) are not among them */
  static const char *const BY_NAME[] = {
      "Add", "Sub", "Mul", "Div", "Mod", "FloorDiv", "FloorMod", "Min", "Max", "EQ", "NE", "LT", "LE", "GT", "GE",
      "And", "Or", "Not", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "LShift", "RShift", "cast",
      "max", "min", "floordiv", "floormod", "truncdiv", "truncmod", "abs", "ceildiv", "call_extern",
      "call_pure_extern", "call_intrin", "call_llvm_intrin", "call_llvm_pure_intrin", "Let", "Shuffle", "dp4a",
      "vectorlow", "vectorhigh", "vectorcombine", "get_active_lane_mask", "masked_load", "masked_store",
      "tvm_struct_get", "evaluate", "where", "func_attr", "sblock_attr", "meta_var", "assume", "match_buffer", NULL};
  tir_dtype dt;
  const char *const *ps =
      tir_intrin_lookup(name) || in_list(BY_NAME, name) || tir_dtype_parse(name, &dt) ? rd_tvm_params(name) : NULL;
  for (int j = a->npos; ps && ps[j] && a->nkw; j++) {
    int k = 0;
    while (k < a->nkw && strcmp(a->kw[k], ps[j])) k++;
    if (k == a->nkw) return; /* a gap: what follows stays a keyword (refused by name) */
    kw_to_pos(r, a, k, a->npos);
  }
}

static void dtype_kwarg(rd *r, const char *name, rd_args *a) {
  int k = 0;
  while (k < a->nkw && strcmp(a->kw[k], "dtype")) k++;
  if (k == a->nkw) return;
  if (in_list(DTYPE_FIRST, name)) {
    kw_to_pos(r, a, k, 0);
  } else if (!strcmp(name, "cast") && a->npos == 1) { /* T.cast(x, dtype="int32") */
    kw_to_pos(r, a, k, 1);
  } else if (!strcmp(name, "tvm_struct_get")) { /* its dtype last, as a string or `dtype=` */
    kw_to_pos(r, a, k, a->npos);
  } else if (in_list(DTYPE_IGNORED, name) || (tir_intrin_lookup(name) && !in_list(DTYPE_REFUSED, name))) {
    drop_kwarg(a, k);
  }
}

static rval node_ctor(rd *r, const char *name, tir_expr_kind k, rd_args *a) {
  if (a->nkw) {
    tir_error(r->d, a->kwsp[0], "T.%s takes no keyword argument '%s'", name, a->kw[0]);
    return rv_err();
  }
  if (!want_args(r, name, a, 2, 2)) return rv_err();
  /* a Python number is a value of its own type (int32, float32, bool), and
   * the two operands are of one dtype: TVM's node constructors neither
   * promote nor convert (T.Add(T.int64(3), 1) is refused) */
  tir_expr **es = exprs_of(r, a, 0, NULL);
  if (es && !rd_operand_kinds_ok(r, k, es[0], es[1], false, a->sp)) return rv_err();
  if (es && !tir_dtype_eq(es[0]->dtype, es[1]->dtype)) {
    char s1[32], s2[32];
    tir_error(r->d, a->sp, "T.%s of %s and %s: TVM's node constructors take operands of one dtype (write T.Cast, or the operator, which converts)",
              name, tir_dtype_str(es[0]->dtype, s1), tir_dtype_str(es[1]->dtype, s2));
    return rv_err();
  }
  /* (TVM's FloorDiv and FloorMod constructors take floats, its operators not) */
  tir_expr *e = es ? rd_bin_node(r, k, es[0], es[1]) : NULL;
  if (e && !e->span.line) e->span = a->sp; /* where a run's error (a division by zero) points */
  return e ? rv_expr(e, a->sp) : rv_err();
}

/* TVM's node constructors of the bitwise ops (T.LShift(1, 3): the Call
 * itself, not folded, as TVM prints a shift of two constants) */
static const struct { const char *name, *op; } BIT_CTORS[] = {
    {"LShift", "shift_left"}, {"RShift", "shift_right"}, {"BitwiseAnd", "bitwise_and"},
    {"BitwiseOr", "bitwise_or"}, {"BitwiseXor", "bitwise_xor"}};

static rval bit_ctor(rd *r, const char *name, const char *op, rd_args *a) {
  if (a->nkw) {
    tir_error(r->d, a->kwsp[0], "T.%s takes no keyword argument '%s'", name, a->kw[0]);
    return rv_err();
  }
  if (!want_args(r, name, a, 2, 2)) return rv_err();
  /* a Python number is a value of its own type (int32, bool), and the two
   * operands are of one dtype: TVM's node constructors neither promote nor
   * convert (T.BitwiseXor(x_uint8, 1) is refused), as node_ctor's */
  tir_expr **es = exprs_of(r, a, 0, NULL);
  if (es && !tir_dtype_eq(es[0]->dtype, es[1]->dtype)) {
    char s1[32], s2[32];
    tir_error(r->d, a->sp, "T.%s of %s and %s: TVM's node constructors take operands of one dtype (write T.Cast, or the operator, which converts)",
              name, tir_dtype_str(es[0]->dtype, s1), tir_dtype_str(es[1]->dtype, s2));
    return rv_err();
  }
  tir_expr *e = es ? rd_bit_call(r, op, es[0], es[1], a->sp) : NULL;
  if (e) e->span = a->sp;
  return e ? rv_expr(e, a->sp) : rv_err();
}

/* T.IntImm(dtype, value) / T.FloatImm(dtype, value): the constant */
static rval imm_ctor(rd *r, const char *name, rd_args *a) {
  rval *dt = rd_arg(a, 0, "dtype"), *v = rd_arg(a, 1, "value");
  tir_dtype t;
  if (!dt || !v || a->npos + a->nkw != 2) {
    tir_error(r->d, a->sp, "T.%s expects (dtype, value)", name);
    return rv_err();
  }
  if (!rd_parse_dtype(r, *dt, &t)) return rv_err();
  bool fl = name[0] == 'F';
  if (!fl && t.code == TIR_TC_UINT1 && t.lanes == 1 && (v->k == RV_INT || v->k == RV_BOOL)) { /* uint1: 0 or 1 */
    if (v->i != 0 && v->i != 1) {
      tir_error(r->d, v->sp, "integer literal %lld out of range for uint1", (long long)v->i);
      return rv_err();
    }
    tir_expr *e = tir_int(r->c, t, v->i);
    e->span = a->sp;
    return rv_expr(e, a->sp);
  }
  if (t.lanes != 1 || (fl ? !tir_dtype_is_float(t) : !(tir_dtype_is_int(t) || tir_dtype_is_bool(t))) ||
      (fl ? v->k != RV_FLOAT && v->k != RV_INT : v->k != RV_INT && v->k != RV_BOOL)) {
    tir_error(r->d, a->sp, "T.%s expects a scalar %s dtype and a Python number", name, fl ? "float" : "integer");
    return rv_err();
  }
  tir_expr *e = rd_convert(r, *v, t);
  return e ? rv_expr(e, a->sp) : rv_err();
}

/* T.Not(x) (TVM 0.27's Not node of a bool, never folded) and
 * T.BitwiseNot(x) (of an integer or a bool): the node */
static rval unary_ctor(rd *r, rd_args *a, bool logical) {
  const char *name = logical ? "T.Not" : "T.BitwiseNot";
  if (a->nkw || a->npos != 1) {
    tir_error(r->d, a->sp, "%s expects one argument", name);
    return rv_err();
  }
  tir_expr *x = rd_as_expr(r, a->pos[0]);
  if (!x) return rv_err();
  if (logical ? !tir_dtype_is_bool(x->dtype) : !tir_dtype_is_int(x->dtype) && !tir_dtype_is_bool(x->dtype)) {
    tir_error(r->d, a->sp, logical ? "%s needs a bool operand (TVM refuses any other)" : "%s needs an integer operand",
              name);
    return rv_err();
  }
  tir_expr *e = logical ? tir_not(r->c, x) : tir_call(r->c, x->dtype, "bitwise_not", &x, 1);
  e->span = a->sp;
  return rv_expr(e, a->sp);
}

/* T.target(spec, host=None): spec and host a target string or a dict of
 * its fields (TVM prints the dict), kept as written for T.func_attr */
static bool target_part(rd *r, rval *v, const char *what) {
  if (v->k == RV_STR && strpbrk(v->s, " \t")) { /* as TVM 0.27 */
    tir_error(r->d, v->sp,
              "T.target: the command-line string form (\"%s\") is no longer supported (TVM 0.27); write the dict "
              "form, e.g. {\"kind\": \"llvm\", \"mcpu\": \"skylake\"}",
              v->s);
    return false;
  }
  /* the kind, where the target names one: TVM 0.27's target kinds (a
   * string with a '/' is a tag, such as "nvidia/nvidia-a100") */
  static const char *const KINDS[] = {"c",      "composite", "cuda", "cuda_host", "ext_dev", "hexagon", "llvm", "metal",
                                      "nvptx",  "opencl",    "rocm", "test",      "trn",     "vulkan",  "webgpu", NULL};
  const rval *kind = v->k == RV_STR ? v : NULL;
  for (int i = 0; v->k == RV_DICT && i < v->n; i++)
    if (v->keys[i].k == RV_STR && !strcmp(v->keys[i].s, "kind")) kind = &v->items[i];
  if (kind && kind->k == RV_STR && !strchr(kind->s, '/')) {
    bool known = false;
    for (int i = 0; KINDS[i] && !known; i++) known = !strcmp(KINDS[i], kind->s);
    if (!known) {
      tir_error(r->d, kind->sp, "T.target: target kind \"%s\" is not one of TVM 0.27's", kind->s);
      return false;
    }
  }
  if (v->k == RV_STR || v->k == RV_DICT) return true;
  tir_error(r->d, v->sp, "T.target's %s must be a target string (\"cuda\") or a dict of its fields", what);
  return false;
}

static rval target_call(rd *r, rd_args *a) {
  for (int i = 0; i < a->nkw && !a->npos; i++) /* T.target(target_config=...): its first parameter by name */
    if (!strcmp(a->kw[i], "target_config")) kw_to_pos(r, a, i, 0);
  for (int i = 0; i < a->nkw; i++)
    if (strcmp(a->kw[i], "host")) {
      tir_error(r->d, a->kwsp[i], "T.target takes no keyword argument '%s' (only host=)", a->kw[i]);
      return rv_err();
    }
  if (a->npos < 1 || a->npos > 2 || (a->npos == 2 && rd_kwarg(a, "host"))) {
    tir_error(r->d, a->sp, "T.target expects a target and an optional host, got %d arguments", a->npos + a->nkw);
    return rv_err();
  }
  rval *spec = &a->pos[0], *host = rd_arg(a, 1, "host");
  if (!target_part(r, spec, "target") || (host && host->k != RV_NONE && !target_part(r, host, "host")))
    return rv_err();
  tir_attr_val *s = rd_as_attr(r, *spec), *h = host && host->k != RV_NONE ? rd_as_attr(r, *host) : NULL;
  if (!s || (host && host->k != RV_NONE && !h)) return rv_err();
  rval v = {.k = RV_ATTR, .sp = a->sp, .av = tir_av_target(r->c, s, h)};
  return v;
}

/* I.vdevice(target, vdevice_id=0, memory_scope="global"): a virtual device
 * of a module's global infos (I.module_global_infos), kept as written with
 * the defaults filled in, as TVM prints it */
static rval vdevice_call(rd *r, rd_args *a) {
  static const char *const names[] = {"target", "vdevice_id", "memory_scope"};
  rval *v[3];
  int given = a->npos + a->nkw, used = 0;
  for (int i = 0; i < 3; i++) used += (v[i] = rd_arg(a, i, names[i])) != NULL;
  if (given > 3 || used != given) {
    tir_error(r->d, a->sp, "I.vdevice expects (target, vdevice_id, memory_scope)");
    return rv_err();
  }
  tir_attr_val *items[3];
  if (!v[0] || v[0]->k == RV_NONE) {
    items[0] = rd_as_attr(r, (rval){.k = RV_NONE, .sp = a->sp});
  } else {
    if (!target_part(r, v[0], "target")) return rv_err();
    items[0] = rd_as_attr(r, *v[0]);
  }
  if (v[1] && v[1]->k != RV_INT && v[1]->k != RV_BOOL) { /* a Python bool is an int (True: 1), as TVM takes it */
    tir_error(r->d, v[1]->sp, "I.vdevice's vdevice_id must be an int");
    return rv_err();
  }
  if (v[2] && v[2]->k != RV_STR) {
    tir_error(r->d, v[2]->sp, "I.vdevice's memory_scope must be a string");
    return rv_err();
  }
  items[1] = tir_av_expr(r->c, tir_int(r->c, TIR_INT64, v[1] ? v[1]->i : 0));
  items[2] = tir_av_expr(r->c, tir_string(r->c, v[2] ? v[2]->s : "global"));
  if (!items[0]) return rv_err();
  tir_attr_val *d = tir_av_list(r->c, items, 3);
  d->kind = TIR_AV_VDEVICE;
  return (rval){.k = RV_ATTR, .sp = a->sp, .av = d};
}

/* TVM 0.27's T.ptx: a table-driven PTX dialect whose first token names the
 * instruction family and whose further tokens fill its modifier slots
 * (T.ptx.cp.async_.ca.shared__cta.global_(dst, src, 16)); TVM prints the
 * call back as the family over its operands and its slots' tokens
 * (T.ptx.cp(dst, src, 16, "async", "ca", "shared::cta", "global", "", "",
 * "")) and reads either. tirc keeps the call as written, a void statement
 * with effects (TVM's kOpaque), and prints it as written, which TVM's
 * reading resolves to the same instruction. The families are checked here
 * (the mnemonics of TVM 0.27's table); the modifiers are TVM's to check.
 * The code generators and the interpreter refuse the call by name. */
static const char *const PTX_FAMILIES[] = {
    "abs", "activemask", "add", "and", "applypriority", "atom", "bar", "barrier", "bfe", "bfi", "bfind", "bmsk",
    "brev", "clmad", "clusterlaunchcontrol", "clz", "cnot", "copysign", "cos", "cp", "createpolicy", "cvt",
    "cvt_pack", "cvta", "discard", "div", "dp2a", "dp4a", "elect_sync", "ex2", "fabric", "fence", "fma", "fns",
    "getctarank", "griddepcontrol", "isspacep", "ld", "ldmatrix", "ldu", "lg2", "lop3", "mad", "mad24", "mapa",
    "match", "max", "mbarrier", "min", "mma", "mov", "movmatrix", "mul", "mul24", "multimem_cp",
    "multimem_ld_reduce", "multimem_red", "multimem_red_async", "multimem_st", "multimem_st_async", "neg", "not",
    "or", "popc", "prefetch", "prefetchu", "prmt", "rcp", "red", "red_async", "redux_sync", "rem", "rsqrt", "sad",
    "selp", "set", "setmaxnreg", "setp", "shf", "shfl_sync", "shl", "shr", "sin", "slct", "spcompress",
    "spdecompress", "sqrt", "st", "st_async", "st_bulk", "stmatrix", "sub", "szext", "tanh", "tcgen05",
    "tensormap_cp_fenceproxy", "tensormap_replace", "testp", "vote_sync", "wgmma", "xor", NULL};

/* path: "ptx.cp.async_.ca" (the attributes as written) or ptx["cp.async.ca"];
 * family: its first token as PTX spells it ("and" of T.ptx.and_) */
static rval ptx_call(rd *r, const char *path, const char *family, rd_args *a) {
  if (!strcmp(family, "pred") || !strcmp(family, "SINK")) {
    tir_error(r->d, a->sp, "T.ptx.%s (an operand marker of TVM 0.27's PTX dialect) is not supported by tirc", family);
    return rv_err();
  }
  if (!in_list(PTX_FAMILIES, family)) {
    tir_error(r->d, a->sp, "'%s' is not an instruction family of TVM 0.27's T.ptx", family);
    return rv_err();
  }
  if (a->nkw) {
    tir_error(r->d, a->kwsp[0], "T.%s: keyword arguments are not supported (write the operands in order)", path);
    return rv_err();
  }
  for (int i = 0; i < a->npos; i++)
    if (a->pos[i].k == RV_BUFFER) {
      tir_error(r->d, a->pos[i].sp, "a buffer as an operand of T.%s is not supported; pass %s.data or an element",
                path, a->pos[i].buf->name);
      return rv_err();
    }
  tir_expr **args = exprs_of(r, a, 0, NULL);
  if (!args) return rv_err();
  tir_expr *e = tir_call(r->c, TIR_VOID, path, args, a->npos);
  e->span = a->sp;
  return rv_expr(e, a->sp);
}

/* T.ptx["st.weak.shared::cta.b32"](...): the exact-PTX-text form; sp is the string's */
rval rd_ptx_text_call(rd *r, const char *text, tir_span sp, rd_args *a) {
  size_t n = strlen(text);
  bool ok = n > 0 && text[0] != '.' && text[n - 1] != '.';
  for (size_t i = 0; ok && i < n; i++)
    ok = isalnum((unsigned char)text[i]) || text[i] == '_' || text[i] == ':' ||
         (text[i] == '.' && text[i + 1] != '.');
  if (!ok) {
    tir_error(r->d, sp, "T.ptx[...] expects PTX text: dot-separated tokens (\"st.weak.shared::cta.b32\")");
    return rv_err();
  }
  const char *family = rd_first_token(r, text);
  char *path = tir_alloc(r->c, n + 8);
  sprintf(path, "ptx[\"%s\"]", text);
  return ptx_call(r, path, family, a);
}

/* T.metal.* and T.webgpu.*: their arguments by position or keyword, the
 * defaults TVM's wrappers give filled in (col=8, row=8,
 * transpose_matrix=False) */
static bool metal_args(rd *r, const char *name, rd_args *a) {
  static const struct {
    const char *name;
    const char *p[9];
    int required;
  } M[] = {{"metal.make_filled_simdgroup_matrix", {"d", "index", "value", "col", "row"}, 3},
           {"metal.simdgroup_load", {"d", "index", "ptr", "stride", "col", "row", "transpose_matrix"}, 4},
           {"metal.simdgroup_store", {"d", "index", "ptr", "stride", "col", "row", "transpose_matrix"}, 4},
           {"metal.simdgroup_multiply_accumulate", {"d", "index_d", "a", "index_a", "b", "index_b", "c", "index_c"}, 8},
           {"metal.simd_shuffle", {"var", "lane"}, 2},
           {"metal.simd_shuffle_up", {"var", "delta"}, 2},
           {"metal.simd_shuffle_down", {"var", "delta"}, 2},
           {"webgpu.subgroup_shuffle", {"var", "lane"}, 2},
           {"webgpu.subgroup_shuffle_up", {"var", "delta"}, 2},
           {"webgpu.subgroup_shuffle_down", {"var", "delta"}, 2}};
  for (size_t i = 0; i < sizeof M / sizeof M[0]; i++) {
    if (strcmp(name, M[i].name)) continue;
    int m = 0;
    while (m < 9 && M[i].p[m]) m++;
    rval *v = tir_alloc(r->c, sizeof *v * (size_t)m);
    for (int j = 0; j < m; j++) {
      rval *x = rd_arg(a, j, M[i].p[j]);
      if (x) v[j] = *x;
      else if (j >= M[i].required && j < 6) v[j] = (rval){.k = RV_INT, .i = 8, .sp = a->sp};
      else if (j >= M[i].required) v[j] = (rval){.k = RV_BOOL, .i = 0, .sp = a->sp};
      else {
        tir_error(r->d, a->sp, "T.%s expects its argument '%s'", name, M[i].p[j]);
        return false;
      }
    }
    for (int k = 0; k < a->nkw; k++) {
      int j = 0;
      while (j < m && strcmp(a->kw[k], M[i].p[j])) j++;
      if (j == m || j < a->npos) {
        tir_error(r->d, a->kwsp[k], "T.%s takes no keyword argument '%s' here", name, a->kw[k]);
        return false;
      }
    }
    if (a->npos > m) {
      tir_error(r->d, a->sp, "T.%s takes at most %d arguments", name, m);
      return false;
    }
    if (!strcmp(M[i].p[0], "var") && v[0].k == RV_BUFFER && v[0].buf->ndim == 1) {
      /* a buffer shuffles its element 0, as TVM's wrapper reads var[0] */
      rval ix = {.k = RV_TUPLE, .n = 1, .is_list = true, .sp = v[0].sp};
      ix.items = tir_alloc(r->c, sizeof *ix.items);
      ix.items[0] = (rval){.k = RV_INT, .i = 0, .sp = v[0].sp};
      v[0] = rd_buffer_load(r, v[0].buf, ix, v[0].sp);
      if (v[0].k == RV_ERR) return false;
    }
    a->pos = v, a->npos = m, a->nkw = 0;
    return true;
  }
  return true;
}

rval rd_call_t(rd *r, const char *name, TSNode call, rd_args *a) {
  tir_dtype t;
  (void)call;
  for (size_t i = 0; i < sizeof NODE_CTORS / sizeof NODE_CTORS[0]; i++)
    if (!strcmp(name, NODE_CTORS[i].name)) return node_ctor(r, name, NODE_CTORS[i].kind, a);
  for (size_t i = 0; i < sizeof BIT_CTORS / sizeof BIT_CTORS[0]; i++)
    if (!strcmp(name, BIT_CTORS[i].name)) return bit_ctor(r, name, BIT_CTORS[i].op, a);
  if (!strcmp(name, "BitwiseNot")) return unary_ctor(r, a, false);
  if (!strcmp(name, "BufferLoad")) {
    rval *b = rd_arg(a, 0, "buffer"), *ix = rd_arg(a, 1, "indices");
    if (!b || !ix || a->npos + a->nkw != 2 || b->k != RV_BUFFER) {
      tir_error(r->d, a->sp, "T.BufferLoad expects a buffer and a list of indices (a predicate is not supported)");
      return rv_err();
    }
    return rd_buffer_load(r, b->buf, *ix, a->sp);
  }
  if (!strcmp(name, "s_tir.cp_async_raw.legacy")) return cp_async_legacy(r, a);
  dtype_kwarg(r, name, a);
  /* T.call_intrin(..., attrs=None): TVM's default, a call without attributes */
  for (int k = 0; !strcmp(name, "call_intrin") && k < a->nkw; k++)
    if (!strcmp(a->kw[k], "attrs") && a->kwv[k].k == RV_NONE) drop_kwarg(a, k--);
  { /* functions whose keywords are all taken by position above: one left is not theirs (it was dropped) */
    static const char *const NO_KW[] = {"Cast", "cast", "if_then_else", "Select", "Ramp", "ramp", "Broadcast",
                                        "broadcast", "reinterpret", "ceildiv", "call_extern", "call_pure_extern",
                                        "call_intrin", "call_llvm_intrin", "call_llvm_pure_intrin", "likely", NULL};
    if (a->nkw && (in_list(NO_KW, name) || (tir_dtype_parse(name, &t) && strcmp(name, "handle")))) {
      tir_error(r->d, a->kwsp[0], "T.%s takes no keyword argument '%s'", name, a->kw[0]);
      return rv_err();
    }
  }
  /* T.handle("int64", "global") as a type (T.let[T.handle(...)]): a pointer
   * type, which tirc's dtypes hold as handle */
  if (!strcmp(name, "handle") && a->npos >= 1 && a->npos <= 2 && a->pos[0].k == RV_STR &&
      (a->npos == 1 || a->pos[1].k == RV_STR)) {
    rval h = {.k = RV_HANDLE_T, .sp = a->sp, .s = a->npos == 2 ? a->pos[1].s : "global"};
    if (!rd_parse_dtype(r, a->pos[0], &h.dt)) return rv_err();
    return h;
  }
  if (tir_dtype_parse(name, &t)) return lit_or_cast(r, t, a, name);
  /* T.max(v, v) of one object (v = T.meta_var(e)): v, as TVM's op folds
   * a.same_as(b) */
  if ((!strcmp(name, "max") || !strcmp(name, "min")) && a->npos == 2 && !a->nkw && a->pos[0].k == RV_EXPR &&
      a->pos[1].k == RV_EXPR && a->pos[0].e && a->pos[0].e == a->pos[1].e)
    return a->pos[0];
  if (!strcmp(name, "max") || !strcmp(name, "min") || !strcmp(name, "floordiv") ||
      !strcmp(name, "floormod") || !strcmp(name, "truncdiv") || !strcmp(name, "truncmod"))
    return binop_call(r, name, a);
  if (!strcmp(name, "abs")) return abs_call(r, a);
  if (!strcmp(name, "ceildiv")) return ceildiv(r, a);
  if (!strcmp(name, "if_then_else")) return if_then_else(r, a, false);
  if (!strcmp(name, "Select")) return if_then_else(r, a, true);
  if (!strcmp(name, "Cast")) return cast_call(r, a, true);
  if (!strcmp(name, "cast")) return cast_call(r, a, false);
  if (!strcmp(name, "Ramp") || !strcmp(name, "Broadcast")) return vector_call(r, name, a);
  /* TVM 0.27's T.ramp and T.broadcast are the same node classes */
  if (!strcmp(name, "ramp")) return vector_call(r, "Ramp", a);
  if (!strcmp(name, "Shuffle")) return shuffle_call(r, a);
  if (!strcmp(name, "call_ffi_kernel")) return ffi_kernel_call(r, a);
  if (!strcmp(name, "broadcast")) return vector_call(r, "Broadcast", a);
  /* T.meta_var(v): the value itself (an assignment binds it by name, with
   * no let: reader_stmt.c) */
  if (!strcmp(name, "meta_var")) {
    if (a->npos != 1 || a->nkw) {
      tir_error(r->d, a->sp, "T.meta_var expects one value");
      return rv_err();
    }
    return a->pos[0];
  }
  if (!strcmp(name, "TileLayout")) { /* T.TileLayout(T.S[...]) */
    if (a->npos != 1 || a->nkw || a->pos[0].k != RV_LAYOUT || a->pos[0].is_list) {
      if (a->npos != 1 || a->pos[0].k != RV_ERR)
        tir_error(r->d, a->sp, "T.TileLayout expects one T.S[extents:strides] (replicas, offsets and thread axes "
                               "are not supported)");
      return rv_err();
    }
    rval v = a->pos[0];
    v.is_list = true;
    v.sp = a->sp;
    return v;
  }
  if (!strcmp(name, "iter_var")) return iter_var_value(r, a);
  if (!strcmp(name, "Let")) return let_call(r, a);
  if (!strcmp(name, "type_annotation")) return type_annotation(r, a);
  if (!strcmp(name, "min_value") || !strcmp(name, "max_value")) return limit_value(r, a, name[1] == 'a');
  if (!strcmp(name, "infinity")) return infinity_value(r, a);
  if (!strcmp(name, "reinterpret")) return reinterpret(r, a);
  if (!strcmp(name, "target")) return target_call(r, a);
  if (!strcmp(name, "call_extern") || !strcmp(name, "call_pure_extern") || !strcmp(name, "call_intrin") ||
      !strcmp(name, "call_llvm_intrin") || !strcmp(name, "call_llvm_pure_intrin"))
    return extern_call(r, name, a);
  if (!strcmp(name, "vectorlow") || !strcmp(name, "vectorhigh") || !strcmp(name, "vectorcombine") ||
      !strcmp(name, "s_tir.cp_async_raw") || !strcmp(name, "get_active_lane_mask") || !strcmp(name, "masked_load"))
    return dtype_first_call(r, name, a);
  if (!strcmp(name, "Not")) return unary_ctor(r, a, true);
  if (!strcmp(name, "Range")) {
    rval *b = rd_arg(a, 0, "begin"), *e = rd_arg(a, 1, "end");
    if (!b || !e || a->npos + a->nkw != 2) {
      tir_error(r->d, a->sp, "T.Range expects (begin, end)");
      return rv_err();
    }
    if (r->axis_args) { /* T.axis.spatial(T.Range(a, b), v): the pair (a, b) */
      rval *items = tir_alloc(r->c, sizeof *items * 2);
      items[0] = *b, items[1] = *e;
      return (rval){.k = RV_TUPLE, .n = 2, .items = items, .sp = a->sp};
    }
    /* a Range as a value (an annotation, an attr's node, an iter_var's
     * domain): begin and end as written, int exprs of one dtype (Python
     * ints int32, as TVM's Range makes them) */
    tir_expr *eb = rd_as_expr(r, *b), *ee = eb ? rd_as_expr(r, *e) : NULL;
    if (!eb || !ee) return rv_err();
    if (!tir_dtype_is_int(eb->dtype) || !tir_dtype_is_int(ee->dtype) || eb->dtype.lanes != 1 || ee->dtype.lanes != 1) {
      tir_error(r->d, a->sp, "T.Range expects integer begin and end");
      return rv_err();
    }
    if (!tir_dtype_eq(eb->dtype, ee->dtype)) {
      char s1[32], s2[32];
      tir_error(r->d, a->sp, "T.Range of %s and %s: begin and end of one dtype are supported",
                tir_dtype_str(eb->dtype, s1), tir_dtype_str(ee->dtype, s2));
      return rv_err();
    }
    tir_attr_val *items[2] = {tir_av_expr(r->c, eb), tir_av_expr(r->c, ee)};
    tir_attr_val *d = tir_av_list(r->c, items, 2);
    d->kind = TIR_AV_RANGE;
    return (rval){.k = RV_ATTR, .sp = a->sp, .av = d};
  }
  if (!strcmp(name, "IntImm") || !strcmp(name, "FloatImm")) return imm_ctor(r, name, a);
  if (!strcmp(name, "llvm_lookup_intrinsic_id")) {
    if (a->npos != 1 || a->nkw || a->pos[0].k != RV_STR || strncmp(a->pos[0].s, "llvm.", 5)) {
      tir_error(r->d, a->sp, "T.llvm_lookup_intrinsic_id expects an LLVM intrinsic's name (\"llvm....\")");
      return rv_err();
    }
    rval v = a->pos[0];
    v.llvm_id = true;
    v.sp = a->sp;
    return v;
  }
  if (!strcmp(name, "tvm_struct_get")) return struct_get(r, a);
  if (!strcmp(name, "address_of") && a->npos == 1 && !a->nkw && a->pos[0].k == RV_BUFFER) {
    /* T.address_of(A): TVM's of A[0, ..., 0] */
    tir_buffer *b = a->pos[0].buf;
    rval ix = {.k = RV_TUPLE, .n = b->ndim, .is_list = true, .sp = a->sp};
    ix.items = tir_alloc(r->c, sizeof *ix.items * (size_t)b->ndim);
    for (int i = 0; i < b->ndim; i++) ix.items[i] = (rval){.k = RV_INT, .i = 0, .sp = a->sp};
    rval ld = rd_buffer_load(r, b, ix, a->sp);
    if (ld.k == RV_ERR) return ld;
    a->pos[0] = ld;
  }
  if (tir_intrin_lookup(name) && tir_intrin_call_intrin_only(tir_intrin_lookup(name))) {
    if (!strcmp(name, "buffer_offset")) /* TVM prints it so, but reads A.elem_offset_of([i, j]) */
      tir_error(r->d, a->sp, "TVM has no T.buffer_offset (its print of A.elem_offset_of([i, j])): write "
                             "A.elem_offset_of([i, j]) or T.call_intrin(dtype, \"tirx.buffer_offset\", ...)");
    else
      tir_error(r->d, a->sp, "TVM has no T.%s: write T.call_intrin(dtype, \"tirx.%s\", ...)", name, name);
    return rv_err();
  }
  if ((!strncmp(name, "metal.", 6) || !strncmp(name, "webgpu.", 7)) && tir_intrin_lookup(name) &&
      !metal_args(r, name, a))
    return rv_err();
  if (!strcmp(name, "cuda.func_call")) return cuda_func_call(r, a);
  if (tir_intrin_lookup(name)) return table_call(r, name, a);
  if (rd_is_known_t_name(r, name)) {
    tir_error(r->d, a->sp, "T.%s is a statement and cannot be used inside an expression", name);
    return rv_err();
  }
  if (!strncmp(name, "ptx.", 4)) {
    char *family = (char *)rd_first_token(r, name + 4);
    size_t fl = strlen(family);
    if (fl > 1 && family[fl - 1] == '_') family[fl - 1] = 0; /* T.ptx.and_: Python's keyword escaped */
    return ptx_call(r, name, family, a);
  }
  rd_unknown_t(r, name, a->sp);
  return rv_err();
}

/* Python's builtins that TVM's parser evaluates in Python, over Python
 * values: len of a tuple, list, dict or string; int, float and bool of a
 * number; abs of a number; dict(k=v, ...); sum of a tuple or list (0 +
 * each item, TIR values too, as Python adds them).  false: not one of them */

/* Python's float() of a string: surrounding blanks, then nan, inf or
 * infinity (any case, signed) or a decimal literal (no hex, no underscores:
 * refused) */
static bool py_float_of_str(const char *str, double *f) {
  while (*str == ' ' || *str == '\t' || *str == '\n' || *str == '\r' || *str == '\f' || *str == '\v') str++;
  size_t n = strlen(str);
  while (n && (str[n - 1] == ' ' || str[n - 1] == '\t' || str[n - 1] == '\n' || str[n - 1] == '\r' ||
               str[n - 1] == '\f' || str[n - 1] == '\v'))
    n--;
  if (!n || n > 400) return false;
  char buf[402];
  memcpy(buf, str, n);
  buf[n] = 0;
  const char *w = buf + (buf[0] == '+' || buf[0] == '-');
  double sign = buf[0] == '-' ? -1.0 : 1.0;
  if (!strcasecmp(w, "nan")) {
    *f = NAN;
    return true;
  }
  if (!strcasecmp(w, "inf") || !strcasecmp(w, "infinity")) {
    *f = sign * INFINITY;
    return true;
  }
  for (const char *c = w; *c; c++)
    if (!((*c >= '0' && *c <= '9') || *c == '.' || *c == 'e' || *c == 'E' || *c == '+' || *c == '-')) return false;
  char *end;
  *f = strtod(buf, &end);
  return end == buf + n && end != buf;
}

/* Python's str() of a float: its repr, the shortest digits that read back
 * (fixed notation for exponents -4 to 15, as Python writes them) */
static void py_float_repr(double f, char *out, size_t cap) {
  if (isnan(f) || isinf(f)) {
    snprintf(out, cap, "%s", isnan(f) ? "nan" : f > 0 ? "inf" : "-inf");
    return;
  }
  char buf[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec - 1, f);
    if (strtod(buf, NULL) == f) break;
  }
  char d[24];
  int nd = 0;
  const char *c = buf + (buf[0] == '-');
  for (; *c && *c != 'e'; c++)
    if (*c >= '0' && *c <= '9') d[nd++] = *c;
  while (nd > 1 && d[nd - 1] == '0') nd--;
  d[nd] = 0;
  int ex = atoi(c + 1);
  char o[64];
  int k = 0;
  if (signbit(f)) o[k++] = '-';
  if (ex >= 16 || ex < -4) { /* d.ddde+XX */
    o[k++] = d[0];
    if (nd > 1) {
      o[k++] = '.';
      for (int i = 1; i < nd; i++) o[k++] = d[i];
    }
    snprintf(o + k, sizeof o - (size_t)k, "e%c%02d", ex < 0 ? '-' : '+', ex < 0 ? -ex : ex);
  } else if (ex < 0) { /* 0.000ddd */
    o[k++] = '0', o[k++] = '.';
    for (int i = 0; i < -ex - 1; i++) o[k++] = '0';
    for (int i = 0; i < nd; i++) o[k++] = d[i];
    o[k] = 0;
  } else { /* ddd.ddd, ddd00.0 */
    for (int i = 0; i <= ex || i < nd; i++) {
      if (i == ex + 1) o[k++] = '.';
      o[k++] = i < nd ? d[i] : '0';
    }
    if (ex >= nd - 1) o[k++] = '.', o[k++] = '0';
    o[k] = 0;
  }
  snprintf(out, cap, "%s", o);
}

static bool py_builtin(rd *r, const char *name, TSNode call, rval *out) {
  static const char *const NAMES[] = {"len",  "int",   "float", "bool", "abs",   "dict",
                                      "sum",  "str",   "tuple", "list", "slice", NULL};
  if (!in_list(NAMES, name)) return false;
  rd_args a;
  *out = rv_err();
  if (!strcmp(name, "tuple") || !strcmp(name, "list")) { /* tuple(range(3)), list(t), tuple("ab") */
    TSNode args = rd_field(call, "arguments");
    uint32_t na = rd_is(args, "argument_list") ? rd_child_count(args) : 0;
    TSNode x = na == 1 ? rd_child(args, 0) : (TSNode){0};
    if (na > 1 || (na == 1 && (rd_is(x, "keyword_argument") || rd_is(x, "list_splat") ||
                                 rd_is(x, "dictionary_splat") || rd_is(x, "generator_expression")))) {
      tir_error(r->d, rd_span(call), "Python's %s takes one tuple, list, string or range(...) here", name);
      return true;
    }
    rval v = {.k = RV_TUPLE, .is_list = name[0] == 'l', .sp = rd_span(call)};
    if (na == 1 && !rd_iter_items(r, x, &v.items, &v.n)) return true;
    if (na == 0) v.items = tir_alloc(r->c, sizeof *v.items);
    *out = v;
    return true;
  }
  if (!rd_eval_call_args(r, call, &a)) return true;
  a.sp = rd_span(call);
  if (!strcmp(name, "dict")) {
    if (a.npos) {
      tir_error(r->d, a.sp, "dict() takes keyword arguments here");
      return true;
    }
    rval d = {.k = RV_DICT, .n = a.nkw, .sp = a.sp};
    d.keys = tir_alloc(r->c, sizeof *d.keys * (size_t)(a.nkw + 1));
    d.items = tir_alloc(r->c, sizeof *d.items * (size_t)(a.nkw + 1));
    for (int i = 0; i < a.nkw; i++) {
      d.keys[i] = (rval){.k = RV_STR, .s = a.kw[i], .sp = a.kwsp[i]};
      d.items[i] = a.kwv[i];
    }
    *out = d;
    return true;
  }
  if (!strcmp(name, "slice")) { /* slice(stop), slice(start, stop[, step]): T.buffer_store's vector index */
    if (a.npos < 1 || a.npos > 3 || a.nkw) {
      tir_error(r->d, a.sp, "Python's slice takes (stop) or (start, stop[, step])");
      return true;
    }
    rval sl = {.k = RV_SLICE, .n = 3, .sp = a.sp, .items = tir_alloc(r->c, sizeof(rval) * 3)};
    for (int i = 0; i < 3; i++) sl.items[i] = (rval){.k = RV_NONE, .sp = a.sp};
    for (int i = 0; i < a.npos; i++) {
      if (a.pos[i].k == RV_ERR) return true;
      sl.items[a.npos == 1 ? 1 : i] = a.pos[i];
    }
    *out = sl;
    return true;
  }
  if (a.npos != 1 || a.nkw) {
    tir_error(r->d, a.sp, "Python's %s takes one argument here", name);
    return true;
  }
  rval x = a.pos[0];
  bool num = x.k == RV_INT || x.k == RV_FLOAT || x.k == RV_BOOL;
  if (!strcmp(name, "len")) {
    if (x.k == RV_TUPLE || x.k == RV_DICT) *out = (rval){.k = RV_INT, .i = x.n, .sp = a.sp};
    else if (x.k == RV_STR) { /* Python's length: code points, not UTF-8 bytes */
      int64_t n = 0;
      for (const unsigned char *c = (const unsigned char *)x.s; *c; c++) n += (*c & 0xC0) != 0x80;
      *out = (rval){.k = RV_INT, .i = n, .sp = a.sp};
    }
    else tir_error(r->d, x.sp, "len() takes a tuple, list, dict or string here");
    return true;
  }
  if (!strcmp(name, "sum")) {
    if (x.k != RV_TUPLE) {
      tir_error(r->d, x.sp, "sum() takes a tuple or list here");
      return true;
    }
    bool nums = true; /* Python numbers fold as they are added: no chain */
    for (int i = 0; i < x.n && nums; i++) nums = x.items[i].k == RV_INT || x.items[i].k == RV_FLOAT || x.items[i].k == RV_BOOL;
    if (x.n > 200 && !nums) { /* a chain of as many nested +: the reader's nesting limit */
      tir_error(r->d, x.sp, "sum() of %d items: expression nested too deeply (more than 200 levels)", x.n);
      return true;
    }
    rval v = {.k = RV_INT, .i = 0, .sp = a.sp};
    for (int i = 0; i < x.n && v.k != RV_ERR; i++) v = rd_binop(r, "+", v, x.items[i], a.sp);
    *out = v;
    return true;
  }
  if (x.k == RV_BIGINT) { /* a Python int past int64 */
    __int128 v = rd_big_of(x);
    char buf[48];
    if (!strcmp(name, "str")) {
      rd_big_str(v, buf);
      *out = (rval){.k = RV_STR, .s = tir_strdup(r->c, buf), .sp = a.sp};
    } else if (!strcmp(name, "float")) *out = (rval){.k = RV_FLOAT, .f = (double)v, .sp = a.sp};
    else if (!strcmp(name, "bool")) *out = (rval){.k = RV_BOOL, .i = 1, .sp = a.sp};
    else if (!strcmp(name, "int")) *out = x;
    else if (!strcmp(name, "abs")) *out = rd_big_val(v < 0 ? -v : v, a.sp);
    else {
      rd_big_str(v, buf);
      tir_error(r->d, x.sp, "Python's %s of the int %s (past int64) is not supported", name, buf);
    }
    return true;
  }
  if (!strcmp(name, "str")) { /* str(4) is "4", as the module's Python makes it */
    char buf[64];
    if (x.k == RV_STR) {
      *out = x;
      return true;
    }
    if (x.k == RV_INT) snprintf(buf, sizeof buf, "%lld", (long long)x.i);
    else if (x.k == RV_BOOL) snprintf(buf, sizeof buf, "%s", x.i ? "True" : "False");
    else if (x.k == RV_NONE) snprintf(buf, sizeof buf, "None");
    else if (x.k == RV_FLOAT) py_float_repr(x.f, buf, sizeof buf);
    else {
      tir_error(r->d, x.sp, "str() takes a Python number, bool, string or None here (TIR values print otherwise)");
      return true;
    }
    *out = (rval){.k = RV_STR, .s = tir_strdup(r->c, buf), .sp = a.sp};
    return true;
  }
  if (!strcmp(name, "float") && x.k == RV_STR) { /* float("nan"), float("-inf"), float("1.5") */
    if (!py_float_of_str(x.s, &out->f)) {
      tir_error(r->d, x.sp, "float() of this string is not a number tirc reads (a decimal, \"nan\" or \"inf\")");
      return true;
    }
    out->k = RV_FLOAT;
    out->sp = a.sp;
    return true;
  }
  if (!num) {
    tir_error(r->d, x.sp, "Python's %s takes a Python number here (TVM evaluates it in Python)", name);
    return true;
  }
  double f = x.k == RV_FLOAT ? x.f : (double)x.i;
  if (!strcmp(name, "int")) {
    if (x.k == RV_FLOAT && !(f >= -9223372036854775808.0 && f < 9223372036854775808.0)) {
      tir_error(r->d, x.sp, "int() of %g is out of range", f);
      return true;
    }
    *out = (rval){.k = RV_INT, .i = x.k == RV_FLOAT ? (int64_t)f : x.i, .sp = a.sp};
  } else if (!strcmp(name, "float")) {
    *out = (rval){.k = RV_FLOAT, .f = f, .sp = a.sp};
  } else if (!strcmp(name, "bool")) {
    *out = (rval){.k = RV_BOOL, .i = f != 0, .sp = a.sp};
  } else { /* abs */
    if (x.k == RV_FLOAT) *out = (rval){.k = RV_FLOAT, .f = fabs(f), .sp = a.sp};
    else if (x.i == INT64_MIN) tir_error(r->d, x.sp, "abs() of %lld is out of range", (long long)x.i);
    else *out = (rval){.k = RV_INT, .i = x.i < 0 ? -x.i : x.i, .sp = a.sp};
  }
  return true;
}

/* ---- buf.access_ptr(mask, ptr_type="handle", content_lanes=1, offset=0, extent=None) ---- */

static bool rw_mask(rd *r, rval v, int64_t *mask) {
  if (v.k == RV_INT) {
    *mask = v.i;
    if (v.i >= 1 && v.i <= 3) return true;
  } else if (v.k == RV_STR) {
    *mask = 0;
    for (const char *p = v.s; *p; p++) {
      if (*p == 'r') *mask |= 1;
      else if (*p == 'w') *mask |= 2;
      else { *mask = 0; break; }
    }
    if (*mask) return true;
  }
  tir_error(r->d, v.sp, "access_ptr mask must be \"r\", \"w\" or \"rw\"");
  return false;
}

static rval access_ptr(rd *r, tir_buffer *b, rd_args *a) {
  /* Buffer.access_ptr(access_mask, ptr_type, content_lanes, offset, extent) */
  static const char *const known[] = {"access_mask", "ptr_type", "content_lanes", "offset", "extent", NULL};
  for (int i = 0; i < a->nkw; i++) {
    bool ok = false;
    for (int k = 0; known[k] && !ok; k++) ok = !strcmp(a->kw[i], known[k]) && k >= a->npos;
    if (!ok) {
      tir_error(r->d, a->kwsp[i], "access_ptr takes no keyword argument '%s'%s", a->kw[i],
                " (access_mask, ptr_type, content_lanes, offset, extent)");
      return rv_err();
    }
  }
  if (a->npos > 5) {
    tir_error(r->d, a->pos[5].sp, "access_ptr takes at most 5 arguments, got %d", a->npos);
    return rv_err();
  }
  rval *m = rd_arg(a, 0, "access_mask");
  int64_t mask;
  if (!m) {
    tir_error(r->d, a->sp, "access_ptr expects an access mask (\"r\", \"w\" or \"rw\")");
    return rv_err();
  }
  if (!rw_mask(r, *m, &mask)) return rv_err();
  rval *pt = rd_arg(a, 1, "ptr_type");
  const char *pts = pt ? rd_as_str(r, *pt, "ptr_type") : "handle";
  if (!pts) return rv_err();
  /* ptr_type="float16": the call's type is a pointer to float16 (TVM's
   * PointerType(PrimType("float16")), its scope "global") */
  tir_dtype ptr_elem = {0};
  if (strcmp(pts, "handle") && !rd_parse_dtype(r, *pt, &ptr_elem)) return rv_err();
  rval *cl = rd_arg(a, 2, "content_lanes");
  int64_t lanes = 1;
  if (cl && !rd_as_int(r, *cl, &lanes, "content_lanes")) return rv_err();
  if (lanes < 1 || lanes >= TIR_LANES_SCALABLE) {
    tir_error(r->d, cl->sp, "access_ptr content_lanes %lld is not supported here", (long long)lanes);
    return rv_err();
  }
  tir_dtype it = b->elem_offset->dtype;
  /* the offset and an explicit extent keep their own dtypes (a Python int
   * is int32, T.int64(4) int64), and the sums promote as TVM's operators
   * do: Buffer::access_ptr computes elem_offset + offset and, by default,
   * strides[0] * shape[0] (or the product of the shape) - offset */
  rval *ov = rd_arg(a, 3, "offset");
  if (ov && !rd_int_valued(r, *ov, "an access_ptr offset")) return rv_err();
  tir_expr *off = ov ? rd_as_expr(r, *ov) : tir_int(r->c, TIR_INT32, 0);
  if (!off) return rv_err();
  rval *ev = rd_arg(a, 4, "extent");
  tir_expr *ext;
  if (ev && ev->k != RV_NONE) {
    if (!rd_int_valued(r, *ev, "an access_ptr extent") || !(ext = rd_as_expr(r, *ev))) return rv_err();
  } else if (b->ndim == 0) { /* a rank-0 buffer: one element, whatever the offset (TVM's int64 1), in vectors of content_lanes */
    ext = tir_int(r->c, TIR_INT64, 1);
    if (lanes > 1 && !(ext = rd_bin_expr(r, TIR_DIV, ext, tir_int(r->c, it, lanes)))) return rv_err();
  } else {
    if (b->nstrides > 0 && b->ndim > 0) {
      ext = rd_bin_expr(r, TIR_MUL, b->strides[0], b->shape[0]);
    } else {
      ext = b->ndim ? b->shape[0] : tir_int(r->c, it, 1);
      for (int i = 1; i < b->ndim; i++) ext = rd_bin_expr(r, TIR_MUL, ext, b->shape[i]);
    }
    if (!ext || !(ext = rd_bin_expr(r, TIR_SUB, ext, off))) return rv_err();
    /* content_lanes: the extent in vectors of that many elements (TVM's
     * Buffer::access_ptr divides it) */
    if (lanes > 1 && !(ext = rd_bin_expr(r, TIR_DIV, ext, tir_int(r->c, it, lanes)))) return rv_err();
  }
  /* with content_lanes, TVM's base is elem_offset / lanes: the offset is
   * left out of it (as TVM 0.27 computes it) */
  tir_expr *base = lanes > 1 ? rd_bin_expr(r, TIR_DIV, b->elem_offset, tir_int(r->c, it, lanes))
                             : rd_bin_expr(r, TIR_ADD, b->elem_offset, off);
  if (!base) return rv_err();
  tir_dtype at = b->dtype; /* a vector buffer's own lanes, or content_lanes (TVM's Buffer::access_ptr) */
  if (lanes > 1) at.lanes = (int)lanes;
  tir_expr *args[5] = {tir_call(r->c, at, "type_annotation", NULL, 0), b->data, base, ext,
                       tir_i32(r->c, mask)};
  rval v = checked_call(r, "tvm_access_ptr", TIR_VOID, args, 5, a->sp);
  if (v.k == RV_EXPR && ptr_elem.bits) v.e->u.call.ptr_elem = ptr_elem;
  return v;
}

/* T.comm_reducer(lambda x0, .., y0, ..: result or (results), [identity, ..]):
 * the lambda's first half of parameters is lhs, the second rhs, each typed
 * as its identity (a Python int is int32), as TVM's comm_reducer makes them */
/* ---- buf.vload(indices, dtype) / buf.vstore(indices, value) ----
 * TVM's: the last index is the start of `lanes` consecutive elements (a
 * Ramp), the others are points.  A load of those elements (lanes of the
 * buffer's element type), or NULL with an error. */
tir_expr *rd_vector_access(rd *r, tir_buffer *b, rval ix, int lanes, tir_span sp) {
  int n = ix.k == RV_TUPLE ? ix.n : 1;
  if (n != b->ndim || n < 1) {
    tir_error(r->d, sp, "%s has %d dimensions, and %d indices are given", b->name, b->ndim, n);
    return NULL;
  }
  if (lanes < 1 || lanes >= TIR_LANES_SCALABLE || b->dtype.lanes != 1) {
    tir_error(r->d, sp, "%s: a vector access of %d lanes is not supported here", b->name, lanes);
    return NULL;
  }
  tir_expr **idx = rd_tmp(r, sizeof *idx * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    rval v = ix.k == RV_TUPLE ? ix.items[i] : ix;
    /* a Python float is a float32 index, refused below (it had been cut to an int) */
    tir_expr *e = v.k == RV_EXPR || v.k == RV_FLOAT ? rd_as_expr(r, v) : rd_convert(r, v, TIR_INT32);
    if (!e) return NULL;
    /* a vector index (a Ramp) already names the lanes, as TVM keeps it */
    bool vec = i == n - 1 && e->dtype.lanes == lanes && lanes > 1;
    if (!tir_dtype_is_int(e->dtype) || (e->dtype.lanes != 1 && !vec)) {
      tir_error(r->d, v.sp, "an index of %s must be a scalar integer%s", b->name, i == n - 1 ? " or a vector of the lanes" : "");
      return NULL;
    }
    idx[i] = i == n - 1 && lanes > 1 && !vec ? tir_ramp(r->c, e, tir_int(r->c, e->dtype, 1), lanes) : e;
  }
  tir_expr *ld = tir_load(r->c, b, idx, n);
  ld->span = sp;
  return ld;
}

/* ---- T.index_map(lambda i, j: (...), inverse_index_map=lambda ..., index_dtype="int64") ---- */

typedef struct {
  const tir_expr *const *params;
  int n;
  const tir_expr *bad;
} im_foreign;

static bool im_expr(tir_visitor *v, const tir_expr *e) {
  im_foreign *f = v->user;
  if (f->bad) return false;
  if (e->kind == TIR_BUFFER_LOAD) f->bad = e;
  if (e->kind == TIR_VAR) {
    bool own = false;
    for (int i = 0; i < f->n; i++) own |= f->params[i] == e;
    if (!own) f->bad = e;
  }
  return !f->bad;
}

/* lambda p0, p1: (r0, r1) as an INDEX_MAP of nres results (-1: any) */
static tir_attr_val *index_lambda(rd *r, TSNode fn, tir_dtype it, int nres) {
  if (!rd_is(fn, "lambda")) {
    tir_error(r->d, rd_span(fn), "T.index_map expects a lambda");
    return NULL;
  }
  TSNode params = rd_field(fn, "parameters");
  uint32_t np = ts_node_is_null(params) ? 0 : rd_child_count(params);
  tir_expr **x = rd_tmp(r, sizeof *x * (size_t)(np + 1));
  int mark = r->nsyms;
  for (uint32_t i = 0; i < np; i++) {
    TSNode p = rd_child(params, i);
    if (!rd_is(p, "identifier")) {
      tir_error(r->d, rd_span(p), "T.index_map's lambda parameters must be plain names");
      rd_pop_syms(r, mark);
      return NULL;
    }
    x[i] = tir_var(r->c, rd_text(r, p), it);
    x[i]->span = rd_span(p);
    rd_push_sym(r, x[i]->u.var.name, rv_expr(x[i], x[i]->span));
  }
  rval body = rd_eval(r, rd_field(fn, "body"));
  rd_pop_syms(r, mark);
  if (body.k == RV_ERR) return NULL;
  int n = body.k == RV_TUPLE ? body.n : 1;
  if (nres >= 0 && n != nres) {
    tir_error(r->d, body.sp, "T.index_map's inverse gives %d value(s) for the map's %d parameter(s)", n, nres);
    return NULL;
  }
  tir_attr_val **pv = rd_tmp(r, sizeof *pv * (size_t)(np + 1)), **rv = rd_tmp(r, sizeof *rv * (size_t)(n + 1));
  for (uint32_t i = 0; i < np; i++) pv[i] = tir_av_expr(r->c, x[i]);
  for (int i = 0; i < n; i++) {
    rval v = body.k == RV_TUPLE ? body.items[i] : body;
    /* a Python int takes the index dtype, as TVM's IndexMap.from_func */
    tir_expr *e = v.k == RV_EXPR ? rd_as_expr(r, v) : rd_convert(r, v, it);
    if (!e) return NULL;
    im_foreign f = {(const tir_expr *const *)x, (int)np, NULL};
    tir_visitor vis = {.expr = im_expr, .user = &f};
    tir_visit_expr(&vis, e);
    if (f.bad) {
      if (f.bad->kind == TIR_VAR)
        tir_error(r->d, v.sp, "T.index_map's lambda uses '%s', which is not one of its parameters", f.bad->u.var.name);
      else
        tir_error(r->d, v.sp, "T.index_map's lambda loads from buffer '%s'", f.bad->u.load.buf->name);
      return NULL;
    }
    rv[i] = tir_av_expr(r->c, e);
  }
  tir_attr_val *items[3] = {tir_av_list(r->c, pv, (int)np), tir_av_list(r->c, rv, n), NULL};
  tir_attr_val *m = tir_av_list(r->c, items, 2);
  m->kind = TIR_AV_INDEX_MAP;
  return m;
}

static rval index_map(rd *r, TSNode call) {
  tir_span sp = rd_span(call);
  TSNode args = rd_field(call, "arguments");
  uint32_t na = rd_child_count(args);
  TSNode fn = {0}, inv = {0};
  bool have_fn = false, have_inv = false;
  tir_dtype it = TIR_INT64;
  for (uint32_t i = 0; i < na; i++) {
    TSNode c = rd_child(args, i);
    if (!rd_is(c, "keyword_argument")) {
      if (have_fn) {
        tir_error(r->d, rd_span(c), "T.index_map takes one positional argument, the lambda");
        return rv_err();
      }
      fn = c, have_fn = true;
      continue;
    }
    const char *k = rd_text(r, rd_field(c, "name"));
    TSNode val = rd_field(c, "value");
    if (!strcmp(k, "mapping") && !have_fn) {
      fn = val, have_fn = true;
    } else if (!strcmp(k, "inverse_index_map")) {
      inv = val, have_inv = true;
    } else if (!strcmp(k, "index_dtype")) {
      rval dv = rd_eval(r, val);
      if (dv.k == RV_ERR || !rd_parse_dtype(r, dv, &it)) return rv_err();
      if (!tir_dtype_is_int(it) || it.lanes != 1) {
        tir_error(r->d, dv.sp, "T.index_map's index_dtype must be an integer type");
        return rv_err();
      }
    } else {
      tir_error(r->d, rd_span(c), "T.index_map has no argument '%s' (it takes mapping=, inverse_index_map=, index_dtype=)", k);
      return rv_err();
    }
  }
  if (!have_fn) {
    tir_error(r->d, sp, "T.index_map expects (lambda i, j: (...))");
    return rv_err();
  }
  tir_attr_val *m = index_lambda(r, fn, it, -1);
  if (!m) return rv_err();
  if (have_inv) {
    tir_attr_val *iv = index_lambda(r, inv, it, m->items[0]->n);
    if (!iv) return rv_err();
    if (iv->items[0]->n != m->items[1]->n) {
      tir_error(r->d, rd_span(inv), "T.index_map's inverse takes %d parameter(s) for the map's %d result(s)",
                iv->items[0]->n, m->items[1]->n);
      return rv_err();
    }
    tir_attr_val *items[3] = {m->items[0], m->items[1], iv};
    tir_attr_val *m3 = tir_av_list(r->c, items, 3);
    m3->kind = TIR_AV_INDEX_MAP;
    m = m3;
  }
  rval v = {.k = RV_ATTR, .sp = sp, .av = m};
  return v;
}

/* the argument nodes of a call whose parameters are names[0..m), given
 * positionally or by keyword (TVM's frames take both: T.If(condition=c),
 * T.iter_var(v=tx, dom=..., ...)): out[i] the value node of parameter i
 * (a null node where not given); the number given, or -1 with an error
 * (an unknown or repeated keyword, a positional one after a keyword) */
int rd_arg_nodes(rd *r, TSNode args, const char *const *names, int m, TSNode *out) {
  for (int i = 0; i < m; i++) out[i] = (TSNode){0};
  uint32_t cnt = rd_child_count(args);
  int given = 0;
  bool kw = false;
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = rd_child(args, i);
    if (rd_is_extra(c)) continue;
    int slot = -1;
    if (rd_is(c, "keyword_argument")) {
      const char *k = rd_text(r, rd_field(c, "name"));
      for (int j = 0; j < m && slot < 0; j++)
        if (!strcmp(k, names[j])) slot = j;
      if (slot < 0 || !ts_node_is_null(out[slot])) {
        tir_error(r->d, rd_span(c), slot < 0 ? "unknown keyword argument '%s'" : "argument '%s' is given twice", k);
        return -1;
      }
      kw = true;
      c = rd_field(c, "value");
    } else {
      if (kw) {
        tir_error(r->d, rd_span(c), "a positional argument follows a keyword argument");
        return -1;
      }
      slot = given < m ? given : -1;
      if (slot < 0) return (int)cnt; /* more than m: the caller's count check reports it */
    }
    out[slot] = c;
    given++;
  }
  return given;
}



static rval comm_reducer(rd *r, TSNode call) {
  tir_span sp = rd_span(call);
  static const char *const P[] = {"combiner", "identity"};
  TSNode an[2];
  int na = rd_arg_nodes(r, rd_field(call, "arguments"), P, 2, an);
  if (na < 0) return rv_err();
  TSNode fn = an[0], ids = an[1];
  if (na != 2 || ts_node_is_null(fn) || ts_node_is_null(ids) || !rd_is(fn, "lambda")) {
    tir_error(r->d, sp, "T.comm_reducer expects (lambda x, y: combined, [identity])");
    return rv_err();
  }
  rval idv = rd_eval(r, ids);
  if (idv.k == RV_ERR) return idv;
  if (idv.k != RV_TUPLE || idv.n < 1) {
    tir_error(r->d, idv.sp, "T.comm_reducer's identity must be a list of one or more constants");
    return rv_err();
  }
  int n = idv.n;
  tir_expr **id = rd_tmp(r, sizeof *id * (size_t)n), **x = rd_tmp(r, sizeof *x * (size_t)(2 * n)),
           **res = rd_tmp(r, sizeof *res * (size_t)n);
  for (int i = 0; i < n; i++) {
    if (!(id[i] = rd_as_expr(r, idv.items[i]))) return rv_err();
    if (!tir_is_constant_valued(id[i])) {
      tir_error(r->d, idv.items[i].sp, "T.comm_reducer's identity must be constants");
      return rv_err();
    }
  }
  TSNode params = rd_field(fn, "parameters");
  uint32_t np = ts_node_is_null(params) ? 0 : rd_child_count(params);
  if (np != (uint32_t)(2 * n)) {
    tir_error(r->d, rd_span(fn), "T.comm_reducer's lambda takes %u parameters; it needs two for each identity value (%d)",
              np, n);
    return rv_err();
  }
  int mark = r->nsyms;
  for (uint32_t i = 0; i < np; i++) {
    TSNode p = rd_child(params, i);
    if (!rd_is(p, "identifier")) {
      tir_error(r->d, rd_span(p), "T.comm_reducer's lambda parameters must be plain names");
      rd_pop_syms(r, mark);
      return rv_err();
    }
    x[i] = tir_var(r->c, rd_text(r, p), id[i % (uint32_t)n]->dtype);
    x[i]->span = rd_span(p);
    rd_push_sym(r, x[i]->u.var.name, rv_expr(x[i], x[i]->span));
  }
  rval body = rd_eval(r, rd_field(fn, "body"));
  rd_pop_syms(r, mark);
  if (body.k == RV_ERR) return body;
  int nres = body.k == RV_TUPLE && !body.is_list ? body.n : 1;
  if (nres != n) {
    tir_error(r->d, body.sp, "T.comm_reducer's lambda gives %d value(s), and its identity has %d", nres, n);
    return rv_err();
  }
  for (int i = 0; i < n; i++) {
    rval v = nres == 1 && !(body.k == RV_TUPLE && !body.is_list) ? body : body.items[i];
    /* a Python number takes the identity's dtype; an expr keeps its own */
    if (!(res[i] = v.k == RV_EXPR ? rd_as_expr(r, v) : rd_convert(r, v, id[i]->dtype))) return rv_err();
    if (!tir_dtype_eq(res[i]->dtype, id[i]->dtype)) {
      char a[32], b[32];
      tir_error(r->d, v.sp, "T.comm_reducer: result %d is %s, and its identity %s", i, tir_dtype_str(res[i]->dtype, a),
                tir_dtype_str(id[i]->dtype, b));
      return rv_err();
    }
  }
  tir_expr *e = tir_comm_reducer(r->c, x, x + n, res, id, n);
  e->span = sp;
  const tir_expr *bad = tir_comm_reducer_foreign(e);
  if (bad) {
    if (bad->kind == TIR_VAR)
      tir_error(r->d, sp, "T.comm_reducer's lambda uses '%s', which is not one of its parameters", bad->u.var.name);
    else
      tir_error(r->d, sp, "T.comm_reducer's lambda loads from buffer '%s'", bad->u.load.buf->name);
    return rv_err();
  }
  return rv_expr(e, sp);
}

const TSLanguage *tree_sitter_python(void);

/* the return annotation of a function of a class read in chunks, from its
 * text (the function's own tree may not be parsed yet): parsed in place */
static rval ret_of_text(rd *r, const struct rd_gfunc *g) {
  if (!r->sub_parser) {
    r->sub_parser = ts_parser_new();
    ts_parser_set_language(r->sub_parser, tree_sitter_python());
  }
  TSRange range = {.start_point = g->ret_pt,
                   .end_point = {g->ret_pt.row, g->ret_pt.column + g->ret_len},
                   .start_byte = g->ret_at,
                   .end_byte = g->ret_at + g->ret_len};
  tir_span sp = {(int)g->ret_pt.row + 1, (int)g->ret_pt.column + 1};
  const char *q = r->src + g->ret_at;
  if (g->ret_len >= 2 && (q[0] == '"' || q[0] == '\'') && q[g->ret_len - 1] == q[0] &&
      !memchr(q + 1, '\\', g->ret_len - 2) && !memchr(q + 1, q[0], g->ret_len - 2)) /* "int64": a dtype's name */
    return (rval){.k = RV_STR, .s = tir_strndup(r->c, q + 1, g->ret_len - 2), .sp = sp};
  if (!ts_parser_set_included_ranges(r->sub_parser, &range, 1)) return rv_err();
  ts_parser_set_timeout_micros(r->sub_parser, rd_parse_budget(g->ret_len));
  TSTree *t = ts_parser_parse_string(r->sub_parser, NULL, r->src, (uint32_t)r->len);
  if (!t) {
    tir_error(r->d, sp, "cannot read the return annotation of '%s'", g->name);
    return rv_err();
  }
  TSNode root = ts_tree_root_node(t), st = rd_child(root, 0);
  TSNode x = rd_is(st, "expression_statement") && rd_child_count(st) == 1 ? rd_child(st, 0)
                                                                                     : (TSNode){0};
  int mark = r->nkids;
  rval v;
  if (ts_node_has_error(root) || rd_child_count(root) != 1 || ts_node_is_null(x)) {
    tir_error(r->d, sp, "cannot read the return annotation of '%s'", g->name);
    v = rv_err();
  } else {
    v = rd_eval(r, x);
  }
  rd_free_children_of(r, mark, t);
  rd_lc_forget(t);
  ts_tree_delete(t);
  return v;
}

/* Module.f(args): a call of the module's function f (TVM's GlobalVar
 * call), of f's return type (void without one) */
static void named_data_args(rd *r, tir_expr *e, const rd_args *a);

/* an argument that is a buffer written bare: its pointer, the buffer kept
 * (named_data_args) to be printed bare again, as TVM reads and prints it */
static void bare_buffer_arg(rval *v) {
  if (v->k != RV_BUFFER || !v->buf->data || v->buf->scalar) return;
  const tir_buffer *b = v->buf;
  *v = rv_expr(b->data, v->sp);
  v->via = b;
  v->via_bare = true;
}

static rval global_call(rd *r, TSNode n) {
  TSNode fn = rd_field(n, "function");
  const char *name = rd_text(r, rd_field(fn, "attribute"));
  tir_span sp = rd_span(n);
  const struct rd_gfunc *g = NULL;
  long gi = tir_strmap_get(&r->gfunc_index, name, -1);
  if (gi >= 0 && gi < r->ngfuncs) g = &r->gfuncs[gi];
  if (!g) {
    tir_error(r->d, rd_span(fn), "the module %s has no function '%s'", r->cls_name, name);
    return rv_err();
  }
  tir_dtype t = TIR_VOID;
  if (!ts_node_is_null(g->ret)) {
    rval tv = rd_eval(r, rd_child_count(g->ret) ? rd_child(g->ret, 0) : g->ret);
    if (tv.k == RV_ERR || !rd_parse_dtype(r, tv, &t)) return rv_err();
  } else if (g->ret_len) {
    rval tv = ret_of_text(r, g);
    if (tv.k == RV_ERR || !rd_parse_dtype(r, tv, &t)) return rv_err();
  }
  rd_args a;
  if (!rd_eval_call_args(r, n, &a)) return rv_err();
  if (a.nkw) {
    tir_error(r->d, a.kwsp[0], "%s.%s takes no keyword arguments", r->cls_name, name);
    return rv_err();
  }
  tir_expr **args = tir_alloc(r->c, sizeof *args * (size_t)(a.npos ? a.npos : 1));
  for (int i = 0; i < a.npos; i++) {
    bare_buffer_arg(&a.pos[i]); /* Module.sub(A): TVM passes A's pointer (and prints it bare) */
    if (!(args[i] = rd_as_expr(r, a.pos[i]))) return rv_err();
  }
  char *op = tir_alloc(r->c, strlen(r->cls_name) + strlen(name) + 2);
  sprintf(op, "%s.%s", r->cls_name, name);
  tir_expr *e = tir_call(r->c, t, op, args, a.npos);
  e->u.call.global = true;
  e->span = sp;
  named_data_args(r, e, &a);
  return rv_expr(e, sp);
}

/* the args written `X.data` keep X, where the call holds X's data var
 * itself (tir_expr.u.call.named); a call with a pointer var written by its
 * own name gets the (empty) array too: printed so, not as the X.data of a
 * buffer declared over it (TVM reads X.data as another expression) */
static void named_data_args(rd *r, tir_expr *e, const rd_args *a) {
  if (!e || e->kind != TIR_CALL) return;
  for (int j = 0; j < e->u.call.nargs && !e->u.call.named; j++)
    if (e->u.call.args[j]->kind == TIR_VAR && e->u.call.args[j]->dtype.code == TIR_TC_HANDLE) {
      e->u.call.named = tir_alloc(r->c, sizeof *e->u.call.named * (size_t)e->u.call.nargs);
      memset(e->u.call.named, 0, sizeof *e->u.call.named * (size_t)e->u.call.nargs);
    }
  for (int i = 0; i < a->npos; i++) {
    const rval *v = &a->pos[i];
    if (v->k != RV_EXPR || !v->via) continue;
    for (int j = 0; j < e->u.call.nargs; j++) {
      if (e->u.call.args[j] != v->e || (e->u.call.named && e->u.call.named[j])) continue;
      if (!e->u.call.named) {
        e->u.call.named = tir_alloc(r->c, sizeof *e->u.call.named * (size_t)e->u.call.nargs);
        memset(e->u.call.named, 0, sizeof *e->u.call.named * (size_t)e->u.call.nargs);
      }
      e->u.call.named[j] = v->via;
      if (v->via_bare && j < 64) e->u.call.named_bare |= (uint64_t)1 << j;
      break;
    }
  }
}

/* e is not a form TVM's simplifier spells as tirc's does: it holds two
 * distinct vars (*first the first met), or a product of two non-constants */
static bool two_vars(const tir_expr *e, const tir_expr **first) {
  if (!e) return false;
  if (e->kind == TIR_VAR) {
    if (*first && *first != e) return true;
    *first = e;
    return false;
  }
  if (e->kind == TIR_MUL && e->u.bin.a->kind != TIR_INT_IMM && e->u.bin.b->kind != TIR_INT_IMM)
    return true; /* not linear: n * n - 1 is TVM's (n - 1) * n + n - 1 */
  if (TIR_IS_BINARY(e->kind)) return two_vars(e->u.bin.a, first) || two_vars(e->u.bin.b, first);
  if (e->kind == TIR_CAST) return two_vars(e->u.un.a, first);
  return false; /* a constant, a load (B[0] * 4 + B[1] is TVM's too) */
}

/* Python methods of a buffer, evaluated as TVM's Buffer evaluates them:
 * A.scope() its scope (a string); A.ptr_to(indices) T.address_of(A[indices]);
 * A.offset_of(indices) the list of its element offset, elem_offset plus the
 * indices by the strides (or row-major), simplified (one entry: a buffer
 * with axis separators is refused) */
static rval buffer_method(rd *r, tir_buffer *b, const char *m, TSNode n) {
  rd_args a;
  if (!rd_eval_call_args(r, n, &a)) return rv_err();
  a.sp = rd_span(n);
  if (!strcmp(m, "scope")) {
    if (a.npos || a.nkw) {
      tir_error(r->d, a.sp, "%s.scope() takes no arguments", b->name);
      return rv_err();
    }
    return (rval){.k = RV_STR, .s = b->scope ? b->scope : "global", .sp = a.sp};
  }
  rval *ix = rd_arg(&a, 0, "indices");
  if (!ix || a.npos + a.nkw != 1) {
    tir_error(r->d, a.sp, "%s.%s expects the indices", b->name, m);
    return rv_err();
  }
  rval lv = rd_buffer_load(r, b, *ix, a.sp);
  if (lv.k == RV_ERR) return lv;
  tir_expr *ld = lv.e;
  if (!strcmp(m, "ptr_to")) {
    tir_expr *args[1] = {ld};
    return checked_call(r, "address_of", TIR_HANDLE, args, 1, a.sp);
  }
  if (b->naxis_sep) {
    tir_error(r->d, a.sp, "%s.offset_of of a buffer with axis separators is not supported", b->name);
    return rv_err();
  }
  tir_expr *off = NULL;
  for (int i = 0; i < b->ndim; i++) {
    tir_expr *x = ld->u.load.idx[i];
    if (b->nstrides == b->ndim) off = rd_bin_expr(r, TIR_ADD, off ? off : tir_int(r->c, x->dtype, 0), rd_bin_expr(r, TIR_MUL, x, b->strides[i]));
    else off = off ? rd_bin_expr(r, TIR_ADD, rd_bin_expr(r, TIR_MUL, off, b->shape[i]), x) : x;
    if (!off) return rv_err();
  }
  if (!off) { /* a 0-d buffer: TVM's int32 0 (of a 0 elem_offset; another is not supported) */
    int64_t z;
    if (!tir_is_const_int(b->elem_offset, &z) || z) {
      tir_error(r->d, a.sp, "%s.offset_of of a 0-d buffer with an elem_offset is not supported", b->name);
      return rv_err();
    }
    off = tir_i32(r->c, 0);
  } else if (!(off = rd_bin_expr(r, TIR_ADD, b->elem_offset, off))) return rv_err();
  if (!r->match_an) r->match_an = tir_analyzer_new(r->c, NULL);
  off = tir_simplify(r->match_an, off);
  /* of two vars, or not linear, TVM's simplifier orders and folds the sum
   * its own way ((n - 1) * m + m - 1 is its n * m - 1; eo + s0 its s0 + eo):
   * refused, not respelled */
  const tir_expr *v1 = NULL;
  if (two_vars(off, &v1)) {
    tir_error(r->d, a.sp, "%s.offset_of of an offset of two variables, or not linear, is not supported (TVM's "
                          "simplifier spells it its own way)", b->name);
    return rv_err();
  }
  rval *items = tir_alloc(r->c, sizeof *items);
  items[0] = rv_expr(off, a.sp);
  return (rval){.k = RV_TUPLE, .items = items, .n = 1, .is_list = true, .sp = a.sp};
}

/* A.elem_offset_of(indices, inner=True), A.byte_offset_of(...): TVM
 * 0.27's int32 call tirx.buffer_offset(A[indices]) (BufferOffsetOfp),
 * A.elem_offset + it where inner is false, and that * the dtype's bits // 8
 * for the bytes; TVM prints the call T.buffer_offset(A[i, j]), which it
 * does not read, and tirc prints it A.elem_offset_of([i, j]) */
static rval offset_of_call(rd *r, tir_buffer *b, const char *m, TSNode n) {
  rd_args a;
  if (!rd_eval_call_args(r, n, &a)) return rv_err();
  a.sp = rd_span(n);
  rval *ix = rd_arg(&a, 0, "indices"), *inner = rd_arg(&a, 1, "inner");
  int want = 1 + (inner != NULL);
  for (int i = 0; i < a.nkw; i++)
    if (strcmp(a.kw[i], "indices") && strcmp(a.kw[i], "inner")) {
      tir_error(r->d, a.kwsp[i], "%s.%s takes no keyword argument '%s'", b->name, m, a.kw[i]);
      return rv_err();
    }
  if (!ix || a.npos + a.nkw != want || (a.npos >= 1 && rd_kwarg(&a, "indices")) || (a.npos >= 2 && rd_kwarg(&a, "inner"))) {
    tir_error(r->d, a.sp, "%s.%s expects (indices, inner=True)", b->name, m);
    return rv_err();
  }
  if (ix->k != RV_TUPLE) {
    tir_error(r->d, ix->sp.line ? ix->sp : a.sp, "%s.%s takes a list of indices (TVM's Array of exprs)", b->name, m);
    return rv_err();
  }
  bool in = true;
  if (inner) {
    if (inner->k == RV_NONE) in = false;
    else if (inner->k == RV_INT || inner->k == RV_BOOL) in = inner->i != 0;
    else if (inner->k == RV_FLOAT) in = inner->f != 0;
    else {
      tir_error(r->d, inner->sp.line ? inner->sp : a.sp, "%s.%s: inner= is tested as a Python truth value; give True or False",
                b->name, m);
      return rv_err();
    }
  }
  if (ix->n != b->ndim) {
    tir_error(r->d, ix->sp.line ? ix->sp : a.sp, "%s.%s: buffer '%s' is %d-dimensional, indexed with %d indices",
              b->name, m, b->name, b->ndim, ix->n);
    return rv_err();
  }
  for (int i = 0; i < ix->n; i++)
    if (ix->items[i].k == RV_REGION || ix->items[i].k == RV_TUPLE || ix->items[i].k == RV_STR) {
      tir_error(r->d, ix->items[i].sp.line ? ix->items[i].sp : a.sp, "%s.%s takes an index expression here", b->name, m);
      return rv_err();
    }
  rval lv = rd_buffer_load(r, b, *ix, a.sp);
  if (lv.k == RV_ERR) return lv;
  if (lv.k != RV_EXPR || !lv.e || lv.e->kind != TIR_BUFFER_LOAD || lv.e->dtype.lanes != b->dtype.lanes) {
    tir_error(r->d, a.sp, "%s.%s takes one element's indices (no slice)", b->name, m);
    return rv_err();
  }
  tir_expr *args[1] = {lv.e};
  tir_expr *call = tir_call(r->c, TIR_INT32, "buffer_offset", args, 1);
  call->span = a.sp;
  rval v = rv_expr(call, a.sp);
  if (!in) v = rd_binop(r, "+", rv_expr(b->elem_offset, a.sp), v, a.sp);
  if (!strcmp(m, "byte_offset_of") && v.k != RV_ERR) {
    v = rd_binop(r, "*", v, (rval){.k = RV_INT, .i = b->dtype.bits, .sp = a.sp}, a.sp);
    if (v.k != RV_ERR) v = rd_binop(r, "//", v, (rval){.k = RV_INT, .i = 8, .sp = a.sp}, a.sp);
  }
  return v;
}

rval rd_eval_call(rd *r, TSNode n) {
  TSNode fn = rd_field(n, "function");
  rd_args a;
  const char *tn = rd_t_name(r, fn);
  bool ok;
  if (tn && !strcmp(tn, "comm_reducer")) return comm_reducer(r, n);
  if (tn && !strcmp(tn, "index_map")) return index_map(r, n);
  if (tn && !strcmp(tn, "uint64")) { /* T.uint64(18446744069414584320): past int64, as tirc prints it */
    TSNode args = rd_field(n, "arguments");
    TSNode lit = rd_child_count(args) == 1 ? rd_child(args, 0) : args;
    uint64_t v;
    if (rd_is(lit, "integer") && rd_uint64_literal(rd_text(r, lit), &v) && v > (uint64_t)INT64_MAX) {
      tir_expr *e = tir_int(r->c, (tir_dtype){.code = TIR_TC_UINT, .bits = 64, .lanes = 1}, (int64_t)v);
      e->span = rd_span(n);
      return rv_expr(e, e->span);
    }
  }
  if (rd_is(fn, "subscript") && (tn = rd_t_name(r, rd_field(fn, "value"))) && !strcmp(tn, "ptx")) {
    rval t = rd_eval(r, rd_field(fn, "subscript"));
    if (t.k == RV_ERR) return t;
    if (t.k != RV_STR) {
      tir_error(r->d, t.sp, "T.ptx[...] expects PTX text (\"st.weak.shared::cta.b32\")");
      return rv_err();
    }
    ok = rd_eval_call_args(r, n, &a);
    a.sp = rd_span(n);
    return ok ? rd_ptx_text_call(r, t.s, t.sp, &a) : rv_err();
  }
  if (!tn && rd_is_i_name(r, fn, "vdevice")) {
    ok = rd_eval_call_args(r, n, &a);
    a.sp = rd_span(n);
    return ok ? vdevice_call(r, &a) : rv_err();
  }
  if (tn) {
    ok = rd_eval_call_args(r, n, &a);
    a.sp = rd_span(n);
    if (!ok) return rv_err();
    if (!strcmp(tn, "ptr_byte_offset")) return ptr_byte_offset(r, &a); /* its keywords its own */
    rd_kw_positional(r, tn, &a);
    /* a buffer passed bare to an extern or intrinsic call: TVM reads its
     * pointer (and prints it bare) */
    static const char *const BARE[] = {"call_extern", "call_pure_extern", "call_intrin", "tvm_access_ptr",
                                       "anylist_setitem_call_packed", "anylist_setitem_call_cpacked",
                                       "masked_load", "masked_store", NULL};
    bool bare_ok = false;
    for (int k = 0; BARE[k] && !bare_ok; k++) bare_ok = !strcmp(tn, BARE[k]);
    for (int i = 0; bare_ok && i < a.npos; i++) bare_buffer_arg(&a.pos[i]);
    rval v = rd_call_t(r, tn, n, &a);
    if (v.k == RV_EXPR) named_data_args(r, v.e, &a);
    return v;
  }
  if (rd_is(fn, "attribute") && r->cls_name && rd_is(rd_field(fn, "object"), "identifier") &&
      !strcmp(rd_text(r, rd_field(fn, "object")), r->cls_name) && !rd_lookup(r, r->cls_name))
    return global_call(r, n);
  if (rd_is(fn, "attribute")) {
    rval obj = rd_eval(r, rd_field(fn, "object"));
    if (obj.k == RV_ERR) return obj;
    const char *m = rd_text(r, rd_field(fn, "attribute"));
    if (obj.k == RV_BUFFER && !strcmp(m, "vload")) {
      ok = rd_eval_call_args(r, n, &a);
      a.sp = rd_span(n);
      if (!ok) return rv_err();
      rval *ix = rd_arg(&a, 0, "begin"), *dt = rd_arg(&a, 1, "dtype");
      if (!ix || a.npos + a.nkw != (dt ? 2 : 1)) {
        tir_error(r->d, a.sp, "%s.vload expects (indices, dtype) (a predicate is not supported)", obj.buf->name);
        return rv_err();
      }
      tir_dtype t = obj.buf->dtype;
      if (dt && !rd_parse_dtype(r, *dt, &t)) return rv_err();
      /* TVM's Buffer::vload: the buffer's element type, a multiple of its lanes */
      tir_dtype te = t, be = obj.buf->dtype;
      te.lanes = be.lanes = 1;
      if (!tir_dtype_eq(te, be) || tir_dtype_is_scalable(t) || tir_dtype_is_scalable(obj.buf->dtype) ||
          t.lanes % obj.buf->dtype.lanes != 0) {
        char x[64], y[64];
        tir_error(r->d, dt ? dt->sp : a.sp, "%s.vload: cannot load %s from a buffer of %s", obj.buf->name,
                  tir_dtype_str(t, x), tir_dtype_str(obj.buf->dtype, y));
        return rv_err();
      }
      tir_expr *ld = rd_vector_access(r, obj.buf, *ix, t.lanes, a.sp);
      return ld ? rv_expr(ld, a.sp) : rv_err();
    }
    if (obj.k == RV_BUFFER && !strcmp(m, "access_ptr")) {
      ok = rd_eval_call_args(r, n, &a);
      a.sp = rd_span(n);
      return ok ? access_ptr(r, obj.buf, &a) : rv_err();
    }
    if (obj.k == RV_EXPR && !strcmp(m, "astype")) { /* x.astype(dtype): TVM's cast, as T.cast(x, dtype) */
      ok = rd_eval_call_args(r, n, &a);
      a.sp = rd_span(n);
      if (!ok) return rv_err();
      rval *dt = rd_arg(&a, 0, "dtype"); /* x.astype("int32") or x.astype(dtype="int32") */
      if (!dt || a.npos + a.nkw != 1) {
        tir_error(r->d, a.sp, ".astype expects a dtype");
        return rv_err();
      }
      rd_args c = {0};
      rval pos[2] = {obj, *dt};
      c.pos = pos, c.npos = 2, c.sp = a.sp;
      return cast_call(r, &c, false);
    }
    if (obj.k == RV_BUFFER && (!strcmp(m, "elem_offset_of") || !strcmp(m, "byte_offset_of")))
      return offset_of_call(r, obj.buf, m, n);
    if (obj.k == RV_BUFFER && (!strcmp(m, "scope") || !strcmp(m, "ptr_to") || !strcmp(m, "offset_of")))
      return buffer_method(r, obj.buf, m, n);
    tir_error(r->d, rd_span(fn), "unsupported method '%s'", m);
    return rv_err();
  }
  if (rd_is(fn, "identifier") && !rd_lookup(r, rd_text(r, fn)) &&
      (!strcmp(rd_text(r, fn), "max") || !strcmp(rd_text(r, fn), "min"))) {
    /* Python's max and min of Python numbers (TVM evaluates them in Python) */
    ok = rd_eval_call_args(r, n, &a);
    a.sp = rd_span(n);
    if (!ok) return rv_err();
    if (a.npos == 1 && !a.nkw && a.pos[0].k == RV_TUPLE && a.pos[0].n >= 1) { /* max(t), max(x for x in t) */
      rval t = a.pos[0];
      a.pos = t.items;
      a.npos = t.n;
      if (a.npos == 1) return a.pos[0];
    }
    bool nums = a.npos >= 2 && !a.nkw;
    for (int i = 0; nums && i < a.npos; i++) nums = a.pos[i].k == RV_INT || a.pos[i].k == RV_FLOAT || a.pos[i].k == RV_BIGINT;
    if (!nums) {
      tir_error(r->d, a.sp, "Python's %s takes Python numbers here; use T.%s for TIR values", rd_text(r, fn),
                rd_text(r, fn));
      return rv_err();
    }
    rval v = a.pos[0];
    for (int i = 1; i < a.npos && v.k != RV_ERR; i++) v = rd_binop(r, rd_text(r, fn), v, a.pos[i], a.sp);
    return v;
  }
  if (rd_is(fn, "identifier") && !rd_lookup(r, rd_text(r, fn))) {
    rval v;
    if (py_builtin(r, rd_text(r, fn), n, &v)) return v;
  }
  if (rd_macro_of(r, fn)) {
    tir_error(r->d, rd_span(n), "T.macro '%s' is expanded as a statement; it has no value to use here", rd_text(r, fn));
    return rv_err();
  }
  if (rd_is(fn, "identifier") && !rd_lookup(r, rd_text(r, fn))) {
    if (rd_macro_hidden(r, rd_text(r, fn)))
      tir_error(r->d, rd_span(fn),
                "T.macro '%s' is not defined where this hygienic macro is defined (it calls itself, or a macro "
                "defined after it): TVM's macro sees only the names bound before its definition",
                rd_text(r, fn));
    else
      tir_error(r->d, rd_span(fn), "undefined function '%s'", rd_text(r, fn));
    return rv_err();
  }
  tir_error(r->d, rd_span(n), "unsupported call");
  return rv_err();
}
