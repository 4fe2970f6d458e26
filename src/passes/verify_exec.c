/* verify_exec.c - the pipeline's --verify-exec: every function is run on
 * seeded random inputs before the pipeline and after each pass, and every
 * buffer argument compared with the previous stage's (ints bit-exact,
 * floats within TIR_EXEC_RTOL / TIR_EXEC_ATOL at the buffer's scale, 8 ulps for half floats).  A difference, or a
 * checked-execution error after a pass, is that pass's failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/verify_exec.h"
#include "tir/exec.h"

struct tir_verify_exec {
  int n;
  const char **names;     /* function names */
  tir_exec_args **inputs; /* the inputs, as generated */
  tir_exec_args **last;   /* the buffers after the last stage */
  bool *done;             /* no longer checked */
  int *opaque;            /* raw pointers handed to unknown externs, at the start */
  bool flat;              /* FlattenBuffer has run: tir_exec_opts.flat_views */
};

/* inputs for f: seeded, with the given assignments where f has the input */
static tir_exec_args *make_inputs(const tir_func *f, const tir_pipeline_opts *o, tir_diag *d) {
  tir_exec_args *a = tir_exec_args_new(f, d);
  if (!a) return NULL;
  for (int k = 0; k < o->exec_nassign; k++) {
    const char *s = o->exec_assign[k], *eq = strchr(s, '=');
    if (!eq) continue;
    char name[128];
    size_t len = (size_t)(eq - s) < sizeof name - 1 ? (size_t)(eq - s) : sizeof name - 1;
    memcpy(name, s, len);
    name[len] = 0;
    for (int i = 0; i < a->n; i++)
      if (!a->a[i].is_buffer && !strcmp(a->a[i].name, name) && !tir_exec_args_set(a, name, eq + 1, d)) {
        tir_exec_args_free(a);
        return NULL;
      }
  }
  if (!tir_exec_args_randomize(a, o->exec_seed, d)) {
    tir_exec_args_free(a);
    return NULL;
  }
  return a;
}

/* runs f on a copy of in; the copy, or NULL with the run's errors in tmp */
static tir_exec_args *run_copy(const tir_func *f, const tir_exec_args *in, bool flat, tir_diag *tmp) {
  tir_exec_args *a = tir_exec_args_copy(in);
  a->func = f;
  tir_exec_opts o = {.flat_views = flat};
  if (!tir_exec(f, a, &o, tmp)) {
    tir_exec_args_free(a);
    return NULL;
  }
  return a;
}

void tir_verify_exec_free(tir_verify_exec *v) {
  if (!v) return;
  for (int i = 0; i < v->n; i++) {
    tir_exec_args_free(v->inputs[i]);
    tir_exec_args_free(v->last[i]);
  }
  free(v->names);
  free(v->inputs);
  free(v->last);
  free(v->done);
  free(v->opaque);
  free(v);
}

static void relay(tir_diag *d, const tir_diag *tmp, const char *prefix) {
  for (int k = 0; k < tmp->n; k++)
    tir_diag_add(d, tmp->items[k].sev, tmp->items[k].span, "%s%s", prefix, tmp->items[k].msg);
}

tir_verify_exec *tir_verify_exec_begin(const tir_module *m, const tir_pipeline_opts *o, tir_diag *d) {
  tir_verify_exec *v = calloc(1, sizeof *v);
  if (!v) abort();
  v->n = m->nfuncs;
  v->names = calloc((size_t)v->n + 1, sizeof *v->names);
  v->inputs = calloc((size_t)v->n + 1, sizeof *v->inputs);
  v->last = calloc((size_t)v->n + 1, sizeof *v->last);
  v->done = calloc((size_t)v->n + 1, sizeof *v->done);
  v->opaque = calloc((size_t)v->n + 1, sizeof *v->opaque);
  if (!v->opaque) abort();
  if (!v->done || !v->names || !v->inputs || !v->last) abort();
  for (int i = 0; i < m->nfuncs; i++) {
    const tir_func *f = m->funcs[i];
    v->names[i] = f->name;
    v->opaque[i] = tir_exec_count_opaque_pointers(f);
    tir_diag tmp;
    tir_diag_init(&tmp);
    v->inputs[i] = make_inputs(f, o, &tmp);
    if (v->inputs[i]) v->last[i] = run_copy(f, v->inputs[i], false, &tmp);
    if (!v->last[i]) {
      char pre[256];
      snprintf(pre, sizeof pre, "--verify-exec: function '%s' cannot be run on its input: ", f->name);
      relay(d, &tmp, pre);
      tir_diag_free(&tmp);
      tir_verify_exec_free(v);
      return NULL;
    }
    tir_diag_free(&tmp);
  }
  return v;
}

bool tir_verify_exec_step(tir_verify_exec *v, const tir_module *m, const char *pass, tir_diag *d) {
  bool ok = true;
  if (!strcmp(pass, "FlattenBuffer")) v->flat = true;
  for (int i = 0; i < m->nfuncs && i < v->n; i++) {
    const tir_func *f = m->funcs[i];
    if (v->done[i]) continue;
    if (tir_exec_count_opaque_pointers(f) > v->opaque[i]) { /* one more: the extern sees less than before */
      tir_warning(d, f->span,
                  "--verify-exec: after pass '%s', function '%s' hands raw pointers to extern functions the "
                  "interpreter cannot see into; it is not checked after this pass",
                  pass, f->name);
      v->done[i] = true;
      continue;
    }
    tir_diag tmp;
    tir_diag_init(&tmp);
    tir_exec_args *out = run_copy(f, v->inputs[i], v->flat, &tmp);
    if (!out) {
      char pre[512];
      snprintf(pre, sizeof pre, "--verify-exec: pass '%s' broke function '%s', which now fails when run: ", pass,
               f->name);
      relay(d, &tmp, pre);
      tir_diag_free(&tmp);
      ok = false;
      continue;
    }
    tir_diag_free(&tmp);
    char msg[512];
    int64_t flat = 0;
    int bad = tir_exec_args_compare(v->last[i], out, TIR_EXEC_RTOL, TIR_EXEC_ATOL, &flat, msg, sizeof msg);
    if (bad >= 0) {
      tir_error(d, f->span,
                "--verify-exec: pass '%s' changed what function '%s' computes: buffer %s, first difference at "
                "element %lld: %s",
                pass, f->name, out->a[bad].name, (long long)flat, msg);
      tir_exec_args_free(out);
      ok = false;
      continue;
    }
    tir_exec_args_free(v->last[i]);
    v->last[i] = out;
  }
  return ok;
}
