/* exec_thread.c - thread loops.  A threadIdx loop starts a thread block
 * (its shared storage is one per block) unless one is under way.  When its
 * body holds a barrier (T.tvm_storage_sync), its threads run in lockstep:
 * each is a coroutine (its own stack and copy of the frame), run in thread
 * order until it reaches a barrier or ends; when every thread waits at the
 * barrier (or has ended), all go on.  A thread loop nested in a thread
 * spawns its threads into the same block and waits for them; only threads
 * that run code count at a barrier.  Runs are deterministic.
 *
 * A "local" buffer is a thread's registers: one allocated outside a thread
 * loop (a root-level one of the block-level IR, LowerCrossThreadReduction's
 * cross_thread_*) is copied into each thread of the loop, from what it
 * held when the loop began; when a thread ends, the bytes it changed are
 * written back (so a later thread loop over the same threads reads what
 * each wrote into its own elements; where several threads changed one
 * byte, the last to end wins, as code outside the threads then reads one
 * thread's value). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "exec/exec_internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define X_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define X_ASAN 1
#endif
#endif
#ifdef X_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old, size_t *size_old);
#endif

/* a coroutine's stack, and below it a guard with no access, so that running
 * out of the stack faults rather than writes over another mapping */
enum { STACK_BYTES = 1 << 20, GUARD_BYTES = 1 << 16 };

typedef enum { CO_READY, CO_BARRIER, CO_JOIN, CO_DONE } co_state;

typedef struct xsched xsched;

/* the "local" storage a thread loop privatizes: each store the frame
 * holds, and what it held when the loop began */
typedef struct xpriv {
  xstore **outer, **snap;
  int n;
} xpriv;

struct xco {
  ucontext_t ctx;
  void *stack;
  co_state state;
  xframe fr;
  const xpriv *priv; /* the loop's, or NULL */
  xstore **mine;     /* this thread's copies, per priv entry */
  const xs *loop;
  int64_t value;
  struct xco *parent;
  int live_children;
  xsched *sched;
  void *fake; /* ASan's fake stack */
};

struct xsched {
  ucontext_t main;
  xco **cos;
  int n, cap;
  const void *main_bottom;
  size_t main_size;
  void *main_fake;
};

static void *get_stack(xrun *r) {
  if (r->nstacks) return r->stacks[--r->nstacks];
  char *s = mmap(NULL, GUARD_BYTES + STACK_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (s == MAP_FAILED) return NULL;
  if (mprotect(s + GUARD_BYTES, STACK_BYTES, PROT_READ | PROT_WRITE)) {
    munmap(s, GUARD_BYTES + STACK_BYTES);
    return NULL;
  }
  return s + GUARD_BYTES;
}

static void put_stack(xrun *r, void *s) {
  if (r->nstacks == r->capstacks) {
    r->capstacks = r->capstacks ? r->capstacks * 2 : 64;
    r->stacks = realloc(r->stacks, sizeof *r->stacks * (size_t)r->capstacks);
    if (!r->stacks) abort();
  }
  r->stacks[r->nstacks++] = s;
}

void x_run_sched_free(xrun *r) {
  for (int i = 0; i < r->nstacks; i++) munmap((char *)r->stacks[i] - GUARD_BYTES, GUARD_BYTES + STACK_BYTES);
  free(r->stacks);
  r->stacks = NULL;
  r->nstacks = r->capstacks = 0;
  tir_ptrmap_free(&r->live_local);
}

/* switch from a coroutine to the scheduler, and back */
static void co_yield(xco *co) {
  xsched *sc = co->sched;
#ifdef X_ASAN
  __sanitizer_start_switch_fiber(&co->fake, sc->main_bottom, sc->main_size);
#endif
  swapcontext(&co->ctx, &sc->main);
#ifdef X_ASAN
  __sanitizer_finish_switch_fiber(co->fake, &sc->main_bottom, &sc->main_size);
#endif
}

static void co_entry(unsigned hi, unsigned lo) {
  xco *co = (xco *)(uintptr_t)(((uint64_t)hi << 32) | lo);
#ifdef X_ASAN
  __sanitizer_finish_switch_fiber(NULL, &co->sched->main_bottom, &co->sched->main_size);
#endif
  co->fr.slots[co->loop->slot].i = co->value;
  x_exec(co->loop->body, &co->fr);
  co->state = CO_DONE;
#ifdef X_ASAN
  __sanitizer_start_switch_fiber(NULL, co->sched->main_bottom, co->sched->main_size);
#endif
  /* returns to uc_link: the scheduler */
}

/* every reference of the frame to store a, made to b: the buffer
 * descriptors and the slots that hold handles */
static void repoint(xframe *fr, xstore *a, xstore *b) {
  const tir_exec_prog *p = fr->run->p;
  for (int i = 0; i < p->nbufs; i++)
    if (fr->bufs[i].st == a) fr->bufs[i].st = b;
  for (int i = 0; i < p->nslots; i++)
    if (p->hslot[i] && fr->slots[i].h.st == a) fr->slots[i].h.st = b;
}

/* a copy of s; a thread's (local: true) is one of the live local stores */
static xstore *store_copy(xframe *fr, const xstore *s, bool local) {
  xstore *c = x_store_new(fr, s->size, s->name, (tir_span){0, 0});
  if (!c) return NULL;
  memcpy(c->data, s->data, (size_t)s->size);
  if (s->init) memcpy(c->init, s->init, (size_t)s->size);
  else memset(c->init, 1, (size_t)s->size);
  if ((c->local = local)) tir_ptrmap_put(&fr->run->live_local, c, 1);
  return c;
}

/* the local stores fr holds, snapshotted; false on error (reported) */
static bool priv_begin(xframe *fr, xpriv *pv) {
  const tir_exec_prog *p = fr->run->p;
  memset(pv, 0, sizeof *pv);
  int cap = 0;
  for (int i = 0; i < p->nbufs + p->nslots; i++) {
    xstore *s = i < p->nbufs ? fr->bufs[i].st : p->hslot[i - p->nbufs] ? fr->slots[i - p->nbufs].h.st : NULL;
    if (!s || !tir_ptrmap_get(&fr->run->live_local, s, 0)) continue;
    bool seen = false;
    for (int k = 0; k < pv->n && !seen; k++) seen = pv->outer[k] == s;
    if (seen) continue;
    if (pv->n == cap) {
      cap = cap ? cap * 2 : 4;
      pv->outer = realloc(pv->outer, sizeof *pv->outer * (size_t)cap);
      pv->snap = realloc(pv->snap, sizeof *pv->snap * (size_t)cap);
      if (!pv->outer || !pv->snap) abort();
    }
    pv->outer[pv->n] = s;
    if (!(pv->snap[pv->n] = store_copy(fr, s, false))) return false;
    pv->n++;
  }
  return true;
}

static void priv_end(xframe *fr, xpriv *pv) {
  for (int k = 0; k < pv->n; k++) x_store_free(fr, pv->snap[k]);
  free(pv->outer);
  free(pv->snap);
  memset(pv, 0, sizeof *pv);
}

/* a thread's copies of the loop's local stores, its frame pointed at them;
 * NULL where there are none or on error (reported: the run stops) */
static xstore **priv_enter(xframe *fr, const xpriv *pv) {
  if (!pv->n) return NULL;
  xstore **mine = calloc((size_t)pv->n, sizeof *mine);
  if (!mine) abort();
  for (int k = 0; k < pv->n; k++) {
    if (!(mine[k] = store_copy(fr, pv->snap[k], true))) break;
    repoint(fr, pv->outer[k], mine[k]);
  }
  return mine;
}

/* the bytes the thread changed, written back; its copies freed and its
 * frame pointed at the loop's stores again */
static void priv_leave(xframe *fr, const xpriv *pv, xstore **mine) {
  if (!mine) return;
  for (int k = 0; k < pv->n; k++) {
    xstore *m = mine[k], *s = pv->snap[k], *o = pv->outer[k];
    if (!m) continue;
    for (int64_t b = 0; b < m->size; b++)
      if (m->data[b] != s->data[b] || m->init[b] != s->init[b]) {
        o->data[b] = m->data[b];
        if (o->init) o->init[b] = m->init[b];
      }
    repoint(fr, m, o);
    x_store_free(fr, m);
  }
  free(mine);
}

/* a thread: a copy of the frame, and its own stack */
static xco *spawn(xsched *sc, xframe *fr, const xs *loop, int64_t value, xco *parent, const xpriv *pv) {
  xrun *r = fr->run;
  const tir_exec_prog *p = r->p;
  xco *co = calloc(1, sizeof *co);
  if (!co) abort();
  co->stack = get_stack(r);
  co->fr.slots = malloc(sizeof *co->fr.slots * ((size_t)p->nslots + 1));
  co->fr.bufs = malloc(sizeof *co->fr.bufs * ((size_t)p->nbufs + 1));
  co->fr.dims = malloc(sizeof *co->fr.dims * ((size_t)p->ndims + 1));
  if (!co->stack || !co->fr.slots || !co->fr.bufs || !co->fr.dims) abort();
  memcpy(co->fr.slots, fr->slots, sizeof *co->fr.slots * (size_t)p->nslots);
  memcpy(co->fr.bufs, fr->bufs, sizeof *co->fr.bufs * (size_t)p->nbufs);
  memcpy(co->fr.dims, fr->dims, sizeof *co->fr.dims * (size_t)p->ndims);
  co->fr.run = r;
  co->fr.co = co;
  co->fr.group = fr->group;
  co->loop = loop;
  co->value = value;
  co->parent = parent;
  co->priv = pv;
  co->mine = priv_enter(&co->fr, pv);
  co->sched = sc;
  co->state = CO_READY;
  getcontext(&co->ctx);
  co->ctx.uc_stack.ss_sp = co->stack;
  co->ctx.uc_stack.ss_size = STACK_BYTES;
  co->ctx.uc_link = &sc->main;
  uint64_t ptr = (uint64_t)(uintptr_t)co;
  makecontext(&co->ctx, (void (*)(void))co_entry, 2, (unsigned)(ptr >> 32), (unsigned)(ptr & 0xffffffffu));
  if (sc->n == sc->cap) {
    sc->cap = sc->cap ? sc->cap * 2 : 64;
    sc->cos = realloc(sc->cos, sizeof *sc->cos * (size_t)sc->cap);
    if (!sc->cos) abort();
  }
  sc->cos[sc->n++] = co;
  return co;
}

static void finish(xsched *sc, xco *co, xrun *r) {
  (void)sc;
  put_stack(r, co->stack);
  co->stack = NULL;
  priv_leave(&co->fr, co->priv, co->mine);
  co->mine = NULL;
  free(co->fr.slots);
  free(co->fr.bufs);
  free(co->fr.dims);
  co->fr.slots = NULL;
  if (co->parent && --co->parent->live_children == 0) co->parent->state = CO_READY;
}

static void run_sched(xsched *sc, xrun *r) {
  for (;;) {
    bool ran = false;
    for (int i = 0; i < sc->n; i++) {
      xco *co = sc->cos[i];
      if (co->state != CO_READY) continue;
#ifdef X_ASAN
      __sanitizer_start_switch_fiber(&sc->main_fake, co->stack, STACK_BYTES);
#endif
      swapcontext(&sc->main, &co->ctx);
#ifdef X_ASAN
      __sanitizer_finish_switch_fiber(sc->main_fake, NULL, NULL);
#endif
      ran = true;
      if (co->state == CO_DONE) finish(sc, co, r);
    }
    if (ran) continue;
    /* nobody can run: every live thread waits at the barrier */
    bool any = false;
    for (int i = 0; i < sc->n; i++)
      if (sc->cos[i]->state == CO_BARRIER) sc->cos[i]->state = CO_READY, any = true;
    if (!any) break;
  }
  for (int i = 0; i < sc->n; i++) free(sc->cos[i]);
  free(sc->cos);
}

void x_barrier(xframe *fr) {
  xco *co = fr->co;
  if (!co || fr->run->stop) return; /* not in lockstep: threads run one after another anyway */
  co->state = CO_BARRIER;
  co_yield(co);
}

void x_thread_loop(const xs *s, xframe *fr, int64_t lo, int64_t n) {
  xgroup g = {0};
  bool new_group = fr->group == NULL;
  if (new_group) {
    g.nshared = fr->run->p->ngroup;
    g.shared = calloc((size_t)g.nshared + 1, sizeof *g.shared);
    if (!g.shared) abort();
    fr->group = &g;
  }
  xpriv pv;
  if (!s->privatize) {
    memset(&pv, 0, sizeof pv); /* a reduction across these threads: they share the stores it accumulates into */
  }
  if (s->privatize && !priv_begin(fr, &pv)) {
    /* reported: the run stops */
  } else if (!s->barrier) {
    xval *v = &fr->slots[s->slot];
    for (int64_t i = 0; i < n && !fr->run->stop; i++) {
      v->i = lo + i;
      xstore **mine = priv_enter(fr, &pv);
      if (!fr->run->stop) x_exec(s->body, fr);
      priv_leave(fr, &pv, mine);
    }
  } else if (!fr->co) {
    xsched sc = {0};
    for (int64_t i = 0; i < n; i++) spawn(&sc, fr, s, lo + i, NULL, &pv);
    run_sched(&sc, fr->run);
  } else {
    xco *me = fr->co;
    xsched *sc = me->sched;
    for (int64_t i = 0; i < n; i++) spawn(sc, fr, s, lo + i, me, &pv);
    me->live_children = (int)n;
    me->state = CO_JOIN;
    co_yield(me);
  }
  priv_end(fr, &pv);
  if (new_group) {
    x_meet_free(&g);
    for (int i = 0; i < g.nshared; i++) x_store_free(fr, g.shared[i]);
    free(g.shared);
    fr->group = NULL;
  }
}
