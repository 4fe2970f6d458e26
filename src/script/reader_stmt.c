/* reader_stmt.c - statements: assignments (stores, lets, declarations,
 * statement-level allocations), for / while / if, with-frames (blocks,
 * init, attr, launch_thread, Assert), T.evaluate and bare calls. */
#include <stdint.h>
#include <string.h>

#include "script/reader.h"

#include "tir/script.h"
#include "tir/visit.h"

/* expansions in one text: 100,000 take about a second */
#define RD_MAX_MACRO_EXPANSIONS 100000
/* a value a name copies at each use (T.meta_var, a macro's parameter) */
#define RD_MAX_WRITTEN_OUT 10000
static long tree_size(const tir_expr *e, long cap);

/* the statements that scope the rest of their list (lets, local scalars,
 * allocations: up to RD_MAX_STMT_DEPTH = 500 deep) recurse through
 * rd_stmts, stmt_at, expr_stmt, assignment, let and rest_of: the other
 * statements' readers stay out of those frames (the ASan build's frames
 * hold every inlined local with its redzones) */
#define NOINLINE __attribute__((noinline))

typedef struct stmt_list {
  tir_stmt **s;
  int n, cap;
} stmt_list;

static void add(rd *r, stmt_list *l, tir_stmt *s) {
  if (!s) return;
  l->s = rd_grow(r->c, l->s, l->n, &l->cap, sizeof *l->s);
  l->s[l->n++] = s;
}

static tir_stmt *stmt_at(rd *r, TSNode s, TSNode list, uint32_t idx, bool *rest_used);

/* Statements nest through bodies and through the lets, allocations and
 * thread launches whose scope is the rest of their list.  Every pass walks
 * them recursively, so past this depth the input is refused. */
#define RD_MAX_STMT_DEPTH 500

/* The printer writes 4 columns a level (an else-if as `else:` + `if`, as
 * TVM does), and tree-sitter-python reads at most 255 columns of
 * indentation: deeper input could not be read back once printed. */
#define RD_MAX_NEST 62

static bool too_deep(rd *r, TSNode at, const char *fmt, int limit) {
  if (!r->too_deep) tir_error(r->d, rd_span(at), fmt, limit);
  r->too_deep = true;
  return false;
}

static bool enter_nest(rd *r, TSNode at) {
  if (r->nest >= RD_MAX_NEST)
    return too_deep(r, at, "blocks nested too deeply (more than %d levels, each elif counting as one)", RD_MAX_NEST);
  r->nest++;
  return true;
}

static bool enter_stmt(rd *r, TSNode at) {
  if (r->stmt_depth >= RD_MAX_STMT_DEPTH)
    return too_deep(r, at, "statements nested too deeply (more than %d levels, counting each let, allocation, "
                    "launch_thread and grid loop that scopes the statements after it)", RD_MAX_STMT_DEPTH);
  r->stmt_depth++;
  return true;
}

/* The names a statement binds (`x = ...`, `a, b = ...`, `x: T.int32 = ...`)
 * when reading it failed: each is bound to an error value, so that its
 * later uses stay quiet and one root cause gives one error, whatever the
 * statement was (a misspelt T.alloc_buffer, a let whose value is wrong, a
 * failed T.axis.*). */
static void poison_names(rd *r, TSNode left) {
  if (rd_is(left, "identifier")) {
    rd_push_sym(r, rd_text(r, left), rv_err());
    return;
  }
  if (!rd_is(left, "pattern_list") && !rd_is(left, "tuple_pattern") && !rd_is(left, "list_pattern") &&
      !rd_is(left, "parenthesized_expression"))
    return;
  uint32_t cnt = rd_child_count(left);
  for (uint32_t i = 0; i < cnt; i++) poison_names(r, rd_child(left, i));
}

static void poison_targets(rd *r, TSNode s) {
  if (!rd_is(s, "expression_statement")) return;
  TSNode e = rd_child(s, 0);
  if (rd_is(e, "assignment")) poison_names(r, rd_field(e, "left"));
}

static tir_stmt *with_item(rd *r, TSNode s, uint32_t k);

tir_stmt *rd_stmts(rd *r, TSNode list, uint32_t from) {
  if (r->with_next && from == 0 && ts_node_eq(list, rd_field(r->with_node, "body"))) {
    uint32_t k = r->with_next; /* the body of a with item: the next item */
    r->with_next = 0;
    return with_item(r, r->with_node, k);
  }
  bool level = !r->in_rest;
  r->in_rest = false;
  uint32_t cnt;
  const TSNode *kids = rd_named_children(r, list, &cnt);
  TSNode first = from < cnt ? kids[from] : list;
  if (level && !enter_nest(r, first)) return NULL;
  if (!enter_stmt(r, first)) {
    r->nest -= level;
    return NULL;
  }
  stmt_list l = {0};
  int before = r->d ? r->d->nerrors : 0;
  /* a list read in chunks goes on in the next chunk; the reader of the
   * list from its start frees the trees of the chunks it has read */
  bool top = from == 0 && r->ck.cur && ts_node_eq(list, r->ck.list0);
  for (uint32_t i = from;; i++) {
    while (i >= cnt) {
      if (rd_list_continues(r, list)) {
        list = rd_next_chunk(r, top);
        if (ts_node_is_null(list)) break;
        kids = rd_named_children(r, list, &cnt);
        i = 0;
      } else if (r->nsplice && ts_node_eq(r->splice[r->nsplice - 1].branch, list)) {
        /* the end of a Python-constant if's branch: on with the enclosing list */
        struct rd_splice sp = r->splice[--r->nsplice];
        list = sp.list;
        kids = rd_named_children(r, list, &cnt);
        i = sp.from;
        top = false;
      } else {
        break;
      }
    }
    if (i >= cnt) break;
    TSNode s = kids[i];
    if (rd_is_extra(s)) continue;
    bool failed = false;
    int errs = r->d ? r->d->nerrors : 0;
    rd_tmp_mark_t tmp = rd_tmp_mark(r);
    r->cur_stmt = s, r->cur_list = list;
    if (rd_block_frame_stmt(r, s, &failed)) {
      rd_tmp_release(r, tmp);
      if (failed || (r->d && r->d->nerrors > errs)) poison_targets(r, s);
      continue;
    }
    if (r->blk && !r->blk->is_root) r->blk->body_started = true;
    bool rest = false;
    add(r, &l, stmt_at(r, s, list, i, &rest));
    rd_tmp_release(r, tmp);
    if (rest) break;
    if (r->d && r->d->nerrors > errs) poison_targets(r, s);
  }
  r->stmt_depth--;
  r->nest -= level;
  if (r->d && r->d->nerrors > before) return NULL;
  if (l.n == 0) return tir_evaluate(r->c, tir_i32(r->c, 0));
  return tir_seq(r->c, l.s, l.n);
}

tir_stmt *rd_body(rd *r, TSNode list, uint32_t from) {
  int mark = r->nsyms, frame = r->frame;
  r->frame = mark;
  tir_stmt *s = rd_stmts(r, list, from);
  rd_pop_syms(r, mark);
  r->frame = frame;
  return s;
}

/* the rest of the statement list after idx, in the current scope */
/* not inlined: rest_of, let and assignment are on the path of every
 * statement that scopes the rest (500 deep, RD_MAX_STMT_DEPTH), whose
 * frames must stay small (the ASan build's too) */
static tir_stmt *pend_run(rd *r, TSNode list, uint32_t idx, bool *rest_used, bool whole_rest)
    __attribute__((noinline));

static tir_stmt *rest_of(rd *r, TSNode list, uint32_t idx, bool *rest_used) {
  *rest_used = true;
  if (r->pend_i < r->pend_n) return pend_run(r, list, idx, rest_used, true);
  r->in_rest = true;
  return rd_stmts(r, list, idx + 1);
}

/* ---- assignments ---- */

/* tgt = value (tgt an element or slice of a buffer, at tsp) */
static tir_stmt *store_to(rd *r, rval tgt, tir_span tsp, rval value, const char *aug, tir_span sp) {
  if (tgt.k == RV_ERR || value.k == RV_ERR) return NULL;
  if (aug) {
    value = rd_binop(r, aug, tgt, value, sp);
    if (value.k == RV_ERR) return NULL;
  }
  tir_expr *load = tgt.k == RV_REGION ? rd_region_load(r, tgt) : tgt.k == RV_EXPR ? tgt.e : NULL;
  if (!load && tgt.k == RV_REGION) return NULL; /* refused, said */
  if (!load || load->kind != TIR_BUFFER_LOAD) {
    tir_error(r->d, tsp, "only buffer elements can be assigned to");
    return NULL;
  }
  if (!rd_store_kind_ok(r, value, load->dtype, load->u.load.buf->name)) return NULL;
  if (value.k == RV_REGION) { /* B[0:2] as the value: refused (TVM 0.27 reads it as a region, which no store takes) */
    tir_expr *ve = rd_as_expr(r, value);
    if (!ve) return NULL;
    value = rv_expr(ve, value.sp);
  }
  if (value.k == RV_EXPR && value.e && value.e->dtype.lanes != 1 && value.e->dtype.lanes != load->dtype.lanes) {
    tir_error(r->d, value.sp, "a value of %d lanes stored to %d lanes of %s", value.e->dtype.lanes & ~TIR_LANES_SCALABLE,
              load->dtype.lanes & ~TIR_LANES_SCALABLE, load->u.load.buf->name);
    return NULL;
  }
  tir_expr *v = rd_convert(r, value, load->dtype);
  if (!v) return NULL;
  tir_stmt *s = tir_store(r->c, load->u.load.buf, v, load->u.load.idx, load->u.load.nidx);
  s->span = sp;
  return s;
}

static tir_stmt *store(rd *r, TSNode lhs, rval value, const char *aug, tir_span sp) {
  r->store_target = true; /* B[0:4] = v, B[0:8:2] = v: the slice a vector index, as TVM 0.27 reads it */
  rval tgt = rd_subscript(r, lhs);
  r->store_target = false;
  return store_to(r, tgt, rd_span(lhs), value, aug, sp);
}

/* T.buffer_store(buffer, value, indices): buffer[indices] = value (TVM
 * 0.27's call form; one index may stand alone, as TVM reads it) */
static tir_stmt *buffer_store_call(rd *r, TSNode call) {
  rd_args a;
  tir_span sp = rd_span(call);
  if (!rd_eval_call_args(r, call, &a)) return NULL;
  rval *b = rd_arg(&a, 0, "buffer"), *v = rd_arg(&a, 1, "value"), *ix = rd_arg(&a, 2, "indices");
  if (!b || !v || !ix || a.npos + a.nkw != 3) {
    tir_error(r->d, sp, "T.buffer_store expects (buffer, value, indices)");
    return NULL;
  }
  if (b->k != RV_BUFFER) {
    tir_error(r->d, b->sp, "T.buffer_store expects a buffer");
    return NULL;
  }
  bool many = ix->k == RV_TUPLE;
  r->store_target = true; /* [slice(0, 4)]: a vector index, as B[0:4] = v */
  rval tgt = rd_buffer_element(r, b->buf, many ? ix->items : ix, many ? ix->n : 1, ix->sp);
  r->store_target = false;
  return store_to(r, tgt, b->sp, *v, NULL, sp);
}

/* T.static_assert(cond, message=""): checked where the program is read, as
 * TVM's parser checks it; nothing of it stays in the program */
static tir_stmt *static_assert_call(rd *r, TSNode call) {
  rd_args a;
  tir_span sp = rd_span(call);
  if (!rd_eval_call_args(r, call, &a)) return NULL;
  rval *c = rd_arg(&a, 0, "x"), *m = rd_arg(&a, 1, "message");
  if (!c || a.npos + a.nkw != 1 + (m != NULL) || (m && m->k != RV_STR)) {
    tir_error(r->d, sp, "T.static_assert expects (condition, message)");
    return NULL;
  }
  int64_t k;
  bool known = c->k == RV_BOOL || c->k == RV_INT || (c->k == RV_EXPR && tir_is_const_int(c->e, &k));
  if (!known) {
    tir_error(r->d, c->sp, "T.static_assert needs a condition known where the program is read");
    return NULL;
  }
  bool ok = c->k == RV_EXPR ? k != 0 : c->i != 0;
  if (!ok) tir_error(r->d, sp, "static assertion failed%s%s", m && *m->s ? ": " : "", m ? m->s : "");
  return NULL;
}

/* T.int32() / T.handle() / T.int32(is_size_var=True): a fresh free var */
static bool var_decl(rd *r, const char *name, TSNode call, tir_span sp) {
  const char *tn = rd_t_name(r, rd_field(call, "function"));
  tir_dtype t;
  if (!tn) return false;
  bool is_handle = !strcmp(tn, "handle");
  if (!strcmp(tn, "var")) { /* n = T.var("int32"): as n = T.int32() */
    rd_args a;
    if (!rd_eval_call_args(r, call, &a)) return true;
    a.sp = rd_span(call);
    /* T.var(dtype, name=""): TVM's name hint; the var is printed by the
     * name it is assigned to, as names are not part of the program */
    rval *dt = rd_arg(&a, 0, "dtype"), *nm = rd_arg(&a, 1, "name");
    if (!dt || a.npos + a.nkw != 1 + (nm != NULL) || (nm && nm->k != RV_STR)) {
      tir_error(r->d, a.sp, "T.var expects a dtype (and a name string)");
      return true;
    }
    if (!rd_parse_dtype(r, *dt, &t) || !rd_fresh(r, name, sp)) return true;
    tir_expr *v = tir_var(r->c, name, t);
    v->span = sp;
    rd_push_sym(r, name, rv_expr(v, sp));
    r->syms[r->nsyms - 1].free_decl = true;
    return true;
  }
  if (!is_handle && !tir_dtype_parse(tn, &t)) return false;
  if (is_handle) t = TIR_HANDLE;
  rd_sym *made = rd_lookup(r, name);
  if (made && made->from_shape && made->val.k == RV_EXPR && tir_dtype_eq(made->val.e->dtype, t)) {
    /* TVM prints the declaration of a var a shape string made: the same
     * var, as often as it is written (TVM takes each one of that dtype) */
    return true;
  }
  rd_args a;
  if (!rd_eval_call_args(r, call, &a)) return true;
  if (a.npos != 0 && !is_handle) return false;
  if (!rd_fresh(r, name, sp)) return true;
  rval *sz = rd_kwarg(&a, "is_size_var");
  tir_expr *v = sz && sz->k == RV_BOOL && sz->i ? tir_size_var(r->c, name, t) : tir_var(r->c, name, t);
  if (is_handle) { /* p = T.handle("float32", "shared"): a pointer of that type, as TVM's */
    rval *dt = rd_arg(&a, 0, "dtype"), *sc = rd_arg(&a, 1, "storage_scope");
    if (a.npos + a.nkw > (dt != NULL) + (sc != NULL) || (sc && sc->k != RV_STR && sc->k != RV_NONE)) {
      tir_error(r->d, rd_span(call), "T.handle expects (dtype, storage_scope)");
      return true;
    }
    if (dt && dt->k != RV_NONE) {
      if (!rd_parse_dtype(r, *dt, &v->u.var.ptr_elem)) return true;
      v->u.var.ptr_scope = sc && sc->k == RV_STR ? sc->s : "global";
    }
  }
  v->span = sp;
  rd_push_sym(r, name, rv_expr(v, sp));
  r->syms[r->nsyms - 1].free_decl = true;
  return true;
}

/* removes `annotations=` from a's keywords: *out is its dict (NULL when
 * absent, None or empty); false after an error */
static bool take_annotations(rd *r, rd_args *a, tir_attr_val **out) {
  *out = NULL;
  for (int i = 0; i < a->nkw; i++) {
    if (strcmp(a->kw[i], "annotations")) continue;
    rval v = a->kwv[i];
    for (int j = i + 1; j < a->nkw; j++) {
      a->kw[j - 1] = a->kw[j];
      a->kwv[j - 1] = a->kwv[j];
      a->kwsp[j - 1] = a->kwsp[j];
    }
    a->nkw--;
    if (v.k == RV_NONE) return true;
    if (v.k != RV_DICT) {
      tir_error(r->d, v.sp, "annotations must be a dict");
      return false;
    }
    if (!(*out = rd_as_attr(r, v))) return false;
    if ((*out)->n == 0) *out = NULL;
    return true;
  }
  return true;
}

/* a declaration that failed: its name is known but quiet (no cascade of
 * "undefined buffer" at each later use) */
static tir_stmt *alloc_failed(rd *r, const char *name) {
  rd_push_sym(r, name, (rval){.k = RV_ERR});
  return NULL;
}

static tir_stmt *alloc_from_args(rd *r, const char *tn, const char *name, rd_args a, TSNode list, uint32_t idx,
                                 bool *rest_used);

static tir_stmt *alloc_like(rd *r, const char *tn, const char *name, TSNode call, TSNode list, uint32_t idx,
                            bool *rest_used) {
  rd_args a;
  if (!rd_eval_call_args(r, call, &a)) return alloc_failed(r, name);
  a.sp = rd_span(call);
  return alloc_from_args(r, tn, name, a, list, idx, rest_used);
}

/* `x: T.float32[4]`, `t: T.f32[4, 4]` (no value): TVM 0.27's local vector,
 * T.alloc_local(shape, dtype) */
static tir_stmt *local_vector(rd *r, const char *name, TSNode sub, TSNode list, uint32_t idx, bool *rest_used) {
  tir_dtype t;
  const char *dn = rd_t_name(r, rd_field(sub, "value"));
  if (!dn || !tir_dtype_parse(dn, &t)) return NULL;
  rd_args a = {.sp = rd_span(sub)};
  a.pos = tir_alloc(r->c, sizeof *a.pos * 2);
  uint32_t n = rd_child_count(sub);
  rval shape = {.k = RV_TUPLE, .sp = a.sp, .items = tir_alloc(r->c, sizeof(rval) * (n + 1))};
  for (uint32_t i = 1; i < n; i++) { /* child 0 is the dtype */
    TSNode c = rd_child(sub, i);
    if (rd_is_extra(c)) continue;
    if (rd_is(c, "slice")) {
      tir_error(r->d, rd_span(c), "a local vector's shape takes extents, not slices");
      return alloc_failed(r, name);
    }
    rval v = rd_eval(r, c);
    if (v.k == RV_ERR) return alloc_failed(r, name);
    if (v.k == RV_TUPLE && n == 2) { /* T.f32[(4, 4)] */
      shape = v;
      break;
    }
    shape.items[shape.n++] = v;
  }
  shape.is_list = false;
  char dts[64];
  a.pos[a.npos++] = shape;
  a.pos[a.npos++] = (rval){.k = RV_STR, .s = tir_strdup(r->c, tir_dtype_str(t, dts)), .sp = a.sp};
  return alloc_from_args(r, "alloc_local", name, a, list, idx, rest_used);
}

static tir_stmt *alloc_from_args(rd *r, const char *tn, const char *name, rd_args a, TSNode list, uint32_t idx,
                                 bool *rest_used) {
  if (!strcmp(tn, "allocate")) {
    rval *ex = rd_arg(&a, 0, "extents");
    rval *dt = rd_arg(&a, 1, "dtype");
    rval *sc = rd_arg(&a, 2, "scope");
    tir_dtype t;
    if (!ex || !dt || ex->k != RV_TUPLE || !rd_parse_dtype(r, *dt, &t)) {
      if (!ex || !dt || (ex && ex->k != RV_TUPLE)) tir_error(r->d, a.sp, "T.allocate expects ([extents], dtype, scope)");
      return alloc_failed(r, name);
    }
    const char *scope = sc ? rd_as_str(r, *sc, "scope") : "global";
    if (!scope) return alloc_failed(r, name);
    tir_expr **ext = tir_alloc(r->c, sizeof *ext * (size_t)(ex->n + 1));
    for (int i = 0; i < ex->n; i++) {
      if (!(ext[i] = rd_as_expr(r, ex->items[i]))) return alloc_failed(r, name);
      if (!tir_dtype_is_int(ext[i]->dtype)) {
        tir_error(r->d, ex->items[i].sp, "T.allocate extents must be integers");
        return alloc_failed(r, name);
      }
    }
    if (!rd_check_shape(r, *ex, ext, ex->n, t, name)) return alloc_failed(r, name);
    tir_expr *v = tir_var(r->c, name, TIR_HANDLE);
    v->u.var.ptr_scope = tir_strdup(r->c, scope);
    v->u.var.ptr_elem = t;
    rd_push_sym(r, name, rv_expr(v, a.sp));
    tir_stmt *body = rest_of(r, list, idx, rest_used);
    return body ? tir_allocate(r->c, v, t, ext, ex->n, scope, body) : NULL;
  }
  tir_attr_val *annots = NULL;
  if (!rd_buffer_args(r, tn, &a) || !take_annotations(r, &a, &annots)) return alloc_failed(r, name);
  /* TVM 0.27 prints a statement-level local / shared AllocBuffer as
   * T.alloc_local / T.alloc_shared(shape, dtype): an alloc_buffer in that scope */
  bool scoped = !strcmp(tn, "alloc_local") || !strcmp(tn, "alloc_shared");
  /* TVM's T.alloc_shared is functools.partial(alloc_buffer, scope="shared"): a scope= given replaces it */
  if (scoped && !rd_kwarg(&a, "scope"))
    rd_add_kwarg(r, &a, "scope", (rval){.k = RV_STR, .s = tn[6] == 'l' ? "local" : "shared", .sp = a.sp}, a.sp);
  r->decl_data_ok = !strcmp(tn, "decl_buffer");
  r->decl_data_value = NULL;
  tir_buffer *b = rd_buffer_from_args(r, name, &a, 0, tn);
  tir_expr *data_value = r->decl_data_value;
  r->decl_data_ok = false, r->decl_data_value = NULL;
  if (!b) return alloc_failed(r, name);
  b->scalar = r->decl_scalar;
  r->decl_scalar = false;
  /* T.decl_buffer without data= allocates its buffer (TVM 0.27: AllocBuffer) */
  rval *data = rd_arg(&a, 2, "data");
  bool implicit = !strcmp(tn, "Buffer");
  bool decl = (!strcmp(tn, "decl_buffer") || implicit) && data && data->k != RV_NONE;
  if (implicit && !decl) {
    /* TVM reads it as a buffer object and no statement (its printer writes
     * one a block's annotation names, layout_free_placeholders): a name for
     * a buffer over a data var of its own, which no statement allocates
     * (its loads and stores are read and printed as TVM reads them; the
     * verifier refuses the free pointer before a pass, code generator or
     * run) */
    if (annots) {
      tir_error(r->d, a.sp, "T.Buffer takes no annotations");
      return NULL;
    }
    rd_push_sym(r, name, (rval){.k = RV_BUFFER, .buf = b, .sp = a.sp});
    return rest_of(r, list, idx, rest_used);
  }
  if (decl && annots) {
    tir_error(r->d, a.sp, "a T.decl_buffer with data= takes no annotations (only an allocation has them)");
    return NULL;
  }
  rd_push_sym(r, name, (rval){.k = RV_BUFFER, .buf = b, .sp = a.sp});
  tir_stmt *body = rest_of(r, list, idx, rest_used);
  if (!body) return NULL;
  tir_stmt *s = decl ? tir_decl_buffer(r->c, b, body) : tir_alloc_buffer_annotated(r->c, b, annots, body);
  s->u.decl.implicit = implicit;
  if (!s->span.line) s->span = a.sp; /* the declaration's place, for errors about it */
  if (data_value) { /* data=<expr>: a let of the buffer's own data var around its declaration */
    s->u.decl.data_let = true;
    s = tir_let_stmt(r->c, b->data, data_value, s);
    s->span = a.sp;
  }
  return s;
}

/* the var a declaration `name = T.int32()` made, when hint (the node of
 * the T.attr around this loop or thread launch) is that var and has the
 * loop var's dtype: the loop binds it */
static tir_expr *hinted_loop_var(rd *r, tir_expr *hint, const char *name, tir_dtype t, tir_span at) {
  rd_sym *sym = hint ? rd_lookup(r, name) : NULL;
  if (!sym || !sym->free_decl || sym->val.k != RV_EXPR || sym->val.e != hint) return NULL;
  /* a var already used as a free var (by a T.attr that wraps more than the
   * loop, or in an expression) stays free: the loop makes its own */
  if (sym->uses || sym->loop_bound || !tir_dtype_eq(hint->dtype, t)) return NULL;
  sym->loop_bound = true;
  sym->bound_at = at;
  return hint;
}

/* the declared free var whose value is v, if any */
static rd_sym *free_decl_of(rd *r, tir_expr *v) {
  rd_sym *sym = v->kind == TIR_VAR ? rd_lookup(r, v->u.var.name) : NULL;
  return sym && sym->free_decl && sym->val.k == RV_EXPR && sym->val.e == v ? sym : NULL;
}

static bool is_thread_tag(const char *n) {
  return !strncmp(n, "blockIdx.", 9) || !strncmp(n, "threadIdx.", 10) || !strncmp(n, "vthread", 7);
}

/* the thread tag of a T.env_thread var, or NULL */
static const char *env_tag(rd *r, const tir_expr *v) {
  return v && v->kind == TIR_VAR ? (const char *)(intptr_t)tir_ptrmap_get(&r->env_tags, v, 0) : NULL;
}

static tir_expr *thread_var(rd *r, rval v, tir_dtype t, tir_span sp) {
  if (v.k == RV_STR) return tir_var(r->c, v.s, t);
  /* a T.env_thread var has its tag; another var has none (TVM: "not an
   * env_thread created using T.env_thread", which its own printer can
   * write: the tag is lost) */
  if (v.k == RV_EXPR && env_tag(r, v.e)) return v.e;
  if (v.k == RV_EXPR && v.e->kind == TIR_VAR) {
    tir_error(r->d, v.sp, "T.launch_thread: '%s' is not a variable of T.env_thread, so its thread tag is unknown",
              v.e->u.var.name);
    return NULL;
  }
  tir_error(r->d, sp, "T.launch_thread expects a thread tag or a T.env_thread variable");
  return NULL;
}

static tir_stmt *launch(rd *r, rd_args *a, const char *name, TSNode list, uint32_t idx, bool *rest_used,
                        TSNode body_node) {
  rd_kw_positional(r, "launch_thread", a); /* thread=, extent= (each form of the statement) */
  if (a->nkw) {
    tir_error(r->d, a->kwsp[0], "T.launch_thread takes no keyword argument '%s'", a->kw[0]);
    return NULL;
  }
  if (a->npos != 2) {
    tir_error(r->d, a->sp, "T.launch_thread expects (thread, extent), got %d arguments", a->npos);
    return NULL;
  }
  /* the tag is the string given (or the env_thread var's name); the var takes
   * the name it is assigned to, as TVM's parser names it */
  tir_expr *hint = r->loop_var_hint;
  r->loop_var_hint = NULL;
  const char *tag = a->pos[0].k == RV_STR ? a->pos[0].s : NULL;
  /* a new thread var takes the extent's dtype (T.int64(256): int64), as
   * TVM's launch_thread makes it; a Python int is int32 */
  tir_dtype t = a->pos[1].k == RV_EXPR && tir_dtype_is_int(a->pos[1].e->dtype) && a->pos[1].e->dtype.lanes == 1
                    ? a->pos[1].e->dtype
                : a->pos[1].k == RV_INT && (a->pos[1].i < INT32_MIN || a->pos[1].i > INT32_MAX) ? TIR_INT64
                                                                                                 : TIR_INT32;
  if (!rd_int_valued(r, a->pos[1], "a thread extent")) return NULL;
  tir_expr *bound = name && tag ? hinted_loop_var(r, hint, name, t, a->sp) : NULL;
  tir_expr *v = bound ? bound : thread_var(r, a->pos[0], t, a->sp);
  /* an env_thread var's extent keeps its own type (TVM's launch of an int32
   * var over T.int64(8): an int64 domain); the passes take it in the var's
   * type (tir_module_unify_ranges) */
  bool own = a->pos[0].k == RV_EXPR && a->pos[1].k == RV_EXPR && tir_dtype_is_int(a->pos[1].e->dtype) &&
             a->pos[1].e->dtype.lanes == 1;
  /* a Python int over an env_thread var is TVM's IntImm of it, int32 (int64
   * past int32's range), whatever the var's type: an int64 var launched
   * over 256 has an int32 domain in TVM, kept (the printer writes such a
   * launch in the T.env_thread form) */
  bool own_int = a->pos[0].k == RV_EXPR && a->pos[1].k == RV_INT && v && tir_dtype_is_int(v->dtype);
  tir_expr *ext = !v ? NULL : own ? a->pos[1].e : own_int ? rd_convert(r, a->pos[1], t) : rd_convert(r, a->pos[1], v->dtype);
  own = own || own_int;
  if (!ext) return NULL;
  int64_t kx;
  if (own && tir_is_const_int(ext, &kx) && !rd_int_fits(v->dtype, kx)) {
    char b1[32];
    tir_error(r->d, a->pos[1].sp, "thread extent %lld does not fit the thread var '%s', an %s", (long long)kx,
              v->u.var.name, tir_dtype_str(v->dtype, b1));
    return NULL;
  }
  if (a->pos[0].k == RV_EXPR) { /* one env_thread var, one extent (TVM: "Inconsistent extents of environment thread") */
    const tir_expr *was = (const tir_expr *)(intptr_t)tir_ptrmap_get(&r->thread_ext, v, 0);
    if (!was) tir_ptrmap_put(&r->thread_ext, v, (long)(intptr_t)ext);
    else if (!tir_expr_identical(was, ext)) {
      char *e1 = tir_print_expr(was), *e2 = tir_print_expr(ext);
      tir_error(r->d, a->pos[1].sp, "thread '%s' is launched with extent %s here and %s before: one thread var has one extent",
                v->u.var.name, e2, e1);
      free(e1);
      free(e2);
      return NULL;
    }
  }
  if (!tag) tag = env_tag(r, v);
  if (!tag) tag = v->u.var.name;
  if (name && a->pos[0].k == RV_STR && !bound) v->u.var.name = tir_strdup(r->c, name);
  if (name) rd_push_sym(r, name, rv_expr(v, a->sp));
  tir_stmt *body = ts_node_is_null(body_node) ? rest_of(r, list, idx, rest_used) : rd_body(r, body_node, 0);
  if (!body) return NULL;
  /* TVM's launch_thread: the tag "vthread" alone makes a virtual_thread attr */
  tir_stmt *st = tir_attr_stmt(r->c, !strcmp(tag, "vthread") ? "virtual_thread" : "thread_extent", v, ext, body);
  st->u.attr.thread_tag = tir_strdup(r->c, tag);
  return st;
}

/* the annotation of `x: A = v`: T.let[T.int32] (*is_let; the dtype node
 * returned), T.let (auto-typed: *auto_let), or a dtype such as T.int32 */
static TSNode let_annotation(rd *r, TSNode type, bool *auto_let, bool *is_let) {
  TSNode te = rd_child(type, 0);
  *auto_let = *is_let = false;
  const char *tn = rd_t_name(r, te);
  if (tn && !strcmp(tn, "let")) {
    *auto_let = *is_let = true;
    return te;
  }
  if (rd_is(te, "subscript")) {
    const char *vn = rd_t_name(r, rd_field(te, "value"));
    if (vn && !strcmp(vn, "let")) {
      *is_let = true;
      return rd_child(te, 1);
    }
  }
  return te;
}

static bool more_stmts(rd *r, TSNode list, uint32_t idx) {
  if (r->pend_i < r->pend_n || rd_list_continues(r, list)) return true;
  uint32_t cnt;
  const TSNode *kids = rd_named_children(r, list, &cnt);
  for (uint32_t i = idx + 1; i < cnt; i++)
    if (!rd_is_extra(kids[i])) return true;
  return false;
}

/* a tirx local scalar: AllocBuffer(x) over [x[0] = init;] the rest */
static tir_stmt *scalar(rd *r, const char *name, tir_dtype t, const char *scope, rval *init, TSNode list,
                        uint32_t idx, bool *rest_used, tir_span sp) {
  if (tir_dtype_is_handle(t)) {
    tir_error(r->d, sp, "a handle cannot be a local scalar; bind the pointer with '%s: T.let = ...'", name);
    rd_push_sym(r, name, rv_err()); /* no cascade of "undefined" errors */
    return NULL;
  }
  tir_buffer *b = rd_scalar_new(r, name, t, scope, sp);
  tir_stmt *st = init ? rd_scalar_store(r, b, *init, sp) : NULL;
  if (init && !st) return NULL;
  bool more = more_stmts(r, list, idx);
  tir_stmt *body = more || !st ? rest_of(r, list, idx, rest_used) : st;
  if (!body) return NULL;
  if (st && more) body = tir_seq(r->c, (tir_stmt *[]){st, body}, 2);
  tir_stmt *s = tir_alloc_buffer_stmt(r->c, b, body);
  s->span = sp;
  return s;
}

static bool python_only(rval v) {
  return v.k == RV_BUFFER || v.k == RV_STR || v.k == RV_TUPLE || v.k == RV_DTYPE || v.k == RV_DICT ||
         v.k == RV_NONE || v.k == RV_REGION;
}

/* TVM 0.27 binds a tuple or list bound to a name element by element too:
 * each number or expr a (dead) local scalar name_0, name_1 (name_0_1 in a
 * nested one), declared in order over the rest of the body; the name
 * itself holds the Python tuple, and the scalars' names are none of the
 * body's.  A var no name of the scope holds (a starred loop target's, a
 * macro argument's) TVM names instead (IRBuilder.name: no scalar, a
 * rename tirc does not make); a handle or a vector makes none */
enum { TUPLE_SCALARS_MAX = 256 };
typedef struct { const char *name; rval v; } tuple_leaf;

static int tuple_leaves(rd *r, const char *name, rval v, tuple_leaf *out, int n, int depth) {
  for (int i = 0; i < v.n && n <= TUPLE_SCALARS_MAX; i++) {
    size_t len = strlen(name) + 24;
    char *nm = tir_alloc(r->c, len);
    snprintf(nm, len, "%s_%d", name, i);
    rval x = v.items[i];
    if (x.k == RV_TUPLE && depth < 16) {
      n = tuple_leaves(r, nm, x, out, n, depth + 1);
      if (n < 0) return n;
    } else if (x.k == RV_STR) {
      tir_error(r->d, x.sp, "a string in a tuple bound to a name: TVM 0.27 makes each element a local scalar "
                            "(%s), and a string cannot be one (use T.meta_var to bind the tuple only)", nm);
      return -1;
    } else if (x.k == RV_INT || x.k == RV_FLOAT || x.k == RV_BOOL || x.k == RV_EXPR) {
      if (x.k == RV_EXPR && (!x.e || tir_dtype_is_handle(x.e->dtype) || x.e->dtype.lanes != 1)) continue;
      if (x.k == RV_EXPR && x.e->kind == TIR_VAR) {
        bool named = false;
        for (int s = r->nsyms - 1; s >= r->sym_floor && !named; s--)
          named = r->syms[s].val.k == RV_EXPR && r->syms[s].val.e == x.e;
        if (!named) continue;
      }
      if (n < TUPLE_SCALARS_MAX) out[n] = (tuple_leaf){nm, x};
      n++;
    }
  }
  return n;
}

static tir_stmt *tuple_bind(rd *r, const char *name, rval v, TSNode list, uint32_t idx, bool *rest_used, tir_span sp) {
  tuple_leaf *leaves = rd_tmp(r, sizeof *leaves * (TUPLE_SCALARS_MAX + 1));
  int n = tuple_leaves(r, name, v, leaves, 0, 0);
  if (n < 0) {
    rd_push_sym(r, name, rv_err()); /* no cascade of errors */
    return NULL;
  }
  tir_buffer **bufs = tir_alloc(r->c, sizeof *bufs * (size_t)(n + 1));
  tir_stmt **stores = tir_alloc(r->c, sizeof *stores * (size_t)(n + 1));
  int mark = r->nsyms;
  for (int k = 0; k < n && n <= TUPLE_SCALARS_MAX; k++) {
    tir_expr *e = rd_as_expr(r, leaves[k].v);
    if (!e) return NULL;
    bufs[k] = rd_scalar_new(r, leaves[k].name, e->dtype, "local", sp);
    if (!(stores[k] = rd_scalar_store(r, bufs[k], leaves[k].v, sp))) return NULL;
  }
  rd_pop_syms(r, mark); /* the scalars' names are not the body's (TVM's are not) */
  if (n > TUPLE_SCALARS_MAX) n = 0; /* a long tuple: bound by name only (its dead scalars left out) */
  rd_push_sym(r, name, v);
  if (n == 0) return NULL;
  bool more = more_stmts(r, list, idx);
  tir_stmt *body = more ? rest_of(r, list, idx, rest_used) : NULL;
  if (more && !body) return NULL;
  for (int k = n - 1; k >= 0; k--) {
    tir_stmt *in = body ? tir_seq(r->c, (tir_stmt *[]){stores[k], body}, 2) : stores[k];
    body = tir_alloc_buffer_stmt(r->c, bufs[k], in);
    body->span = sp;
  }
  return body;
}

/* `x = v` / `x: A = v` in the tirx dialect (see reader_scalar.c); NULL with
 * *done false when it is a let to read the common way */
static tir_stmt *tirx_assign(rd *r, const char *name, rval v, TSNode type, TSNode list, uint32_t idx,
                             bool *rest_used, tir_span sp, bool *done) {
  *done = true;
  if (!ts_node_is_null(type)) {
    tir_dtype t;
    rval tv = rd_eval(r, rd_child(type, 0));
    if (tv.k == RV_ERR || !rd_parse_dtype(r, tv, &t)) return NULL;
    return scalar(r, name, t, "local", &v, list, idx, rest_used, sp);
  }
  tir_buffer *b = rd_scalar_target(r, name);
  if (b) return rd_scalar_store(r, b, v, sp);
  if (v.k == RV_TUPLE) return tuple_bind(r, name, v, list, idx, rest_used, sp);
  if (python_only(v)) {
    rd_push_sym(r, name, v); /* a Python value: bound by name */
    return NULL;
  }
  tir_expr *e = rd_const_expr(r, v); /* the scalar's type as tvm.tirx.const infers it: inf a float64 */
  if (!e) return NULL;
  if (tir_dtype_is_handle(e->dtype) && e->dtype.bits == 0) { /* void: TVM's local scalar of T.void */
    tir_error(r->d, sp,
              "'%s = ...' of a void value: TVM 0.27 makes it a local scalar of T.void, which tirc does not support "
              "(call it with T.evaluate(...), or bind it with '%s: T.let = ...')",
              name, name);
    return NULL;
  }
  if (tir_dtype_is_handle(e->dtype)) { /* a pointer: TVM binds it (Bind) */
    *done = false;
    return NULL;
  }
  return scalar(r, name, e->dtype, "local", &v, list, idx, rest_used, sp);
}

static tir_stmt *let(rd *r, const char *name, rval v, TSNode type, TSNode list, uint32_t idx, bool *rest_used,
                     tir_span sp) {
  tir_dtype t;
  tir_expr *e;
  bool auto_let = false, is_let = false;
  TSNode tnode = ts_node_is_null(type) ? type : let_annotation(r, type, &auto_let, &is_let);
  if (ts_node_is_null(type) && (v.k == RV_NONE || v.k == RV_STR || v.k == RV_DICT || v.k == RV_DTYPE)) {
    /* TVM's parser binds a body's name to a buffer, a tuple or a TIR value
     * only ("Cannot automatically inference the type. value=None") */
    tir_error(r->d, v.sp,
              "'%s' is bound to a Python %s in a body, which TVM's parser refuses (it infers no type for it): "
              "bind it with T.meta_var(...), or at the module level",
              name, v.k == RV_NONE ? "None" : v.k == RV_STR ? "string" : v.k == RV_DICT ? "dict" : "dtype");
    rd_push_sym(r, name, (rval){.k = RV_ERR});
    return NULL;
  }
  if (r->tirx && !is_let) {
    bool done;
    tir_stmt *s = tirx_assign(r, name, v, type, list, idx, rest_used, sp, &done);
    if (done) return s;
  }
  if (auto_let) {
    e = rd_const_expr(r, v); /* TVM infers the type as tvm.tirx.const does: inf a float64 */
  } else if (!ts_node_is_null(tnode)) {
    rval tv = rd_eval(r, tnode);
    if (tv.k == RV_ERR || !rd_parse_dtype(r, tv, &t)) return NULL;
    /* a Python number is first a value of its own type (int32, or int64
     * past int32's range; float32; bool), as TVM converts it */
    tir_dtype vt = rd_natural_dtype(v, t);
    if (v.k == RV_FLOAT && !rd_py_float_fits_f32(v.f))
      vt = TIR_FLOAT64; /* inf, nan and past float32: tvm.tirx.const's float64 */
    if (is_let && !tir_dtype_eq(vt, t)) {
      /* T.let[t]: the var's type is t, its value must be one (TVM's check:
       * value->ty == var->ty); no silent conversion */
      char a[32], b[32];
      tir_error(r->d, v.sp, "let '%s' is declared %s but its value is %s (use T.Cast)", name, tir_dtype_str(t, a),
                tir_dtype_str(vt, b));
      rd_push_sym(r, name, (rval){.k = RV_ERR});
      return NULL;
    }
    /* T.let[T.handle("float32", "global")] of a pointer of another type
     * (A.data of a uint1 buffer): TVM's check value->ty == var->ty refuses it */
    if (is_let && tv.k == RV_HANDLE_T && tv.dt.bits && v.k == RV_EXPR && v.e &&
        (v.e->kind == TIR_VAR || v.e->kind == TIR_CALL)) {
      tir_dtype pe = v.e->kind == TIR_VAR ? v.e->u.var.ptr_elem : v.e->u.call.ptr_elem;
      const char *ps = v.e->kind == TIR_VAR ? v.e->u.var.ptr_scope : v.e->u.call.ptr_scope;
      const char *want = tv.s ? tv.s : "global", *got = ps ? ps : "global";
      if (pe.bits && (!tir_dtype_eq(pe, tv.dt) || strcmp(want, got))) {
        char a[32], b[32];
        tir_error(r->d, v.sp, "let '%s' is declared T.handle(\"%s\", \"%s\") but its value points to %s in \"%s\"",
                  name, tir_dtype_str(tv.dt, a), want, tir_dtype_str(pe, b), got);
        rd_push_sym(r, name, (rval){.k = RV_ERR});
        return NULL;
      }
    }
    e = rd_convert(r, v, t);
  } else {
    if (v.k == RV_INT || v.k == RV_FLOAT || v.k == RV_BOOL || python_only(v)) {
      rd_push_sym(r, name, v); /* a Python value: bound by name, no LetStmt (as TVM) */
      return NULL;
    }
    e = rd_as_expr(r, v);
  }
  if (!e) return NULL;
  tir_expr *var = tir_var(r->c, name, e->dtype);
  var->span = sp;
  rd_push_sym(r, name, rv_expr(var, sp));
  tir_stmt *body = rest_of(r, list, idx, rest_used);
  if (!body) return NULL;
  tir_stmt *s = tir_let_stmt(r->c, var, e, body);
  s->span = sp;
  return s;
}

/* x = T.bind(value) or T.bind(value, T.int32): an immutable binding (TVM's Bind) */
static tir_stmt *bind(rd *r, const char *name, TSNode call, TSNode list, uint32_t idx, bool *rest_used,
                      tir_span sp) {
  rd_args a;
  if (!rd_eval_call_args(r, call, &a)) return NULL;
  a.sp = rd_span(call);
  rval *v = rd_arg(&a, 0, "value"), *ty = rd_arg(&a, 1, "type_annotation");
  if (!v || a.npos > 2) {
    tir_error(r->d, a.sp, "T.bind expects (value) or (value, dtype)");
    return NULL;
  }
  tir_expr *e;
  if (ty && ty->k != RV_NONE) {
    tir_dtype t;
    if (!rd_parse_dtype(r, *ty, &t)) return NULL;
    e = rd_convert(r, *v, t);
  } else {
    e = rd_as_expr(r, *v);
  }
  if (!e) return NULL;
  tir_expr *var = tir_var(r->c, name, e->dtype);
  var->span = sp;
  rd_push_sym(r, name, rv_expr(var, sp));
  tir_stmt *body = rest_of(r, list, idx, rest_used);
  if (!body) return NULL;
  tir_stmt *s = tir_let_stmt(r->c, var, e, body);
  s->span = sp;
  return s;
}

/* the pending names of `a, b, ... = x, y, ...` bound in order, each as
 * `name = value` alone would be; with whole_rest, the rest of the list
 * after them too (rest_of of the last let lands here) */
static __attribute__((noinline)) tir_stmt *pend_run(rd *r, TSNode list, uint32_t idx, bool *rest_used,
                                                    bool whole_rest) {
  int n = r->pend_n - r->pend_i + 1, ng = 0;
  tir_stmt **got = rd_tmp(r, sizeof *got * (size_t)n);
  while (r->pend_i < r->pend_n) {
    struct rd_pend p = r->pend[r->pend_i++];
    bool used = false;
    int errs = r->d->nerrors;
    tir_stmt *s = let(r, p.name, p.v, (TSNode){0}, list, idx, &used, p.sp);
    if (r->d->nerrors > errs) {
      r->pend_i = r->pend_n;
      *rest_used |= used;
      return NULL;
    }
    if (s) got[ng++] = s;
    if (used) {
      *rest_used = true;
      return ng ? tir_seq(r->c, got, ng) : NULL;
    }
  }
  if (whole_rest) {
    *rest_used = true;
    r->in_rest = true;
    tir_stmt *rest = rd_stmts(r, list, idx + 1);
    if (!rest) return NULL;
    got[ng++] = rest;
  }
  return ng == 0 ? NULL : ng == 1 ? got[0] : tir_seq(r->c, got, ng);
}

/* `a, b = x, y` of names, as many as values */
static bool is_tuple_assign(TSNode left, TSNode right) {
  uint32_t n = rd_child_count(left);
  if (n < 2 || n != rd_child_count(right)) return false;
  for (uint32_t i = 0; i < n; i++)
    if (!rd_is(rd_child(left, i), "identifier")) return false;
  return true;
}

/* `a, b = x, y` (Python's tuple assignment: TVM binds each name to its
 * value, read before any is bound) */
static __attribute__((noinline)) tir_stmt *tuple_assign(rd *r, TSNode left, TSNode right, bool one, TSNode list,
                                                        uint32_t idx, bool *rest_used) {
  uint32_t n = rd_child_count(left);
  /* one: `m, n = A.shape`, `a, b = t`, one value, a tuple or list of as many */
  rval whole = one ? rd_eval(r, right) : (rval){0};
  if (one && whole.k == RV_ERR) return NULL;
  if (one && (whole.k != RV_TUPLE || whole.n != (int)n)) {
    if (whole.k == RV_TUPLE)
      tir_error(r->d, rd_span(right), "%d values do not unpack into %u names", whole.n, n);
    else
      tir_error(r->d, rd_span(right), "this value does not unpack into %u names (a tuple or list of as many does)", n);
    return NULL;
  }
  /* TVM refuses a name bound twice, or already in this scope; an outer
   * scope's is shadowed, but a local scalar's is refused here (TVM binds
   * anew where `x = v` alone would store) */
  if (n > 64) { /* each name scopes the rest: a chain as deep as the names */
    tir_error(r->d, rd_span(left), "a tuple assignment of %u names: at most 64 are read", n);
    return NULL;
  }
  for (uint32_t i = 0; i < n; i++) {
    TSNode l = rd_child(left, i);
    const char *nm = rd_text(r, l);
    bool twice = false;
    for (uint32_t j = 0; j < i && !twice; j++) twice = !strcmp(nm, rd_text(r, rd_child(left, j)));
    if (twice || rd_scalar_target(r, nm)) {
      tir_error(r->d, rd_span(l), "'%s' is already defined in this scope: a tuple assignment binds new names only", nm);
      return NULL;
    }
    if (!rd_fresh(r, nm, rd_span(l))) return NULL;
  }
  struct rd_pend *p = rd_tmp(r, sizeof *p * n);
  bool ok = true;
  for (uint32_t i = 0; i < n; i++) {
    TSNode l = rd_child(left, i);
    p[i] = (struct rd_pend){rd_text(r, l), one ? whole.items[i] : rd_eval(r, rd_child(right, i)), rd_span(l)};
    ok &= p[i].v.k != RV_ERR;
  }
  if (!ok) return NULL;
  r->pend = p, r->pend_i = 0, r->pend_n = (int)n;
  return pend_run(r, list, idx, rest_used, false);
}

typedef struct {
  long n, cap;
} size_count;

static bool size_expr(tir_visitor *vis, const tir_expr *e) {
  (void)e;
  size_count *c = vis->user;
  return ++c->n <= c->cap;
}

/* the nodes of e as a tree (a shared subtree counted at each use), up to cap + 1 */
static long tree_size(const tir_expr *e, long cap) {
  size_count c = {0, cap};
  tir_visitor vis = {.expr = size_expr, .user = &c};
  tir_visit_expr(&vis, e);
  return c.n;
}

static __attribute__((noinline)) tir_stmt *meta_var(rd *r, TSNode left, TSNode right) {
  rval v = rd_eval(r, right);
  if (v.k == RV_ERR) return NULL;
  /* each use of the name copies the expression: T.meta_var(x + x) chained
   * doubles it, a tree that no pass could walk in time */
  if (v.k == RV_EXPR && tree_size(v.e, RD_MAX_WRITTEN_OUT) > RD_MAX_WRITTEN_OUT) {
    tir_error(r->d, v.sp, "T.meta_var: the expression has more than %d nodes written out (each use of a name "
                          "copies it); bind it with a let", RD_MAX_WRITTEN_OUT);
    return NULL;
  }
  if (rd_is(left, "identifier")) {
    rd_push_sym(r, rd_text(r, left), v);
    return NULL;
  }
  uint32_t n = rd_child_count(left);
  bool names = rd_is(left, "pattern_list") || rd_is(left, "tuple_pattern") || rd_is(left, "list_pattern");
  for (uint32_t i = 0; names && i < n; i++) names = rd_is(rd_child(left, i), "identifier");
  if (!names) {
    tir_error(r->d, rd_span(left), "T.meta_var binds a name or a tuple of names");
    return NULL;
  }
  if (v.k != RV_TUPLE || v.n != (int)n) {
    tir_error(r->d, v.sp, "T.meta_var's value does not unpack into %u names", n);
    return NULL;
  }
  for (uint32_t i = 0; i < n; i++) rd_push_sym(r, rd_text(r, rd_child(left, i)), v.items[i]);
  return NULL;
}

/* (x): x, through any parentheses (and comments in them), which Python's
 * tree does not keep: `A = (T.match_buffer(a, (8,)))` is the declaration */
TSNode rd_unparen(TSNode n) {
  while (!ts_node_is_null(n) && rd_is(n, "parenthesized_expression")) {
    TSNode one = {0};
    uint32_t cnt = rd_child_count(n), k = 0;
    for (uint32_t i = 0; i < cnt; i++) {
      TSNode c = rd_child(n, i);
      if (rd_is_extra(c)) continue;
      one = c;
      k++;
    }
    if (k != 1) break;
    n = one;
  }
  return n;
}

static tir_stmt *assignment(rd *r, TSNode asg, TSNode list, uint32_t idx, bool *rest_used) {
  TSNode left = rd_field(asg, "left"), right = rd_unparen(rd_field(asg, "right")), type = rd_field(asg, "type");
  tir_span sp = rd_span(asg);
  if (ts_node_is_null(right)) { /* tirx `x: T.int32`: a local scalar */
    TSNode ty = ts_node_is_null(type) ? type : rd_child(type, 0);
    if (r->tirx && rd_is(left, "identifier") && !ts_node_is_null(ty) && rd_is(ty, "subscript")) {
      if (!rd_fresh(r, rd_text(r, left), rd_span(left))) return NULL;
      tir_stmt *s = local_vector(r, rd_text(r, left), ty, list, idx, rest_used);
      if (s || tir_diag_has_errors(r->d)) return s;
    }
    const char *tn = r->tirx && rd_is(left, "identifier") && !ts_node_is_null(type)
                         ? rd_t_name(r, rd_child(type, 0)) : NULL;
    tir_dtype t;
    if (!tn || !tir_dtype_parse(tn, &t)) {
      tir_error(r->d, sp, "a declaration without a value is not supported");
      return NULL;
    }
    if (!rd_fresh(r, rd_text(r, left), rd_span(left))) return NULL;
    return scalar(r, rd_text(r, left), t, "local", NULL, list, idx, rest_used, sp);
  }
  if (rd_is(left, "subscript")) return store(r, left, rd_eval(r, right), NULL, sp);
  /* `x = T.meta_var(v)`, `a, b = T.meta_var((u, v))`: bound by name, no let (TVM's parser-time values) */
  if (rd_is(right, "call") && ts_node_is_null(type)) {
    const char *tn = rd_t_name(r, rd_field(right, "function"));
    if (tn && !strcmp(tn, "meta_var")) return meta_var(r, left, right);
  }
  /* `n, m = T.int64(), T.int64()`: several size vars at once, as TVM prints them */
  if ((rd_is(left, "pattern_list") || rd_is(left, "tuple_pattern")) &&
      (rd_is(right, "expression_list") || rd_is(right, "tuple")) && ts_node_is_null(type) &&
      rd_child_count(left) == rd_child_count(right)) {
    uint32_t n = rd_child_count(left);
    bool all = true;
    for (uint32_t i = 0; i < n && all; i++) {
      TSNode l = rd_child(left, i), rr = rd_child(right, i);
      all = rd_is(l, "identifier") && rd_is(rr, "call") && rd_t_name(r, rd_field(rr, "function"));
      /* a declaration has no positional value (T.int64(), T.int32(is_size_var=True));
       * `a, b = T.float32(2), T.float32(1)` binds values */
      TSNode args = all ? rd_field(rr, "arguments") : (TSNode){0};
      for (uint32_t k = 0; all && k < rd_child_count(args); k++) {
        const char *tn = rd_t_name(r, rd_field(rr, "function"));
        all = rd_is(rd_child(args, k), "keyword_argument") || (tn && !strcmp(tn, "handle"));
      }
    }
    for (uint32_t i = 0; i < n && all; i++) {
      TSNode l = rd_child(left, i), rr = rd_child(right, i);
      int before = r->d->nerrors;
      if (!var_decl(r, rd_text(r, l), rr, rd_span(l))) {
        if (r->d->nerrors == before) tir_error(r->d, rd_span(rr), "only variable declarations such as T.int64() can be assigned together");
        return NULL;
      }
    }
    if (all) return NULL;
    if (is_tuple_assign(left, right)) return tuple_assign(r, left, right, false, list, idx, rest_used);
  }
  if ((rd_is(left, "pattern_list") || rd_is(left, "tuple_pattern")) && ts_node_is_null(type) &&
      !rd_is(right, "expression_list") && !rd_is(right, "tuple") && rd_child_count(left) >= 1) {
    bool names = true;
    for (uint32_t i = 0; i < rd_child_count(left) && names; i++) names = rd_is(rd_child(left, i), "identifier");
    if (names) return tuple_assign(r, left, right, true, list, idx, rest_used);
  }
  if (!rd_is(left, "identifier")) {
    tir_error(r->d, rd_span(left), "only T.axis.remap can assign to several names");
    return NULL;
  }
  const char *name = rd_text(r, left);
  if (rd_is(right, "call") && rd_is(rd_field(right, "function"), "attribute") &&
      !strcmp(rd_text(r, rd_field(rd_field(right, "function"), "attribute")), "view")) {
    /* TVM 0.27's `X = A.view(shape...)` (FlattenBuffer's flat buffers): a
     * buffer declared over A's data with that shape and A's dtype */
    if (!rd_fresh(r, name, rd_span(left))) return NULL;
    rval src = rd_eval(r, rd_field(rd_field(right, "function"), "object"));
    if (src.k == RV_ERR) return NULL;
    if (src.k != RV_BUFFER) {
      tir_error(r->d, rd_span(right), "'.view' applies to a buffer");
      return NULL;
    }
    rd_args a;
    if (!rd_eval_call_args(r, right, &a)) return NULL;
    a.sp = rd_span(right);
    if (a.nkw == 1 && !strcmp(a.kw[0], "layout") && a.kwv[0].k == RV_NONE) a.nkw = 0; /* TVM's default */
    if (a.nkw || a.npos < 1) {
      tir_error(r->d, a.sp, "%s.view expects the new shape (a layout= other than None is not supported)", src.buf->name);
      return NULL;
    }
    if (src.buf->ndim == 0) { /* TVM's view takes the product of the old shape (reduce of an empty one fails) */
      tir_error(r->d, a.sp, "%s.view of a 0-dimensional buffer is not supported (as TVM's view is not)", src.buf->name);
      return NULL;
    }
    tir_dtype vt = src.buf->dtype;
    bool as_dtype = a.npos == 1 && (a.pos[0].k == RV_STR || a.pos[0].k == RV_DTYPE);
    if (as_dtype) {
      /* A.view("int32"): the same data as another dtype of the same width,
       * A's shape (one of another width packs or unpacks A's layout) */
      if (!rd_parse_dtype(r, a.pos[0], &vt)) return NULL;
      if (vt.bits * (vt.lanes & ~TIR_LANES_SCALABLE) !=
          src.buf->dtype.bits * (src.buf->dtype.lanes & ~TIR_LANES_SCALABLE)) {
        char s1[32], s2[32];
        tir_error(r->d, a.pos[0].sp,
                  "%s.view(\"%s\") of a %s buffer: a view as a dtype of another width (which packs or unpacks the "
                  "layout) is not supported; one of the same width is",
                  src.buf->name, tir_dtype_str(vt, s1), tir_dtype_str(src.buf->dtype, s2));
        return NULL;
      }
    }
    rval shape = as_dtype ? (rval){.k = RV_TUPLE, .n = src.buf->ndim, .sp = a.sp}
                 : a.npos == 1 ? a.pos[0] : (rval){.k = RV_TUPLE, .items = a.pos, .n = a.npos, .sp = a.sp};
    if (as_dtype) {
      shape.items = tir_alloc(r->c, sizeof *shape.items * (size_t)(src.buf->ndim + 1));
      for (int i = 0; i < src.buf->ndim; i++) shape.items[i] = rv_expr(src.buf->shape[i], a.sp);
    }
    tir_buffer *b = rd_view_buffer(r, name, src.buf, shape);
    if (!b) return NULL;
    b->dtype = vt;
    rd_push_sym(r, name, (rval){.k = RV_BUFFER, .buf = b, .sp = a.sp});
    tir_stmt *body = rest_of(r, list, idx, rest_used);
    return body ? tir_decl_buffer(r->c, b, body) : NULL;
  }
  if (rd_is(right, "call")) {
    const char *tn = rd_t_name(r, rd_field(right, "function"));
    if (tn && ts_node_is_null(type) && var_decl(r, name, right, rd_span(left))) return NULL;
    /* a call that makes a buffer, a binding or a thread var binds the name
     * anew (a local scalar of the name is not stored to: TVM's store of
     * such a value fails and it binds) */
    if (tn && (!strcmp(tn, "decl_buffer") || !strcmp(tn, "allocate") || !strcmp(tn, "Buffer") || !strcmp(tn, "bind") ||
               !strcmp(tn, "launch_thread") || !strcmp(tn, "env_thread") ||
               (r->tirx && (!strcmp(tn, "alloc_buffer") || !strcmp(tn, "alloc_local") || !strcmp(tn, "alloc_shared") ||
                            !strcmp(tn, "decl_scalar") || !strcmp(tn, "local_scalar") || !strcmp(tn, "shared_scalar") ||
                            !strcmp(tn, "alloc_scalar")))) &&
        !rd_fresh(r, name, rd_span(left)))
      return NULL;
    if (tn && (!strcmp(tn, "decl_buffer") || !strcmp(tn, "allocate") || !strcmp(tn, "Buffer") ||
               (r->tirx && (!strcmp(tn, "alloc_buffer") || !strcmp(tn, "alloc_local") || !strcmp(tn, "alloc_shared")))))
      return alloc_like(r, tn, name, right, list, idx, rest_used);
    if (tn && !strcmp(tn, "bind") && ts_node_is_null(type)) return bind(r, name, right, list, idx, rest_used, sp);
    if (tn && r->tirx && ts_node_is_null(type) && !strcmp(tn, "decl_scalar")) {
      /* T.decl_scalar(dtype, data, scope, elem_offset=None, byte_offset=None): TVM's
       * decl_buffer((1,), dtype, data, scope=scope, elem_offset=...) read as a scalar */
      rd_args a, d = {.sp = rd_span(right)};
      if (!rd_eval_call_args(r, right, &a)) return alloc_failed(r, name);
      static const char *const P[] = {"dtype", "data", "scope", "elem_offset", "byte_offset", NULL};
      rval *v[5];
      bool bad = a.npos > 5 || rd_unknown_kwarg(&a, P) >= 0;
      for (int k = 0; k < 5; k++) v[k] = rd_arg(&a, k, P[k]);
      if (bad || !v[0] || !v[1] || !v[2]) {
        tir_error(r->d, d.sp, "T.decl_scalar expects (dtype, data, scope, elem_offset=None, byte_offset=None)");
        return alloc_failed(r, name);
      }
      d.pos = tir_alloc(r->c, sizeof *d.pos * 3);
      d.kw = tir_alloc(r->c, sizeof *d.kw * 3);
      d.kwv = tir_alloc(r->c, sizeof *d.kwv * 3);
      d.kwsp = tir_alloc(r->c, sizeof *d.kwsp * 3);
      rval one = {.k = RV_INT, .i = 1, .sp = d.sp};
      d.pos[d.npos++] = (rval){.k = RV_TUPLE, .n = 1, .items = tir_alloc(r->c, sizeof(rval)), .sp = d.sp};
      d.pos[0].items[0] = one;
      d.pos[d.npos++] = *v[0];
      d.pos[d.npos++] = *v[1];
      for (int k = 2; k < 5; k++)
        if (v[k] && v[k]->k != RV_NONE) d.kw[d.nkw] = P[k], d.kwsp[d.nkw] = v[k]->sp, d.kwv[d.nkw++] = *v[k];
      r->decl_scalar = true;
      tir_stmt *st = alloc_from_args(r, "decl_buffer", name, d, list, idx, rest_used);
      r->decl_scalar = false;
      return st;
    }
    if (tn && r->tirx && ts_node_is_null(type) &&
        (!strcmp(tn, "local_scalar") || !strcmp(tn, "shared_scalar") || !strcmp(tn, "alloc_scalar"))) {
      /* T.local_scalar(dtype="float32"), T.shared_scalar(dtype), T.alloc_scalar(dtype, scope="global") */
      rd_args a;
      tir_dtype t;
      if (!rd_eval_call_args(r, right, &a)) return NULL;
      bool any_scope = tn[1] == 'l';
      rval f32 = {.k = RV_STR, .s = "float32"}, *dt = rd_arg(&a, 0, "dtype");
      rval *sc = any_scope ? rd_arg(&a, 1, "scope") : NULL;
      static const char *const WITH_SCOPE[] = {"dtype", "scope", NULL}, *const DTYPE_ONLY[] = {"dtype", NULL};
      bool bad = a.npos > (any_scope ? 2 : 1) || rd_unknown_kwarg(&a, any_scope ? WITH_SCOPE : DTYPE_ONLY) >= 0;
      if (bad) {
        tir_error(r->d, rd_span(right), "T.%s expects (dtype%s)", tn, any_scope ? ", scope" : "");
        return NULL;
      }
      if (!rd_parse_dtype(r, dt ? *dt : f32, &t)) return NULL;
      const char *scope = sc ? rd_as_str(r, *sc, "the scope") : any_scope ? "global" : tn[0] == 's' ? "shared" : "local";
      if (!scope) return NULL;
      return scalar(r, name, t, scope, NULL, list, idx, rest_used, sp);
    }
    if (tn && !strcmp(tn, "launch_thread")) {
      rd_args a;
      if (!rd_eval_call_args(r, right, &a)) return NULL;
      a.sp = rd_span(right);
      rd_kw_positional(r, tn, &a);
      if (!rd_no_kwargs(r, &a, tn)) return NULL;
      return launch(r, &a, name, list, idx, rest_used, (TSNode){0});
    }
    if (tn && !strcmp(tn, "env_thread")) { /* T.env_thread(thread_tag, dtype="int32") */
      rd_args a;
      if (!rd_eval_call_args(r, right, &a)) return NULL;
      rd_kw_positional(r, tn, &a);
      const char *tag = a.npos >= 1 && a.npos <= 2 && !a.nkw ? rd_as_str(r, a.pos[0], "the thread tag") : NULL;
      tir_dtype t = TIR_INT32;
      if (!tag) {
        if (a.npos < 1 || a.npos > 2 || a.nkw) tir_error(r->d, rd_span(right), "T.env_thread expects a thread tag and a dtype");
        return NULL;
      }
      if (a.npos == 2 && !rd_parse_dtype(r, a.pos[1], &t)) return NULL;
      if (!tir_dtype_is_int(t) || t.lanes != 1) {
        tir_error(r->d, a.pos[1].sp, "T.env_thread's dtype must be an integer type");
        return NULL;
      }
      /* named as assigned (`tx = T.env_thread("threadIdx.x")` is tx), as TVM's parser names it */
      tir_expr *ev = tir_var(r->c, name, t);
      tir_ptrmap_put(&r->env_tags, ev, (long)(intptr_t)tir_strdup(r->c, tag));
      rd_push_sym(r, name, rv_expr(ev, rd_span(right)));
      return NULL;
    }
  }
  /* `B = B` of a buffer: TVM binds the name to the object it names already,
   * no statement (of a local scalar, `B: T.uint64`, a store of its value) */
  if (ts_node_is_null(type) && rd_is(right, "identifier") && !strcmp(rd_text(r, right), name)) {
    rd_sym *cur = rd_lookup(r, name);
    if (cur && cur->val.k == RV_BUFFER && !cur->val.buf->scalar) return NULL;
  }
  /* `x = v` stores to x where x is a local scalar (TVM's), else binds x */
  if (!(ts_node_is_null(type) && rd_scalar_target(r, name)) && !rd_fresh(r, name, rd_span(left))) return NULL;
  rval v = rd_eval(r, right);
  if (v.k == RV_ERR) return NULL;
  return let(r, name, v, type, list, idx, rest_used, sp);
}

static NOINLINE tir_stmt *aug_assignment(rd *r, TSNode n) {
  TSNode left = rd_field(n, "left");
  const char *op = ts_node_type(rd_field(n, "operator"));
  tir_buffer *sc = rd_is(left, "identifier") ? rd_scalar_target(r, rd_text(r, left)) : NULL;
  if (sc) { /* x += v on a (1,) buffer: x[0] = x[0] + v */
    char bin[8];
    size_t l = strlen(op);
    if (l < 2 || l > 4) return NULL;
    memcpy(bin, op, l - 1);
    bin[l - 1] = 0;
    rval cur = rv_expr(rd_scalar_load(r, sc, rd_span(left)), rd_span(left));
    return rd_scalar_store(r, sc, rd_binop(r, bin, cur, rd_eval(r, rd_field(n, "right")), rd_span(n)), rd_span(n));
  }
  if (!rd_is(left, "subscript")) {
    tir_error(r->d, rd_span(left), "augmented assignment needs a buffer element on the left");
    return NULL;
  }
  char bin[8];
  size_t l = strlen(op);
  if (l < 2 || l > 4) return NULL;
  memcpy(bin, op, l - 1);
  bin[l - 1] = 0;
  return store(r, left, rd_eval(r, rd_field(n, "right")), bin, rd_span(n));
}

/* ---- expression statements ---- */

static tir_stmt *evaluate(rd *r, rval v, tir_span sp) {
  if (v.k == RV_ERR) return NULL;
  if (v.k == RV_NONE) { /* TVM: "value.defined()" */
    tir_error(r->d, v.sp.line ? v.sp : sp, "T.evaluate(None): TVM refuses it (an Evaluate holds a value; write "
              "T.evaluate(0) for a statement that does nothing)");
    return NULL;
  }
  tir_expr *e = rd_as_expr(r, v);
  if (!e) return NULL;
  tir_stmt *s = tir_evaluate(r->c, e);
  s->span = sp;
  return s;
}

/* a value written as a statement on its own (not in T.evaluate): one that
 * is a var (x, x + 0 folded to x, T.nearbyint(i) of an int) is no
 * statement, as TVM's parser reads it; T.evaluate(x) keeps it */
static tir_stmt *evaluate_bare(rd *r, rval v, tir_span sp) {
  if (v.k == RV_EXPR && v.e && v.e->kind == TIR_VAR) return NULL;
  if (v.k == RV_NONE) return NULL; /* a bare None: no statement, as TVM's parser reads it */
  return evaluate(r, v, sp);
}

/* T.Assert(condition, message, error_kind="RuntimeError"), positional or
 * by keyword; message a string or a list of parts, as TVM's: the message
 * as `assert c, msg` takes it (a string, or ("Kind", [parts])) */
static bool assert_args(rd *r, rd_args *a, rval *cond, rval *msg) {
  static const char *const names[] = {"condition", "message", "error_kind"};
  for (int i = 0; i < a->nkw; i++) {
    bool ok = false;
    for (int k = 0; k < 3; k++) ok |= !strcmp(a->kw[i], names[k]);
    if (!ok) {
      tir_error(r->d, a->kwsp[i], "unexpected keyword argument '%s' for T.Assert", a->kw[i]);
      return false;
    }
  }
  rval *c = rd_arg(a, 0, "condition"), *m = rd_arg(a, 1, "message"), *k = rd_arg(a, 2, "error_kind");
  if (!c || a->npos > 3) {
    tir_error(r->d, a->sp, "T.Assert expects (condition, message, error_kind=...)");
    return false;
  }
  *cond = *c;
  *msg = m ? *m : (rval){.k = RV_NONE};
  bool list = m && m->k == RV_TUPLE;
  if (!k && !list) return true;
  if (k && k->k != RV_STR) {
    tir_error(r->d, k->sp, "T.Assert's error_kind must be a string");
    return false;
  }
  rval *items = tir_alloc(r->c, sizeof *items * 2), *parts = m;
  if (!list) { /* one part */
    parts = tir_alloc(r->c, sizeof *parts);
    *parts = (rval){.k = RV_TUPLE, .is_list = true, .n = m ? 1 : 0, .items = m, .sp = m ? m->sp : a->sp};
  }
  items[0] = k ? *k : (rval){.k = RV_STR, .s = "RuntimeError", .sp = a->sp};
  items[1] = *parts;
  items[1].is_list = true;
  *msg = (rval){.k = RV_TUPLE, .n = 2, .items = items, .sp = m ? m->sp : a->sp};
  return true;
}

static tir_stmt *assert_stmt(rd *r, rval cond, rval msg, tir_span sp, TSNode list, uint32_t idx, bool *rest_used,
                             TSNode body_node) {
  tir_expr *c = rd_as_expr(r, cond);
  const char *m, *kind = NULL, **parts = NULL;
  int nparts = 0;
  if (msg.k == RV_TUPLE && !msg.is_list) { /* TVM 0.27: (kind, [parts]) */
    rval *pl = msg.n == 2 ? &msg.items[1] : NULL;
    if (!pl || pl->k != RV_TUPLE) {
      tir_error(r->d, msg.sp, "an assert message must be a string or (error kind, [message parts])");
      return NULL;
    }
    if (!(kind = rd_as_str(r, msg.items[0], "an assert's error kind"))) return NULL;
    parts = tir_alloc(r->c, sizeof *parts * (size_t)(pl->n + 1));
    size_t total = 0;
    for (int i = 0; i < pl->n; i++) {
      if (!(parts[i] = rd_as_str(r, pl->items[i], "an assert message part"))) return NULL;
      total += strlen(parts[i]);
    }
    nparts = pl->n;
    char *all = tir_alloc(r->c, total + 1);
    for (int i = 0; i < nparts; i++) strcat(all, parts[i]);
    m = all;
  } else {
    m = msg.k == RV_NONE ? "" : rd_as_str(r, msg, "an assert message");
  }
  if (!c || !m) return NULL;
  if (!tir_dtype_is_bool(c->dtype)) {
    tir_error(r->d, cond.sp, "an assert condition must be a bool");
    return NULL;
  }
  tir_stmt *body = ts_node_is_null(body_node) ? rest_of(r, list, idx, rest_used) : rd_body(r, body_node, 0);
  if (!body) return NULL;
  tir_stmt *s = tir_assert(r->c, c, tir_string(r->c, m), body);
  s->span = sp;
  s->u.assrt.kind = kind;
  s->u.assrt.parts = parts;
  s->u.assrt.nparts = nparts;
  return s;
}

/* the only statement of list from index `from` (comments aside), or a
 * null node */
static TSNode sole_stmt(rd *r, TSNode list, uint32_t from) {
  if (rd_list_continues(r, list)) return (TSNode){0}; /* a chunk ends after a compound statement */
  TSNode only = {0};
  bool found = false;
  uint32_t cnt;
  const TSNode *kids = rd_named_children(r, list, &cnt);
  for (uint32_t i = from; i < cnt; i++) {
    TSNode c = kids[i];
    if (rd_is_extra(c)) continue;
    if (found) return (TSNode){0};
    only = c;
    found = true;
  }
  return only;
}

/* the call `T.attr(name, ...)` */
static bool is_attr_call_on(rd *r, TSNode e, const char *name) {
  if (!rd_is(e, "call")) return false;
  const char *tn = rd_t_name(r, rd_field(e, "function"));
  TSNode args = rd_field(e, "arguments");
  TSNode first = ts_node_is_null(args) ? args : rd_child(args, 0);
  return tn && !strcmp(tn, "attr") && rd_is(first, "identifier") && !strcmp(rd_text(r, first), name);
}

static bool binds_next(rd *r, TSNode list, uint32_t from, const char *name);

/* `with T.attr(name, ...):` */
static bool is_with_attr_on(rd *r, TSNode c, const char *name) {
  TSNode clause = rd_child(c, 0);
  if (!rd_is(c, "with_statement") || !rd_is(clause, "with_clause") || rd_child_count(clause) != 1) return false;
  return is_attr_call_on(r, rd_field(rd_child(clause, 0), "value"), name);
}

/* the statements of list from `from`, after more `T.attr(name, ...)` (or
 * inside a sole `with T.attr(name, ...):`), are one for loop, or start with
 * `x = T.launch_thread(...)` (whose body is the rest) */
static bool binds_stmt(rd *r, TSNode list, uint32_t i, const char *name) {
  TSNode c = rd_named_children(r, list, &(uint32_t){0})[i];
  if (rd_is(c, "for_statement")) return rd_is(sole_stmt(r, list, i), "for_statement");
  if (is_with_attr_on(r, c, name))
    return ts_node_eq(sole_stmt(r, list, i), c) && binds_next(r, rd_field(c, "body"), 0, name);
  TSNode e = rd_child(c, 0);
  if (!rd_is(c, "expression_statement") || !rd_is(e, "assignment")) return false;
  TSNode right = rd_unparen(rd_field(e, "right"));
  const char *tn = rd_is(right, "call") ? rd_t_name(r, rd_field(right, "function")) : NULL;
  return tn && !strcmp(tn, "launch_thread") && rd_is(rd_field(e, "left"), "identifier");
}

static bool binds_next(rd *r, TSNode list, uint32_t from, const char *name) {
  if (r->bn_set && ts_node_eq(list, r->bn_list) && !strcmp(name, r->bn_name) && r->bn_from <= from && from <= r->bn_stop)
    return r->bn_res;
  uint32_t cnt, i = from;
  const TSNode *kids = rd_named_children(r, list, &cnt);
  while (i < cnt && (rd_is_extra(kids[i]) ||
                     (rd_is(kids[i], "expression_statement") && is_attr_call_on(r, rd_child(kids[i], 0), name))))
    i++;
  bool res = i < cnt && binds_stmt(r, list, i, name);
  r->bn_set = true;
  r->bn_list = list;
  r->bn_name = name;
  r->bn_from = from;
  r->bn_stop = i;
  r->bn_res = res;
  return res;
}

/* T.attr(node, key, value) over the statements of list from index `from`
 * (a with body, scoped; or the rest of the list, unscoped).  TVM prints
 * LowerOpaqueBlock's pragma attrs on a loop var, placed just outside the
 * loop, as `i = T.int32()`, `T.attr(i, "pragma_k", v)`, `for i in ...`: when
 * the attr is on such a declared free var and what it wraps is one for loop
 * (or a thread launch `i = T.launch_thread(...)`, a thread-bound loop), that
 * loop binds the var (TVM's parser makes a second `i`, leaving the attr's
 * undefined). */
/* TVM 0.27's flat marker: the rest of the body under an AttrStmt on node 0,
 * as T.device_entry() and T.attr({"key": value}) build it */
static tir_stmt *flat_attr(rd *r, const char *key, tir_expr *val, TSNode list, uint32_t from, tir_span sp) {
  r->in_rest = true;
  tir_stmt *body = rd_stmts(r, list, from);
  if (!body) return NULL;
  tir_stmt *s = tir_attr_stmt(r->c, key, tir_i32(r->c, 0), val, body);
  s->span = sp;
  s->u.attr.flat = true;
  return s;
}

static tir_stmt *attr_stmt(rd *r, rd_args *a, TSNode list, uint32_t from, bool scoped) {
  if (a->npos == 1 && a->pos[0].k == RV_DICT) {
    /* T.attr({"key": value, ...}), as TVM prints a marker (or several,
     * nested in the dict's order), or `with T.attr({...}):` over a body */
    int n = a->pos[0].n;
    if (n < 1) {
      tir_error(r->d, a->sp, "T.attr({...}) expects a key");
      return NULL;
    }
    const char **keys = tir_alloc(r->c, sizeof *keys * (size_t)n);
    tir_expr **vals = tir_alloc(r->c, sizeof *vals * (size_t)n);
    for (int i = 0; i < n; i++) {
      keys[i] = rd_as_str(r, a->pos[0].keys[i], "the attribute key");
      vals[i] = rd_as_expr(r, a->pos[0].items[i]);
      if (!keys[i] || !vals[i]) return NULL;
    }
    if (!scoped) r->in_rest = true;
    tir_stmt *s = scoped ? rd_body(r, list, from) : rd_stmts(r, list, from);
    for (int i = n - 1; i >= 0 && s; i--) {
      s = tir_attr_stmt(r->c, keys[i], tir_i32(r->c, 0), vals[i], s);
      s->span = a->sp;
      s->u.attr.flat = !scoped;
    }
    return s;
  }
  if (a->npos != 3) {
    tir_error(r->d, a->sp, "T.attr expects (node, key, value), got %d arguments", a->npos);
    return NULL;
  }
  const char *key = rd_as_str(r, a->pos[1], "the attribute key");
  if (a->pos[2].k == RV_REGION) { /* TVM keeps a BufferRegion there, which an attr's value (an expr) cannot hold */
    tir_error(r->d, a->pos[2].sp, "a buffer region (A[lo:hi]) as the value of a T.attr is not supported");
    return NULL;
  }
  /* a Python int past int32, a Python float or bool (TVM keeps each boxed, printed bare): an attribute value */
  bool boxed_node = (a->pos[0].k == RV_INT && (a->pos[0].i < INT32_MIN || a->pos[0].i > INT32_MAX)) ||
                    a->pos[0].k == RV_FLOAT || a->pos[0].k == RV_BOOL;
  if (a->pos[0].k == RV_ATTR || a->pos[0].k == RV_BUFFER || a->pos[0].k == RV_TUPLE || a->pos[0].k == RV_DICT ||
      a->pos[0].k == RV_REGION || boxed_node) {
    /* T.attr(T.target("cuda"), "target", 0), T.attr(A, "storage_alignment", 64): an attribute
     * value or a buffer (TVM holds the Buffer, not its data) as the node; a list or dict of
     * values likewise (TVM's Array / Map) */
    tir_expr *v = rd_as_expr(r, a->pos[2]);
    if (!key || !v) return NULL;
    if (!scoped) r->in_rest = true;
    tir_stmt *b = scoped ? rd_body(r, list, from) : rd_stmts(r, list, from);
    if (!b) return NULL;
    tir_stmt *s = tir_attr_stmt(r->c, key, NULL, v, b);
    s->u.attr.node_av = a->pos[0].k == RV_ATTR ? a->pos[0].av : rd_as_attr(r, a->pos[0]);
    s->span = a->sp;
    return s;
  }
  tir_expr *node = rd_as_expr(r, a->pos[0]);
  tir_expr *val = rd_as_expr(r, a->pos[2]);
  if (!key || !node || !val) return NULL;
  bool loop_var = node->kind == TIR_VAR && binds_next(r, list, from, node->u.var.name);
  rd_sym *decl = loop_var ? free_decl_of(r, node) : NULL;
  if (decl && decl->uses) decl->uses--; /* this attr's own use: the loop it wraps may bind the var */
  r->loop_var_hint = loop_var ? node : NULL;
  if (!scoped) r->in_rest = true;
  tir_stmt *body = scoped ? rd_body(r, list, from) : rd_stmts(r, list, from);
  r->loop_var_hint = NULL;
  if (!body) return NULL;
  tir_stmt *s = tir_attr_stmt(r->c, key, node, val, body);
  s->span = a->sp;
  s->u.attr.flat = !scoped;
  /* T.attr(tx, "thread_extent", n) over a T.env_thread var: the launch of its tag */
  if (env_tag(r, node) && (!strcmp(key, "thread_extent") || !strcmp(key, "virtual_thread")))
    s->u.attr.thread_tag = tir_strdup(r->c, env_tag(r, node));
  if (a->pos[0].k == RV_EXPR && a->pos[0].via && a->pos[0].via->data == node) s->u.attr.node_named = a->pos[0].via;
  s->u.attr.node_typed = a->pos[0].k == RV_EXPR && node->kind == TIR_INT_IMM;
  return s;
}


/* T.hint(message="", **attrs), bare (the rest of the list is its body) or
 * `with T.hint(...):`: TVM 0.27's AttrStmt "tirx_hint" on the dict
 * {"message": message, **attrs}, value 1.  A directive for a tool: no pass
 * or code generator acts on it (they keep it, as TVM's do) */
static tir_stmt *hint_stmt(rd *r, rd_args *a, TSNode list, uint32_t from, bool scoped) {
  if (a->npos > 1) {
    tir_error(r->d, a->sp, "T.hint expects (message, **attrs), got %d positional arguments", a->npos);
    return NULL;
  }
  int n = a->nkw + 1;
  const char **keys = tir_alloc(r->c, sizeof *keys * (size_t)n);
  tir_attr_val **vals = tir_alloc(r->c, sizeof *vals * (size_t)n);
  rval msg = a->npos ? a->pos[0] : (rval){.k = RV_STR, .s = "", .sp = a->sp};
  int m = 1;
  for (int i = 0; i < a->nkw; i++) {
    if (!strcmp(a->kw[i], "message") && !a->npos) {
      msg = a->kwv[i];
      continue;
    }
    if (!strcmp(a->kw[i], "message")) {
      tir_error(r->d, a->kwsp[i], "T.hint: message given twice");
      return NULL;
    }
    keys[m] = a->kw[i];
    if (!(vals[m++] = rd_as_attr(r, a->kwv[i]))) return NULL;
  }
  if (msg.k != RV_STR) {
    tir_error(r->d, msg.sp.line ? msg.sp : a->sp, "T.hint: the message must be a string");
    return NULL;
  }
  keys[0] = "message";
  if (!(vals[0] = rd_as_attr(r, msg))) return NULL;
  if (!scoped) r->in_rest = true;
  tir_stmt *body = scoped ? rd_body(r, list, from) : rd_stmts(r, list, from);
  if (!body) return NULL;
  tir_stmt *s = tir_attr_stmt(r->c, "tirx_hint", NULL, tir_i32(r->c, 1), body);
  s->u.attr.node_av = tir_av_dict(r->c, keys, vals, m);
  s->span = a->sp;
  return s;
}

/* T.attr(T.iter_var(v, T.Range(0, n), "ThreadIndex", tag), "thread_extent", n): TVM's IterVar node
 * written out, which T.launch_thread makes (tirc holds the var and its tag, and prints the launch); the
 * other iter_var forms are refused.  *args: the attr's (var, key, value) on success */
static bool iter_var_attr(rd *r, TSNode attr_call, rd_args *out, const char **tag_out) {
  static const char *const AP[] = {"node_or_dict", "attr_key", "value"};
  static const char *const IP[] = {"v", "dom", "iter_type", "thread_tag"};
  TSNode an[3], in[4];
  tir_diag quiet, *d = r->d; /* not this form: T.attr reads it, and reports */
  tir_diag_init(&quiet);
  r->d = &quiet;
  int given = rd_arg_nodes(r, rd_field(attr_call, "arguments"), AP, 3, an);
  r->d = d;
  tir_diag_free(&quiet);
  if (given != 3) return false;
  TSNode iv = an[0];
  if (!rd_is(iv, "call")) return false;
  const char *tn = rd_t_name(r, rd_field(iv, "function"));
  if (!tn || strcmp(tn, "iter_var")) return false;
  tir_span sp = rd_span(iv);
  *tag_out = NULL;
  given = rd_arg_nodes(r, rd_field(iv, "arguments"), IP, 4, in);
  if (given < 0) return true;
  if (given != 4) {
    tir_error(r->d, sp, "T.iter_var expects (var, dom, iter_type, thread_tag)");
    return true;
  }
  rval v = rd_eval(r, in[0]);
  TSNode dom = in[1];
  rval ty = rd_eval(r, in[2]), tag = rd_eval(r, in[3]);
  rval key = rd_eval(r, an[1]), val = rd_eval(r, an[2]);
  *tag_out = NULL;
  if (v.k == RV_ERR || ty.k == RV_ERR || tag.k == RV_ERR || key.k == RV_ERR || val.k == RV_ERR) return true;
  /* another key: the iter_var is an attribute value (T.iter_var(v, T.Range(0, 4), "DataPar", "")),
   * read by T.attr as such */
  if (key.k == RV_STR && strcmp(key.s, "thread_extent") && strcmp(key.s, "virtual_thread")) return false;
  if (v.k == RV_EXPR && v.e->kind == TIR_VAR && !env_tag(r, v.e)) {
    /* a parameter or a loop var: tirc prints the launch, which TVM reads
     * only over a var of its own (T.env_thread, or `bx = T.int32()` as TVM
     * prints it) */
    const rd_sym *sym = rd_is(in[0], "identifier") ? rd_lookup(r, rd_text(r, in[0])) : NULL;
    if (!sym || !sym->free_decl) {
      tir_error(r->d, v.sp, "T.iter_var of a thread_extent attr: '%s' is bound elsewhere (a parameter, a loop var): "
                            "tirc reads a var of its own here (T.env_thread(tag), or T.int32())", v.e->u.var.name);
      return true;
    }
  }
  /* a thread_extent of any thread tag; a virtual_thread of a vthread tag
   * (LowerOpaqueBlock's of a "vthread.x" loop, which T.launch_thread
   * cannot write: it reads only "vthread" as a virtual_thread) */
  if (v.k != RV_EXPR || v.e->kind != TIR_VAR || !tir_dtype_is_int(v.e->dtype) || ty.k != RV_STR ||
      tag.k != RV_STR || key.k != RV_STR || strcmp(ty.s, "ThreadIndex") || !is_thread_tag(tag.s) ||
      (!strcmp(key.s, "virtual_thread") && strncmp(tag.s, "vthread", 7))) {
    tir_error(r->d, sp,
              "T.iter_var is read only as the node of a thread_extent attr (var, T.Range(0, extent), "
              "\"ThreadIndex\", a blockIdx/threadIdx/vthread tag), which is T.launch_thread(tag, extent), or "
              "of a virtual_thread attr with a vthread tag");
    return true;
  }
  tir_expr *ext = rd_convert(r, val, v.e->dtype);
  if (!ext) return true;
  if (rd_is(dom, "none")) { /* TVM prints it as the launch, but holds no domain: no text tirc prints says that */
    tir_error(r->d, rd_span(dom), "T.iter_var of a thread_extent attr without a domain (None) is not supported: "
                                  "write T.Range(0, extent), which is what T.launch_thread(tag, extent) holds");
    return true;
  }
  { /* T.Range(0, extent): the launch's domain */
    const char *dn = rd_is(dom, "call") ? rd_t_name(r, rd_field(dom, "function")) : NULL;
    TSNode da = dn && !strcmp(dn, "Range") ? rd_field(dom, "arguments") : (TSNode){0};
    bool ok = !ts_node_is_null(da) && rd_child_count(da) == 2;
    int64_t lo = -1, hi, e;
    tir_expr *end = NULL;
    if (ok) {
      rval b = rd_eval(r, rd_child(da, 0)), en = rd_eval(r, rd_child(da, 1));
      if (b.k == RV_ERR || en.k == RV_ERR) return true;
      /* of the var's dtype, as the launch's domain is (a Python int is an int32 in TVM's T.Range) */
      tir_dtype bt = b.k == RV_INT ? TIR_INT32 : b.k == RV_EXPR ? b.e->dtype : TIR_VOID;
      tir_dtype et = en.k == RV_INT ? TIR_INT32 : en.k == RV_EXPR ? en.e->dtype : TIR_VOID;
      ok = tir_dtype_eq(bt, v.e->dtype) && tir_dtype_eq(et, v.e->dtype);
      tir_expr *be = ok ? rd_convert(r, b, v.e->dtype) : NULL;
      end = ok ? rd_convert(r, en, v.e->dtype) : NULL;
      ok = be && end && tir_is_const_int(be, &lo) && lo == 0 &&
           ((tir_is_const_int(end, &hi) && tir_is_const_int(ext, &e) && hi == e) || tir_expr_identical(end, ext));
    }
    if (!ok) {
      tir_error(r->d, rd_span(dom), "T.iter_var of a thread_extent attr: the domain must be T.Range(0, extent) "
                                    "with the attr's extent, both of the var's dtype");
      return true;
    }
  }
  out->npos = 3;
  out->pos = tir_alloc(r->c, sizeof *out->pos * 3);
  out->pos[0] = v;
  out->pos[1] = key;
  out->pos[2] = rv_expr(ext, val.sp);
  out->nkw = 0;
  out->sp = rd_span(attr_call);
  *tag_out = tag.s;
  return true;
}

/* `return v` and TVM 0.27's T.Return(v), which TVM reads alike: the
 * return of v (tirc's T.evaluate(T.ret(v))); a Python int is TVM's int32
 * whatever the function's return dtype */
static tir_stmt *ret_of(rd *r, rval v, tir_span sp) {
  tir_expr *x = rd_as_expr(r, v);
  if (!x) return NULL;
  tir_expr *args[1] = {x};
  tir_expr *call = tir_call(r->c, x->dtype, "ret", args, 1);
  call->span = sp;
  tir_stmt *st = tir_evaluate(r->c, call);
  st->span = sp;
  return st;
}

static NOINLINE tir_stmt *return_stmt(rd *r, TSNode s) {
  TSNode e = rd_child(s, 0);
  if (ts_node_is_null(e)) {
    tir_error(r->d, rd_span(s), "'return' needs a value in a prim_func (T.ret(value))");
    return NULL;
  }
  rval v = rd_eval(r, e);
  if (v.k == RV_ERR) return NULL;
  return ret_of(r, v, rd_span(s));
}

/* `break` / `continue`, and TVM's printed T.break_loop() / T.continue_loop() */
static tir_stmt *jump_stmt(rd *r, bool brk, tir_span sp) {
  if (r->loop_depth <= 0) {
    tir_error(r->d, sp, "'%s' outside loop", brk ? "break" : "continue");
    return NULL;
  }
  tir_stmt *s = brk ? tir_break(r->c) : tir_continue(r->c);
  s->span = sp;
  return s;
}

/* (TVM 0.27's T.Break() / T.Continue() nodes are other statements than
 * its `break` / T.break_loop(), an evaluated call: kept apart, call_stmt) */
static bool is_jump_name(const char *tn) {
  return tn && (!strcmp(tn, "break_loop") || !strcmp(tn, "continue_loop"));
}

static NOINLINE tir_stmt *call_stmt(rd *r, TSNode call, TSNode list, uint32_t idx, bool *rest_used) {
  const char *tn = rd_t_name(r, rd_field(call, "function"));
  tir_span sp = rd_span(call);
  if (tn && !strcmp(tn, "evaluate")) { /* T.evaluate(T.break_loop()): TVM reads the jump itself */
    TSNode args = rd_field(call, "arguments");
    TSNode in = rd_child_count(args) == 1 ? rd_child(args, 0) : (TSNode){0};
    if (!ts_node_is_null(in) && rd_is(in, "call") && is_jump_name(rd_t_name(r, rd_field(in, "function")))) {
      call = in;
      tn = rd_t_name(r, rd_field(call, "function"));
      sp = rd_span(call);
    }
  }
  if (is_jump_name(tn)) { /* T.break_loop(); span=None and dtype= allowed */
    rd_args a;
    if (!rd_eval_call_args(r, call, &a)) return NULL;
    if (a.npos || (a.nkw && (a.nkw > 1 || strcmp(a.kw[0], "dtype")))) {
      tir_error(r->d, sp, "T.%s() takes no arguments", tn);
      return NULL;
    }
    return jump_stmt(r, tn[0] == 'b', sp);
  }
  if (tn && (!strcmp(tn, "Break") || !strcmp(tn, "Continue"))) { /* TVM 0.27's nodes, kept as such */
    if (rd_child_count(rd_field(call, "arguments"))) {
      tir_error(r->d, sp, "T.%s() takes no arguments", tn);
      return NULL;
    }
    tir_stmt *j = jump_stmt(r, tn[0] == 'B', sp);
    if (j) j->u.jump.node = true;
    return j;
  }
  if (tn && !strcmp(tn, "Return")) { /* TVM 0.27's node: `return value` */
    rd_args a;
    if (!rd_eval_call_args(r, call, &a)) return NULL;
    rval *v = rd_arg(&a, 0, "value");
    if (!v || a.npos + a.nkw != 1) {
      tir_error(r->d, sp, "T.Return expects one value");
      return NULL;
    }
    return ret_of(r, *v, sp);
  }
  if (tn && !strcmp(tn, "device_entry")) { /* where the device region starts: the rest */
    if (rd_child_count(rd_field(call, "arguments"))) {
      tir_error(r->d, sp, "T.device_entry() takes no arguments");
      return NULL;
    }
    *rest_used = true;
    return flat_attr(r, "tirx.device_entry", tir_bool(r->c, true), list, idx + 1, sp);
  }
  if (!tn || (strcmp(tn, "evaluate") && strcmp(tn, "func_attr") && strcmp(tn, "Assert") && strcmp(tn, "attr") &&
              strcmp(tn, "launch_thread") && strcmp(tn, "hint"))) {
    return evaluate_bare(r, rd_eval(r, call), sp);
  }
  rd_args a;
  const char *ivtag;
  if (!strcmp(tn, "attr") && iter_var_attr(r, call, &a, &ivtag)) { /* T.attr(T.iter_var(...), ...) */
    if (!ivtag) return NULL;
    *rest_used = true;
    tir_stmt *st = attr_stmt(r, &a, list, idx + 1, false);
    if (st) st->u.attr.thread_tag = tir_strdup(r->c, ivtag);
    return st;
  }
  if (!rd_eval_call_args(r, call, &a)) return NULL;
  a.sp = sp;
  rd_kw_positional(r, tn, &a);
  if (strcmp(tn, "hint") && strcmp(tn, "Assert") && !rd_no_kwargs(r, &a, tn)) return NULL;
  if (!strcmp(tn, "attr")) { /* TVM's concise form: the rest is the body */
    *rest_used = true;
    return attr_stmt(r, &a, list, idx + 1, false);
  }
  if (!strcmp(tn, "hint")) { /* bare: the rest is the body */
    *rest_used = true;
    return hint_stmt(r, &a, list, idx + 1, false);
  }
  if (!strcmp(tn, "launch_thread")) /* T.launch_thread(env_thread_var, n): the rest is the body */
    return launch(r, &a, NULL, list, idx, rest_used, (TSNode){0});
  if (!strcmp(tn, "evaluate")) {
    if (a.npos != 1) {
      tir_error(r->d, sp, "T.evaluate expects 1 argument, got %d", a.npos);
      return NULL;
    }
    return evaluate(r, a.pos[0], sp);
  }
  if (!strcmp(tn, "Assert")) {
    rval cond, msg;
    if (!assert_args(r, &a, &cond, &msg)) return NULL;
    return assert_stmt(r, cond, msg, sp, list, idx, rest_used, (TSNode){0});
  }
  /* func_attr: in the function's own body, as TVM calls it in its
   * PrimFunc frame only (not under a with, while or if) */
  if (r->blk || r->nloops || r->nest != r->fn_nest) {
    tir_error(r->d, sp, "T.func_attr must be at the top of the function body");
    return NULL;
  }
  if (a.npos != 1 || a.pos[0].k != RV_DICT) {
    tir_error(r->d, sp, "T.func_attr expects one dict");
    return NULL;
  }
  tir_attr_val *d = rd_as_attr(r, a.pos[0]), *old = r->fn->f->attrs;
  if (d && r->fn->f->private_ && tir_av_get(d, "global_symbol")) {
    tir_error(r->d, sp, "T.func_attr: a private function (@T.prim_func(private=True)) has no global_symbol (TVM "
                        "refuses it; drop private=True to export the function under that name)");
    return NULL;
  }
  if (d && old && old->kind == TIR_AV_DICT && old->n) {
    /* a second T.func_attr adds its keys, as TVM merges them; a key given
     * twice is refused, as TVM refuses it */
    int n = old->n + d->n;
    const char **keys = tir_alloc(r->c, sizeof *keys * (size_t)n);
    tir_attr_val **items = tir_alloc(r->c, sizeof *items * (size_t)n);
    memcpy(keys, old->keys, sizeof *keys * (size_t)old->n);
    memcpy(items, old->items, sizeof *items * (size_t)old->n);
    for (int i = 0; i < d->n; i++) {
      if (tir_av_get(old, d->keys[i])) {
        tir_error(r->d, sp, "T.func_attr: the attribute '%s' is given twice", d->keys[i]);
        return NULL;
      }
      keys[old->n + i] = d->keys[i], items[old->n + i] = d->items[i];
    }
    d = tir_av_dict(r->c, keys, items, n);
  }
  r->fn->f->attrs = d;
  return NULL;
}

/* buf.vstore(indices, value): a store of value's lanes from the indices */
static NOINLINE tir_stmt *vstore(rd *r, TSNode call) {
  tir_span sp = rd_span(call);
  rval obj = rd_eval(r, rd_field(rd_field(call, "function"), "object"));
  if (obj.k == RV_ERR) return NULL;
  if (obj.k != RV_BUFFER) {
    tir_error(r->d, sp, "'.vstore' applies to a buffer");
    return NULL;
  }
  rd_args a;
  if (!rd_eval_call_args(r, call, &a)) return NULL;
  rval *ix = rd_arg(&a, 0, "begin"), *val = rd_arg(&a, 1, "value");
  if (!ix || !val || a.npos + a.nkw != 2) {
    tir_error(r->d, sp, "%s.vstore expects (indices, value) (a predicate is not supported)", obj.buf->name);
    return NULL;
  }
  tir_expr *v = val->k == RV_EXPR ? rd_as_expr(r, *val) : rd_convert(r, *val, obj.buf->dtype);
  if (!v) return NULL;
  tir_expr *ld = rd_vector_access(r, obj.buf, *ix, v->dtype.lanes, sp);
  if (!ld) return NULL;
  if (!tir_dtype_eq(ld->dtype, v->dtype)) {
    char x[32], y[32];
    tir_error(r->d, val->sp, "%s.vstore of a %s value into %s elements", obj.buf->name, tir_dtype_str(v->dtype, x),
              tir_dtype_str(ld->dtype, y));
    return NULL;
  }
  tir_stmt *s = tir_store(r->c, obj.buf, v, ld->u.load.idx, ld->u.load.nidx);
  s->span = sp;
  return s;
}

/* a bare expression statement: T.evaluate of it */
static NOINLINE tir_stmt *bare_expr(rd *r, TSNode e) { return evaluate_bare(r, rd_eval(r, e), rd_span(e)); }

/* T.bind(value, var=v) as a statement: v, a var declared by v = T.int32(),
 * bound to value over the rest of the body (TVM's LetStmt) */
static tir_stmt *bind_var(rd *r, TSNode call, TSNode list, uint32_t idx, bool *rest_used) {
  rd_args a;
  if (!rd_eval_call_args(r, call, &a)) return NULL;
  a.sp = rd_span(call);
  rval *v = rd_arg(&a, 0, "value"), *var = rd_arg(&a, 1, "var");
  if (!v || !var || a.npos + a.nkw != 2) {
    tir_error(r->d, a.sp, "T.bind as a statement expects (value, var=v), v declared by v = T.int32()");
    return NULL;
  }
  tir_expr *x = var->k == RV_EXPR ? var->e : NULL;
  rd_sym *sym = x && x->kind == TIR_VAR ? rd_lookup(r, x->u.var.name) : NULL;
  if (!sym || !sym->free_decl || sym->val.k != RV_EXPR || sym->val.e != x) {
    tir_error(r->d, var->sp, "T.bind's var= must be a variable declared by v = T.int32() and not bound yet");
    return NULL;
  }
  tir_expr *e = rd_convert(r, *v, x->dtype);
  if (!e) return NULL;
  sym->free_decl = false; /* bound here */
  tir_stmt *body = rest_of(r, list, idx, rest_used);
  if (!body) return NULL;
  tir_stmt *st = tir_let_stmt(r->c, x, e, body);
  st->span = a.sp;
  return st;
}

/* a statement m(args) calling a @T.macro: its body read here, in the
 * caller's block and function, with its parameters bound to the
 * arguments' values (defaults read where the macro is defined: none of the
 * caller's names); a hygienic macro (the default) sees none of the
 * caller's names either, TVM's hygienic=False sees them all; what the body
 * defines ends with it */
#define RD_MAX_MACRO_DEPTH 16

/* a bare T.launch_thread or T.hint among the macro body's statements (not
 * inside a with, loop or branch of its own): its scope runs to the end of
 * the body, and TVM's expansion, which splices the body into the caller,
 * runs it on over the caller's statements after the call */
static TSNode macro_open_scope(rd *r, const struct rd_macro *mc) {
  uint32_t cnt;
  const TSNode *kids = rd_named_children(r, mc->body, &cnt);
  for (uint32_t i = 0; i < cnt; i++) {
    if (!rd_is(kids[i], "expression_statement") || !rd_child_count(kids[i])) continue;
    TSNode e = rd_child(kids[i], 0);
    if (rd_is(e, "assignment")) e = rd_unparen(rd_field(e, "right"));
    if (ts_node_is_null(e) || !rd_is(e, "call")) continue;
    const char *tn = rd_t_name(r, rd_field(e, "function"));
    if (tn && (!strcmp(tn, "launch_thread") || !strcmp(tn, "hint"))) return e;
  }
  return (TSNode){0};
}

static tir_stmt *macro_call(rd *r, TSNode stmt, TSNode list, TSNode call, const struct rd_macro *mc) {
  tir_span sp = rd_span(call);
  if (r->macro_depth >= RD_MAX_MACRO_DEPTH) {
    tir_error(r->d, sp, "T.macro '%s' expanded more than %d deep (does it call itself?)", mc->name,
              RD_MAX_MACRO_DEPTH);
    return NULL;
  }
  rd_args a;
  if (!rd_eval_call_args(r, call, &a)) return NULL;
  uint32_t n = rd_child_count(mc->params);
  const char **names = tir_alloc(r->c, sizeof *names * (n + 1));
  TSNode *defaults = tir_alloc(r->c, sizeof *defaults * (n + 1));
  rval *vals = tir_alloc(r->c, sizeof *vals * (n + 1));
  bool *set = tir_alloc(r->c, sizeof *set * (n + 1));
  int np = 0, npos_params = -1; /* the params before a `*args` or a bare `*` take positional values */
  int star = -1, dstar = -1;     /* the params that collect the rest: *args, **kwargs */
  for (uint32_t i = 0; i < n; i++) {
    TSNode p = rd_child(mc->params, i);
    if (rd_is_extra(p)) continue;
    if (rd_is(p, "keyword_separator")) {
      if (npos_params < 0) npos_params = np;
      continue;
    }
    bool splat = rd_is(p, "list_splat_pattern"), dsplat = rd_is(p, "dictionary_splat_pattern");
    TSNode id = rd_is(p, "identifier") ? p
                : rd_is(p, "typed_parameter") || splat || dsplat ? rd_child(p, 0) : rd_field(p, "name");
    names[np] = rd_text(r, id);
    defaults[np] = rd_is(p, "default_parameter") || rd_is(p, "typed_default_parameter") ? rd_field(p, "value")
                                                                                        : (TSNode){0};
    set[np] = false;
    if (splat) {
      star = np;
      if (npos_params < 0) npos_params = np;
      vals[np] = (rval){.k = RV_TUPLE, .items = tir_alloc(r->c, sizeof(rval)), .sp = sp};
      set[np] = true;
    } else if (dsplat) {
      dstar = np;
      vals[np] = (rval){.k = RV_DICT, .keys = tir_alloc(r->c, sizeof(rval) * (size_t)(a.nkw + 1)),
                        .items = tir_alloc(r->c, sizeof(rval) * (size_t)(a.nkw + 1)), .sp = sp};
      set[np] = true;
    }
    np++;
  }
  if (npos_params < 0) npos_params = np - (dstar >= 0);
  if (a.npos > npos_params && star < 0) {
    tir_error(r->d, a.pos[npos_params].sp, "T.macro '%s' takes %d positional argument%s, not %d", mc->name,
              npos_params, npos_params == 1 ? "" : "s", a.npos);
    return NULL;
  }
  for (int i = 0; i < a.npos && i < npos_params; i++) vals[i] = a.pos[i], set[i] = true;
  if (star >= 0 && a.npos > npos_params) { /* the rest, a tuple */
    vals[star].items = a.pos + npos_params;
    vals[star].n = a.npos - npos_params;
  }
  for (int k = 0; k < a.nkw; k++) {
    int i = 0;
    while (i < np && (i == star || i == dstar || strcmp(names[i], a.kw[k]))) i++;
    if (i == np && dstar >= 0) { /* **kwargs: the keywords no parameter names */
      rval *d = &vals[dstar];
      d->keys[d->n] = (rval){.k = RV_STR, .s = a.kw[k], .sp = a.kwsp[k]};
      d->items[d->n++] = a.kwv[k];
      continue;
    }
    if (i == np) {
      tir_error(r->d, a.kwsp[k], "T.macro '%s' has no parameter '%s'", mc->name, a.kw[k]);
      return NULL;
    }
    if (set[i]) {
      tir_error(r->d, a.kwsp[k], "T.macro '%s' got two values for '%s'", mc->name, a.kw[k]);
      return NULL;
    }
    vals[i] = a.kwv[k], set[i] = true;
  }
  int mark = r->nsyms, floor = r->sym_floor, frame = r->frame;
  for (int i = 0; i < np; i++) {
    if (set[i]) continue;
    if (ts_node_is_null(defaults[i])) {
      tir_error(r->d, sp, "T.macro '%s' needs a value for '%s'", mc->name, names[i]);
      return NULL;
    }
    r->sym_floor = r->nsyms;
    rd_push_globals(r, mc->nglobals); /* a default is read where the macro is defined */
    vals[i] = rd_eval(r, defaults[i]);
    rd_pop_syms(r, mark);
    r->sym_floor = floor;
    if (vals[i].k == RV_ERR) return NULL;
  }
  if (mc->hygienic) {
    r->sym_floor = r->nsyms;
    rd_push_globals(r, mc->nglobals); /* the module's globals as they were where it was defined (TVM's capture) */
    /* TVM binds the captured names and the parameters in one scope: all
     * that is above the floor now is the captured globals */
    for (int i = 0; i < np; i++)
      if (rd_lookup(r, names[i])) {
        tir_error(r->d, sp,
                  "T.macro '%s': its parameter '%s' has the name of a module-level constant, which TVM's "
                  "hygienic macro refuses ('Variable %s already defined in current scope'): rename it",
                  mc->name, names[i], names[i]);
        rd_pop_syms(r, mark);
        r->sym_floor = floor;
        return NULL;
      }
  }
  for (int i = 0; i < np; i++)
    if (vals[i].k == RV_EXPR && tree_size(vals[i].e, RD_MAX_WRITTEN_OUT) > RD_MAX_WRITTEN_OUT) {
      /* each use of the parameter copies it: `m(v + v + v + v)` passed on
       * through macros grows 4x a level, a tree no pass could walk */
      tir_error(r->d, vals[i].sp,
                "T.macro '%s': the value of '%s' has more than %d nodes written out (each use of a parameter "
                "copies it); bind it with a let",
                mc->name, names[i], RD_MAX_WRITTEN_OUT);
      rd_pop_syms(r, mark);
      r->sym_floor = floor;
      return NULL;
    }
  if (++r->macro_expansions > RD_MAX_MACRO_EXPANSIONS) {
    if (r->macro_expansions == RD_MAX_MACRO_EXPANSIONS + 1)
      tir_error(r->d, sp, "more than %d T.macro expansions in this text (macros that call each other several times "
                          "grow exponentially)", RD_MAX_MACRO_EXPANSIONS);
    rd_pop_syms(r, mark);
    r->sym_floor = floor;
    return NULL;
  }
  r->frame = r->nsyms; /* its parameters and body: a scope of their own */
  for (int i = 0; i < np; i++) rd_push_sym(r, names[i], vals[i]);
  r->macro_depth++;
  int errs = r->d ? r->d->nerrors : 0;
  int msplice = r->nmsplice;
  const char *suffix = r->block_suffix;
  int calls = ((struct rd_macro *)mc)->calls++;
  if (calls) {
    char *s = tir_alloc(r->c, 24);
    snprintf(s, 24, "_%d", calls);
    r->block_suffix = s;
  } else {
    r->block_suffix = "";
  }
  if (!ts_node_is_null(stmt) && !ts_node_is_null(list) && r->nmsplice < RD_MAX_MACRO_DEPTH &&
      rd_direct_in_block(r, stmt))
    r->msplice[r->nmsplice++] = (struct rd_msplice){mc->body, list};
  int vis = r->macro_vis;
  if (mc->hygienic) r->macro_vis = mc->seq;
  tir_stmt *body = rd_stmts(r, mc->body, 0);
  r->macro_vis = vis;
  r->nmsplice = msplice;
  r->block_suffix = suffix;
  if (r->d && r->d->nerrors > errs && r->macro_depth == 1) /* where the erring body was expanded (the outermost call) */
    tir_diag_add(r->d, TIR_SEV_NOTE, sp, "in T.macro '%s', expanded here", mc->name);
  r->macro_depth--;
  rd_pop_syms(r, mark);
  r->sym_floor = floor;
  r->frame = frame;
  return body;
}

static tir_stmt *expr_stmt(rd *r, TSNode s, TSNode list, uint32_t idx, bool *rest_used) {
  TSNode e = rd_child(s, 0);
  if (rd_child_count(s) != 1) {
    tir_error(r->d, rd_span(s), "unsupported statement");
    return NULL;
  }
  if (rd_is(e, "assignment")) return assignment(r, e, list, idx, rest_used);
  if (rd_is(e, "augmented_assignment")) return aug_assignment(r, e);
  if (rd_is(e, "string") || rd_is(e, "concatenated_string")) return NULL; /* a docstring */
  if (rd_is(e, "call") && rd_is(rd_field(e, "function"), "attribute") &&
      !strcmp(rd_text(r, rd_field(rd_field(e, "function"), "attribute")), "vstore"))
    return vstore(r, e);
  if (rd_is(e, "call")) {
    const struct rd_macro *mc = rd_macro_of(r, rd_field(e, "function"));
    if (mc && !ts_node_is_null(list) && more_stmts(r, list, idx)) {
      TSNode open = macro_open_scope(r, mc);
      if (!ts_node_is_null(open)) {
        tir_span osp = rd_span(open);
        tir_error(r->d, rd_span(e),
                  "T.macro '%s' leaves the bare T.%s of its line %d open, and TVM's expansion runs it on over "
                  "the statements after this call; tirc expands a macro in its own scope: write `with "
                  "T.%s(...):` in the macro, or make the call the last statement here",
                  mc->name, rd_t_name(r, rd_field(open, "function")), osp.line,
                  rd_t_name(r, rd_field(open, "function")));
        return NULL;
      }
    }
    if (mc) return macro_call(r, s, list, e, mc);
    const char *tn = rd_t_name(r, rd_field(e, "function"));
    if (tn && !strcmp(tn, "bind")) return bind_var(r, e, list, idx, rest_used);
    if (tn && !strcmp(tn, "buffer_store")) return buffer_store_call(r, e);
    if (tn && !strcmp(tn, "static_assert")) return static_assert_call(r, e);
    return call_stmt(r, e, list, idx, rest_used);
  }
  return bare_expr(r, e);
}

/* ---- loops ---- */

/* as many loops as the printer folds into one T.grid */
#define RD_MAX_GRID 64

typedef struct loop_spec {
  tir_for_kind kind;
  const char *thread;
  tir_attr_val *annots;
  tir_expr *min[RD_MAX_GRID], *ext[RD_MAX_GRID];
  rval step; /* RV_NONE: none */
  int n;
  bool grid; /* T.grid: extents kept as written (TVM simplifies the others') */
} loop_spec;

/* a loop bound in the loop's dtype: a constant retyped, any other
 * expression cast (as TVM's loop frames convert them) */
static tir_expr *loop_bound(rd *r, rval v, tir_dtype t) {
  if (v.k == RV_INT || v.k == RV_BOOL) return rd_convert(r, v, t);
  tir_expr *e = rd_as_expr(r, v);
  if (!e || tir_dtype_eq(e->dtype, t) || !tir_dtype_is_int(e->dtype) || e->dtype.lanes != 1) return e;
  if (e->kind == TIR_INT_IMM) {
    rval c = {.k = RV_INT, .i = e->u.int_val, .sp = v.sp};
    return rd_convert(r, c, t);
  }
  tir_expr *x = tir_cast(r->c, t, e);
  x->span = e->span;
  return x;
}

/* a loop's start and stop (range(stop) starts at a Python 0; T.serial(stop)
 * at a 0 of stop's dtype): TVM's loop var takes the wider of the two
 * dtypes, a Python int counting as int32, unsigned where either is
 * (range(T.int8(4)) is an int32 loop, T.serial(T.int8(4)) an int8 one,
 * T.serial(T.int64(0), n) an int64 one) */
static bool min_ext_of(rd *r, rval *lo, rval *hi, bool lit_zero, tir_expr **pmin, tir_expr **pext) {
  rval zero = {.k = RV_INT, .i = 0, .sp = lo->sp};
  if (!hi) {
    if (!lit_zero) {
      tir_expr *e = rd_as_expr(r, *lo);
      if (!e) return false;
      *pmin = tir_int(r->c, tir_dtype_is_int(e->dtype) ? e->dtype : TIR_INT32, 0);
      *pext = e;
      goto check;
    }
    hi = lo, lo = &zero;
  }
  {
    rval l = *lo, h = *hi;
    tir_expr *a = l.k == RV_INT || l.k == RV_BOOL ? NULL : rd_as_expr(r, l);
    tir_expr *b = h.k == RV_INT || h.k == RV_BOOL ? NULL : rd_as_expr(r, h);
    if ((!a && l.k != RV_INT && l.k != RV_BOOL) || (!b && h.k != RV_INT && h.k != RV_BOOL)) return false;
    /* a Python int past int32 counts as an int64 (TVM's const of it) */
    tir_dtype ta = a ? a->dtype : l.k == RV_INT && (l.i < INT32_MIN || l.i > INT32_MAX) ? TIR_INT64 : TIR_INT32;
    tir_dtype tb = b ? b->dtype : h.k == RV_INT && (h.i < INT32_MIN || h.i > INT32_MAX) ? TIR_INT64 : TIR_INT32;
    /* a Python bool takes the other bound's type (TVM's stop - start
     * converts it so: range(T.int8(1), True) is an int8 loop) */
    if (h.k == RV_BOOL && a) tb = ta;
    if (l.k == RV_BOOL && b) ta = tb;
    tir_dtype t = ta;
    if (tir_dtype_is_int(ta) && tir_dtype_is_int(tb) && ta.lanes == 1 && tb.lanes == 1 && !tir_dtype_is_bool(ta) &&
        !tir_dtype_is_bool(tb)) {
      t.bits = ta.bits > tb.bits ? ta.bits : tb.bits;
      t.code = ta.code == TIR_TC_UINT || tb.code == TIR_TC_UINT ? TIR_TC_UINT : TIR_TC_INT;
      a = loop_bound(r, l, t), b = loop_bound(r, h, t);
    } else {
      if ((a && !tir_dtype_is_int(ta)) || (b && !tir_dtype_is_int(tb))) {
        tir_error(r->d, a && !tir_dtype_is_int(ta) ? l.sp : h.sp, "loop bounds must be integers");
        return false;
      }
      if (!a) a = rd_convert(r, l, tb);
      if (!b) b = rd_convert(r, h, a ? a->dtype : ta);
    }
    if (!a || !b) return false;
    *pmin = a;
    *pext = rd_region_extent(r, a, b);
    if (!*pext) return false;
  }
check:
  if (!tir_dtype_is_int((*pext)->dtype) || !tir_dtype_is_int((*pmin)->dtype) || (*pext)->dtype.lanes != 1 ||
      (*pmin)->dtype.lanes != 1) { /* a vector (T.int32x4(2)) TVM refuses too */
    tir_error(r->d, lo->sp, "loop bounds must be integers");
    return false;
  }
  return true;
}

static bool min_ext(rd *r, rval *lo, rval *hi, tir_expr **pmin, tir_expr **pext) {
  return min_ext_of(r, lo, hi, false, pmin, pext);
}

/* annots with key set to v (added, or replacing the old value), as TVM's
 * T.serial(unroll=...) sets it in the annotations dict */
tir_attr_val *rd_av_set(rd *r, tir_attr_val *annots, const char *key, tir_attr_val *v) {
  int n = annots ? annots->n : 0;
  const char **keys = tir_alloc(r->c, sizeof *keys * (size_t)(n + 1));
  tir_attr_val **items = tir_alloc(r->c, sizeof *items * (size_t)(n + 1));
  int m = 0;
  bool set = false;
  for (int i = 0; i < n; i++) {
    keys[m] = annots->keys[i];
    items[m++] = strcmp(annots->keys[i], key) ? annots->items[i] : (set = true, v);
  }
  if (!set) keys[m] = key, items[m++] = v;
  return tir_av_dict(r->c, keys, items, m);
}

/* T.serial(..., unroll=True | False | n): TVM's {"pragma_unroll": True},
 * {"disable_unroll": True} or {"pragma_unroll": n} */
static bool unroll_kw(rd *r, rval v, tir_attr_val **annots) {
  if (v.k == RV_BOOL) {
    tir_attr_val *t = tir_av_expr(r->c, tir_bool(r->c, true));
    *annots = rd_av_set(r, *annots, v.i ? "pragma_unroll" : "disable_unroll", t);
    return true;
  }
  if (v.k == RV_INT && v.i >= 1) {
    /* a Python int: TVM's boxed int (int64, untyped) */
    *annots = rd_av_set(r, *annots, "pragma_unroll", tir_av_expr(r->c, tir_int(r->c, TIR_INT64, v.i)));
    return true;
  }
  tir_error(r->d, v.sp, "unroll= must be True, False or a positive integer");
  return false;
}

/* dtype="int32" / "uint32" of a loop: its bounds in that dtype (a constant
 * retyped, any other expression cast), as TVM's T.serial(dtype=) converts them */
static bool loop_dtype_kw(rd *r, rval v, loop_spec *ls) {
  tir_dtype t;
  if (!rd_parse_dtype(r, v, &t)) return false;
  if (!tir_dtype_eq(t, TIR_INT32) && !(t.code == TIR_TC_UINT && t.bits == 32 && t.lanes == 1)) {
    tir_error(r->d, v.sp, "a loop's dtype= must be \"int32\" or \"uint32\" (as TVM's)");
    return false;
  }
  for (int i = 0; i < ls->n; i++) {
    tir_expr **b[2] = {&ls->min[i], &ls->ext[i]};
    for (int k = 0; k < 2; k++) {
      tir_expr *e = *b[k];
      if (tir_dtype_eq(e->dtype, t)) continue;
      *b[k] = e->kind == TIR_INT_IMM ? tir_int(r->c, t, e->u.int_val) : tir_cast(r->c, t, e);
    }
  }
  return true;
}

static bool loop_spec_tail(rd *r, rd_args *a, const char *tn, loop_spec *ls, bool ok) {
  if (!ok) return false;
  rval *u = rd_kwarg(a, "unroll"), *d = rd_kwarg(a, "dtype");
  if (u && u->k != RV_NONE && !unroll_kw(r, *u, &ls->annots)) return false;
  if (d && d->k != RV_NONE && !loop_dtype_kw(r, *d, ls)) return false;
  (void)tn;
  return true;
}

static bool loop_spec_of(rd *r, TSNode call, loop_spec *ls) {
  memset(ls, 0, sizeof *ls);
  ls->step.k = RV_NONE;
  if (!rd_is(call, "call")) goto bad;
  TSNode fn = rd_field(call, "function");
  const char *tn = rd_t_name(r, fn);
  /* range(...) as a loop's iterable is the loop even where a parameter or
   * buffer is named range (as TVM reads it) */
  bool is_range = rd_is(fn, "identifier") && !strcmp(rd_text(r, fn), "range");
  if (!tn && !is_range) goto bad;
  rd_args a;
  if (!rd_eval_call_args(r, call, &a)) return false;
  a.sp = rd_span(call);
  rval *an = rd_kwarg(&a, "annotations");
  if (an && an->k != RV_NONE && !(ls->annots = rd_as_attr(r, *an))) return false;
  /* every keyword is read or refused by name: none is dropped */
  for (int i = 0; i < a.nkw; i++) {
    const char *k = a.kw[i];
    if (!strcmp(k, "annotations") || (!strcmp(k, "thread") && tn && !strcmp(tn, "thread_binding"))) continue;
    /* range is TVM's T.serial in a for (its parser binds the name so) */
    if (!strcmp(k, "unroll") && ((tn && !strcmp(tn, "serial")) || is_range)) continue; /* TVM's: serial only */
    if (!strcmp(k, "dtype") && (tn ? strcmp(tn, "thread_binding") != 0 : is_range)) continue;
    if ((!strcmp(k, "start") || !strcmp(k, "stop")) && tn && strcmp(tn, "grid")) continue;
    if (!strcmp(k, "step") && !(tn && (!strcmp(tn, "grid") || !strcmp(tn, "thread_binding")))) {
      ls->step = a.kwv[i];
      continue;
    }
    tir_error(r->d, a.kwsp[i], "unexpected keyword argument '%s' for %s%s", k, tn ? "T." : "", tn ? tn : "range");
    return false;
  }
  if (tn && !strcmp(tn, "grid")) {
    if (a.npos < 1 || a.npos > RD_MAX_GRID) {
      tir_error(r->d, a.sp, "T.grid expects 1 to %d extents, got %d", RD_MAX_GRID, a.npos);
      return false;
    }
    for (int i = 0; i < a.npos; i++) {
      rval *p = &a.pos[i];
      if (p->k == RV_TUPLE && p->n == 2) { /* (start, extent), as TVM's T.grid reads a pair */
        if (!min_ext(r, &p->items[1], NULL, &ls->min[i], &ls->ext[i])) return false;
        rval s = p->items[0];
        tir_expr *m = s.k == RV_INT ? rd_convert(r, s, ls->ext[i]->dtype) : rd_as_expr(r, s);
        if (!m) return false;
        if (!tir_dtype_is_int(m->dtype)) {
          tir_error(r->d, s.sp, "loop bounds must be integers");
          return false;
        }
        ls->min[i] = m;
      } else if (!min_ext(r, p, NULL, &ls->min[i], &ls->ext[i])) {
        return false;
      }
    }
    ls->n = a.npos;
    ls->grid = true;
    return loop_spec_tail(r, &a, tn, ls, true);
  }
  ls->n = 1;
  if (is_range) {
    if (a.npos == 3) {
      if (ls->step.k != RV_NONE) {
        tir_error(r->d, a.pos[2].sp, "range has a step twice");
        return false;
      }
      ls->step = a.pos[2];
      a.npos = 2;
    }
    if (a.npos < 1 || a.npos > 2) {
      tir_error(r->d, a.sp, "range expects 1 to 3 arguments, got %d", a.npos);
      return false;
    }
    return loop_spec_tail(r, &a, tn, ls,
                          min_ext_of(r, &a.pos[0], a.npos == 2 ? &a.pos[1] : NULL, true, &ls->min[0], &ls->ext[0]));
  }
  static const struct { const char *n; tir_for_kind k; } kinds[] = {
      {"serial", TIR_FOR_SERIAL}, {"parallel", TIR_FOR_PARALLEL}, {"vectorized", TIR_FOR_VECTORIZED},
      {"unroll", TIR_FOR_UNROLLED}, {"thread_binding", TIR_FOR_THREAD_BINDING}};
  int k = -1;
  for (int i = 0; i < 5; i++)
    if (!strcmp(tn, kinds[i].n)) k = i;
  if (k < 0) {
    if (rd_is_known_t_name(r, tn)) tir_error(r->d, rd_span(fn), "T.%s is not a loop", tn);
    else rd_unknown_t(r, tn, rd_span(fn));
    return false;
  }
  ls->kind = kinds[k].k;
  rval *thr = rd_kwarg(&a, "thread");
  if (ls->kind == TIR_FOR_THREAD_BINDING) {
    if (!thr && a.npos >= 2 && a.pos[a.npos - 1].k == RV_STR) thr = &a.pos[--a.npos];
    if (!thr) {
      tir_error(r->d, a.sp, "T.thread_binding needs thread=\"...\"");
      return false;
    }
    if (!(ls->thread = rd_as_str(r, *thr, "the thread tag"))) return false;
  }
  /* start= / stop= by keyword, as TVM's signature names them */
  rval *st = rd_arg(&a, 0, "start"), *sp = rd_arg(&a, 1, "stop");
  int npos = a.npos + (rd_kwarg(&a, "start") != NULL) + (rd_kwarg(&a, "stop") != NULL);
  if (!st || npos < 1 || npos > 2) {
    tir_error(r->d, a.sp, "T.%s expects 1 or 2 positional arguments, got %d", tn, a.npos);
    return false;
  }
  return loop_spec_tail(r, &a, tn, ls, min_ext(r, st, sp, &ls->min[0], &ls->ext[0]));
bad:
  tir_error(r->d, rd_span(call), "a for loop must iterate over range(...), T.serial/parallel/vectorized/unroll/thread_binding(...) or T.grid(...)");
  return false;
}

static NOINLINE tir_stmt *for_stmt(rd *r, TSNode s) {
  tir_expr *hint = r->loop_var_hint;
  r->loop_var_hint = NULL;
  loop_spec ls;
  if (!loop_spec_of(r, rd_field(s, "right"), &ls)) return NULL;
  TSNode left = rd_field(s, "left");
  const char *names[RD_MAX_GRID];
  int n = 0;
  const char *tuple_name = NULL; /* `for iters in T.grid(m, n)`: iters is the tuple of the loop vars */
  const char *star_name = NULL;  /* `for *sp, k in ...`: sp the list of vars star_from ... */
  int star_from = 0, star_cnt = 0;
  if (rd_is(left, "identifier") && ls.n > 1) {
    tuple_name = rd_text(r, left);
    for (n = 0; n < ls.n; n++) {
      size_t len = strlen(tuple_name) + 24;
      char *nm = tir_alloc(r->c, len);
      snprintf(nm, len, "%s_%d", tuple_name, n); /* TVM's names for them */
      names[n] = nm;
    }
  } else if (rd_is(left, "identifier")) names[n++] = rd_text(r, left);
  else if ((rd_is(left, "pattern_list") || rd_is(left, "tuple_pattern") || rd_is(left, "list_pattern")) && ls.n == 1) {
    /* TVM binds one loop's var itself, not a list of one: unpacking it
     * (`for i, *r in T.grid(1)`, `for i, in range(4)`) fails there */
    tir_error(r->d, rd_span(left), "the target of one loop is its var, which cannot be unpacked (TVM refuses "
                                   "`for i, ... in` over one loop): write `for i in ...`");
    return NULL;
  } else if (rd_is(left, "pattern_list") || rd_is(left, "tuple_pattern") || rd_is(left, "list_pattern")) {
    uint32_t nc = rd_child_count(left);
    for (uint32_t i = 0; i < nc && n < RD_MAX_GRID; i++) {
      TSNode c = rd_child(left, i);
      if (rd_is(c, "list_splat_pattern") && !star_name && rd_is(rd_child(c, 0), "identifier")) {
        /* `for *sp, k in T.grid(...)`: sp the list of the loops' vars it takes, named sp_0, sp_1 (TVM's) */
        star_name = rd_text(r, rd_child(c, 0));
        star_from = n;
        star_cnt = ls.n - (int)(nc - 1);
        for (int k = 0; k < star_cnt && n < RD_MAX_GRID; k++) {
          size_t len = strlen(star_name) + 24;
          char *nm = tir_alloc(r->c, len);
          snprintf(nm, len, "%s_%d", star_name, k);
          names[n++] = nm;
        }
        continue;
      }
      if (!rd_is(c, "identifier")) goto badt;
      for (int k = 0; k < n; k++)
        if (!strcmp(names[k], rd_text(r, c))) { /* TVM: "Duplicate vars assigned" */
          tir_error(r->d, rd_span(c), "loop variable '%s' is named twice", names[k]);
          return NULL;
        }
      names[n++] = rd_text(r, c);
    }
    if (star_name && star_cnt < 0) {
      tir_error(r->d, rd_span(left), "%u loop variables for %d loops", nc - 1, ls.n);
      return NULL;
    }
  } else goto badt;
  if (n != ls.n) {
    tir_error(r->d, rd_span(left), "%d loop variables for %d loops", n, ls.n);
    return NULL;
  }
  if (!ts_node_is_null(rd_field(s, "alternative"))) {
    tir_error(r->d, rd_span(rd_field(s, "alternative")), "for-else is not supported");
    return NULL;
  }
  /* a grid nests n loops: n - 1 levels beyond its body's */
  int saved_depth = r->stmt_depth;
  for (int i = 1; i < n; i++)
    if (!enter_stmt(r, s)) {
      r->stmt_depth = saved_depth;
      return NULL;
    }
  /* the step, in the loop var's dtype (it may use outer names only) */
  tir_expr *step = NULL;
  if (ls.step.k != RV_NONE) {
    step = ls.step.k == RV_INT ? rd_convert(r, ls.step, ls.ext[0]->dtype) : rd_as_expr(r, ls.step);
    if (!step) return NULL;
    if (!tir_dtype_is_int(step->dtype) || step->dtype.lanes != 1) {
      tir_error(r->d, ls.step.sp, "a loop step must be an integer");
      return NULL;
    }
    /* any step is read, as TVM reads it (zero and negative ones too: they
     * are refused where the loop is lowered or run) */
    if (!tir_dtype_eq(step->dtype, ls.ext[0]->dtype)) { /* a constant retyped, as TVM converts a bound */
      int64_t k;
      step = tir_is_const_int(step, &k) && rd_int_fits(ls.ext[0]->dtype, k) ? tir_int(r->c, ls.ext[0]->dtype, k)
                                                                              : tir_cast(r->c, ls.ext[0]->dtype, step);
    }
  }
  int mark = r->nsyms, lmark = r->nloops, frame = r->frame;
  r->frame = mark; /* the loop's vars and body are one scope (TVM's) */
  tir_expr *vars[RD_MAX_GRID];
  for (int i = 0; i < n; i++) {
    tir_dtype t = ls.ext[i]->dtype; /* the loop var takes the extent's dtype, thread bindings too (as TVM) */
    tir_expr *bound = i == 0 ? hinted_loop_var(r, hint, names[0], t, rd_span(left)) : NULL;
    vars[i] = bound ? bound : tir_var(r->c, names[i], t);
    if (!bound) vars[i]->span = rd_span(left);
    if (!tuple_name && !(star_name && i >= star_from && i < star_from + star_cnt))
      rd_push_sym(r, names[i], rv_expr(vars[i], rd_span(left)));
    rd_push_loop(r, vars[i], ls.min[i], ls.ext[i]);
  }
  if (star_name) {
    rval tv = {.k = RV_TUPLE, .is_list = true, .n = star_cnt, .sp = rd_span(left)};
    rval *items = tir_alloc(r->c, sizeof *items * (size_t)(star_cnt + 1));
    for (int i = 0; i < star_cnt; i++) items[i] = rv_expr(vars[star_from + i], rd_span(left));
    tv.items = items;
    rd_push_sym(r, star_name, tv);
  }
  if (tuple_name) {
    rval tv = {.k = RV_TUPLE, .n = n, .sp = rd_span(left)};
    rval *items = tir_alloc(r->c, sizeof *items * (size_t)n);
    for (int i = 0; i < n; i++) items[i] = rv_expr(vars[i], rd_span(left));
    tv.items = items;
    rd_push_sym(r, tuple_name, tv);
  }
  r->loop_depth++;
  tir_stmt *body = rd_stmts(r, rd_field(s, "body"), 0);
  r->loop_depth--;
  rd_pop_syms(r, mark);
  r->frame = frame;
  r->nloops = lmark;
  r->stmt_depth = saved_depth;
  if (!body) return NULL;
  for (int i = n - 1; i >= 0; i--) {
    body = tir_for(r->c, vars[i], ls.min[i], ls.ext[i], ls.kind, ls.thread, i == n - 1 ? ls.annots : NULL, body);
    body->span = rd_span(s);
    body->u.loop.step = step;
    body->u.loop.ext_form = ls.grid ? TIR_EXT_GRID : TIR_EXT_RANGE;
  }
  return body;
badt:
  tir_error(r->d, rd_span(left), "loop targets must be names");
  return NULL;
}

/* ---- if / while ---- */

/* a Python int as a T.If or while condition: TVM's IntImm of it (int32,
 * int64 past that) */
static tir_expr *py_int_cond(rd *r, int64_t v) {
  return v >= INT32_MIN && v <= INT32_MAX ? tir_i32(r->c, v) : tir_int(r->c, TIR_INT64, v);
}

/* a Python `if`/`elif` on a Python int: TVM's parser takes the branch
 * only on a Python bool ("If condition must be a boolean expression") */
static bool py_int_if(rd *r, rval *py) {
  if (py->k != RV_INT) return false;
  tir_error(r->d, py->sp, "an if's condition must be a bool; this is the Python int %lld (TVM refuses it: compare "
                          "it, or write T.int32(%lld) for a TIR int)", (long long)py->i, (long long)py->i);
  py->k = RV_ERR;
  return true;
}

/* an if's condition may also be a scalar int (TVM accepts `if n:`, true
 * when not zero, and keeps it so) */
static tir_expr *condition(rd *r, TSNode n, rval *py, bool int_ok) {
  rval v = rd_eval(r, n);
  *py = v;
  if (v.k == RV_BOOL || v.k == RV_INT) return NULL;
  if (v.k == RV_ERR) return NULL;
  tir_expr *e = rd_as_expr(r, v);
  if (e && !tir_dtype_is_bool(e->dtype) && !(int_ok && tir_dtype_is_int(e->dtype) && e->dtype.lanes == 1)) {
    char b[32];
    tir_error(r->d, v.sp, "a condition must be a bool, got %s", tir_dtype_str(e->dtype, b));
    py->k = RV_ERR;
    return NULL;
  }
  if (!e) py->k = RV_ERR;
  return e;
}

static tir_stmt *if_clause(rd *r, TSNode ifs, TSNode c, uint32_t next, tir_expr *pre);

/* the if chain starting at the first elif/else clause at or after child i
 * of the if_statement; each elif nests one level deeper */
static tir_stmt *else_chain(rd *r, TSNode ifs, uint32_t i) {
  uint32_t cnt = rd_child_count(ifs);
  for (; i < cnt; i++) {
    TSNode c = rd_child(ifs, i);
    if (!rd_is(c, "elif_clause") && !rd_is(c, "else_clause")) continue;
    if (rd_is(c, "else_clause")) return rd_body(r, rd_field(c, "body"), 0);
    if (!enter_nest(r, c)) return NULL;
    if (!enter_stmt(r, c)) {
      r->nest--;
      return NULL;
    }
    tir_stmt *s = if_clause(r, ifs, c, i + 1, NULL);
    r->stmt_depth--;
    r->nest--;
    return s;
  }
  return NULL;
}

/* an `if` or `elif` clause c of the if_statement ifs: its condition and
 * consequence, then the else chain from child `next` on */
static tir_stmt *if_clause(rd *r, TSNode ifs, TSNode c, uint32_t next, tir_expr *pre) {
  rval py = {.k = RV_EXPR};
  tir_expr *cond = pre ? pre : condition(r, rd_field(c, "condition"), &py, true);
  if (py.k == RV_ERR || (!cond && py_int_if(r, &py))) return NULL;
  if (!cond) return py.i ? rd_body(r, rd_field(c, "consequence"), 0) : else_chain(r, ifs, next);
  tir_stmt *then_s = rd_body(r, rd_field(c, "consequence"), 0);
  int errs = r->d ? r->d->nerrors : 0;
  tir_stmt *else_s = else_chain(r, ifs, next);
  if (!then_s) return NULL;
  /* an elif on a Python false (and nothing after it): TVM's else is an
   * empty body, T.evaluate(0) */
  bool more = false;
  for (uint32_t i = next; i < rd_child_count(ifs) && !more; i++)
    more = rd_is(rd_child(ifs, i), "elif_clause") || rd_is(rd_child(ifs, i), "else_clause");
  if (!else_s && more && (!r->d || r->d->nerrors == errs)) else_s = tir_evaluate(r->c, tir_i32(r->c, 0));
  tir_stmt *s = tir_if(r->c, cond, then_s, else_s);
  s->span = rd_span(c);
  return s;
}

/* the branch of an if on a Python constant, read into the enclosing list
 * (statement idx of list): TVM's parser runs the Python if */
static tir_stmt *splice_branch(rd *r, TSNode body, TSNode list, uint32_t idx, bool *rest_used) {
  if (r->nsplice >= (int)(sizeof r->splice / sizeof r->splice[0])) {
    tir_error(r->d, rd_span(body), "ifs on Python constants nested too deeply (more than 64)");
    return NULL;
  }
  int mark = r->nsplice;
  r->splice[r->nsplice++] = (struct rd_splice){body, list, idx + 1};
  *rest_used = true;
  r->in_rest = true;
  tir_stmt *s = rd_stmts(r, body, 0);
  r->nsplice = mark; /* consumed at the branch's end, or left by an error */
  return s;
}

static NOINLINE tir_stmt *if_stmt(rd *r, TSNode s, TSNode list, uint32_t idx, bool *rest_used) {
  /* if / elif clauses on Python constants: the clause taken is spliced */
  uint32_t cnt = rd_child_count(s), next = 0;
  TSNode c = s;
  for (;;) {
    rval py;
    tir_expr *e = condition(r, rd_field(c, "condition"), &py, true);
    if (py.k == RV_ERR || (!e && py_int_if(r, &py))) return NULL;
    if (e) { /* a TIR condition: an if (an elif after Python-false clauses nests one level, as else_chain) */
      if (ts_node_eq(c, s)) return if_clause(r, s, s, 0, e);
      if (!enter_nest(r, c)) return NULL;
      if (!enter_stmt(r, c)) {
        r->nest--;
        return NULL;
      }
      tir_stmt *st = if_clause(r, s, c, next, e);
      r->stmt_depth--;
      r->nest--;
      return st;
    }
    if (py.i) return splice_branch(r, rd_field(c, "consequence"), list, idx, rest_used);
    TSNode nx = {0}; /* false: the next elif or else */
    for (; next < cnt && ts_node_is_null(nx); next++) {
      TSNode k = rd_child(s, next);
      if (rd_is(k, "elif_clause") || rd_is(k, "else_clause")) nx = k;
    }
    if (ts_node_is_null(nx)) return NULL; /* nothing taken */
    if (rd_is(nx, "else_clause")) return splice_branch(r, rd_field(nx, "body"), list, idx, rest_used);
    c = nx;
  }
}

/* `with T.Then():` or `with T.Else():` as a statement of a T.If frame's
 * body: its body, or a null node */
static TSNode frame_body(rd *r, TSNode st, const char *name) {
  TSNode none = {0};
  if (!rd_is(st, "with_statement")) return none;
  TSNode clause = rd_child(st, 0);
  if (!rd_is(clause, "with_clause") || rd_child_count(clause) != 1) return none;
  TSNode call = rd_field(rd_child(clause, 0), "value");
  const char *tn = rd_is(call, "call") ? rd_t_name(r, rd_field(call, "function")) : NULL;
  TSNode args = rd_field(call, "arguments");
  if (!tn || strcmp(tn, name) || rd_child_count(args) != 0) return none;
  return rd_field(st, "body");
}

/* TVM's frame form of an if: `with T.If(c):` over `with T.Then():` and an
 * optional `with T.Else():` (the same IfThenElse as `if c:`) */
static tir_stmt *if_frame(rd *r, TSNode call, TSNode body) {
  static const char *const P[] = {"condition"};
  TSNode cn[1];
  int given = rd_arg_nodes(r, rd_field(call, "arguments"), P, 1, cn);
  if (given < 0) return NULL;
  if (given != 1) {
    tir_error(r->d, rd_span(call), "T.If expects one condition");
    return NULL;
  }
  uint32_t n = rd_child_count(body);
  TSNode th = n >= 1 ? frame_body(r, rd_child(body, 0), "Then") : (TSNode){0};
  TSNode el = n == 2 ? frame_body(r, rd_child(body, 1), "Else") : (TSNode){0};
  if (ts_node_is_null(th) || (n == 2 && ts_node_is_null(el)) || n > 2) {
    tir_error(r->d, rd_span(call), "a T.If frame holds `with T.Then():` and an optional `with T.Else():`, nothing else");
    return NULL;
  }
  rval py;
  tir_expr *cond = condition(r, cn[0], &py, true);
  if (py.k == RV_ERR) return NULL;
  /* a Python bool or int: TVM's T.If frame keeps the if, on T.bool(c) or
   * the int32 c (a Python `if` takes the branch, below) */
  if (!cond) cond = py.k == RV_INT ? py_int_cond(r, py.i) : tir_bool(r->c, py.i != 0);
  tir_stmt *then_s = rd_body(r, th, 0);
  tir_stmt *else_s = n == 2 ? rd_body(r, el, 0) : NULL;
  if (!then_s || (n == 2 && !else_s)) return NULL;
  tir_stmt *s = tir_if(r->c, cond, then_s, else_s);
  s->span = rd_span(call);
  return s;
}

/* a while loop of condition node c over body (a `while` statement or TVM's
 * `with T.While(c):` frame) */
static tir_stmt *while_of(rd *r, TSNode c, TSNode body, tir_span sp) {
  rval py;
  tir_expr *cond = condition(r, c, &py, true);
  if (py.k == RV_ERR) return NULL;
  if (!cond) cond = py.k == RV_INT ? py_int_cond(r, py.i) : tir_bool(r->c, py.i != 0); /* `while 1:` is TVM's int32 1 */
  r->loop_depth++;
  tir_stmt *b = rd_body(r, body, 0);
  r->loop_depth--;
  if (!b) return NULL;
  tir_stmt *w = tir_while(r->c, cond, b);
  w->span = sp;
  return w;
}

static NOINLINE tir_stmt *while_stmt(rd *r, TSNode s) {
  if (!ts_node_is_null(rd_field(s, "alternative"))) {
    tir_error(r->d, rd_span(s), "while-else is not supported");
    return NULL;
  }
  return while_of(r, rd_field(s, "condition"), rd_field(s, "body"), rd_span(s));
}

/* ---- with ---- */

static tir_stmt *init_block(rd *r, TSNode with, TSNode call) {
  if (!rd_direct_in_block(r, with)) {
    tir_error(r->d, rd_span(call), "T.init must be used directly inside a block");
    return NULL;
  }
  if (r->blk->init) {
    tir_error(r->d, rd_span(call), "a block has at most one T.init");
    return NULL;
  }
  TSNode args = rd_field(call, "arguments");
  if (!ts_node_is_null(args) && rd_child_count(args) > 0) { /* TVM's init() takes none */
    tir_error(r->d, rd_span(rd_child(args, 0)), "T.init takes no arguments");
    return NULL;
  }
  rd_block *b = r->blk;
  int mark = r->nsyms, frame = r->frame;
  r->frame = mark;
  tir_stmt *s = rd_stmts(r, rd_field(with, "body"), 0);
  rd_pop_syms(r, mark);
  r->frame = frame;
  if (s) b->init = s;
  return NULL;
}


#define RD_MAX_WITH_ITEMS 64

static NOINLINE tir_stmt *with_one(rd *r, TSNode s, TSNode item, bool last);

/* `with a, b, c: body` as Python reads it, `with a: with b: with c: body` */
static NOINLINE tir_stmt *with_stmt(rd *r, TSNode s) {
  TSNode clause = rd_child(s, 0);
  uint32_t n = rd_is(clause, "with_clause") ? rd_child_count(clause) : 0;
  if (n == 0) {
    tir_error(r->d, rd_span(s), "unsupported with statement");
    return NULL;
  }
  if (n > RD_MAX_WITH_ITEMS) {
    tir_error(r->d, rd_span(s), "a with statement of more than %d items", RD_MAX_WITH_ITEMS);
    return NULL;
  }
  return with_item(r, s, 0);
}

static tir_stmt *with_item(rd *r, TSNode s, uint32_t k) {
  TSNode clause = rd_child(s, 0);
  bool last = k + 1 == rd_child_count(clause);
  TSNode saved = r->with_node;
  uint32_t saved_next = r->with_next;
  r->with_node = s;
  r->with_next = last ? 0 : k + 1;
  tir_stmt *st = with_one(r, s, rd_child(clause, k), last);
  r->with_node = saved;
  r->with_next = saved_next;
  return st;
}

static NOINLINE tir_stmt *with_one(rd *r, TSNode s, TSNode item, bool last) {
  TSNode body = rd_field(s, "body");
  TSNode call = rd_field(item, "value");
  if (rd_is(call, "as_pattern")) {
    /* `with T.launch_thread("blockIdx.x", n) as bx:` (TVM prints a launch
     * so when its var is used after the scope's first statement) */
    TSNode inner = rd_child(call, 0), alias = rd_field(call, "alias");
    const char *itn = rd_is(inner, "call") ? rd_t_name(r, rd_field(inner, "function")) : NULL;
    TSNode id = ts_node_is_null(alias) ? alias : rd_child(alias, 0);
    if (itn && !strcmp(itn, "launch_thread") && rd_is(id, "identifier")) {
      rd_args a;
      if (!rd_eval_call_args(r, inner, &a)) return NULL;
      a.sp = rd_span(inner);
      bool ru;
      int mark = r->nsyms, frame = r->frame;
      r->frame = mark;
      tir_stmt *st = launch(r, &a, rd_text(r, id), s, 0, &ru, body);
      rd_pop_syms(r, mark); /* the var is the scope's */
      r->frame = frame;
      return st;
    }
    tir_error(r->d, rd_span(call), "'with ... as' is supported for T.launch_thread only; assign instead (x = T.allocate(...))");
    return NULL;
  }
  const char *tn = rd_is(call, "call") ? rd_t_name(r, rd_field(call, "function")) : NULL;
  if (!tn) {
    tir_error(r->d, rd_span(call), "unsupported with statement");
    return NULL;
  }
  if (!last && (!strcmp(tn, r->tirx ? "sblock" : "block") || !strcmp(tn, "init") || !strcmp(tn, "If"))) {
    tir_error(r->d, rd_span(call), "T.%s in a with statement of several items is not supported; nest the withs", tn);
    return NULL;
  }
  if (!strcmp(tn, r->tirx ? "sblock" : "block")) return rd_with_block(r, s, call, tn);
  if (!strcmp(tn, "init")) return init_block(r, s, call);
  if (!strcmp(tn, "If")) return if_frame(r, call, body);
  if (!strcmp(tn, "While")) { /* TVM's frame form of a while loop */
    static const char *const P[] = {"condition"};
    TSNode cn[1];
    int given = rd_arg_nodes(r, rd_field(call, "arguments"), P, 1, cn);
    if (given < 0) return NULL;
    if (given != 1) {
      tir_error(r->d, rd_span(call), "T.While expects one condition");
      return NULL;
    }
    return while_of(r, cn[0], body, rd_span(call));
  }
  rd_args a;
  const char *ivtag;
  if (!strcmp(tn, "attr") && iter_var_attr(r, call, &a, &ivtag)) { /* with T.attr(T.iter_var(...), ...): */
    if (!ivtag) return NULL;
    tir_stmt *st = attr_stmt(r, &a, body, 0, true);
    if (st) st->u.attr.thread_tag = tir_strdup(r->c, ivtag);
    return st;
  }
  if (!strcmp(tn, "attr") || !strcmp(tn, "launch_thread") || !strcmp(tn, "Assert") || !strcmp(tn, "hint")) {
    if (!rd_eval_call_args(r, call, &a)) return NULL;
    a.sp = rd_span(call);
    rd_kw_positional(r, tn, &a);
    if (strcmp(tn, "hint") && strcmp(tn, "Assert") && !rd_no_kwargs(r, &a, tn)) return NULL;
    bool ru;
    if (!strcmp(tn, "attr")) return attr_stmt(r, &a, body, 0, true);
    if (!strcmp(tn, "hint")) return hint_stmt(r, &a, body, 0, true);
    if (!strcmp(tn, "launch_thread")) return launch(r, &a, NULL, s, 0, &ru, body);
    rval cond, msg;
    if (!assert_args(r, &a, &cond, &msg)) return NULL;
    return assert_stmt(r, cond, msg, a.sp, s, 0, &ru, body);
  }
  rd_eval(r, call); /* reports unknown names */
  if (!tir_diag_has_errors(r->d)) tir_error(r->d, rd_span(call), "T.%s cannot be used in a with statement", tn);
  return NULL;
}

/* `assert c, msg` */
static NOINLINE tir_stmt *python_assert(rd *r, TSNode s, TSNode list, uint32_t idx, bool *rest_used) {
  TSNode c = rd_child(s, 0), m = rd_child(s, 1);
  rval msg = ts_node_is_null(m) ? (rval){.k = RV_NONE} : rd_eval(r, m);
  rval cond = rd_eval(r, c);
  if (cond.k == RV_ERR || msg.k == RV_ERR) return NULL;
  return assert_stmt(r, cond, msg, rd_span(s), list, idx, rest_used, (TSNode){0});
}

/* `type[i, j] = v`: a store to a buffer named type, which tree-sitter's
 * grammar parses as Python 3.12's type alias statement (`type X[T] = ...`);
 * Python reads it as the store, and so does TVM */
static tir_stmt *type_alias_store(rd *r, TSNode s) {
  TSNode left = rd_field(s, "left"), right = rd_field(s, "right");
  TSNode ix = !ts_node_is_null(left) && rd_child_count(left) == 1 ? rd_child(left, 0) : (TSNode){0};
  TSNode val = !ts_node_is_null(right) && rd_child_count(right) == 1 ? rd_child(right, 0) : (TSNode){0};
  rd_sym *sym = rd_lookup(r, "type");
  if (ts_node_is_null(ix) || !rd_is(ix, "list") || ts_node_is_null(val) || !sym || sym->val.k != RV_BUFFER) {
    tir_error(r->d, rd_span(s), "unsupported statement (a Python type alias, `type X = ...`)");
    return NULL;
  }
  uint32_t n = rd_child_count(ix);
  if (n < 1 || n > 64) {
    tir_error(r->d, rd_span(ix), "buffer 'type' indexed with %u indices", n);
    return NULL;
  }
  rval *items = tir_alloc(r->c, sizeof *items * n);
  for (uint32_t i = 0; i < n; i++)
    if ((items[i] = rd_eval(r, rd_child(ix, i))).k == RV_ERR) return NULL;
  rval tgt = rd_buffer_element(r, sym->val.buf, items, (int)n, rd_span(ix));
  rval value;
  if (rd_is(val, "generic_type")) {
    /* the value B[i, j] alone, which the grammar parses as a generic type
     * B[T1, T2]: the load of B, each parameter an index */
    TSNode id = rd_child(val, 0), tp = rd_child(val, 1);
    uint32_t m = !ts_node_is_null(tp) && rd_is(tp, "type_parameter") ? rd_child_count(tp) : 0;
    rd_sym *bs = !ts_node_is_null(id) && rd_is(id, "identifier") ? rd_lookup(r, rd_text(r, id)) : NULL;
    bool plain = m >= 1 && m <= 64 && bs && bs->val.k == RV_BUFFER;
    for (uint32_t i = 0; plain && i < m; i++) {
      TSNode t = rd_child(tp, i);
      plain = rd_is(t, "type") && rd_child_count(t) == 1 && !rd_is(rd_child(t, 0), "constrained_type");
    }
    if (!plain) {
      tir_error(r->d, rd_span(val), "the value stored to buffer 'type' is read as a Python type here (tree-sitter's "
                                    "type alias statement): write it as an expression, e.g. in parentheses");
      return NULL;
    }
    rval *li = tir_alloc(r->c, sizeof *li * m);
    for (uint32_t i = 0; i < m; i++)
      if ((li[i] = rd_eval(r, rd_child(rd_child(tp, i), 0))).k == RV_ERR) return NULL;
    value = rd_buffer_element(r, bs->val.buf, li, (int)m, rd_span(val));
  } else {
    value = rd_eval(r, val);
  }
  return store_to(r, tgt, rd_span(ix), value, NULL, rd_span(s));
}

static tir_stmt *stmt_at(rd *r, TSNode s, TSNode list, uint32_t idx, bool *rest_used) {
  const char *t = ts_node_type(s);
  if (!strcmp(t, "expression_statement")) return expr_stmt(r, s, list, idx, rest_used);
  if (!strcmp(t, "for_statement")) return for_stmt(r, s);
  if (!strcmp(t, "if_statement")) return if_stmt(r, s, list, idx, rest_used);
  if (!strcmp(t, "while_statement")) return while_stmt(r, s);
  if (!strcmp(t, "with_statement")) return with_stmt(r, s);
  if (!strcmp(t, "pass_statement")) return NULL;
  if (!strcmp(t, "break_statement") || !strcmp(t, "continue_statement")) return jump_stmt(r, t[0] == 'b', rd_span(s));
  if (!strcmp(t, "return_statement")) return return_stmt(r, s);
  if (!strcmp(t, "assert_statement")) return python_assert(r, s, list, idx, rest_used);
  if (!strcmp(t, "type_alias_statement")) return type_alias_store(r, s);
  if (!strcmp(t, "decorated_definition")) {
    rd_local_macro(r, s);
    return NULL;
  }
  tir_error(r->d, rd_span(s), "unsupported statement (%s)", t);
  return NULL;
}
