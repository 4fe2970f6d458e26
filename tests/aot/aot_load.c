/* aot_load.c - a runtime's loader of tirc's AOT description, in plain C
 * with jansson and dlopen: it does NOT link libtir and knows the kernels
 * only through the JSON (docs/aot-metadata.md).
 *
 *   aot_module *aot_open(json_path, so_path, err)   read, check, dlopen
 *   aot_call(module, symbol, argv)                   pack and call SYM_packed
 *
 * argv[i] is the buffer's pointer for a buffer argument, the address of
 * the value for a scalar.  Every number in the description is checked
 * against the others and against the layout rule before anything is
 * called (aot_check); a description that fails is refused with the reason. */
#define _GNU_SOURCE
#include "aot_load.h"

#include <dlfcn.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct aot_module {
  json_t *root;
  void *so;
};

static int fail(char *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, AOT_ERR_LEN, fmt, ap);
  va_end(ap);
  return -1;
}

/* ---- the size expressions: integers, names, + - * // % ( ) ---- */

typedef struct env {
  const char *const *names;
  const int64_t *values;
  int n;
} env;

typedef struct lex {
  const char *p;
  const env *e;
  int bad;
} lex;

static void ws(lex *l) {
  while (*l->p == ' ') l->p++;
}
static int64_t expr(lex *l);
static int64_t atom(lex *l) {
  ws(l);
  if (*l->p == '(') {
    l->p++;
    int64_t v = expr(l);
    ws(l);
    if (*l->p != ')') l->bad = 1;
    else l->p++;
    return v;
  }
  if (*l->p == '-') {
    l->p++;
    return -atom(l);
  }
  if (*l->p >= '0' && *l->p <= '9') {
    int64_t v = 0;
    while (*l->p >= '0' && *l->p <= '9') v = v * 10 + (*l->p++ - '0');
    return v;
  }
  const char *s = l->p;
  while ((*l->p >= 'a' && *l->p <= 'z') || (*l->p >= 'A' && *l->p <= 'Z') || *l->p == '_' ||
         (l->p > s && *l->p >= '0' && *l->p <= '9'))
    l->p++;
  size_t n = (size_t)(l->p - s);
  for (int i = 0; n && i < l->e->n; i++)
    if (strlen(l->e->names[i]) == n && !strncmp(l->e->names[i], s, n)) return l->e->values[i];
  l->bad = 1;
  return 0;
}
static int64_t term(lex *l) {
  int64_t v = atom(l);
  for (;;) {
    ws(l);
    if (*l->p == '*') {
      l->p++;
      v *= atom(l);
    } else if (l->p[0] == '/' && l->p[1] == '/') {
      l->p += 2;
      int64_t d = atom(l);
      if (!d) return l->bad = 1, 0;
      int64_t q = v / d;
      v = (v % d != 0 && ((v < 0) != (d < 0))) ? q - 1 : q;
    } else if (*l->p == '%') {
      l->p++;
      int64_t d = atom(l);
      if (!d) return l->bad = 1, 0;
      int64_t r = v % d;
      v = (r != 0 && ((r < 0) != (d < 0))) ? r + d : r;
    } else {
      return v;
    }
  }
}
static int64_t expr(lex *l) {
  int64_t v = term(l);
  for (;;) {
    ws(l);
    if (*l->p == '+') {
      l->p++;
      v += term(l);
    } else if (*l->p == '-') {
      l->p++;
      v -= term(l);
    } else {
      return v;
    }
  }
}

/* a size: an integer, or an expression string over the size vars */
static int size_value(const json_t *j, const env *e, int64_t *out) {
  if (json_is_integer(j)) {
    *out = json_integer_value(j);
    return 0;
  }
  if (!json_is_string(j)) return -1;
  lex l = {json_string_value(j), e, 0};
  *out = expr(&l);
  ws(&l);
  return l.bad || *l.p ? -1 : 0;
}

/* ---- dtypes ---- */

static int dtype_bytes(const char *s) {
  static const struct { const char *n; int b; } t[] = {
      {"int8", 1},  {"int16", 2},   {"int32", 4},   {"int64", 8},   {"uint8", 1},    {"uint16", 2},
      {"uint32", 4}, {"uint64", 8}, {"float16", 2}, {"float32", 4}, {"float64", 8}, {"bfloat16", 2},
      {"bool", 1},  {"handle", 8}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (!strcmp(t[i].n, s)) return t[i].b;
  return -1;
}

/* ---- reading with checks ---- */

static const json_t *get(const json_t *o, const char *k) { return json_object_get(o, k); }
static int get_int(const json_t *o, const char *k, int64_t *v) {
  const json_t *j = get(o, k);
  if (!json_is_integer(j)) return -1;
  *v = json_integer_value(j);
  return 0;
}
static const char *get_str(const json_t *o, const char *k) {
  const json_t *j = get(o, k);
  return json_is_string(j) ? json_string_value(j) : NULL;
}

/* the names and values of f's scalar arguments (for evaluating sizes);
 * values NULL: every size var is 1 (a check of form only) */
static void scalar_env(const json_t *f, void *const *argv, const char **names, int64_t *values, int *n) {
  const json_t *args = get(f, "args");
  size_t i;
  json_t *a;
  *n = 0;
  json_array_foreach(args, i, a) {
    if (!get_str(a, "kind") || strcmp(get_str(a, "kind"), "scalar") || *n >= 32) continue;
    const char *dt = get_str(a, "dtype");
    int64_t v = 1;
    if (argv && dt) {
      if (!strcmp(dt, "int32")) v = *(const int32_t *)argv[i];
      else if (!strcmp(dt, "int64")) v = *(const int64_t *)argv[i];
    }
    names[*n] = get_str(a, "name");
    values[(*n)++] = v;
  }
}

static int check_func(const json_t *f, const char *target, void *const *argv, int64_t *ws_bytes, char *err) {
  const char *sym = get_str(f, "symbol"), *packed = get_str(f, "packed_symbol");
  if (!sym || !packed || !get_str(f, "name")) return fail(err, "function without name, symbol or packed_symbol");
  char want[512];
  snprintf(want, sizeof want, "%s_packed", sym);
  if (strcmp(want, packed)) return fail(err, "%s: packed_symbol '%s' is not '%s'", sym, packed, want);
  int64_t args_bytes, args_align;
  if (get_int(f, "args_bytes", &args_bytes) || get_int(f, "args_align", &args_align))
    return fail(err, "%s: args_bytes/args_align missing", sym);
  const json_t *args = get(f, "args");
  if (!json_is_array(args)) return fail(err, "%s: args missing", sym);
  const char *names[32];
  int64_t values[32];
  int nv;
  scalar_env(f, argv, names, values, &nv);
  env e = {names, values, nv};
  int64_t end = 0, max_align = 1;
  size_t i;
  json_t *a;
  json_array_foreach(args, i, a) {
    int64_t index, off, size, align;
    const char *name = get_str(a, "name"), *kind = get_str(a, "kind"), *dt = get_str(a, "dtype");
    if (!name || !kind || !dt) return fail(err, "%s: argument %zu lacks name, kind or dtype", sym, i);
    if (get_int(a, "index", &index) || index != (int64_t)i) return fail(err, "%s: argument %zu has index %lld", sym, i, (long long)index);
    if (get_int(a, "offset", &off) || get_int(a, "size", &size) || get_int(a, "align", &align))
      return fail(err, "%s: argument '%s' lacks offset/size/align", sym, name);
    int eb = dtype_bytes(dt);
    if (eb < 0) return fail(err, "%s: argument '%s' has dtype '%s', which this loader does not know", sym, name, dt);
    bool buffer = !strcmp(kind, "buffer");
    if (!buffer && strcmp(kind, "scalar")) return fail(err, "%s: argument '%s' has kind '%s'", sym, name, kind);
    int64_t want_size = buffer ? (int64_t)sizeof(void *) : eb;
    if (size != want_size) return fail(err, "%s: argument '%s' has size %lld, its slot needs %lld", sym, name, (long long)size, (long long)want_size);
    int64_t want_align = size >= 8 ? 8 : size >= 4 ? 4 : size >= 2 ? 2 : 1;
    if (align != want_align) return fail(err, "%s: argument '%s' has align %lld, not %lld", sym, name, (long long)align, (long long)want_align);
    if (off < end || off % align) return fail(err, "%s: argument '%s' at offset %lld overlaps the one before it or is misaligned", sym, name, (long long)off);
    /* the layout rule: each slot at the next aligned offset */
    if (off != (end + align - 1) / align * align) return fail(err, "%s: argument '%s' at offset %lld, the layout puts it at %lld", sym, name, (long long)off, (long long)((end + align - 1) / align * align));
    end = off + size;
    if (align > max_align) max_align = align;
    int64_t bytes;
    if (size_value(get(a, "bytes"), &e, &bytes)) return fail(err, "%s: argument '%s' has unreadable bytes", sym, name);
    if (!buffer) {
      if (bytes != eb) return fail(err, "%s: scalar '%s' has bytes %lld, its dtype %d", sym, name, (long long)bytes, eb);
      continue;
    }
    const json_t *shape = get(a, "shape"), *strides = get(a, "strides");
    if (!json_is_array(shape) || !json_is_array(strides) || json_array_size(shape) != json_array_size(strides))
      return fail(err, "%s: buffer '%s' has no shape/strides of one length", sym, name);
    /* this loader takes compact row-major parameter buffers */
    int64_t n = 1;
    for (size_t d = json_array_size(shape); d-- > 0;) {
      int64_t ext, st;
      if (size_value(json_array_get(shape, d), &e, &ext) || size_value(json_array_get(strides, d), &e, &st))
        return fail(err, "%s: buffer '%s' has an unreadable shape or stride", sym, name);
      if (ext < 0) return fail(err, "%s: buffer '%s' has a negative extent", sym, name);
      if (st != n) return fail(err, "%s: buffer '%s' has stride %lld in dim %zu: this loader takes compact buffers (%lld)", sym, name, (long long)st, d, (long long)n);
      n *= ext;
    }
    if (bytes != n * eb) return fail(err, "%s: buffer '%s' has bytes %lld, its shape %lld", sym, name, (long long)bytes, (long long)(n * eb));
    const char *acc = get_str(a, "access");
    if (!acc || (strcmp(acc, "read") && strcmp(acc, "write") && strcmp(acc, "readwrite") && strcmp(acc, "none")))
      return fail(err, "%s: buffer '%s' has access '%s'", sym, name, acc ? acc : "");
  }
  if (args_align != max_align) return fail(err, "%s: args_align %lld, the largest slot's is %lld", sym, (long long)args_align, (long long)max_align);
  if (args_bytes != (end + max_align - 1) / max_align * max_align)
    return fail(err, "%s: args_bytes %lld, the arguments end at %lld", sym, (long long)args_bytes, (long long)end);
  /* size vars: the first buffer dim that names them */
  const json_t *syms = get(f, "symbolic");
  if (!json_is_array(syms)) return fail(err, "%s: symbolic missing", sym);
  json_array_foreach(syms, i, a) {
    int64_t arg, barg, dim;
    const char *name = get_str(a, "name");
    const json_t *from = get(a, "bound_from");
    if (!name || get_int(a, "arg", &arg) || !from || get_int(from, "arg", &barg) || get_int(from, "dim", &dim) ||
        !get_str(from, "field"))
      return fail(err, "%s: symbolic entry %zu is incomplete", sym, i);
    const json_t *sa = json_array_get(args, (size_t)arg);
    if (arg < 0 || !sa || strcmp(get_str(sa, "name"), name) || strcmp(get_str(sa, "kind"), "scalar"))
      return fail(err, "%s: size var '%s' is not scalar argument %lld", sym, name, (long long)arg);
    int64_t fa = -1, fd = -1;
    size_t k;
    json_t *b;
    json_array_foreach(args, k, b) {
      const json_t *sh = get(b, "shape");
      for (size_t d = 0; fa < 0 && json_is_array(sh) && d < json_array_size(sh); d++) {
        const json_t *x = json_array_get(sh, d);
        if (json_is_string(x) && !strcmp(json_string_value(x), name)) fa = (int64_t)k, fd = (int64_t)d;
      }
    }
    if (strcmp(get_str(from, "field"), "shape") || barg != fa || dim != fd)
      return fail(err, "%s: size var '%s' is bound from %s[%lld] of argument %lld; the first dim that names it is argument %lld dim %lld",
                  sym, name, get_str(from, "field"), (long long)dim, (long long)barg, (long long)fa, (long long)fd);
  }
  const json_t *ws = get(f, "workspace");
  int64_t wb, wa;
  if (!ws || get_int(ws, "bytes", &wb) || get_int(ws, "align", &wa)) return fail(err, "%s: workspace missing", sym);
  if (wa != (!strcmp(target, "cuda") ? 256 : 64)) return fail(err, "%s: workspace align %lld is not the target's", sym, (long long)wa);
  const json_t *temps = get(ws, "temporaries");
  int64_t wend = 0;
  json_array_foreach(temps, i, a) {
    int64_t off, tb;
    if (get_int(a, "offset", &off) || size_value(get(a, "bytes"), &e, &tb) || off < 0 || tb < 0)
      return fail(err, "%s: workspace temporary %zu is malformed", sym, i);
    if (off + tb > wend) wend = off + tb;
  }
  if (wb != (wend + wa - 1) / wa * wa) return fail(err, "%s: workspace bytes %lld, its temporaries need %lld", sym, (long long)wb, (long long)wend);
  *ws_bytes = wb;
  return 0;
}

int aot_check(const json_t *root, char *err) {
  if (!json_is_object(root)) return fail(err, "the description is not a JSON object");
  const char *fmt = get_str(root, "format"), *target = get_str(root, "target");
  if (!fmt || strcmp(fmt, "tirc-aot")) return fail(err, "not a tirc-aot description (format '%s')", fmt ? fmt : "");
  const json_t *v = get(root, "version");
  if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_integer(json_array_get(v, 0)) ||
      !json_is_integer(json_array_get(v, 1)) || json_integer_value(json_array_get(v, 1)) < 0)
    return fail(err, "version is not [major, minor]");
  int64_t major = json_integer_value(json_array_get(v, 0));
  if (major != AOT_LOADER_MAJOR)
    return fail(err, "metadata version %lld.%lld: this loader reads version %d.x", (long long)major,
                (long long)json_integer_value(json_array_get(v, 1)), AOT_LOADER_MAJOR);
  if (!target || (strcmp(target, "c") && strcmp(target, "cuda"))) return fail(err, "unknown target '%s'", target ? target : "");
  const char *sha = get_str(root, "input_sha256");
  if (!sha || (strlen(sha) != 64 && strlen(sha) != 0)) return fail(err, "input_sha256 is not 64 hex digits");
  const json_t *fs = get(root, "functions");
  if (!json_is_array(fs)) return fail(err, "functions missing");
  int64_t max_args = 0, max_ws = 0, max_shared = 0, x;
  size_t i;
  json_t *f;
  json_array_foreach(fs, i, f) {
    int64_t wb = 0;
    if (check_func(f, target, NULL, &wb, err)) return -1;
    get_int(f, "args_bytes", &x);
    if (x > max_args) max_args = x;
    if (wb > max_ws) max_ws = wb;
    const json_t *ks = get(f, "kernels");
    size_t k;
    json_t *kk;
    json_array_foreach(ks, k, kk) {
      int64_t s = 0, d = 0;
      get_int(kk, "shared_bytes", &s);
      get_int(kk, "dynamic_shared_bytes", &d);
      if (s + d > max_shared) max_shared = s + d;
    }
  }
  if (get_int(root, "max_args_bytes", &x) || x != max_args) return fail(err, "max_args_bytes is not the largest args_bytes (%lld)", (long long)max_args);
  if (get_int(root, "max_workspace_bytes", &x) || x != max_ws) return fail(err, "max_workspace_bytes is not the largest workspace (%lld)", (long long)max_ws);
  if (get_int(root, "max_shared_bytes", &x) || x != max_shared) return fail(err, "max_shared_bytes is not the largest kernel's (%lld)", (long long)max_shared);
  return 0;
}

aot_module *aot_open(const char *json_path, const char *so_path, char *err) {
  json_error_t je;
  json_t *root = json_load_file(json_path, 0, &je);
  if (!root) {
    fail(err, "%s:%d:%d: error: %s", json_path, je.line, je.column, je.text);
    return NULL;
  }
  if (aot_check(root, err)) {
    json_decref(root);
    return NULL;
  }
  aot_module *m = calloc(1, sizeof *m);
  m->root = root;
  if (so_path) {
    m->so = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
    if (!m->so) {
      fail(err, "cannot load %s: %s", so_path, dlerror());
      aot_close(m);
      return NULL;
    }
  }
  return m;
}

void aot_close(aot_module *m) {
  if (!m) return;
  if (m->so) dlclose(m->so);
  json_decref(m->root);
  free(m);
}

const json_t *aot_func(const aot_module *m, const char *symbol) {
  size_t i;
  json_t *f;
  json_array_foreach(get(m->root, "functions"), i, f)
    if (!strcmp(get_str(f, "symbol"), symbol)) return f;
  return NULL;
}

const json_t *aot_root(const aot_module *m) { return m->root; }

int64_t aot_eval(const json_t *f, const json_t *size, void *const *argv, int *ok) {
  const char *names[32];
  int64_t values[32], v = 0;
  int n;
  scalar_env(f, argv, names, values, &n);
  env e = {names, values, n};
  *ok = !size_value(size, &e, &v);
  return v;
}

typedef int32_t (*packed_fn)(const void *, void *);

int aot_call(aot_module *m, const char *symbol, void *const *argv, char *err) {
  const json_t *f = aot_func(m, symbol);
  if (!f) return fail(err, "no function '%s' in the description", symbol);
  int64_t ws_bytes = 0;
  if (check_func(f, get_str(m->root, "target"), argv, &ws_bytes, err)) return -1;
  int64_t args_bytes = 0, args_align = 8;
  get_int(f, "args_bytes", &args_bytes);
  get_int(f, "args_align", &args_align);
  void *block = aligned_alloc(16, (size_t)(args_bytes + 16) / 16 * 16);
  memset(block, 0xA5, (size_t)args_bytes); /* padding is never read */
  size_t i;
  json_t *a;
  json_array_foreach(get(f, "args"), i, a) {
    int64_t off, size;
    get_int(a, "offset", &off);
    get_int(a, "size", &size);
    if (!strcmp(get_str(a, "kind"), "buffer")) memcpy((char *)block + off, &argv[i], (size_t)size);
    else memcpy((char *)block + off, argv[i], (size_t)size);
  }
  void *ws = NULL;
  if (ws_bytes > 0) {
    int64_t wa = 64;
    get_int(get(f, "workspace"), "align", &wa);
    ws = aligned_alloc((size_t)wa, (size_t)ws_bytes);
  }
  packed_fn p = (packed_fn)dlsym(m->so, get_str(f, "packed_symbol"));
  int rc;
  if (!p) rc = fail(err, "no symbol '%s' in the shared object", get_str(f, "packed_symbol"));
  else rc = p(block, ws);
  free(ws);
  free(block);
  return rc;
}
