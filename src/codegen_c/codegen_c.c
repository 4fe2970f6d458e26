/* codegen_c.c - tir_codegen_c: one self-contained C11 translation unit per
 * lowered module (only <stdint.h>, <string.h> and <math.h>), one function
 * per PrimFunc:
 *
 *   int32_t SYMBOL(T0 *restrict p0, ..., int32_t n)
 *
 * buffer parameters as pointers to their element type and scalar
 * parameters by value, in parameter order, then one int parameter per
 * shape/stride/offset var of a parameter buffer that is not itself a
 * parameter (symbolic shapes); returns 0, or -1 when a T.assert fails.
 * Then `int32_t SYMBOL_packed(const void *args, void *workspace)`, which
 * reads those arguments from a packed block at the offsets that the AOT
 * description (tir/aot.h, recorded by this same walk) gives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_c/c_printer.h"
#include "tir/codegen.h"
#include "tir/visit.h"

static const cg_target c_target = {
    .helper_prefix = "static inline",
    .bool_type = "_Bool",
};

void cg_alias(cg *g, const void *key, const char *name) { cg_push_name(g, key, name); }


bool var_list_has(const var_list *l, const tir_expr *v) { return tir_ptrmap_get(&l->idx, v, 0) != 0; }

void var_list_free(var_list *l) {
  free(l->vars);
  tir_ptrmap_free(&l->idx);
  l->vars = NULL;
  l->n = l->cap = 0;
}

void var_list_add(var_list *l, const tir_expr *v) {
  if (var_list_has(l, v)) return;
  tir_ptrmap_put(&l->idx, v, 1);
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 8;
    l->vars = realloc(l->vars, sizeof *l->vars * (size_t)l->cap);
    if (!l->vars) abort();
  }
  l->vars[l->n++] = v;
}

static bool collect_var(tir_visitor *v, const tir_expr *e) {
  if (e->kind == TIR_VAR) var_list_add(v->user, e);
  return true;
}

static bool is_param(const tir_func *f, const tir_expr *v) {
  for (int i = 0; i < f->nparams; i++)
    if (f->params[i] == v) return true;
  return false;
}

void cg_shape_vars(const tir_func *f, var_list *out) {
  var_list all = {0};
  tir_visitor v = {.expr = collect_var, .user = &all};
  for (int i = 0; i < f->nparams; i++) {
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b) continue;
    for (int d = 0; d < b->ndim; d++) tir_visit_expr(&v, b->shape[d]);
    for (int d = 0; d < b->nstrides; d++) tir_visit_expr(&v, b->strides[d]);
    tir_visit_expr(&v, b->elem_offset);
  }
  for (int i = 0; i < all.n; i++)
    if (!is_param(f, all.vars[i])) var_list_add(out, all.vars[i]);
  var_list_free(&all);
}

/* Parameters and what the calling convention lets the code assume of them
 * (README "Generated code", docs/passes.md "Generated C"):
 *  - a buffer parameter is `T *restrict` unless another parameter has the
 *    same data (two buffers over one data var, or a buffer over a handle
 *    parameter), or the function says T.func_attr({"tir.noalias": False});
 *    the second and later parameters over one data are checked equal to the
 *    first at entry (return -1 otherwise) and the body uses the first;
 *  - a used buffer parameter's data is aligned to its data_alignment (align=,
 *    64 when not given, as TVM's runtime allocates): checked at entry
 *    (return -1 otherwise), then told to the compiler with
 *    __builtin_assume_aligned;
 *  - a symbolic elem_offset of a buffer with offset_factor F > 1 is a
 *    multiple of F: checked at entry (TVM's ArgBinder asserts the same). */
static const void *param_key(const tir_func *f, int i) {
  const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
  return b ? (const void *)b->data : (const void *)f->params[i];
}

/* per parameter: the first parameter over the same data (itself when
 * none), and whether another parameter has the same data (one pass) */
typedef struct param_data {
  int *owner;
  bool *shared;
} param_data;

static param_data param_data_of(const tir_func *f) {
  size_t n = f->nparams > 0 ? (size_t)f->nparams : 1;
  param_data pd = {malloc(sizeof *pd.owner * n), calloc(n, sizeof *pd.shared)};
  if (!pd.owner || !pd.shared) abort();
  tir_ptrmap first = {0}; /* data -> its first parameter + 1 */
  for (int i = 0; i < f->nparams; i++) {
    long j = tir_ptrmap_get(&first, param_key(f, i), 0);
    if (!j) tir_ptrmap_put(&first, param_key(f, i), i + 1);
    pd.owner[i] = j ? (int)j - 1 : i;
    if (j) pd.shared[i] = pd.shared[j - 1] = true;
  }
  tir_ptrmap_free(&first);
  return pd;
}

static void param_data_free(param_data *pd) {
  free(pd->owner);
  free(pd->shared);
}

/* T.func_attr({"tir.noalias": False}) (or "tirx.noalias") */
static bool aliasing_allowed(const tir_func *f) {
  static const char *const keys[] = {"tir.noalias", "tirx.noalias"};
  for (int k = 0; k < 2; k++) {
    const tir_attr_val *v = f->attrs ? tir_av_get(f->attrs, keys[k]) : NULL;
    if (v && v->kind == TIR_AV_EXPR && v->expr && v->expr->kind == TIR_INT_IMM && v->expr->u.int_val == 0) return true;
  }
  return false;
}

/* the alignment in bytes the code may assume of buffer b's data: a power of
 * two above the element's own alignment, or 0 (nothing to assume) */
static int param_align(const tir_buffer *b) {
  int a = b->data_alignment > 0 ? b->data_alignment : 64;
  int eb = tir_dtype_bytes(b->dtype);
  if (a & (a - 1)) return 0;
  return a > eb ? a : 0;
}

/* the C name of parameter i (every parameter is also known by &f->params[i]) */
static const char *param_name(cg *g, const tir_func *f, int i) { return cg_lookup(g, &f->params[i]); }

/* used: the vars the body uses (cg_used_vars) */
static void print_params(cg *g, const tir_func *f, const param_data *pd, const var_list *extra, const tir_ptrmap *used,
                         cg_text *sig) {
  int k = 0;
  bool may_alias = aliasing_allowed(f);
  for (int i = 0; i < f->nparams; i++, k++) {
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    int owner = pd->owner[i];
    char ty[32];
    if (k) cg_text_puts(sig, ", ");
    const char *n;
    if (owner != i) { /* the same data as an earlier parameter: its own name, checked equal */
      n = cg_define(g, &f->params[i], b ? b->name : f->params[i]->u.var.name);
    } else if (b) {
      n = cg_define(g, b->data, b->name);
      cg_alias(g, f->params[i], n);
    } else {
      n = cg_define(g, f->params[i], f->params[i]->u.var.name);
    }
    if (owner == i) cg_alias(g, &f->params[i], n);
    if (b) {
      cg_type(g, b->dtype, ty, b->span);
      bool restrict_ = !may_alias && !pd->shared[i];
      if (owner == i) { /* for the bodies of parallel loops (c_outline.c) */
        if (g->nparam_info == g->param_info_cap) {
          g->param_info_cap = g->param_info_cap ? 2 * g->param_info_cap : 16;
          g->param_info = realloc(g->param_info, sizeof *g->param_info * (size_t)g->param_info_cap);
          if (!g->param_info) abort();
        }
        g->param_info[g->nparam_info++] =
            (cg_param_info){b->data, restrict_, tir_ptrmap_get(used, b->data, 0) ? param_align(b) : 0};
        tir_ptrmap_put(&g->param_index, b->data, g->nparam_info);
      }
      cg_text_printf(sig, "%s *%s%s", ty, restrict_ ? "restrict " : "", n);
    } else {
      const tir_expr *p = f->params[i];
      if (p->dtype.code == TIR_TC_HANDLE && p->u.var.ptr_elem.bits && cg_type(g, p->u.var.ptr_elem, ty, p->span))
        cg_text_printf(sig, "%s *%s", ty, n); /* T.handle("float32"): a float * */
      else if (p->dtype.code == TIR_TC_HANDLE) {
        cg_text_printf(sig, "void *%s", n);
        cg_note_void_ptr(g, p);
      } else {
        cg_type(g, p->dtype, ty, p->span);
        cg_text_printf(sig, "%s %s", ty, n);
      }
    }
  }
  for (int i = 0; i < extra->n; i++, k++) {
    char ty[32];
    if (k) cg_text_puts(sig, ", ");
    cg_type(g, extra->vars[i]->dtype, ty, extra->vars[i]->span);
    cg_text_printf(sig, "%s %s", ty, cg_define(g, extra->vars[i], extra->vars[i]->u.var.name));
  }
  const char *mode;
  const tir_stmt *ws = cg_workspace(f, &mode);
  if (ws && !strcmp(mode, "param")) { /* the caller's workspace, last */
    const tir_buffer *b = ws->u.decl.buf;
    cg_text_printf(sig, "%suint8_t *%s", k ? ", " : "", cg_define(g, b->data, b->name));
    k++;
  }
  if (k == 0) cg_text_puts(sig, "void");
}

/* the entry checks of the calling convention (above), then the alignment
 * the compiler may assume */
static void param_checks(cg *g, const tir_func *f, const param_data *pd, const tir_ptrmap *used) {
  bool any_align = false;
  for (int i = 0; i < f->nparams; i++) {
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    int owner = pd->owner[i];
    if (owner != i) {
      cg_linef(g, "if ((const void *)%s != (const void *)%s) return -1; /* one data, two parameters */",
               param_name(g, f, i), param_name(g, f, owner));
      continue;
    }
    if (!b) continue;
    if (b->offset_factor > 1 && b->elem_offset && b->elem_offset->kind == TIR_VAR && cg_lookup(g, b->elem_offset))
      cg_linef(g, "if (%s %% %d != 0) return -1; /* offset_factor */", cg_lookup(g, b->elem_offset), b->offset_factor);
    if (!tir_ptrmap_get(used, b->data, 0) || !param_align(b)) continue;
    cg_linef(g, "if ((uintptr_t)%s %% %d != 0) return -1; /* data_alignment */", param_name(g, f, i), param_align(b));
    any_align = true;
  }
  if (!any_align) return;
  cg_linef(g, "#if defined(__GNUC__)");
  for (int i = 0; i < f->nparams; i++) {
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b || pd->owner[i] != i || !tir_ptrmap_get(used, b->data, 0) || !param_align(b)) continue;
    char ty[32];
    cg_type(g, b->dtype, ty, b->span);
    const char *n = param_name(g, f, i);
    cg_linef(g, "%s = (%s *)__builtin_assume_aligned(%s, %d);", n, ty, n, param_align(b));
  }
  cg_linef(g, "#endif");
}

/* a parameter's C name, whether the printed body names it, and its place */
typedef struct {
  const char *name;
  bool named;
  int order;
} param_use;

static int by_name(const void *a, const void *b) { return strcmp(((const param_use *)a)->name, ((const param_use *)b)->name); }
static int by_order(const void *a, const void *b) { return ((const param_use *)a)->order - ((const param_use *)b)->order; }

/* the identifier text[0, len) among u (sorted by name): marked named */
static void mark_named(const char *text, size_t len, param_use *u, int n) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2, c = strncmp(u[mid].name, text, len);
    if (!c && u[mid].name[len]) c = 1; /* longer than the token */
    if (!c) {
      u[mid].named = true;
      return;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
}

/* one scan of text: each C identifier outside comments, strings, character
 * constants and numbers (1.5f, 0x1p-3) looked up among u (sorted by name) */
static void scan_names(const char *text, param_use *u, int n) {
  for (const char *p = text ? text : ""; *p;) {
    if (p[0] == '/' && p[1] == '*') {
      const char *q = strstr(p + 2, "*/");
      p = q ? q + 2 : p + strlen(p);
    } else if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n') p++;
    } else if (*p == '"' || *p == '\'') {
      char quote = *p++;
      while (*p && *p != quote) p += p[0] == '\\' && p[1] ? 2 : 1;
      if (*p) p++;
    } else if ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')) {
      for (p++; *p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                ((*p == '+' || *p == '-') && strchr("eEpP", p[-1]));
           p++) {
      }
    } else if (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
      const char *q = p;
      while (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9')) q++;
      mark_named(p, (size_t)(q - p), u, n);
      p = q;
    } else {
      p++;
    }
  }
}

/* (void)x for each parameter the printed body (and the functions outlined
 * calls) never names: what the code generator leaves out (an attr's
 * value, an annotation, a value a let's simplification drops) is no use */
static void void_unused(cg *g, const tir_func *f, const param_data *pd, const var_list *extra, const char *body) {
  param_use *u = malloc(sizeof *u * (size_t)(f->nparams + extra->n + 1));
  if (!u) abort();
  int n = 0;
  for (int i = 0; i < f->nparams; i++) {
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    const void *key = b ? (const void *)b->data : (const void *)f->params[i];
    if (pd->owner[i] != i || pd->shared[i]) continue; /* used by the entry check */
    const char *name = cg_lookup(g, key);
    if (name) u[n] = (param_use){name, false, n}, n++;
  }
  for (int i = 0; i < extra->n; i++) {
    const char *name = cg_lookup(g, extra->vars[i]);
    if (name) u[n] = (param_use){name, false, n}, n++;
  }
  qsort(u, (size_t)n, sizeof *u, by_name);
  scan_names(body, u, n);
  qsort(u, (size_t)n, sizeof *u, by_order);
  for (int i = 0; i < n; i++)
    if (!u[i].named) cg_linef(g, "(void)%s;", u[i].name);
  free(u);
}

/* the AOT description of a caller's workspace: its bytes, and each
 * temporary at its offset */
static bool temps_cb(tir_visitor *v, const tir_stmt *s) {
  void **u = v->user;
  const tir_stmt *ws = u[0];
  tir_aot_func *fn = u[1];
  if (s->kind != TIR_DECL_BUFFER || s->u.decl.buf->data != ws->u.decl.buf->data) return true;
  const tir_buffer *b = s->u.decl.buf;
  int64_t off = 0, n = tir_dtype_bytes(b->dtype);
  tir_is_const_int(b->elem_offset, &off);
  for (int d = 0; d < b->ndim; d++) {
    int64_t e = 0;
    tir_is_const_int(b->shape[d], &e);
    n *= e;
  }
  fn->temps = realloc(fn->temps, sizeof *fn->temps * (size_t)(fn->ntemps + 1));
  if (!fn->temps) abort();
  tir_aot_temp *t = &fn->temps[fn->ntemps++];
  memset(t, 0, sizeof *t);
  t->name = strdup(b->name);
  t->scope = strdup(b->scope ? b->scope : "global");
  t->storage = strdup("workspace");
  if (!t->name || !t->scope || !t->storage) abort();
  t->bytes.value = n;
  t->offset = off * tir_dtype_bytes(b->dtype);
  return true;
}

static void workspace_temps(const tir_stmt *ws, tir_aot_func *fn) {
  const tir_buffer *b = ws->u.decl.buf;
  int64_t n = 0;
  tir_is_const_int(b->shape[0], &n);
  int align = b->data_alignment > 0 ? b->data_alignment : 64;
  fn->workspace_align = (size_t)align;
  fn->workspace_bytes = (n + align - 1) / align * align;
  void *u[2] = {(void *)ws, fn};
  tir_visitor v = {.stmt = temps_cb, .user = u};
  tir_visit_stmt(&v, ws->u.decl.body);
}

/* prints f and its SYM_packed entry point, and describes both in fn */
static void print_func(cg *g, const tir_func *f, const char *sym, cg_text *out, tir_aot_func *fn) {
  cg_meta rec = {.fn = fn};
  g->meta = &rec;
  fn->name = cg_strdup(f->name);
  fn->symbol = cg_strdup(sym);
  size_t n = strlen(sym) + sizeof "_packed";
  fn->packed_symbol = cg_calloc(n, 1);
  snprintf(fn->packed_symbol, n, "%s_packed", sym);
  fn->workspace_align = 64;
  const char *mode;
  const tir_stmt *ws = cg_workspace(f, &mode);
  g->ws_param = ws && !strcmp(mode, "param");
  if (g->ws_param) workspace_temps(ws, fn);
  cg_enter(g);
  var_list extra = {0};
  cg_shape_vars(f, &extra);
  cg_text sig = {0}, pre = {0}, body = {0};
  g->pre = &pre; /* the functions of outlined parallel loop bodies, printed before this one */
  g->func_symbol = sym;
  g->split_budget = 4096;
  tir_ptrmap used = {0}; /* what the body uses: each parameter's data looked up, one walk */
  cg_used_vars(f->body, &used);
  param_data pd = param_data_of(f);
  print_params(g, f, &pd, &extra, &used, &sig);
  cg_text *fout = out;
  out = &body;
  cg_text_printf(out, "int32_t %s(%s) {\n", sym, sig.s);
  if (g->decls) cg_text_printf(g->decls, "int32_t %s(%s);\nint32_t %s_packed(const void *args, void *workspace);\n", sym,
                               sig.s, sym);
  cg_text_free(&sig);
  cg_text inner = {0}; /* the body first: what it names decides the (void) lines before it */
  g->out = &inner;
  g->indent = 1;
  param_checks(g, f, &pd, &used);
  tir_ptrmap_free(&used);
  cg_use_index *saved_index = cg_index_push(f->body);
  cg_stmt(g, f->body);
  cg_index_pop(saved_index);
  cg_linef(g, "return 0;");
  g->out = out;
  void_unused(g, f, &pd, &extra, inner.s);
  param_data_free(&pd);
  if (inner.s) cg_text_puts(out, inner.s);
  cg_text_free(&inner);
  cg_text_puts(out, "}\n");
  out = fout;
  if (pre.s) cg_text_puts(out, pre.s);
  if (body.s) cg_text_puts(out, body.s);
  cg_text_free(&pre);
  cg_text_free(&body);
  g->pre = NULL;
  g->func_symbol = NULL;
  free(g->param_info);
  g->param_info = NULL;
  g->nparam_info = g->param_info_cap = 0;
  tir_ptrmap_free(&g->param_index);
  g->nspans = 0;
  cg_aot_args(g, f, &extra, fn);
  cg_aot_packed(g, fn, out, "int32_t", NULL, NULL);
  var_list_free(&extra);
  cg_leave(g);
  g->meta = NULL;
  cg_meta_free(&rec);
}

char *tir_codegen_c(const tir_module *m, tir_diag *d) { return tir_codegen_c_aot(m, NULL, d); }

static char *codegen_c(const tir_module *m, tir_aot_module **meta, cg_text *decls, tir_diag *d);

char *tir_codegen_c_aot(const tir_module *m, tir_aot_module **meta, tir_diag *d) { return codegen_c(m, meta, NULL, d); }

/* the header that declares what tir_codegen_c defines: the prototypes the
 * same walk prints, in a guard named after the first function */
char *tir_codegen_h(const tir_module *m, tir_diag *d) {
  cg_text decls = {0};
  char *code = codegen_c(m, NULL, &decls, d);
  if (!code) {
    cg_text_free(&decls);
    return NULL;
  }
  free(code);
  char guard[160] = "TIRC_GENERATED_H";
  if (m->nfuncs) {
    const char *s = tir_func_symbol(m->funcs[0]);
    snprintf(guard, sizeof guard, "TIRC_%s_H", s);
    for (char *p = guard; *p; p++)
      if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
  }
  cg_text out = {0};
  cg_text_printf(&out, "/* generated by tirc: declarations of the C that tirc --emit=c defines */\n"
                       "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n%s\n"
                       "#ifdef __cplusplus\n}\n#endif\n#endif\n",
                 guard, guard, decls.s ? decls.s : "");
  cg_text_free(&decls);
  return out.s;
}

static char *codegen_c(const tir_module *m, tir_aot_module **meta, cg_text *decls, tir_diag *d) {
  if (meta) *meta = NULL;
  tir_ctx *c = tir_ctx_new();
  const char **syms = cg_module_symbols(c, m, d);
  if (!syms) {
    tir_ctx_free(c);
    return NULL;
  }
  cg g;
  cg_init(&g, &c_target, c, d);
  g.decls = decls;
  g.globals = cg_module_globals(c, m, syms, &g.nglobals);
  cg_text funcs = {0};
  tir_aot_module *desc = cg_aot_module_new(TIR_AOT_TARGET_C, m->nfuncs);
  for (int i = 0; i < m->nfuncs && !g.failed; i++)
    if (!cg_check_steps(m->funcs[i], d) || !cg_c_check_barriers(m->funcs[i], d)) g.failed = true;
  for (int i = 0; i < m->nfuncs && !g.failed; i++) {
    if (i) cg_text_puts(&funcs, "\n");
    desc->nfuncs = i + 1;
    g.where = m->funcs[i]->span;
    print_func(&g, m->funcs[i], syms[i], &funcs, &desc->funcs[i]);
  }
  char *result = NULL;
  cg_text protos = {0};
  if (!g.failed) cg_extern_decls(&g, m, syms, &protos);
  if (!g.failed) {
    cg_text out = {0};
    cg_text_puts(&out, "/* generated by tirc: C11, one function per PrimFunc; returns 0 on success */\n"
                       "#include <math.h>\n#include <stdint.h>\n");
    if (g.used_stdio) cg_text_puts(&out, "#include <stdio.h>\n");
    if (g.used_malloc) cg_text_puts(&out, "#include <stdlib.h>\n");
    cg_text_puts(&out, "#include <string.h>\n\n");
    if (protos.len) cg_text_puts(&out, protos.s);
    cg_text helpers = {0};
    cg_emit_helpers(&g, &helpers);
    if (helpers.len) {
      cg_text_puts(&out, helpers.s);
      cg_text_puts(&out, "\n");
    }
    cg_text_puts(&out, funcs.s ? funcs.s : "");
    cg_text_free(&helpers);
    result = out.s;
  }
  cg_text_free(&funcs);
  cg_text_free(&protos);
  cg_free(&g);
  tir_ctx_free(c);
  if (result && meta) *meta = desc;
  else tir_aot_free(desc);
  return result;
}
