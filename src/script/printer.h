/* printer.h - internals shared by the TVMScript printer's files
 * (printer_expr.c: text buffer, names, expressions; printer.c: statements,
 * blocks, functions, modules). */
#ifndef TIR_PRINTER_H
#define TIR_PRINTER_H

#include <stdbool.h>
#include <stddef.h>

#include "tir/script.h"
#include "ir/ptrmap.h"

/* a growing malloc'd string */
typedef struct pr_text {
  char *s;
  size_t len, cap;
} pr_text;

void pr_puts(pr_text *t, const char *s);
void pr_printf(pr_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* a printed name: key is a Var or Buffer; alias entries (buffer data vars,
 * printed "A.data") do not take a name in the namespace */
typedef struct pr_name {
  const void *key;
  char *text;
  bool alias;
  bool chained;          /* in key_head's chains (not a name pr_pop_flat only reserves) */
  const tir_buffer *buf; /* alias of a buffer's data var: that buffer */
  int prev;              /* the entry of the same key it shadows (an index of names), -1 if none */
  /* in its chain (this entry and those it shadows, which stay as they are
   * while it is chained): the outermost entry, and the innermost one not an
   * alias (-1 if none), so that a key of many shadowing entries (one data
   * var of many buffers) is looked up in O(1) */
  int first, plain;
} pr_name;

typedef struct printer {
  pr_text out;
  int indent;
  tir_dialect dialect;
  bool as_written; /* tir_print_opts.as_written */
  bool in_module;  /* printing an @I.ir_module class (its flags are the class decorator's) */
  /* inside a T.comm_reducer's lambda: TVM's parser runs its body as Python,
   * where `and` / `or` of exprs fail, so they are written T.And / T.Or */
  bool in_lambda;
  /* the statement printed is the last of an `if True:` body: a name it
   * defines flat would, in TVM's reading, stay defined after it */
  bool if_true_tail;
  /* a declaration whose data var a LetStmt just around it binds
   * (decl.data_let): printed data=<the let's value> */
  const tir_expr *data_let_var;
  const char *data_let_value;
  pr_name *names; /* a stack: scopes pop back to a mark */
  int nnames, capnames;
  tir_ptrmap key_head; /* key -> its innermost entry's index + 1 (0: none) */
  tir_strmap taken;    /* text -> how many entries not aliases name it so */
  tir_strmap next_suffix; /* a hint -> the suffix k to try first for hint_k (every smaller one is taken) */
  const tir_stmt **loops; /* enclosing For stmts (for T.axis.remap) */
  int nloops, caploops;
  /* free vars to declare at a block's match_buffers: var -> block */
  const tir_expr **decl_vars;
  const tir_block **decl_at;
  int ndecl, capdecl;
  /* thread vars launched more than once in the function being printed:
   * declared once, `tx = T.env_thread(tag)`, each launch a with-block (a
   * second `tx = T.launch_thread(...)` would define tx again) */
  const tir_expr **env;
  const char **env_tag;
  int nenv, capenv;
  bool env_escapes; /* one is used outside every launch of it (check_well_formed=False) */
  /* buffers accessed over a data var nothing binds (TVM's `B_1 =
   * T.Buffer(shape)` in a body, indexed): declared so before the first
   * statement of a scope that uses them (declare_free_buffers); data var ->
   * index + 1 in free_bufs */
  const tir_buffer **free_bufs;
  int nfree_bufs, capfree_bufs;
  tir_ptrmap free_data;
  /* where each is declared: the innermost statement around all its uses
   * (free_at[i]), printed before it; stmt -> 1 when some buffer is */
  const tir_stmt **free_at;
  tir_ptrmap free_stmts;
  bool *handle_used; /* the function printed: its handle params the body names (malloc'd) */
  /* free vars declared where TVM's printer declares them (place_free_vars):
   * var -> the statement printed after its declaration (fv_at), stmt -> 1
   * when some var is; fv_missed: a placed var was printed before it was
   * declared (the function is printed again with them at the top) */
  tir_ptrmap fv_at;
  tir_ptrmap fv_stmts;
  bool fv_missed, fv_off;
  const struct var_list *placed_fv; /* the function's free vars while it prints */
} printer;

void pr_init(printer *p, tir_dialect d);
void pr_free(printer *p);

/* names */
const char *pr_lookup(const printer *p, const void *key); /* NULL if none */
const pr_name *pr_entry(const printer *p, const void *key); /* its innermost entry, or NULL */
void pr_reserve_from(printer *p, int mark);
/* defines key under a fresh name derived from hint; returns it */
const char *pr_define(printer *p, const void *key, const char *hint);
void pr_define_alias(printer *p, const void *key, const char *text, const tir_buffer *buf);
/* the buffer whose data var v is, when that buffer is in scope */
const tir_buffer *pr_data_buffer(const printer *p, const tir_expr *v);
bool pr_deep_equal(const tir_expr *a, const tir_expr *b);
/* ".data", or ".source.data" for a local scalar's buffer (TVM 0.27 reads S.data of
 * `S: T.float64` as a load of S) */
const char *pr_data_suffix(const printer *p, const tir_buffer *b);
void pr_pop_to(printer *p, int mark);
/* the entries from mark up that name a key of keys no longer name it, and
 * their names are free again, though they stay on the stack (a frame's
 * end, where TVM's printer frees the names it declared in it) */
void pr_forget_from(printer *p, int mark, const tir_ptrmap *keys);

/* expressions */
void pr_expr(printer *p, const tir_expr *e);
void pr_dtype_str(pr_text *t, tir_dtype d); /* "int32", with quotes */
void pr_string_lit(pr_text *t, const char *s);
/* T.handle("float32", "global"): a typed pointer type, as TVM prints it (scope NULL: "global") */
void pr_ptr_type(printer *p, tir_dtype elem, const char *scope);
void pr_var_name(printer *p, const tir_expr *v);
void pr_buffer_name(printer *p, const tir_buffer *b);
/* T.int32(), T.handle("float32", "shared"): the declaration of a free var */
void pr_var_decl_ctor(printer *p, const tir_expr *v);
/* x[0] of a local scalar, printed `x` (tirx only) */
bool pr_scalar_access(const printer *p, const tir_buffer *b, tir_expr *const *idx, int nidx);
/* `T.int32` as a type annotation */
bool pr_type_named(tir_dtype d);
void pr_type_annot(printer *p, tir_dtype d);

#endif
