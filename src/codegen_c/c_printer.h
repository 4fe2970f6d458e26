/* c_printer.h - the C printer shared by the C and CUDA code generators
 * (internal).  As TVM's CodeGenCUDA extends CodeGenC, a target supplies a
 * cg_target of hooks that override how some nodes print; everything else is
 * plain C.  One cg prints one translation unit. */
#ifndef TIR_CODEGEN_C_PRINTER_H
#define TIR_CODEGEN_C_PRINTER_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/ptrmap.h"
#include "tir/analysis.h"
#include "tir/aot.h"
#include "tir/diag.h"
#include "tir/ir.h"

/* growable text */
typedef struct cg_text {
  char *s;
  size_t len, cap;
} cg_text;
void cg_text_puts(cg_text *t, const char *s);
void cg_text_printf(cg_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cg_text_free(cg_text *t);

/* helpers the printed code needs, emitted once at the top of the unit */
typedef enum cg_helper {
  CG_FLOORDIV,
  CG_FLOORMOD,
  CG_MIN,
  CG_MAX,
  CG_TRUNCDIV, /* signed / and % where INT_MIN / -1 may occur (it traps in C) */
  CG_TRUNCMOD,
  CG_EXP,      /* float32 e^x, correctly rounded and vectorizable (C only) */
  CG_CLZ,      /* count leading zeros of an unsigned, its width at 0 (C only) */
  CG_NOT,      /* ~ of an unsigned */
  CG_HELPER_COUNT
} cg_helper;
#define CG_NTYPES 12 /* i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 f16 bf16 */

/* a name in scope: what it names (a Var or Buffer, by identity) and its C
 * spelling */
typedef struct cg_name {
  const void *key;
  const char *name;
  int depth;
  int prev; /* the entry of the same key it shadows (an index of names), -1 if none */
} cg_name;

typedef struct cg cg;

/* what the body of an outlined parallel loop may assume (c_outline.c): of
 * a function's buffer parameter (by its data var), and of a temporary (by
 * its buffer or data var): the bytes [lo, hi) of base it covers */
typedef struct cg_param_info {
  const void *key;
  bool is_restrict;
  int align; /* 0: nothing assumed */
} cg_param_info;
typedef struct cg_span_info {
  const void *key, *base;
  int64_t lo, hi;
} cg_span_info;

/* what the printer records for the AOT description (c_aot.c), when asked */
typedef struct cg_meta {
  tir_aot_func *fn;          /* the function being printed */
  tir_ptrmap acc;            /* buffer data var accessed -> its TIR_AOT_READ/WRITE mask */
} cg_meta;

typedef struct cg_target {
  const char *helper_prefix; /* "static inline" or "static __device__ __forceinline__" */
  const char *bool_type;     /* "_Bool" / "bool" */
  bool is_cuda;              /* device intrinsics (__popc, __clz, __float_as_int) */
  /* float16 / bfloat16 element types, or NULL where the target has none */
  const char *f16_type, *bf16_type;
  /* each returns true when it printed the node, false to fall back to C */
  bool (*attr)(cg *g, const tir_stmt *s);
  bool (*alloc_buffer)(cg *g, const tir_stmt *s, const char *cname, const char *elem, const char *size);
  bool (*evaluate)(cg *g, const tir_stmt *s);
  bool (*call)(cg *g, const tir_expr *e);
  /* a store of more than one lane (Ramp index / vector value) */
  bool (*vector_store)(cg *g, const tir_stmt *s);
  /* before statement i of a SeqStmt (e.g. a barrier); may be NULL */
  void (*before_seq_item)(cg *g, const tir_stmt *seq, int i);
  /* at the end of a loop body; may be NULL */
  void (*loop_end)(cg *g, const tir_stmt *loop);
  /* prints a loop its own way (CUDA: a vectorized loop as a vector store);
   * false: the C printer prints it.  May be NULL */
  bool (*loop)(cg *g, const tir_stmt *loop);
  /* is this loop to be printed with `#pragma unroll`?  may be NULL */
  bool (*unroll)(cg *g, const tir_stmt *loop);
} cg_target;

struct cg {
  const cg_target *target;
  tir_ctx *ctx;       /* scratch arena (substitutions) */
  tir_diag *d;
  bool failed;
  cg_text *out;       /* where statements go now */
  int indent;
  cg_name *names;
  int nnames, names_cap;
  tir_ptrmap name_head;  /* key -> its innermost entry's index + 1 */
  tir_strmap name_count; /* C name -> the entries in scope that spell it */
  tir_strmap next_suffix; /* base -> i such that base_1 .. base_{i-1} are all taken (cg_define starts there) */
  int depth;          /* C block depth, for name scoping */
  bool helpers[CG_HELPER_COUNT][CG_NTYPES];
  int tmp_counter;
  tir_analyzer *an;   /* for simplifying lane indices; created on first use */
  bool used_f16, used_bf16; /* the printed code names the 16-bit float types */
  void *user;         /* the target's own state */
  struct cg_names *host_calls; /* CUDA: the extern callees the host code calls */
  cg_meta *meta;      /* NULL, or where the AOT description is recorded */
  int ptr_access;     /* TIR_AOT_READ/WRITE: what the pointer printed next is used for (0: both) */
  cg_text *decls;     /* NULL, or where each function's prototypes go (the header) */
  const char **globals; /* the module's function symbols and extern callees, sorted: no local takes */
  int nglobals;         /* one, nor SYM_packed / SYM_kernelN (cg_module_globals) */
  /* memory planning (issue 13): the line that releases the workspace before
   * an early return (NULL: none), whether the unit calls malloc, and whether
   * the function takes its workspace as its last parameter */
  const char *cleanup;
  bool used_malloc, ws_param;
  /* outlined parallel loop bodies (c_outline.c): their functions go to pre,
   * printed before the function being printed (func_symbol) */
  cg_text *pre;
  const char *func_symbol;
  int outline_counter;
  int64_t split_budget; /* statements loop splitting may still copy in this function (c_split.c) */
  const tir_stmt **jam_made; /* the loops c_jam.c made (not jammed again) */
  int njam_made, jam_made_cap;
  cg_param_info *param_info;
  int nparam_info, param_info_cap;
  tir_ptrmap param_index; /* a parameter's data -> its index in param_info + 1 */
  cg_span_info *spans;
  int nspans, spans_cap;
  /* the ranges of the loop vars in scope, for cg_truncates_alike */
  tir_analyzer *bounds;
  bool index_ctx; /* the expression being printed is a buffer index (c_expr.c) */
  /* the handle vars declared `void *` (untyped parameters and lets): a
   * buffer declared over one is a typed view, not another name (c_stmt.c) */
  const void **void_ptrs;
  int nvoid_ptrs, cap_void_ptrs;
  bool used_stdio; /* an extern of <stdio.h> is called (printf) */
  /* the place an error with no span of its own is reported at: the
   * statement being printed (the last one with a span), else the function */
  tir_span where;
};
void cg_note_void_ptr(cg *g, const void *var);
bool cg_is_void_ptr(const cg *g, const void *var);

void cg_init(cg *g, const cg_target *t, tir_ctx *c, tir_diag *d);
void cg_free(cg *g);
void cg_error(cg *g, tir_span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* names */
const char *cg_define(cg *g, const void *key, const char *hint); /* a fresh, unique C name */
bool cg_reserved_symbol(const char *n); /* a C/CUDA keyword, library name or macro */
bool cg_reserved_name(const char *n);   /* the same (c_reserved.c) */
char cg_c_callee(const char *n);        /* how C calls a reserved name (c_reserved.c) */
char cg_host_libc(const char *n);       /* how C calls another host C library function, 0 if n is none (c_reserved.c) */
/* T.call_extern of a C library function (c_libc.c): false with an error
 * where the call does not fit its signature (as_stmt: the value is unused) */
bool cg_libc_check(cg *g, const tir_expr *call, bool as_stmt);
/* does c_libc.c know name's signature? */
bool cg_libc_known(const char *name);
/* the C type argument i (from 0, after the name) of a C library call is cast to, or NULL */
const char *cg_libc_arg_cast(const tir_expr *call, int i);
bool cg_keyword(const char *n);         /* a C11 or C++20 keyword */
/* the global symbol f is emitted as: its own, or (reserved in C) renamed
 * deterministically with a warning; NULL with an error when not an identifier */
const char *cg_func_symbol(tir_ctx *c, const tir_func *f, tir_diag *d);
const char **cg_module_symbols(tir_ctx *c, const tir_module *m, tir_diag *d);
/* syms (cg_module_symbols) and the names call_extern calls, for cg.globals */
const char **cg_module_globals(tir_ctx *c, const tir_module *m, const char **syms, int *n);
/* a prototype for each function call_extern calls that no header declares */
void cg_extern_decls(cg *g, const tir_module *m, const char *const *syms, cg_text *out);
const char *cg_lookup(cg *g, const void *key);                  /* NULL when not in scope */
const char *cg_var(cg *g, const tir_expr *var);                 /* error when undefined */
const char *cg_buffer_ptr(cg *g, const tir_buffer *b);          /* the C name of b's data */
void cg_open(cg *g);   /* prints " {" + newline, enters a scope */
void cg_close(cg *g);  /* prints "}" + newline, leaves it */
void cg_enter(cg *g);  /* a name scope without braces */
void cg_leave(cg *g);
const char *cg_tmp(cg *g, const char *hint); /* a fresh temp name in the current scope */

void cg_alias(cg *g, const void *key, const char *name); /* key printed as an existing name */

/* Names in a list (by their text), each once */
typedef struct cg_names {
  const char **v;
  int n, cap;
} cg_names;
void cg_names_add(cg_names *l, const char *name);
bool cg_names_has(const cg_names *l, const char *name);

/* Vars in a list (by identity) */
typedef struct var_list {
  const tir_expr **vars;
  int n, cap;
  tir_ptrmap idx; /* var -> 1: the membership test is not a scan */
} var_list;
void var_list_add(var_list *l, const tir_expr *v);
bool var_list_has(const var_list *l, const tir_expr *v);
void var_list_free(var_list *l);
/* the shape/stride/offset vars of f's parameter buffers that are not params */
void cg_shape_vars(const tir_func *f, var_list *out);

/* lines */
void cg_line_start(cg *g); /* indentation */
void cg_linef(cg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* types */
bool cg_type(cg *g, tir_dtype t, char *buf, tir_span sp); /* C spelling into buf (32 bytes) */
int cg_type_index(tir_dtype t); /* for helpers; -1 if none */
const char *cg_type_suffix(int i); /* "i32", "f32" ... */

/* expressions: appended to the current output */
void cg_expr(cg *g, const tir_expr *e);
tir_analyzer *cg_bounds(cg *g); /* g->bounds, made on first use */
void cg_index(cg *g, const tir_expr *e); /* a buffer index: int32 sums may be computed in int64 */
char *cg_index_str(cg *g, const tir_expr *e);
char *cg_expr_str(cg *g, const tir_expr *e); /* in g->ctx */
void cg_expr_prec(cg *g, const tir_expr *e, int prec);
void cg_need_helper(cg *g, cg_helper h, tir_dtype t);
bool cg_truncates_alike(cg *g, const tir_expr *e); /* a floordiv/floormod C's / or % computes */
void cg_emit_helpers(const cg *g, cg_text *out);

/* statements */
void cg_stmt(cg *g, const tir_stmt *s);
/* memory planning: the workspace PlanMemory put around a function body
 * (an alloc_buffer annotated "tir.memory_pool": "workspace"), or NULL; its
 * mode ("malloc", "param" or "static") */
const tir_stmt *cg_workspace(const tir_func *f, const char **mode);
bool cg_buffer_used(const tir_stmt *s, const tir_buffer *b); /* loads, stores or addresses of b */
/* the index of the statements being emitted (c_index.c): push before the
 * root is printed, pop after; cg_index_has is 1/0, or -1 for a statement it
 * does not hold (walk it) */
typedef struct cg_use_index cg_use_index;
cg_use_index *cg_index_push(const tir_stmt *root);
void cg_index_pop(cg_use_index *saved);
int cg_index_has(const tir_stmt *s, const void *key, int kind); /* kind 1: loads/stores of buffer key, 2: its declarations */
bool cg_uses_var(const tir_stmt *s, const void *var); /* var or buffer data var */
/* every var cg_uses_var(s, var) is true of, each -> 1 in out (one walk) */
void cg_used_vars(const tir_stmt *s, tir_ptrmap *out);
/* a name in scope (cg_define's and cg_alias's entry) */
void cg_push_name(cg *g, const void *key, const char *name);
bool cg_may_write_var(const tir_stmt *s, const void *var); /* a store over var, or var handed on as a value */
/* may s read an element of var's array (nelems elements, -1 unknown) no
 * store set: its first access in program order a read (a load, or var
 * handed on), or, where every store's index is constant, a read at a
 * constant index none of them names, or at any index where they do not
 * cover the array?  (gcc's and nvcc's "used before its value is set": such
 * an array is zero-filled) */
bool cg_read_first(const tir_stmt *s, const void *var, int64_t nelems);
/* whether var's first store in program order is under an if (or in a while loop) */
bool cg_first_store_conditional(const tir_stmt *s, const void *var);
bool cg_expr_uses_var(const tir_expr *e, const void *var); /* the same, in an expression */
/* for (T var = min; var < min + extent; ++var) { body }; loop is passed to
 * the loop_end hook (may be NULL) */
void cg_loop(cg *g, const tir_expr *var, const tir_expr *min, const tir_expr *extent, const tir_stmt *body,
             const tir_stmt *loop);

/* the body of a loop built as an OpenMP loop as a function of its own
 * (c_outline.c): prints the call and returns true, or false (print it inline) */
bool cg_outline_body(cg *g, const tir_stmt *body);
/* a serial loop split where a comparison of its var with a constant changes
 * (c_split.c): prints the parts and returns true, or false */
bool cg_split_loop(cg *g, const tir_stmt *loop);
/* s with its stores', lets', evaluates' and ifs' expressions simplified by
 * a, decided ifs folded (c_split.c) */
tir_stmt *cg_tidy_stmt(cg *g, tir_analyzer *a, tir_stmt *s);
/* a spatial loop around a reduction unrolled and jammed into it (c_jam.c):
 * prints it and returns true, or false */
bool cg_jam_loop(cg *g, const tir_stmt *loop);
/* a reduction's init first in a nest's innermost body, peeled (c_stmt.c):
 * the nest without it, or NULL; first the init, vars/mins (nvars of them,
 * at most CG_PEEL_MAX) the substitution that places it before the nest */
#define CG_PEEL_MAX 8
const tir_stmt *cg_peel_first(cg *g, const tir_stmt *body, const tir_expr *var, const tir_expr *min,
                              const tir_stmt **first, const tir_expr **vars, tir_expr **mins, int *nvars);
/* the memory of a and of b provably does not overlap (c_outline.c): a
 * restrict parameter's, or temporaries whose bytes are known apart */
bool cg_distinct_memory(const cg *g, const tir_buffer *a, const tir_buffer *b);
/* integer divisions and remainders invariant in a loop (c_hoist.c): the
 * body returned with each replaced by a variable, whose declaration waits
 * in out for cg_hoisted_emit */
typedef struct cg_hoisted {
  int n;
  const char **names;
  char **lines;
} cg_hoisted;
const tir_stmt *cg_hoist_invariants(cg *g, const tir_expr *loop_var, const tir_stmt *body, cg_hoisted *out);
/* prints those of the declarations that loop_text uses, then loop_text */
void cg_hoisted_emit(cg *g, cg_hoisted *h, const char *loop_text);
void cg_note_span(cg *g, const void *key, const void *base, int64_t lo, int64_t hi);

/* vectors as lanes (c_vector.c).  cg_lane_of gives the scalar expression
 * of lane `lane` (an int32 Var or constant) of e, or NULL with an error;
 * hook->load, when set, may replace a vector load's lane (return NULL to
 * keep the scalar load). */
typedef struct cg_lane_hook {
  tir_expr *(*load)(cg *g, void *user, const tir_expr *load, tir_expr *lane);
  void *user;
} cg_lane_hook;
tir_expr *cg_lane_of(cg *g, const tir_expr *e, tir_expr *lane, const cg_lane_hook *hook);
tir_expr *cg_lane_index(cg *g, const tir_expr *idx, tir_expr *lane); /* simplified */
int cg_store_lanes(const tir_stmt *store);
bool cg_expr_reads(const tir_expr *e, const tir_expr *data); /* loads of data, or data itself */
void cg_c_vector_store(cg *g, const tir_stmt *s); /* a loop over the lanes */

/* intrinsics (c_intrin.c) */
bool cg_c_call(cg *g, const tir_expr *e);
/* slice_tensor: the copy as a loop nest whose innermost contiguous run is
 * `run(g, dst_ptr, src_ptr, count_expr, elem_type)`; pointers are C
 * expressions of element pointer type */
typedef struct cg_slice {
  int n;                  /* dims after merging */
  const tir_expr *ext[5];
  const tir_expr *dst_stride[5], *src_stride[5]; /* n-1 of each; innermost 1 */
  const tir_expr *dst, *src;
  tir_dtype dtype;
  char elem[32];
} cg_slice;
bool cg_slice_parse(cg *g, const tir_expr *call, cg_slice *out);
/* opens the copy's scope and declares its typed dst/src pointers (names out) */
void cg_slice_open(cg *g, const cg_slice *sl, const char **dst, const char **src);
bool cg_c_slice_tensor(cg *g, const tir_stmt *s);
/* a C expression for a pointer argument (address_of, tvm_access_ptr, data) */
void cg_pointer_arg(cg *g, const tir_expr *e, const char *elem);

/* the AOT description (c_aot.c) */
void cg_note_access(cg *g, const tir_expr *data, int mask); /* a buffer access printed */
int cg_access_of(const cg_meta *m, const tir_expr *data);
void cg_meta_free(cg_meta *m);
tir_aot_size cg_aot_size(const tir_expr *e);
void cg_pack_layout(tir_aot_func *fn);
void cg_aot_args(cg *g, const tir_func *f, const var_list *extra, tir_aot_func *fn);
void cg_aot_packed(cg *g, const tir_aot_func *fn, cg_text *out, const char *decl, const char *extra_param,
                   const char *extra_arg);
tir_aot_size cg_aot_product(tir_ctx *c, const tir_expr *const *e, int n);
tir_aot_module *cg_aot_module_new(tir_aot_target t, int nfuncs);
char *cg_strdup(const char *s);
void *cg_calloc(size_t n, size_t sz);

/* false, with an error, when f keeps a barrier between threads (c_barrier.c) */
bool cg_c_check_barriers(const tir_func *f, tir_diag *d);
/* false, with an error at the loop, when f keeps a loop whose step is not 1 */
bool cg_check_steps(const tir_func *f, tir_diag *d);
/* a break or continue anywhere in s (c_stmt.c) */
bool cg_has_jump(const tir_stmt *s);

#endif
