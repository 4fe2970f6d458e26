/* reader.h - internal: the TVMScript reader (tree-sitter Python tree -> IR).
 * reader.c: entry, input checks, imports, modules and functions;
 * reader_stmt.c: statements; reader_block.c: blocks, buffers, block frames;
 * reader_expr.c: expressions and values; reader_call.c: T.* calls;
 * reader_scalar.c: tirx local scalars;
 * reader_syntax.c: brackets, strings, indentation (Python messages);
 * reader_scope.c: the symbol table, spans, node text, small vectors. */
#ifndef TIR_READER_H
#define TIR_READER_H

#include <tree_sitter/api.h>

#include "ir/ptrmap.h"
#include "tir/diag.h"
#include "tir/ir.h"

/* a value met while reading: TVMScript evaluates Python, so a name may
 * denote a Python number, a string, a buffer, a tuple ... not only an expr */
typedef enum rv_kind {
  RV_ERR,    /* an error was already reported */
  RV_NONE,
  RV_EXPR,
  RV_INT,    /* a Python int (no dtype yet) */
  RV_FLOAT,  /* a Python float */
  RV_BOOL,   /* a Python bool */
  RV_STR,
  RV_BUFFER,
  RV_TUPLE,  /* tuple or list (is_list) */
  RV_DICT,
  RV_DTYPE,  /* T.int32 used as a value */
  RV_REGION, /* A[a:b, c] */
  RV_HANDLE_T, /* T.handle as an annotation */
  RV_ATTR,   /* an attribute value only (T.target(...)): av */
  RV_FRESH,  /* T.int32() where a value is read: a fresh var of dt in a buffer's
              * elem_offset or strides (as TVM reads it), else an error */
  RV_MACRO,  /* a T.macro passed as a value (a higher-order macro's argument): i, its index in macros */
  RV_BIGINT, /* a Python int past int64 (to 2**127): hi * 2**64 + (uint64_t)i; Python's
              * arithmetic on it gives an RV_INT again where the value fits */
  RV_LAYOUT, /* T.S[(e0, e1):(s0, s1)] (is_list false) or T.TileLayout(...) of it
              * (is_list true): n iters, items[2k] the extent and items[2k + 1]
              * the stride of iter k, each an RV_EXPR */
  RV_SLICE,  /* Python's slice(lo, hi, step): items[0..2], RV_NONE where left out; an
              * index of a store's target only (B[slice(0, 4)] = v, T.buffer_store's
              * indices: TVM's Ramp), else an error */
} rv_kind;

typedef struct rval {
  rv_kind k;
  tir_span sp;
  tir_expr *e;
  int64_t i;
  int64_t hi; /* RV_BIGINT: the high 64 bits */
  double f;
  const char *s;
  tir_buffer *buf;
  struct rval *items; /* TUPLE items, DICT values */
  struct rval *keys;  /* DICT keys */
  int n;
  bool is_list;
  /* RV_STR of T.llvm_lookup_intrinsic_id("llvm.x"): TVM's value is the LLVM
   * build's number for the intrinsic, which it prints (and reads) as the
   * name where T.call_llvm_intrin takes it; anywhere else it is refused */
  bool llvm_id;
  tir_dtype dt;
  tir_buffer_region region;
  tir_attr_val *av;
  /* RV_STR of one plain literal: its body's bytes in the source and the
   * point they start at (lit_len 0 otherwise), for a shape string that is
   * an expression (T.Buffer(("n + 1",), ...)) */
  uint32_t lit_at, lit_len;
  TSPoint lit_pt;
  /* RV_EXPR of `X.data`: X (the buffer the text named) */
  const tir_buffer *via;
  bool via_bare; /* X itself, bare, as a call's argument (its pointer) */
} rval;

/* a name in scope */
typedef struct rd_sym {
  const char *name;
  rval val;
  bool free_decl; /* `name = T.int32()`: a fresh free var */
  bool from_shape; /* made by a shape string ("n"), as TVM prints a size var first used there */
  bool loop_bound; /* a free_decl var a loop (or thread launch) after its T.attr binds */
  unsigned uses;   /* uses of a free_decl var as a value, but for the T.attr nodes that hint a loop */
  tir_span bound_at; /* where loop_bound was set */
  int prev;          /* the binding of the same name it shadows (an index of syms), -1 if none */
} rd_sym;


/* a loop in scope (for T.axis.remap domains) */
typedef struct rd_loop {
  tir_expr *var, *min, *extent;
} rd_loop;

/* a block being read */
typedef struct rd_block {
  tir_block *blk;
  bool is_root;
  TSNode body;       /* the statement list that configures it */
  tir_iter_var *iters; int n_iter, cap_iter;
  tir_expr **values; int cap_values;
  tir_buffer_region *reads; int n_reads, cap_reads;
  tir_buffer_region *writes; int n_writes, cap_writes;
  bool has_reads, has_writes;
  tir_buffer **allocs; int n_alloc, cap_alloc;
  tir_match_buffer *matches; int n_match, cap_match;
  tir_expr *predicate;
  tir_attr_val *annots;
  tir_stmt *init;
  bool body_started; /* a body statement was met */
  bool no_realize;   /* T.sblock(..., no_realize=True) */
  struct rd_block *parent;
} rd_block;

/* the function being read */
typedef struct rd_func {
  tir_func *f;
  tir_expr **params; int nparams;
  tir_buffer **bufmap;
  bool explicit_s_tir;
  bool persistent; /* @T.prim_func(persistent=True): TVM's "tirx.persistent_kernel" attr */
  /* the scalar parameters' names and dtypes: a var a shape string makes
   * takes the dtype of a parameter of its name */
  const char **sig_names; tir_dtype *sig_dts; int nsig;
  int nblocks;
  /* blocks read with no_realize=True (TVM's bare SBlock), and for each the
   * regions its body gives, applied where TVM's reader infers them: when
   * the function holds a realized block too (its ScriptComplete runs) */
  struct rd_bare { tir_block *blk; tir_buffer_region *rs, *ws; int nr, nw; bool has_reads, has_writes; } *bare;
  int nbare, cap_bare;
  rd_block root; /* collects function-level block allocations */
  /* the last block finished outside any block, and whether its reads /
   * writes were written (a lone one is the root: no inference) */
  tir_block *last_top;
  bool last_top_reads, last_top_writes;
} rd_func;

typedef struct rd_chunk_plan {
  uint32_t def_at;   /* the byte of the function's `def` (of a class plan: of its `class`) */
  TSRange *head; int nhead; /* the header lines around the list */
  uint32_t *cut; TSPoint *cutpt; int nchunks; /* chunk k is [cut[k], cut[k+1]) */
  int ndescend;      /* the `with`s between the body and the list */
  /* a class plan: the body of an @I.ir_module class, its statements (the
   * functions) in chunks; defs: each of its defs' logical line, for the
   * names and return types the module's calls need before it is read */
  bool cls;
  struct rd_def_line { uint32_t start, first, end, srow; } *defs; int ndefs;
} rd_chunk_plan;

/* the state of chunked reading (reader_chunk.c) */

typedef struct rd_chunks {
  rd_chunk_plan *plans; int nplans;
  const rd_chunk_plan *cur; /* the function being read, when chunked */
  int next;                 /* the next chunk to parse */
  TSNode list0, list;       /* the list's first chunk (first tree), its current chunk */
  TSTree **trees; int ntrees, captrees; /* the later chunks' trees, alive */
  int kids_mark;            /* r->nkids when the first of them was made */
  const TSTree *tree0;      /* the first parse's */
  TSParser *parser;
  /* the class being read in chunks: its plan, the next chunk, the current
   * chunk's tree (NULL for the first, in tree0) and r->nkids when it was made */
  const rd_chunk_plan *cls;
  int cls_next;
  TSTree *cls_tree;
  int cls_mark;
} rd_chunks;

typedef struct rd {
  tir_ctx *c;
  tir_diag *d;
  const char *src;
  size_t len;
  const char *global_infos_text; /* I.module_global_infos kept as text (module_dict_stmt) */
  int cap_text_funcs; /* room of the module's text_funcs (text_func) */
  int non_ascii;      /* the text holds a non-ASCII byte: 0 not yet known, 1 no, 2 yes */
  bool tirx;          /* the import says tirx (else tir) */
  const char *t_alias; /* "T" */
  const char *i_alias; /* "I" */
  bool t_alias_real, i_alias_real; /* set by an import statement, not a comment */
  bool deep_reported; /* "nested too deeply" said once */
  rd_sym *syms; int nsyms, capsyms; /* malloc'd; rd_push_sym adds, rd_pop_syms removes */
  tir_strmap symtab; /* name -> its innermost binding (an index of syms, -1 if none) */
  tir_ptrmap const_tuples; /* items of module-constant tuples checked constant -> 1 */
  long macro_expansions;   /* T.macro calls expanded in the text (a budget) */
  /* T.decl_buffer(..., data=<a handle expression>) (TVM 0.27's DeclBuffer.data):
   * rd_buffer_from_args takes such a data= where decl_data_ok, gives the
   * buffer a fresh data var and leaves the expression here */
  bool decl_data_ok;
  /* alloc_from_args: the buffer it declares is a scalar (T.decl_scalar) */
  bool decl_scalar;
  /* the arguments of a T.axis.* are read: T.Range(begin, end) is the
   * domain pair (begin, end) there, as TVM's Range; refused elsewhere */
  bool axis_args;
  bool region_args; /* evaluating T.reads / T.writes: A[vi] of a 2-D A is A[vi, 0:n], as TVM reads it */
  /* the subscript read is a store's target, where TVM 0.27 reads a slice
   * (A[0:4], A[0:8:2]) as a vector index; anywhere else it is a region */
  bool store_target;
  tir_expr *decl_data_value;
  /* module-level `n = TypeVar("n")`: each function whose signature names
   * one gets an int64 var of that name (TVM 0.27's printer writes them) */
  const char **typevars; int ntypevars, captypevars; /* malloc'd */
  /* module-level `N = 128`, `dtype = "float16"`, `shape = (N, 4)`: Python
   * constants a function defined after them sees as its globals */
  rd_sym *globals; int nglobals, capglobals; /* malloc'd */
  TSParser *sub_parser; /* for shape strings that are expressions; lazily made */
  rd_loop *loops; int nloops, caploops; /* malloc'd */
  int loop_depth; /* for/while loops around the statement read, within its block */
  rd_func *fn;
  rd_block *blk;      /* innermost block, or NULL */
  int depth;          /* nesting depth, to refuse pathological inputs */
  int stmt_depth;     /* statement nesting (bodies, and lets/allocs scoping the rest) */
  bool too_deep;      /* stmt_depth hit its limit (reported once) */
  int nest;           /* indentation levels the printer will write (an elif is one more) */
  int fn_nest;        /* nest inside a function's own body (T.func_attr is read there only) */
  bool in_rest;       /* the next rd_stmts reads the rest of a list: no new level */
  /* the @I.ir_module class read: its name and its functions (their
   * return annotations, read when a call of one is met) */
  const char *cls_name;
  /* ret: the return annotation's node, or (a class read in chunks) its
   * text at ret_at, ret_len bytes, ret_pt; neither: void */
  struct rd_gfunc { const char *name; TSNode ret; uint32_t ret_at, ret_len; TSPoint ret_pt; } *gfuncs; int ngfuncs; /* malloc'd */
  tir_strmap gfunc_index; /* a gfunc's name -> its first index (a module of many calls looks each up in O(1)) */
  /* `a, b = x, y`: the names still to bind after the first, each a let of
   * its value (all values read first, as Python does); the rest of the
   * list is read after the last (reader_stmt.c, tuple_assign) */
  struct rd_pend { const char *name; rval v; tir_span sp; } *pend; /* scratch */
  int pend_i, pend_n;
  /* the free var of a T.attr whose only statement is the for loop read
   * next: that loop binds it (see reader_stmt.c, pragma_loop_var) */
  tir_expr *loop_var_hint;
  /* the statement rd_stmts is at, and its list (ts_node_parent walks down
   * from the root: too slow to ask for every block-frame statement) */
  TSNode cur_stmt, cur_list;
  tir_span eval_sp; /* the expression rd_eval is in (innermost), for errors on nodes without a position */
  /* an `if` on a Python constant: TVM's parser reads the branch taken into
   * the enclosing statement list, so what the branch scopes (a bare
   * T.launch_thread, a let, a buffer) goes on over the statements after the
   * if, and its names stay defined there.  While such a branch is read, its
   * list continues into the enclosing list from `from` (reader_stmt.c) */
  struct rd_splice { TSNode branch, list; uint32_t from; } splice[64];
  int nsplice;
  /* the bodies of macros called directly in a block's body: what stands
   * directly in such a body (T.axis.remap, T.reads, T.init) is the
   * block's, as TVM's expansion splices the body in (rd_direct_in_block) */
  struct rd_msplice { TSNode body, list; } msplice[16];
  int nmsplice;
  /* `with a, b: body` is read as `with a: with b: body`: while item a is
   * read, its body is items with_next... of with_node's clause */
  long comp_items; /* values list comprehensions have made so far (a budget: nested ones multiply) */
  TSNode with_node;
  uint32_t with_next; /* 0: none pending */
  /* binds_next's last answer: for list's statements from any index in
   * [bn_from, bn_stop] (T.attr on bn_name up to bn_stop) and bn_name, bn_res
   * (a run of n concise T.attr is then read in O(n), not O(n^2)) */
  TSNode bn_list; const char *bn_name; uint32_t bn_from, bn_stop; bool bn_res, bn_set;
  /* the named children of statement lists, made once each (tree-sitter's
   * ts_node_named_child(list, i) walks from the first child: a loop over i
   * is quadratic in the list); malloc'd, freed with the tree */
  tir_ptrmap kids_of;
  /* rd_text's copies of short texts, open addressing (malloc'd) */
  const char **intern; size_t nintern, capintern;
  const char **fnames; size_t nfnames, capfnames; /* the functions read (rd_name_seen), malloc'd */
  /* the @T.macro definitions so far (malloc'd); while a hygienic macro is
   * expanded, names below sym_floor (the caller's) are not seen */
  /* calls: its expansions so far; from the second on, TVM 0.27 suffixes the
   * names of the blocks it makes _1, _2 ... (block_suffix while expanding) */
  /* seq: the order of definition (a macro defined again gets a new one) */
  struct rd_macro { const char *name; TSNode params, body; bool hygienic; int calls, nglobals, seq; } *macros; int nmacros, capmacros;
  /* a hygienic macro's body sees the macros defined before it only (TVM's
   * capture at its definition): those of seq below macro_vis; 0, all */
  int macro_seq, macro_vis;
  bool module_eval; /* a module-level constant's value is being read (Python's own evaluation) */
  const char *block_suffix;
  int sym_floor, macro_depth;
  /* where the innermost of TVM's name scopes begins in syms (a function's
   * parameters and body, a loop's vars and body, a with's or a branch's
   * body): a name is bound once in it (rd_fresh) */
  int frame;
  tir_ptrmap thread_ext; /* an env_thread var -> the extent it was first launched with (tir_expr *) */
  tir_ptrmap env_tags;   /* a T.env_thread var (named as assigned, as TVM names it) -> its thread tag (const char *) */
  bool gen_errors; /* code will be generated (tir_parse_opts.oob_access_errors): what only a print takes is an error */
  struct tir_analyzer *match_an; /* T.match_buffer's shape check (made at the first) */
  /* scratch that lives until the statement being read is read (rd_tmp):
   * call arguments; blocks malloc'd, reused from statement to statement */
  struct rd_tmpblk { unsigned char *p; size_t size; } *tmpb;
  int ntmpb, captmpb, tmpcur;
  size_t tmpused;
  struct rd_chunks ck;
  struct rd_kids { TSNode *n; uint32_t cnt; const TSTree *tree; const void *id; } *kids;
  int nkids, capkids;
} rd;

/* list's named children (comments too), in order; *n their count */
const TSNode *rd_named_children(rd *r, TSNode list, uint32_t *n);
void rd_free_children(rd *r);
/* whether a function of this name was read before (then true), else
 * remembers it (a hash set: a module of many functions) */
bool rd_name_seen(rd *r, const char *name);
/* forgets the lists met since the from'th that belong to tree */
void rd_free_children_of(rd *r, int from, const TSTree *tree);
/* forgets the lists met since the from'th of any tree but keep, before
 * those trees are deleted */
void rd_free_children_since(rd *r, int from, const TSTree *keep, const TSTree *keep2);
/* zeroed scratch memory, freed by the rd_tmp_release of a mark taken
 * before it: it must not be reachable from the IR or the symbol table */
typedef struct rd_tmp_mark_t { int blk; size_t used; } rd_tmp_mark_t;
void *rd_tmp(rd *r, size_t size);
rd_tmp_mark_t rd_tmp_mark(const rd *r);
void rd_tmp_release(rd *r, rd_tmp_mark_t mark);
void rd_tmp_free(rd *r);

/* ---- reader_syntax.c ---- */
/* a logical line (blank and comment lines are none): bytes [start, end)
 * from the start of its first physical line to past its newline, its
 * first token at `first`, its indentation; rows 0-based, the end's
 * (erow, ecol) */
typedef enum rd_line_kind {
  RD_LINE_SIMPLE, RD_LINE_COMPOUND, RD_LINE_WITH, RD_LINE_DEF, RD_LINE_CLASS,
  RD_LINE_DECOR, /* @... */
  RD_LINE_CONT,  /* elif, else, except, finally: continues a compound statement */
} rd_line_kind;
typedef struct rd_line {
  uint32_t start, first, end, srow, erow, ecol;
  int indent;
  int kind; /* rd_line_kind */
} rd_line;
typedef struct rd_lines { rd_line *v; size_t n, cap; } rd_lines;
/* brackets, strings and indentation, with Python's messages; false with
 * the first error in d.  With lines, the logical lines are appended to
 * it (malloc'd). */
bool rd_check_layout(const char *src, size_t len, tir_diag *d, rd_lines *lines);

/* ---- reader_chunk.c ----
 * A long statement list (a function's body, or the body of the one `with`
 * that is all of it) is parsed in chunks, so that tree-sitter's tree of
 * the whole input (about 2 KB a line) is never held at once: the first
 * parse leaves out every such list but its first chunk, and each later
 * chunk is parsed, with the header lines around it, when the reader comes
 * to the end of the one before (tree-sitter's included ranges keep every
 * position that of the input).  A chunk ends only after a compound
 * statement (for, while, if, with ...): no simple statement is read
 * without the statements after it at hand. */

/* plans the chunks of the lists longer than `threshold` bytes, about
 * `target` bytes each; false when there is nothing to chunk */
bool rd_chunk_plan_make(rd *r, const rd_lines *lines, size_t threshold, size_t target);
/* the included ranges of the first parse (malloc'd) */
TSRange *rd_chunk_first_ranges(rd *r, uint32_t *n);
/* a function starts / ends being read */
void rd_chunk_begin(rd *r, TSNode def);
void rd_chunk_end(rd *r);
/* list is the chunked list, and its statements go on in a chunk not yet read */
bool rd_list_continues(rd *r, TSNode list);
/* parses the next chunk and returns its statement list (a null node, with
 * the error reported, on a syntax error); top: the caller reads the list
 * from its start, so no tree of an earlier chunk is in use */
TSNode rd_next_chunk(rd *r, bool top);
/* the list as the reader knows it: the current chunk's list is the first
 * chunk's */
TSNode rd_list_canon(rd *r, TSNode list);
/* an @I.ir_module class read in chunks: its plan (NULL: read whole),
 * looked up by the class_definition node; then the body of each next
 * chunk (a null node at the end, or after an error, which is reported);
 * then the end, which frees the last chunk's tree */
const rd_chunk_plan *rd_class_begin(rd *r, TSNode cls);
TSNode rd_class_next(rd *r);
/* the def has a chunk plan of its own (its body is not all in the first parse) */
/* @T.inline / @T.macro defined in a function's body: registered (false, with an error, when not read) */
bool rd_local_macro(rd *r, TSNode s);
bool rd_chunk_planned(rd *r, TSNode def);
void rd_class_end(rd *r);
void rd_chunks_free(rd *r);
/* syntax errors in a tree (reader.c): true when one was reported */
bool rd_tree_errors(rd *r, TSNode root);
uint64_t rd_parse_budget(size_t bytes);

/* ---- reader_scope.c ---- */
tir_span rd_span(TSNode n);
bool rd_is_extra(TSNode n);
void rd_set_line_continuations(const char *src, size_t len);
void rd_lc_forget(const TSTree *t);
void rd_lc_main_tree(const TSTree *t);
TSNode rd_child(TSNode n, uint32_t i);
uint32_t rd_child_count(TSNode n);
void rd_set_col_shift(int k);
/* the module's bindings, the first `upto` of them (a macro's: those before its definition) */
void rd_push_globals(rd *r, int upto);
const char *rd_text(rd *r, TSNode n); /* ctx-owned copy of the node's text */
bool rd_is(TSNode n, const char *type);
TSNode rd_field(TSNode n, const char *field);
/* the dotted name after the T alias ("axis.remap" for T.axis.remap), or NULL */
const char *rd_t_name(rd *r, TSNode n);
bool rd_is_i_name(rd *r, TSNode n, const char *name);
void rd_push_sym(rd *r, const char *name, rval v);
void rd_pop_syms(rd *r, int mark); /* back to the first mark bindings */
void rd_free_syms(rd *r);
rd_sym *rd_lookup(rd *r, const char *name);
bool rd_fresh(rd *r, const char *name, tir_span sp);
tir_buffer *rd_view_buffer(rd *r, const char *name, const tir_buffer *src, rval shape);
/* "unknown name 'T.x'", with the dialect hint or a "did you mean" */
void rd_unknown_t(rd *r, const char *name, tir_span sp);
void rd_push_loop(rd *r, tir_expr *var, tir_expr *min, tir_expr *extent);
rd_loop *rd_find_loop(rd *r, const tir_expr *var);
/* grow an arena array of elem-size items to hold n+1 */
void *rd_grow(tir_ctx *c, void *arr, int n, int *cap, size_t elem);
rval rv_err(void);
rval rv_expr(tir_expr *e, tir_span sp);

/* ---- reader_expr.c ---- */
rval rd_eval(rd *r, TSNode n);
/* the value as an expr: Python numbers become int32 / int64 / float32 / bool imms */
tir_expr *rd_as_expr(rd *r, rval v);
tir_expr *rd_const_expr(rd *r, rval v);
bool rd_py_float_fits_f32(double f);
/* a store target's region (B[0:4] = ...): the vector element it names */
tir_expr *rd_region_load(rd *r, rval v);
/* a Python literal converted to dtype t; exprs of another dtype are cast */
tir_expr *rd_convert(rd *r, rval v, tir_dtype t);
bool rd_int_fits(tir_dtype t, int64_t v);
/* binary op on values with TVM's dtype rules and constant folding */
rval rd_binop(rd *r, const char *op, rval a, rval b, tir_span sp);
/* Python ints past int64 (RV_BIGINT): the value of an RV_INT, RV_BOOL or
 * RV_BIGINT, an rval of a value (RV_INT where it fits), and its decimal */
__int128 rd_big_of(rval v);
rval rd_big_val(__int128 x, tir_span sp);
void rd_big_str(__int128 x, char buf[48]);
tir_expr *rd_bin_expr(rd *r, tir_expr_kind k, tir_expr *a, tir_expr *b);
int rd_dtype_rank(tir_dtype t);
bool rd_match_types(rd *r, tir_expr **pa, tir_expr **pb, tir_span sp);
tir_expr *rd_promote_lit(rd *r, rval lit, tir_expr **other);
/* the same without constant folding (T.Add(...) and the other node constructors) */
tir_dtype rd_natural_dtype(rval v, tir_dtype dflt);
bool rd_int_valued(rd *r, rval v, const char *what);
bool rd_operand_kinds_ok(rd *r, tir_expr_kind k, const tir_expr *a, const tir_expr *b, bool matched, tir_span sp);
tir_expr *rd_bin_node(rd *r, tir_expr_kind k, tir_expr *a, tir_expr *b);
/* a bitwise op's call (bitwise_and, shift_left, ...), its operands' types matched and a constant shift checked */
tir_expr *rd_bit_call(rd *r, const char *name, tir_expr *a, tir_expr *b, tir_span sp);
tir_expr *rd_fold_bits(rd *r, const char *name, const tir_expr *a, const tir_expr *b);
bool rd_uint64_literal(const char *t, uint64_t *out);
/* dict with key set to v (added, or replacing its value); dict may be NULL */
tir_attr_val *rd_av_set(rd *r, tir_attr_val *dict, const char *key, tir_attr_val *v);
/* A[...] with its indices; on a buffer: a load or a region */
rval rd_subscript(rd *r, TSNode n);
bool rd_is_bit_op_name(const char *op);
void rd_wrap_bit_literals(rval *v, int n);
rval rd_buffer_element(rd *r, tir_buffer *b, const rval *idx, int n, tir_span sp);
/* a region from a value (a region, or a load read as a point region) */
/* buf.vload / buf.vstore's target: the elements from `ix` (the last index
 * the first of `lanes`), as a load; NULL with an error */
tir_expr *rd_vector_access(rd *r, tir_buffer *b, rval ix, int lanes, tir_span sp);
rval rd_buffer_load(rd *r, tir_buffer *b, rval indices, tir_span sp);
/* k for k * T.vscale() or T.vscale() * k (a scalable vector's lanes), else 0 */
int rd_scalable_lanes(const tir_expr *e);
bool rd_as_region(rd *r, rval v, tir_buffer_region *out);
bool rd_as_int(rd *r, rval v, int64_t *out, const char *what);
const char *rd_as_str(rd *r, rval v, const char *what);
bool rd_parse_dtype(rd *r, rval v, tir_dtype *out);
tir_attr_val *rd_as_attr(rd *r, rval v);
tir_expr *rd_region_extent(rd *r, tir_expr *lo, tir_expr *hi);

/* ---- reader_call.c ---- */
typedef struct rd_args {
  rval *pos; int npos;
  const char **kw; rval *kwv; tir_span *kwsp; int nkw;
  tir_span sp; /* the call */
  bool span_none; /* span=None was given (and dropped): where, span_sp */
  tir_span span_sp;
} rd_args;
/* T.ptx["text"](args) (reader_call.c) */
rval rd_ptx_text_call(rd *r, const char *text, tir_span sp, rd_args *a);
/* *x (dict false) or **x: the tuple or dict x evaluates to, or RV_ERR */
rval rd_splat_value(rd *r, TSNode c, bool dict);
bool rd_eval_args(rd *r, TSNode arglist, rd_args *a);
/* the values `for x in it` runs over at parse time: a tuple, a list, a
 * string's characters or range(...) of Python ints; false after an error */
bool rd_iter_items(rd *r, TSNode it, rval **items, int *n);
/* a macro of that name exists, but the hygienic macro being expanded was
 * defined before it (rd_macro_of does not see it there) */
bool rd_macro_hidden(rd *r, const char *name);
/* the macro a call's function names (an identifier no local shadows), or NULL */
const struct rd_macro *rd_macro_of(rd *r, TSNode fn);
rval *rd_kwarg(rd_args *a, const char *name);
/* appends keyword name = v (at sp) to a (its arrays copied to the arena) */
void rd_add_kwarg(rd *r, rd_args *a, const char *name, rval v, tir_span sp);
/* false, with an error naming it, when a holds a keyword (the functions
 * whose keywords were all taken by position: one left is not theirs) */
bool rd_no_kwargs(rd *r, const rd_args *a, const char *name);
/* positional i or keyword name, or NULL */
/* n through any parentheses around it (and comments in them): Python's
 * tree keeps none, so `A = (T.match_buffer(...))` is the declaration */
TSNode rd_unparen(TSNode n);
void rd_kw_positional(rd *r, const char *name, rd_args *a);
/* the argument nodes of a call of parameters names[0..m), by position or
 * keyword: out[i] parameter i's value node (null where not given); the
 * number given, or -1 with an error */
int rd_arg_nodes(rd *r, TSNode args, const char *const *names, int m, TSNode *out);
/* TVM 0.27's positional parameter names of the script function fn
 * (T.exp: {"x"}), NULL-terminated, or NULL (tvm_signatures.c, generated) */
const char *const *rd_tvm_params(const char *fn);
/* a script function's whole Python signature (tvm_signatures.c, generated) */
typedef struct {
  const char *fn;
  const char *pos;    /* positional parameter names, comma-separated */
  int npos;
  int varargs, varkw; /* takes *args, **kwargs */
  const char *kwonly; /* keyword-only parameter names, comma-separated */
  int dtype_kw;       /* TVM's op wrapper: dtype= dropped (1), or the first positional argument (2) */
} rd_tvm_signature;
const rd_tvm_signature *rd_tvm_signature_of(const char *fn);
/* rd_eval_args of call's arguments, then, in the tirx dialect, the
 * arguments as written checked against TVM 0.27's Python signature of the
 * T.* function it calls, if it has one: more positional arguments than it
 * has, a keyword it does not take, or one naming a parameter given by
 * position is an error, as Python refuses the call */
bool rd_eval_call_args(rd *r, TSNode call, rd_args *a);
rval *rd_arg(rd_args *a, int i, const char *name);
/* the index of a's first keyword not among `known` (NULL-ended), or -1 */
int rd_unknown_kwarg(const rd_args *a, const char *const *known);
/* a T.name(...) call in an expression */
rval rd_call_t(rd *r, const char *name, TSNode call, rd_args *a);
rval rd_eval_call(rd *r, TSNode n);
bool rd_is_known_t_name(rd *r, const char *name);

/* ---- reader_block.c ---- */
/* form: the function that declares it ("Buffer", "alloc_buffer",
 * "decl_buffer", "alloc_local", "alloc_shared", "match_buffer",
 * "sblock_alloc_buffer"; the old dialect's "alloc_buffer" in a block) */
tir_buffer *rd_buffer_from_args(rd *r, const char *name, rd_args *a, int shape_pos, const char *form);
/* a buffer function's arguments as Python binds them (idempotent): past
 * offset_factor a positional argument becomes the keyword it names; more
 * positional arguments than the function has, or a keyword naming one
 * given by position, are refused */
bool rd_buffer_args(rd *r, const char *form, rd_args *a);
bool rd_py_keyword(const char *n);
void rd_predeclare_shape_names(rd *r, TSNode arglist);
bool rd_store_kind_ok(rd *r, rval v, tir_dtype t, const char *buf);
bool rd_check_shape(rd *r, rval v, tir_expr *const *shape, int ndim, tir_dtype dt, const char *name);
/* handles a T.* statement that configures the enclosing block (reads,
 * writes, where, attrs, allocs, match_buffer, axis); true when n was one */
bool rd_block_frame_stmt(rd *r, TSNode stmt, bool *failed);
/* stmt is in the body of the innermost block (not the root's) itself */
bool rd_direct_in_block(rd *r, TSNode stmt);
tir_stmt *rd_with_block(rd *r, TSNode with, TSNode call, const char *tname);
tir_stmt *rd_finish_root(rd *r, tir_stmt *body);

/* ---- reader_scalar.c (tirx local scalars: `x: T.int32 = v`) ---- */
/* a (1,) local buffer marked scalar, bound to name */
tir_buffer *rd_scalar_new(rd *r, const char *name, tir_dtype t, const char *scope, tir_span sp);
/* the (1,) buffer that `name = v` stores into, or NULL */
tir_buffer *rd_scalar_target(rd *r, const char *name);
tir_expr *rd_scalar_load(rd *r, tir_buffer *b, tir_span sp);
tir_stmt *rd_scalar_store(rd *r, tir_buffer *b, rval v, tir_span sp);

/* ---- reader_stmt.c ---- */
/* statements of a block node from index `from`; wraps in a scope */
tir_stmt *rd_body(rd *r, TSNode block, uint32_t from);
tir_stmt *rd_stmts(rd *r, TSNode block, uint32_t from);

#endif
