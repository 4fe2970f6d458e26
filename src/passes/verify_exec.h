/* verify_exec.h - --verify-exec inside the pass manager (internal). */
#ifndef TIR_PASSES_VERIFY_EXEC_H
#define TIR_PASSES_VERIFY_EXEC_H

#include "tir/passes.h"

typedef struct tir_verify_exec tir_verify_exec;
/* runs every function of m on its seeded inputs; NULL with errors when one cannot run */
tir_verify_exec *tir_verify_exec_begin(const tir_module *m, const tir_pipeline_opts *o, tir_diag *d);
/* runs m (after `pass`) and compares with the last stage; false with errors */
bool tir_verify_exec_step(tir_verify_exec *v, const tir_module *m, const char *pass, tir_diag *d);
void tir_verify_exec_free(tir_verify_exec *v);

#endif
