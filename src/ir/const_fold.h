/* const_fold.h - the constant folding and identities that building a binary
 * node from TVMScript applies (as TVM's arith::TryConstFold), as one
 * decision shared by the reader (which applies it) and the printer (which
 * prints a node the reader would fold as T.Add(...) etc., so it reads back
 * unchanged). */
#ifndef TIR_CONST_FOLD_H
#define TIR_CONST_FOLD_H

#include "tir/ir.h"

typedef enum {
  IR_FOLD_NONE,  /* build the node */
  IR_FOLD_A,     /* the result is operand a */
  IR_FOLD_B,     /* the result is operand b */
  IR_FOLD_INT,   /* an int constant of a's dtype: .i */
  IR_FOLD_BOOL,  /* a bool constant: .i */
  IR_FOLD_FLOAT, /* a float constant of a's dtype: .f */
} ir_fold_kind;

typedef struct ir_fold {
  ir_fold_kind kind;
  int64_t i;
  double f;
} ir_fold;

/* a and b already have one dtype */
ir_fold ir_const_fold(tir_expr_kind k, const tir_expr *a, const tir_expr *b);
/* the folded expr, or NULL for IR_FOLD_NONE */
tir_expr *ir_fold_apply(tir_ctx *c, ir_fold f, tir_expr *a, tir_expr *b);

#endif
