/* printer.c - TVMScript printing of statements, blocks, functions and
 * modules, in the layout of apache-tvm's own printer: 4-space indent,
 * T.grid folding, T.axis.remap, the implicit root block as a comment.
 * Expressions and names are in printer_expr.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/printer.h"
#include "ir/ptrmap.h"
#include "tir/visit.h"

static bool tirx(const printer *p) { return p->dialect == TIR_DIALECT_TIRX; }

static void line(printer *p) {
  for (int i = 0; i < p->indent; i++) pr_puts(&p->out, "    ");
}

static bool is_const(const tir_expr *e, int64_t v) {
  return e && e->kind == TIR_INT_IMM && !tir_dtype_is_bool(e->dtype) && e->u.int_val == v;
}

static bool is_true(const tir_expr *e) {
  return !e || (e->kind == TIR_INT_IMM && tir_dtype_is_bool(e->dtype) && e->u.int_val);
}

static bool av_empty(const tir_attr_val *a) { return !a || a->n == 0; }

/* ------------------------------------------------------------------ */
/* attribute values                                                    */

static void pr_region(printer *p, const tir_buffer_region *r);

static void pr_attr_val(printer *p, const tir_attr_val *a);
static void declare_placed_vars(printer *p, const tir_stmt *s);

typedef struct key_at {
  const char *key;
  int i;
} key_at;

/* by key, then as written (a stable order) */
static int key_at_cmp(const void *x, const void *y) {
  const key_at *a = x, *b = y;
  int c = strcmp(a->key, b->key);
  return c ? c : (a->i > b->i) - (a->i < b->i);
}

static void pr_attr_dict(printer *p, const tir_attr_val *a, const char *skip_key, const char *skip_val) {
  int n = a->n;
  key_at *ord = malloc(sizeof *ord * (size_t)(n ? n : 1));
  if (!ord) abort();
  for (int i = 0; i < n; i++) ord[i] = (key_at){a->keys[i], i};
  qsort(ord, (size_t)n, sizeof *ord, key_at_cmp); /* keys in sorted order, as TVM prints them */
  pr_puts(&p->out, "{");
  bool first = true;
  for (int k = 0; k < n; k++) {
    int i = ord[k].i;
    const tir_attr_val *v = a->items[i];
    if (skip_key && !strcmp(a->keys[i], skip_key) && v && v->kind == TIR_AV_EXPR && v->expr &&
        v->expr->kind == TIR_STRING_IMM && !strcmp(v->expr->u.str, skip_val))
      continue;
    if (!first) pr_puts(&p->out, ", ");
    first = false;
    pr_string_lit(&p->out, a->keys[i]);
    pr_puts(&p->out, ": ");
    pr_attr_val(p, v);
  }
  pr_puts(&p->out, "}");
  free(ord);
}

/* T.index_map(lambda i, j: (r0, r1), inverse_index_map=lambda ...: (...),
 * index_dtype="int32"): the results always a tuple, as TVM prints them;
 * the dtype when not TVM's default int64 */
static void pr_index_map(printer *p, const tir_attr_val *a, bool outer) {
  const tir_attr_val *params = a->items[0], *res = a->items[1];
  int mark = p->nnames;
  pr_puts(&p->out, outer ? "T.index_map(lambda " : "lambda ");
  for (int i = 0; i < params->n; i++) {
    if (i) pr_puts(&p->out, ", ");
    pr_puts(&p->out, pr_define(p, params->items[i]->expr, params->items[i]->expr->u.var.name));
  }
  pr_puts(&p->out, ": (");
  bool in_lambda = p->in_lambda;
  p->in_lambda = true;
  for (int i = 0; i < res->n; i++) {
    if (i) pr_puts(&p->out, ", ");
    pr_expr(p, res->items[i]->expr);
  }
  p->in_lambda = in_lambda;
  pr_puts(&p->out, res->n == 1 ? ",)" : ")");
  pr_pop_to(p, mark);
  if (!outer) return;
  if (a->n > 2) {
    pr_puts(&p->out, ", inverse_index_map=");
    pr_index_map(p, a->items[2], false);
  }
  if (params->n && !tir_dtype_eq(params->items[0]->expr->dtype, TIR_INT64)) {
    char ty[32];
    pr_printf(&p->out, ", index_dtype=\"%s\"", tir_dtype_str(params->items[0]->expr->dtype, ty));
  }
  pr_puts(&p->out, ")");
}

/* open, a's items comma-separated, close */
static void pr_attr_items(printer *p, const tir_attr_val *a, const char *open, const char *close) {
  pr_puts(&p->out, open);
  for (int i = 0; i < a->n; i++) {
    if (i) pr_puts(&p->out, ", ");
    pr_attr_val(p, a->items[i]);
  }
  pr_puts(&p->out, close);
}

/* a Map's key: a list as a tuple, which Python can hash (TVM prints the
 * Array key [1, 2], which it cannot read back) */
static void pr_av_key(printer *p, const tir_attr_val *a) {
  if (!a || a->kind != TIR_AV_LIST) {
    pr_attr_val(p, a);
    return;
  }
  pr_puts(&p->out, "(");
  for (int i = 0; i < a->n; i++) {
    if (i) pr_puts(&p->out, ", ");
    pr_av_key(p, a->items[i]);
  }
  pr_puts(&p->out, a->n == 1 ? ",)" : ")");
}

static void pr_attr_val(printer *p, const tir_attr_val *a) {
  if (!a) {
    pr_puts(&p->out, "None");
    return;
  }
  switch (a->kind) {
  case TIR_AV_EXPR:
    if (a->buf) /* a buffer as the value (layout_free_placeholders) */
      pr_buffer_name(p, a->buf);
    else if (a->typed && a->expr && a->expr->kind == TIR_INT_IMM && tir_dtype_is_bool(a->expr->dtype))
      pr_expr(p, a->expr);
    else if (a->expr && a->expr->kind == TIR_INT_IMM && tir_dtype_is_bool(a->expr->dtype))
      pr_puts(&p->out, a->expr->u.int_val ? "True" : "False");
    else if (a->expr && a->expr->kind == TIR_INT_IMM && a->expr->dtype.lanes == 1) {
      /* int64: a Python int (TVM's boxed int), bare, unless written typed;
       * any other: the IntImm, typed */
      char buf[64], ty[32];
      if (tir_dtype_eq(a->expr->dtype, TIR_INT64) && !a->typed) snprintf(buf, sizeof buf, "%lld", (long long)a->expr->u.int_val);
      else snprintf(buf, sizeof buf, "T.%s(%lld)", tir_dtype_str(a->expr->dtype, ty), (long long)a->expr->u.int_val);
      pr_puts(&p->out, buf);
    } else if (a->expr && a->expr->kind == TIR_FLOAT_IMM && tir_dtype_eq(a->expr->dtype, TIR_FLOAT64) &&
               !isfinite(a->expr->u.float_val) && !a->typed) { /* a Python float inf or nan */
      double v = a->expr->u.float_val;
      pr_puts(&p->out, isnan(v) ? (signbit(v) ? "float(\"-nan\")" : "float(\"nan\")")
                                : v > 0 ? "float(\"inf\")" : "float(\"-inf\")");
    } else if (a->expr && a->expr->kind == TIR_FLOAT_IMM && tir_dtype_eq(a->expr->dtype, TIR_FLOAT64) &&
               isfinite(a->expr->u.float_val) && !a->typed) { /* a Python float: its shortest repr */
      char buf[40];
      double v = a->expr->u.float_val;
      for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
      }
      if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
      pr_puts(&p->out, buf);
    } else
      pr_expr(p, a->expr);
    break;
  case TIR_AV_LIST:
    pr_attr_items(p, a, "[", "]");
    break;
  case TIR_AV_DICT:
    pr_attr_dict(p, a, NULL, NULL);
    break;
  case TIR_AV_MAP: /* {1: 2, n: 3}: in the order written, as TVM prints it */
    pr_puts(&p->out, "{");
    for (int i = 0; i + 1 < a->n; i += 2) {
      if (i) pr_puts(&p->out, ", ");
      pr_av_key(p, a->items[i]);
      pr_puts(&p->out, ": ");
      pr_attr_val(p, a->items[i + 1]);
    }
    pr_puts(&p->out, "}");
    break;
  case TIR_AV_INDEX_MAP: pr_index_map(p, a, true); break;
  case TIR_AV_NONE: pr_puts(&p->out, "None"); break;
  case TIR_AV_ITER_VAR: /* T.iter_var(v, None, "ThreadIndex", "threadIdx.x"): v declared first (pr_func_prologue) */
    pr_attr_items(p, a, "T.iter_var(", ")");
    break;
  case TIR_AV_REGION: { /* A[0:4, n]: TVM's print; all dims of extent 1 as slices, A[n:n + 1], not a load */
    int n = a->n / 2;
    bool all_points = n > 0;
    tir_range *rg = malloc(sizeof *rg * (size_t)(n ? n : 1));
    if (!rg) abort();
    for (int i = 0; i < n; i++) {
      rg[i].min = a->items[2 * i]->expr;
      rg[i].extent = a->items[2 * i + 1]->expr;
      int64_t e;
      all_points &= tir_is_const_int(rg[i].extent, &e) && e == 1;
    }
    tir_buffer_region reg = {.buf = a->buf, .region = rg, .n = n};
    if (!all_points) {
      pr_region(p, &reg);
    } else {
      pr_buffer_name(p, a->buf);
      pr_puts(&p->out, "[");
      for (int i = 0; i < n; i++) {
        if (i) pr_puts(&p->out, ", ");
        pr_expr(p, rg[i].min);
        pr_puts(&p->out, ":");
        tir_expr one = {.kind = TIR_INT_IMM, .dtype = rg[i].min->dtype, .u.int_val = 1};
        tir_expr sum = {.kind = TIR_ADD, .dtype = rg[i].min->dtype, .u.bin = {rg[i].min, &one}};
        int64_t m;
        if (tir_is_const_int(rg[i].min, &m)) {
          sum = (tir_expr){.kind = TIR_INT_IMM, .dtype = rg[i].min->dtype, .u.int_val = m + 1};
        }
        pr_expr(p, &sum);
      }
      pr_puts(&p->out, "]");
    }
    free(rg);
    break;
  }
  case TIR_AV_RANGE: /* T.Range(begin, end) as written */
    pr_puts(&p->out, "T.Range(");
    pr_expr(p, a->items[0]->expr);
    pr_puts(&p->out, ", ");
    pr_expr(p, a->items[1]->expr);
    pr_puts(&p->out, ")");
    break;
  case TIR_AV_VDEVICE: /* as written: TVM builds the same VDevice from it */
    pr_attr_items(p, a, "I.vdevice(", ")");
    break;
  case TIR_AV_TARGET: /* as written: TVM builds the same Target from it */
    pr_puts(&p->out, "T.target(");
    pr_attr_val(p, a->items[0]);
    if (a->n > 1) {
      pr_puts(&p->out, ", host=");
      pr_attr_val(p, a->items[1]);
    }
    pr_puts(&p->out, ")");
    break;
  }
}

/* ------------------------------------------------------------------ */
/* buffers and regions                                                 */

typedef enum { BUF_PARAM, BUF_OTHER } buf_ctx;

static void pr_expr_tuple(printer *p, tir_expr *const *es, int n) {
  pr_puts(&p->out, "(");
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(&p->out, ", ");
    pr_expr(p, es[i]);
  }
  if (n == 1) pr_puts(&p->out, ",");
  pr_puts(&p->out, ")");
}

/* the name of a data var in data=: its first name in scope (the buffer
 * that owns it), not the name a later declaration over it gives its uses
 * (data_as_declared) */
static const char *data_name(const printer *p, const void *var) {
  const pr_name *e = pr_entry(p, var);
  return e ? p->names[e->first].text : NULL;
}

/* shape, dtype and the keyword arguments that differ from the defaults;
 * the buffer's data var is printed as data= when it already has a name */
static void pr_buffer_args(printer *p, const tir_buffer *b, buf_ctx ctx) {
  pr_expr_tuple(p, b->shape, b->ndim);
  if (ctx == BUF_PARAM || !tir_dtype_eq(b->dtype, TIR_FLOAT32)) {
    pr_puts(&p->out, ", ");
    pr_dtype_str(&p->out, b->dtype);
  }
  const char *data = data_name(p, b->data);
  const char *via = b->data_named && b->data_named->data == b->data ? pr_lookup(p, b->data_named) : NULL;
  if (data && via && strcmp(via, data)) { /* data=X.data as written (TVM's buffer_data(X)) */
    pr_printf(&p->out, ", data=%s%s", via, pr_data_suffix(p, b->data_named));
  } else if (p->data_let_var && p->data_let_var == b->data) {
    pr_printf(&p->out, ", data=%s", p->data_let_value);
    p->data_let_var = NULL;
  } else if (data) {
    pr_printf(&p->out, ", data=%s", data);
  }
  if (b->nstrides) {
    pr_puts(&p->out, ", strides=");
    pr_expr_tuple(p, b->strides, b->nstrides);
  }
  /* a 0 of another dtype than the default one (the first extent's, as the
   * reader and TVM give an elem_offset not written) is written: TVM reads
   * `elem_offset=0` as an int32 0 beside int64 extents; so is a 0 beside
   * offset_factor > 1, which without it TVM reads as a fresh var */
  tir_dtype def_t = b->ndim ? b->shape[0]->dtype : TIR_INT64;
  if (!is_const(b->elem_offset, 0) || !tir_dtype_eq(b->elem_offset->dtype, def_t) || b->offset_factor > 1) {
    pr_puts(&p->out, ", elem_offset=");
    pr_expr(p, b->elem_offset);
  }
  if (b->scope && strcmp(b->scope, "global")) {
    pr_puts(&p->out, ", scope=");
    pr_string_lit(&p->out, b->scope);
  }
  if (b->data_alignment && b->data_alignment != 64) pr_printf(&p->out, ", align=%d", b->data_alignment);
  if (b->offset_factor > 1 || b->offset_factor < 0 || (b->offset_factor == 1 && !is_const(b->elem_offset, 0)))
    pr_printf(&p->out, ", offset_factor=%d", b->offset_factor);
  if (b->naxis_sep) {
    pr_puts(&p->out, ", axis_separators=[");
    for (int i = 0; i < b->naxis_sep; i++) pr_printf(&p->out, "%s%d", i ? ", " : "", b->axis_separators[i]);
    pr_puts(&p->out, "]");
  }
  if (b->layout_none && tirx(p)) pr_puts(&p->out, ", layout=None");
  if (b->nlayout && !b->layout_none && tirx(p)) { /* T.TileLayout(T.S[e:s]), T.S[(e0, e1):(s0, s1)] */
    pr_puts(&p->out, ", layout=T.TileLayout(T.S[");
    for (int part = 0; part < 2; part++) {
      if (part) pr_puts(&p->out, ":");
      if (b->nlayout > 1) pr_puts(&p->out, "(");
      for (int i = 0; i < b->nlayout; i++) {
        if (i) pr_puts(&p->out, ", ");
        pr_expr(p, b->layout[2 * i + part]);
      }
      if (b->nlayout > 1) pr_puts(&p->out, ")");
    }
    pr_puts(&p->out, "])");
  }
  if (b->naddr && tirx(p)) { /* TVM 0.27: one address bare, several as a list */
    pr_puts(&p->out, b->naddr > 1 ? ", allocated_addr=[" : ", allocated_addr=");
    for (int i = 0; i < b->naddr; i++) {
      if (i) pr_puts(&p->out, ", ");
      pr_expr(p, b->addr[i]);
    }
    if (b->naddr > 1) pr_puts(&p->out, "]");
  }
}

/* takes back what was printed since start, as a malloc'd string */
static char *take_since(printer *p, size_t start) {
  size_t n = p->out.len - start;
  char *s = malloc(n + 1);
  if (!s) abort();
  memcpy(s, p->out.s + start, n + 1);
  p->out.len = start;
  p->out.s[start] = 0;
  return s;
}

/* the buffer's arguments, printed before its name is defined (so that
 * data= appears only for a data var named elsewhere) */
static char *buffer_args_str(printer *p, const tir_buffer *b, buf_ctx ctx) {
  size_t start = p->out.len;
  pr_buffer_args(p, b, ctx);
  return take_since(p, start);
}

/* defines the buffer's name, and its data var as NAME.data unless the data
 * var already has a name */
const char *pr_data_suffix(const printer *p, const tir_buffer *b) {
  return tirx(p) && b && b->scalar ? ".source.data" : ".data";
}

static const char *define_buffer(printer *p, const tir_buffer *b) {
  bool data_named = pr_lookup(p, b->data) != NULL;
  const char *name = pr_define(p, b, b->name);
  if (!data_named) {
    const char *suffix = pr_data_suffix(p, b);
    size_t n = strlen(name) + strlen(suffix) + 1;
    char *s = malloc(n);
    if (!s) abort();
    memcpy(s, name, strlen(name));
    memcpy(s + strlen(name), suffix, strlen(suffix) + 1);
    pr_define_alias(p, b->data, s, b);
    free(s);
  }
  return name;
}

/* `B = T.Buffer(shape, ...)`: a buffer nothing in scope declares, named
 * here (its data var too, as B.data, unless that already has a name) */
static void declare_buffer(printer *p, const tir_buffer *b) {
  char *args = buffer_args_str(p, b, BUF_OTHER);
  const char *name = define_buffer(p, b);
  line(p);
  pr_printf(&p->out, "%s = T.Buffer(%s)\n", name, args);
  free(args);
}

/* `v = T.int32()`: a var nothing binds, declared and named here */
static void declare_var(printer *p, const tir_expr *v) {
  const char *name = pr_define(p, v, v->u.var.name);
  line(p);
  pr_printf(&p->out, "%s = ", name);
  pr_var_decl_ctor(p, v);
  pr_puts(&p->out, "\n");
}

/* a buffer an annotation names that nothing in scope declares (TVM's
 * `B = T.Buffer(shape)` in a body, a buffer object with no statement):
 * declared so before the annotation */
static void declare_av_buffers(printer *p, const tir_attr_val *a) {
  if (!a) return;
  if ((a->kind == TIR_AV_EXPR || a->kind == TIR_AV_REGION) && a->buf && !pr_lookup(p, a->buf)) {
    declare_buffer(p, a->buf);
    return;
  }
  if (a->kind == TIR_AV_LIST || a->kind == TIR_AV_DICT || a->kind == TIR_AV_MAP)
    for (int i = 0; i < a->n; i++) declare_av_buffers(p, a->items[i]);
}

/* the end of a range printed as `min:end` or `(min, end)`: TVM reads the
 * extent back as end - min (of the two's types).  An extent that is
 * end - min prints its end where the types differ (TVM's min + extent would
 * be another type); else min + extent, as TVM prints it (the reader may
 * have folded end - min, so that its end is no longer the text's), in
 * type et (a sum of two constants folded) */
static void pr_range_end(printer *p, tir_expr *mn, tir_expr *ex, tir_dtype et) {
  int64_t a, b;
  if (!(tir_is_const_int(mn, &a) && tir_is_const_int(ex, &b)) && is_const(mn, 0)) {
    pr_expr(p, ex); /* (0, n): TVM's extent n - 0 is n, whatever 0's type */
  } else if (!tir_dtype_eq(mn->dtype, ex->dtype) && ex->kind == TIR_SUB &&
             (pr_deep_equal(ex->u.bin.b, mn) ||
              (ex->u.bin.b->kind == TIR_CAST && pr_deep_equal(ex->u.bin.b->u.un.a, mn)) ||
              (tir_is_const_int(mn, &a) && tir_is_const_int(ex->u.bin.b, &b) && a == b))) {
    /* the extent is end - min (A[n:T.uint32(8)]: TVM's T.uint32(8) - T.Cast("uint32", n);
     * (1, n) of an int64 n: n - T.int64(1)): the end as read */
    pr_expr(p, ex->u.bin.a);
  } else if (tir_is_const_int(mn, &a) && tir_is_const_int(ex, &b)) {
    tir_expr sum = {.kind = TIR_INT_IMM, .dtype = et, .u.int_val = a + b};
    pr_expr(p, &sum);
  } else {
    tir_expr sum = {.kind = TIR_ADD, .dtype = et, .u.bin = {mn, ex}};
    pr_expr(p, &sum);
  }
}

static void pr_region(printer *p, const tir_buffer_region *r) {
  pr_buffer_name(p, r->buf);
  /* a local scalar's name reads as its value: its buffer is x.source, as TVM prints it */
  if (tirx(p) && r->buf->scalar) pr_puts(&p->out, ".source");
  pr_puts(&p->out, "[");
  for (int i = 0; i < r->n; i++) {
    if (i) pr_puts(&p->out, ", ");
    tir_expr *mn = r->region[i].min, *ex = r->region[i].extent;
    pr_expr(p, mn);
    if (is_const(ex, 1)) continue;
    pr_puts(&p->out, ":");
    /* the end in the wider type: A[0:T.int64(8)], an int32 min (TVM's); in
     * the extent's type beside a literal min of as many bits, A[3:T.uint32(8)]
     * (TVM's extent is hi - lo with the literal taking hi's type) */
    tir_dtype et = ex->dtype.bits > mn->dtype.bits ||
                           (ex->dtype.bits == mn->dtype.bits && mn->kind == TIR_INT_IMM)
                       ? ex->dtype
                       : mn->dtype;
    pr_range_end(p, mn, ex, et);
  }
  if (r->n == 0) pr_puts(&p->out, "()");
  pr_puts(&p->out, "]");
}

static void pr_regions(printer *p, const char *fn, const tir_buffer_region *rs, int n) {
  line(p);
  pr_printf(&p->out, "T.%s(", fn);
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(&p->out, ", ");
    pr_region(p, &rs[i]);
  }
  pr_puts(&p->out, ")\n");
}

/* ------------------------------------------------------------------ */
/* statements                                                          */

static void pr_stmt(printer *p, const tir_stmt *s);

/* the end of a name a flat statement defined (`a = T.alloc_buffer(...)`,
 * `x: T.let[...] = v`, `tx = T.launch_thread(...)`).  In the body of an
 * `if True:`, which TVM reads in the enclosing scope, the name stays taken
 * there (a reserved entry no node looks up), so that a later flat
 * statement of the same name is printed under another: TVM refuses to
 * define a name twice in one scope */
static void pr_pop_flat(printer *p, int mark) {
  if (!p->if_true_tail) {
    pr_pop_to(p, mark);
    return;
  }
  pr_reserve_from(p, mark);
}

static void pr_body(printer *p, const tir_stmt *s) {
  bool tail = p->if_true_tail; /* a body of its own: TVM's scope */
  p->if_true_tail = false;
  int mark = p->nnames;
  p->indent++;
  if (s) pr_stmt(p, s);
  else { line(p); pr_puts(&p->out, "T.evaluate(0)\n"); }
  p->indent--;
  p->if_true_tail = tail;
  /* the free vars declared in it (place_free_vars) are its own: their names free again, as TVM's */
  if (p->nnames > mark && p->fv_at.n) pr_forget_from(p, mark, &p->fv_at);
}

static void push_loop(printer *p, const tir_stmt *s) {
  if (p->nloops == p->caploops) {
    int cap = p->caploops ? p->caploops * 2 : 16;
    const tir_stmt **l = realloc(p->loops, sizeof *l * (size_t)cap);
    if (!l) abort();
    p->loops = l;
    p->caploops = cap;
  }
  p->loops[p->nloops++] = s;
}

/* an extent TVM's reader keeps as it is in every loop form (a constant or
 * a var: its simplifier leaves them alone) */
static bool trivial_extent(const tir_expr *e) { return e->kind == TIR_INT_IMM || e->kind == TIR_VAR; }

/* a plain serial loop that may be printed in a T.grid: T.grid keeps its
 * extents as written, so not a loop read from range(e) with an extent TVM
 * simplifies there (printed as range(e) again, it reads as TVM read it) */
static bool grid_foldable(const tir_stmt *s) {
  return s->kind == TIR_FOR && s->u.loop.kind == TIR_FOR_SERIAL && is_const(s->u.loop.min, 0) &&
         av_empty(s->u.loop.annotations) && !s->u.loop.thread_tag && !s->u.loop.step &&
         (s->u.loop.ext_form != TIR_EXT_RANGE || trivial_extent(s->u.loop.extent));
}

typedef struct { const tir_expr *const *vars; int n; bool found; } uses_ctx;
static bool uses_cb(tir_visitor *v, const tir_expr *e) {
  uses_ctx *u = v->user;
  if (e->kind == TIR_VAR)
    for (int i = 0; i < u->n; i++)
      if (u->vars[i] == e) u->found = true;
  return !u->found;
}
static bool uses_any(const tir_expr *e, const tir_expr *const *vars, int n) {
  uses_ctx u = {vars, n, false};
  tir_visitor v = {.expr = uses_cb, .user = &u};
  tir_visit_expr(&v, e);
  return u.found;
}

/* min and extent as T.serial-style arguments: `ext` or `min, min + ext`
 * (always the latter with a step, as TVM prints it) */
static void pr_loop_range(printer *p, const tir_stmt *s) {
  tir_expr *mn = s->u.loop.min, *ex = s->u.loop.extent;
  if (is_const(mn, 0) && !s->u.loop.step) {
    pr_expr(p, ex);
    return;
  }
  pr_expr(p, mn);
  pr_puts(&p->out, ", ");
  int64_t a, b;
  if (is_const(mn, 0)) {
    /* 0 + ext is ext, as TVM's printer folds it; an explicit T.Add(0, ext)
     * would be read back as the extent and grow by one T.Add a round (found
     * by fuzz_parse) */
    pr_expr(p, ex);
  } else if (tir_is_const_int(mn, &a) && tir_is_const_int(ex, &b)) {
    tir_expr sum = {.kind = TIR_INT_IMM, .dtype = mn->dtype, .u.int_val = a + b};
    pr_expr(p, &sum);
  } else {
    tir_expr sum = {.kind = TIR_ADD, .dtype = mn->dtype, .u.bin = {mn, ex}};
    pr_expr(p, &sum);
  }
}

static void pr_for(printer *p, const tir_stmt *s) {
  int mark = p->nnames, lmark = p->nloops;
  /* fold a nest of plain serial loops into T.grid */
  const tir_stmt *chain[64];
  const tir_expr *vars[64];
  int n = 0;
  const tir_stmt *c = s;
  chain[n] = c;
  vars[n++] = c->u.loop.var;
  while (grid_foldable(c) && c->u.loop.body && grid_foldable(c->u.loop.body) && n < 64 &&
         !uses_any(c->u.loop.body->u.loop.extent, vars, n)) {
    c = c->u.loop.body;
    chain[n] = c;
    vars[n++] = c->u.loop.var;
  }
  const char **names = malloc(sizeof *names * (size_t)n);
  if (!names) abort();
  for (int i = 0; i < n; i++) {
    /* a var already named: declared by the attr around this loop (pr_attr) */
    const char *pre = pr_lookup(p, chain[i]->u.loop.var);
    names[i] = pre ? pre : pr_define(p, chain[i]->u.loop.var, chain[i]->u.loop.var->u.var.name);
  }
  line(p);
  pr_puts(&p->out, "for ");
  for (int i = 0; i < n; i++) pr_printf(&p->out, "%s%s", i ? ", " : "", names[i]);
  free(names);
  pr_puts(&p->out, " in ");
  /* a loop read from T.grid(e), e an extent TVM's range(e) would simplify:
   * T.grid(e) again, which keeps it as written */
  bool grid1 = n == 1 && grid_foldable(s) && s->u.loop.ext_form == TIR_EXT_GRID && !trivial_extent(s->u.loop.extent);
  /* a serial loop whose end, min + extent, is past its var's type (an int32
   * loop from 1 over 2147483647): range(1, 2147483648) would read back as an
   * int64 loop, and TVM's own print wraps the end; T.grid((min, extent))
   * takes the pair as it is */
  int64_t gmin, gext, gend;
  tir_dtype vt = s->u.loop.var->dtype;
  bool grid_pair = n == 1 && s->u.loop.kind == TIR_FOR_SERIAL && av_empty(s->u.loop.annotations) &&
                   !s->u.loop.thread_tag && !s->u.loop.step && tir_dtype_is_int(vt) && vt.lanes == 1 &&
                   tir_dtype_eq(s->u.loop.min->dtype, vt) && tir_dtype_eq(s->u.loop.extent->dtype, vt) &&
                   tir_is_const_int(s->u.loop.min, &gmin) && tir_is_const_int(s->u.loop.extent, &gext) &&
                   (__builtin_add_overflow(gmin, gext, &gend) ||
                    (vt.bits < 64 && (gend > INT64_MAX >> (64 - vt.bits) || gend < INT64_MIN >> (64 - vt.bits))));
  if (grid_pair) {
    pr_puts(&p->out, "T.grid((");
    pr_expr(p, s->u.loop.min);
    pr_puts(&p->out, ", ");
    pr_expr(p, s->u.loop.extent);
    pr_puts(&p->out, "))");
  } else if (n > 1 || grid1) {
    pr_puts(&p->out, "T.grid(");
    for (int i = 0; i < n; i++) {
      if (i) pr_puts(&p->out, ", ");
      /* extents print with the names of the loops outside (T.grid's
       * extents do not use the grid's own vars) */
      pr_expr(p, chain[i]->u.loop.extent);
    }
    pr_puts(&p->out, ")");
  } else {
    static const char *const kinds[] = {"serial", "parallel", "vectorized", "unroll", "thread_binding"};
    /* range(e) starts at a Python 0 (int32): a loop of a narrower dtype
     * prints as T.serial, which keeps it */
    bool plain = s->u.loop.kind == TIR_FOR_SERIAL && av_empty(s->u.loop.annotations) && s->u.loop.var->dtype.bits >= 32;
    pr_printf(&p->out, plain ? "range(" : "T.%s(", kinds[s->u.loop.kind]);
    pr_loop_range(p, s);
    if (plain && s->u.loop.step) {
      pr_puts(&p->out, ", ");
      pr_expr(p, s->u.loop.step);
    }
    if (s->u.loop.kind == TIR_FOR_THREAD_BINDING) {
      pr_puts(&p->out, ", thread=");
      pr_string_lit(&p->out, s->u.loop.thread_tag ? s->u.loop.thread_tag : "");
    }
    if (!av_empty(s->u.loop.annotations)) {
      pr_puts(&p->out, ", annotations=");
      pr_attr_val(p, s->u.loop.annotations);
    }
    if (!plain && s->u.loop.step) {
      pr_puts(&p->out, ", step=");
      pr_expr(p, s->u.loop.step);
    }
    pr_puts(&p->out, ")");
  }
  pr_puts(&p->out, ":\n");
  for (int i = 0; i < n; i++) push_loop(p, chain[i]);
  pr_body(p, c->u.loop.body);
  p->nloops = lmark;
  pr_pop_to(p, mark);
}

/* ---- blocks ---- */

/* equality with vars by identity (TVM's ExprDeepEqual) */
bool pr_deep_equal(const tir_expr *a, const tir_expr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !tir_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case TIR_VAR: return false;
  case TIR_INT_IMM: return a->u.int_val == b->u.int_val;
  case TIR_FLOAT_IMM: return a->u.float_val == b->u.float_val;
  case TIR_STRING_IMM: return !strcmp(a->u.str, b->u.str);
  case TIR_NOT: case TIR_CAST: return pr_deep_equal(a->u.un.a, b->u.un.a);
  case TIR_CALL:
    if (strcmp(a->u.call.op, b->u.call.op) || a->u.call.nargs != b->u.call.nargs) return false;
    for (int i = 0; i < a->u.call.nargs; i++)
      if (!pr_deep_equal(a->u.call.args[i], b->u.call.args[i])) return false;
    return true;
  default:
    if (TIR_IS_BINARY(a->kind))
      return pr_deep_equal(a->u.bin.a, b->u.bin.a) && pr_deep_equal(a->u.bin.b, b->u.bin.b);
    return false;
  }
}

/* an extent TVM's reader leaves as it is when it simplifies a loop's (a
 * constant, a var): an iter var's domain of it prints as a remap or as an
 * explicit domain alike */
static bool extent_kept(const tir_expr *e) { return e->kind == TIR_INT_IMM || e->kind == TIR_VAR; }

static bool remappable(const printer *p, const tir_iter_var *iv, const tir_expr *value) {
  if (iv->type != TIR_ITER_SPATIAL && iv->type != TIR_ITER_REDUCE) return false;
  /* an explicit domain is kept as TVM kept it: a remap only where that is the same */
  if (iv->dom_src == TIR_DOM_EXPLICIT && !(iv->dom.min->kind == TIR_INT_IMM && extent_kept(iv->dom.extent)))
    return false;
  if (!value || value->kind != TIR_VAR) return false;
  for (int i = p->nloops - 1; i >= 0; i--) {
    const tir_stmt *l = p->loops[i];
    if (l->u.loop.var != value) continue;
    return pr_deep_equal(l->u.loop.min, iv->dom.min) && pr_deep_equal(l->u.loop.extent, iv->dom.extent);
  }
  return false;
}

static void pr_single_iter(printer *p, const tir_iter_var *iv, const tir_expr *value, const char *name) {
  static const char *kinds[] = {"spatial", "?", "reduce", "scan", "opaque"};
  line(p);
  int k = (int)iv->type;
  pr_printf(&p->out, "%s = T.axis.%s(", name, (k >= 0 && k <= 4) ? kinds[k] : "opaque");
  tir_range r = {iv->dom.min, iv->dom.extent};
  /* the end in the extent's type beside a narrower min: (1, T.int64(8)) */
  tir_dtype et = r.extent->dtype.bits > r.min->dtype.bits ? r.extent->dtype : r.min->dtype;
  if (is_const(r.min, 0) && tir_dtype_eq(r.min->dtype, r.extent->dtype)) {
    pr_expr(p, r.extent);
  } else {
    pr_puts(&p->out, "(");
    pr_expr(p, r.min);
    pr_puts(&p->out, ", ");
    pr_range_end(p, r.min, r.extent, et);
    pr_puts(&p->out, ")");
  }
  pr_puts(&p->out, ", ");
  pr_expr(p, value);
  /* a var narrower than int32 says so: without dtype= TVM's var is the
   * wider of int32 and its extent's (an int8 extent then mismatches) */
  if (iv->var->dtype.bits < 32) {
    pr_puts(&p->out, ", dtype=");
    pr_dtype_str(&p->out, iv->var->dtype);
  }
  pr_puts(&p->out, ")\n");
}

static void pr_remap(printer *p, const tir_block *b, const tir_stmt *r, const int *idx, int n,
                     const char **names) {
  /* one var: T.axis.spatial(extent, i), as TVM prints it, unless it was
   * read from a T.axis.remap whose loop extent TVM's simplifying may
   * respell (TVM takes the remap's domain from it: range(2 * n) gives n * 2) */
  const tir_iter_var *one = &b->iter_vars[idx[0]];
  if (n == 1 && (one->dom_src != TIR_DOM_REMAP || extent_kept(one->dom.extent))) {
    pr_single_iter(p, &b->iter_vars[idx[0]], r->u.realize.iter_values[idx[0]], names[idx[0]]);
    return;
  }
  line(p);
  for (int i = 0; i < n; i++) pr_printf(&p->out, "%s%s", i ? ", " : "", names[idx[i]]);
  pr_puts(&p->out, " = T.axis.remap(\"");
  for (int i = 0; i < n; i++) pr_puts(&p->out, b->iter_vars[idx[i]].type == TIR_ITER_REDUCE ? "R" : "S");
  pr_puts(&p->out, "\", [");
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(&p->out, ", ");
    pr_expr(p, r->u.realize.iter_values[idx[i]]);
  }
  pr_puts(&p->out, "])\n");
}

/* runs of remappable iter vars print as one T.axis.remap, as TVM does */
static void pr_iter_vars(printer *p, const tir_stmt *r) {
  const tir_block *b = r->u.realize.block;
  int n = b->n_iter;
  if (!n) return;
  const char **names = malloc(sizeof *names * (size_t)n);
  int *run = malloc(sizeof *run * (size_t)n);
  if (!names || !run) abort();
  /* the iter values name loop vars, never the block's own iter vars */
  for (int i = 0; i < n; i++) names[i] = pr_define(p, b->iter_vars[i].var, b->iter_vars[i].var->u.var.name);
  int nrun = 0;
  for (int i = 0; i < n; i++) {
    const tir_expr *val = i < r->u.realize.n ? r->u.realize.iter_values[i] : NULL;
    if (remappable(p, &b->iter_vars[i], val)) {
      run[nrun++] = i;
      continue;
    }
    if (nrun) pr_remap(p, b, r, run, nrun, names);
    nrun = 0;
    pr_single_iter(p, &b->iter_vars[i], val, names[i]);
  }
  if (nrun) pr_remap(p, b, r, run, nrun, names);
  free(names);
  free(run);
}

static void pr_alloc_line(printer *p, const tir_buffer *buf, const char *fn) {
  char *args = buffer_args_str(p, buf, BUF_OTHER);
  const char *name = define_buffer(p, buf);
  line(p);
  pr_printf(&p->out, "%s = T.%s(%s)\n", name, fn, args);
  free(args);
}

static void pr_free_var_decls(printer *p, const tir_block *b) {
  for (int i = 0; i < p->ndecl; i++) {
    if (p->decl_at[i] != b || pr_lookup(p, p->decl_vars[i])) continue;
    declare_var(p, p->decl_vars[i]);
  }
}

static void pr_match_buffer(printer *p, const tir_match_buffer *m) {
  /* the source region is printed before the view's name is defined */
  size_t start = p->out.len;
  pr_region(p, &m->src);
  char *src = take_since(p, start);
  char *args = buffer_args_str(p, m->buf, BUF_OTHER);
  const char *name = define_buffer(p, m->buf);
  line(p);
  pr_printf(&p->out, "%s = T.match_buffer(%s, %s)\n", name, src, args);
  free(src);
  free(args);
}

static void pr_block_realize(printer *p, const tir_stmt *r) {
  const tir_block *b = r->u.realize.block;
  int mark = p->nnames;
  line(p);
  pr_printf(&p->out, "with T.%s(", tirx(p) ? "sblock" : "block");
  pr_string_lit(&p->out, b->name ? b->name : "");
  pr_puts(&p->out, b->no_realize ? ", no_realize=True):\n" : "):\n");
  p->indent++;
  pr_iter_vars(p, r);
  if (!is_true(r->u.realize.predicate)) {
    line(p);
    pr_puts(&p->out, "T.where(");
    pr_expr(p, r->u.realize.predicate);
    pr_puts(&p->out, ")\n");
  }
  if (b->no_realize || !(p->as_written && (b->regions_inferred & 1))) pr_regions(p, "reads", b->reads, b->n_reads);
  if (b->no_realize || !(p->as_written && (b->regions_inferred & 2))) pr_regions(p, "writes", b->writes, b->n_writes);
  if (!av_empty(b->annotations)) {
    declare_av_buffers(p, b->annotations);
    line(p);
    pr_printf(&p->out, "T.%s(", tirx(p) ? "sblock_attr" : "block_attr");
    pr_attr_val(p, b->annotations);
    pr_puts(&p->out, ")\n");
  }
  for (int i = 0; i < b->n_alloc; i++)
    pr_alloc_line(p, b->alloc_buffers[i], tirx(p) ? "sblock_alloc_buffer" : "alloc_buffer");
  pr_free_var_decls(p, b);
  for (int i = 0; i < b->n_match; i++) pr_match_buffer(p, &b->match_buffers[i]);
  if (b->init) {
    line(p);
    pr_puts(&p->out, "with T.init():\n");
    pr_body(p, b->init);
  }
  if (b->body) pr_stmt(p, b->body);
  p->indent--;
  pr_pop_to(p, mark);
}

/* ---- the other statements ---- */

static void pr_if(printer *p, const tir_stmt *s) {
  line(p);
  pr_puts(&p->out, "if ");
  /* an int32 constant as T.int32(c): TVM's if refuses a Python int (its
   * own print `if 1:` it cannot read back) */
  if (s->u.ifs.cond->kind == TIR_INT_IMM && s->u.ifs.cond->dtype.code == TIR_TC_INT && s->u.ifs.cond->dtype.bits == 32 &&
      s->u.ifs.cond->dtype.lanes == 1)
    pr_printf(&p->out, "T.int32(%lld)", (long long)s->u.ifs.cond->u.int_val);
  else pr_expr(p, s->u.ifs.cond);
  pr_puts(&p->out, ":\n");
  pr_body(p, s->u.ifs.then_s);
  if (s->u.ifs.else_s) {
    line(p);
    pr_puts(&p->out, "else:\n");
    pr_body(p, s->u.ifs.else_s);
  }
}

static void pr_decl(printer *p, const tir_stmt *s);

static void pr_let_stmt(printer *p, const tir_stmt *s) {
  int mark = p->nnames;
  size_t start = p->out.len;
  pr_expr(p, s->u.let.value);
  char *val = take_since(p, start);
  const tir_stmt *d = s->u.let.body;
  if (d && d->kind == TIR_DECL_BUFFER && d->u.decl.data_let && d->u.decl.buf->data == s->u.let.var &&
      !pr_lookup(p, s->u.let.var)) { /* A = T.decl_buffer(..., data=<value>) */
    p->data_let_var = s->u.let.var;
    p->data_let_value = val;
    pr_decl(p, d);
    p->data_let_var = NULL;
    free(val);
    (void)mark;
    return;
  }
  line(p);
  const char *name = pr_define(p, s->u.let.var, s->u.let.var->u.var.name);
  /* TVM 0.27 reads `x: T.int32 = v` as a mutable local scalar; its
   * immutable binding (Bind, our LetStmt) is `x: T.let[T.int32] = v`, and
   * `x: T.let = v` for a pointer (typed by its value, pointee included) */
  /* and for a scalable vector, whose T.float32xvscalex4 TVM cannot read */
  if (tirx(p) && (tir_dtype_is_handle(s->u.let.var->dtype) || tir_dtype_is_scalable(s->u.let.var->dtype) ||
                  !pr_type_named(s->u.let.var->dtype))) {
    pr_printf(&p->out, "%s: T.let = %s\n", name, val);
  } else {
    pr_printf(&p->out, "%s: %s", name, tirx(p) ? "T.let[" : "");
    pr_type_annot(p, s->u.let.var->dtype);
    pr_printf(&p->out, "%s = %s\n", tirx(p) ? "]" : "", val);
  }
  free(val);
  if (s->u.let.body) pr_stmt(p, s->u.let.body);
  pr_pop_flat(p, mark);
}

/* TVM 0.27 has no Allocate node: its equivalent is an AllocBuffer whose
 * data var is the allocated pointer (uses print as NAME.data) */
static bool pr_allocate_as_buffer(printer *p, const tir_stmt *s) {
  if (!tirx(p) || !is_true(s->u.alloc.cond)) return false;
  tir_expr zero = {.kind = TIR_INT_IMM, .dtype = TIR_INT32};
  if (s->u.alloc.n) zero.dtype = s->u.alloc.extents[0]->dtype;
  tir_buffer b = {.name = s->u.alloc.var->u.var.name, .data = s->u.alloc.var, .dtype = s->u.alloc.dtype,
                  .shape = s->u.alloc.extents, .ndim = s->u.alloc.n, .elem_offset = &zero,
                  .scope = s->u.alloc.scope ? s->u.alloc.scope : "global"};
  int mark = p->nnames;
  char *args = buffer_args_str(p, &b, BUF_OTHER);
  const char *name = define_buffer(p, &b);
  line(p);
  pr_printf(&p->out, "%s = T.alloc_buffer(%s)\n", name, args);
  free(args);
  if (s->u.alloc.body) pr_stmt(p, s->u.alloc.body);
  pr_pop_flat(p, mark);
  return true;
}

static void pr_allocate(printer *p, const tir_stmt *s) {
  if (pr_allocate_as_buffer(p, s)) return;
  int mark = p->nnames;
  const char *name = pr_define(p, s->u.alloc.var, s->u.alloc.var->u.var.name);
  line(p);
  pr_printf(&p->out, "%s = T.allocate([", name);
  for (int i = 0; i < s->u.alloc.n; i++) {
    if (i) pr_puts(&p->out, ", ");
    pr_expr(p, s->u.alloc.extents[i]);
  }
  pr_puts(&p->out, "], ");
  pr_dtype_str(&p->out, s->u.alloc.dtype);
  pr_puts(&p->out, ", ");
  pr_string_lit(&p->out, s->u.alloc.scope ? s->u.alloc.scope : "global");
  if (!is_true(s->u.alloc.cond)) {
    pr_puts(&p->out, ", ");
    pr_expr(p, s->u.alloc.cond);
  }
  pr_puts(&p->out, ")\n");
  if (s->u.alloc.body) pr_stmt(p, s->u.alloc.body);
  pr_pop_flat(p, mark);
}

static void pr_seq_from(printer *p, const tir_stmt *s, int from);

/* the first statement of a body, or NULL */
static const tir_stmt *first_stmt(const tir_stmt *s) {
  if (s && s->kind == TIR_SEQ) return s->u.seq.n ? s->u.seq.stmts[0] : NULL;
  return s;
}

/* a local scalar (TVM 0.27): `x: T.int32 = v` when its first statement
 * stores v into it, else `x: T.int32`; then uses print `x`, stores `x = v` */
typedef struct { const tir_buffer *b; bool found; } reads_buf;
static bool reads_buf_cb(tir_visitor *v, const tir_expr *e) {
  reads_buf *rb = v->user;
  if (e->kind == TIR_BUFFER_LOAD && e->u.load.buf == rb->b) rb->found = true;
  if (e->kind == TIR_VAR && e == rb->b->data) rb->found = true;
  return !rb->found;
}

static void pr_scalar_decl(printer *p, const tir_stmt *s) {
  int mark = p->nnames;
  const tir_buffer *b = s->u.decl.buf;
  const tir_stmt *body = s->u.decl.body, *first = first_stmt(body);
  bool init = first && first->kind == TIR_BUFFER_STORE && first->u.store.buf == b &&
              pr_scalar_access(p, b, first->u.store.idx, first->u.store.nidx);
  if (init) { /* `x: T.float32` then `x = x + 1`: the first store reads x, not its initializer */
    reads_buf rb = {b, false};
    tir_visitor v = {.expr = reads_buf_cb, .user = &rb};
    tir_visit_expr(&v, first->u.store.value);
    init = !rb.found;
  }
  char *val = NULL;
  if (init) {
    size_t start = p->out.len;
    pr_expr(p, first->u.store.value);
    val = take_since(p, start);
  }
  const char *name = define_buffer(p, b);
  line(p);
  /* a type TVM's script has no name for (T.float32xvscalex4, T.int4,
   * T.uint1): typed by its value, or declared by T.local_scalar */
  bool unnamed = tir_dtype_is_scalable(b->dtype) || b->dtype.code == TIR_TC_UINT1 || !pr_type_named(b->dtype) ||
                 ((tir_dtype_is_int(b->dtype) || b->dtype.code == TIR_TC_UINT) && b->dtype.bits != 8 &&
                  b->dtype.bits != 16 && b->dtype.bits != 32 && b->dtype.bits != 64);
  if (val && unnamed) {
    pr_printf(&p->out, "%s = %s", name, val);
  } else if (unnamed && b->dtype.lanes == 1) {
    char ty[32];
    pr_printf(&p->out, "%s = T.local_scalar(\"%s\")", name, tir_dtype_str(b->dtype, ty));
  } else {
    pr_printf(&p->out, "%s: ", name);
    pr_type_annot(p, b->dtype);
    if (val) pr_printf(&p->out, " = %s", val);
  }
  pr_puts(&p->out, "\n");
  free(val);
  if (!init) pr_stmt(p, body);
  else if (body->kind == TIR_SEQ) pr_seq_from(p, body, 1);
  pr_pop_flat(p, mark);
}

/* TVM 0.27 reads `X.data` as tirx.buffer_data(X), naming the buffer, where
 * tirc holds the data var itself.  A buffer declared over another buffer's
 * data (A_1 = T.decl_buffer(..., data=A.data), A_1 = A.view(n)) is the one a
 * pass that declares it makes the body use, and TVM prints the references
 * after it as A_1.data: the data var prints so while the declaration is in
 * scope; so does a handle var (A = T.decl_buffer(..., data=A_ptr): A.data,
 * as TVM prints the references of a kernel after SplitHostDevice) */
static void data_as_declared(printer *p, const tir_buffer *b, const char *name) {
  const pr_name *e = pr_entry(p, b->data);
  if (e) {
    if (e->buf == b) return;
    size_t n = strlen(name) + 8;
    char *t = malloc(n);
    if (!t) abort();
    snprintf(t, n, "%s.data", name);
    pr_define_alias(p, b->data, t, b);
    free(t);
    return;
  }
}

/* b declares what src.view(shape) declares: src's data, dtype, strides,
 * elem_offset, offset_factor, alignment and scope */
static bool same_as_view(const tir_buffer *b, const tir_buffer *src) {
  if (b->data != src->data || b->dtype.bits * b->dtype.lanes != src->dtype.bits * src->dtype.lanes ||
      b->nstrides != src->nstrides ||
      !pr_deep_equal(b->elem_offset, src->elem_offset) || b->offset_factor != src->offset_factor ||
      b->data_alignment != src->data_alignment || strcmp(b->scope ? b->scope : "global", src->scope ? src->scope : "global"))
    return false;
  for (int i = 0; i < b->nstrides; i++)
    if (!pr_deep_equal(b->strides[i], src->strides[i])) return false;
  return true;
}

static bool same_shape(const tir_buffer *a, const tir_buffer *b) {
  if (a->ndim != b->ndim) return false;
  for (int i = 0; i < a->ndim; i++)
    if (!pr_deep_equal(a->shape[i], b->shape[i])) return false;
  return true;
}

static void pr_decl(printer *p, const tir_stmt *s) {
  const tir_buffer *b = s->u.decl.buf;
  if (s->kind == TIR_DECL_BUFFER && !s->u.decl.implicit && b->view_of && !b->layout_none && tirx(p) &&
      same_as_view(b, b->view_of) && pr_lookup(p, b->view_of) &&
      (tir_dtype_eq(b->dtype, b->view_of->dtype) || same_shape(b, b->view_of))) { /* B = A.view(shape): A's layout */
    int mark = p->nnames;
    line(p);
    const char *name = pr_define(p, b, b->name);
    pr_printf(&p->out, "%s = ", name);
    pr_buffer_name(p, b->view_of);
    pr_puts(&p->out, ".view(");
    if (!tir_dtype_eq(b->dtype, b->view_of->dtype)) { /* A.view("int32"): same width, A's shape */
      pr_dtype_str(&p->out, b->dtype);
    } else {
      for (int i = 0; i < b->ndim; i++) {
        if (i) pr_puts(&p->out, ", ");
        pr_expr(p, b->shape[i]);
      }
    }
    pr_puts(&p->out, ")\n");
    data_as_declared(p, b, name);
    if (s->u.decl.body) pr_stmt(p, s->u.decl.body);
    pr_pop_flat(p, mark);
    return;
  }
  bool annotated = s->kind == TIR_ALLOC_BUFFER && !av_empty(s->u.decl.annotations);
  if (s->kind == TIR_ALLOC_BUFFER && tirx(p) && b->scalar && b->ndim == 1 && is_const(b->shape[0], 1) &&
      !strcmp(b->scope ? b->scope : "global", "local") && s->u.decl.body && !annotated) {
    pr_scalar_decl(p, s);
    return;
  }
  if (tirx(p) && b->scalar && b->ndim == 1 && is_const(b->shape[0], 1) && !annotated && !b->nstrides &&
      !b->nlayout && !b->layout_none && !s->u.decl.implicit &&
      (s->kind == TIR_ALLOC_BUFFER || (is_const(b->elem_offset, 0) || tir_dtype_eq(b->elem_offset->dtype, b->shape[0]->dtype)))) {
    /* x = T.alloc_scalar("float32", scope="shared"), x = T.decl_scalar("float32", A.data, "global", elem_offset=3):
     * a scalar of another scope, or over another buffer's data */
    int mark = p->nnames;
    char dts[64];
    size_t start = p->out.len;
    if (s->kind == TIR_DECL_BUFFER) pr_expr(p, b->data);
    char *data = s->kind == TIR_DECL_BUFFER ? take_since(p, start) : NULL;
    const char *name = define_buffer(p, b);
    line(p);
    pr_printf(&p->out, "%s = T.%s_scalar(", name, s->kind == TIR_DECL_BUFFER ? "decl" : "alloc");
    pr_string_lit(&p->out, tir_dtype_str(b->dtype, dts));
    if (data) pr_printf(&p->out, ", %s", data);
    free(data);
    pr_puts(&p->out, s->kind == TIR_DECL_BUFFER ? ", " : ", scope=");
    pr_string_lit(&p->out, b->scope ? b->scope : "global");
    if (s->kind == TIR_DECL_BUFFER && !is_const(b->elem_offset, 0)) {
      pr_puts(&p->out, ", elem_offset=");
      pr_expr(p, b->elem_offset);
    }
    pr_puts(&p->out, ")\n"); /* TVM's scalar has no .data: its data keeps the name it had */
    if (s->u.decl.body) pr_stmt(p, s->u.decl.body);
    pr_pop_flat(p, mark);
    return;
  }
  int mark = p->nnames;
  char *args = buffer_args_str(p, b, BUF_OTHER);
  const char *name = define_buffer(p, b);
  line(p);
  /* the old dialect reads a statement-level T.alloc_buffer as a block
   * allocation: there T.decl_buffer without data= allocates */
  const char *fn = s->kind == TIR_DECL_BUFFER && s->u.decl.implicit ? "Buffer"
                   : s->kind == TIR_DECL_BUFFER || !tirx(p) ? "decl_buffer" : "alloc_buffer";
  pr_printf(&p->out, "%s = T.%s(%s", name, fn, args);
  free(args);
  if (annotated) {
    pr_puts(&p->out, ", annotations=");
    pr_attr_val(p, s->u.decl.annotations);
  }
  pr_puts(&p->out, ")\n");
  if (s->kind == TIR_DECL_BUFFER) data_as_declared(p, b, name);
  if (s->u.decl.body) pr_stmt(p, s->u.decl.body);
  pr_pop_flat(p, mark);
}

/* thread_extent or virtual_thread over a Var: `v = T.launch_thread("tag",
 * ext)` as TVM prints both (it reads the tag "vthread" as virtual_thread) */
static bool is_launch(const tir_stmt *s) {
  return s->u.attr.key && (!strcmp(s->u.attr.key, "thread_extent") || !strcmp(s->u.attr.key, "virtual_thread")) &&
         s->u.attr.node && s->u.attr.node->kind == TIR_VAR;
}

/* a launch printed as T.launch_thread: its var is bound by it (or by
 * T.env_thread), not by something in scope already (a parameter, a loop,
 * a buffer's data: T.attr(n, "thread_extent", 4) prints as an attr) */
static bool is_env(const printer *p, const tir_expr *v);
static bool prints_launch(const printer *p, const tir_stmt *s) {
  return is_launch(s) && !s->u.attr.node_named && (is_env(p, s->u.attr.node) || !pr_lookup(p, s->u.attr.node));
}

static void pr_body(printer *p, const tir_stmt *s);

static bool is_env(const printer *p, const tir_expr *v) {
  for (int i = 0; i < p->nenv; i++)
    if (p->env[i] == v) return true;
  return false;
}

/* the tag a launch prints with */
static const char *launch_tag(const tir_stmt *s) {
  const char *tag = s->u.attr.thread_tag;
  return tag ? tag : !strcmp(s->u.attr.key, "virtual_thread") ? "vthread" : s->u.attr.node->u.var.name;
}

/* a launch that T.launch_thread would read back as another attr: TVM reads
 * only the tag "vthread" as a virtual_thread, so LowerOpaqueBlock's
 * virtual_thread of a "vthread.x" loop (or a thread_extent tagged
 * "vthread") is written as TVM's IterVar node, which its parser reads as
 * it is: `v = T.int32()` and `with T.attr(T.iter_var(v, T.Range(0, n),
 * "ThreadIndex", "vthread.x"), "virtual_thread", n):` */
static bool launch_reads_back(const tir_stmt *s) {
  return !strcmp(s->u.attr.key, "virtual_thread") == !strcmp(launch_tag(s), "vthread");
}

static void pr_iter_var_attr(printer *p, const tir_stmt *s) {
  int mark = p->nnames;
  const tir_expr *v = s->u.attr.node;
  const char *name = pr_lookup(p, v);
  bool fresh = !name;
  char ty[32];
  tir_dtype_str(v->dtype, ty);
  if (fresh) {
    name = pr_define(p, v, v->u.var.name);
    line(p);
    pr_printf(&p->out, "%s = T.%s()\n", name, ty);
  }
  line(p);
  pr_printf(&p->out, "with T.attr(T.iter_var(%s, T.Range(", name);
  if (tir_dtype_eq(v->dtype, TIR_INT32)) pr_puts(&p->out, "0");
  else pr_printf(&p->out, "T.%s(0)", ty);
  pr_puts(&p->out, ", ");
  pr_expr(p, s->u.attr.value);
  pr_puts(&p->out, "), \"ThreadIndex\", ");
  pr_string_lit(&p->out, launch_tag(s));
  pr_printf(&p->out, "), \"%s\", ", s->u.attr.key);
  pr_expr(p, s->u.attr.value);
  pr_puts(&p->out, "):\n");
  pr_body(p, s->u.attr.body);
  if (fresh) pr_pop_to(p, mark);
}

static void pr_launch_as(printer *p, const tir_stmt *s, bool scoped) {
  int mark = p->nnames;
  const tir_expr *v = s->u.attr.node;
  if (!launch_reads_back(s)) {
    pr_iter_var_attr(p, s);
    return;
  }
  if (is_env(p, v) && pr_lookup(p, v)) { /* declared by T.env_thread: a with-block */
    line(p);
    pr_printf(&p->out, "with T.launch_thread(%s, ", pr_lookup(p, v));
    pr_expr(p, s->u.attr.value);
    pr_puts(&p->out, "):\n");
    pr_body(p, s->u.attr.body);
    return;
  }
  const char *name = pr_lookup(p, v);
  bool fresh = !name;
  if (fresh) name = pr_define(p, v, v->u.var.name);
  line(p);
  if (scoped) pr_puts(&p->out, "with ");
  else pr_printf(&p->out, "%s = ", name);
  pr_puts(&p->out, "T.launch_thread(");
  pr_string_lit(&p->out, launch_tag(s));
  pr_puts(&p->out, ", ");
  pr_expr(p, s->u.attr.value);
  if (scoped) {
    pr_printf(&p->out, ") as %s:\n", name);
    pr_body(p, s->u.attr.body);
  } else {
    pr_puts(&p->out, ")\n");
    if (s->u.attr.body) pr_stmt(p, s->u.attr.body);
  }
  if (fresh && scoped) pr_pop_to(p, mark);
  else if (fresh) pr_pop_flat(p, mark);
}

/* `v = T.launch_thread(...)`, the rest of its sequence its body; scoped
 * `with ... as v:` where it ends an `if True:` body (TVM reads that body
 * in the enclosing scope, where a later launch of v would define it again) */
static void pr_launch(printer *p, const tir_stmt *s) { pr_launch_as(p, s, p->if_true_tail); }

/* the loop (or thread launch) under an attr on var v, through more attrs
 * on v, binds v: LowerOpaqueBlock's pragma_* attrs, placed just outside */
static bool wraps_loop_of(const tir_stmt *body, const tir_expr *v) {
  while (body && body->kind == TIR_ATTR && body->u.attr.node == v && !is_launch(body)) body = body->u.attr.body;
  if (body && body->kind == TIR_ATTR) return is_launch(body) && body->u.attr.node == v; /* a thread-bound loop */
  return body && body->kind == TIR_FOR && body->u.loop.var == v;
}

/* `with T.attr(node, "key", value):`.  A var that the loop under the attr
 * binds is not defined yet: declared first, `i = T.int32()`, as TVM prints
 * it; the loop then prints under the same name (pr_for) and the reader
 * binds the declared var to it */
static void declare_av_iter_vars(printer *p, const tir_attr_val *a);

static void pr_attr(printer *p, const tir_stmt *s) {
  /* a buffer node that nothing declares: `B = T.Buffer(...)` before the
   * with, in the enclosing scope, where TVM's reader keeps the name (a
   * later B.data is that buffer's data var: InferFragment's prints); the
   * var of a T.iter_var node likewise (`iv = T.int32()`) */
  declare_av_buffers(p, s->u.attr.node_av);
  declare_av_iter_vars(p, s->u.attr.node_av);
  const tir_buffer *nb = s->u.attr.node_named;
  if (nb && nb->data == s->u.attr.node && !pr_lookup(p, nb) && !pr_lookup(p, nb->data)) {
    /* T.attr(B_1.data, ...) of a buffer nothing declares (TVM's print after
     * ThreadSync and other passes of a double-buffer scope) */
    declare_buffer(p, nb);
  }
  const tir_expr *node = s->u.attr.node;
  /* declared in the enclosing scope, where TVM's reader keeps the name: a
   * second such var is another name (two `k = T.int32()` in one scope TVM
   * refuses) */
  if (node && node->kind == TIR_VAR && !pr_lookup(p, node) && wraps_loop_of(s->u.attr.body, node))
    declare_var(p, node);
  int mark = p->nnames;
  line(p);
  pr_puts(&p->out, "with T.attr(");
  const char *via = nb && nb->data == node ? pr_lookup(p, nb) : NULL;
  if (via) pr_printf(&p->out, "%s%s", via, pr_data_suffix(p, nb));
  else if (node && s->u.attr.node_typed && node->kind == TIR_INT_IMM && tir_dtype_eq(node->dtype, TIR_INT32))
    pr_printf(&p->out, "T.int32(%lld)", (long long)node->u.int_val); /* an IntImm, not a Python int */
  else if (node) pr_expr(p, node);
  else if (s->u.attr.node_av) pr_attr_val(p, s->u.attr.node_av); /* T.target(...) */
  else pr_puts(&p->out, "0");
  pr_puts(&p->out, ", ");
  pr_string_lit(&p->out, s->u.attr.key ? s->u.attr.key : "");
  pr_puts(&p->out, ", ");
  pr_expr(p, s->u.attr.value);
  pr_puts(&p->out, "):\n");
  pr_body(p, s->u.attr.body);
  pr_pop_to(p, mark);
}

/* TVM 0.27's T.hint: AttrStmt "tirx_hint" on {"message": m, **attrs} */
static bool is_hint(const tir_stmt *s) {
  const tir_attr_val *d = s->u.attr.node_av, *m = tir_av_get(d, "message");
  return s->u.attr.key && !strcmp(s->u.attr.key, "tirx_hint") && !s->u.attr.node && d && d->n >= 1 &&
         !strcmp(d->keys[0], "message") && m && m->kind == TIR_AV_EXPR && m->expr &&
         m->expr->kind == TIR_STRING_IMM && s->u.attr.value && tir_is_const_int(s->u.attr.value, &(int64_t){0});
}

/* `with T.hint("message", key=value):` (TVM prints it bare, the rest of
 * the list its body; it reads either) */
static void pr_hint(printer *p, const tir_stmt *s) {
  const tir_attr_val *d = s->u.attr.node_av;
  line(p);
  pr_puts(&p->out, "with T.hint(");
  pr_string_lit(&p->out, d->items[0]->expr->u.str);
  for (int i = 1; i < d->n; i++) {
    pr_printf(&p->out, ", %s=", d->keys[i]);
    pr_attr_val(p, d->items[i]);
  }
  pr_puts(&p->out, "):\n");
  pr_body(p, s->u.attr.body);
}

static void pr_store(printer *p, const tir_stmt *s) {
  line(p);
  pr_buffer_name(p, s->u.store.buf);
  if (pr_scalar_access(p, s->u.store.buf, s->u.store.idx, s->u.store.nidx)) { /* a local scalar */
    pr_puts(&p->out, " = ");
    pr_expr(p, s->u.store.value);
    pr_puts(&p->out, "\n");
    return;
  }
  pr_puts(&p->out, "[");
  if (s->u.store.nidx == 0) pr_puts(&p->out, "()");
  for (int i = 0; i < s->u.store.nidx; i++) {
    if (i) pr_puts(&p->out, ", ");
    pr_expr(p, s->u.store.idx[i]);
  }
  pr_puts(&p->out, "] = ");
  pr_expr(p, s->u.store.value);
  pr_puts(&p->out, "\n");
}

/* statements printed as one line whose body follows at the same indent
 * (`x: T.int32 = v`, `B = T.decl_buffer(...)`, `assert c, m` ...) */
static bool prints_flat(const printer *p, const tir_stmt *s) {
  switch (s->kind) {
  case TIR_LET_STMT: case TIR_ALLOCATE: case TIR_DECL_BUFFER: case TIR_ALLOC_BUFFER: case TIR_ASSERT:
    return true;
  case TIR_ATTR: return prints_launch(p, s) && !is_env(p, s->u.attr.node);
  default: return false;
  }
}

/* a flat statement that is not the last of a sequence would, read back,
 * take the rest of the sequence as its body: a thread launch is then
 * scoped by `with ... as v:`, the others by `if True:` (TVM reads a
 * Python-constant if as its body alone, adding no node) */
static void pr_seq_item(printer *p, const tir_stmt *s, bool last) {
  declare_placed_vars(p, s);
  if (last || !prints_flat(p, s)) {
    pr_stmt(p, s);
    return;
  }
  if (s->kind == TIR_ATTR) { /* a thread launch: `with T.launch_thread(tag, n) as v:`, as TVM prints it */
    pr_launch_as(p, s, true);
    return;
  }
  line(p);
  pr_puts(&p->out, "if True:\n");
  bool tail = p->if_true_tail; /* TVM reads this body in the enclosing scope */
  p->if_true_tail = true;
  p->indent++;
  pr_stmt(p, s);
  p->indent--;
  p->if_true_tail = tail;
}

static void pr_seq_from(printer *p, const tir_stmt *s, int from) {
  for (int i = from; i < s->u.seq.n; i++) pr_seq_item(p, s->u.seq.stmts[i], i == s->u.seq.n - 1);
}

static void declare_free_buffers(printer *p, const tir_stmt *s);

static void pr_stmt(printer *p, const tir_stmt *s) {
  declare_placed_vars(p, s);
  declare_free_buffers(p, s);
  switch (s->kind) {
  case TIR_BUFFER_STORE: pr_store(p, s); break;
  case TIR_LET_STMT: pr_let_stmt(p, s); break;
  case TIR_FOR: pr_for(p, s); break;
  case TIR_WHILE:
    line(p);
    pr_puts(&p->out, "while ");
    pr_expr(p, s->u.whl.cond);
    pr_puts(&p->out, ":\n");
    pr_body(p, s->u.whl.body);
    break;
  case TIR_IF: pr_if(p, s); break;
  case TIR_EVALUATE:
    line(p);
    if (s->u.eval.value && s->u.eval.value->kind == TIR_CALL && !strcmp(s->u.eval.value->u.call.op, "ret") &&
        s->u.eval.value->u.call.nargs == 1) { /* as TVM prints it */
      pr_puts(&p->out, "return ");
      pr_expr(p, s->u.eval.value->u.call.args[0]);
      pr_puts(&p->out, "\n");
      break;
    }
    pr_puts(&p->out, "T.evaluate(");
    pr_expr(p, s->u.eval.value);
    pr_puts(&p->out, ")\n");
    break;
  case TIR_SEQ: pr_seq_from(p, s, 0); break;
  case TIR_ALLOCATE: pr_allocate(p, s); break;
  case TIR_DECL_BUFFER: case TIR_ALLOC_BUFFER: pr_decl(p, s); break;
  case TIR_ATTR:
    if (prints_launch(p, s)) {
      pr_launch(p, s);
      break;
    }
    if (s->u.attr.key && !strcmp(s->u.attr.key, "tirx.device_entry") && s->u.attr.node &&
        s->u.attr.node->kind == TIR_INT_IMM && s->u.attr.flat) { /* a flat marker: the rest is its body */
      line(p);
      pr_puts(&p->out, "T.device_entry()\n");
      pr_stmt(p, s->u.attr.body);
      break;
    }
    if (is_hint(s)) {
      pr_hint(p, s);
      break;
    }
    pr_attr(p, s);
    break;
  case TIR_ASSERT:
    line(p);
    pr_puts(&p->out, "assert ");
    pr_expr(p, s->u.assrt.cond);
    pr_puts(&p->out, ", ");
    if (s->u.assrt.kind) { /* ("ValueError", ["a", "b"]) */
      pr_puts(&p->out, "(");
      pr_string_lit(&p->out, s->u.assrt.kind);
      pr_puts(&p->out, ", [");
      for (int i = 0; i < s->u.assrt.nparts; i++) {
        if (i) pr_puts(&p->out, ", ");
        pr_string_lit(&p->out, s->u.assrt.parts[i]);
      }
      pr_puts(&p->out, "])");
    } else {
      pr_expr(p, s->u.assrt.msg);
    }
    pr_puts(&p->out, "\n");
    if (s->u.assrt.body) pr_stmt(p, s->u.assrt.body);
    break;
  case TIR_BLOCK_REALIZE: pr_block_realize(p, s); break;
  case TIR_BREAK: /* as TVM prints them */
    line(p);
    pr_puts(&p->out, s->u.jump.node ? "T.Break()\n" : "T.break_loop()\n");
    break;
  case TIR_CONTINUE:
    line(p);
    pr_puts(&p->out, s->u.jump.node ? "T.Continue()\n" : "T.continue_loop()\n");
    break;
  default:
    line(p);
    pr_puts(&p->out, "T.evaluate(0)\n");
    break;
  }
}

char *tir_print_stmt(const tir_stmt *s) {
  printer p;
  pr_init(&p, TIR_DIALECT_TIRX);
  if (s) pr_stmt(&p, s);
  char *r = p.out.s;
  p.out.s = NULL;
  pr_free(&p);
  return r;
}

/* ------------------------------------------------------------------ */
/* functions: free vars, parameters, the root block                    */

typedef struct var_list {
  const tir_expr **v;
  int *count;
  int n, cap;
  tir_ptrmap idx; /* v[i] -> i + 1 */
} var_list;

static int vl_find(const var_list *l, const tir_expr *v) { return (int)tir_ptrmap_get(&l->idx, v, 0) - 1; }

static void vl_add(var_list *l, const tir_expr *v) {
  int i = vl_find(l, v);
  if (i >= 0) {
    l->count[i]++;
    return;
  }
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 16;
    const tir_expr **nv = realloc(l->v, sizeof *nv * (size_t)cap);
    if (!nv) abort();
    l->v = nv;
    int *nc = realloc(l->count, sizeof *nc * (size_t)cap);
    if (!nc) abort();
    l->count = nc;
    l->cap = cap;
  }
  l->v[l->n] = v;
  l->count[l->n++] = 1;
  tir_ptrmap_put(&l->idx, v, l->n);
}

static void vl_free(var_list *l) {
  free(l->v);
  free(l->count);
  tir_ptrmap_free(&l->idx);
}

typedef struct scan {
  var_list used, bound;
  bool collect;   /* the buffers loaded, stored and in regions, in accessed */
  var_list accessed; /* (buffers, by identity) */
  var_list declared; /* the buffers of T.decl_buffer statements (over a pointer bound or declared free) */
  bool has_load;      /* a buffer load, or a node printed with a string, met (buffer_has_vars) */
} scan;

static void scan_access(scan *s, const tir_buffer *b) {
  if (s->collect && b && b->data) vl_add(&s->accessed, (const tir_expr *)(const void *)b);
}

static bool scan_expr(tir_visitor *v, const tir_expr *e) {
  scan *s = v->user;
  if (e->kind == TIR_BUFFER_LOAD) scan_access(s, e->u.load.buf);
  if (e->kind == TIR_VAR) vl_add(&s->used, e);
  if (e->kind == TIR_LET) vl_add(&s->used, e->u.let.var);
  return true;
}

static void bind_buffer(scan *s, const tir_buffer *b) { vl_add(&s->bound, b->data); }

static bool scan_stmt(tir_visitor *v, const tir_stmt *st) {
  scan *s = v->user;
  if (st->kind == TIR_BUFFER_STORE) scan_access(s, st->u.store.buf);
  switch (st->kind) {
  case TIR_FOR: vl_add(&s->bound, st->u.loop.var); break;
  case TIR_LET_STMT: vl_add(&s->bound, st->u.let.var); break;
  case TIR_ALLOCATE: vl_add(&s->bound, st->u.alloc.var); break;
  case TIR_ALLOC_BUFFER: bind_buffer(s, st->u.decl.buf); break;
  case TIR_DECL_BUFFER: /* a declaration over a pointer bound elsewhere */
    vl_add(&s->used, st->u.decl.buf->data);
    if (s->collect) vl_add(&s->declared, (const tir_expr *)(const void *)st->u.decl.buf);
    break;
  case TIR_ATTR:
    if (is_launch(st)) vl_add(&s->bound, st->u.attr.node);
    /* a buffer node (`B = T.Buffer(...)`, declared before the attr: pr_attr) names its data var */
    if (st->u.attr.node_av && st->u.attr.node_av->kind == TIR_AV_EXPR && st->u.attr.node_av->buf)
      bind_buffer(s, st->u.attr.node_av->buf);
    /* so does a node written B.data (pr_attr) */
    if (st->u.attr.node_named && st->u.attr.node_named->data == st->u.attr.node)
      bind_buffer(s, st->u.attr.node_named);
    break;
  case TIR_BLOCK_REALIZE: {
    const tir_block *b = st->u.realize.block;
    for (int i = 0; i < b->n_iter; i++) vl_add(&s->bound, b->iter_vars[i].var);
    for (int i = 0; i < b->n_alloc; i++) bind_buffer(s, b->alloc_buffers[i]);
    for (int i = 0; i < b->n_match; i++) bind_buffer(s, b->match_buffers[i].buf);
    break;
  }
  default: break;
  }
  return true;
}

static void scan_buffer_fields(tir_visitor *v, const tir_buffer *b) {
  for (int i = 0; i < b->ndim; i++) tir_visit_expr(v, b->shape[i]);
  for (int i = 0; i < b->nstrides; i++) tir_visit_expr(v, b->strides[i]);
  tir_visit_expr(v, b->elem_offset);
  for (int i = 0; i < b->naddr; i++) tir_visit_expr(v, b->addr[i]);
}

static bool scan_expr_load(tir_visitor *v, const tir_expr *e) {
  /* a load, or a node printed with a string (T.Cast("int64", x), a call's
   * name, T.float32("inf")): TVM reads each string in a parameter's
   * T.Buffer(...) as the name of a shape var */
  if (e->kind == TIR_BUFFER_LOAD || e->kind == TIR_CAST || e->kind == TIR_CALL || e->kind == TIR_STRING_IMM ||
      e->kind == TIR_FLOAT_IMM)
    ((scan *)v->user)->has_load = true;
  return scan_expr(v, e);
}

/* a parameter buffer whose fields name a var (or read a buffer) is matched
 * in the body (T.match_buffer), where the later parameters are defined;
 * its layout's extents and strides count too */
static bool buffer_has_vars(const tir_buffer *b) {
  scan s = {0};
  tir_visitor v = {.expr = scan_expr_load, .user = &s};
  scan_buffer_fields(&v, b);
  for (int i = 0; i < 2 * b->nlayout; i++) /* (extent, stride) pairs */
    if (b->layout[i]) tir_visit_expr(&v, b->layout[i]);
  bool has = s.used.n > 0 || s.has_load;
  vl_free(&s.used);
  vl_free(&s.bound);
  return has;
}

/* where to declare free vars first met in a block's match_buffers: in the
 * block when every use of the var is inside it */
typedef struct place_ctx {
  printer *p;
  const var_list *free_vars; /* with total counts */
  bool *placed;
} place_ctx;

static void add_decl(printer *p, const tir_expr *v, const tir_block *b) {
  if (p->ndecl == p->capdecl) {
    int cap = p->capdecl ? p->capdecl * 2 : 8;
    const tir_expr **nv = realloc(p->decl_vars, sizeof *nv * (size_t)cap);
    if (!nv) abort();
    p->decl_vars = nv;
    const tir_block **nb = realloc(p->decl_at, sizeof *nb * (size_t)cap);
    if (!nb) abort();
    p->decl_at = nb;
    p->capdecl = cap;
  }
  p->decl_vars[p->ndecl] = v;
  p->decl_at[p->ndecl++] = b;
}

static bool place_stmt(tir_visitor *v, const tir_stmt *st) {
  place_ctx *pc = v->user;
  if (st->kind != TIR_BLOCK_REALIZE || !st->u.realize.block->n_match) return true;
  const tir_block *b = st->u.realize.block;
  scan inner = {0};
  tir_visitor iv = {.expr = scan_expr, .user = &inner, .visit_buffer_fields = true};
  tir_visit_stmt(&iv, st);
  scan decl = {0};
  tir_visitor dv = {.expr = scan_expr, .user = &decl};
  for (int i = 0; i < b->n_match; i++) scan_buffer_fields(&dv, b->match_buffers[i].buf);
  for (int i = 0; i < decl.used.n; i++) {
    int k = vl_find(pc->free_vars, decl.used.v[i]);
    if (k < 0 || pc->placed[k]) continue;
    int j = vl_find(&inner.used, decl.used.v[i]);
    if (j >= 0 && inner.used.count[j] == pc->free_vars->count[k]) {
      pc->placed[k] = true;
      add_decl(pc->p, decl.used.v[i], b);
    }
  }
  vl_free(&inner.used);
  vl_free(&inner.bound);
  vl_free(&decl.used);
  vl_free(&decl.bound);
  return true;
}

static void scan_region(tir_visitor *v, const tir_buffer_region *r, const tir_stmt *owner) {
  (void)owner;
  scan_access(v->user, r->buf);
}

/* where to declare the buffers over a free data var, and the free vars:
 * from the innermost statement around every use of each, found in one
 * walk, as TVM's printer places them.  The walk keeps the path of
 * statements from the body down; each item the path to its first use and
 * the length of the prefix that every later use shares (it only shrinks:
 * linear in the size of the function and the depth) */
typedef struct place_walk {
  const tir_ptrmap *idx; /* a var (or a buffer's data var, by_data) -> item index + 1 */
  bool by_data;          /* a buffer's use counts for its data var */
  const tir_stmt **path;
  int depth, cap;
  const tir_stmt ***first; /* per item: the path to its first use (malloc'd) */
  int *flen, *len;         /* its length; the prefix every use shares (0 before the first use) */
  int n;
} place_walk;

static void place_use(place_walk *pw, long k) {
  if (!k || !pw->depth) return;
  int i = (int)k - 1;
  if (!pw->first[i]) {
    pw->first[i] = malloc(sizeof **pw->first * (size_t)pw->depth);
    if (!pw->first[i]) abort();
    memcpy(pw->first[i], pw->path, sizeof **pw->first * (size_t)pw->depth);
    pw->flen[i] = pw->len[i] = pw->depth;
    return;
  }
  if (pw->len[i] > pw->depth) pw->len[i] = pw->depth;
  while (pw->len[i] > 1 && pw->first[i][pw->len[i] - 1] != pw->path[pw->len[i] - 1]) pw->len[i]--;
}

static tir_stmt *place_pre(tir_mutator *m, tir_stmt *s) {
  place_walk *pw = m->user;
  if (pw->depth == pw->cap) {
    pw->cap = pw->cap ? pw->cap * 2 : 64;
    pw->path = realloc(pw->path, sizeof *pw->path * (size_t)pw->cap);
    if (!pw->path) abort();
  }
  pw->path[pw->depth++] = s;
  return NULL;
}

static tir_stmt *place_post(tir_mutator *m, tir_stmt *s) {
  ((place_walk *)m->user)->depth--;
  return s;
}

static tir_buffer *place_buffer(tir_mutator *m, tir_buffer *b) {
  place_walk *pw = m->user;
  if (pw->by_data && b && b->data) place_use(pw, tir_ptrmap_get(pw->idx, b->data, 0));
  return b;
}

static tir_expr *place_expr(tir_mutator *m, tir_expr *e) {
  place_walk *pw = m->user;
  if (e->kind == TIR_VAR) place_use(pw, tir_ptrmap_get(pw->idx, e, 0));
  return e;
}

/* the walk over body for n items (place_walk_free after) */
static void place_walk_run(place_walk *pw, const tir_stmt *body, int n) {
  pw->n = n;
  pw->first = calloc((size_t)n, sizeof *pw->first);
  pw->flen = calloc((size_t)n, sizeof *pw->flen);
  pw->len = calloc((size_t)n, sizeof *pw->len);
  if (!pw->first || !pw->flen || !pw->len) abort();
  /* an identity rewrite: the callbacks see every statement before and
   * after its children, and every buffer and expr in between */
  tir_mutator m = {.pre_stmt = place_pre, .stmt = place_post, .buffer = place_buffer, .expr = place_expr, .user = pw};
  tir_mutate_stmt(&m, (tir_stmt *)body);
}

static void place_walk_free(place_walk *pw) {
  for (int i = 0; i < pw->n; i++) free(pw->first[i]);
  free(pw->first);
  free(pw->flen);
  free(pw->len);
  free(pw->path);
}

static void place_free_buffers(printer *p, const tir_stmt *body) {
  tir_ptrmap_free(&p->free_stmts); /* (leaves it empty, ready for reuse) */
  if (!p->nfree_bufs) return;
  free(p->free_at);
  p->free_at = calloc((size_t)p->nfree_bufs, sizeof *p->free_at);
  if (!p->free_at) abort();
  place_walk pw = {.idx = &p->free_data, .by_data = true};
  place_walk_run(&pw, body, p->nfree_bufs);
  for (int i = 0; i < p->nfree_bufs; i++) {
    if (pw.first[i]) {
      p->free_at[i] = pw.first[i][pw.len[i] - 1];
      tir_ptrmap_put(&p->free_stmts, p->free_at[i], 1);
    }
  }
  place_walk_free(&pw);
}

/* place_free_vars: a free var (T.Let's var, a symbolic var the body
 * names) is declared, `v = T.int32()`, as TVM's printer declares it: in
 * the innermost frame around all its uses (a statement that prints a body:
 * not a sequence, a store or an evaluate; the function's body if none),
 * just before that frame's statement that holds the first use (TVM adds
 * the declaration to the frame's statements as it prints the first use).
 * Where the first use is the frame's own header (a loop's extent), before
 * the frame (TVM's print puts it inside, after the use). */
static bool is_frame(const tir_stmt *s) {
  return s->kind != TIR_SEQ && s->kind != TIR_BUFFER_STORE && s->kind != TIR_EVALUATE;
}

static bool sig_var_cb(tir_visitor *v, const tir_expr *e) {
  if (e->kind == TIR_VAR) tir_ptrmap_put(v->user, e, 1);
  return true;
}

static void place_free_vars(printer *p, const tir_func *f, const var_list *fv, const bool *placed) {
  const tir_stmt *body = f->body;
  tir_ptrmap_free(&p->fv_at);
  tir_ptrmap_free(&p->fv_stmts);
  if (p->fv_off || !fv->n || !body) return;
  /* a var the signature's buffers name is declared at the top, after them */
  tir_ptrmap sig = {0};
  tir_visitor sv = {.expr = sig_var_cb, .user = &sig};
  for (int i = 0; i < f->nparams; i++)
    if (f->buffer_map && f->buffer_map[i]) scan_buffer_fields(&sv, f->buffer_map[i]);
  tir_ptrmap idx = {0};
  for (int i = 0; i < fv->n; i++)
    if (!placed[i] && !tir_ptrmap_get(&sig, fv->v[i], 0)) tir_ptrmap_put(&idx, fv->v[i], i + 1);
  tir_ptrmap_free(&sig);
  place_walk vp = {.idx = &idx};
  place_walk_run(&vp, body, fv->n);
  for (int i = 0; i < fv->n; i++) {
    const tir_stmt **path = vp.first[i];
    if (!path) continue;
    int fi = vp.len[i] - 1; /* the innermost frame on the shared path (-1: the function's) */
    while (fi >= 0 && !is_frame(path[fi])) fi--;
    const tir_stmt *at;
    if (fi + 1 >= vp.flen[i]) {
      at = path[fi < 0 ? 0 : fi]; /* the first use in the frame's own header: before the frame */
    } else {
      int c = fi + 1; /* the frame's body, through its sequences, to the statement of the first use */
      while (c + 1 < vp.flen[i] && path[c]->kind == TIR_SEQ) c++;
      at = path[c];
    }
    if (at == body && body->kind != TIR_SEQ) continue; /* the top, where it is declared already */
    tir_ptrmap_put(&p->fv_at, fv->v[i], (long)(intptr_t)at);
    tir_ptrmap_put(&p->fv_stmts, at, 1);
  }
  place_walk_free(&vp);
  tir_ptrmap_free(&idx);
}

/* the free vars placed before s (place_free_vars), in the order of the
 * function's free vars */
static void declare_placed_vars(printer *p, const tir_stmt *s) {
  const var_list *fv = p->placed_fv;
  if (!fv || !tir_ptrmap_get(&p->fv_stmts, s, 0)) return;
  for (int i = 0; i < fv->n; i++) {
    const tir_expr *v = fv->v[i];
    if ((const tir_stmt *)(intptr_t)tir_ptrmap_get(&p->fv_at, v, 0) == s && !pr_lookup(p, v)) declare_var(p, v);
  }
}

/* the vars used but bound nowhere in f, in order of first use, with
 * their use counts; a buffer accessed over a data var bound nowhere goes
 * to p->free_bufs instead of its data var (declare_free_buffers) */
static void free_vars_of(printer *p, const tir_func *f, var_list *out) {
  scan s = {.collect = true};
  tir_visitor v = {.expr = scan_expr, .stmt = scan_stmt, .region = scan_region, .user = &s, .visit_buffer_fields = true};
  for (int i = 0; i < f->nparams; i++) {
    vl_add(&s.bound, f->params[i]);
    if (f->buffer_map && f->buffer_map[i]) {
      bind_buffer(&s, f->buffer_map[i]);
      scan_buffer_fields(&v, f->buffer_map[i]);
    }
  }
  tir_visit_stmt(&v, f->body);
  p->nfree_bufs = 0;
  tir_ptrmap_free(&p->free_data);
  for (int i = 0; i < s.accessed.n; i++) {
    const tir_buffer *b = (const tir_buffer *)(const void *)s.accessed.v[i];
    if (vl_find(&s.bound, b->data) >= 0 || tir_ptrmap_get(&p->free_data, b->data, 0) ||
        vl_find(&s.declared, s.accessed.v[i]) >= 0)
      continue;
    if (p->nfree_bufs == p->capfree_bufs) {
      int cap = p->capfree_bufs ? p->capfree_bufs * 2 : 8;
      const tir_buffer **nb = realloc(p->free_bufs, sizeof *nb * (size_t)cap);
      if (!nb) abort();
      p->free_bufs = nb;
      p->capfree_bufs = cap;
    }
    p->free_bufs[p->nfree_bufs++] = b;
    tir_ptrmap_put(&p->free_data, b->data, p->nfree_bufs);
  }
  for (int i = 0; i < s.used.n; i++) {
    if (vl_find(&s.bound, s.used.v[i]) >= 0 || tir_ptrmap_get(&p->free_data, s.used.v[i], 0)) continue;
    vl_add(out, s.used.v[i]);
    out->count[out->n - 1] = s.used.count[i];
  }
  vl_free(&s.used);
  vl_free(&s.bound);
  vl_free(&s.accessed);
  vl_free(&s.declared);
}

/* declare_free_buffers: the buffers over a free data var that one
 * statement's own expressions, regions or store use (not its nested
 * statements', declared where they print) */
typedef struct free_use {
  printer *p;
  const tir_stmt *root;
} free_use;

static void declare_free_buffer(printer *p, const tir_buffer *b) {
  long k = tir_ptrmap_get(&p->free_data, b->data, 0);
  if (!k) return;
  if (pr_lookup(p, b)) return;
  const tir_buffer *owner = p->free_bufs[k - 1];
  if (owner != b && !pr_lookup(p, b->data)) declare_free_buffer(p, owner); /* the data var's first buffer names it */
  declare_buffer(p, b);
}

static bool free_use_expr(tir_visitor *v, const tir_expr *e) {
  free_use *u = v->user;
  if (e->kind == TIR_BUFFER_LOAD) declare_free_buffer(u->p, e->u.load.buf);
  else if (e->kind == TIR_VAR && !pr_lookup(u->p, e)) {
    long k = tir_ptrmap_get(&u->p->free_data, e, 0);
    if (k) declare_free_buffer(u->p, u->p->free_bufs[k - 1]);
  }
  return true;
}

static bool free_use_stmt(tir_visitor *v, const tir_stmt *s) {
  free_use *u = v->user;
  if (s != u->root) return false;
  if (s->kind == TIR_BUFFER_STORE) declare_free_buffer(u->p, s->u.store.buf);
  return true;
}

static void free_use_region(tir_visitor *v, const tir_buffer_region *r, const tir_stmt *owner) {
  (void)owner;
  free_use *u = v->user;
  declare_free_buffer(u->p, r->buf);
}

static void declare_free_buffers(printer *p, const tir_stmt *s) {
  if (!p->nfree_bufs || !s) return;
  if (tir_ptrmap_get(&p->free_stmts, s, 0))
    for (int i = 0; i < p->nfree_bufs; i++)
      if (p->free_at[i] == s) declare_free_buffer(p, p->free_bufs[i]);
  /* one the placement missed (a statement printed as part of another: the
   * inner loops of a T.grid): before its first use */
  if (s->kind == TIR_SEQ) return;
  free_use u = {p, s};
  tir_visitor v = {.expr = free_use_expr, .stmt = free_use_stmt, .region = free_use_region, .user = &u};
  tir_visit_stmt(&v, s);
}

static bool find_block(tir_visitor *v, const tir_stmt *s) {
  /* a realized block (TVM's SBlockRealize; a bare no_realize block is none) */
  if (s->kind == TIR_BLOCK_REALIZE && !s->u.realize.block->no_realize) *(bool *)v->user = true;
  return !*(bool *)v->user;
}

static bool has_block(const tir_stmt *s) {
  bool found = false;
  tir_visitor v = {.stmt = find_block, .user = &found};
  if (s) tir_visit_stmt(&v, s);
  return found;
}

/* the root block prints as the comment `# with T.sblock("root"):` when
 * reading the function back makes the same root, TVM 0.27's printer rule:
 * a plain block (no iter values, no predicate, reads, writes, match_buffers,
 * init or annotations) that allocates, or whose body is a block with iter
 * vars, or is not a block but holds one.  Its parser adds a root "root"
 * exactly then: with no function-level allocation, a body that is one block
 * without iter vars is itself the root (reader_block.c, rd_finish_root), so
 * an empty root around such a block prints explicitly.  TVM ignores the name
 * (its structural equality does too); tirc keeps it: only "root" is implicit. */
static bool is_root_realize(const tir_stmt *s) {
  if (!s || s->kind != TIR_BLOCK_REALIZE || s->u.realize.n || !is_true(s->u.realize.predicate)) return false;
  const tir_block *b = s->u.realize.block;
  if (!b || !b->name || strcmp(b->name, "root") || b->n_iter || b->n_reads || b->n_writes || b->n_match ||
      b->init || !av_empty(b->annotations) || b->no_realize)
    return false;
  const tir_stmt *body = b->body;
  if (b->n_alloc) return true;
  if (body && body->kind == TIR_BLOCK_REALIZE && !body->u.realize.block->no_realize)
    return body->u.realize.block && body->u.realize.block->n_iter > 0;
  return has_block(body);
}

/* a handle parameter with a buffer prints as `a: T.handle` and
 * `A = T.match_buffer(a, ...)` where the buffer has vars of its own, or
 * where the body names the handle itself (T.isnullptr(a): as a T.Buffer
 * parameter, `a` would be a name nothing defines) */
static bool param_as_handle(const printer *p, const tir_func *f, int i) {
  return f->buffer_map && f->buffer_map[i] &&
         (buffer_has_vars(f->buffer_map[i]) || (p->handle_used && p->handle_used[i]));
}

typedef struct {
  tir_ptrmap params; /* handle param var -> its index */
  bool *used;
} handle_use;

static bool handle_use_expr(tir_visitor *v, const tir_expr *e) {
  handle_use *h = v->user;
  if (e->kind == TIR_VAR) {
    long k = tir_ptrmap_get(&h->params, e, -1);
    if (k >= 0) h->used[k] = true;
  }
  return true;
}

/* p->handle_used[i]: the body names parameter i, a handle with a buffer */
static void find_handle_uses(printer *p, const tir_func *f) {
  p->handle_used = NULL;
  if (!f->buffer_map || !f->body) return;
  handle_use h = {.used = calloc((size_t)f->nparams + 1, sizeof *h.used)};
  if (!h.used) abort();
  int n = 0;
  for (int i = 0; i < f->nparams; i++)
    if (f->buffer_map[i]) tir_ptrmap_put(&h.params, f->params[i], i), n++;
  if (n) {
    tir_visitor v = {.expr = handle_use_expr, .user = &h};
    tir_visit_stmt(&v, f->body);
  }
  tir_ptrmap_free(&h.params);
  p->handle_used = h.used;
}

static bool implicit_decl_stmt(tir_visitor *v, const tir_stmt *s) {
  if (s->kind == TIR_DECL_BUFFER && s->u.decl.implicit) *(bool *)v->user = true;
  return !*(bool *)v->user;
}

/* the function views a buffer through `B = T.Buffer(..., data=...)`,
 * which TVM 0.27 reads only with check_well_formed=False */
static bool has_implicit_decl(const tir_func *f) {
  bool found = false;
  tir_visitor v = {.stmt = implicit_decl_stmt, .user = &found};
  if (f->body) tir_visit_stmt(&v, f->body);
  return found;
}

static void pr_signature(printer *p, const tir_func *f) {
  line(p);
  pr_puts(&p->out, "@T.prim_func");
  bool cwf = f->no_wf_check || has_implicit_decl(f) || (!p->in_module && p->env_escapes);
  bool stir = f->s_tir && tirx(p) && !(p->as_written && f->s_tir_implicit);
  if (f->private_ || stir || cwf) {
    const char *sep = "";
    pr_puts(&p->out, "(");
    if (f->private_) pr_puts(&p->out, "private=True"), sep = ", ";
    if (stir) pr_printf(&p->out, "%ss_tir=True", sep), sep = ", ";
    if (cwf) pr_printf(&p->out, "%scheck_well_formed=False", sep);
    pr_puts(&p->out, ")");
  }
  pr_puts(&p->out, "\n");
  line(p);
  pr_printf(&p->out, "def %s(", f->name ? f->name : "main");
  for (int i = 0; i < f->nparams; i++) {
    if (i) pr_puts(&p->out, ", ");
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    const tir_expr *pv = f->params[i];
    if (b && !param_as_handle(p, f, i)) {
      char *args = buffer_args_str(p, b, BUF_PARAM);
      pr_printf(&p->out, "%s: T.Buffer(%s)", define_buffer(p, b), args);
      free(args);
      continue;
    }
    const char *hint = pv->u.var.name;
    char *h = NULL;
    if (b && !strcmp(hint, b->name)) {
      h = malloc(strlen(hint) + 8);
      if (!h) abort();
      strcpy(h, hint);
      strcat(h, "_handle");
      hint = h;
    }
    pr_printf(&p->out, "%s: ", pr_define(p, pv, hint));
    free(h);
    if (tir_dtype_is_handle(pv->dtype) && pv->u.var.ptr_elem.bits) /* a typed pointer, as TVM prints it */
      pr_ptr_type(p, pv->u.var.ptr_elem, pv->u.var.ptr_scope);
    else
      pr_type_annot(p, pv->dtype);
  }
  pr_puts(&p->out, ")");
  if (f->ret_type.bits > 0) { /* TVM's ret_type, as TVM prints it (void, or unset: none) */
    pr_puts(&p->out, " -> ");
    pr_type_annot(p, f->ret_type);
  } else if (f->ret_void_written) {
    pr_puts(&p->out, " -> T.void");
  }
  pr_puts(&p->out, ":\n");
}

/* the vars of T.iter_var values in a function's attrs (or an attr's
 * node), declared before the T.func_attr (T.attr) that names them, as TVM
 * prints them */
static void declare_av_iter_vars(printer *p, const tir_attr_val *a) {
  if (!a) return;
  if (a->kind == TIR_AV_ITER_VAR) {
    const tir_expr *v = a->n > 0 && a->items[0] ? a->items[0]->expr : NULL;
    if (v && v->kind == TIR_VAR && !pr_lookup(p, v)) declare_var(p, v);
    return;
  }
  if (a->kind == TIR_AV_LIST || a->kind == TIR_AV_DICT || a->kind == TIR_AV_MAP)
    for (int i = 0; i < a->n; i++) declare_av_iter_vars(p, a->items[i]);
}

static void pr_func_prologue(printer *p, const tir_func *f, const var_list *fv, const bool *placed) {
  declare_av_iter_vars(p, f->attrs);
  if (!av_empty(f->attrs)) {
    /* TVM drops global_symbol when it equals the def name */
    int shown = 0;
    for (int i = 0; i < f->attrs->n; i++) {
      const tir_attr_val *v = f->attrs->items[i];
      bool same = !strcmp(f->attrs->keys[i], "global_symbol") && v && v->kind == TIR_AV_EXPR &&
                  v->expr && v->expr->kind == TIR_STRING_IMM && f->name && !strcmp(v->expr->u.str, f->name);
      if (!same) shown++;
    }
    if (shown) {
      line(p);
      pr_puts(&p->out, "T.func_attr(");
      pr_attr_dict(p, f->attrs, "global_symbol", f->name ? f->name : "");
      pr_puts(&p->out, ")\n");
    }
  }
  for (int i = 0; i < fv->n; i++) {
    if (placed[i] || pr_lookup(p, fv->v[i]) || tir_ptrmap_get(&p->fv_at, fv->v[i], 0)) continue;
    declare_var(p, fv->v[i]);
  }
  for (int i = 0; i < f->nparams; i++) {
    if (!param_as_handle(p, f, i)) continue;
    const tir_buffer *b = f->buffer_map[i];
    char *args = buffer_args_str(p, b, BUF_OTHER);
    const char *name = define_buffer(p, b);
    line(p);
    pr_printf(&p->out, "%s = T.match_buffer(", name);
    pr_var_name(p, f->params[i]);
    pr_printf(&p->out, ", %s)\n", args);
    free(args);
  }
}

/* thread vars launched more than once, or used outside their launch (a
 * program TVM reads only with its well-formedness check off): declared by
 * T.env_thread at the top, as TVM's printer does (env); and whether a
 * launched var is used outside every launch of it (escapes: LowerOpaqueBlock's
 * pragma attrs around a blockIdx launch), for which the print says
 * check_well_formed=False.  One scan, before the signature is printed:
 * linear in the body times the nesting of launches */
typedef struct env_scan {
  tir_ptrmap bound;  /* the signature's vars: a launch over one prints as an attr */
  tir_ptrmap seen;   /* var -> launches so far */
  tir_ptrmap uses;   /* launched var -> its uses in the whole body */
  tir_ptrmap inside; /* launched var -> its uses inside its launches */
  const tir_stmt **launch;
  int nlaunch, caplaunch;
  const tir_expr *count_var; /* counting this var's uses in one launch (count, up to count_total) */
  long count, count_total;
  const tir_expr **env; /* the vars T.env_thread declares, and their tags */
  const char **env_tag;
  int nenv, capenv;
  bool escapes;
} env_scan;

static bool env_skip_cb(tir_visitor *v, const tir_stmt *s) {
  env_scan *e = v->user;
  (void)s;
  return e->count < e->count_total;
}

static void env_add(env_scan *e, const tir_stmt *s) {
  for (int i = 0; i < e->nenv; i++)
    if (e->env[i] == s->u.attr.node) return;
  if (e->nenv == e->capenv) {
    e->capenv = e->capenv ? e->capenv * 2 : 4;
    e->env = realloc(e->env, sizeof *e->env * (size_t)e->capenv);
    e->env_tag = realloc(e->env_tag, sizeof *e->env_tag * (size_t)e->capenv);
    if (!e->env || !e->env_tag) abort();
  }
  e->env[e->nenv] = s->u.attr.node;
  e->env_tag[e->nenv++] = launch_tag(s);
}

static bool env_cb(tir_visitor *v, const tir_stmt *s) {
  env_scan *e = v->user;
  if (s->kind != TIR_ATTR || !is_launch(s) || !tir_is_var(s->u.attr.node)) return true;
  /* a var something else binds (a parameter, a buffer's data: T.attr(n, "thread_extent", 4)) prints as an attr */
  if (s->u.attr.node_named || tir_ptrmap_get(&e->bound, s->u.attr.node, 0)) return true;
  long k = tir_ptrmap_get(&e->seen, s->u.attr.node, 0) + 1;
  tir_ptrmap_put(&e->seen, s->u.attr.node, k);
  /* launched twice, or over an extent of another type than its own (an
   * int32 var over T.int64(8): T.launch_thread("threadIdx.x", T.int64(8))
   * would make an int64 var) */
  if (k == 2 || (s->u.attr.value && !tir_dtype_eq(s->u.attr.value->dtype, s->u.attr.node->dtype))) env_add(e, s);
  if (e->nlaunch == e->caplaunch) {
    e->caplaunch = e->caplaunch ? e->caplaunch * 2 : 8;
    e->launch = realloc(e->launch, sizeof *e->launch * (size_t)e->caplaunch);
    if (!e->launch) abort();
  }
  e->launch[e->nlaunch++] = s;
  return true;
}

static bool env_use_cb(tir_visitor *v, const tir_expr *x) {
  env_scan *e = v->user;
  if (e->count_var && e->count >= e->count_total) return false; /* all found: the rest is skipped */
  if (x->kind != TIR_VAR) return true;
  if (e->count_var) {
    if (x == e->count_var) e->count++;
  } else if (tir_ptrmap_get(&e->seen, x, 0)) {
    tir_ptrmap_put(&e->uses, x, tir_ptrmap_get(&e->uses, x, 0) + 1);
  }
  return true;
}

static bool env_bound_cb(tir_visitor *v, const tir_expr *x) {
  if (x->kind == TIR_VAR) tir_ptrmap_put(v->user, x, 1);
  return true;
}

/* e (zeroed) scanned over f; env_scan_free after */
static void env_scan_func(env_scan *e, const tir_func *f) {
  if (!f->body) return;
  tir_visitor bv = {.expr = env_bound_cb, .user = &e->bound};
  for (int i = 0; i < f->nparams; i++) {
    tir_ptrmap_put(&e->bound, f->params[i], 1);
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (b) {
      tir_ptrmap_put(&e->bound, b->data, 1);
      scan_buffer_fields(&bv, b);
    }
  }
  tir_visitor v = {.stmt = env_cb, .user = e};
  tir_visit_stmt(&v, f->body);
  if (!e->nlaunch) return;
  tir_visitor u = {.expr = env_use_cb, .user = e};
  tir_visit_stmt(&u, f->body);
  u.stmt = env_skip_cb;
  for (int i = 0; i < e->nlaunch; i++) {
    const tir_expr *x = e->launch[i]->u.attr.node;
    e->count_var = x;
    e->count = 0;
    e->count_total = tir_ptrmap_get(&e->uses, x, 0);
    tir_visit_stmt(&u, e->launch[i]);
    tir_ptrmap_put(&e->inside, x, tir_ptrmap_get(&e->inside, x, 0) + e->count);
  }
  /* a launch nested in one of the same var counts its uses twice: never less than the total then */
  for (int i = 0; i < e->nlaunch; i++) {
    const tir_expr *x = e->launch[i]->u.attr.node;
    if (tir_ptrmap_get(&e->inside, x, 0) >= tir_ptrmap_get(&e->uses, x, 0)) continue;
    e->escapes = true;
    env_add(e, e->launch[i]); /* launched once (or twice: declared already) */
  }
}

static void env_scan_free(env_scan *e) {
  free(e->launch);
  free(e->env);
  free(e->env_tag);
  tir_ptrmap_free(&e->bound);
  tir_ptrmap_free(&e->seen);
  tir_ptrmap_free(&e->uses);
  tir_ptrmap_free(&e->inside);
}

static bool launch_var_escapes(const tir_func *f) {
  env_scan e = {0};
  env_scan_func(&e, f);
  bool escapes = e.escapes;
  env_scan_free(&e);
  return escapes;
}

/* p->env from f's scan, and whether the signature says check_well_formed=False for it */
static void scan_env_threads(printer *p, const tir_func *f) {
  env_scan e = {0};
  env_scan_func(&e, f);
  p->nenv = 0;
  for (int i = 0; i < e.nenv; i++) {
    if (p->nenv == p->capenv) {
      p->capenv = p->capenv ? p->capenv * 2 : 4;
      p->env = realloc(p->env, sizeof *p->env * (size_t)p->capenv);
      p->env_tag = realloc(p->env_tag, sizeof *p->env_tag * (size_t)p->capenv);
      if (!p->env || !p->env_tag) abort();
    }
    p->env[p->nenv] = e.env[i];
    p->env_tag[p->nenv++] = e.env_tag[i];
  }
  p->env_escapes = e.escapes;
  env_scan_free(&e);
}

static void pr_env_threads(printer *p) {
  for (int i = 0; i < p->nenv; i++) {
    const char *name = pr_define(p, p->env[i], p->env[i]->u.var.name);
    line(p);
    pr_printf(&p->out, "%s = T.env_thread(", name);
    pr_string_lit(&p->out, p->env_tag[i]);
    if (!tir_dtype_eq(p->env[i]->dtype, TIR_INT32)) { /* T.env_thread makes an int32 var unless told */
      char ty[32];
      pr_printf(&p->out, ", \"%s\"", tir_dtype_str(p->env[i]->dtype, ty));
    }
    pr_puts(&p->out, ")\n");
  }
}

static void pr_func_body(printer *p, const tir_func *f) {
  const tir_stmt *body = f->body;
  pr_env_threads(p);
  /* a function printed without s_tir=True (as written) gets no root from
   * TVM's parser: its root block prints as the block it is */
  bool implicit_root = !(tirx(p) && p->as_written && f->s_tir_implicit && f->root_written);
  if (implicit_root && is_root_realize(body)) {
    const tir_block *b = body->u.realize.block;
    line(p);
    pr_printf(&p->out, "# with T.%s(\"root\"):\n", tirx(p) ? "sblock" : "block");
    for (int i = 0; i < b->n_alloc; i++)
      pr_alloc_line(p, b->alloc_buffers[i], tirx(p) ? "sblock_alloc_buffer" : "alloc_buffer");
    body = b->body;
  }
  if (body) pr_stmt(p, body);
  else {
    line(p);
    pr_puts(&p->out, "T.evaluate(0)\n");
  }
}

static void pr_func_once(printer *p, const tir_func *f) {
  int mark = p->nnames;
  var_list fv = {0};
  free_vars_of(p, f, &fv);
  place_free_buffers(p, f->body);
  bool *placed = calloc((size_t)(fv.n ? fv.n : 1), sizeof *placed);
  if (!placed) abort();
  place_ctx pc = {p, &fv, placed};
  tir_visitor pv = {.stmt = place_stmt, .user = &pc};
  tir_visit_stmt(&pv, f->body);
  place_free_vars(p, f, &fv, placed);
  p->placed_fv = &fv;
  find_handle_uses(p, f);
  scan_env_threads(p, f);
  pr_signature(p, f);
  p->indent++;
  pr_func_prologue(p, f, &fv, placed);
  pr_func_body(p, f);
  p->indent--;
  p->placed_fv = NULL;
  free(placed);
  free(p->handle_used);
  p->handle_used = NULL;
  vl_free(&fv);
  p->ndecl = 0;
  p->nenv = 0;
  pr_pop_to(p, mark);
}

/* printed again with every free var at the top where a placed one was
 * named before its declaration (printed as part of another statement) */
static void pr_func(printer *p, const tir_func *f) {
  size_t at = p->out.len;
  p->fv_missed = false;
  pr_func_once(p, f);
  if (!p->fv_missed) return;
  p->out.len = at;
  p->out.s[at] = 0;
  p->fv_off = true;
  pr_func_once(p, f);
  p->fv_off = false;
  p->fv_missed = false;
  tir_ptrmap_free(&p->fv_at);
  tir_ptrmap_free(&p->fv_stmts);
}

static void pr_imports(printer *p, bool module, bool relax, bool typing, const tir_print_opts *o) {
  if (o && o->no_import) return;
  /* As TVM prints them: comments, since tvm.script.from_source refuses an
   * import statement. */
  if (typing) pr_puts(&p->out, "# from typing import TypeVar\n");
  if (module) pr_puts(&p->out, "# from tvm.script import ir as I\n");
  pr_printf(&p->out, "# from tvm.script import %s as T\n", tirx(p) ? "tirx" : "tir");
  if (relax) pr_puts(&p->out, "# from tvm.script import relax as R\n");
  pr_puts(&p->out, "\n");
}

static char *finish(printer *p) {
  char *s = p->out.s;
  p->out.s = NULL;
  pr_free(p);
  return s;
}

char *tir_print_func(const tir_func *f, const tir_print_opts *o) {
  printer p;
  pr_init(&p, o ? o->dialect : TIR_DIALECT_TIRX);
  p.as_written = o && o->as_written;
  pr_imports(&p, false, false, false, o);
  pr_func(&p, f);
  return finish(&p);
}

char *tir_print_module(const tir_module *m, const tir_print_opts *o) {
  printer p;
  pr_init(&p, o ? o->dialect : TIR_DIALECT_TIRX);
  p.as_written = o && o->as_written;
  if (!m->name && m->nfuncs == 1 && !m->ntext_funcs) {
    pr_imports(&p, false, false, false, o);
    pr_func(&p, m->funcs[0]);
    return finish(&p);
  }
  pr_imports(&p, true, m->ntext_funcs > 0 || m->global_infos_text, m->type_vars_text, o);
  if (m->type_vars_text) pr_puts(&p.out, m->type_vars_text);
  bool cwf = m->no_wf_check; /* TVM checks a module's functions by the module's flag */
  for (int i = 0; i < m->nfuncs && !cwf; i++) cwf = launch_var_escapes(m->funcs[i]);
  pr_printf(&p.out, "@I.ir_module%s\nclass %s:\n", cwf ? "(check_well_formed=False)" : "", m->name ? m->name : "Module");
  p.in_module = true;
  p.indent++;
  if (m->attrs && m->attrs->kind == TIR_AV_DICT && m->attrs->n) {
    line(&p);
    pr_puts(&p.out, "I.module_attrs(");
    pr_attr_val(&p, m->attrs);
    pr_puts(&p.out, ")\n");
  }
  if (m->global_infos_text) pr_puts(&p.out, m->global_infos_text);
  if (m->global_infos && m->global_infos->kind == TIR_AV_DICT && m->global_infos->n) {
    line(&p);
    pr_puts(&p.out, "I.module_global_infos(");
    pr_attr_val(&p, m->global_infos);
    pr_puts(&p.out, ")\n");
  }
  /* the text functions (Relax) where they were written among the TIR ones */
  int t = 0, k = 0;
  for (int i = 0; i <= m->nfuncs; i++) {
    for (; t < m->ntext_funcs && (m->text_funcs[t].before <= i || i == m->nfuncs); t++) {
      if (k++) pr_puts(&p.out, "\n");
      pr_puts(&p.out, m->text_funcs[t].text);
    }
    if (i == m->nfuncs) break;
    if (k++) pr_puts(&p.out, "\n");
    pr_func(&p, m->funcs[i]);
  }
  if (!m->nfuncs && !m->ntext_funcs) {
    line(&p);
    pr_puts(&p.out, "pass\n");
  }
  return finish(&p);
}
