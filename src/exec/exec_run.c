/* exec_run.c - compiling a function (slots, descriptors, parameters) and
 * running it: checked element addresses, storage, errors. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "exec/exec_eval.h"
#include "tir/analysis.h"
#include "tir/visit.h"

/* ------------------------------------------------------------------ */
/* the arena of compiled nodes                                          */

void *x_alloc(tir_exec_prog *p, size_t n) {
  n = (n + 15) & ~(size_t)15;
  xchunk *c = p->arena;
  if (!c || c->used + n > c->cap) {
    size_t cap = n > 65536 ? n : 65536;
    c = malloc(sizeof *c + cap);
    if (!c) abort();
    c->next = p->arena, c->used = 0, c->cap = cap;
    p->arena = c;
  }
  void *r = c->mem + c->used;
  c->used += n;
  memset(r, 0, n);
  return r;
}

/* ------------------------------------------------------------------ */
/* compile-time helpers                                                 */

void xc_error(xc *c, tir_span sp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  /* an expression built without a position: the statement being compiled */
  tir_diag_vadd(c->d, TIR_SEV_ERROR, sp.line ? sp : c->stmt_span, fmt, ap);
  va_end(ap);
  c->failed = true;
}

int xc_slot(xc *c, const tir_expr *var) {
  long s = tir_ptrmap_get(&c->vars, var, 0);
  if (s) return (int)s - 1;
  int lanes = var->dtype.lanes > 0 ? var->dtype.lanes : 1;
  int first = c->p->nslots;
  c->p->nslots += lanes;
  if (c->p->nslots > c->capslots) {
    int cap = c->capslots ? c->capslots : 64;
    while (cap < c->p->nslots) cap *= 2;
    c->defd = realloc(c->defd, (size_t)cap);
    c->hslot = realloc(c->hslot, (size_t)cap);
    if (!c->defd || !c->hslot) abort();
    memset(c->defd + c->capslots, 0, (size_t)(cap - c->capslots));
    memset(c->hslot + c->capslots, 0, (size_t)(cap - c->capslots));
    c->capslots = cap;
  }
  tir_ptrmap_put(&c->vars, var, first + 1);
  c->hslot[first] = tir_dtype_is_handle(var->dtype);
  return first;
}

int xc_buf(xc *c, const tir_buffer *b, int extra_dims) {
  long s = tir_ptrmap_get(&c->bufs, b, 0);
  tir_exec_prog *p = c->p;
  if (s) {
    xbinfo *bi = &p->binfo[s - 1];
    if (2 * bi->ndim + extra_dims > bi->dimcnt) { /* a view: room for its source mins */
      bi->dimoff = p->ndims;
      bi->dimcnt = 2 * bi->ndim + extra_dims;
      p->ndims += bi->dimcnt;
    }
    return (int)s - 1;
  }
  if (p->nbufs == c->capbufs) {
    c->capbufs = c->capbufs ? c->capbufs * 2 : 16;
    p->binfo = realloc(p->binfo, sizeof *p->binfo * (size_t)c->capbufs);
    if (!p->binfo) abort();
  }
  int i = p->nbufs++;
  xbinfo *bi = &p->binfo[i];
  memset(bi, 0, sizeof *bi);
  bi->b = b;
  bi->ndim = b->ndim;
  bi->dimcnt = 2 * b->ndim + extra_dims;
  bi->dimoff = p->ndims;
  p->ndims += bi->dimcnt;
  bi->esize = tir_dtype_bytes(b->dtype);
  bi->ek = x_elem_kind(tir_dtype_with_lanes(b->dtype, 1));
  bi->lanes = b->dtype.lanes;
  tir_ptrmap_put(&c->bufs, b, i + 1);
  return i;
}

/* ------------------------------------------------------------------ */
/* errors and storage at run time                                       */

void x_fail(xframe *fr, tir_span sp, const char *fmt, ...) {
  xrun *r = fr->run;
  if (r->stop) return; /* the first error only */
  r->stop = 1;
  va_list ap;
  va_start(ap, fmt);
  tir_diag_vadd(r->d, TIR_SEV_ERROR, sp, fmt, ap);
  va_end(ap);
}

/* A store's bytes start zero.  A large one is mapped: the kernel gives zero
 * pages as they are first touched, and a buffer allocated per block or per
 * thread is often touched at a few (relu_small's 4 MiB shared buffers, of
 * which each thread block writes 64 bytes).  calloc cleared all of it each
 * time: glibc raises its mmap threshold once a mapped chunk is freed, and
 * clears the heap chunks it hands out after that (20 s, now 8 s, for
 * tests/exec/relu_small.tir's --verify-exec). */
#define X_MAPPED_BYTES ((size_t)1 << 20)

static void *zero_bytes(size_t n) {
  if (n < X_MAPPED_BYTES) return calloc(1, n);
  void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static void free_bytes(void *p, size_t n) {
  if (n < X_MAPPED_BYTES) free(p);
  else if (p) munmap(p, n);
}

xstore *x_store_new(xframe *fr, int64_t bytes, const char *name, tir_span sp) {
  xrun *r = fr->run;
  if (bytes < 0 || bytes > r->max_bytes - r->live_bytes) {
    x_fail(fr, sp, "cannot run: %s needs %lld bytes, past the limit of %lld bytes allocated at once", name,
           (long long)bytes, (long long)r->max_bytes);
    return NULL;
  }
  xstore *s = malloc(sizeof *s);
  uint8_t *d = zero_bytes((size_t)bytes + 1), *in = zero_bytes((size_t)bytes + 1);
  if (!s || !d || !in) {
    free(s), free_bytes(d, (size_t)bytes + 1), free_bytes(in, (size_t)bytes + 1);
    x_fail(fr, sp, "cannot run: out of memory allocating %s (%lld bytes)", name, (long long)bytes);
    return NULL;
  }
  s->data = d, s->init = in, s->size = bytes, s->name = name, s->next_free = NULL, s->local = false;
  r->live_bytes += bytes;
  return s;
}

void x_store_free(xframe *fr, xstore *s) {
  if (!s) return;
  if (s->local) tir_ptrmap_put(&fr->run->live_local, s, 0);
  fr->run->live_bytes -= s->size;
  free_bytes(s->data, (size_t)s->size + 1);
  free_bytes(s->init, (size_t)s->size + 1);
  free(s);
}

void x_save_buf(int buf, xframe *fr, xsaved *sv) {
  const xbinfo *bi = &fr->run->p->binfo[buf];
  sv->b = fr->bufs[buf];
  sv->more = NULL;
  int64_t *to = sv->dims;
  if (bi->dimcnt > 48) {
    sv->more = malloc(sizeof(int64_t) * (size_t)bi->dimcnt);
    if (!sv->more) abort();
    to = sv->more;
  }
  memcpy(to, fr->dims + bi->dimoff, sizeof(int64_t) * (size_t)bi->dimcnt);
}

void x_restore_buf(int buf, xframe *fr, xsaved *sv) {
  const xbinfo *bi = &fr->run->p->binfo[buf];
  fr->bufs[buf] = sv->b;
  memcpy(fr->dims + bi->dimoff, sv->more ? sv->more : sv->dims, sizeof(int64_t) * (size_t)bi->dimcnt);
  free(sv->more);
}

/* "A[3, 17]" */
static void fmt_access(char *out, size_t n, const char *name, const int64_t *idx, int nidx) {
  size_t len = (size_t)snprintf(out, n, "%s[", name);
  for (int d = 0; d < nidx && len < n; d++)
    len += (size_t)snprintf(out + len, n - len, "%s%" PRId64, d ? ", " : "", idx[d]);
  if (len < n) snprintf(out + len, n - len, "]");
}

static uint8_t *addr_buf(int bi, const int64_t *idx, xframe *fr, bool write, const xacc *a, bool derive,
                         const char *via, xstore **sto) {
  const tir_exec_prog *p = fr->run->p;
  const xbinfo *inf = &p->binfo[bi];
  xbuf *b = &fr->bufs[bi];
  char acc[256], v[300];
  if (derive || !b->st) {
    if (!inf->derive || !x_declare(inf->derive, fr, NULL, 0)) {
      if (!fr->run->stop) x_fail(fr, a->span, "cannot run: buffer %s is used outside its scope", inf->b->name);
      return NULL;
    }
  }
  const int64_t *sh = fr->dims + inf->dimoff, *str = sh + inf->ndim;
  int nd = inf->ndim;
  bool by_shape = !(fr->run->flat_views && nd == 1 && b->view_src < 0); /* else the storage bounds it, below */
  for (int d = 0; by_shape && d < nd; d++)
    if (idx[d] < 0 || idx[d] >= sh[d]) {
      fmt_access(acc, sizeof acc, inf->b->name, idx, nd);
      if (via) snprintf(v, sizeof v, "%s is %s, ", via, acc);
      else v[0] = 0;
      x_fail(fr, a->span, "out-of-bounds access: %s%s: index %" PRId64 " of dim %d is not in [0, %" PRId64 ")", v,
             via ? "outside its source" : acc, idx[d], d, sh[d]);
      return NULL;
    }
  if (b->view_src >= 0) { /* a view: the element is the source's at region min + index */
    const xbinfo *si = &p->binfo[b->view_src];
    int sn = si->ndim, drop = sn - nd;
    const int64_t *mins = sh + 2 * nd;
    int64_t sidx[32];
    for (int j = 0; j < sn; j++) sidx[j] = mins[j] + (j >= drop ? idx[j - drop] : 0);
    fmt_access(acc, sizeof acc, inf->b->name, idx, nd);
    char vv[300];
    snprintf(vv, sizeof vv, "%s%s%s", via ? via : "", via ? " -> " : "", acc);
    return addr_buf(b->view_src, sidx, fr, write, a, false, vv, sto);
  }
  int64_t flat = 0;
  for (int d = 0; d < nd; d++) flat += idx[d] * str[d];
  xstore *st = b->st;
  int64_t off = b->base + flat * inf->esize + a->lane_off;
  if (off < 0 || off + a->lbytes > st->size) {
    fmt_access(acc, sizeof acc, inf->b->name, idx, nd);
    x_fail(fr, a->span, "out-of-bounds access: %s%s%s is element %" PRId64 " of %s, which has %" PRId64 " elements",
           via ? via : "", via ? " -> " : "", acc, (off - a->lane_off) / inf->esize, st->name,
           st->size / inf->esize);
    return NULL;
  }
  if (!write && st->init && fr->run->check_uninit) {
    const uint8_t *in = st->init + off;
    for (int k = 0; k < a->lbytes; k++)
      if (!in[k]) {
        fmt_access(acc, sizeof acc, inf->b->name, idx, nd);
        x_fail(fr, a->span, "read of %s%s%s, which was never written", via ? via : "", via ? " -> " : "", acc);
        return NULL;
      } else if (in[k] != 1 && in[k] != inf->tag) { /* bytes last written through another planned view */
        fmt_access(acc, sizeof acc, inf->b->name, idx, nd);
        x_fail(fr, a->span,
               "read of %s%s%s, whose bytes the memory plan also gave to %s, which overwrote them (a live range "
               "of the plan is wrong)",
               via ? via : "", via ? " -> " : "", acc, p->tag_name[in[k]] ? p->tag_name[in[k]] : "another buffer");
        return NULL;
      }
  }
  *sto = st;
  return st->data + off;
}

uint8_t *x_addr(const xacc *a, xframe *fr, const int64_t *idx, bool write, xstore **st) {
  return addr_buf(a->buf, idx, fr, write, a, a->derive, NULL, st);
}

/* ------------------------------------------------------------------ */
/* the inputs of a function (shared with exec_args.c)                   */

typedef struct inputs_state {
  const tir_func *f;
  const tir_expr **vars;
  int n, cap;
} inputs_state;

static bool is_param(const tir_func *f, const tir_expr *v) {
  for (int i = 0; i < f->nparams; i++)
    if (f->params[i] == v) return true;
  return false;
}

static bool collect_var(tir_visitor *v, const tir_expr *e) {
  inputs_state *st = v->user;
  if (e->kind != TIR_VAR || tir_dtype_is_handle(e->dtype) || is_param(st->f, e)) return true;
  for (int i = 0; i < st->n; i++)
    if (st->vars[i] == e) return true;
  if (st->n == st->cap) {
    st->cap = st->cap ? st->cap * 2 : 8;
    st->vars = realloc(st->vars, sizeof *st->vars * (size_t)st->cap);
    if (!st->vars) abort();
  }
  st->vars[st->n++] = e;
  return true;
}

/* the vars that the parameter buffers' fields name and no parameter binds,
 * in order (shape, strides, elem_offset of each buffer); malloc'd */
const tir_expr **x_shape_vars(const tir_func *f, int *n) {
  inputs_state st = {f, NULL, 0, 0};
  tir_visitor v = {.expr = collect_var, .user = &st};
  for (int i = 0; i < f->nparams; i++) {
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b) continue;
    for (int d = 0; d < b->ndim; d++) tir_visit_expr(&v, b->shape[d]);
    for (int d = 0; d < b->nstrides; d++) tir_visit_expr(&v, b->strides[d]);
    tir_visit_expr(&v, b->elem_offset);
  }
  *n = st.n;
  return st.vars;
}

/* ------------------------------------------------------------------ */
/* compiling a function                                                 */

void tir_exec_prog_free(tir_exec_prog *p) {
  if (!p) return;
  for (xchunk *c = p->arena; c;) {
    xchunk *n = c->next;
    free(c);
    c = n;
  }
  free(p->binfo);
  free(p->hslot);
  free(p->arg_slot);
  free(p->arg_buf);
  free(p->arg_decl);
  free(p->arg_dslot);
  free(p);
}

tir_exec_prog *tir_exec_compile(const tir_func *f, tir_diag *d) {
  if (!tir_func_check_lowerable(f, "the interpreter", d))
    return NULL;
  tir_exec_prog *p = calloc(1, sizeof *p);
  if (!p) abort();
  p->f = f;
  xc c = {.p = p, .d = d};
  int nsv = 0;
  const tir_expr **sv = x_shape_vars(f, &nsv);
  p->nargs = f->nparams + nsv;
  p->arg_slot = malloc(sizeof(int) * (size_t)(p->nargs + 1));
  p->arg_buf = malloc(sizeof(int) * (size_t)(p->nargs + 1));
  p->arg_decl = calloc((size_t)(p->nargs + 1), sizeof(xs *));
  p->arg_dslot = calloc((size_t)(p->nargs + 1), sizeof(int));
  if (!p->arg_dslot || !p->arg_slot || !p->arg_buf || !p->arg_decl) abort();
  /* every input var first: the buffers' fields may name any of them */
  for (int i = 0; i < f->nparams; i++) {
    p->arg_slot[i] = xc_slot(&c, f->params[i]);
    c.defd[p->arg_slot[i]] = 1;
    p->arg_buf[i] = -1;
  }
  for (int k = 0; k < nsv; k++) {
    p->arg_slot[f->nparams + k] = xc_slot(&c, sv[k]);
    c.defd[p->arg_slot[f->nparams + k]] = 1;
    p->arg_buf[f->nparams + k] = -1;
  }
  for (int i = 0; i < f->nparams; i++) {
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b) {
      if (tir_dtype_is_handle(f->params[i]->dtype))
        xc_error(&c, f->params[i]->span.line ? f->params[i]->span : f->span,
                 "cannot run %s: handle parameter '%s' has no buffer (declare it with T.match_buffer)", f->name,
                 f->params[i]->u.var.name);
      continue;
    }
    int ds = xc_slot(&c, b->data);
    c.defd[ds] = 1;
    p->arg_dslot[i] = ds;
    p->arg_buf[i] = xc_buf(&c, b, 0);
    if (x_elem_kind(tir_dtype_with_lanes(b->dtype, 1)) == EK_BAD) {
      char t[32];
      xc_error(&c, b->span.line ? b->span : f->span, "cannot run %s: buffer %s holds %s values", f->name, b->name,
               tir_dtype_str(b->dtype, t));
    }
  }
  for (int i = 0; i < f->nparams; i++)
    if (p->arg_buf[i] >= 0) {
      const tir_buffer *b = f->buffer_map[i];
      p->arg_decl[i] = xc_decl(&c, b, NULL);
      p->binfo[p->arg_buf[i]].declared = true;
    }
  free(sv);
  if (!c.failed) p->body = xc_stmt(&c, f->body);
  /* every buffer can be derived from its fields where no declaration is in scope */
  if (!c.failed)
    for (int i = 0; i < p->nbufs; i++) {
      xbinfo *bi = &p->binfo[i];
      long ds = tir_ptrmap_get(&c.vars, bi->b->data, 0);
      /* the data var has a slot wherever it is bound; compile the fields
       * with every var visible (they are read at the access) */
      uint8_t *saved = malloc((size_t)(c.capslots ? c.capslots : 1));
      if (!saved) abort();
      memcpy(saved, c.defd, (size_t)c.capslots);
      memset(c.defd, 1, (size_t)c.capslots);
      tir_diag tmp;
      tir_diag_init(&tmp);
      tir_diag *keep = c.d;
      bool kf = c.failed;
      c.d = &tmp;
      if (ds) bi->derive = xc_decl(&c, bi->b, xc_expr(&c, bi->b->data, 0));
      /* a field naming a var that is never bound: no derivation */
      if (tmp.nerrors) bi->derive = NULL;
      c.d = keep;
      c.failed = kf;
      tir_diag_free(&tmp);
      memcpy(c.defd, saved, (size_t)c.capslots);
      free(saved);
    }
  tir_ptrmap_free(&c.vars);
  tir_ptrmap_free(&c.bufs);
  tir_ptrmap_free(&c.pools);
  free(c.defd);
  p->hslot = c.hslot;
  free(c.thread_slots);
  free(c.thread_tags);
  if (c.failed) {
    tir_exec_prog_free(p);
    return NULL;
  }
  return p;
}

int64_t tir_exec_prog_steps(const tir_exec_prog *p) { return p ? p->steps : 0; }

/* ------------------------------------------------------------------ */
/* running                                                              */

int64_t x_buffer_bytes(const xs *s, xframe *fr, bool *ok);

bool tir_exec_run(tir_exec_prog *p, tir_exec_args *args, const tir_exec_opts *o, tir_diag *d) {
  static const tir_exec_opts dflt = {0};
  if (!o) o = &dflt;
  const tir_func *f = p->f;
  if (!args || args->n != p->nargs) {
    tir_error(d, f->span, "cannot run %s: %d inputs given, %d expected", f->name, args ? args->n : 0, p->nargs);
    return false;
  }
  xrun r = {.p = p, .d = d};
  r.budget = o->max_iterations > 0 ? o->max_iterations : 4000000000LL;
  r.max_bytes = o->max_bytes > 0 ? o->max_bytes : (int64_t)4 << 30;
  r.check_uninit = !o->no_uninit_check;
  r.flat_views = o->flat_views;
  xframe fr = {0};
  fr.run = &r;
  fr.slots = calloc((size_t)p->nslots + 1, sizeof *fr.slots);
  fr.bufs = calloc((size_t)p->nbufs + 1, sizeof *fr.bufs);
  fr.dims = calloc((size_t)p->ndims + 1, sizeof *fr.dims);
  xstore *params = calloc((size_t)p->nargs + 1, sizeof *params);
  if (!fr.slots || !fr.bufs || !fr.dims || !params) abort();
  for (int i = 0; i < p->nbufs; i++) fr.bufs[i].view_src = -1;
  /* scalars first: the buffers' shapes name them */
  for (int i = 0; i < p->nargs; i++) {
    tir_exec_arg *a = &args->a[i];
    if (a->is_buffer) continue;
    const tir_expr *var = i < f->nparams ? f->params[i] : NULL;
    tir_dtype t = var ? var->dtype : a->dtype;
    if (tir_dtype_is_float(t)) fr.slots[p->arg_slot[i]].f = x_round_to(x_elem_kind(t), a->f);
    else fr.slots[p->arg_slot[i]].i = x_wrap(a->i, t.bits ? t.bits : 32, t.code == TIR_TC_UINT);
  }
  for (int i = 0; i < p->nargs && !r.stop; i++) {
    tir_exec_arg *a = &args->a[i];
    if (!a->is_buffer || p->arg_buf[i] < 0) continue;
    xstore *st = &params[i];
    st->data = a->data, st->init = NULL, st->size = (int64_t)a->bytes, st->name = a->name;
    const xs *decl = p->arg_decl[i];
    bool ok;
    int64_t need = x_buffer_bytes(decl, &fr, &ok);
    if (!ok) break;
    if (need > (int64_t)a->bytes || (!a->data && need)) {
      tir_error(d, decl->span, "cannot run %s: buffer %s needs %lld bytes, %zu given", f->name, a->name,
                (long long)need, a->bytes);
      r.stop = 1;
      break;
    }
    xval h = {.h = {st, 0}};
    fr.slots[p->arg_slot[i]] = h;
    fr.slots[p->arg_dslot[i]] = h;
    x_declare(decl, &fr, st, 0);
  }
  if (!r.stop) x_exec(p->body, &fr);
  p->steps = r.steps;
  x_run_sched_free(&r);
  free(fr.slots);
  free(fr.bufs);
  free(fr.dims);
  free(params);
  return !r.stop;
}

bool tir_exec(const tir_func *f, tir_exec_args *args, const tir_exec_opts *o, tir_diag *d) {
  tir_exec_prog *p = tir_exec_compile(f, d);
  if (!p) return false;
  bool ok = tir_exec_run(p, args, o, d);
  tir_exec_prog_free(p);
  return ok;
}

/* ------------------------------------------------------------------ */

static bool known_extern(const char *name);

static bool find_opaque(tir_visitor *v, const tir_expr *e) {
  if (e->kind != TIR_CALL) return true;
  const char *op = e->u.call.op;
  if (strcmp(op, "call_extern") && strcmp(op, "call_pure_extern")) return true;
  if (e->u.call.nargs < 1 || e->u.call.args[0]->kind != TIR_STRING_IMM || known_extern(e->u.call.args[0]->u.str))
    return true;
  for (int i = 1; i < e->u.call.nargs; i++) {
    const tir_expr *a = e->u.call.args[i];
    if (tir_dtype_is_handle(a->dtype) && a->kind != TIR_STRING_IMM &&
        !(a->kind == TIR_CALL && !strcmp(a->u.call.op, "tvm_access_ptr")))
      ++*(int *)v->user;
  }
  return true;
}

int tir_exec_count_opaque_pointers(const tir_func *f) {
  int n = 0;
  tir_visitor v = {.expr = find_opaque, .user = &n};
  tir_visit_stmt(&v, f->body);
  return n;
}

bool tir_exec_has_opaque_pointers(const tir_func *f) { return tir_exec_count_opaque_pointers(f) > 0; }

bool x_known_extern(const char *name);
static bool known_extern(const char *name) { return x_known_extern(name); }
