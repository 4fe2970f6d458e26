/* exec_stmt.c - statements compiled to closures: stores, lets, loops of
 * every kind (thread loops through exec_thread.c), ifs, allocations and
 * buffer declarations, blocks (iter vars, predicate, init, match_buffer
 * views, block allocations), asserts and evaluates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_eval.h"

/* ------------------------------------------------------------------ */
/* runtime                                                              */

/* an error stops the run; a break or continue unwinds to its loop */
static inline bool stopped(xframe *fr) { return fr->run->stop != 0 || fr->jump != 0; }

/* after a loop body: true when the loop ends (a break, or an error); a
 * continue is consumed */
static inline bool loop_exit(xframe *fr) {
  if (fr->jump) {
    int j = fr->jump;
    fr->jump = 0;
    if (j == 1) return true;
  }
  return fr->run->stop != 0;
}

static void s_break(const xs *s, xframe *fr) {
  (void)s;
  fr->jump = 1;
}

static void s_continue(const xs *s, xframe *fr) {
  (void)s;
  fr->jump = 2;
}

static void s_nop(const xs *s, xframe *fr) { (void)s; (void)fr; }

static void s_seq(const xs *s, xframe *fr) {
  for (int i = 0; i < s->n && !stopped(fr); i++) x_exec(s->seq[i], fr);
}

static void s_store(const xs *s, xframe *fr) {
  const xacc *a = s->acc;
  int64_t idx[32];
  for (int d = 0; d < a->ndim; d++) idx[d] = EVI(a->idx[d]);
  xval v = x_eval_val(s->a, fr);
  if (!stopped(fr)) x_store_value(a, fr, idx, s->a, v);
}

/* one index, int32 elements, not a view: the hot case */
static void s_store1_i32(const xs *s, xframe *fr) {
  const xacc *a = s->acc;
  int64_t i = EVI(a->idx[0]);
  int64_t v = EVI(s->a);
  const xbuf *b = &fr->bufs[a->buf];
  if (b->view_src < 0 && b->st && !a->derive && !stopped(fr)) {
    const int64_t *sh = fr->dims + a->dimoff;
    int64_t off = i >= 0 && i < sh[0] ? b->base + i * sh[1] * 4 : -1; /* (i checked first: i * stride may overflow) */
    if (off >= 0 && off + 4 <= b->st->size) {
      int32_t w = (int32_t)v;
      memcpy(b->st->data + off, &w, 4);
      if (b->st->init) memset(b->st->init + off, X_INIT_TAG(fr->run->p, a->buf), 4);
      return;
    }
  }
  if (!stopped(fr)) x_store_value(a, fr, &i, s->a, (xval){.i = v});
}

/* a vector store: every lane's index and value first, then the writes */
static void s_store_vec(const xs *s, xframe *fr) {
  int L = s->lanes;
  const xacc *a0 = s->acc;
  int nd = a0->ndim;
  int64_t idx[32 * 4];
  xval vals[64];
  int64_t *ix = L * nd <= (int)(sizeof idx / sizeof idx[0]) ? idx : malloc(sizeof *ix * (size_t)(L * nd));
  xval *vv = L <= 64 ? vals : malloc(sizeof *vv * (size_t)L);
  if (!ix || !vv) abort();
  for (int l = 0; l < L; l++) {
    const xacc *a = s->lidx ? (const xacc *)s->lidx[l] : a0;
    for (int d = 0; d < nd; d++) ix[l * nd + d] = EVI(a->idx[d]);
    vv[l] = x_eval_val(s->la[l], fr);
  }
  for (int l = 0; l < L && !stopped(fr); l++) {
    const xacc *a = s->lidx ? (const xacc *)s->lidx[l] : a0;
    x_store_value(a, fr, ix + l * nd, s->la[l], vv[l]);
  }
  if (ix != idx) free(ix);
  if (vv != vals) free(vv);
}

static void bind_lanes(const xs *s, xframe *fr) {
  for (int l = 0; l < s->lanes; l++) {
    const xe *v = s->la[l];
    if (v->vc == XV_INT) fr->slots[s->slot + l].i = EVI(v);
    else if (v->vc == XV_FLOAT) fr->slots[s->slot + l].f = EVF(v);
    else fr->slots[s->slot + l] = EVH(v);
  }
}

static void s_let(const xs *s, xframe *fr) {
  bind_lanes(s, fr);
  if (!stopped(fr)) x_exec(s->body, fr);
}

static bool spend(xframe *fr, int64_t n, tir_span sp) {
  xrun *r = fr->run;
  if (n <= r->budget) { /* (compared first: a huge n would overflow the counters) */
    r->steps += n;
    r->budget -= n;
    return true;
  }
  r->budget = -1;
  x_fail(fr, sp, "the run went past its limit of loop iterations (an endless loop?)");
  return false;
}

static void s_for(const xs *s, xframe *fr) {
  int64_t lo = EVI(s->a), n = EVI(s->b);
  if (stopped(fr) || n <= 0 || !spend(fr, n, s->span)) return;
  xval *v = &fr->slots[s->slot];
  const xs *body = s->body;
  xs_fn fn = body->fn;
  for (int64_t i = 0; i < n; i++) {
    v->i = lo + i;
    fn(body, fr);
    if ((fr->jump || fr->run->stop) && loop_exit(fr)) return;
  }
}

/* a loop with a step: min, min + step, ... below min + extent; the step
 * must be positive (TVM lowers no other) */
static void s_for_step(const xs *s, xframe *fr) {
  int64_t lo = EVI(s->a), n = EVI(s->b), st = EVI(s->step);
  if (stopped(fr)) return;
  if (st <= 0) {
    x_fail(fr, s->span, "loop step %lld is not positive (TVM lowers only positive steps)", (long long)st);
    return;
  }
  if (n <= 0) return;
  int64_t trips = n / st + (n % st != 0);
  if (!spend(fr, trips, s->span)) return;
  xval *v = &fr->slots[s->slot];
  const xs *body = s->body;
  for (int64_t k = 0; k < trips; k++) {
    v->i = lo + k * st;
    body->fn(body, fr);
    if ((fr->jump || fr->run->stop) && loop_exit(fr)) return;
  }
}

static void s_thread_for(const xs *s, xframe *fr) {
  int64_t lo = EVI(s->a), n = EVI(s->b);
  if (stopped(fr) || n <= 0 || !spend(fr, n, s->span)) return;
  x_thread_loop(s, fr, lo, n);
}

static void s_while(const xs *s, xframe *fr) {
  while (!stopped(fr) && EVI(s->a)) {
    if (!spend(fr, 1, s->span)) return;
    x_exec(s->body, fr);
    if ((fr->jump || fr->run->stop) && loop_exit(fr)) return;
  }
}

static void s_if(const xs *s, xframe *fr) {
  int64_t c = EVI(s->a);
  if (stopped(fr)) return;
  if (c) x_exec(s->body, fr);
  else if (s->body2) x_exec(s->body2, fr);
}

static void s_eval(const xs *s, xframe *fr) {
  const xe *e = s->a;
  if (e->vc == XV_INT) (void)EVI(e);
  else if (e->vc == XV_FLOAT) (void)EVF(e);
  else (void)EVH(e);
}

static void s_assert(const xs *s, xframe *fr) {
  int64_t c = EVI(s->a);
  if (stopped(fr)) return;
  if (!c) {
    x_fail(fr, s->span, "assertion failed%s%s", s->name ? ": " : "", s->name ? s->name : "");
    return;
  }
  x_exec(s->body, fr);
}

/* ---- buffers ---- */

/* fills b's descriptor from its fields; data from st/off, or s->data */
bool x_declare(const xs *s, xframe *fr, xstore *st, int64_t off) {
  if (!st) {
    xval h = EVH(s->data);
    if (stopped(fr)) return false;
    if (!h.h.st) {
      x_fail(fr, s->span, "buffer %s has no storage here (its data pointer is not set)", s->name);
      return false;
    }
    st = h.h.st, off = h.h.off;
  }
  int64_t *sh = fr->dims + s->dimoff, *str = sh + s->ndim;
  for (int d = 0; d < s->ndim; d++) {
    sh[d] = EVI(s->shape[d]);
    if (sh[d] < 0 && !stopped(fr)) {
      x_fail(fr, s->span, "buffer %s has a negative extent %lld in dim %d", s->name, (long long)sh[d], d);
      return false;
    }
  }
  if (s->nstr) {
    for (int d = 0; d < s->ndim; d++) str[d] = EVI(s->strides[d]);
  } else {
    int64_t m = 1;
    for (int d = s->ndim - 1; d >= 0; d--) str[d] = m, m *= sh[d];
  }
  int64_t eo = EVI(s->elem_off);
  if (stopped(fr)) return false;
  xbuf *b = &fr->bufs[s->buf];
  b->st = st;
  b->eoff = eo;
  b->base = off + eo * s->esize;
  b->view_src = -1;
  return true;
}

/* the bytes a buffer needs: elem_offset + the farthest element + 1 */
int64_t x_buffer_bytes(const xs *s, xframe *fr, bool *ok) {
  int64_t n = 1, far = 0;
  bool empty = false;
  for (int d = 0; d < s->ndim; d++) {
    int64_t e = EVI(s->shape[d]);
    if (e < 0) {
      x_fail(fr, s->span, "buffer %s has a negative extent %lld in dim %d", s->name, (long long)e, d);
      *ok = false;
      return 0;
    }
    if (e == 0) empty = true;
    if (s->nstr) {
      int64_t st = EVI(s->strides[d]);
      if (e > 0) far += (e - 1) * (st < 0 ? 0 : st);
    } else if (n > (INT64_MAX / 16) / (e ? e : 1)) {
      x_fail(fr, s->span, "buffer %s is too large to allocate", s->name);
      *ok = false;
      return 0;
    } else {
      n *= e;
    }
  }
  int64_t elems = s->nstr ? (empty ? 0 : far + 1) : n;
  int64_t eo = EVI(s->elem_off);
  if (eo > 0) elems += eo;
  *ok = !stopped(fr);
  return elems * s->esize;
}

static xstore *alloc_storage(const xs *s, xframe *fr, int64_t bytes) {
  if (s->shared && fr->group) { /* one per thread block */
    xstore **slot = &fr->group->shared[s->group_idx];
    if (!*slot) *slot = x_store_new(fr, bytes, s->name, s->span);
    return *slot;
  }
  xstore *st = x_store_new(fr, bytes, s->name, s->span);
  if (st && s->local) {
    st->local = true;
    tir_ptrmap_put(&fr->run->live_local, st, 1);
  }
  return st;
}

static void release_storage(const xs *s, xframe *fr, xstore *st) {
  if (s->shared && fr->group) return; /* freed with the thread block */
  x_store_free(fr, st);
}

static void s_decl(const xs *s, xframe *fr) {
  xsaved sv;
  x_save_buf(s->buf, fr, &sv);
  if (x_declare(s, fr, NULL, 0)) x_exec(s->body, fr);
  x_restore_buf(s->buf, fr, &sv);
}

/* allocate b's storage, bind its data var, declare it; false on error */
static xstore *alloc_buffer(const xs *s, xframe *fr) {
  bool ok;
  int64_t bytes = x_buffer_bytes(s, fr, &ok);
  if (!ok) return NULL;
  xstore *st = alloc_storage(s, fr, bytes);
  if (!st) return NULL;
  if (s->data_slot >= 0) fr->slots[s->data_slot] = (xval){.h = {st, 0}};
  if (!x_declare(s, fr, st, 0)) {
    release_storage(s, fr, st);
    return NULL;
  }
  return st;
}

static void s_alloc_buffer(const xs *s, xframe *fr) {
  xsaved sv;
  x_save_buf(s->buf, fr, &sv);
  xstore *st = alloc_buffer(s, fr);
  if (st) {
    x_exec(s->body, fr);
    release_storage(s, fr, st);
  }
  x_restore_buf(s->buf, fr, &sv);
}

/* Allocate(var, dtype, extents): raw storage bound to var */
static void s_allocate(const xs *s, xframe *fr) {
  int64_t n = 1;
  for (int d = 0; d < s->ndim; d++) {
    int64_t e = EVI(s->shape[d]);
    if (e < 0 || (e && n > (INT64_MAX / 16) / e)) {
      if (!stopped(fr)) x_fail(fr, s->span, "allocation %s has a bad extent %lld", s->name, (long long)e);
      return;
    }
    n *= e;
  }
  if (stopped(fr)) return;
  xstore *st = alloc_storage(s, fr, n * s->esize);
  if (!st) return;
  xval old = fr->slots[s->data_slot];
  fr->slots[s->data_slot] = (xval){.h = {st, 0}};
  x_exec(s->body, fr);
  fr->slots[s->data_slot] = old;
  release_storage(s, fr, st);
}

/* ---- blocks ---- */

static bool bind_field(xframe *fr, int slot, const xe *chk, int64_t v, const xmatch *m, const char *field, int i) {
  if (slot >= 0) {
    fr->slots[slot].i = v;
    return true;
  }
  int64_t have = EVI(chk);
  if (stopped(fr)) return false;
  if (have == v) return true;
  char f[64];
  if (i >= 0) snprintf(f, sizeof f, "%s_%d", field, i);
  else snprintf(f, sizeof f, "%s", field);
  x_fail(fr, m->span, "%s.%s: buffer match constraint unmet: %lld == %lld", m->vname, f, (long long)have,
         (long long)v);
  return false;
}

static bool do_match(const xmatch *m, xframe *fr) {
  const tir_exec_prog *p = fr->run->p;
  xbuf *src = &fr->bufs[m->src];
  const xbinfo *si = &p->binfo[m->src], *vi = &p->binfo[m->view];
  if (!src->st || !si->declared) {
    if (!si->derive || !x_declare(si->derive, fr, NULL, 0)) {
      if (!stopped(fr)) x_fail(fr, m->span, "the source of %s is not in scope", m->vname);
      return false;
    }
  }
  const int64_t *sstr = fr->dims + si->dimoff + si->ndim;
  int64_t mins[32], exts[32];
  for (int d = 0; d < m->sndim; d++) mins[d] = EVI(m->mins[d]), exts[d] = EVI(m->exts[d]);
  if (stopped(fr)) return false;
  int drop = m->sndim - m->vndim;
  for (int d = 0; d < drop; d++)
    if (exts[d] != 1) {
      x_fail(fr, m->span, "%s drops dim %d of its source region, whose extent is %lld, not 1", m->vname, d,
             (long long)exts[d]);
      return false;
    }
  int64_t eo = src->eoff;
  for (int d = 0; d < m->sndim; d++) eo += mins[d] * sstr[d];
  if (m->data_slot >= 0)
    fr->slots[m->data_slot] = (xval){.h = {src->st, src->base - src->eoff * si->esize}};
  if (!bind_field(fr, m->off_slot, m->off_chk, eo, m, "elem_offset", -1)) return false;
  int factor = vi->b->offset_factor > 0 ? vi->b->offset_factor : 1;
  if (eo % factor) {
    x_fail(fr, m->span, "%s.elem_offset: source offset %lld is not a multiple of offset_factor %d", m->vname,
           (long long)eo, factor);
    return false;
  }
  if (m->str_slot)
    for (int i = m->vndim - 1; i >= 0; i--)
      if (!bind_field(fr, m->str_slot[i], m->str_chk[i], sstr[i + drop], m, "strides", i)) return false;
  for (int i = 0; i < m->vndim; i++)
    if (!bind_field(fr, m->shp_slot[i], m->shp_chk[i], exts[i + drop], m, "shape", i)) return false;
  /* the view: its shape, strides (the source's), and where it sits in the source */
  xbuf *v = &fr->bufs[m->view];
  int64_t *vd = fr->dims + vi->dimoff;
  for (int i = 0; i < m->vndim; i++) vd[i] = exts[i + drop], vd[m->vndim + i] = sstr[i + drop];
  for (int d = 0; d < m->sndim; d++) vd[2 * m->vndim + d] = mins[d];
  v->st = src->st;
  v->eoff = eo;
  v->base = src->base + (eo - src->eoff) * si->esize;
  v->view_src = m->src;
  return true;
}

static void s_block(const xs *s, xframe *fr) {
  if (s->pred && !EVI(s->pred)) return;
  if (stopped(fr)) return;
  bool first = s->init != NULL;
  for (int i = 0; i < s->niter; i++) {
    int64_t v = EVI(s->ivals[i]);
    if (stopped(fr)) return;
    int64_t lo = EVI(s->imins[i]), ext = EVI(s->iexts[i]);
    if (v < lo || v >= lo + ext) {
      x_fail(fr, s->span, "block %s: iter var %s = %lld is outside its domain [%lld, %lld)", s->name,
             s->blk->iter_vars[i].var->u.var.name, (long long)v, (long long)lo, (long long)(lo + ext));
      return;
    }
    fr->slots[s->islots[i]].i = v;
    if (s->ireduce[i] && v != lo) first = false;
  }
  if (!s->nmatch && !s->nalloc) {
    if (first) x_exec(s->init, fr);
    if (!stopped(fr)) x_exec(s->body, fr);
    return;
  }
  /* views and allocations live for the block's body */
  int nsave = s->nmatch + s->nalloc;
  xsaved svs[4];
  xsaved *sv = nsave <= 4 ? svs : malloc(sizeof *sv * (size_t)nsave);
  xstore *sts[8];
  xstore **st = s->nalloc <= 8 ? sts : malloc(sizeof *st * (size_t)(s->nalloc ? s->nalloc : 1));
  if (!sv || !st) abort();
  int nm = 0, na = 0;
  bool ok = true;
  /* the block's allocations first: a view may be of one (the lowering
   * rewrites views onto their sources, allocated around the body) */
  for (; na < s->nalloc && ok; na++) {
    x_save_buf(s->allocs[na]->buf, fr, &sv[s->nmatch + na]);
    st[na] = alloc_buffer(s->allocs[na], fr);
    if (!st[na]) {
      x_restore_buf(s->allocs[na]->buf, fr, &sv[s->nmatch + na]);
      ok = false;
      break;
    }
  }
  for (; nm < s->nmatch && ok; nm++) {
    x_save_buf(s->matches[nm].view, fr, &sv[nm]);
    ok = do_match(&s->matches[nm], fr);
  }
  if (ok) {
    if (first) x_exec(s->init, fr);
    if (!stopped(fr)) x_exec(s->body, fr);
  }
  for (int i = nm - 1; i >= 0; i--) x_restore_buf(s->matches[i].view, fr, &sv[i]);
  for (int i = na - 1; i >= 0; i--) {
    release_storage(s->allocs[i], fr, st[i]);
    x_restore_buf(s->allocs[i]->buf, fr, &sv[s->nmatch + i]);
  }
  if (sv != svs) free(sv);
  if (st != sts) free(st);
}

/* ------------------------------------------------------------------ */
/* the compiler                                                         */

static xs *snode(xc *c, const tir_stmt *src, xs_fn fn) {
  xs *s = x_alloc(c->p, sizeof *s);
  s->fn = fn;
  s->span = src ? src->span : (tir_span){0, 0};
  s->data_slot = -1;
  return s;
}

static const xs *cstmt(xc *c, const tir_stmt *s);

static bool is_shared_scope(const char *scope) {
  return scope && (!strcmp(scope, "shared") || !strcmp(scope, "shared.dyn") || !strcmp(scope, "warp"));
}

/* the declaration of b: shape, strides, elem_offset exprs */
xs *xc_decl(xc *c, const tir_buffer *b, const xe *data) {
  xs *s = snode(c, NULL, s_nop);
  s->span = b->span;
  s->buf = xc_buf(c, b, 0);
  s->name = b->name;
  s->ndim = b->ndim;
  s->nstr = b->nstrides == b->ndim ? b->nstrides : 0;
  if (b->nstrides && b->nstrides != b->ndim) xc_error(c, b->span, "cannot run: buffer %s has %d strides for %d dims", b->name, b->nstrides, b->ndim);
  s->dimoff = s->buf >= 0 ? c->p->binfo[s->buf].dimoff : 0;
  s->esize = tir_dtype_bytes(b->dtype);
  const xe **sh = x_alloc(c->p, sizeof *sh * (size_t)(b->ndim + 1));
  const xe **st = x_alloc(c->p, sizeof *st * (size_t)(b->ndim + 1));
  for (int d = 0; d < b->ndim; d++) {
    sh[d] = xc_expr(c, b->shape[d], 0);
    if (s->nstr) st[d] = xc_expr(c, b->strides[d], 0);
  }
  s->shape = sh, s->strides = st;
  s->elem_off = xc_expr(c, b->elem_offset, 0);
  s->data = data;
  s->shared = is_shared_scope(b->scope);
  s->local = b->scope && !strcmp(b->scope, "local");
  return s;
}

/* a declaration that allocates: binds the data var */
static xs *alloc_decl(xc *c, const tir_buffer *b, const tir_stmt *src) {
  int slot = xc_slot(c, b->data);
  c->defd[slot] = 1; /* the shape may not name it, but the body may */
  xs *s = xc_decl(c, b, NULL);
  if (src) s->span = src->span;
  s->data_slot = slot;
  if (s->shared) s->group_idx = c->p->ngroup++;
  if (s->buf >= 0) c->p->binfo[s->buf].declared = true;
  return s;
}

static bool reduces_across(const tir_stmt *body, const tir_expr *var);
/* the T.tvm_storage_sync and T.tvm_thread_allreduce calls of a subtree */
typedef struct sync_scan {
  bool sync, allreduce;
} sync_scan;
static sync_scan scan_sync(const tir_stmt *s);

static const xs *compile_store(xc *c, const tir_stmt *st) {
  const tir_buffer *b = st->u.store.buf;
  int lanes = st->u.store.value->dtype.lanes;
  for (int d = 0; d < st->u.store.nidx; d++)
    if (st->u.store.idx[d]->dtype.lanes > lanes) lanes = st->u.store.idx[d]->dtype.lanes;
  if (lanes <= 1) {
    xs *s = snode(c, st, s_store);
    s->acc = xc_access(c, b, st->u.store.idx, st->u.store.nidx, 0, st->span, b->dtype);
    if (!s->acc) { c->failed = true; return snode(c, st, s_nop); }
    s->a = xc_expr(c, st->u.store.value, 0);
    if (s->a->vc != XV_INT && s->a->vc != XV_FLOAT) {
      xc_error(c, st->span, "cannot run: a store of a pointer into %s", b->name);
      return snode(c, st, s_nop);
    }
    if (s->acc->ndim == 1 && s->acc->ek == EK_I32 && s->a->vc == XV_INT && !s->acc->lane_off) s->fn = s_store1_i32;
    return s;
  }
  xs *s = snode(c, st, s_store_vec);
  s->lanes = lanes;
  const xe **la = x_alloc(c->p, sizeof *la * (size_t)lanes);
  const xe ***li = x_alloc(c->p, sizeof *li * (size_t)lanes);
  for (int l = 0; l < lanes; l++) {
    const xacc *a = xc_access(c, b, st->u.store.idx, st->u.store.nidx, l, st->span, b->dtype);
    if (!a) { c->failed = true; return snode(c, st, s_nop); }
    li[l] = (const xe **)a;
    la[l] = xc_expr(c, st->u.store.value, st->u.store.value->dtype.lanes > 1 ? l : 0);
  }
  s->acc = (const xacc *)li[0];
  s->lidx = li;
  s->la = la;
  return s;
}

static const xs *compile_let(xc *c, const tir_stmt *st) {
  const tir_expr *v = st->u.let.var;
  xs *s = snode(c, st, s_let);
  s->lanes = v->dtype.lanes;
  const xe **la = x_alloc(c->p, sizeof *la * (size_t)s->lanes);
  for (int l = 0; l < s->lanes; l++) la[l] = xc_expr(c, st->u.let.value, s->lanes > 1 ? l : 0);
  s->la = la;
  s->slot = xc_slot(c, v);
  uint8_t old = c->defd[s->slot];
  c->defd[s->slot] = 1;
  s->body = cstmt(c, st->u.let.body);
  c->defd[s->slot] = old;
  return s;
}

static bool is_thread_tag(const char *tag) { return tag && (!strncmp(tag, "threadIdx.", 10)); }

/* a loop over var in [min, min+extent) (For, or a thread_extent attr) */
static const xs *compile_loop(xc *c, const tir_stmt *st, const tir_expr *var, const tir_expr *min,
                              const tir_expr *ext, const char *tag, const tir_stmt *body) {
  bool thread = is_thread_tag(tag);
  xs *s = snode(c, st, thread ? s_thread_for : s_for);
  if (var->dtype.lanes != 1 || xc_class(var->dtype) != XV_INT) {
    xc_error(c, st->span, "cannot run a loop over %s", var->u.var.name);
    return snode(c, st, s_nop);
  }
  s->a = min ? xc_expr(c, min, 0) : xc_const_int(c, var->dtype, 0);
  s->b = xc_expr(c, ext, 0);
  const tir_expr *step = st->kind == TIR_FOR ? st->u.loop.step : NULL;
  int64_t sv;
  if (step && !(tir_is_const_int(step, &sv) && sv == 1)) {
    if (thread) {
      xc_error(c, st->span, "cannot run thread-bound loop %s with a step", var->u.var.name);
      return snode(c, st, s_nop);
    }
    s->fn = s_for_step;
    s->step = xc_expr(c, step, 0);
  }
  s->slot = xc_slot(c, var);
  s->is_thread = thread;
  s->name = tag;
  uint8_t old = c->defd[s->slot];
  c->defd[s->slot] = 1;
  if (thread) {
    sync_scan ss = scan_sync(body);
    s->barrier = ss.sync || ss.allreduce;
    /* the threads' own copies where the loop holds a
     * T.tvm_thread_allreduce (what LowerCrossThreadReduction writes: each
     * thread gets the result in its registers) or a barrier (what
     * LowerThreadAllreduce makes of it: threads that meet run together,
     * each in its own registers, so that the rule holds from one pass to
     * the next); elsewhere the block-level
     * IR's thread loops run one thread after another over one buffer, as
     * before (a reduction into a local buffer across threads that no pass
     * lowered means the accumulated value there, before and after
     * ConvertBlocksToOpaque takes its iter vars). Not again in a loop of a
     * tag a loop around already binds (the same threads: a cooperative
     * fetch inside the compute's thread loops), nor across the threads of
     * a reduction block bound to this loop. */
    bool again = false;
    for (int t = 0; t < c->nthread_slots; t++) again |= !strcmp(c->thread_tags[t], tag);
    s->privatize = !again && (ss.allreduce || ss.sync) && !reduces_across(body, var);
    c->thread_depth++;
    if (c->nthread_slots == c->capthread_slots) {
      c->capthread_slots = c->capthread_slots ? 2 * c->capthread_slots : 8;
      c->thread_slots = realloc(c->thread_slots, sizeof *c->thread_slots * (size_t)c->capthread_slots);
      c->thread_tags = realloc(c->thread_tags, sizeof *c->thread_tags * (size_t)c->capthread_slots);
      if (!c->thread_slots || !c->thread_tags) abort();
    }
    c->thread_tags[c->nthread_slots] = tag;
    c->thread_slots[c->nthread_slots++] = s->slot;
  }
  /* break/continue leave serial loops only (a thread index or a launch is
   * no loop once lowered) */
  int depth = c->loop_depth;
  c->loop_depth = st->kind == TIR_FOR && !thread && st->u.loop.kind != TIR_FOR_THREAD_BINDING ? depth + 1 : 0;
  s->body = cstmt(c, body);
  c->loop_depth = depth;
  if (thread) c->thread_depth--, c->nthread_slots--;
  c->defd[s->slot] = old;
  return s;
}

static const xs *compile_block(xc *c, const tir_stmt *st) {
  const tir_block *blk = st->u.realize.block;
  xs *s = snode(c, st, s_block);
  s->blk = blk;
  s->name = blk->name;
  s->span = blk->span.line ? blk->span : st->span;
  int64_t t;
  if (st->u.realize.predicate && !(tir_is_const_int(st->u.realize.predicate, &t) && t) &&
      !(st->u.realize.predicate->kind == TIR_INT_IMM && st->u.realize.predicate->u.int_val))
    s->pred = xc_expr(c, st->u.realize.predicate, 0);
  int n = blk->n_iter;
  if (st->u.realize.n != n) {
    xc_error(c, st->span, "cannot run block %s: %d iter values for %d iter vars", blk->name, st->u.realize.n, n);
    return snode(c, st, s_nop);
  }
  s->niter = n;
  const xe **iv = x_alloc(c->p, sizeof *iv * (size_t)(n + 1));
  const xe **mn = x_alloc(c->p, sizeof *mn * (size_t)(n + 1));
  const xe **ex = x_alloc(c->p, sizeof *ex * (size_t)(n + 1));
  int *sl = x_alloc(c->p, sizeof *sl * (size_t)(n + 1));
  bool *rd = x_alloc(c->p, sizeof *rd * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    iv[i] = xc_expr(c, st->u.realize.iter_values[i], 0);
    mn[i] = xc_expr(c, blk->iter_vars[i].dom.min, 0);
    ex[i] = xc_expr(c, blk->iter_vars[i].dom.extent, 0);
    rd[i] = blk->iter_vars[i].type == TIR_ITER_REDUCE;
  }
  uint8_t *old = x_alloc(c->p, (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    sl[i] = xc_slot(c, blk->iter_vars[i].var);
    old[i] = c->defd[sl[i]];
    c->defd[sl[i]] = 1;
  }
  s->ivals = iv, s->imins = mn, s->iexts = ex, s->islots = sl, s->ireduce = rd;
  /* match_buffers, in order */
  s->nmatch = blk->n_match;
  xmatch *ms = x_alloc(c->p, sizeof *ms * (size_t)(blk->n_match + 1));
  int nbound = 0, capbound = 16;
  int *bound = malloc(sizeof *bound * (size_t)capbound);
  if (!bound) abort();
#define BIND_SLOT(field_expr, slot_out, chk_out)                                              \
  do {                                                                                        \
    const tir_expr *fe_ = (field_expr);                                                       \
    long sl_ = tir_is_var(fe_) ? tir_ptrmap_get(&c->vars, fe_, 0) : 0;                        \
    if (tir_is_var(fe_) && (!sl_ || !c->defd[sl_ - 1])) {                                     \
      (slot_out) = xc_slot(c, fe_);                                                           \
      c->defd[(slot_out)] = 1;                                                                \
      if (nbound == capbound) {                                                               \
        bound = realloc(bound, sizeof *bound * (size_t)(capbound *= 2));                      \
        if (!bound) abort();                                                                  \
      }                                                                                       \
      bound[nbound++] = (slot_out);                                                           \
      (chk_out) = NULL;                                                                       \
    } else {                                                                                  \
      (slot_out) = -1;                                                                        \
      (chk_out) = xc_expr(c, fe_, 0);                                                         \
    }                                                                                         \
  } while (0)
  for (int k = 0; k < blk->n_match; k++) {
    const tir_match_buffer *mb = &blk->match_buffers[k];
    xmatch *m = &ms[k];
    const tir_buffer *v = mb->buf, *sb = mb->src.buf;
    m->span = mb->span.line ? mb->span : s->span;
    m->vname = v->name;
    if (!tir_dtype_eq(v->dtype, sb->dtype) || mb->src.n < v->ndim || mb->src.n > 32 ||
        (v->nstrides && v->nstrides != v->ndim)) {
      xc_error(c, m->span, "cannot run match_buffer %s: it does not fit its source %s (dtype or rank)", v->name,
               sb->name);
      continue;
    }
    m->src = xc_buf(c, sb, 0);
    m->view = xc_buf(c, v, mb->src.n);
    if (m->src < 0 || m->view < 0) continue;
    m->vndim = v->ndim, m->sndim = mb->src.n;
    const xe **mins = x_alloc(c->p, sizeof *mins * (size_t)(m->sndim + 1));
    const xe **exts = x_alloc(c->p, sizeof *exts * (size_t)(m->sndim + 1));
    for (int d = 0; d < m->sndim; d++) {
      mins[d] = xc_expr(c, mb->src.region[d].min, 0);
      exts[d] = xc_expr(c, mb->src.region[d].extent, 0);
    }
    m->mins = mins, m->exts = exts;
    long ds = tir_ptrmap_get(&c->vars, v->data, 0);
    if (!ds || !c->defd[ds - 1]) {
      m->data_slot = xc_slot(c, v->data);
      c->defd[m->data_slot] = 1;
      if (nbound == capbound) {
        bound = realloc(bound, sizeof *bound * (size_t)(capbound *= 2));
        if (!bound) abort();
      }
      bound[nbound++] = m->data_slot;
    } else {
      m->data_slot = -1;
    }
    BIND_SLOT(v->elem_offset, m->off_slot, m->off_chk);
    if (v->nstrides) {
      m->str_slot = x_alloc(c->p, sizeof(int) * (size_t)v->ndim);
      m->str_chk = x_alloc(c->p, sizeof(xe *) * (size_t)v->ndim);
      for (int i = v->ndim - 1; i >= 0; i--) BIND_SLOT(v->strides[i], m->str_slot[i], m->str_chk[i]);
    }
    m->shp_slot = x_alloc(c->p, sizeof(int) * (size_t)(v->ndim + 1));
    m->shp_chk = x_alloc(c->p, sizeof(xe *) * (size_t)(v->ndim + 1));
    for (int i = 0; i < v->ndim; i++) BIND_SLOT(v->shape[i], m->shp_slot[i], m->shp_chk[i]);
    c->p->binfo[m->view].declared = true;
  }
#undef BIND_SLOT
  s->matches = ms;
  /* block allocations */
  s->nalloc = blk->n_alloc;
  const xs **al = x_alloc(c->p, sizeof *al * (size_t)(blk->n_alloc + 1));
  for (int i = 0; i < blk->n_alloc; i++) al[i] = alloc_decl(c, blk->alloc_buffers[i], NULL);
  s->allocs = al;
  s->init = blk->init ? cstmt(c, blk->init) : NULL;
  s->body = cstmt(c, blk->body);
  for (int i = 0; i < blk->n_alloc; i++) {
    int ds = xc_slot(c, blk->alloc_buffers[i]->data);
    c->defd[ds] = 0;
  }
  for (int i = nbound - 1; i >= 0; i--) c->defd[bound[i]] = 0;
  free(bound);
  for (int i = 0; i < n; i++) c->defd[sl[i]] = old[i];
  return s;
}

static const xs *cstmt_kind(xc *c, const tir_stmt *st) {
  if (!st) return snode(c, NULL, s_nop);
  switch (st->kind) {
  case TIR_BUFFER_STORE: return compile_store(c, st);
  case TIR_LET_STMT: return compile_let(c, st);
  case TIR_FOR:
    return compile_loop(c, st, st->u.loop.var, st->u.loop.min, st->u.loop.extent,
                        st->u.loop.kind == TIR_FOR_THREAD_BINDING ? st->u.loop.thread_tag : NULL, st->u.loop.body);
  case TIR_WHILE: {
    xs *s = snode(c, st, s_while);
    s->a = xc_expr(c, st->u.whl.cond, 0);
    c->loop_depth++;
    s->body = cstmt(c, st->u.whl.body);
    c->loop_depth--;
    return s;
  }
  case TIR_BREAK:
  case TIR_CONTINUE:
    if (c->loop_depth <= 0) {
      xc_error(c, st->span, "cannot run '%s' outside a serial loop (in a thread-bound loop or a block)",
               st->kind == TIR_BREAK ? "break" : "continue");
      return snode(c, st, s_nop);
    }
    return snode(c, st, st->kind == TIR_BREAK ? s_break : s_continue);
  case TIR_IF: {
    xs *s = snode(c, st, s_if);
    s->a = xc_expr(c, st->u.ifs.cond, 0);
    s->body = cstmt(c, st->u.ifs.then_s);
    s->body2 = st->u.ifs.else_s ? cstmt(c, st->u.ifs.else_s) : NULL;
    return s;
  }
  case TIR_EVALUATE: {
    xs *s = snode(c, st, s_eval);
    s->a = xc_expr(c, st->u.eval.value, 0);
    if (s->a->vc == XV_VOID) ((xe *)s->a)->vc = XV_HANDLE;
    return s;
  }
  case TIR_SEQ: {
    xs *s = snode(c, st, s_seq);
    s->n = st->u.seq.n;
    const xs **v = x_alloc(c->p, sizeof *v * (size_t)(s->n + 1));
    for (int i = 0; i < s->n; i++) v[i] = cstmt(c, st->u.seq.stmts[i]);
    s->seq = v;
    return s;
  }
  case TIR_ALLOCATE: {
    xs *s = snode(c, st, s_allocate);
    tir_dtype t = st->u.alloc.dtype;
    if (x_elem_kind(tir_dtype_with_lanes(t, 1)) == EK_BAD) {
      char b[32];
      xc_error(c, st->span, "cannot run an allocation of %s", tir_dtype_str(t, b));
      return snode(c, st, s_nop);
    }
    s->esize = tir_dtype_bytes(t);
    s->ndim = st->u.alloc.n;
    const xe **sh = x_alloc(c->p, sizeof *sh * (size_t)(s->ndim + 1));
    for (int d = 0; d < s->ndim; d++) sh[d] = xc_expr(c, st->u.alloc.extents[d], 0);
    s->shape = sh;
    s->name = st->u.alloc.var->u.var.name;
    s->data_slot = xc_slot(c, st->u.alloc.var);
    s->shared = is_shared_scope(st->u.alloc.scope);
    s->local = st->u.alloc.scope && !strcmp(st->u.alloc.scope, "local");
    if (s->shared) s->group_idx = c->p->ngroup++;
    uint8_t old = c->defd[s->data_slot];
    c->defd[s->data_slot] = 1;
    s->body = cstmt(c, st->u.alloc.body);
    c->defd[s->data_slot] = old;
    return s;
  }
  case TIR_DECL_BUFFER: {
    const tir_buffer *b = st->u.decl.buf;
    xs *s = xc_decl(c, b, xc_expr(c, b->data, 0));
    s->fn = s_decl;
    s->span = st->span;
    if (s->buf >= 0) c->p->binfo[s->buf].declared = true;
    if (s->buf >= 0 && tir_ptrmap_get(&c->pools, b->data, 0) && !c->p->binfo[s->buf].tag) {
      int t = 2 + c->p->ntags++ % 254; /* past 254 views tags repeat: the check only weakens */
      c->p->binfo[s->buf].tag = (uint8_t)t;
      c->p->tag_name[t] = b->name;
    }
    s->body = cstmt(c, st->u.decl.body);
    return s;
  }
  case TIR_ALLOC_BUFFER: {
    const tir_buffer *b = st->u.decl.buf;
    int slot = xc_slot(c, b->data);
    uint8_t old = c->defd[slot];
    if (st->u.decl.annotations && tir_av_get(st->u.decl.annotations, "tir.memory_pool"))
      tir_ptrmap_put(&c->pools, b->data, 1); /* PlanMemory's backing: its views are tagged */
    xs *s = alloc_decl(c, b, st);
    s->fn = s_alloc_buffer;
    s->body = cstmt(c, st->u.decl.body);
    c->defd[slot] = old;
    return s;
  }
  case TIR_ATTR: {
    const char *k = st->u.attr.key;
    if ((!strcmp(k, "thread_extent") || !strcmp(k, "virtual_thread")) && st->u.attr.node &&
        tir_is_var(st->u.attr.node)) {
      const char *tag = st->u.attr.thread_tag;
      if (!tag) tag = st->u.attr.node->u.var.name;
      return compile_loop(c, st, st->u.attr.node, NULL, st->u.attr.value, !strcmp(k, "thread_extent") ? tag : NULL,
                          st->u.attr.body);
    }
    if (!strcmp(k, "reduce_scope") && tir_is_comm_reducer(st->u.attr.node)) { /* for T.tvm_thread_allreduce */
      const tir_expr *outer = c->reducer;
      c->reducer = st->u.attr.node;
      const xs *b = cstmt(c, st->u.attr.body);
      c->reducer = outer;
      return b;
    }
    return cstmt(c, st->u.attr.body);
  }
  case TIR_ASSERT: {
    xs *s = snode(c, st, s_assert);
    s->a = xc_expr(c, st->u.assrt.cond, 0);
    if (st->u.assrt.msg && st->u.assrt.msg->kind == TIR_STRING_IMM) s->name = st->u.assrt.msg->u.str;
    s->body = cstmt(c, st->u.assrt.body);
    return s;
  }
  case TIR_BLOCK_REALIZE: {
    int depth = c->loop_depth; /* break/continue do not cross a block */
    c->loop_depth = 0;
    const xs *b = compile_block(c, st);
    c->loop_depth = depth;
    return b;
  }
  default: xc_error(c, st->span, "cannot run this statement"); return snode(c, st, s_nop);
  }
}

/* the statement compiled, its span kept for errors at exprs with none */
static const xs *cstmt(xc *c, const tir_stmt *st) {
  tir_span saved = c->stmt_span;
  if (st && st->span.line) c->stmt_span = st->span;
  const xs *r = cstmt_kind(c, st);
  c->stmt_span = saved;
  return r;
}

const xs *xc_stmt(xc *c, const tir_stmt *s) { return cstmt(c, s); }

/* ---- does a subtree hold a barrier (T.tvm_storage_sync, T.tvm_thread_allreduce)? ---- */
#include "tir/visit.h"

static bool find_sync(tir_visitor *v, const tir_expr *e) {
  sync_scan *ss = v->user;
  const char *op = e->kind == TIR_CALL ? e->u.call.op : "";
  if (!strncmp(op, "tir.", 4)) op += 4;
  if (!strcmp(op, "tvm_storage_sync")) ss->sync = true;
  if (!strcmp(op, "tvm_thread_allreduce")) ss->allreduce = true;
  return !ss->allreduce;
}

/* the T.tvm_storage_sync and T.tvm_thread_allreduce calls under s (threads
 * meet at either), in one walk */
static sync_scan scan_sync(const tir_stmt *s) {
  sync_scan ss = {false, false};
  tir_visitor v = {.expr = find_sync, .user = &ss};
  tir_visit_stmt(&v, s);
  return ss;
}

/* a block under s whose reduction iter is bound to an expression of var:
 * a reduction across the threads of var's loop, which the block-level IR
 * means as one value the threads accumulate (before
 * LowerCrossThreadReduction makes it a T.tvm_thread_allreduce) */
typedef struct red_scan {
  const tir_expr *var;
  bool uses, found;
} red_scan;

static bool find_var(tir_visitor *v, const tir_expr *e) {
  red_scan *rs = v->user;
  if (e == rs->var) rs->uses = true;
  return !rs->uses;
}

static bool find_reduction(tir_visitor *v, const tir_stmt *s) {
  red_scan *rs = v->user;
  if (rs->found) return false;
  if (s->kind != TIR_BLOCK_REALIZE) return true;
  const tir_block *b = s->u.realize.block;
  for (int i = 0; i < b->n_iter && i < s->u.realize.n && !rs->found; i++) {
    if (b->iter_vars[i].type == TIR_ITER_SPATIAL) continue;
    rs->uses = false;
    tir_visitor ev = {.expr = find_var, .user = rs};
    tir_visit_expr(&ev, s->u.realize.iter_values[i]);
    rs->found = rs->uses;
  }
  return !rs->found;
}

static bool reduces_across(const tir_stmt *body, const tir_expr *var) {
  red_scan rs = {var, false, false};
  tir_visitor v = {.stmt = find_reduction, .user = &rs};
  tir_visit_stmt(&v, body);
  return rs.found;
}

