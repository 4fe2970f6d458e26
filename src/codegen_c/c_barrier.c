/* c_barrier.c - the C target runs the threads of a block one after
 * another (threadIdx loops are plain loops), so a barrier between them
 * (T.tvm_storage_sync inside a threadIdx loop of extent > 1) cannot be
 * kept: threads that read what others wrote before the barrier would read
 * it too early.  Such a function is refused by name rather than compiled
 * to a silently wrong loop (found by tests/fuzz/fuzz_exec.c). */
#include <string.h>

#include "codegen_c/c_printer.h"
#include "tir/analysis.h"
#include "tir/visit.h"

static const tir_expr *sync_in(const tir_expr *e) {
  if (!e || e->kind != TIR_CALL) return NULL;
  if (!strcmp(e->u.call.op, "tvm_storage_sync")) return e;
  for (int i = 0; i < e->u.call.nargs; i++) {
    const tir_expr *s = sync_in(e->u.call.args[i]);
    if (s) return s;
  }
  return NULL;
}

static bool is_thread(const char *tag, const tir_expr *ext) {
  int64_t n;
  return tag && !strncmp(tag, "threadIdx.", 10) && !(tir_is_const_int(ext, &n) && n <= 1);
}

/* the first barrier under a threadIdx loop, or NULL */
static const tir_expr *find(const tir_stmt *s, bool in_threads) {
  if (!s) return NULL;
  const tir_expr *r = NULL;
  switch (s->kind) {
  case TIR_EVALUATE: return in_threads ? sync_in(s->u.eval.value) : NULL;
  case TIR_FOR:
    return find(s->u.loop.body, in_threads || (s->u.loop.kind == TIR_FOR_THREAD_BINDING &&
                                               is_thread(s->u.loop.thread_tag, s->u.loop.extent)));
  case TIR_ATTR: {
    const char *tag = s->u.attr.thread_tag;
    if (!tag && s->u.attr.node && tir_is_var(s->u.attr.node)) tag = s->u.attr.node->u.var.name;
    bool t = !strcmp(s->u.attr.key, "thread_extent") && is_thread(tag, s->u.attr.value);
    return find(s->u.attr.body, in_threads || t);
  }
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n && !r; i++) r = find(s->u.seq.stmts[i], in_threads);
    return r;
  case TIR_IF:
    r = find(s->u.ifs.then_s, in_threads);
    return r ? r : find(s->u.ifs.else_s, in_threads);
  case TIR_LET_STMT: return find(s->u.let.body, in_threads);
  case TIR_WHILE: return find(s->u.whl.body, in_threads);
  case TIR_ALLOCATE: return find(s->u.alloc.body, in_threads);
  case TIR_DECL_BUFFER:
  case TIR_ALLOC_BUFFER: return find(s->u.decl.body, in_threads);
  case TIR_ASSERT: return find(s->u.assrt.body, in_threads);
  case TIR_BLOCK_REALIZE:
    r = find(s->u.realize.block->init, in_threads);
    return r ? r : find(s->u.realize.block->body, in_threads);
  default: return NULL;
  }
}

bool cg_c_check_barriers(const tir_func *f, tir_diag *d) {
  const tir_expr *s = find(f->body, false);
  if (!s) return true;
  tir_error(d, s->span.line ? s->span : f->span,
            "T.tvm_storage_sync inside a threadIdx loop: the C code runs the threads of a block one after another, "
            "so it cannot keep this barrier (threads would read shared memory before others write it); "
            "--emit=cuda keeps it");
  return false;
}

/* ---- loop steps: C and CUDA loops here step by 1; a loop with another
 * step is lowered by canonicalize_loop (first in the default pipeline) ---- */
typedef struct step_find {
  const tir_stmt *loop;
} step_find;

static bool step_cb(tir_visitor *v, const tir_stmt *s) {
  step_find *f = v->user;
  int64_t st;
  if (f->loop) return false;
  if (s->kind == TIR_FOR && s->u.loop.step && !(tir_is_const_int(s->u.loop.step, &st) && st == 1)) f->loop = s;
  return !f->loop;
}

bool cg_check_steps(const tir_func *f, tir_diag *d) {
  if (!tir_func_check_scalable(f, "code generation", d)) return false;
  step_find sf = {0};
  tir_visitor v = {.stmt = step_cb, .user = &sf};
  tir_visit_stmt(&v, f->body);
  if (!sf.loop) return true;
  tir_error(d, sf.loop->span,
            "loop '%s' has a step: the code generators take loops of step 1; run canonicalize_loop first (the "
            "default pipeline does)",
            sf.loop->u.loop.var->u.var.name ? sf.loop->u.loop.var->u.var.name : "?");
  return false;
}
