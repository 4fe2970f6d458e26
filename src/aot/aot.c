/* aot.c - the AOT description of generated code (tir/aot.h): built by the
 * code generators' own walk, written as JSON with jansson (keys in a fixed
 * order, no timestamps) or as an indented text dump of the same tree in the
 * style of Taichi's AOT data (seed 000). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "tir/aot.h"
#include "tir/codegen.h"
#include "tir/tir.h"

tir_aot_module *tir_aot_build(const tir_module *m, tir_aot_target target, const void *input, size_t len,
                              tir_diag *d) {
  tir_aot_module *a = NULL;
  char *code = target == TIR_AOT_TARGET_CUDA ? tir_codegen_cuda_aot(m, &a, d) : tir_codegen_c_aot(m, &a, d);
  free(code);
  if (a && input) tir_sha256_hex(input, len, a->input_sha256);
  return a;
}

/* ---- JSON ---- */

static json_t *size_json(const tir_aot_size *s) {
  return s->expr ? json_string(s->expr) : json_integer(s->value);
}

static json_t *dtype_json(tir_dtype t) {
  char buf[64];
  return json_string(tir_dtype_str(t, buf));
}

static const char *access_name(int mask) {
  switch (mask & (TIR_AOT_READ | TIR_AOT_WRITE)) {
  case TIR_AOT_READ: return "read";
  case TIR_AOT_WRITE: return "write";
  case TIR_AOT_READ | TIR_AOT_WRITE: return "readwrite";
  default: return "none";
  }
}

static void set(json_t *o, const char *k, json_t *v) { json_object_set_new(o, k, v); }

static json_t *dims_json(const tir_aot_size *s, int n) {
  json_t *a = json_array();
  for (int i = 0; i < n; i++) json_array_append_new(a, size_json(&s[i]));
  return a;
}

static json_t *arg_json(const tir_aot_arg *x) {
  json_t *o = json_object();
  set(o, "index", json_integer(x->index));
  set(o, "name", json_string(x->name));
  set(o, "kind", json_string(x->is_buffer ? "buffer" : "scalar"));
  set(o, "dtype", dtype_json(x->dtype));
  if (x->is_buffer) {
    set(o, "shape", dims_json(x->shape, x->ndim));
    set(o, "strides", dims_json(x->strides, x->ndim));
  }
  set(o, "bytes", size_json(&x->bytes));
  set(o, "access", json_string(x->is_buffer ? access_name(x->access) : "read"));
  set(o, "offset", json_integer((json_int_t)x->offset));
  set(o, "size", json_integer((json_int_t)x->size));
  set(o, "align", json_integer((json_int_t)x->align));
  return o;
}

static json_t *strings_json(char *const *s, int n) {
  json_t *a = json_array();
  for (int i = 0; i < n; i++) json_array_append_new(a, json_string(s[i]));
  return a;
}

static json_t *kernel_json(const tir_aot_kernel *k) {
  json_t *o = json_object();
  set(o, "name", json_string(k->name));
  set(o, "grid", dims_json(k->grid, 3));
  set(o, "block", dims_json(k->block, 3));
  set(o, "threads_per_block", size_json(&k->threads_per_block));
  set(o, "total_threads", size_json(&k->total_threads));
  set(o, "shared_bytes", json_integer(k->shared_bytes));
  set(o, "dynamic_shared_bytes", json_integer(k->dynamic_shared_bytes));
  json_t *ps = json_array();
  for (int i = 0; i < k->nparams; i++) {
    json_t *p = json_object();
    set(p, "name", json_string(k->params[i].name));
    set(p, "kind", json_string(k->params[i].is_pointer ? "pointer" : "scalar"));
    set(p, "dtype", dtype_json(k->params[i].dtype));
    set(p, "size", json_integer((json_int_t)k->params[i].size));
    json_array_append_new(ps, p);
  }
  set(o, "params", ps);
  set(o, "reads", strings_json(k->reads, k->nreads));
  set(o, "writes", strings_json(k->writes, k->nwrites));
  return o;
}

static json_t *func_json(const tir_aot_func *f, tir_aot_target t) {
  json_t *o = json_object();
  set(o, "name", json_string(f->name));
  set(o, "symbol", json_string(f->symbol));
  set(o, "packed_symbol", json_string(f->packed_symbol));
  set(o, "args_bytes", json_integer((json_int_t)f->args_bytes));
  set(o, "args_align", json_integer((json_int_t)f->args_align));
  json_t *args = json_array(), *sym = json_array();
  for (int i = 0; i < f->nargs; i++) {
    const tir_aot_arg *x = &f->args[i];
    json_array_append_new(args, arg_json(x));
    if (x->bound_arg < 0) continue;
    json_t *s = json_object(), *from = json_object();
    set(s, "name", json_string(x->name));
    set(s, "arg", json_integer(x->index));
    set(from, "arg", json_integer(x->bound_arg));
    set(from, "field", json_string(x->bound_field));
    set(from, "dim", json_integer(x->bound_dim));
    set(s, "bound_from", from);
    json_array_append_new(sym, s);
  }
  set(o, "args", args);
  set(o, "symbolic", sym);
  json_t *ws = json_object(), *temps = json_array();
  set(ws, "bytes", json_integer(f->workspace_bytes));
  set(ws, "align", json_integer((json_int_t)f->workspace_align));
  for (int i = 0; i < f->ntemps; i++) {
    json_t *x = json_object();
    set(x, "name", json_string(f->temps[i].name));
    set(x, "scope", json_string(f->temps[i].scope));
    set(x, "storage", json_string(f->temps[i].storage));
    set(x, "bytes", size_json(&f->temps[i].bytes));
    set(x, "offset", json_integer(f->temps[i].offset));
    json_array_append_new(temps, x);
  }
  set(ws, "temporaries", temps);
  set(o, "workspace", ws);
  if (t == TIR_AOT_TARGET_CUDA) {
    json_t *ks = json_array();
    for (int i = 0; i < f->nkernels; i++) json_array_append_new(ks, kernel_json(&f->kernels[i]));
    set(o, "kernels", ks);
  }
  return o;
}

static json_t *module_json(const tir_aot_module *a) {
  json_t *o = json_object();
  set(o, "format", json_string(TIR_AOT_FORMAT));
  json_t *v = json_array();
  json_array_append_new(v, json_integer(TIR_AOT_VERSION_MAJOR));
  json_array_append_new(v, json_integer(TIR_AOT_VERSION_MINOR));
  set(o, "version", v);
  set(o, "tirc", json_string(TIR_VERSION));
  set(o, "target", json_string(a->target == TIR_AOT_TARGET_CUDA ? "cuda" : "c"));
  set(o, "input_sha256", json_string(a->input_sha256));
  size_t max_args = 0;
  int64_t max_ws = 0, max_shared = 0;
  json_t *fs = json_array();
  for (int i = 0; i < a->nfuncs; i++) {
    const tir_aot_func *f = &a->funcs[i];
    if (f->args_bytes > max_args) max_args = f->args_bytes;
    if (f->workspace_bytes > max_ws) max_ws = f->workspace_bytes;
    for (int k = 0; k < f->nkernels; k++)
      if (f->kernels[k].shared_bytes + f->kernels[k].dynamic_shared_bytes > max_shared)
        max_shared = f->kernels[k].shared_bytes + f->kernels[k].dynamic_shared_bytes;
    json_array_append_new(fs, func_json(f, a->target));
  }
  set(o, "max_args_bytes", json_integer((json_int_t)max_args));
  set(o, "max_workspace_bytes", json_integer(max_ws));
  set(o, "max_shared_bytes", json_integer(max_shared));
  set(o, "functions", fs);
  return o;
}

static char *with_newline(char *s) {
  if (!s) abort();
  size_t n = strlen(s);
  char *t = realloc(s, n + 2);
  if (!t) abort();
  t[n] = '\n';
  t[n + 1] = 0;
  return t;
}

char *tir_aot_to_json(const tir_aot_module *a) {
  json_t *o = module_json(a);
  char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
  json_decref(o);
  return with_newline(s);
}

/* ---- text: the same tree, indented as Taichi's AOT dump ---- */

typedef struct text {
  char *s;
  size_t len, cap;
} text;

static void put(text *t, const char *s, size_t n) {
  if (t->len + n + 1 > t->cap) {
    t->cap = (t->len + n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    if (!t->s) abort();
  }
  memcpy(t->s + t->len, s, n);
  t->len += n;
  t->s[t->len] = 0;
}
static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }
static void indent(text *t, int n) {
  for (int i = 0; i < n; i++) puts_(t, "  ");
}

static void dump(text *t, const json_t *v, int depth) {
  char buf[64];
  switch (json_typeof(v)) {
  case JSON_OBJECT: {
    puts_(t, "{\n");
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)v, k, x) {
      indent(t, depth + 1);
      puts_(t, k);
      puts_(t, ": ");
      dump(t, x, depth + 1);
    }
    indent(t, depth);
    puts_(t, "}\n");
    return;
  }
  case JSON_ARRAY: {
    puts_(t, "[\n");
    size_t i;
    json_t *x;
    json_array_foreach(v, i, x) {
      indent(t, depth + 1);
      snprintf(buf, sizeof buf, "[%zu]: ", i);
      puts_(t, buf);
      dump(t, x, depth + 1);
    }
    indent(t, depth);
    puts_(t, "]\n");
    return;
  }
  case JSON_STRING: puts_(t, json_string_value(v)); break;
  case JSON_INTEGER: snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v)); puts_(t, buf); break;
  case JSON_TRUE: puts_(t, "true"); break;
  case JSON_FALSE: puts_(t, "false"); break;
  default: puts_(t, "null"); break;
  }
  puts_(t, "\n");
}

char *tir_aot_to_text(const tir_aot_module *a) {
  json_t *o = module_json(a);
  text t = {0};
  puts_(&t, "tirc aot data: ");
  dump(&t, o, 0);
  json_decref(o);
  return t.s;
}
