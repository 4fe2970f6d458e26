/* reader_block.c - buffers (T.Buffer, T.match_buffer, T.alloc_buffer), blocks
 * (with T.block / T.sblock), the statements that configure a block (reads,
 * writes, where, attrs, allocations, match_buffer, T.axis.*) and the
 * implicit root block. */
#include <string.h>

#include "tir/analysis.h"
#include "tir/visit.h"
#include "tir/script.h"
#include "script/reader.h"

/* ---- buffers ---- */

const TSLanguage *tree_sitter_python(void);

static bool plain_ident(const char *s) {
  if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return false;
  for (; *s; s++)
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9'))) return false;
  return true;
}

/* the var a shape string makes for an unbound name: int32, or the dtype
 * of a scalar parameter of that name (which is then that var) */
static tir_expr *shape_var(rd *r, const char *name, tir_span sp) {
  tir_dtype dt = TIR_INT32;
  if (r->fn)
    for (int k = 0; k < r->fn->nsig; k++)
      if (!strcmp(r->fn->sig_names[k], name)) dt = r->fn->sig_dts[k];
  tir_expr *e = tir_var(r->c, tir_strdup(r->c, name), dt);
  e->span = sp;
  rd_push_sym(r, e->u.var.name, rv_expr(e, sp));
  r->syms[r->nsyms - 1].free_decl = true;
  r->syms[r->nsyms - 1].from_shape = true;
  return e;
}

/* T.Buffer(("n",), strides=(n,)) as a parameter's type: TVM 0.27 makes the
 * vars of the shape's quoted names before it evaluates the call, so the
 * strides, elem_offset and the rest may use them (its own print of a
 * strided buffer over a later scalar parameter) */
void rd_predeclare_shape_names(rd *r, TSNode arglist) {
  TSNode shape = {0};
  uint32_t n = rd_child_count(arglist);
  for (uint32_t i = 0; i < n && ts_node_is_null(shape); i++) {
    TSNode c = rd_child(arglist, i);
    if (rd_is_extra(c)) continue;
    if (rd_is(c, "keyword_argument")) {
      if (!strcmp(rd_text(r, rd_field(c, "name")), "shape")) shape = rd_field(c, "value");
      continue;
    }
    shape = c; /* the first positional argument */
  }
  if (ts_node_is_null(shape)) return;
  while (rd_is(shape, "parenthesized_expression") && rd_child_count(shape) == 1)
    shape = rd_child(shape, 0);
  bool seq = rd_is(shape, "tuple") || rd_is(shape, "list");
  uint32_t m = seq ? rd_child_count(shape) : 1;
  for (uint32_t i = 0; i < m; i++) {
    TSNode e = seq ? rd_child(shape, i) : shape;
    if (!rd_is(e, "string")) continue;
    rval v = rd_eval(r, e);
    if (v.k == RV_STR && plain_ident(v.s) && !rd_lookup(r, v.s)) shape_var(r, v.s, v.sp);
  }
}

/* whether identifier n, met in field `field` of its parent, is a name the
 * expression looks up (not an attribute's object or name, a keyword, a
 * called function or T itself); by the field, not ts_node_parent, which
 * walks down from the root (quadratic on a long chain) */
static bool looked_up(rd *r, TSNode n, const char *field) {
  if (field && (!strcmp(field, "attribute") || !strcmp(field, "object") || !strcmp(field, "name") ||
                !strcmp(field, "function")))
    return false;
  const char *t = rd_text(r, n);
  return strcmp(t, r->t_alias ? r->t_alias : "T") && strcmp(t, "True") && strcmp(t, "False") && strcmp(t, "None");
}

/* T.Buffer(("n + 1",), ...): TVM 0.27 reads a quoted extent as an
 * expression whose unbound names it makes (its "match scope"); the body's
 * later `n = T.int32()` is the same var.  The string's body is parsed in
 * place (an included range of the source), so positions are the file's. */
static tir_expr *shape_string(rd *r, rval v) {
  if (plain_ident(v.s)) {
    rd_sym *sym = rd_lookup(r, v.s);
    if (sym && sym->val.k == RV_EXPR && tir_dtype_is_int(sym->val.e->dtype)) return sym->val.e;
    return shape_var(r, v.s, v.sp);
  }
  if (!v.lit_len) {
    tir_error(r->d, v.sp, "a buffer extent written as a string must be one plain literal on one line");
    return NULL;
  }
  if (!r->sub_parser) {
    r->sub_parser = ts_parser_new();
    ts_parser_set_language(r->sub_parser, tree_sitter_python());
  }
  TSRange range = {.start_point = v.lit_pt,
                   .end_point = {v.lit_pt.row, v.lit_pt.column + v.lit_len},
                   .start_byte = v.lit_at,
                   .end_byte = v.lit_at + v.lit_len};
  if (!ts_parser_set_included_ranges(r->sub_parser, &range, 1)) return NULL;
  ts_parser_set_timeout_micros(r->sub_parser, rd_parse_budget(v.lit_len));
  TSTree *t = ts_parser_parse_string(r->sub_parser, NULL, r->src, (uint32_t)r->len);
  if (!t) {
    tir_error(r->d, v.sp, "cannot read this buffer extent as an expression");
    return NULL;
  }
  TSNode root = ts_tree_root_node(t), st = rd_child(root, 0);
  TSNode x = rd_is(st, "expression_statement") && rd_child_count(st) == 1 ? rd_child(st, 0)
                                                                                     : (TSNode){0};
  tir_expr *e = NULL;
  int mark = r->nkids;
  if (ts_node_has_error(root) || rd_child_count(root) != 1 || ts_node_is_null(x) ||
      rd_is(x, "assignment")) {
    tir_error(r->d, v.sp, "cannot read this buffer extent as an expression: '%s'", v.s);
  } else {
    /* first the unbound names, in order */
    TSTreeCursor cur = ts_tree_cursor_new(x);
    for (bool more = true; more;) {
      TSNode n = ts_tree_cursor_current_node(&cur);
      if (rd_is(n, "identifier") && looked_up(r, n, ts_tree_cursor_current_field_name(&cur)) &&
          !rd_lookup(r, rd_text(r, n)))
        shape_var(r, rd_text(r, n), rd_span(n));
      if (ts_tree_cursor_goto_first_child(&cur)) continue;
      while (!ts_tree_cursor_goto_next_sibling(&cur))
        if (!ts_tree_cursor_goto_parent(&cur) || ts_node_eq(ts_tree_cursor_current_node(&cur), x)) {
          more = false;
          break;
        }
    }
    ts_tree_cursor_delete(&cur);
    e = rd_as_expr(r, rd_eval(r, x));
  }
  rd_free_children_of(r, mark, t);
  rd_lc_forget(t);
  ts_tree_delete(t);
  return e;
}

/* vectors: a vector extent is taken (TVM 0.27 reads one where elem_offset
 * is given, as its VectorizeLoop prints an allocation inside a vectorized
 * loop: T.alloc_local((T.Broadcast(1, 8),), elem_offset=0)); else refused,
 * as TVM refuses it */
static bool shape_of(rd *r, rval v, tir_expr ***shape, int *ndim, bool vectors) {
  if (v.k == RV_TUPLE) {
    *ndim = v.n;
    *shape = tir_alloc(r->c, sizeof **shape * (size_t)(v.n + 1));
    for (int i = 0; i < v.n; i++) {
      tir_expr *e = v.items[i].k == RV_STR ? shape_string(r, v.items[i]) : rd_as_expr(r, v.items[i]);
      if (!e) return false;
      if (!tir_dtype_is_int(e->dtype) || (e->dtype.lanes != 1 && !vectors)) {
        tir_error(r->d, v.items[i].sp, "buffer shape must be integers");
        return false;
      }
      (*shape)[i] = e;
    }
    return true;
  }
  tir_expr *e = v.k == RV_STR ? shape_string(r, v) : rd_as_expr(r, v);
  if (!e) return false;
  if (!tir_dtype_is_int(e->dtype) || (e->dtype.lanes != 1 && !vectors)) {
    tir_error(r->d, v.sp, "buffer shape must be integers");
    return false;
  }
  *ndim = 1;
  *shape = tir_alloc(r->c, sizeof **shape);
  (*shape)[0] = e;
  return true;
}

/* a declaration's shape, refused where it cannot be a buffer (issue 11,
 * class 1): a negative constant extent, a constant element count past
 * int64, or a byte size past int64; each at the extent (or the shape) */
bool rd_check_shape(rd *r, rval v, tir_expr *const *shape, int ndim, tir_dtype dt, const char *name) {
  int64_t count = 1, x;
  bool konst = true;
  for (int i = 0; i < ndim; i++) {
    tir_span sp = v.k == RV_TUPLE && i < v.n ? v.items[i].sp : v.sp;
    if (!tir_is_const_int(shape[i], &x)) {
      konst = false;
      continue;
    }
    if (x < 0 && r->gen_errors) {
      tir_error(r->d, sp, "buffer '%s': extent %lld is negative", name, (long long)x);
      return false;
    }
    if (x < 0) { /* TVM's own passes print an extent overflowed so (StmtSimplify of 2147483647 * 64) */
      tir_warning(r->d, sp, "buffer '%s': extent %lld is negative: read and printed as it is; no pass, code generator "
                  "or run takes it", name, (long long)x);
      konst = false;
      continue;
    }
    if (konst && __builtin_mul_overflow(count, x, &count)) {
      tir_error(r->d, sp, "buffer '%s': its element count overflows int64 at this extent", name);
      return false;
    }
  }
  int64_t bytes, width = ((int64_t)dt.bits * (dt.lanes > 0 ? dt.lanes : 1) + 7) / 8;
  if (konst && __builtin_mul_overflow(count, width, &bytes)) {
    char b[32];
    tir_error(r->d, v.sp, "buffer '%s': %lld elements of %s are more bytes than int64 counts", name,
              (long long)count, tir_dtype_str(dt, b));
    return false;
  }
  return true;
}

/* `A.view(shape)`: a flat (or reshaped) buffer over A's data */
tir_buffer *rd_view_buffer(rd *r, const char *name, const tir_buffer *src, rval shape) {
  tir_buffer *b = tir_buffer_copy(r->c, src);
  b->name = tir_strdup(r->c, name);
  if (!shape_of(r, shape, &b->shape, &b->ndim, false) || !rd_check_shape(r, shape, b->shape, b->ndim, b->dtype, name))
    return NULL;
  /* TVM's view carries its source's strides, elem_offset, offset_factor,
   * alignment and scope (Buffer.view re-declares them) */
  if (b->nstrides && b->nstrides != b->ndim) {
    tir_error(r->d, shape.sp, "a view of %d dimensions of the strided buffer '%s' (%d strides) is not supported",
              b->ndim, src->name, b->nstrides);
    return NULL;
  }
  b->axis_separators = NULL;
  b->naxis_sep = 0;
  /* in a tirx function without s_tir, TVM gives a view its source's layout
   * (elsewhere every layout is None, the source's too) */
  b->layout_none = false;
  b->view_of = r->fn && r->tirx ? src : NULL;
  return b;
}

static tir_expr *stride_of(rd *r, rval v, const char *buf, const char *field, tir_dtype str_t) {
  if (v.k == RV_FRESH) { /* elem_offset=T.int32(): a var of its own, as TVM reads it */
    if (!tir_dtype_is_int(v.dt)) {
      tir_error(r->d, v.sp, "buffer %s must be an integer", field);
      return NULL;
    }
    size_t n = strlen(buf) + strlen(field) + 2;
    char *vn = tir_alloc(r->c, n);
    snprintf(vn, n, "%s_%s", buf, field);
    tir_expr *var = tir_var(r->c, vn, v.dt);
    var->span = v.sp;
    return var;
  }
  if (v.k == RV_STR) {
    rd_sym *s = rd_lookup(r, v.s);
    if (s && s->val.k == RV_EXPR) return s->val.e;
    tir_expr *var = tir_var(r->c, v.s, str_t);
    rd_push_sym(r, v.s, rv_expr(var, v.sp));
    return var;
  }
  tir_expr *e = rd_as_expr(r, v);
  if (e && !tir_dtype_is_int(e->dtype)) {
    tir_error(r->d, v.sp, !strcmp(field, "elem_offset") ? "buffer elem_offset must be an integer"
                                                         : "buffer strides must be integers");
    return NULL;
  }
  return e;
}

static bool int_opt(rd *r, rval *v, int *out, const char *what) {
  int64_t x;
  if (!v || v->k == RV_NONE) return true;
  if (!rd_as_int(r, *v, &x, what)) return false;
  if (x < -1 || x > (1 << 30)) {
    tir_error(r->d, v->sp, "%s %lld out of range", what, (long long)x);
    return false;
  }
  /* align=-1 is TVM's default (64); offset_factor=-1 is kept as TVM keeps
   * it: a buffer with an elem_offset var and no alignment of its offset */
  *out = x < 0 && strcmp(what, "offset_factor") ? 0 : (int)x;
  return true;
}

/* the dtype of a typed shape's default strides (TVM's _get_default_strides
 * of PrimExprs): the first extent's other than int32, else int32 */
static tir_dtype default_stride_dtype(tir_expr *const *shape, int n) {
  for (int k = 0; k < n; k++)
    if (!tir_dtype_eq(shape[k]->dtype, TIR_INT32)) return shape[k]->dtype;
  return TIR_INT32;
}

/* TVM's default layout where the shape holds a bare Python int past int32
 * (TVM's _get_default_strides, run on the shape as written): the strides
 * are products from a Python int 1 (or a 1 of the first extent that is a
 * typed expression other than int32), Python ints multiplied as Python
 * ints and made int32 or int64 by their size at the end.  tirc prints
 * that extent T.int64(N), which TVM's rule then counts as typed (every
 * stride an int64), so a layout that differs from that one is kept and
 * printed: `T.Buffer((3000000000, 4), "int8")` has strides (4, 1) of
 * int32, where `T.Buffer((T.int64(3000000000), 4), ...)` has int64 ones.
 * Only for shapes of constants. */
static void python_int_layout(rd *r, tir_buffer *b, rval sv) {
  int n = sv.k == RV_TUPLE ? sv.n : 1;
  const rval *it = sv.k == RV_TUPLE ? sv.items : &sv;
  if (n != b->ndim || n == 0) return;
  bool past = false;
  tir_dtype typed = TIR_INT32; /* the 1 the strides start from: a Python int, or typed */
  bool start_typed = false;
  for (int k = 0; k < n; k++) {
    int64_t v;
    if (it[k].k == RV_INT) past |= it[k].i > INT32_MAX || it[k].i < INT32_MIN;
    else if (it[k].k != RV_EXPR || !tir_is_const_int(it[k].e, &v)) return;
    else if (!start_typed && !tir_dtype_eq(it[k].e->dtype, TIR_INT32)) typed = it[k].e->dtype, start_typed = true;
  }
  if (!past) return; /* tirc's shape is then typed as TVM's */
  tir_expr **lay = tir_alloc(r->c, sizeof *lay * (size_t)(2 * n));
  int64_t stride = 1;
  bool is_py = !start_typed; /* the running product is a Python int */
  tir_dtype st = typed;      /* else its dtype */
  bool differs = false;
  for (int k = n - 1; k >= 0; k--) {
    tir_dtype t = is_py ? (stride > INT32_MAX || stride < INT32_MIN ? TIR_INT64 : TIR_INT32) : st;
    if (!is_py && st.bits == 32 && (stride > INT32_MAX || stride < INT32_MIN)) return; /* TVM's own overflow */
    lay[2 * k] = b->shape[k];
    lay[2 * k + 1] = tir_int(r->c, t, stride);
    int64_t e = it[k].k == RV_INT ? it[k].i : 0;
    if (it[k].k != RV_INT) tir_is_const_int(it[k].e, &e);
    if (__builtin_mul_overflow(stride, e, &stride)) return;
    if (it[k].k == RV_EXPR) { /* a typed extent makes the product typed: the wider of the two */
      tir_dtype et = it[k].e->dtype;
      st = is_py ? et : (et.bits > st.bits ? et : st);
      is_py = false;
    }
  }
  /* what TVM makes of tirc's print (every extent typed) */
  tir_dtype want = default_stride_dtype(b->shape, n);
  for (int k = 0; k < n; k++) differs |= !tir_dtype_eq(lay[2 * k + 1]->dtype, want);
  if (!differs) return;
  b->nlayout = n;
  b->layout = lay;
}

/* byte_offset=B: TVM's elem_offset B * 8 // bits, the element's bits
 * without its lanes (an int4's 4, an int8x4's 8, a bool's 8), in Python's
 * arithmetic: a Python int floored (6 bytes of float32 are element 1, -6
 * are -2) and typed by its size; a typed constant folded in its dtype
 * (T.int64(8) is T.int64(2)); any other expression kept as that formula */
static tir_expr *byte_offset_elems(rd *r, rval bv, tir_dtype dt, const char *name) {
  int64_t bits = tir_dtype_is_bool(dt) ? 8 : dt.bits, v;
  if (bits <= 0) {
    tir_error(r->d, bv.sp, "buffer '%s': byte_offset of an element of no size", name);
    return NULL;
  }
  tir_expr *e = NULL;
  bool py = bv.k == RV_INT;
  if (py) v = bv.i;
  else if (!(e = rd_as_expr(r, bv))) return NULL;
  else if (!tir_dtype_is_int(e->dtype) || e->dtype.lanes != 1) {
    tir_error(r->d, bv.sp, "buffer '%s': byte_offset must be an integer", name);
    return NULL;
  }
  if (py || tir_is_const_int(e, &v)) {
    int64_t x;
    if (__builtin_mul_overflow(v, (int64_t)8, &x)) {
      tir_error(r->d, bv.sp, "buffer '%s': byte_offset %lld is past int64 in bits", name, (long long)v);
      return NULL;
    }
    int64_t q = x / bits - (x % bits != 0 && (x < 0) != (bits < 0)); /* floored */
    if (x % bits)
      tir_warning(r->d, bv.sp,
                  "buffer '%s': byte_offset %lld is not a whole number of its %lld-bit elements: read as "
                  "elem_offset %lld, as TVM reads it",
                  name, (long long)v, (long long)bits, (long long)q);
    tir_dtype t = py ? (q > INT32_MAX || q < INT32_MIN ? TIR_INT64 : TIR_INT32) : e->dtype;
    if (!py && t.bits == 32 && (x > INT32_MAX || x < INT32_MIN)) {
      tir_error(r->d, bv.sp, "buffer '%s': byte_offset * 8 overflows its int32", name);
      return NULL;
    }
    return tir_int(r->c, t, q);
  }
  return tir_binary(r->c, TIR_FLOORDIV, tir_binary(r->c, TIR_MUL, e, tir_int(r->c, e->dtype, 8)),
                    tir_int(r->c, e->dtype, bits));
}

/* the parameters of a buffer function, in order (NULL-ended) */
static const char *const *buffer_params(rd *r, const char *form) {
  /* the old dialect's (TVM before 0.27): no byte_offset, layout or
   * allocated_addr; buffer_type and axis_separators last */
  static const char *const OLD[] = {"shape", "dtype", "data", "strides", "elem_offset", "scope", "align",
                                    "offset_factor", "buffer_type", "axis_separators", NULL};
  static const char *const OLD_MATCH[] = {"param", "shape", "dtype", "data", "strides", "elem_offset", "scope",
                                          "align", "offset_factor", "buffer_type", "axis_separators", NULL};
  if (!r->tirx) return !strcmp(form, "match_buffer") ? OLD_MATCH : OLD;
  return rd_tvm_params(form); /* TVM 0.27's, from its Python signatures */
}

bool rd_buffer_args(rd *r, const char *form, rd_args *a) {
  const char *const *ps = buffer_params(r, form);
  if (!ps) return true;
  int n = 0, keep = -1; /* keep: the positions tirc reads by position (through offset_factor) */
  for (; ps[n]; n++)
    if (!strcmp(ps[n], "offset_factor")) keep = n + 1;
  if (keep < 0) keep = n; /* T.alloc_local / T.alloc_shared: keyword-only from scope on */
  if (a->npos > n) {
    tir_error(r->d, a->pos[n].sp, "T.%s takes at most %d positional arguments (%d given)", form, n, a->npos);
    return false;
  }
  for (int k = 0; k < a->nkw; k++)
    for (int i = 0; i < a->npos; i++)
      if (!strcmp(a->kw[k], ps[i])) {
        tir_error(r->d, a->kwsp[k], "T.%s got multiple values for argument '%s'", form, ps[i]);
        return false;
      }
  for (int i = keep; i < a->npos; i++) rd_add_kwarg(r, a, ps[i], a->pos[i], a->pos[i].sp);
  if (a->npos > keep) a->npos = keep;
  return true;
}

/* TVM 0.27's standard scopes, where its DeclBuffer and SBlock allocations
 * refuse an allocated_addr */
static bool addr_standard_scope(const char *scope) {
  return !*scope || !strcmp(scope, "global") || !strcmp(scope, "shared") || !strcmp(scope, "shared.dyn") ||
         !strcmp(scope, "local");
}

/* allocated_addr=: one expr or a list of them (None or [] for none), as
 * TVM's buffer() makes them; its scope rules (TVM's DeclBuffer and
 * SBlock builders) checked */
static bool allocated_addr(rd *r, tir_buffer *b, rd_args *a, const char *form) {
  rval *v = rd_kwarg(a, "allocated_addr");
  if (!v || v->k == RV_NONE) {
    if (!strcmp(form, "decl_buffer") && !strcmp(b->scope, "tmem")) goto tmem;
    return true;
  }
  const char *scope = b->scope;
  bool decl = !strcmp(form, "decl_buffer");
  if (decl && v->k == RV_TUPLE) { /* its C++ builder takes one PrimExpr */
    tir_error(r->d, v->sp, "T.decl_buffer's allocated_addr is one expression, not a list");
    return false;
  }
  if ((decl || !strcmp(form, "sblock_alloc_buffer")) && addr_standard_scope(scope)) {
    tir_error(r->d, v->sp, "for `%s` scope, T.%s does not accept `allocated_addr`", *scope ? scope : "global",
              decl ? "decl_buffer" : "alloc_buffer");
    return false;
  }
  if (decl && !strcmp(scope, "tmem")) goto tmem;
  if (decl) {
    rval *da = rd_arg(a, 2, "data"), *eo = rd_arg(a, 4, "elem_offset"), *bo = rd_arg(a, 5, "byte_offset");
    if ((da && da->k != RV_NONE) || (eo && eo->k != RV_NONE) || (bo && bo->k != RV_NONE) || b->offset_factor) {
      tir_error(r->d, v->sp, "`allocated_addr` can only be used with `data`, `elem_offset`, and `offset_factor` "
                             "undefined");
      return false;
    }
  }
  int n = v->k == RV_TUPLE ? v->n : 1;
  const rval *it = v->k == RV_TUPLE ? v->items : v;
  if (n == 0) return true;
  b->addr = tir_alloc(r->c, sizeof *b->addr * (size_t)n);
  for (int i = 0; i < n; i++) {
    if (it[i].k == RV_STR || it[i].k == RV_BUFFER || it[i].k == RV_TUPLE || it[i].k == RV_NONE) {
      tir_error(r->d, it[i].sp, "allocated_addr expects expressions (an address each)");
      return false;
    }
    if (!(b->addr[i] = rd_as_expr(r, it[i]))) return false;
  }
  b->naddr = n;
  return true;
tmem:
  tir_error(r->d, v ? v->sp : a->sp,
            "T.decl_buffer in scope \"tmem\" (TIRx's tensor memory, declared at an allocated_addr) is not supported "
            "by tirc");
  return false;
}

/* shape, dtype, data, strides, elem_offset, scope, align, offset_factor,
 * from positional index shape_pos on (or by keyword) */
tir_buffer *rd_buffer_from_args(rd *r, const char *name, rd_args *a, int shape_pos, const char *form) {
  if (!rd_buffer_args(r, form, a)) return NULL;
  /* TVM 0.27's T.Buffer / T.alloc_buffer / T.decl_buffer / T.alloc_local
   * take byte_offset after elem_offset, before scope, align and
   * offset_factor; T.match_buffer, T.sblock_alloc_buffer and the old
   * dialect's forms have none there */
  int bo = r->tirx && strcmp(form, "match_buffer") && strcmp(form, "sblock_alloc_buffer") ? 1 : 0;
  static const char *const known[] = {"shape", "dtype", "data", "strides", "elem_offset", "scope",
                                      "align", "offset_factor", "buffer_type", "axis_separators",
                                      "layout", "byte_offset", "allocated_addr", NULL};
  int bad = rd_unknown_kwarg(a, known);
  /* in the tirx dialect the call's signature (rd_eval_call_args) refused
   * it where its function takes none; the old dialect's take none */
  if (bad < 0 && !r->tirx) {
    for (int i = 0; i < a->nkw && bad < 0; i++)
      if (!strcmp(a->kw[i], "allocated_addr")) bad = i;
  }
  if (bad >= 0) {
    tir_error(r->d, a->kwsp[bad], "unknown buffer argument '%s'", a->kw[bad]);
    return NULL;
  }
  rval *sv = rd_arg(a, shape_pos, "shape");
  if (!sv) {
    tir_error(r->d, a->sp, "buffer '%s' needs a shape", name);
    return NULL;
  }
  if (r->tirx) { /* the types TVM 0.27's buffer builders take (its FFI refuses the rest) */
    static const char *const strs[] = {"dtype", "scope", NULL}, *const ints[] = {"align", "offset_factor", NULL};
    int base[] = {1, 5 + bo};
    for (int k = 0; strs[k]; k++) {
      rval *v = rd_arg(a, shape_pos + base[k], strs[k]);
      if (v && v->k == RV_NONE) {
        tir_error(r->d, v->sp, "buffer '%s': %s must be a string, not None", name, strs[k]);
        return NULL;
      }
    }
    for (int k = 0; ints[k]; k++) {
      rval *v = rd_arg(a, shape_pos + 6 + bo + k, ints[k]);
      if (v && v->k != RV_INT && v->k != RV_BOOL && v->k != RV_ERR) {
        tir_error(r->d, v->sp, "buffer '%s': %s must be a Python int", name, ints[k]);
        return NULL;
      }
    }
    rval *eo = rd_arg(a, shape_pos + 4, "elem_offset");
    if (eo && eo->k == RV_STR) { /* strides may name a var by a string; elem_offset may not */
      tir_error(r->d, eo->sp, "buffer '%s': elem_offset must be an expression, not a string", name);
      return NULL;
    }
  }
  tir_expr **shape;
  int ndim;
  rval *eo = rd_arg(a, shape_pos + 4, "elem_offset");
  if (!shape_of(r, *sv, &shape, &ndim, eo && eo->k != RV_NONE)) return NULL;
  tir_dtype dt = TIR_FLOAT32;
  rval *dv = rd_arg(a, shape_pos + 1, "dtype");
  if (dv && dv->k != RV_NONE && !rd_parse_dtype(r, *dv, &dt)) return NULL;
  if (tir_dtype_is_handle(dt)) { /* TVM: "PrimType cannot represent an opaque pointer" */
    tir_error(r->d, dv ? dv->sp : a->sp, "a buffer of handle elements: TVM's buffers hold no pointers (a pointer is a T.handle var)");
    return NULL;
  }
  if (!rd_check_shape(r, *sv, shape, ndim, dt, name)) return NULL;
  tir_expr *data = NULL;
  rval *da = rd_arg(a, shape_pos + 2, "data");
  if (da && da->k != RV_NONE) {
    data = rd_as_expr(r, *da);
    if (!data) return NULL;
    if (data->kind != TIR_VAR && r->decl_data_ok && tir_dtype_is_handle(data->dtype) && data->dtype.lanes == 1) {
      r->decl_data_value = data; /* bound to a fresh data var at the declaration */
      data = NULL;
    } else if (data->kind != TIR_VAR || !tir_dtype_is_handle(data->dtype)) {
      tir_error(r->d, da->sp, "buffer data must be a handle variable");
      return NULL;
    }
  }
  tir_expr **strides = NULL;
  int nstrides = 0;
  /* a stride named by a string is a var of the first extent's dtype in
   * T.match_buffer (int32 in the other forms), as TVM makes it */
  tir_dtype str_t = TIR_INT32;
  if (shape_pos == 1 && ndim > 0 && tir_dtype_is_int(shape[0]->dtype)) str_t = shape[0]->dtype;
  rval *st = rd_arg(a, shape_pos + 3, "strides");
  if (st && st->k != RV_NONE) {
    if (st->k != RV_TUPLE) {
      tir_error(r->d, st->sp, "strides must be a list");
      return NULL;
    }
    nstrides = st->n;
    strides = tir_alloc(r->c, sizeof *strides * (size_t)(st->n + 1));
    for (int i = 0; i < st->n; i++)
      if (!(strides[i] = stride_of(r, st->items[i], name, "stride", str_t))) return NULL;
    /* fewer or more strides than dimensions (TVM 0.27's cache_index writes
     * strides=(1,) for a 2-d buffer, and TVM reads it): kept as written;
     * the passes, code generators and interpreter refuse such a buffer
     * (tir_func_check_strides) */
  }
  int align = 0, factor = 0;
  if (!int_opt(r, rd_arg(a, shape_pos + 6 + bo, "align"), &align, "align")) return NULL;
  if (!int_opt(r, rd_arg(a, shape_pos + 7 + bo, "offset_factor"), &factor, "offset_factor")) return NULL;
  tir_expr *off = NULL;
  rval *ov = eo, *bv = bo ? rd_arg(a, shape_pos + 5, "byte_offset") : rd_kwarg(a, "byte_offset");
  if (ov && ov->k != RV_NONE && bv && bv->k != RV_NONE) { /* TVM's _get_elem_offset asserts it */
    tir_error(r->d, bv->sp, "buffer '%s': elem_offset and byte_offset cannot be set at the same time", name);
    return NULL;
  }
  if (ov && ov->k != RV_NONE) {
    if (!(off = stride_of(r, *ov, name, "elem_offset", TIR_INT32))) return NULL;
  } else if (bv && bv->k != RV_NONE) {
    if (!(off = byte_offset_elems(r, *bv, dt, name))) return NULL;
  } else if (factor != 0) {
    size_t n = strlen(name);
    char *vn = tir_alloc(r->c, n + 16);
    memcpy(vn, name, n);
    strcpy(vn + n, "_elem_offset");
    off = tir_var(r->c, vn, ndim ? shape[0]->dtype : TIR_INT32);
  } else {
    off = tir_int(r->c, ndim ? shape[0]->dtype : TIR_INT64, 0); /* TVM's default: a 0 of the first extent's dtype (int64 at rank 0) */
  }
  const char *scope = "global";
  rval *sc = rd_arg(a, shape_pos + 5 + bo, "scope");
  if (sc && sc->k != RV_NONE && !(scope = rd_as_str(r, *sc, "scope"))) return NULL;
  if (data && data->u.var.ptr_scope && strcmp(data->u.var.ptr_scope, scope) && !(sc && sc->k != RV_NONE))
    scope = data->u.var.ptr_scope;
  /* what tirc's buffers do not model is refused, not dropped: a buffer
   * flattened to several dimensions, and broadcasting ("auto") buffers */
  rval *axs = rd_kwarg(a, "axis_separators"), *bt = rd_kwarg(a, "buffer_type");
  if (r->tirx && (axs || bt)) { /* the old dialect's keywords: TVM 0.27's buffer functions take neither */
    tir_error(r->d, (axs ? axs : bt)->sp, "TVM 0.27's buffers take no %s= (the old tir dialect's keyword)",
              axs ? "axis_separators" : "buffer_type");
    return NULL;
  }
  if (axs && axs->k != RV_NONE && !(axs->k == RV_TUPLE && axs->n == 0)) {
    tir_error(r->d, axs->sp, "axis_separators (a buffer flattened to more than one dimension) is not supported");
    return NULL;
  }
  if (bt && bt->k != RV_NONE && !(bt->k == RV_STR && (!strcmp(bt->s, "default") || !*bt->s))) {
    tir_error(r->d, bt->sp, "buffer_type other than \"default\" (a broadcasting \"auto\" buffer) is not supported");
    return NULL;
  }
  tir_buffer *b = tir_buffer_new(r->c, name, dt, shape, ndim, strides, nstrides, off, scope, align,
                                 factor, data);
  if (data && da && da->via && da->via->data == data) b->data_named = da->via;
  b->span = a->sp;
  if (!allocated_addr(r, b, a, form)) return NULL;
  /* layout=None matters only where buffers have a layout by default: a
   * tirx function without s_tir, where the default is T.TileLayout(T.S[shape])
   * (TVM's _get_layout); T.TileLayout(T.S[...]) other than that is kept */
  rval *lay = rd_kwarg(a, "layout");
  bool layouts = r->tirx && r->fn && !r->fn->explicit_s_tir;
  b->layout_none = lay && lay->k == RV_NONE && layouts;
  if (lay && lay->k == RV_LAYOUT && lay->is_list) {
    bool dflt = layouts && lay->n == ndim && !nstrides;
    tir_dtype st_t = default_stride_dtype(shape, ndim); /* the default's strides: row-major from 1 */
    for (int i = 0; dflt && i < ndim; i++) {
      int64_t want = 1, e, s;
      bool konst = true;
      for (int k = i + 1; k < ndim; k++) konst &= tir_is_const_int(shape[k], &e) && (want *= e, true);
      dflt = tir_expr_identical(lay->items[2 * i].e, shape[i]) && konst &&
             tir_is_const_int(lay->items[2 * i + 1].e, &s) && s == want &&
             tir_dtype_eq(lay->items[2 * i + 1].e->dtype, st_t);
    }
    if (!dflt) {
      b->nlayout = lay->n;
      b->layout = tir_alloc(r->c, sizeof *b->layout * (size_t)(2 * lay->n));
      for (int k = 0; k < 2 * lay->n; k++) b->layout[k] = lay->items[k].e;
    }
  } else if (lay && lay->k != RV_NONE && !(lay->k == RV_STR && !strcmp(lay->s, "default"))) {
    if (lay->k != RV_ERR)
      tir_error(r->d, lay->sp, "layout= expects None, \"default\" or T.TileLayout(T.S[extents:strides])");
    return NULL;
  } else if (layouts && !b->layout_none && !nstrides) {
    python_int_layout(r, b, *sv);
  }
  return b;
}

/* ---- block-frame statements ---- */

bool rd_direct_in_block(rd *r, TSNode stmt) {
  if (!r->blk || r->blk->is_root) return false;
  TSNode p = rd_list_canon(r, ts_node_eq(stmt, r->cur_stmt) ? r->cur_list : ts_node_parent(stmt));
  /* the branch of a Python-constant if (`if True:`) is spliced into the
   * list around it, as TVM runs it, and so is the body of a macro called
   * directly in the block: a header there is the block's */
  for (int m = r->nmsplice;; m--) {
    for (int i = r->nsplice - 1; i >= 0 && !ts_node_eq(p, r->blk->body); i--)
      if (ts_node_eq(p, rd_list_canon(r, r->splice[i].branch))) p = rd_list_canon(r, r->splice[i].list);
    if (m == 0 || ts_node_eq(p, r->blk->body) || !ts_node_eq(p, rd_list_canon(r, r->msplice[m - 1].body))) break;
    p = rd_list_canon(r, r->msplice[m - 1].list);
  }
  return ts_node_eq(p, r->blk->body);
}

static tir_span call_span(TSNode call) { return rd_span(call); }

static bool regions(rd *r, rd_args *a, tir_buffer_region **out, int *n) {
  int cnt = 0, cap = 0;
  tir_buffer_region *arr = NULL;
  for (int i = 0; i < a->npos; i++) {
    rval v = a->pos[i];
    int m = v.k == RV_TUPLE ? v.n : 1;
    for (int k = 0; k < m; k++) {
      arr = rd_grow(r->c, arr, cnt, &cap, sizeof *arr);
      if (!rd_as_region(r, v.k == RV_TUPLE ? v.items[k] : v, &arr[cnt])) return false;
      cnt++;
    }
  }
  *out = arr;
  *n = cnt;
  return true;
}

static bool reads_writes(rd *r, const char *tn, rd_args *a) {
  rd_block *b = r->blk;
  bool rd_ = !strcmp(tn, "reads");
  if (rd_ ? b->has_reads : b->has_writes) {
    tir_error(r->d, a->sp, "T.%s given twice for this block", tn);
    return false;
  }
  if (rd_) {
    b->has_reads = true;
    return regions(r, a, &b->reads, &b->n_reads);
  }
  b->has_writes = true;
  return regions(r, a, &b->writes, &b->n_writes);
}

static bool where_(rd *r, rd_args *a) {
  if (a->npos != 1) {
    tir_error(r->d, a->sp, "T.where expects 1 argument, got %d", a->npos);
    return false;
  }
  if (r->blk->predicate) { /* TVM: "Duplicate block predicate declaration" */
    tir_error(r->d, a->sp, "a block has one T.where (join the conditions with 'and')");
    return false;
  }
  rval c = a->pos[0];
  if (c.k == RV_INT && (c.i == 0 || c.i == 1)) c.k = RV_BOOL; /* TVM's T.where(1): a Python 0 or 1 is the bool */
  tir_expr *e = rd_as_expr(r, c);
  if (!e) return false;
  if (!tir_dtype_is_bool(e->dtype)) {
    char s[32];
    tir_error(r->d, a->pos[0].sp, "T.where expects a bool condition, got %s", tir_dtype_str(e->dtype, s));
    return false;
  }
  r->blk->predicate = e;
  return true;
}

/* two values of one key that TVM's merge of two T.sblock_attr dicts takes
 * as the same: Python None, ints, bools, floats and strings of one type
 * and value (a list or a TIR value is another object each time it is
 * written: TVM refuses it twice) */
static bool same_plain_value(const tir_attr_val *x, const tir_attr_val *y) {
  if (x->kind == TIR_AV_NONE && y->kind == TIR_AV_NONE) return true;
  if (x->kind != TIR_AV_EXPR || y->kind != TIR_AV_EXPR || x->typed || y->typed || x->buf || y->buf) return false;
  const tir_expr *a = x->expr, *b = y->expr;
  if (!a || !b || a->kind != b->kind || !tir_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case TIR_INT_IMM: return a->u.int_val == b->u.int_val;
  case TIR_FLOAT_IMM: return a->u.float_val == b->u.float_val;
  case TIR_STRING_IMM: return !strcmp(a->u.str, b->u.str);
  default: return false;
  }
}

static bool block_attr(rd *r, rd_args *a, const char *tn) {
  if (a->npos != 1 || a->pos[0].k != RV_DICT) {
    tir_error(r->d, a->sp, "T.%s expects one dict", tn);
    return false;
  }
  tir_attr_val *v = rd_as_attr(r, a->pos[0]);
  if (!v) return false;
  tir_attr_val *old = r->blk->annots;
  if (old && old->kind == TIR_AV_DICT && v->kind == TIR_AV_DICT) { /* merged, as TVM's: a later key wins */
    const char **keys = tir_alloc(r->c, sizeof *keys * (size_t)(old->n + v->n + 1));
    tir_attr_val **vals = tir_alloc(r->c, sizeof *vals * (size_t)(old->n + v->n + 1));
    int n = 0;
    for (int i = 0; i < old->n; i++) {
      bool again = false;
      for (int j = 0; j < v->n && !again; j++) {
        if (strcmp(old->keys[i], v->keys[j])) continue;
        again = true;
        if (!same_plain_value(old->items[i], v->items[j])) { /* TVM: "Try to merge two annotations with different values" */
          tir_error(r->d, a->pos[0].sp, "T.%s gives key '%s' again with another value (TVM merges two dicts of a "
                    "block only where a repeated key has the same Python int, float, bool, string or None; a list "
                    "or TIR value is another each time)", tn, v->keys[j]);
          return false;
        }
      }
      if (!again) keys[n] = old->keys[i], vals[n++] = old->items[i];
    }
    for (int j = 0; j < v->n; j++) keys[n] = v->keys[j], vals[n++] = v->items[j];
    v = tir_av_dict(r->c, keys, vals, n);
  }
  r->blk->annots = v;
  return true;
}

/* the names assigned: one identifier or a pattern list of them */
/* The names an assignment binds; *star the index of a starred one
 * (`vi, *vs = T.axis.remap(...)`), -1 if none. */
static int targets(rd *r, TSNode left, const char ***names, tir_span **spans, int *star) {
  int n = 0;
  *star = -1;
  uint32_t cnt = rd_is(left, "identifier") ? 1 : rd_child_count(left);
  *names = tir_alloc(r->c, sizeof **names * (cnt + 1));
  *spans = tir_alloc(r->c, sizeof **spans * (cnt + 1));
  if (rd_is(left, "identifier")) {
    (*names)[0] = rd_text(r, left);
    (*spans)[0] = rd_span(left);
    return 1;
  }
  if (!rd_is(left, "pattern_list") && !rd_is(left, "tuple_pattern") && !rd_is(left, "list_pattern")) return -1;
  for (uint32_t i = 0; i < cnt; i++) {
    TSNode c = rd_child(left, i);
    if (rd_is_extra(c)) continue;
    if (rd_is(c, "list_splat_pattern") && *star < 0 && rd_child_count(c) == 1 &&
        rd_is(rd_child(c, 0), "identifier")) {
      *star = n;
      c = rd_child(c, 0);
    } else if (!rd_is(c, "identifier")) return -1;
    (*names)[n] = rd_text(r, c);
    (*spans)[n++] = rd_span(c);
  }
  return n;
}

static void add_iter(rd *r, const char *name, tir_range dom, tir_iter_type ty, tir_expr *value, tir_dtype dt,
                     tir_dom_src src, bool named) {
  rd_block *b = r->blk;
  tir_expr *v = tir_var(r->c, name, dt);
  int cap = b->cap_iter;
  b->iters = rd_grow(r->c, b->iters, b->n_iter, &b->cap_iter, sizeof *b->iters);
  b->values = rd_grow(r->c, b->values, b->n_iter, &cap, sizeof *b->values);
  b->iters[b->n_iter] = (tir_iter_var){v, dom, ty, src};
  b->values[b->n_iter++] = value;
  if (named) rd_push_sym(r, name, rv_expr(v, dom.min ? dom.min->span : (tir_span){0, 0}));
}

static bool axis_one(rd *r, const char *kind, rd_args *a, const char *name) {
  tir_iter_type ty = !strcmp(kind, "spatial") ? TIR_ITER_SPATIAL
                     : !strcmp(kind, "reduce") ? TIR_ITER_REDUCE
                     : !strcmp(kind, "scan")   ? TIR_ITER_ORDERED
                                               : TIR_ITER_OPAQUE;
  static const char *const known[] = {"dom", "binding", "dtype", NULL};
  int unk = rd_unknown_kwarg(a, known);
  if (unk >= 0) {
    tir_error(r->d, a->kwsp[unk], "T.axis.%s takes no keyword argument '%s'", kind, a->kw[unk]);
    return false;
  }
  rval *dom = rd_arg(a, 0, "dom"), *bind = rd_arg(a, 1, "binding");
  if (!dom || !bind) {
    tir_error(r->d, a->sp, "T.axis.%s expects (dom, binding)", kind);
    return false;
  }
  tir_expr *val = rd_as_expr(r, *bind);
  if (!val) return false;
  if (!tir_dtype_is_int(val->dtype)) {
    tir_error(r->d, bind->sp, "T.axis.%s binding must be an integer", kind);
    return false;
  }
  if (val->dtype.code == TIR_TC_UINT) { /* TVM's BlockRealize: "iter_value expected an int" */
    char t[32];
    tir_error(r->d, bind->sp, "T.axis.%s binding must be a signed integer, got %s", kind, tir_dtype_str(val->dtype, t));
    return false;
  }
  /* the var takes the widest of its domain's dtypes and dtype= (int32 by
   * default), as TVM's T.axis.* give it; the binding stays as written (a
   * pass that substitutes it for the var converts it) */
  tir_dtype dt = TIR_INT32;
  rval *dv = rd_arg(a, 2, "dtype"); /* by position too, as Python binds it */
  if (dv && !rd_parse_dtype(r, *dv, &dt)) return false;
  if (!tir_dtype_is_int(dt) || dt.lanes != 1) {
    tir_error(r->d, dv->sp, "T.axis.%s dtype must be a scalar integer type", kind);
    return false;
  }
  const rval *parts = dom->k == RV_TUPLE ? dom->items : dom;
  for (int i = 0; i < (dom->k == RV_TUPLE ? dom->n : 1); i++)
    if (!rd_int_valued(r, parts[i], "an axis domain")) return false;
  bool uext = dom->k == RV_EXPR && dom->e && dom->e->dtype.code == TIR_TC_UINT;
  if (dom->k == RV_TUPLE && dom->n == 2) { /* (min, max): max - min, unsigned where both are */
    uext = true;
    for (int i = 0; i < 2; i++)
      uext &= dom->items[i].k == RV_EXPR && dom->items[i].e && dom->items[i].e->dtype.code == TIR_TC_UINT;
  }
  if (uext) { /* an extent (TVM checks the extent's dtype) */
    char t[32];
    tir_error(r->d, dom->sp, "T.axis.%s domain of %s: TVM's iter var domains are signed integers", kind,
              tir_dtype_str(dom->k == RV_TUPLE ? dom->items[1].e->dtype : dom->e->dtype, t));
    return false;
  }
  /* the extent's own dtype: the widest of the domain's parts, a Python
   * int an int32 (an int64 past int32: TVM's const), as TVM's Range makes
   * it; the var's is the wider of it and dtype=, and TVM refuses the two
   * where they differ (T.axis.spatial(T.int8(4), i) without dtype="int8"),
   * as tirc does */
  tir_dtype ext_t = {0};
  for (int i = 0; i < (dom->k == RV_TUPLE ? dom->n : 1); i++) {
    tir_dtype pt = TIR_INT32;
    if (parts[i].k == RV_EXPR && parts[i].e && tir_dtype_is_int(parts[i].e->dtype)) pt = parts[i].e->dtype;
    else if (parts[i].k == RV_INT && (parts[i].i < INT32_MIN || parts[i].i > INT32_MAX)) pt = TIR_INT64;
    if (!ext_t.bits || pt.bits > ext_t.bits) ext_t = pt;
  }
  if (ext_t.bits > dt.bits) dt = ext_t;
  if (ext_t.bits != dt.bits) {
    char t1[32], t2[32];
    tir_error(r->d, dom->sp,
              "T.axis.%s: the extent is %s but the var is %s (the wider of it and dtype=); TVM's iter vars take "
              "their extent's dtype",
              kind, tir_dtype_str(ext_t, t1), tir_dtype_str(dt, t2));
    return false;
  }
  tir_range rg;
  if (dom->k == RV_TUPLE) {
    if (dom->n != 2) {
      tir_error(r->d, dom->sp, "an axis domain is an extent or a (min, max) pair");
      return false;
    }
    tir_expr *lo = rd_convert(r, dom->items[0], dt), *hi = rd_convert(r, dom->items[1], dt);
    if (!lo || !hi) return false;
    rg = (tir_range){lo, rd_region_extent(r, lo, hi)};
    /* (1, T.int64(8)), (m, n) of an int32 m: TVM keeps a narrower min as
     * written, the extent in the var's type (the passes take the min in
     * the extent's type, tir_module_unify_ranges) */
    tir_expr *own = dom->items[0].k == RV_INT || dom->items[0].k == RV_EXPR ? rd_as_expr(r, dom->items[0]) : NULL;
    if (own && tir_dtype_is_int(own->dtype) && own->dtype.lanes == 1 && own->dtype.bits < dt.bits) rg.min = own;
  } else {
    tir_expr *ext = rd_convert(r, *dom, dt);
    if (!ext) return false;
    /* T.axis.spatial(4294967296, i): TVM's Range(0, n) of Python ints keeps an int32 0 */
    bool py_big = dom->k == RV_INT && (dom->i < INT32_MIN || dom->i > INT32_MAX);
    rg = (tir_range){tir_int(r->c, py_big ? TIR_INT32 : ext->dtype, 0), ext};
  }
  add_iter(r, name, rg, ty, val, dt, TIR_DOM_EXPLICIT, true);
  return true;
}

/* vi, *vs = T.axis.remap("SSS", [i, j, k]): vs the list of the iter vars
 * it takes, named vs_0, vs_1 as TVM names them (those names bind nothing) */
static bool axis_remap(rd *r, rd_args *a, const char **names, tir_span *sps, int n, int star) {
  rval *kinds = rd_arg(a, 0, "kinds"), *binds = rd_arg(a, 1, "bindings"), *dv = rd_arg(a, 2, "dtype");
  tir_dtype ignored;
  /* TVM's AxisRemap takes a dtype and gives each var its loop's: one that
   * is no dtype (None, "x") is refused as TVM refuses it */
  if (dv && !rd_parse_dtype(r, *dv, &ignored)) return false;
  const char *k = kinds ? rd_as_str(r, *kinds, "T.axis.remap kinds") : NULL;
  if (!k) return false;
  if (!binds || binds->k != RV_TUPLE) {
    tir_error(r->d, a->sp, "T.axis.remap expects (kinds, [loop vars])");
    return false;
  }
  const char *star_name = star >= 0 ? names[star] : NULL;
  int star_cnt = star >= 0 ? binds->n - (n - 1) : 0;
  if ((int)strlen(k) != binds->n || (star < 0 ? binds->n != n : star_cnt < 0)) {
    tir_error(r->d, a->sp, "T.axis.remap: %d kinds, %d bindings and %d targets must agree", (int)strlen(k),
              binds->n, star < 0 ? n : n - 1);
    return false;
  }
  if (star >= 0) {
    const char **all = tir_alloc(r->c, sizeof *all * (size_t)(binds->n + 1));
    for (int i = 0, j = 0; i < n; i++) {
      if (i != star) {
        all[j++] = names[i];
        continue;
      }
      for (int t = 0; t < star_cnt; t++) {
        size_t len = strlen(star_name) + 24;
        char *nm = tir_alloc(r->c, len);
        snprintf(nm, len, "%s_%d", star_name, t);
        all[j++] = nm;
      }
    }
    names = all;
    n = binds->n;
  }
  for (int i = 0; i < n; i++) {
    tir_iter_type ty;
    if (k[i] == 'S') ty = TIR_ITER_SPATIAL;
    else if (k[i] == 'R') ty = TIR_ITER_REDUCE;
    else {
      tir_error(r->d, kinds->sp, "T.axis.remap: unknown iterator kind '%c' (expected S or R)", k[i]);
      return false;
    }
    rval bv = binds->items[i];
    rd_loop *lp = bv.k == RV_EXPR ? rd_find_loop(r, bv.e) : NULL;
    if (!lp) {
      tir_error(r->d, bv.sp, "T.axis.remap bindings must be loop variables");
      return false;
    }
    if (lp->extent->dtype.code == TIR_TC_UINT || bv.e->dtype.code == TIR_TC_UINT) {
      char t[32];
      tir_error(r->d, bv.sp, "T.axis.remap of a loop over %s: TVM's iter var domains are signed integers",
                tir_dtype_str(lp->extent->dtype.code == TIR_TC_UINT ? lp->extent->dtype : bv.e->dtype, t));
      return false;
    }
    bool starred = star >= 0 && i >= star && i < star + star_cnt;
    add_iter(r, names[i], (tir_range){lp->min, lp->extent}, ty, bv.e, bv.e->dtype, TIR_DOM_REMAP, !starred);
    (void)sps;
  }
  if (star >= 0) {
    rd_block *b = r->blk;
    rval tv = {.k = RV_TUPLE, .is_list = true, .n = star_cnt, .sp = a->sp};
    rval *items = tir_alloc(r->c, sizeof *items * (size_t)(star_cnt + 1));
    for (int i = 0; i < star_cnt; i++) items[i] = rv_expr(b->iters[b->n_iter - n + star + i].var, a->sp);
    tv.items = items;
    rd_push_sym(r, star_name, tv);
  }
  return true;
}

static tir_buffer *match_param(rd *r, const char *name, rd_args *a) {
  rval *src = rd_arg(a, 0, "param");
  tir_expr *p = src && src->k == RV_EXPR ? src->e : NULL;
  rd_func *fn = r->fn;
  for (int i = 0; p && i < fn->nparams; i++)
    if (fn->params[i] == p) {
      if (!tir_dtype_is_handle(p->dtype)) { /* TVM: match_buffer's param must be a T.handle */
        char t[32];
        tir_error(r->d, src->sp, "T.match_buffer matches a T.handle parameter; '%s' is a %s", p->u.var.name,
                  tir_dtype_str(p->dtype, t));
        return NULL;
      }
      if (fn->bufmap[i]) {
        tir_error(r->d, src->sp, "parameter '%s' is already matched to buffer '%s'", p->u.var.name, fn->bufmap[i]->name);
        return NULL;
      }
      tir_buffer *b = rd_buffer_from_args(r, name, a, 1, "match_buffer");
      if (b) fn->bufmap[i] = b;
      return b;
    }
  tir_error(r->d, src ? src->sp : a->sp, "T.match_buffer outside a block must match a T.handle parameter");
  return NULL;
}

/* TVM's MatchBufferRegion: the view's dtype is the source's; the region has
 * at least the view's dimensions, the leading extra ones of extent 1, and
 * each other extent is the view's shape where that is not a var (proved
 * as TVM proves it: with no facts about the vars) */
static bool match_fits(rd *r, const tir_buffer *b, const tir_buffer_region *src, tir_span sp) {
  char s1[32], s2[32];
  if (!tir_dtype_eq(b->dtype, src->buf->dtype)) {
    tir_error(r->d, sp, "T.match_buffer: '%s' is %s but the region of '%s' it views is %s", b->name,
              tir_dtype_str(b->dtype, s1), src->buf->name, tir_dtype_str(src->buf->dtype, s2));
    return false;
  }
  const char *vs = b->scope ? b->scope : "global", *ss = src->buf->scope ? src->buf->scope : "global";
  if (strcmp(vs, ss)) { /* TVM: "MatchBuffer buffer scope mismatch" */
    tir_error(r->d, sp, "T.match_buffer: '%s' is in scope \"%s\" but '%s', whose region it views, is in \"%s\" (give "
              "scope=\"%s\")", b->name, vs, src->buf->name, ss, ss);
    return false;
  }
  if (src->n < b->ndim) {
    tir_error(r->d, sp, "T.match_buffer: '%s' has %d dimensions, more than the region of '%s' it views (%d)", b->name,
              b->ndim, src->buf->name, src->n);
    return false;
  }
  if (!r->match_an) r->match_an = tir_analyzer_new(r->c, NULL);
  int off = src->n - b->ndim;
  for (int i = 0; i < src->n; i++) {
    tir_expr *want = i < off ? tir_int(r->c, src->region[i].extent->dtype, 1) : b->shape[i - off];
    int64_t x, y; /* constants of one value in two dtypes (1 and T.uint32(1)): equal, as TVM proves them */
    if (want->kind == TIR_VAR || (tir_is_const_int(src->region[i].extent, &x) && tir_is_const_int(want, &y) && x == y) ||
        tir_can_prove_equal(r->match_an, src->region[i].extent, want))
      continue;
    char *e = tir_print_expr(src->region[i].extent), *w = tir_print_expr(want);
    if (i < off)
      tir_error(r->d, sp, "T.match_buffer: dimension %d of the region of '%s' has extent %s, not 1 ('%s' has %d dimensions)",
                i, src->buf->name, e, b->name, b->ndim);
    else
      tir_error(r->d, sp, "T.match_buffer: dimension %d of the region of '%s' has extent %s, not provably %s, the shape of '%s'",
                i, src->buf->name, e, w, b->name);
    free(e);
    free(w);
    return false;
  }
  return true;
}

static tir_buffer *match_region(rd *r, const char *name, rd_args *a) {
  tir_match_buffer m = {.span = a->sp};
  if (!rd_as_region(r, a->pos[0], &m.src)) return NULL;
  m.span = a->pos[0].sp;
  tir_buffer *b = rd_buffer_from_args(r, name, a, 1, "match_buffer");
  if (!b || !match_fits(r, b, &m.src, a->pos[0].sp)) return NULL;
  m.buf = b;
  rd_block *blk = r->blk;
  blk->matches = rd_grow(r->c, blk->matches, blk->n_match, &blk->cap_match, sizeof *blk->matches);
  blk->matches[blk->n_match++] = m;
  return b;
}

static void add_alloc(rd *r, rd_block *b, tir_buffer *buf) {
  b->allocs = rd_grow(r->c, b->allocs, b->n_alloc, &b->cap_alloc, sizeof *b->allocs);
  b->allocs[b->n_alloc++] = buf;
}

/* the names of a block statement are new in its scope, each once (TVM's
 * VarTable); on failure each is bound to an error, so later uses stay quiet */
static bool fresh_names(rd *r, const char **names, const tir_span *sps, int n) {
  bool ok = true;
  for (int i = 0; i < n && ok; i++) {
    for (int j = 0; j < i && ok; j++)
      if (!strcmp(names[i], names[j])) {
        tir_error(r->d, sps[i], "'%s' is bound twice in one statement", names[i]);
        ok = false;
      }
    ok = ok && rd_fresh(r, names[i], sps[i]);
  }
  if (!ok)
    for (int i = 0; i < n; i++) rd_push_sym(r, names[i], (rval){.k = RV_ERR});
  return ok;
}

static const char *one_axis_kind(const char *tn) {
  static const char *const one[][2] = {{"axis.spatial", "spatial"}, {"axis.reduce", "reduce"}, {"axis.scan", "scan"},
                                       {"axis.opaque", "opaque"},   {"axis.S", "spatial"},      {"axis.R", "reduce"}};
  for (size_t i = 0; tn && i < sizeof one / sizeof one[0]; i++)
    if (!strcmp(tn, one[i][0])) return one[i][1];
  return NULL;
}

/* `vi, vj = T.axis.spatial(16, i), T.axis.reduce(16, k)`: each axis of the
 * tuple, every binding read before any name is bound (as Python assigns) */
#define NO_REALIZE_AXIS \
  "a block with no_realize=True binds no iter vars (T.axis.*): TVM allows block bindings only on a realized block"

static bool axis_tuple(rd *r, TSNode stmt, TSNode asg, bool *failed) {
  TSNode left = rd_field(asg, "left"), right = rd_unparen(rd_field(asg, "right"));
  if (!(rd_is(left, "pattern_list") || rd_is(left, "tuple_pattern") || rd_is(left, "list_pattern")) ||
      !(rd_is(right, "expression_list") || rd_is(right, "tuple")))
    return false;
  uint32_t n = rd_child_count(right);
  if (n == 0 || n != rd_child_count(left)) return false;
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = rd_child(right, i);
    if (!rd_is(c, "call") || !one_axis_kind(rd_t_name(r, rd_field(c, "function"))) ||
        !rd_is(rd_child(left, i), "identifier"))
      return false;
  }
  {
    const char **names = tir_alloc(r->c, sizeof *names * n);
    tir_span *sps = tir_alloc(r->c, sizeof *sps * n);
    for (uint32_t i = 0; i < n; i++) names[i] = rd_text(r, rd_child(left, i)), sps[i] = rd_span(rd_child(left, i));
    if (!fresh_names(r, names, sps, (int)n)) return *failed = true;
  }
  if (!rd_direct_in_block(r, stmt)) {
    tir_error(r->d, rd_span(right), "T.axis must be used directly inside a block");
    return *failed = true;
  }
  if (r->blk->no_realize) {
    tir_error(r->d, rd_span(right), NO_REALIZE_AXIS);
    return *failed = true;
  }
  rd_args *a = tir_alloc(r->c, sizeof *a * n);
  bool ok = true;
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = rd_child(right, i);
    r->axis_args = true;
    ok = rd_eval_call_args(r, c, &a[i]) && ok;
    r->axis_args = false;
    a[i].sp = call_span(c);
  }
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = rd_child(right, i);
    const char *name = rd_text(r, rd_child(left, i));
    if (!ok || !axis_one(r, one_axis_kind(rd_t_name(r, rd_field(c, "function"))), &a[i], name)) {
      ok = false;
      rd_push_sym(r, name, (rval){.k = RV_ERR}); /* later uses stay quiet */
    }
  }
  if (!ok) *failed = true;
  return true;
}

static bool frame_assign(rd *r, TSNode stmt, TSNode asg, bool *failed) {
  TSNode right = rd_unparen(rd_field(asg, "right"));
  if (axis_tuple(r, stmt, asg, failed)) return true;
  if (!rd_is(right, "call")) return false;
  const char *tn = rd_t_name(r, rd_field(right, "function"));
  if (!tn) return false;
  bool is_axis = !strncmp(tn, "axis.", 5);
  bool is_match = !strcmp(tn, "match_buffer");
  bool is_alloc = r->tirx ? !strcmp(tn, "sblock_alloc_buffer") : !strcmp(tn, "alloc_buffer");
  if (!is_axis && !is_match && !is_alloc) return false;
  const char **names;
  tir_span *sps;
  int star;
  int n = targets(r, rd_field(asg, "left"), &names, &sps, &star);
  if (star >= 0 && strcmp(tn, "axis.remap")) n = -1; /* a starred target takes a list */
  static const char *const axes[] = {"axis.remap", "axis.spatial", "axis.reduce", "axis.scan", "axis.opaque",
                                     "axis.S", "axis.R", NULL};
  const char *bad = NULL;
  if (is_axis) {
    bad = tn;
    for (int i = 0; axes[i] && bad; i++)
      if (!strcmp(axes[i], tn)) bad = NULL;
  }
  if (bad) {
    const char *near = tir_suggest(tn, axes, -1);
    if (near) tir_error(r->d, rd_span(rd_field(right, "function")), "unknown name 'T.%s'; did you mean 'T.%s'?", tn, near);
    else tir_error(r->d, rd_span(rd_field(right, "function")), "unknown name 'T.%s'", tn);
  } else if (n < 0 || (n != 1 && strcmp(tn, "axis.remap"))) {
    tir_error(r->d, rd_span(asg), "T.%s must be assigned to a name", tn);
  }
  if (bad || n < 0 || (n != 1 && strcmp(tn, "axis.remap"))) {
    for (int i = 0; i < n; i++) rd_push_sym(r, names[i], (rval){.k = RV_ERR}); /* later uses stay quiet */
    return *failed = true;
  }
  if (is_axis && !rd_direct_in_block(r, stmt)) {
    tir_error(r->d, rd_span(right), "T.%s must be used directly inside a block", tn);
    return *failed = true;
  }
  if (is_axis && r->blk->no_realize) {
    tir_error(r->d, rd_span(right), NO_REALIZE_AXIS);
    return *failed = true;
  }
  if (!fresh_names(r, names, sps, n)) return *failed = true;
  rd_args a;
  r->axis_args = is_axis;
  r->region_args = is_match; /* T.match_buffer(A[vi], ...) of a 2-D A: A[vi, 0:n], as TVM reads it */
  bool evaluated = rd_eval_call_args(r, right, &a);
  r->axis_args = false;
  r->region_args = false;
  if (!evaluated) return *failed = true;
  a.sp = call_span(right);
  if (is_axis) {
    bool ok;
    rval err = {.k = RV_ERR};
    if (!strcmp(tn, "axis.remap")) ok = axis_remap(r, &a, names, sps, n, star);
    else if (!strcmp(tn, "axis.spatial") || !strcmp(tn, "axis.reduce") || !strcmp(tn, "axis.scan") ||
             !strcmp(tn, "axis.opaque") || !strcmp(tn, "axis.S") || !strcmp(tn, "axis.R"))
      ok = axis_one(r, tn[5] == 'S' ? "spatial" : tn[5] == 'R' ? "reduce" : tn + 5, &a, names[0]);
    else {
      tir_error(r->d, a.sp, "unknown name 'T.%s'", tn);
      ok = false;
    }
    if (!ok) {
      *failed = true;
      for (int i = 0; i < n; i++) rd_push_sym(r, names[i], err); /* later uses stay quiet */
    }
    return true;
  }
  tir_buffer *b = NULL;
  if (is_match) {
    rd_kw_positional(r, "match_buffer", &a); /* T.match_buffer(param=a, shape=...) */
    if (a.npos < 1) {
      tir_error(r->d, a.sp, "T.match_buffer expects a source and a shape");
      return *failed = true;
    }
    bool region = a.pos[0].k == RV_REGION || a.pos[0].k == RV_BUFFER ||
                  (a.pos[0].k == RV_EXPR && a.pos[0].e->kind == TIR_BUFFER_LOAD);
    if (region && (!r->blk || r->blk->is_root)) {
      bool param_buf = false;
      for (int i = 0; a.pos[0].k == RV_BUFFER && i < r->fn->nparams; i++) param_buf |= r->fn->bufmap[i] == a.pos[0].buf;
      if (param_buf) /* TVM rebinds the parameter to the new buffer; tirc does not */
        tir_error(r->d, a.pos[0].sp,
                  "T.match_buffer of parameter '%s', which is declared a T.Buffer already: tirc matches a T.handle "
                  "parameter (declare it '%s: T.handle')",
                  a.pos[0].buf->name, a.pos[0].buf->name);
      else
        tir_error(r->d, a.sp, "T.match_buffer of a buffer region must be inside a block");
      return *failed = true;
    }
    b = region ? match_region(r, names[0], &a) : match_param(r, names[0], &a);
  } else {
    b = rd_buffer_from_args(r, names[0], &a, 0, tn);
    if (b) add_alloc(r, r->blk ? r->blk : &r->fn->root, b);
  }
  if (!b) {
    rd_push_sym(r, names[0], (rval){.k = RV_ERR});
    return *failed = true;
  }
  rd_push_sym(r, names[0], (rval){.k = RV_BUFFER, .buf = b, .sp = sps[0]});
  return true;
}

static bool frame_call(rd *r, TSNode stmt, TSNode call, bool *failed) {
  const char *tn = rd_t_name(r, rd_field(call, "function"));
  if (!tn) return false;
  const char *attr_name = r->tirx ? "sblock_attr" : "block_attr";
  if (strcmp(tn, "reads") && strcmp(tn, "writes") && strcmp(tn, "where") && strcmp(tn, attr_name)) return false;
  /* T.sblock_attr deeper in a block's body (in a loop of it: TVM's
   * memhammer tests) is the innermost block's, as TVM finds its frame */
  bool deeper_attr = !strcmp(tn, attr_name) && r->blk && !r->blk->is_root;
  if (!deeper_attr && !rd_direct_in_block(r, stmt)) {
    tir_error(r->d, rd_span(call), "T.%s must be used directly inside a block", tn);
    return *failed = true;
  }
  rd_args a;
  r->region_args = !strcmp(tn, "reads") || !strcmp(tn, "writes");
  bool evaluated = rd_eval_call_args(r, call, &a);
  r->region_args = false;
  if (!evaluated) return *failed = true;
  a.sp = rd_span(call);
  rd_kw_positional(r, tn, &a); /* T.where(predicate=c), T.sblock_attr(attrs={...}) */
  if (!rd_no_kwargs(r, &a, tn)) return *failed = true;
  bool ok;
  if (!strcmp(tn, "reads") || !strcmp(tn, "writes")) ok = reads_writes(r, tn, &a);
  else if (!strcmp(tn, "where")) ok = where_(r, &a);
  else ok = block_attr(r, &a, tn);
  if (!ok) *failed = true;
  return true;
}

bool rd_block_frame_stmt(rd *r, TSNode stmt, bool *failed) {
  *failed = false;
  if (!rd_is(stmt, "expression_statement")) return false;
  TSNode e = rd_child(stmt, 0);
  if (rd_is(e, "assignment")) return frame_assign(r, stmt, e, failed);
  if (rd_is(e, "call")) return frame_call(r, stmt, e, failed);
  return false;
}

/* ---- blocks ---- */

/* the buffer over data visible where the block stands (parameters,
 * statement-level declarations, enclosing blocks' allocations and match
 * buffers, the first declared first): a tvm_access_ptr in the block names
 * it by its data var only.  Asked only for such a call, so that a block
 * costs nothing for the names in scope. */
static tir_buffer *buffer_in_scope(void *arg, const tir_expr *data) {
  rd *r = arg;
  for (int i = 0; i < r->nsyms; i++)
    if (r->syms[i].val.k == RV_BUFFER && r->syms[i].val.buf && r->syms[i].val.buf->data == data)
      return r->syms[i].val.buf;
  for (rd_block *p = r->blk; p; p = p->parent)
    for (int i = 0; i < p->n_alloc; i++)
      if (p->allocs[i] && p->allocs[i]->data == data) return p->allocs[i];
  for (int i = 0; r->fn && i < r->fn->root.n_alloc; i++)
    if (r->fn->root.allocs[i] && r->fn->root.allocs[i]->data == data) return r->fn->root.allocs[i];
  return NULL;
}

/* TVM's bare SBlock (no_realize=True): no bindings, no T.where (TVM's
 * checks); its regions as written, the rest inferred from its body only
 * where TVM's ScriptComplete runs (rd_finish_root), empty otherwise; a
 * realize of no values and no predicate holds it in tirc's IR */
static tir_stmt *finish_bare_block(rd *r, rd_block *b) {
  tir_block *blk = b->blk;
  if (b->n_iter) {
    tir_span sp = b->values[0] && b->values[0]->span.line ? b->values[0]->span : blk->span;
    tir_error(r->d, sp, NO_REALIZE_AXIS);
    return NULL;
  }
  if (b->predicate) {
    tir_error(r->d, b->predicate->span.line ? b->predicate->span : blk->span,
              "a block with no_realize=True takes no T.where: TVM allows a predicate only on a realized block");
    return NULL;
  }
  blk->no_realize = true;
  struct rd_bare e = {blk, NULL, NULL, 0, 0, b->has_reads, b->has_writes};
  if (!b->has_reads || !b->has_writes)
    tir_block_infer_access_by(r->c, blk, buffer_in_scope, r, &e.rs, &e.nr, &e.ws, &e.nw);
  rd_func *fn = r->fn;
  fn->bare = rd_grow(r->c, fn->bare, fn->nbare, &fn->cap_bare, sizeof *fn->bare);
  fn->bare[fn->nbare++] = e;
  blk->regions_known = true;
  blk->regions_inferred = 0; /* printed always, as TVM prints them */
  tir_stmt *s = tir_block_realize(r->c, NULL, 0, NULL, blk);
  s->span = blk->span;
  if (!b->parent) r->fn->last_top = blk;
  return s;
}

static tir_stmt *finish_block(rd *r, rd_block *b, tir_stmt *body) {
  tir_block *blk = b->blk;
  blk->iter_vars = b->iters;
  blk->n_iter = b->n_iter;
  blk->alloc_buffers = b->allocs;
  blk->n_alloc = b->n_alloc;
  blk->match_buffers = b->matches;
  blk->n_match = b->n_match;
  blk->init = b->init;
  blk->body = body;
  blk->annotations = b->annots;
  blk->reads = b->reads;
  blk->n_reads = b->n_reads;
  blk->writes = b->writes;
  blk->n_writes = b->n_writes;
  if (b->no_realize) return finish_bare_block(r, b);
  if (!b->has_reads || !b->has_writes) {
    tir_buffer_region *rs = NULL, *ws = NULL;
    int nr = 0, nw = 0;
    tir_block_infer_access_by(r->c, blk, buffer_in_scope, r, &rs, &nr, &ws, &nw);
    if (!b->has_reads) blk->reads = rs, blk->n_reads = nr;
    if (!b->has_writes) blk->writes = ws, blk->n_writes = nw;
  }
  blk->regions_known = true;
  blk->regions_inferred = (unsigned char)((b->has_reads ? 0 : 1) | (b->has_writes ? 0 : 2));
  tir_stmt *s = tir_block_realize(r->c, b->values, b->n_iter, b->predicate, blk);
  s->span = blk->span;
  if (!b->parent) {
    r->fn->last_top = blk;
    r->fn->last_top_reads = b->has_reads;
    r->fn->last_top_writes = b->has_writes;
  }
  return s;
}

tir_stmt *rd_with_block(rd *r, TSNode with, TSNode call, const char *tname) {
  rd_args a;
  if (!rd_eval_call_args(r, call, &a)) return NULL;
  a.sp = rd_span(call);
  const char *name = "";
  bool no_realize = false;
  rval *nv = rd_arg(&a, 0, "name");
  if (nv && !(name = rd_as_str(r, *nv, "the block name"))) return NULL;
  if (a.npos > (r->tirx ? 3 : 1)) {
    tir_error(r->d, a.sp, "T.%s expects at most %d argument%s, got %d", tname, r->tirx ? 3 : 1, r->tirx ? "s" : "",
              a.npos);
    return NULL;
  }
  /* TVM 0.27's sblock(name, no_realize, exec_scope): the later two by position too */
  static const char *const later[] = {"no_realize", "exec_scope"};
  for (int i = 1; i < a.npos; i++) rd_add_kwarg(r, &a, later[i - 1], a.pos[i], a.pos[i].sp);
  if (a.npos > 1) a.npos = 1;
  for (int i = 0; i < a.nkw; i++) {
    if (!strcmp(a.kw[i], "name")) continue;
    /* TVM 0.27 takes exec_scope= ("thread", "cta", ...) and keeps it nowhere: its program is the same without */
    if (!strcmp(a.kw[i], "exec_scope") && a.kwv[i].k == RV_STR) continue;
    if (!strcmp(a.kw[i], "no_realize")) { /* TVM's SBlock with no SBlockRealize around it */
      if (a.kwv[i].k == RV_BOOL || a.kwv[i].k == RV_INT) { /* an int as its truth (TVM's FFI bool) */
        no_realize = a.kwv[i].i != 0;
        continue;
      }
      tir_error(r->d, a.kwsp[i], "T.%s's no_realize must be True or False", tname);
      return NULL;
    }
    tir_error(r->d, a.kwsp[i], "T.%s takes no keyword argument '%s'", tname, a.kw[i]);
    return NULL;
  }
  if (r->block_suffix && *r->block_suffix && *name) { /* a macro's second expansion and later: "z_1" (TVM 0.27's) */
    size_t ln = strlen(name), ls = strlen(r->block_suffix);
    char *s = tir_alloc(r->c, ln + ls + 1);
    memcpy(s, name, ln);
    memcpy(s + ln, r->block_suffix, ls + 1);
    name = s;
  }
  rd_block b = {.blk = tir_block_new(r->c, name), .parent = r->blk, .body = rd_field(with, "body"),
               .no_realize = no_realize};
  b.blk->span = rd_span(with);
  if (!no_realize) r->fn->nblocks++;
  int mark = r->nsyms, frame = r->frame;
  r->frame = mark;
  r->blk = &b;
  int saved_depth = r->loop_depth; /* break/continue do not cross a block */
  r->loop_depth = 0;
  tir_stmt *body = rd_stmts(r, b.body, 0);
  r->loop_depth = saved_depth;
  r->blk = b.parent;
  rd_pop_syms(r, mark);
  r->frame = frame;
  if (!body) return NULL;
  return finish_block(r, &b, body);
}

/* TVM 0.27's rule: a function body that is one block without iter vars
 * (whatever its name) and no function-level allocation is the root block
 * itself; its reads and writes are not inferred (empty unless written) */
static bool is_explicit_root(const rd_func *fn, const tir_stmt *s) {
  return s && s->kind == TIR_BLOCK_REALIZE && s->u.realize.block == fn->last_top &&
         s->u.realize.block->n_iter == 0 && !s->u.realize.block->no_realize;
}

tir_stmt *rd_finish_root(rd *r, tir_stmt *body) {
  rd_func *fn = r->fn;
  if (fn->nblocks == 0 && fn->root.n_alloc == 0) {
    /* bare blocks only: no root, their regions as written (TVM's reader
     * infers none where the function has no realized block) */
    if (fn->nbare) {
      if (r->tirx && !fn->explicit_s_tir) fn->f->s_tir_implicit = true;
      fn->f->s_tir = true;
    }
    return body;
  }
  for (int i = 0; i < fn->nbare; i++) { /* TVM's ScriptComplete infers what they do not give */
    struct rd_bare *e = &fn->bare[i];
    if (!e->has_reads) e->blk->reads = e->rs, e->blk->n_reads = e->nr;
    if (!e->has_writes) e->blk->writes = e->ws, e->blk->n_writes = e->nw;
  }
  if (r->tirx && !fn->explicit_s_tir) fn->f->s_tir_implicit = true; /* s_tir=True not written */
  fn->f->s_tir = true;
  if (fn->root.n_alloc == 0 && is_explicit_root(fn, body)) {
    tir_block *b = body->u.realize.block;
    if (!fn->last_top_reads) b->reads = NULL, b->n_reads = 0;
    if (!fn->last_top_writes) b->writes = NULL, b->n_writes = 0;
    fn->f->root_written = true;
    return body;
  }
  tir_block *blk = tir_block_new(r->c, "root");
  blk->alloc_buffers = fn->root.allocs;
  blk->n_alloc = fn->root.n_alloc;
  blk->body = body;
  return tir_block_realize(r->c, NULL, 0, NULL, blk);
}
