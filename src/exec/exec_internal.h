/* exec_internal.h - the interpreter's compiled form (internal).
 *
 * A function is compiled once into a tree of closures: every expression
 * node is a struct with a function pointer that evaluates it; vars are
 * resolved to slots of a frame, buffers to descriptors of a frame.  Vector
 * expressions are compiled lane by lane (one scalar closure per lane).
 * Ints (and bools) evaluate to int64_t, wrapped to their width (sign- or
 * zero-extended); floats to double, rounded to their type; handles to
 * (storage, byte offset). */
#ifndef TIR_EXEC_INTERNAL_H
#define TIR_EXEC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ir/ptrmap.h"
#include "tir/diag.h"
#include "tir/exec.h"
#include "tir/ir.h"

/* ---- element kinds (how an element sits in memory) ---- */
typedef enum {
  EK_I8, EK_U8, EK_I16, EK_U16, EK_I32, EK_U32, EK_I64, EK_U64, EK_BOOL,
  EK_F16, EK_BF16, EK_F32, EK_F64, EK_BAD
} xek;

/* value classes */
typedef enum { XV_INT, XV_FLOAT, XV_HANDLE, XV_VOID } xvc;

/* ---- runtime objects ---- */
typedef struct xstore {
  uint8_t *data;
  uint8_t *init;   /* per byte: written; NULL: all written (a parameter) */
  int64_t size;    /* bytes */
  const char *name;
  struct xstore *next_free; /* reuse list */
  bool local;      /* a thread's registers ("local" scope): each thread its own copy (exec_thread.c) */
} xstore;

typedef union xval {
  int64_t i;
  double f;
  struct {
    xstore *st;
    int64_t off; /* bytes */
  } h;
} xval;

typedef struct xbuf {
  xstore *st;     /* NULL: not in scope here */
  int64_t base;   /* byte offset of element 0 (handle offset + elem_offset * esize) */
  int64_t eoff;   /* elem_offset, in elements */
  int view_src;   /* a match_buffer view: the source's descriptor, else -1 */
} xbuf;

typedef struct xrun xrun;
typedef struct xgroup xgroup;
typedef struct xco xco;

typedef struct xframe {
  xval *slots;
  xbuf *bufs;
  int64_t *dims;  /* per buffer: shape[ndim], strides[ndim], view mins[src ndim] */
  xrun *run;
  xco *co;        /* the simulated thread running this frame, or NULL */
  xgroup *group;  /* the thread block under way, or NULL */
  int jump;       /* 1: a break, 2: a continue under way to the innermost loop */
} xframe;

/* ---- compiled expressions ---- */
typedef struct xe xe;
typedef int64_t (*xi_fn)(const xe *, xframe *);
typedef double (*xf_fn)(const xe *, xframe *);
typedef xval (*xh_fn)(const xe *, xframe *);

typedef struct xacc {
  int buf;        /* descriptor index */
  int ndim, dimoff;
  int esize;      /* bytes of one element (all its lanes) */
  int lane_off;   /* bytes into the element of the lane read (vector dtype buffers) */
  xek ek;         /* kind of the scalar read or written */
  int lbytes;     /* its bytes */
  const xe **idx; /* ndim scalar index exprs */
  tir_span span;
  const tir_buffer *b;
  bool derive;    /* the buffer has no declaration in scope: derive it at each access */
} xacc;

struct xe {
  union {
    xi_fn i;
    xf_fn f;
    xh_fn h;
  } fn;
  const xe *a, *b, *c;
  int64_t k;       /* constant / slot / lane */
  double fk;
  uint8_t sh;      /* ints: 64 - bits (wrap shift) */
  bool uns;        /* ints: unsigned */
  xek ek;          /* result's element kind (float rounding) */
  xvc vc;
  tir_dtype dt;    /* scalar dtype of the result */
  tir_span span;
  const xacc *acc;
  const xe **args;
  int nargs;
  const char *name;
  const void *aux;
};

/* ---- compiled statements ---- */
typedef struct xs xs;
typedef void (*xs_fn)(const xs *, xframe *);

typedef struct xmatch {
  int view, src;      /* descriptors */
  int vndim, sndim;
  const xe **mins, **exts; /* sndim region */
  /* fields of the view: each either binds its slot (slot >= 0) or is
   * checked against the value (chk) */
  int off_slot;  const xe *off_chk;
  int *str_slot; const xe **str_chk; /* vndim, when the view declares strides */
  int *shp_slot; const xe **shp_chk; /* vndim */
  int data_slot;
  tir_span span;
  const char *vname;
} xmatch;

struct xs {
  xs_fn fn;
  tir_span span;
  const xs *body, *body2;
  const xs **seq;
  int n;
  const xe *a, *b;        /* loop min/extent, cond, value ... */
  const xe *step;         /* a loop's step (s_for_step) */
  int slot;               /* loop var / let var (first lane) */
  int lanes;
  const xe **la, **lb;    /* per-lane exprs (vector store value, let lanes) */
  const xacc *acc;        /* store: the access (index exprs per lane in la2) */
  const xe ***lidx;       /* store: per lane, ndim index exprs */
  /* buffer declaration */
  int buf;
  const xe **shape, **strides, *elem_off; /* ndim, nstr */
  int ndim, nstr, dimoff;
  int esize;
  const xe *data;         /* decl_buffer: the data handle */
  int data_slot;          /* alloc: the data var's slot, or -1 */
  bool shared;            /* allocated once per thread block */
  bool local;             /* "local" scope: per thread, copied into each thread of a thread loop under it */
  bool privatize;         /* thread loop: its threads get their own copies of the local stores (exec_thread.c) */
  int group_idx;          /* its index in the thread block's table */
  const char *name;
  /* blocks */
  const xs *init;
  const xe **ivals;       /* iter values */
  int *islots;
  const xe **imins, **iexts;
  bool *ireduce;
  int niter;
  const xe *pred;
  const xs **allocs;
  int nalloc;
  const xmatch *matches;
  int nmatch;
  bool barrier;           /* thread loops: the body holds a barrier */
  bool is_thread;         /* thread loops: threadIdx / warp */
  const tir_block *blk;
};

/* ---- the program ---- */
typedef struct xbinfo {
  const tir_buffer *b;
  int ndim, dimoff, dimcnt, esize;
  xek ek;
  int lanes;
  bool declared;          /* some statement declares it (else derived at each access) */
  const xs *derive;       /* for undeclared buffers: how to derive the descriptor */
  uint8_t tag;            /* a PlanMemory view: what its writes leave in the init bytes (2..255); 0: none */
} xbinfo;

typedef struct xchunk {
  struct xchunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char mem[];
} xchunk;

struct tir_exec_prog {
  const tir_func *f;
  xchunk *arena;
  int nslots, nbufs, ndims, ngroup;
  uint8_t *hslot;         /* per slot: 1 where it holds a handle (malloc'd) */
  int nallreduce;         /* T.tvm_thread_allreduce call sites (their meeting places per thread block) */
  xbinfo *binfo;
  const xs *body;
  /* params: per tir_exec_arg in order */
  int nargs;
  int *arg_slot;          /* scalar/handle param slot, or -1 */
  int *arg_buf;           /* buffer param descriptor, or -1 */
  int *arg_dslot;         /* buffer param: its data var's slot */
  const xs **arg_decl;    /* the parameter buffer's declaration (shape checks), or NULL */
  int64_t steps;
  /* PlanMemory's views (decl_buffers on a backing annotated tir.memory_pool):
   * a byte written through one carries its tag in the init bytes, and a read
   * through another view of a byte tagged by a third is a liveness error of
   * the plan (the bytes were given to a buffer that overwrote them) */
  int ntags;
  const char *tag_name[256];
};

/* the byte a write through buffer descriptor bi leaves in the init bytes */
#define X_INIT_TAG(p, bi) ((p)->binfo[(bi)].tag ? (p)->binfo[(bi)].tag : 1)

/* ---- the run ---- */
struct xrun {
  const tir_exec_prog *p;
  tir_diag *d;
  int stop;
  int64_t budget;
  int64_t steps;
  int64_t live_bytes, max_bytes;
  bool check_uninit;
  bool flat_views;        /* tir_exec_opts.flat_views */
  xstore *free_stores;    /* not used yet */
  tir_ptrmap live_local;  /* the "local" stores allocated and not yet freed: 1 (a frame may hold stale pointers) */
  void **stacks;          /* coroutine stacks, reused */
  int nstacks, capstacks;
};

/* a thread block: its shared storage, and the simulated threads */
struct xgroup {
  xstore **shared;        /* per group_idx */
  int nshared;
  struct xmeet **meet;    /* per T.tvm_thread_allreduce call site, or NULL (exec_allreduce.c) */
  int nmeet;
  struct xsched *sched;   /* the lockstep scheduler, when threads meet at barriers */
};

/* ---- exec_value.c ---- */
double x_round_half(double x);
double x_round_bf16(double x);
double x_round_to(xek k, double x);
int64_t x_wrap(int64_t v, int bits, bool uns);
xek x_elem_kind(tir_dtype t);
int x_ek_bytes(xek k);
int64_t x_read_int(const uint8_t *p, xek k);
double x_read_float(const uint8_t *p, xek k);
void x_write_int(uint8_t *p, xek k, int64_t v);
void x_write_float(uint8_t *p, xek k, double v);
bool x_ek_is_float(xek k);
uint64_t x_splitmix(uint64_t *s);

/* ---- exec_run.c: errors and memory ---- */
void x_fail(xframe *fr, tir_span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
xstore *x_store_new(xframe *fr, int64_t bytes, const char *name, tir_span sp);
void x_store_free(xframe *fr, xstore *s);
void x_meet_free(xgroup *g);
/* the address of an element, checked (NULL after reporting) */
uint8_t *x_addr(const xacc *a, xframe *fr, const int64_t *idx, bool write, xstore **st);
/* save / restore a descriptor around the scope that declares it */
typedef struct xsaved {
  xbuf b;
  int64_t dims[48];
  int64_t *more;
} xsaved;
void x_save_buf(int buf, xframe *fr, xsaved *sv);
void x_restore_buf(int buf, xframe *fr, xsaved *sv);

/* ---- compiling ---- */
typedef struct xc xc;
void *x_alloc(tir_exec_prog *p, size_t n);
const tir_expr **x_shape_vars(const tir_func *f, int *n);
int64_t x_buffer_bytes(const xs *s, xframe *fr, bool *ok);

/* ---- exec_thread.c: lockstep threads ---- */
void x_thread_loop(const xs *s, xframe *fr, int64_t lo, int64_t n);
void x_barrier(xframe *fr);
void x_run_sched_free(xrun *r);

/* x_addr's common case inline: a declared buffer, not a view, in bounds */
static inline uint8_t *x_addr_fast(const xacc *a, xframe *fr, const int64_t *idx, bool write, xstore **sto) {
  const xbuf *b = &fr->bufs[a->buf];
  xstore *st = b->st;
  if (st && b->view_src < 0 && !a->derive) {
    const int64_t *sh = fr->dims + a->dimoff, *str = sh + a->ndim;
    int64_t flat = 0;
    int d = 0;
    for (; d < a->ndim; d++) {
      if ((uint64_t)idx[d] >= (uint64_t)sh[d]) break;
      flat += idx[d] * str[d];
    }
    if (d == a->ndim) {
      int64_t off = b->base + flat * a->esize + a->lane_off;
      if (off >= 0 && off + a->lbytes <= st->size) {
        const uint8_t *in = st->init;
        bool ok = write || !in || !fr->run->check_uninit;
        if (!ok) {
          ok = true;
          for (int k = 0; k < a->lbytes; k++) ok &= in[off + k] == 1; /* a PlanMemory tag: checked in x_addr */
        }
        if (ok) {
          *sto = st;
          return st->data + off;
        }
      }
    }
  }
  return x_addr(a, fr, idx, write, sto);
}

/* the statement runner, for exec_thread.c */
static inline void x_exec(const xs *s, xframe *fr) { s->fn(s, fr); }

#endif
