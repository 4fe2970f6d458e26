/* c_aot.c - what the code generators record for the AOT description
 * (tir/aot.h) as they print: the arguments of each function with their
 * slots in the packed argument block (one layout routine, used both by the
 * printed SYM_packed entry point and by the description), each buffer
 * access printed, and the temporaries.  Shared by the C and CUDA printers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_c/c_printer.h"
#include "tir/script.h"
#include "tir/visit.h"

static void *xcalloc(size_t n, size_t sz) {
  void *p = calloc(n ? n : 1, sz);
  if (!p) abort();
  return p;
}

static char *xstrdup(const char *s) {
  char *p = strdup(s ? s : "");
  if (!p) abort();
  return p;
}

/* ---- accesses ---- */

void cg_note_access(cg *g, const tir_expr *data, int mask) {
  cg_meta *m = g->meta;
  if (!m || !data) return;
  tir_ptrmap_put(&m->acc, data, tir_ptrmap_get(&m->acc, data, 0) | mask);
}

int cg_access_of(const cg_meta *m, const tir_expr *data) { return m ? (int)tir_ptrmap_get(&m->acc, data, 0) : 0; }

void cg_meta_free(cg_meta *m) {
  tir_ptrmap_free(&m->acc);
  memset(m, 0, sizeof *m);
}

/* ---- sizes ---- */


/* Symbolic sizes are written as expressions over the size vars in the
 * subset a loader can evaluate: integers, names, + - * // % and
 * parentheses (TVMScript spelling, no casts). */
typedef struct sbuf {
  char *s;
  size_t len, cap;
} sbuf;

static void sb_puts(sbuf *b, const char *s) {
  size_t n = strlen(s);
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    b->s = realloc(b->s, b->cap);
    if (!b->s) abort();
  }
  memcpy(b->s + b->len, s, n + 1);
  b->len += n;
}

static bool simple(const char *s) {
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return false;
  return true;
}

/* a size expression's text, casts dropped */
static void size_text(sbuf *b, const tir_expr *e) {
  int64_t v;
  char num[32];
  if (tir_is_const_int(e, &v)) {
    snprintf(num, sizeof num, "%lld", (long long)v);
    sb_puts(b, num);
    return;
  }
  if (e->kind == TIR_CAST) {
    size_text(b, e->u.un.a);
    return;
  }
  if (e->kind == TIR_VAR) {
    sb_puts(b, e->u.var.name);
    return;
  }
  const char *op = e->kind == TIR_ADD ? " + " : e->kind == TIR_SUB ? " - " : e->kind == TIR_MUL ? " * "
                 : e->kind == TIR_FLOORDIV ? " // " : e->kind == TIR_FLOORMOD ? " % " : NULL;
  if (!op) { /* outside the subset: TVMScript's own text */
    char *t = tir_print_expr(e);
    sb_puts(b, "(");
    sb_puts(b, t ? t : "?");
    sb_puts(b, ")");
    free(t);
    return;
  }
  sb_puts(b, "(");
  size_text(b, e->u.bin.a);
  sb_puts(b, op);
  size_text(b, e->u.bin.b);
  sb_puts(b, ")");
}

/* k * e[0] * ... * e[n-1] (+ add), folded where constant */
static tir_aot_size product(int64_t k, const tir_expr *const *e, int n, int64_t add) {
  tir_aot_size r = {k, NULL};
  sbuf b = {0};
  bool overflow = false;
  for (int i = 0; i < n; i++) {
    int64_t v;
    if (tir_is_const_int(e[i], &v)) {
      overflow |= __builtin_mul_overflow(r.value, v, &r.value);
      continue;
    }
    sbuf t = {0};
    size_text(&t, e[i]);
    if (b.len) sb_puts(&b, " * ");
    bool paren = !simple(t.s) && !(t.s[0] == '(');
    if (paren) sb_puts(&b, "(");
    sb_puts(&b, t.s);
    if (paren) sb_puts(&b, ")");
    free(t.s);
  }
  if (!b.len && !overflow) {
    r.value += add;
    return r;
  }
  char head[48];
  snprintf(head, sizeof head, "%lld * ", (long long)r.value);
  sbuf out = {0};
  if (r.value != 1 || overflow) sb_puts(&out, head);
  sb_puts(&out, b.s ? b.s : "1");
  if (add) {
    snprintf(head, sizeof head, " + %lld", (long long)add);
    sb_puts(&out, head);
  }
  free(b.s);
  r.expr = out.s;
  r.value = 0;
  return r;
}

tir_aot_size cg_aot_size(const tir_expr *e) { return product(1, &e, 1, 0); }

tir_aot_size cg_aot_product(tir_ctx *c, const tir_expr *const *e, int n) {
  (void)c;
  return product(1, e, n, 0);
}

/* bytes spanned by buffer b: elem * prod(shape) when compact, else
 * elem * (1 + sum (shape_d - 1) * stride_d); 0 when an extent is 0 */
static tir_aot_size buffer_bytes(const tir_buffer *b) {
  int64_t elem = tir_dtype_bytes(b->dtype), v;
  for (int d = 0; d < b->ndim; d++)
    if (tir_is_const_int(b->shape[d], &v) && v == 0) return (tir_aot_size){0, NULL};
  if (b->nstrides != b->ndim || !b->ndim) return product(elem, (const tir_expr *const *)b->shape, b->ndim, 0);
  int64_t span = 1;
  bool konst = true;
  for (int d = 0; d < b->ndim && konst; d++) {
    int64_t s;
    if (tir_is_const_int(b->shape[d], &v) && tir_is_const_int(b->strides[d], &s)) span += (v - 1) * s;
    else konst = false;
  }
  if (konst) return (tir_aot_size){span * elem, NULL};
  sbuf out = {0};
  char head[48];
  snprintf(head, sizeof head, "%lld * (1", (long long)elem);
  sb_puts(&out, head);
  for (int d = 0; d < b->ndim; d++) {
    sb_puts(&out, " + (");
    size_text(&out, b->shape[d]);
    sb_puts(&out, " - 1) * ");
    size_text(&out, b->strides[d]);
  }
  sb_puts(&out, ")");
  return (tir_aot_size){0, out.s};
}

/* the strides of b in elements: its own, or compact row-major */
static tir_aot_size *strides_of(const tir_buffer *b) {
  tir_aot_size *st = xcalloc((size_t)b->ndim, sizeof *st);
  for (int i = 0; i < b->ndim; i++)
    st[i] = b->nstrides == b->ndim ? cg_aot_size(b->strides[i])
                                   : product(1, (const tir_expr *const *)b->shape + i + 1, b->ndim - i - 1, 0);
  return st;
}

/* ---- arguments and the packed layout ---- */

/* The packed argument block: each argument in parameter order at the next
 * offset aligned to its size (pointers 8 bytes; scalars their dtype's
 * bytes, a bool one), the block aligned to its largest slot. */
void cg_pack_layout(tir_aot_func *fn) {
  size_t off = 0, align = 1;
  for (int i = 0; i < fn->nargs; i++) {
    tir_aot_arg *a = &fn->args[i];
    size_t sz = a->is_buffer ? sizeof(void *) : (size_t)tir_dtype_bytes(a->dtype);
    if (sz == 0) sz = 1;
    size_t al = sz >= 8 ? 8 : sz >= 4 ? 4 : sz >= 2 ? 2 : 1;
    off = (off + al - 1) / al * al;
    a->offset = off;
    a->size = sz;
    a->align = al;
    off += sz;
    if (al > align) align = al;
  }
  fn->args_align = align;
  fn->args_bytes = (off + align - 1) / align * align;
}

static void bind_size_var(const tir_func *f, const tir_expr *v, tir_aot_arg *a) {
  a->bound_arg = a->bound_dim = -1;
  for (int i = 0; i < f->nparams; i++) {
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b) continue;
    for (int d = 0; d < b->ndim; d++)
      if (b->shape[d] == v) {
        a->bound_arg = i, a->bound_dim = d, a->bound_field = "shape";
        return;
      }
    for (int d = 0; d < b->nstrides; d++)
      if (b->strides[d] == v) {
        a->bound_arg = i, a->bound_dim = d, a->bound_field = "strides";
        return;
      }
    if (b->elem_offset == v) {
      a->bound_arg = i, a->bound_dim = 0, a->bound_field = "elem_offset";
      return;
    }
  }
}

/* fn's arguments: f's parameters, then its size vars (extra), with the C
 * names the printer gave them */
void cg_aot_args(cg *g, const tir_func *f, const var_list *extra, tir_aot_func *fn) {
  fn->nargs = f->nparams + extra->n;
  fn->args = xcalloc((size_t)fn->nargs, sizeof *fn->args);
  for (int i = 0; i < f->nparams; i++) {
    tir_aot_arg *a = &fn->args[i];
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    a->index = i;
    a->bound_arg = a->bound_dim = -1;
    if (!b) {
      const tir_expr *p = f->params[i];
      const char *pn = cg_lookup(g, &f->params[i]); /* the C printer's name of parameter i */
      a->name = xstrdup(pn ? pn : cg_lookup(g, p));
      a->dtype = p->dtype;
      a->bytes.value = tir_dtype_bytes(p->dtype);
      continue;
    }
    const char *pn = cg_lookup(g, &f->params[i]);
    a->name = xstrdup(pn ? pn : cg_lookup(g, b->data));
    a->is_buffer = true;
    a->dtype = b->dtype;
    a->ndim = b->ndim;
    a->shape = xcalloc((size_t)b->ndim, sizeof *a->shape);
    for (int d = 0; d < b->ndim; d++) a->shape[d] = cg_aot_size(b->shape[d]);
    a->strides = strides_of(b);
    a->bytes = buffer_bytes(b);
    a->access = cg_access_of(g->meta, b->data);
  }
  for (int j = 0; j < extra->n; j++) {
    tir_aot_arg *a = &fn->args[f->nparams + j];
    const tir_expr *v = extra->vars[j];
    a->index = f->nparams + j;
    a->name = xstrdup(cg_lookup(g, v));
    a->dtype = v->dtype;
    a->bytes.value = tir_dtype_bytes(v->dtype);
    bind_size_var(f, v, a);
  }
  cg_pack_layout(fn);
}

/* SYM_packed: reads each argument from its slot and calls SYM.  `decl` is
 * the C declaration prefix (e.g. "int32_t" or "extern \"C\" int"); `extra`
 * an additional trailing parameter and argument (CUDA's stream), or NULL. */
void cg_aot_packed(cg *g, const tir_aot_func *fn, cg_text *out, const char *decl, const char *extra_param,
                   const char *extra_arg) {
  if (g->failed) return; /* the error is reported where it arose: no second one without a position */
  const char *args = cg_tmp(g, "args"), *ws = cg_tmp(g, "workspace"), *base = cg_tmp(g, "packed");
  cg_text_printf(out, "\n/* %s: the arguments read from a packed block at the offsets of the AOT metadata */\n",
                 fn->packed_symbol);
  cg_text_printf(out, "%s %s(const void *%s, void *%s%s%s) {\n", decl, fn->packed_symbol, args, ws,
                 extra_param ? ", " : "", extra_param ? extra_param : "");
  if (fn->nargs) cg_text_printf(out, "  const char *%s = (const char *)%s;\n", base, args);
  else cg_text_printf(out, "  (void)%s;\n", args); /* nothing to read from it (nvcc: no variable set and unused) */
  cg_text_printf(out, "  (void)%s;\n", ws);
  cg_text call = {0};
  for (int i = 0; i < fn->nargs; i++) {
    const tir_aot_arg *a = &fn->args[i];
    char ty[32];
    if (a->dtype.code == TIR_TC_HANDLE && !a->is_buffer) strcpy(ty, "void *");
    else if (!cg_type(g, a->dtype, ty, (tir_span){0, 0})) {
      cg_text_free(&call);
      return;
    }
    cg_text_printf(out, "  %s%s%s;\n", ty, a->is_buffer ? " *" : (ty[strlen(ty) - 1] == '*' ? "" : " "), a->name);
    cg_text_printf(out, "  memcpy(&%s, %s + %zu, sizeof %s);\n", a->name, base, a->offset, a->name);
    cg_text_printf(&call, "%s%s", i ? ", " : "", a->name);
  }
  if (extra_arg) cg_text_printf(&call, "%s%s", fn->nargs ? ", " : "", extra_arg);
  if (g->ws_param) cg_text_printf(&call, "%s(uint8_t *)%s", fn->nargs || extra_arg ? ", " : "", ws);
  cg_text_printf(out, "  return %s(%s);\n}\n", fn->symbol, call.s ? call.s : "");
  cg_text_free(&call);
}

/* ---- the description's lifetime ---- */

static void free_size(tir_aot_size *s) { free(s->expr); }

void tir_aot_free(tir_aot_module *a) {
  if (!a) return;
  for (int i = 0; i < a->nfuncs; i++) {
    tir_aot_func *f = &a->funcs[i];
    free(f->name);
    free(f->symbol);
    free(f->packed_symbol);
    for (int j = 0; j < f->nargs; j++) {
      tir_aot_arg *x = &f->args[j];
      free(x->name);
      for (int d = 0; d < x->ndim; d++) {
        free_size(&x->shape[d]);
        free_size(&x->strides[d]);
      }
      free(x->shape);
      free(x->strides);
      free_size(&x->bytes);
    }
    free(f->args);
    for (int j = 0; j < f->ntemps; j++) {
      free(f->temps[j].name);
      free(f->temps[j].scope);
      free(f->temps[j].storage);
      free_size(&f->temps[j].bytes);
    }
    free(f->temps);
    for (int j = 0; j < f->nkernels; j++) {
      tir_aot_kernel *k = &f->kernels[j];
      free(k->name);
      for (int d = 0; d < 3; d++) {
        free_size(&k->grid[d]);
        free_size(&k->block[d]);
      }
      free_size(&k->threads_per_block);
      free_size(&k->total_threads);
      for (int p = 0; p < k->nparams; p++) free(k->params[p].name);
      free(k->params);
      for (int p = 0; p < k->nreads; p++) free(k->reads[p]);
      for (int p = 0; p < k->nwrites; p++) free(k->writes[p]);
      free(k->reads);
      free(k->writes);
    }
    free(f->kernels);
  }
  free(a->funcs);
  free(a);
}

tir_aot_module *cg_aot_module_new(tir_aot_target t, int nfuncs) {
  tir_aot_module *a = xcalloc(1, sizeof *a);
  a->target = t;
  a->funcs = xcalloc((size_t)nfuncs, sizeof *a->funcs);
  return a;
}

char *cg_strdup(const char *s) { return xstrdup(s); }
void *cg_calloc(size_t n, size_t sz) { return xcalloc(n, sz); }

const char *cg_func_symbol(tir_ctx *c, const tir_func *f, tir_diag *d) {
  const char *sym = tir_func_symbol(f);
  bool ok = sym && *sym && !(*sym >= '0' && *sym <= '9');
  for (const char *p = sym; ok && *p; p++)
    ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_';
  if (!ok) {
    tir_error(d, f->span, "function symbol '%s' is not a C identifier", sym ? sym : "");
    return NULL;
  }
  if (!cg_reserved_symbol(sym)) return sym;
  size_t n = strlen(sym);
  char *r = tir_alloc(c, n + 8);
  snprintf(r, n + 8, "%s_fn", sym);
  tir_diag_add(d, TIR_SEV_WARNING, f->span,
               "function symbol '%s' is a name C or CUDA reserves: emitted as '%s' (choose one with --symbol)", sym, r);
  return r;
}

/* the symbols of m's functions as emitted (cg_func_symbol), checked: no two
 * alike, none another's SYMBOL_packed; NULL with an error naming both */
typedef struct sym_ix { const char *s; int i; } sym_ix;

static int cmp_sym_ix(const void *a, const void *b) {
  const sym_ix *x = a, *y = b;
  int c = strcmp(x->s, y->s);
  return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* the first entry of sorted v (n) whose symbol is s, or -1 */
static int first_of(const sym_ix *v, int n, const char *s) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (strcmp(v[mid].s, s) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && !strcmp(v[lo].s, s) ? lo : -1;
}

const char **cg_module_symbols(tir_ctx *c, const tir_module *m, tir_diag *d) {
  if (m->ntext_funcs) { /* kept as text: no code of it, and no silent drop */
    const tir_text_func *t = &m->text_funcs[0];
    tir_error(d, t->span, "@%s '%s' is kept as text: tirc generates code for TIR functions only (a module "
                          "holding a Relax function has no C or CUDA form here; emit its @T.prim_func "
                          "functions from a module without it)", t->kind, t->name);
    return NULL;
  }
  const char **syms = tir_alloc(c, sizeof *syms * (size_t)(m->nfuncs + 1));
  for (int i = 0; i < m->nfuncs; i++)
    if (!(syms[i] = cg_func_symbol(c, m->funcs[i], d))) return NULL;
  /* two functions of one symbol, or one whose symbol is another's SYM_packed:
   * the first function i (in order) that has such a j, the first such j
   * (sorted by symbol, then position: n log n, for modules of thousands) */
  int n = m->nfuncs;
  sym_ix *v = malloc(sizeof *v * (size_t)(n ? n : 1));
  int *pos = malloc(sizeof *pos * (size_t)(n ? n : 1)); /* function i's place in v */
  if (!v || !pos) abort();
  for (int i = 0; i < n; i++) v[i] = (sym_ix){syms[i], i};
  if (n) qsort(v, (size_t)n, sizeof *v, cmp_sym_ix);
  for (int k = 0; k < n; k++) pos[v[k].i] = k;
  bool ok = true;
  for (int i = 0; i < n && ok; i++) {
    int k = pos[i];
    int dup = k + 1 < n && !strcmp(v[k + 1].s, syms[i]) ? v[k + 1].i : -1;
    size_t la = strlen(syms[i]);
    char *packed = malloc(la + 8);
    if (!packed) abort();
    memcpy(packed, syms[i], la);
    memcpy(packed + la, "_packed", 8);
    int pk = first_of(v, n, packed);
    free(packed);
    int pj = pk >= 0 ? v[pk].i : -1;
    if (dup >= 0 && (pj < 0 || dup < pj)) {
      tir_error(d, m->funcs[dup]->span, "functions '%s' (line %d) and '%s' have one global symbol '%s'",
                m->funcs[i]->name, m->funcs[i]->span.line, m->funcs[dup]->name, syms[dup]);
      ok = false;
    } else if (pj >= 0) {
      tir_error(d, m->funcs[pj]->span, "function symbol '%s' is the packed entry point of function '%s' (line %d)",
                syms[pj], m->funcs[i]->name, m->funcs[i]->span.line);
      ok = false;
    }
  }
  free(v);
  free(pos);
  return ok ? syms : NULL;
}

typedef struct {
  tir_ctx *c;
  const char **names;
  int n, cap;
} extern_names;

static bool extern_cb(tir_visitor *v, const tir_expr *e) {
  extern_names *x = v->user;
  if (e->kind == TIR_CALL && (!strcmp(e->u.call.op, "call_extern") || !strcmp(e->u.call.op, "call_pure_extern")) &&
      e->u.call.nargs >= 1 && e->u.call.args[0]->kind == TIR_STRING_IMM) {
    if (x->n == x->cap) {
      x->cap = x->cap ? 2 * x->cap : 16;
      const char **grown = tir_alloc(x->c, sizeof *grown * (size_t)x->cap);
      if (x->n) memcpy(grown, x->names, sizeof *grown * (size_t)x->n);
      x->names = grown;
    }
    x->names[x->n++] = e->u.call.args[0]->u.str;
  }
  return true;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

const char **cg_module_globals(tir_ctx *c, const tir_module *m, const char **syms, int *n) {
  extern_names x = {.c = c};
  for (int i = 0; i < m->nfuncs; i++) {
    if (x.n == x.cap) {
      x.cap = x.cap ? 2 * x.cap : 16;
      const char **grown = tir_alloc(c, sizeof *grown * (size_t)x.cap);
      if (x.n) memcpy(grown, x.names, sizeof *grown * (size_t)x.n);
      x.names = grown;
    }
    x.names[x.n++] = syms[i];
  }
  tir_visitor v = {.expr = extern_cb, .user = &x};
  for (int i = 0; i < m->nfuncs; i++) tir_visit_stmt(&v, m->funcs[i]->body);
  /* sorted, each once: name_taken looks a name up by bsearch (a module of
   * thousands of functions, or of an extern called at thousands of places) */
  if (x.n) qsort(x.names, (size_t)x.n, sizeof *x.names, cmp_name);
  int k = 0;
  for (int i = 0; i < x.n; i++)
    if (!k || strcmp(x.names[k - 1], x.names[i])) x.names[k++] = x.names[i];
  *n = k;
  return x.names;
}

/* ---- prototypes of the functions call_extern calls ----
 * C99 has no implicit declarations: each callee the headers do not declare
 * gets one, from the dtypes of its first call (CUDA: a __device__ one).  A
 * name that is no C identifier, or a callee called with two signatures,
 * is an error at the call. */
typedef struct {
  cg *g;
  const tir_expr **first; /* the first call of each callee */
  int n, cap;
  cg_text *out;
  const char *const *syms; /* the module's C function symbols, or NULL */
  int nsyms;
  const tir_expr *stmt_value; /* the value of the T.evaluate met last (a call whose result is unused) */
} extern_decls;

static bool same_signature(const tir_expr *a, const tir_expr *b) {
  if (!tir_dtype_eq(a->dtype, b->dtype) || a->u.call.nargs != b->u.call.nargs) return false;
  for (int i = 1; i < a->u.call.nargs; i++)
    if (!tir_dtype_eq(a->u.call.args[i]->dtype, b->u.call.args[i]->dtype)) return false;
  return true;
}

static bool c_identifier(const char *n) {
  if (!*n || (*n >= '0' && *n <= '9')) return false;
  for (const char *p = n; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) return false;
  return true;
}

static void proto_type(cg *g, tir_dtype t, tir_span sp, cg_text *out) {
  char ty[32];
  if (t.code == TIR_TC_HANDLE) cg_text_puts(out, t.bits == 0 ? "void " : "void *");
  else if (cg_type(g, t, ty, sp)) cg_text_printf(out, "%s ", ty);
}

void cg_names_add(cg_names *l, const char *name) {
  if (cg_names_has(l, name)) return;
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 8;
    l->v = realloc(l->v, sizeof *l->v * (size_t)l->cap);
    if (!l->v) abort();
  }
  l->v[l->n++] = name;
}

bool cg_names_has(const cg_names *l, const char *name) {
  for (int i = 0; i < l->n; i++)
    if (!strcmp(l->v[i], name)) return true;
  return false;
}

/* CUDA: the host code calls name (cg.host_calls) */
static bool host_called(const cg *g, const char *name) { return g->host_calls && cg_names_has(g->host_calls, name); }

static bool decl_cb(tir_visitor *v, const tir_expr *e) {
  extern_decls *x = v->user;
  if (e->kind != TIR_CALL || (strcmp(e->u.call.op, "call_extern") && strcmp(e->u.call.op, "call_pure_extern")) ||
      e->u.call.nargs < 1 || e->u.call.args[0]->kind != TIR_STRING_IMM)
    return true;
  const char *name = e->u.call.args[0]->u.str;
  if (!c_identifier(name)) {
    cg_error(x->g, e->span, "T.%s: '%s' is not a C identifier", e->u.call.op, name);
    return true;
  }
  if (!cg_libc_check(x->g, e, e == x->stmt_value)) return true;
  static const char *const STDIO[] = {"printf", "fprintf", "puts", "putchar", "fflush", "snprintf", "sprintf", NULL};
  for (int i = 0; STDIO[i]; i++)
    if (!strcmp(name, STDIO[i])) {
      x->g->used_stdio = true; /* <stdio.h> (<cstdio>) is included */
      if (x->g->target->is_cuda && i > 0 && !host_called(x->g, name)) /* a kernel has printf only */
        cg_error(x->g, e->span, "T.%s: '%s' is a C library function that CUDA device code cannot call (a kernel has "
                                "printf only)", e->u.call.op, name);
      return true;
    }
  /* CUDA: a kernel has no C string functions (memcpy and memset it has),
   * and of <stdlib.h> only malloc, free and abs */
  static const char *const HOST_ONLY[] = {"strcmp", "strncmp", "strcpy", "strlen", "memcmp", "memmove",
                                          "div",    "exit",    "abort",  "calloc", "realloc", NULL};
  for (int i = 0; x->g->target->is_cuda && HOST_ONLY[i]; i++)
    if (!strcmp(name, HOST_ONLY[i]) && !host_called(x->g, name)) {
      cg_error(x->g, e->span, "T.%s: '%s' is a C library function that CUDA device code cannot call", e->u.call.op,
               name);
      return true;
    }
  size_t len = strlen(name);
  bool dunder = len > 4 && !strncmp(name, "__", 2) && !strcmp(name + len - 2, "__"); /* __class__: no CUDA builtin */
  if ((!x->g->target->is_cuda || dunder) &&
      ((name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'))) ||
       (!strncmp(name, "atomic", 6) && cg_reserved_name(name)))) {
    cg_error(x->g, e->span, "T.%s: '%s' is a name C reserves for its implementation (a CUDA or compiler builtin?): "
                            "no C header tirc includes declares it", e->u.call.op, name);
    return true;
  }
  /* a name C or CUDA reserves: called as the headers declare it, through a
   * prototype where C's headers do not know it, never where it is no
   * function (a keyword, type, object or constant: `int`, `size_t`, `EOF`;
   * in CUDA a C++ keyword too, where `not(x)` would be !x) */
  char how = cg_c_callee(name);
  if (how == 'x' || (x->g->target->is_cuda && cg_keyword(name))) {
    cg_error(x->g, e->span, "T.%s: '%s' is a %s of %s, not a function: the generated code cannot call it", e->u.call.op,
             name, cg_keyword(name) ? "keyword" : "type, object or constant", how == 'x' ? "C" : "C++ (CUDA)");
    return true;
  }
  if (how == 's' && !x->g->target->is_cuda) x->g->used_stdio = true;
  if (how == 'l' && !x->g->target->is_cuda) x->g->used_malloc = true;
  if (cg_reserved_name(name) && (how != 'p' || x->g->target->is_cuda)) return true; /* declared by the headers */
  /* another function of the host's C library: a kernel cannot call it (the
   * CUDA headers declare it for the host); C calls it as its header
   * declares it, or through a prototype where no header C includes does */
  char host = cg_host_libc(name);
  if (host && x->g->target->is_cuda) {
    cg_error(x->g, e->span, "T.%s: '%s' is a function of the host's C library: CUDA device code cannot call it",
             e->u.call.op, name);
    return true;
  }
  if (host && host != 'p' && !cg_libc_known(name)) { /* its header's declaration, whose signature tirc does not check */
    cg_error(x->g, e->span,
             "T.%s: '%s' is declared by a C library header the generated C includes, with a signature tirc does not "
             "check (the C compiler would refuse a call unlike it): not supported",
             e->u.call.op, name);
    return true;
  }
  if (host == 's') x->g->used_stdio = true;
  if (host == 'l') x->g->used_malloc = true;
  if (host && host != 'p') return true; /* declared by the headers */
  for (int i = 0; i < x->nsyms; i++) {
    size_t k = x->syms[i] ? strlen(x->syms[i]) : 0;
    const char *rest = k && !strncmp(name, x->syms[i], k) ? name + k : NULL; /* SYM, SYM_packed, SYM_kernelN */
    if (rest && (!*rest || !strcmp(rest, "_packed") ||
                 (!strncmp(rest, "_kernel", 7) && rest[7] && strspn(rest + 7, "0123456789") == strlen(rest + 7)))) {
      cg_error(x->g, e->span, "T.%s: '%s' is the name of a function this module defines in the generated code: "
                              "a call of it as an extern function cannot be declared (choose the symbol with --symbol)",
               e->u.call.op, name);
      return true;
    }
  }
  for (int i = 0; i < x->n; i++)
    if (!strcmp(x->first[i]->u.call.args[0]->u.str, name)) {
      if (!same_signature(x->first[i], e))
        cg_error(x->g, e->span, "T.%s: '%s' is called with other argument or result types at line %d", e->u.call.op,
                 name, x->first[i]->span.line);
      return true;
    }
  if (x->n == x->cap) {
    x->cap = x->cap ? 2 * x->cap : 16;
    x->first = realloc(x->first, sizeof *x->first * (size_t)x->cap);
    if (!x->first) abort();
  }
  x->first[x->n++] = e;
  /* CUDA: a kernel's callee, and the host's too where the launcher calls it
   * (a let it computes); __device__ alone where only kernels call it, as the
   * CUDA headers declare theirs (hexp) */
  if (x->g->target->is_cuda)
    cg_text_puts(x->out, host_called(x->g, name) ? "extern \"C\" __host__ __device__ " : "extern \"C\" __device__ ");
  proto_type(x->g, e->dtype, e->span, x->out);
  cg_text_printf(x->out, "%s(", name);
  for (int i = 1; i < e->u.call.nargs; i++) {
    if (i > 1) cg_text_puts(x->out, ", ");
    cg_text out = {0};
    if (e->u.call.args[i]->kind == TIR_STRING_IMM) cg_text_puts(&out, "const char *"); /* a literal (C++: no void *) */
    else proto_type(x->g, e->u.call.args[i]->dtype, e->u.call.args[i]->span, &out);
    if (out.len && out.s[out.len - 1] == ' ') out.s[--out.len] = 0;
    cg_text_puts(x->out, out.s ? out.s : "");
    cg_text_free(&out);
  }
  cg_text_puts(x->out, e->u.call.nargs > 1 ? ");\n" : "void);\n");
  return true;
}

static bool decl_stmt_cb(tir_visitor *v, const tir_stmt *s) {
  extern_decls *x = v->user;
  if (s->kind == TIR_EVALUATE) x->stmt_value = s->u.eval.value; /* visited next */
  return true;
}

void cg_extern_decls(cg *g, const tir_module *m, const char *const *syms, cg_text *out) {
  extern_decls x = {.g = g, .out = out, .syms = syms, .nsyms = syms ? m->nfuncs : 0};
  tir_visitor v = {.expr = decl_cb, .stmt = decl_stmt_cb, .user = &x};
  for (int i = 0; i < m->nfuncs; i++) tir_visit_stmt(&v, m->funcs[i]->body);
  if (x.n) cg_text_puts(out, "\n");
  free(x.first);
}
