/* tir/exec.h - the IR interpreter: runs a PrimFunc at any stage of the
 * pipeline (block-level TIR with match_buffers down to flat lowered loops)
 * on caller-supplied buffers, checked: every access is bounds-checked (a
 * view's against its source too), every read of an element never written
 * in a buffer that is not a parameter is reported, and so are integer
 * division by zero and shifts out of range.  Each report is a diagnostic at
 * the source position of the faulting access.
 *
 * Semantics (docs/exec.md): loops of every kind run as loops, in order;
 * threadIdx loops whose body holds a T.tvm_storage_sync run their threads
 * in lockstep between barriers (every thread of the block runs to the
 * barrier before any goes past it), and shared/warp storage allocated under
 * a thread loop is one per thread block.  Integers wrap at their width;
 * float16/bfloat16 arithmetic is done in double and rounded to the type
 * after every operation; vectors are run lane by lane. */
#ifndef TIR_EXEC_H
#define TIR_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tir/diag.h"
#include "tir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: exported from libtir.so, which hides everything else */
#pragma GCC visibility push(default)

/* One input of a function: a parameter (buffer or scalar), or a var that a
 * parameter buffer's shape, strides or elem_offset name but no parameter
 * binds (the `n` of `A = T.match_buffer(a, (n,))`: the C code takes it as a
 * trailing argument). */
typedef struct tir_exec_arg {
  const char *name;       /* the param's (or var's) name, owned by the func's ctx */
  bool is_buffer;
  bool is_param;          /* a parameter of the function, else a shape var */
  bool set;               /* a scalar value was given (tir_exec_args_set / random) */
  tir_dtype dtype;        /* buffer: element dtype; scalar: its dtype */
  /* buffer: memory of `bytes` bytes (owned by the args), shape resolved by
   * tir_exec_args_alloc */
  void *data;
  size_t bytes;
  int ndim;
  int64_t *shape;
  /* scalar value: ints (and bool) in i, floats in f */
  int64_t i;
  double f;
} tir_exec_arg;

typedef struct tir_exec_args {
  const tir_func *func;
  tir_exec_arg *a;
  int n;
} tir_exec_args;

/* The inputs of f: one per parameter in order, then one per shape var.
 * Scalars are unset and buffers unallocated.  NULL with an error when f
 * cannot be run (a handle parameter without a buffer). */
tir_exec_args *tir_exec_args_new(const tir_func *f, tir_diag *d);
void tir_exec_args_free(tir_exec_args *a); /* NULL is fine */
/* sets scalar `name` from text ("12", "-3", "0.5", "true"); false with an error */
bool tir_exec_args_set(tir_exec_args *a, const char *name, const char *value, tir_diag *d);
/* Gives every unset scalar a value chosen from seed (shape vars and int
 * params: 1..16; floats in [-1, 1); bool 0/1), binds stride vars of
 * parameter buffers to compact strides and elem_offset vars to 0, sizes and
 * allocates every buffer (zeroed), then fills the buffers with seeded
 * random data (ints of 8 bits or fewer over their whole range, wider ints
 * in [-64, 64) (unsigned [0, 128)), floats in [-1, 1) rounded to the type,
 * bools 0/1).  False with an error. */
bool tir_exec_args_randomize(tir_exec_args *a, uint64_t seed, tir_diag *d);
/* a deep copy (same values, buffers copied) */
tir_exec_args *tir_exec_args_copy(const tir_exec_args *a);

/* Options of a run; NULL means the defaults. */
typedef struct tir_exec_opts {
  int64_t max_iterations; /* loop iterations in all (0: 4e9); past it the run stops with an error */
  int64_t max_bytes;      /* bytes allocated at once by the program (0: 4 GiB) */
  bool no_uninit_check;   /* do not report reads of never-written elements */
  bool flat_views;        /* the function is flattened (FlattenBuffer ran): a one-dimensional buffer is bounded
                           * by its storage only, not by its shape -- FlattenBuffer folds a decl_buffer's
                           * elem_offset into its indices and keeps the shape, as TVM's does */
} tir_exec_opts;

/* Runs f on args (their buffers are read and written in place).  Returns
 * true, or false with an error in d at the faulting access. */
bool tir_exec(const tir_func *f, tir_exec_args *args, const tir_exec_opts *o, tir_diag *d);

/* True when f hands a pointer other than a T.tvm_access_ptr (which says
 * how many elements it covers) to an extern function the interpreter does
 * not know: such an extern runs as an opaque function of what it can see
 * (docs/exec.md), and a raw pointer shows it nothing, so runs of f before
 * and after LowerIntrin (access_ptr -> address_of) cannot be compared. */
bool tir_exec_has_opaque_pointers(const tir_func *f);
/* how many such pointer arguments f's extern calls hold: a pass that adds
 * one (LowerIntrin's address_of beside a raw A.data already there) hides
 * what the extern saw before */
int tir_exec_count_opaque_pointers(const tir_func *f);

/* compiled once, run many times (the benchmark; --verify-exec) */
typedef struct tir_exec_prog tir_exec_prog;
tir_exec_prog *tir_exec_compile(const tir_func *f, tir_diag *d);
bool tir_exec_run(tir_exec_prog *p, tir_exec_args *args, const tir_exec_opts *o, tir_diag *d);
void tir_exec_prog_free(tir_exec_prog *p);
/* statements executed by the last run of p (loop bodies count per iteration) */
int64_t tir_exec_prog_steps(const tir_exec_prog *p);

/* The 64-bit hash of the buffers' bytes that --run prints: h = len;
 * per little-endian 8-byte word w (the tail zero-padded):
 * h = (h ^ w) * 0x9E3779B97F4A7C15, h ^= h >> 29; then h ^= h >> 32. */
uint64_t tir_exec_hash(const void *data, size_t bytes);
/* one line per buffer argument: `NAME DTYPE SHAPE HASH` (SHAPE as 2x3, a
 * rank-0 buffer as (); HASH 16 hex digits) */
void tir_exec_args_print(const tir_exec_args *a, FILE *out);

/* Compares the buffers of two runs of (possibly different stages of) one
 * function: ints and bools bit-exact, floats within
 * |x - y| <= atol + rtol * max(|x|, rms) (NaN equals NaN), rms the root
 * mean square of the first run's buffer (the scale of a reordered sum's
 * rounding), rtol no less than 8 units in the last place for float16 and
 * bfloat16.  Returns the index of the
 * first differing buffer argument, or -1 when all agree; *flat gets the
 * first differing element and msg (size n) says which and both values. */
#define TIR_EXEC_RTOL 1e-5
#define TIR_EXEC_ATOL 1e-6
int tir_exec_args_compare(const tir_exec_args *want, const tir_exec_args *got, double rtol, double atol,
                          int64_t *flat, char *msg, size_t n);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
