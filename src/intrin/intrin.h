/* intrin.h - the table of known intrinsics (Call ops): name, arity, argument
 * kinds, result dtype rule.  The reader checks calls against it; code
 * generators look ops up by name.  The table is constant (no mutable state). */
#ifndef TIR_INTRIN_H
#define TIR_INTRIN_H

#include <stdbool.h>

#include "tir/diag.h"
#include "tir/ir.h"

/* what an argument must be */
typedef enum tir_intrin_arg {
  TIR_IA_ANY,      /* any expression */
  TIR_IA_INT,      /* int or uint scalar (not bool) */
  TIR_IA_FLOAT,    /* float or bfloat */
  TIR_IA_NUMERIC,  /* int, uint or float (not bool, not handle) */
  TIR_IA_BOOL,     /* bool (or an int, read as a truth value) */
  TIR_IA_HANDLE,   /* a pointer: handle dtype */
  TIR_IA_STRING,   /* a StringImm */
  TIR_IA_TYPE_ANNOT, /* a T.type_annotation(dtype) call */
  TIR_IA_INT_BOOL,   /* int, uint or bool scalar (T.bitwise_and of two bools, as TVM's) */
} tir_intrin_arg;

/* how the result dtype is found */
typedef enum tir_intrin_result {
  TIR_IR_ARG0,     /* the dtype of the first argument */
  TIR_IR_ARG1,     /* the dtype of the second argument (if_then_else) */
  TIR_IR_HANDLE,
  TIR_IR_INT32,
  TIR_IR_UINT32,
  TIR_IR_INT64,
  TIR_IR_UINT64,
  TIR_IR_FLOAT32,
  TIR_IR_BOOL,     /* bool with the lanes of the first argument */
  TIR_IR_INT32_LANES, /* int32 with the lanes of the first argument (q_multiply_shift) */
  TIR_IR_VOID,
  TIR_IR_EXPLICIT, /* given by the caller (call_extern's dtype, type_annotation's dtype) */
  TIR_IR_DTYPE_ARG1, /* the dtype its second argument, a string, names (T.cuda.ldg(addr, "float32")) */
  TIR_IR_INT_BITS_ARG0, /* an int of the bits its first argument gives (T.cuda.mov_sreg(32, "%laneid")) */
} tir_intrin_result;

/* special argument-count rules */
typedef enum tir_intrin_arity {
  TIR_ARITY_RANGE,        /* min_args <= n <= max_args (max_args -1: unbounded) */
  TIR_ARITY_SLICE_TENSOR, /* n == 3k + 1 with 1 <= k <= 5 */
} tir_intrin_arity;

typedef struct tir_intrin {
  const char *name;        /* the op name without "tir.": "exp", "tvm_access_ptr" */
  tir_intrin_arity arity;
  int min_args, max_args;
  /* kinds of the first args; positions past nkinds take the last kind
   * (or TIR_IA_ANY when nkinds == 0) */
  tir_intrin_arg kinds[6];
  int nkinds;
  tir_intrin_result result;
  bool pure;               /* no side effects */
  bool same_dtype_args;    /* every argument must have the first one's dtype (pow, fmod, ...) */
  const char *c_name;      /* the C function for float32 math ("expf"), or NULL */
} tir_intrin;

/* read and printed (TVM's tensor-core, warp and hint intrinsics), but not
 * emitted or run: the code generators and the interpreter refuse it by name */
bool tir_intrin_read_only(const tir_intrin *in);
/* an op TVM registers with no T.* function (T.call_intrin(dtype, "tirx.dma_copy", ...) only) */
bool tir_intrin_call_intrin_only(const tir_intrin *in);

/* the entry for name (with or without a "tir." prefix), or NULL */
const tir_intrin *tir_intrin_lookup(const char *name);
/* TVM's op name (after "tirx.") of tirc's intrinsic `name`, and back: the
 * same but for T.metal's simdgroup ops, which TVM registers without metal. */
const char *tir_intrin_tvm_op(const char *name);
const char *tir_intrin_from_tvm_op(tir_ctx *c, const char *op);
/* every entry, for tables in docs and tests */
const tir_intrin *tir_intrin_table(int *n);

/* Check a call of `name` with these args: arity, argument kinds, then the
 * intrinsic's own rules (slice_tensor's layout, tvm_access_ptr's rw_mask).
 * *result: in, the explicit dtype for TIR_IR_EXPLICIT entries; out, the
 * result dtype.  Returns false with errors in d (at span) when the call is
 * not valid; false without a message when name is not in the table. */
bool tir_intrin_check(tir_ctx *c, const char *name, tir_expr **args, int nargs, tir_span span,
                      tir_diag *d, tir_dtype *result);

#endif
