/* exec_args.c - the inputs of a run: one per parameter and shape var,
 * seeded random values and data, the lines --run prints, and the
 * comparison of two runs that --verify-exec makes. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_internal.h"

void tir_exec_args_free(tir_exec_args *a) {
  if (!a) return;
  for (int i = 0; i < a->n; i++) {
    free(a->a[i].data);
    free(a->a[i].shape);
  }
  free(a->a);
  free(a);
}

tir_exec_args *tir_exec_args_new(const tir_func *f, tir_diag *d) {
  int nsv = 0;
  const tir_expr **sv = x_shape_vars(f, &nsv);
  tir_exec_args *a = calloc(1, sizeof *a);
  if (!a) abort();
  a->func = f;
  a->n = f->nparams + nsv;
  a->a = calloc((size_t)a->n + 1, sizeof *a->a);
  if (!a->a) abort();
  bool ok = true;
  for (int i = 0; i < f->nparams; i++) {
    tir_exec_arg *x = &a->a[i];
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    x->is_param = true;
    if (b) {
      for (int j = 0; j < i && ok; j++) /* B: T.Buffer(..., data=A.data): one memory under two arguments */
        if (f->buffer_map[j] && f->buffer_map[j]->data == b->data) {
          tir_error(d, b->span.line ? b->span : f->span,
                    "cannot run %s: buffer parameters '%s' and '%s' share one data pointer (aliased arguments are "
                    "not supported by the interpreter)", f->name, f->buffer_map[j]->name, b->name);
          ok = false;
        }
      x->name = b->name;
      x->is_buffer = true;
      x->dtype = b->dtype;
      x->ndim = b->ndim;
    } else {
      x->name = f->params[i]->u.var.name;
      x->dtype = f->params[i]->dtype;
      if (tir_dtype_is_handle(x->dtype)) {
        tir_error(d, f->params[i]->span.line ? f->params[i]->span : f->span,
                  "cannot run %s: handle parameter '%s' has no buffer (declare it with T.match_buffer)", f->name,
                  x->name);
        ok = false;
      }
    }
  }
  for (int k = 0; k < nsv; k++) {
    tir_exec_arg *x = &a->a[f->nparams + k];
    x->name = sv[k]->u.var.name;
    x->dtype = sv[k]->dtype;
  }
  free(sv);
  if (!ok) {
    tir_exec_args_free(a);
    return NULL;
  }
  return a;
}

bool tir_exec_args_set(tir_exec_args *a, const char *name, const char *value, tir_diag *d) {
  for (int i = 0; i < a->n; i++) {
    tir_exec_arg *x = &a->a[i];
    if (x->is_buffer || strcmp(x->name, name)) continue;
    char *end;
    errno = 0;
    if (tir_dtype_is_float(x->dtype)) {
      x->f = strtod(value, &end);
    } else if (!strcmp(value, "true") || !strcmp(value, "True")) {
      x->i = 1, end = (char *)value + strlen(value);
    } else if (!strcmp(value, "false") || !strcmp(value, "False")) {
      x->i = 0, end = (char *)value + strlen(value);
    } else {
      x->i = strtoll(value, &end, 0);
    }
    if (!*value || *end || errno) {
      tir_error(d, ((tir_span){0, 0}), "--arg %s=%s: not a value of %s", name, value, x->name);
      return false;
    }
    x->set = true;
    return true;
  }
  tir_error(d, ((tir_span){0, 0}), "--arg %s: %s has no scalar input of that name", name,
            a->func ? a->func->name : "the function");
  return false;
}

static uint64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

/* the value of an expr of the buffer fields, given the scalar inputs */
static bool field_value(const tir_exec_args *a, const tir_expr *e, int64_t *out);

static bool lookup(const tir_exec_args *a, const tir_expr *v, int64_t *out) {
  const tir_func *f = a->func;
  for (int i = 0; i < f->nparams; i++)
    if (f->params[i] == v && !a->a[i].is_buffer) {
      *out = a->a[i].i;
      return a->a[i].set;
    }
  int nsv = 0;
  const tir_expr **sv = x_shape_vars(f, &nsv);
  bool ok = false;
  for (int k = 0; k < nsv; k++)
    if (sv[k] == v) {
      *out = a->a[f->nparams + k].i;
      ok = a->a[f->nparams + k].set;
    }
  free(sv);
  return ok;
}

static bool field_value(const tir_exec_args *a, const tir_expr *e, int64_t *out) {
  int64_t x, y;
  switch (e->kind) {
  case TIR_INT_IMM: *out = e->u.int_val; return true;
  case TIR_VAR: return lookup(a, e, out);
  case TIR_CAST: return field_value(a, e->u.un.a, out);
  default: break;
  }
  if (!TIR_IS_BINARY(e->kind) || !field_value(a, e->u.bin.a, &x) || !field_value(a, e->u.bin.b, &y)) return false;
  switch (e->kind) {
  case TIR_ADD: *out = x + y; return true;
  case TIR_SUB: *out = x - y; return true;
  case TIR_MUL: *out = x * y; return true;
  case TIR_DIV: case TIR_FLOORDIV:
    if (!y) return false;
    *out = x / y - ((x % y != 0 && (x < 0) != (y < 0)) && e->kind == TIR_FLOORDIV);
    return true;
  case TIR_MOD: case TIR_FLOORMOD:
    if (!y) return false;
    *out = x % y;
    if (e->kind == TIR_FLOORMOD && *out && ((*out < 0) != (y < 0))) *out += y;
    return true;
  case TIR_MIN: *out = x < y ? x : y; return true;
  case TIR_MAX: *out = x > y ? x : y; return true;
  default: return false;
  }
}

static tir_exec_arg *arg_of_var(tir_exec_args *a, const tir_expr *v) {
  const tir_func *f = a->func;
  int nsv = 0;
  const tir_expr **sv = x_shape_vars(f, &nsv);
  tir_exec_arg *r = NULL;
  for (int k = 0; k < nsv; k++)
    if (sv[k] == v) r = &a->a[f->nparams + k];
  free(sv);
  return r;
}

static void fill(tir_exec_arg *x, uint64_t seed) {
  uint64_t s = seed;
  xek k = x_elem_kind(tir_dtype_with_lanes(x->dtype, 1));
  int eb = x_ek_bytes(k);
  size_t n = eb ? x->bytes / (size_t)eb : 0;
  uint8_t *p = x->data;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = x_splitmix(&s);
    switch (k) {
    case EK_BOOL: p[i] = (uint8_t)(r & 1); break;
    case EK_I8: case EK_U8: p[i] = (uint8_t)r; break;
    case EK_I16: case EK_I32: case EK_I64: x_write_int(p + i * (size_t)eb, k, (int64_t)(r % 128) - 64); break;
    case EK_U16: case EK_U32: case EK_U64: x_write_int(p + i * (size_t)eb, k, (int64_t)(r % 128)); break;
    default: x_write_float(p + i * (size_t)eb, k, (double)(int64_t)(r >> 11) / 4503599627370496.0 - 1.0); break;
    }
  }
}

bool tir_exec_args_randomize(tir_exec_args *a, uint64_t seed, tir_diag *d) {
  const tir_func *f = a->func;
  /* stride vars: compact strides; elem_offset vars: 0 (filled below, in
   * order, once the shapes they depend on are known) */
  for (int i = 0; i < f->nparams; i++) {
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b) continue;
    if (tir_is_var(b->elem_offset)) {
      tir_exec_arg *x = arg_of_var(a, b->elem_offset);
      if (x && !x->set) x->i = 0, x->set = true;
    }
  }
  /* other scalars: from the seed */
  for (int i = 0; i < a->n; i++) {
    tir_exec_arg *x = &a->a[i];
    if (x->is_buffer || x->set) continue;
    bool stride = false;
    for (int p = 0; p < f->nparams && !stride; p++) {
      const tir_buffer *b = f->buffer_map ? f->buffer_map[p] : NULL;
      for (int k = 0; b && k < b->nstrides; k++)
        if (tir_is_var(b->strides[k]) && arg_of_var(a, b->strides[k]) == x) stride = true;
    }
    if (stride) continue;
    uint64_t s = seed ^ name_hash(x->name);
    uint64_t r = x_splitmix(&s);
    if (tir_dtype_is_float(x->dtype)) x->f = x_round_to(x_elem_kind(x->dtype), (double)(int64_t)(r >> 11) / 4503599627370496.0 - 1.0);
    else if (tir_dtype_is_bool(x->dtype)) x->i = (int64_t)(r & 1);
    else x->i = 1 + (int64_t)(r % 16);
    x->set = true;
  }
  /* stride vars, innermost first: the compact stride given the shape */
  for (int i = 0; i < f->nparams; i++) {
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b || !b->nstrides) continue;
    int64_t m = 1;
    for (int k = b->nstrides - 1; k >= 0; k--) {
      int64_t e;
      if (tir_is_var(b->strides[k])) {
        tir_exec_arg *x = arg_of_var(a, b->strides[k]);
        if (x && !x->set) x->i = m, x->set = true;
      }
      int64_t sv;
      if (field_value(a, b->strides[k], &sv)) m = sv;
      if (k < b->ndim && field_value(a, b->shape[k], &e)) m *= e;
    }
  }
  /* buffers: shapes and sizes */
  for (int i = 0; i < f->nparams; i++) {
    tir_exec_arg *x = &a->a[i];
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b) continue;
    free(x->shape);
    x->shape = calloc((size_t)b->ndim + 1, sizeof *x->shape);
    if (!x->shape) abort();
    int64_t elems = 1, far = 0;
    bool empty = false;
    for (int k = 0; k < b->ndim; k++) {
      if (!field_value(a, b->shape[k], &x->shape[k]) || x->shape[k] < 0) {
        tir_error(d, b->span.line ? b->span : f->span, "cannot run %s: the extent of dim %d of %s is not known from the inputs",
                  f->name, k, b->name);
        return false;
      }
      if (x->shape[k] == 0) empty = true;
      if (x->shape[k] && elems > ((int64_t)1 << 40) / x->shape[k]) {
        tir_error(d, b->span.line ? b->span : f->span, "cannot run %s: buffer %s is too large", f->name, b->name);
        return false;
      }
      elems *= x->shape[k];
      if (b->nstrides == b->ndim) {
        int64_t st;
        if (!field_value(a, b->strides[k], &st)) {
          tir_error(d, b->span.line ? b->span : f->span, "cannot run %s: stride %d of %s is not known from the inputs",
                    f->name, k, b->name);
          return false;
        }
        if (x->shape[k] > 0 && st > 0) far += (x->shape[k] - 1) * st;
      }
    }
    if (b->nstrides == b->ndim) elems = empty ? 0 : far + 1;
    int64_t eo = 0;
    if (field_value(a, b->elem_offset, &eo) && eo > 0) elems += eo;
    size_t bytes = (size_t)elems * (size_t)tir_dtype_bytes(b->dtype);
    free(x->data);
    x->data = calloc(1, bytes + 1);
    if (!x->data) {
      tir_error(d, f->span, "cannot run %s: out of memory for %s (%zu bytes)", f->name, b->name, bytes);
      return false;
    }
    x->bytes = bytes;
    fill(x, seed ^ name_hash(x->name) ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull));
  }
  return true;
}

tir_exec_args *tir_exec_args_copy(const tir_exec_args *a) {
  tir_exec_args *c = calloc(1, sizeof *c);
  if (!c) abort();
  *c = *a;
  c->a = calloc((size_t)a->n + 1, sizeof *c->a);
  if (!c->a) abort();
  for (int i = 0; i < a->n; i++) {
    c->a[i] = a->a[i];
    if (a->a[i].data) {
      c->a[i].data = malloc(a->a[i].bytes + 1);
      if (!c->a[i].data) abort();
      memcpy(c->a[i].data, a->a[i].data, a->a[i].bytes);
    }
    if (a->a[i].shape) {
      c->a[i].shape = malloc(sizeof(int64_t) * ((size_t)a->a[i].ndim + 1));
      if (!c->a[i].shape) abort();
      memcpy(c->a[i].shape, a->a[i].shape, sizeof(int64_t) * (size_t)a->a[i].ndim);
    }
  }
  return c;
}

void tir_exec_args_print(const tir_exec_args *a, FILE *out) {
  for (int i = 0; i < a->n; i++) {
    const tir_exec_arg *x = &a->a[i];
    if (!x->is_buffer) continue;
    char t[32];
    fprintf(out, "%s %s ", x->name, tir_dtype_str(x->dtype, t));
    if (!x->ndim) fputs("()", out);
    for (int k = 0; k < x->ndim; k++) fprintf(out, "%s%" PRId64, k ? "x" : "", x->shape ? x->shape[k] : 0);
    fprintf(out, " %016" PRIx64 "\n", tir_exec_hash(x->data, x->bytes));
  }
}

static void fmt_index(char *out, size_t n, const tir_exec_arg *x, int64_t flat) {
  /* the multi-dimensional index of a compact buffer, else the flat one */
  if (x->ndim > 0 && x->shape) {
    int64_t idx[64];
    int64_t r = flat;
    for (int k = x->ndim - 1; k >= 0 && k < 64; k--) {
      int64_t e = x->shape[k] ? x->shape[k] : 1;
      idx[k] = r % e, r /= e;
    }
    if (r == 0 && x->ndim <= 64) {
      size_t len = (size_t)snprintf(out, n, "%s[", x->name);
      for (int k = 0; k < x->ndim && len < n; k++)
        len += (size_t)snprintf(out + len, n - len, "%s%" PRId64, k ? ", " : "", idx[k]);
      if (len < n) snprintf(out + len, n - len, "]");
      return;
    }
  }
  snprintf(out, n, "%s (element %" PRId64 ")", x->name, flat);
}

int tir_exec_args_compare(const tir_exec_args *want, const tir_exec_args *got, double rtol, double atol,
                          int64_t *flat, char *msg, size_t n) {
  for (int i = 0; i < want->n && i < got->n; i++) {
    const tir_exec_arg *w = &want->a[i], *g = &got->a[i];
    if (!w->is_buffer) continue;
    xek k = x_elem_kind(tir_dtype_with_lanes(w->dtype, 1));
    int eb = x_ek_bytes(k);
    size_t cnt = eb ? (w->bytes < g->bytes ? w->bytes : g->bytes) / (size_t)eb : 0;
    const uint8_t *pw = w->data, *pg = g->data;
    /* the buffer's typical magnitude (root mean square of the finite
     * values): an element that a sum cancels to near 0 is compared at that
     * scale, where a reordered sum's rounding lies (a 1,024-term float32
     * sum of 0.14 differs by 4e-6 when a pass splits it across threads) */
    double rms = 0;
    if (x_ek_is_float(k) && cnt) {
      double sq = 0;
      size_t fin = 0;
      for (size_t e = 0; e < cnt; e++) {
        double x = x_read_float(pw + e * (size_t)eb, k);
        if (isfinite(x)) sq += x * x, fin++;
      }
      rms = fin ? sqrt(sq / (double)fin) : 0;
    }
    for (size_t e = 0; e < cnt; e++) {
      const uint8_t *a = pw + e * (size_t)eb, *b = pg + e * (size_t)eb;
      if (!memcmp(a, b, (size_t)eb)) continue;
      char where[256], va[64], vb[64];
      int lanes = w->dtype.lanes > 0 ? w->dtype.lanes : 1;
      fmt_index(where, sizeof where, w, (int64_t)e / lanes);
      if (x_ek_is_float(k)) {
        double x = x_read_float(a, k), y = x_read_float(b, k);
        /* no tighter than 8 units in the last place of a half float (2^-10
         * float16, 2^-7 bfloat16): a reduction a pass reorders (a tree
         * across threads) rounds otherwise in its own precision */
        double r = k == EK_F16 ? 8 * 0x1p-10 : k == EK_BF16 ? 8 * 0x1p-7 : 0;
        r = r > rtol ? r : rtol;
        if ((x != x && y != y) || x == y || fabs(x - y) <= atol + r * (fabs(x) > rms ? fabs(x) : rms)) continue;
        snprintf(va, sizeof va, "%.9g", x);
        snprintf(vb, sizeof vb, "%.9g", y);
      } else {
        int64_t x = x_read_int(a, k), y = x_read_int(b, k);
        if (k == EK_U64) {
          snprintf(va, sizeof va, "%" PRIu64, (uint64_t)x);
          snprintf(vb, sizeof vb, "%" PRIu64, (uint64_t)y);
        } else {
          snprintf(va, sizeof va, "%" PRId64, x);
          snprintf(vb, sizeof vb, "%" PRId64, y);
        }
      }
      if (flat) *flat = (int64_t)e;
      if (msg && n) snprintf(msg, n, "%s is %s, was %s", where, vb, va);
      return i;
    }
  }
  return -1;
}
