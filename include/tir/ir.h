/* tir/ir.h - the IR of tirc: dtypes, expressions, statements, buffers,
 * blocks, functions and modules, and the arena (tir_ctx) they live in.
 *
 * Ownership: every node is allocated in a tir_ctx and freed, all at once,
 * by tir_ctx_free().  Nodes are immutable once built: a pass builds new
 * nodes and shares the subtrees it did not change.  Pointers returned by
 * the constructors below are owned by the ctx (never free them).
 * Identity binds: two Vars (or Buffers) with the same name are different
 * objects; comparison of Vars and Buffers is by pointer.
 */
#ifndef TIR_IR_H
#define TIR_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: exported from libtir.so, which hides everything else (a new
 * public header puts its declarations between the same two pragmas: docs/embedding.md) */
#pragma GCC visibility push(default)

/* ------------------------------------------------------------------ */
/* arena                                                               */

typedef struct tir_ctx tir_ctx;

tir_ctx *tir_ctx_new(void);
void tir_ctx_free(tir_ctx *ctx);
/* zeroed memory, 16-byte aligned, owned by ctx; never NULL (aborts only on
 * out-of-memory, which is not bad input) */
void *tir_alloc(tir_ctx *ctx, size_t size);
const char *tir_strdup(tir_ctx *ctx, const char *s);
const char *tir_strndup(tir_ctx *ctx, const char *s, size_t n);
/* a fresh id for a new Var/Buffer, unique within the ctx */
uint32_t tir_ctx_next_id(tir_ctx *ctx);
/* ids up to id are taken: later ones are above it */
void tir_ctx_reserve_id(tir_ctx *ctx, uint32_t id);
/* the id tir_ctx_next_id would give next (without taking it) */
uint32_t tir_ctx_peek_id(const tir_ctx *ctx);
/* the bytes ctx holds (its chunks, used or not) */
size_t tir_ctx_bytes(const tir_ctx *ctx);
/* exchanges what a and b hold: a pointer to either stays valid and now
 * holds the other's memory; both go on with ids above either's */
void tir_ctx_swap(tir_ctx *a, tir_ctx *b);

/* ------------------------------------------------------------------ */
/* source positions                                                    */

typedef struct tir_span {
  int line; /* 1-based; 0 = unknown */
  int col;  /* 1-based, in bytes */
} tir_span;

/* ------------------------------------------------------------------ */
/* dtypes                                                              */

typedef enum tir_type_code {
  TIR_TC_INT,
  TIR_TC_UINT, /* bool is uint1 */
  TIR_TC_FLOAT,
  TIR_TC_BFLOAT,
  TIR_TC_HANDLE, /* void is handle with bits 0 */
  /* TVM's small floats (float8_e4m3fn, float4_e2m1fn ...): read, printed
   * and held in buffers; no arithmetic is folded on them, and the code
   * generators and the interpreter refuse them by name */
  TIR_TC_F8_E3M4,
  TIR_TC_F8_E4M3,
  TIR_TC_F8_E4M3B11FNUZ,
  TIR_TC_F8_E4M3FN,
  TIR_TC_F8_E4M3FNUZ,
  TIR_TC_F8_E5M2,
  TIR_TC_F8_E5M2FNUZ,
  TIR_TC_F8_E8M0FNU,
  TIR_TC_F6_E2M3FN,
  TIR_TC_F6_E3M2FN,
  TIR_TC_F4_E2M1FN,
  /* TVM's uint1, a 1-bit unsigned integer that is not its bool (TVM 0.27's
   * bool has its own type code): the lane masks of T.get_active_lane_mask
   * ("uint1x4") and buffers of it are read, held and printed; nothing folds,
   * emits or runs them */
  TIR_TC_UINT1,
} tir_type_code;

typedef struct tir_dtype {
  uint8_t code;   /* tir_type_code */
  uint8_t bits;
  uint16_t lanes; /* 1 for scalars */
} tir_dtype;

extern const tir_dtype TIR_INT8, TIR_INT16, TIR_INT32, TIR_INT64, TIR_UINT8,
    TIR_FLOAT16, TIR_FLOAT32, TIR_FLOAT64, TIR_BOOL, TIR_HANDLE, TIR_VOID;

/* A scalable vector (TVM 0.27's "float32xvscalex4", Arm SVE): lanes holds
 * TIR_LANES_SCALABLE | k for k * vscale lanes, vscale known only at run
 * time.  tirc reads and prints them; no pass, code generator or the
 * interpreter takes them (tir_func_find_scalable). */
#define TIR_LANES_SCALABLE 0x8000
bool tir_dtype_is_scalable(tir_dtype t);

bool tir_dtype_eq(tir_dtype a, tir_dtype b);
bool tir_dtype_is_int(tir_dtype t);   /* int or uint, not bool */
bool tir_dtype_is_bool(tir_dtype t);
bool tir_dtype_is_float(tir_dtype t); /* float or bfloat (or a small float) */
bool tir_dtype_is_small_float(tir_dtype t); /* float8_*, float6_*, float4_* */
/* the largest literal of a float dtype other than float64 that TVM 0.27
 * takes (a literal past it is refused, as TVM refuses it; for the small
 * floats TVM's bound, which is not always the format's); 0 for float64 and
 * non-floats */
double tir_dtype_float_max(tir_dtype t);
/* a small float that holds no negative value (the fnuz types, float8_e8m0fnu) */
bool tir_dtype_float_nonneg(tir_dtype t);
bool tir_dtype_is_handle(tir_dtype t);
tir_dtype tir_dtype_with_lanes(tir_dtype t, int lanes);
/* "int32", "float32x4", "bool", "handle", "void"; returns false on a bad string */
bool tir_dtype_parse(const char *s, tir_dtype *out);
/* writes the canonical name into buf (at least 32 bytes); returns buf */
char *tir_dtype_str(tir_dtype t, char *buf);
int tir_dtype_bytes(tir_dtype t); /* (bits*lanes+7)/8 */

/* ------------------------------------------------------------------ */
/* expressions                                                         */

typedef struct tir_expr tir_expr;
typedef struct tir_stmt tir_stmt;
typedef struct tir_buffer tir_buffer;
typedef struct tir_block tir_block;

typedef enum tir_expr_kind {
  TIR_VAR,
  TIR_INT_IMM,
  TIR_FLOAT_IMM,
  TIR_STRING_IMM,
  /* binary: e->bin.a, e->bin.b */
  TIR_ADD,
  TIR_SUB,
  TIR_MUL,
  TIR_DIV, /* truncdiv for ints (T.truncdiv / a / b on ints), true div for floats */
  TIR_MOD, /* truncmod */
  TIR_FLOORDIV,
  TIR_FLOORMOD,
  TIR_MIN,
  TIR_MAX,
  TIR_EQ,
  TIR_NE,
  TIR_LT,
  TIR_LE,
  TIR_GT,
  TIR_GE,
  TIR_AND,
  TIR_OR,
  /* unary */
  TIR_NOT,    /* e->un.a */
  TIR_CAST,   /* e->un.a, to e->dtype */
  TIR_SELECT, /* e->select */
  TIR_CALL,   /* e->call */
  TIR_BUFFER_LOAD, /* e->load */
  TIR_RAMP,        /* e->ramp */
  TIR_BROADCAST,   /* e->bcast */
  TIR_LET,         /* e->let */
  TIR_EXPR_KIND_COUNT
} tir_expr_kind;

#define TIR_IS_BINARY(k) ((k) >= TIR_ADD && (k) <= TIR_OR)
#define TIR_IS_CMP(k) ((k) >= TIR_EQ && (k) <= TIR_GE)
/* a OP b as b OP' a (LT <-> GT, LE <-> GE; EQ and NE as they are) */
tir_expr_kind tir_cmp_swapped(tir_expr_kind k);
/* not (a OP b) as a OP' b (LT <-> GE, LE <-> GT, EQ <-> NE) */
tir_expr_kind tir_cmp_negated(tir_expr_kind k);
/* a constant, or casts, reinterprets, arithmetic, comparisons and selects of
 * constants (TVM keeps T.Cast("float32", 0) unfolded as a reducer's identity) */
bool tir_is_constant_valued(const tir_expr *e);

struct tir_expr {
  tir_expr_kind kind;
  tir_dtype dtype;
  tir_span span;
  union {
    struct {
      const char *name;
      uint32_t id;       /* unique in its ctx; identity is the pointer */
      bool size_var;     /* T.SizeVar: known non-negative */
      const char *ptr_scope; /* handle vars: storage scope of what it points to, or NULL */
      tir_dtype ptr_elem;    /* handle vars: element type pointed to (bits 0 = unknown) */
    } var;
    int64_t int_val;   /* TIR_INT_IMM (bool too: 0/1) */
    double float_val;  /* TIR_FLOAT_IMM */
    const char *str;   /* TIR_STRING_IMM */
    struct { tir_expr *a, *b; } bin;
    struct { tir_expr *a; } un;
    struct { tir_expr *cond, *t, *f; } select;
    struct {
      const char *op;    /* without the "tir." prefix: "tvm_access_ptr", "exp", "call_extern" */
      tir_expr **args;
      int nargs;
      /* printed as written: T.tvm_access_ptr(...) (TVM types it
       * handle("int8"), and buf.access_ptr(...) plain handle) and
       * T.call_intrin(dtype, "tirx.op", ...) (typed by its dtype, where
       * TVM's T.op(...) may be void) */
      bool written_out;
      /* a call of another PrimFunc of the module (TVM's GlobalVar call,
       * printed `Module.f(...)`): op is "Module.f" as written; opaque to
       * every pass, refused where code is generated or run */
      bool global;
      /* a handle-typed call whose type is a typed pointer, as TVM's
       * T.reinterpret(T.handle("float32", "global").ty, x) and
       * T.call_extern(T.handle("int8").ty, ...) give it: the element type
       * (bits 0: a plain handle) and scope (NULL: "global") */
      tir_dtype ptr_elem;
      const char *ptr_scope;
      /* per arg, NULL or the buffer whose `X.data` the text wrote there
       * (TVM 0.27's tirx.buffer_data(X), which names the buffer where
       * tirc holds its data var): printed so while X is in scope and its
       * data is that arg; NULL when none was written */
      const struct tir_buffer **named;
      /* bit i (i < 64): arg i was the buffer written bare (T.call_extern("int32",
       * "f", A)), which TVM reads as its pointer and prints so: named[i] is
       * that buffer, printed as its name */
      uint64_t named_bare;
    } call;
    struct {
      tir_buffer *buf;
      tir_expr **idx;
      int nidx;
    } load;
    struct { tir_expr *base, *stride; int lanes; } ramp;
    struct { tir_expr *value; int lanes; } bcast;
    struct { tir_expr *var, *value, *body; } let;
  } u;
};

/* constructors: all take the ctx; span may be {0,0} */
tir_expr *tir_var(tir_ctx *c, const char *name, tir_dtype t);
tir_expr *tir_size_var(tir_ctx *c, const char *name, tir_dtype t);
tir_expr *tir_int(tir_ctx *c, tir_dtype t, int64_t v);
tir_expr *tir_i32(tir_ctx *c, int64_t v);
tir_expr *tir_bool(tir_ctx *c, bool v);
tir_expr *tir_float(tir_ctx *c, tir_dtype t, double v);
tir_expr *tir_string(tir_ctx *c, const char *s);
/* binary node; dtype is a's (bool for comparisons and and/or) */
tir_expr *tir_binary(tir_ctx *c, tir_expr_kind k, tir_expr *a, tir_expr *b);
tir_expr *tir_not(tir_ctx *c, tir_expr *a);
tir_expr *tir_cast(tir_ctx *c, tir_dtype t, tir_expr *a);
tir_expr *tir_select(tir_ctx *c, tir_expr *cond, tir_expr *t, tir_expr *f);
/* args copied into the ctx */
tir_expr *tir_call(tir_ctx *c, tir_dtype t, const char *op, tir_expr *const *args, int nargs);
tir_expr *tir_load(tir_ctx *c, tir_buffer *buf, tir_expr *const *idx, int nidx);
tir_expr *tir_ramp(tir_ctx *c, tir_expr *base, tir_expr *stride, int lanes);
tir_expr *tir_broadcast(tir_ctx *c, tir_expr *value, int lanes);
tir_expr *tir_let(tir_ctx *c, tir_expr *var, tir_expr *value, tir_expr *body);
/* TVM's CommReducer (T.comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0.0)])),
 * the node of a "reduce_scope" AttrStmt: a handle Call of op "comm_reducer"
 * with 4n args, lhs[n] rhs[n] (the lambda's vars, bound by it) result[n]
 * identity[n].  It is closed (its results use only its own vars, its
 * identities are constants): the generic visitor and mutator do not enter it. */
tir_expr *tir_comm_reducer(tir_ctx *c, tir_expr *const *lhs, tir_expr *const *rhs, tir_expr *const *result,
                           tir_expr *const *identity, int n);
bool tir_is_comm_reducer(const tir_expr *e);
/* a shallow copy of e with its own span (for diagnostics) */
tir_expr *tir_expr_with_span(tir_ctx *c, const tir_expr *e, tir_span sp);

/* helpers */
bool tir_is_const_int(const tir_expr *e, int64_t *out); /* IntImm (not bool) */
bool tir_is_one_of(const tir_expr *e, tir_expr_kind k);
#define tir_is_var(e) ((e) && (e)->kind == TIR_VAR)

/* ------------------------------------------------------------------ */
/* annotations and attribute values                                    */

typedef struct tir_attr_val tir_attr_val;
/* TIR_AV_TARGET: T.target(spec[, host=host]): items[0] the spec (a string
 * EXPR or a DICT), items[1] the host when n == 2; kept as written */
/* TIR_AV_INDEX_MAP: T.index_map(lambda i, j: (...)): items[0] a LIST of
 * its parameters (vars, their own), items[1] a LIST of its results
 * (exprs over them), items[2] (n == 3) the inverse_index_map, an
 * INDEX_MAP; closed: no visitor or pass enters it */
/* TIR_AV_NONE: Python's None (no items) */
/* TIR_AV_VDEVICE: I.vdevice(target, vdevice_id, memory_scope) of a
 * module's global infos: items[0] the target as written (a string EXPR, a
 * DICT or a TARGET), items[1] the id (an int EXPR), items[2] the scope (a
 * string EXPR) */
/* TIR_AV_ITER_VAR: T.iter_var(var, None, iter_type, thread_tag), TVM's
 * IterVar as an attribute value (tirx.device_thread_axis): items[0] the
 * var (an EXPR), items[1] NONE (the domain), items[2] and items[3] the
 * iter type and the tag (string EXPRs); closed, as an index map */
/* TIR_AV_REGION: A[0:4, n], TVM's BufferRegion as an attribute value: buf
 * the buffer (expr its data var), items 2 * ndim EXPRs, the min and extent
 * of each dim */
/* TIR_AV_RANGE: T.Range(begin, end), TVM's Range as an attribute value (or
 * an iter_var's domain): items[0] and items[1] the begin and end (EXPRs) as
 * written; closed, as an index map */
/* TIR_AV_MAP: a dict with a key that is no string, nested in an attribute
 * value ({"p": {1: 2}}, {"p": {n: 1}}: TVM's Map<Any, Any>): items[2i]
 * the key, items[2i + 1] its value, n the item count (twice the entries),
 * in the order written, as TVM prints it; no lookup by key */
typedef enum {
  TIR_AV_EXPR, TIR_AV_LIST, TIR_AV_DICT, TIR_AV_TARGET, TIR_AV_INDEX_MAP, TIR_AV_NONE, TIR_AV_VDEVICE, TIR_AV_ITER_VAR,
  TIR_AV_RANGE, TIR_AV_REGION, TIR_AV_MAP
} tir_av_kind;
struct tir_attr_val {
  tir_av_kind kind;
  tir_expr *expr;        /* TIR_AV_EXPR: IntImm, FloatImm, StringImm, bool, any expr */
  /* TIR_AV_EXPR: written as a TIR value (T.int64(3), T.bool(True),
   * T.float64(0.5)), where a bare int64, bool or float64 constant is a
   * Python value (TVM 0.27 tells the two apart: a boxed int is no IntImm) */
  bool typed;
  /* TIR_AV_EXPR of a buffer named as a value (T.sblock_attr({"layout_free_placeholders":
   * [B]})): the buffer, expr its data var (TVM holds the Buffer itself) */
  tir_buffer *buf;
  tir_attr_val **items;  /* LIST / DICT values */
  const char **keys;     /* DICT keys */
  int n;
};
tir_attr_val *tir_av_expr(tir_ctx *c, tir_expr *e);
tir_attr_val *tir_av_list(tir_ctx *c, tir_attr_val *const *items, int n);
/* T.target(spec[, host=host]); host may be NULL */
tir_attr_val *tir_av_target(tir_ctx *c, tir_attr_val *spec, tir_attr_val *host);
tir_attr_val *tir_av_dict(tir_ctx *c, const char *const *keys, tir_attr_val *const *items, int n);
/* value of key in a DICT, or NULL */
tir_attr_val *tir_av_get(const tir_attr_val *dict, const char *key);
/* v is a LIST of n constant ints (a buffer_dim_align entry): into out */
bool tir_av_int_list(const tir_attr_val *v, int64_t *out, int n);

/* ------------------------------------------------------------------ */
/* buffers and regions                                                  */

struct tir_buffer {
  const char *name;
  uint32_t id;
  tir_expr *data;        /* a handle Var */
  tir_dtype dtype;
  tir_expr **shape;
  int ndim;
  tir_expr **strides;    /* nstrides == 0: compact row-major */
  int nstrides;
  tir_expr *elem_offset; /* never NULL: IntImm 0 or a Var or expr */
  const char *scope;     /* "global", "shared", "shared.dyn", "local", "warp", ... */
  int data_alignment;    /* bytes; 0 = default (64) */
  int offset_factor;     /* 0 = default (1) */
  int *axis_separators;
  int naxis_sep;
  tir_span span;
  /* TVM 0.27's local scalar (tirx `x: T.int32 = v`, `x = v`): a (1,) "local"
   * buffer read and written as plain `x` (TVM marks it with a TileLayout) */
  bool scalar;
  /* TVM 0.27's layout=None (FlattenBuffer's flat buffers): in a tirx
   * function without s_tir, where a buffer has a default layout otherwise,
   * printed `layout=None`; never set in s_tir functions (all are None) */
  bool layout_none;
  /* TVM 0.27's layout=T.TileLayout(T.S[(e0, e1, ...):(s0, s1, ...)]) on
   * the memory axis, where it is not the buffer's default: nlayout
   * (extent, stride) pairs, layout[2k] the extent and layout[2k + 1] the
   * stride of iter k; nlayout 0 otherwise.  TVM's passes before
   * FlattenBuffer keep it as it is (CompactBufferAllocation leaves it on the
   * smaller buffer) and FlattenBuffer ignores it (row-major, layout=None);
   * so do tirc's: it never changes an address */
  tir_expr **layout;
  int nlayout;
  /* TVM 0.27's allocated_addr (a TIRx memory pool's placement of the
   * buffer: T.alloc_buffer(..., allocated_addr=[a, ...])): naddr exprs,
   * compared, printed and kept by the passes as TVM's keep it; the code
   * generators allocate the buffer on its own, as TVM's do outside TIRx's
   * tile passes, with a warning (tir_func_warn_allocated_addr) */
  tir_expr **addr;
  int naddr;
  /* `B = A.view(shape)` in such a function: TVM gives B A's layout (where
   * T.decl_buffer(shape, data=A.data) has the default one): B's DeclBuffer
   * is printed back as A.view(shape); NULL otherwise */
  const struct tir_buffer *view_of;
  /* `data=X.data` as written (TVM's tirx.buffer_data(X)): X, printed so
   * while X is in scope with this data; NULL otherwise */
  const struct tir_buffer *data_named;
};

/* a new buffer (fresh id); arrays are copied.  elem_offset NULL => 0;
 * data NULL => a fresh handle var named `name` pointing to dtype in scope */
tir_buffer *tir_buffer_new(tir_ctx *c, const char *name, tir_dtype dtype,
                           tir_expr *const *shape, int ndim,
                           tir_expr *const *strides, int nstrides,
                           tir_expr *elem_offset, const char *scope,
                           int data_alignment, int offset_factor, tir_expr *data);
/* a shallow copy with a fresh id; then modify the copy's fields before use */
tir_buffer *tir_buffer_copy(tir_ctx *c, const tir_buffer *b);

typedef struct tir_range {
  tir_expr *min, *extent;
} tir_range;

typedef struct tir_buffer_region {
  tir_buffer *buf;
  tir_range *region; /* buf->ndim entries normally */
  int n;
  tir_span span;
} tir_buffer_region;

/* ------------------------------------------------------------------ */
/* statements                                                          */

typedef enum tir_stmt_kind {
  TIR_BUFFER_STORE, /* s->store */
  TIR_LET_STMT,     /* s->let */
  TIR_FOR,          /* s->loop */
  TIR_WHILE,        /* s->whl */
  TIR_IF,           /* s->ifs */
  TIR_EVALUATE,     /* s->eval */
  TIR_SEQ,          /* s->seq */
  TIR_ALLOCATE,     /* s->alloc: a raw allocation of a data var (lowered IR) */
  TIR_DECL_BUFFER,  /* s->decl: declares buf in body */
  TIR_ALLOC_BUFFER, /* s->decl: statement-level T.alloc_buffer (tirx): allocates buf for body */
  TIR_ATTR,         /* s->attr */
  TIR_ASSERT,       /* s->assrt */
  TIR_BLOCK_REALIZE,/* s->realize */
  TIR_BREAK,        /* leaves the innermost loop (TVM 0.27's Break, `T.break_loop()`) */
  TIR_CONTINUE,     /* to the innermost loop's next iteration (TVM's Continue) */
  TIR_STMT_KIND_COUNT
} tir_stmt_kind;

typedef enum tir_for_kind {
  TIR_FOR_SERIAL,
  TIR_FOR_PARALLEL,
  TIR_FOR_VECTORIZED,
  TIR_FOR_UNROLLED,
  TIR_FOR_THREAD_BINDING,
} tir_for_kind;
enum { TIR_EXT_ANY = 0, TIR_EXT_RANGE = 1, TIR_EXT_GRID = 2 };

typedef enum tir_iter_type {
  TIR_ITER_SPATIAL = 0,  /* kDataPar, "S" */
  TIR_ITER_REDUCE = 2,   /* kCommReduce, "R" */
  TIR_ITER_ORDERED = 3,  /* kOrdered, "O" */
  TIR_ITER_OPAQUE = 4,   /* kOpaque, "O"? printed T.axis.opaque */
} tir_iter_type;

/* where a block iter var's domain came from, for the printer only (not
 * part of the IR's meaning or its equality): TVM's T.axis.remap takes the
 * loop's extent as TVM's reader simplified it, an explicit domain is kept
 * as written, so an unsimplified loop extent (range(2 * n), which TVM
 * reads as n * 2) must be printed in the form it was read in */
typedef enum { TIR_DOM_MADE = 0, TIR_DOM_REMAP, TIR_DOM_EXPLICIT } tir_dom_src;

typedef struct tir_iter_var {
  tir_expr *var;
  tir_range dom;
  tir_iter_type type;
  tir_dom_src dom_src; /* TIR_DOM_MADE where a pass made it */
} tir_iter_var;

typedef struct tir_match_buffer {
  tir_buffer *buf;        /* the view declared */
  tir_buffer_region src;  /* the region it views */
  tir_span span;          /* position of the source region (for errors) */
} tir_match_buffer;

struct tir_block {
  const char *name;
  tir_iter_var *iter_vars;
  int n_iter;
  tir_buffer_region *reads;
  int n_reads;
  tir_buffer_region *writes;
  int n_writes;
  tir_buffer **alloc_buffers;
  int n_alloc;
  tir_match_buffer *match_buffers;
  int n_match;
  tir_stmt *init;        /* or NULL */
  tir_stmt *body;
  tir_attr_val *annotations; /* DICT or NULL */
  tir_span span;
  /* reads and writes are the block's, even empty ones (given or inferred
   * where it was read): a parent's inference takes them as they are, as
   * TVM's (false: unknown, inferred from the body) */
  bool regions_known;
  /* the reader inferred the reads (1) / writes (2): the text gave none.
   * Printed as written (tir_print_opts.as_written), they are left out, for
   * TVM infers them again as it reads */
  unsigned char regions_inferred;
  /* TVM's SBlock with no SBlockRealize around it (T.sblock(...,
   * no_realize=True)): no iter vars, no predicate (the realize holding it
   * in tirc's IR has none); its regions are inferred only where TVM's
   * reader infers them (the function has a realized block too), printed
   * always.  Read, printed and compared; refused by the passes, the code
   * generators and the interpreter (tir_func_check_no_realize), as TVM's
   * lowering leaves such a block unlowered */
  bool no_realize;
};

struct tir_stmt {
  tir_stmt_kind kind;
  tir_span span;
  union {
    /* TIR_BREAK / TIR_CONTINUE: node is TVM 0.27's T.Break() / T.Continue()
     * statement, another node than its `break` (T.evaluate(T.break_loop()));
     * the same jump to every pass, printed back as written */
    struct { bool node; } jump;
    struct {
      tir_buffer *buf;
      tir_expr *value;
      tir_expr **idx;
      int nidx;
    } store;
    struct { tir_expr *var, *value; tir_stmt *body; } let;
    struct {
      tir_expr *var;
      tir_expr *min, *extent;
      tir_for_kind kind;
      const char *thread_tag; /* TIR_FOR_THREAD_BINDING: "blockIdx.x", ... */
      tir_attr_val *annotations; /* DICT or NULL */
      tir_stmt *body;
      /* NULL: no step (TVM's None, unit); else the step as written (an
       * explicit 1 too, as TVM keeps it): the var takes min, min + step,
       * ... while below min + extent; a step not provably positive is
       * refused where the loop is lowered or run (as TVM's) */
      tir_expr *step;
      /* how the extent was written (TVMScript printing only; not part of
       * the program): TIR_EXT_RANGE read from range/T.serial/... (TVM's
       * reader simplifies such an extent: printed so again, it reads as
       * TVM read it), TIR_EXT_GRID read from T.grid (kept as written:
       * printed in a T.grid), TIR_EXT_ANY made by a pass */
      unsigned char ext_form;
    } loop;
    struct { tir_expr *cond; tir_stmt *body; } whl;
    struct { tir_expr *cond; tir_stmt *then_s, *else_s; /* else may be NULL */ } ifs;
    struct { tir_expr *value; } eval;
    struct { tir_stmt **stmts; int n; } seq;
    struct {
      tir_expr *var;       /* handle var */
      tir_dtype dtype;
      tir_expr **extents;
      int n;
      tir_expr *cond;      /* usually true */
      const char *scope;
      tir_stmt *body;
    } alloc;
    struct {
      tir_buffer *buf;
      tir_stmt *body;
      /* TIR_ALLOC_BUFFER: `annotations=` of T.alloc_buffer (DICT or NULL),
       * e.g. LowerOpaqueBlock's buffer_data_alignment; NULL for DeclBuffer */
      tir_attr_val *annotations;
      /* TIR_DECL_BUFFER read from `B = T.Buffer(shape, dtype, data=...)` in
       * a body (TVM's older expected outputs; TVM 0.27 holds no DeclBuffer
       * for it, and reads it with check_well_formed=False): printed back so */
      bool implicit;
      /* TIR_DECL_BUFFER read from `A = T.decl_buffer(..., data=<expr>)` (TVM
       * 0.27's DeclBuffer.data: A's data var bound to expr there): held as
       * the LetStmt of buf->data = expr just around this declaration, and
       * printed back as written while the two stay together */
      bool data_let;
    } decl;
    struct {
      const char *key;    /* "thread_extent", "pragma_...", ... */
      tir_expr *node;     /* the node it is about: a Var (iter var for thread_extent) or string/expr; may be NULL */
      tir_expr *value;
      tir_stmt *body;
      const char *thread_tag; /* "thread_extent"/"virtual_thread": "blockIdx.x", ... (T.launch_thread); else NULL */
      /* the node when it is an attribute value, not an expr (T.attr(T.target("cuda"), "target", 0)),
       * or a buffer (T.attr(A, "storage_alignment", 64): an EXPR value with buf set): node is then NULL */
      tir_attr_val *node_av;
      /* node written `X.data` (TVM's tirx.buffer_data(X)): X, printed so;
       * declared `X = T.Buffer(...)` before it where nothing in scope
       * declares it (TVM's print of a buffer no statement allocates) */
      const struct tir_buffer *node_named;
      /* read from a flat marker (T.device_entry()): its body is the rest of
       * the function's body, printed so again (else as a scoped T.attr) */
      bool flat;
      /* an int32 node written T.int32(0), an IntImm in TVM, printed so (a
       * bare 0 is a Python int, which TVM keeps boxed) */
      bool node_typed;
    } attr;
    /* msg: the whole message; kind and parts, where not NULL, are TVM
     * 0.27's `assert c, ("ValueError", ["a", "b"])` (kind NULL: a
     * RuntimeError whose one part is msg) */
    struct { tir_expr *cond, *msg; tir_stmt *body; const char *kind; const char **parts; int nparts; } assrt;
    struct {
      tir_expr **iter_values; /* one per block iter var */
      int n;
      tir_expr *predicate;    /* bool; const true when absent */
      tir_block *block;
    } realize;
  } u;
};

/* constructors (arrays copied) */
tir_stmt *tir_store(tir_ctx *c, tir_buffer *buf, tir_expr *value, tir_expr *const *idx, int nidx);
tir_stmt *tir_let_stmt(tir_ctx *c, tir_expr *var, tir_expr *value, tir_stmt *body);
tir_stmt *tir_for(tir_ctx *c, tir_expr *var, tir_expr *min, tir_expr *extent,
                  tir_for_kind kind, const char *thread_tag, tir_attr_val *annots, tir_stmt *body);
tir_stmt *tir_while(tir_ctx *c, tir_expr *cond, tir_stmt *body);
tir_stmt *tir_if(tir_ctx *c, tir_expr *cond, tir_stmt *then_s, tir_stmt *else_s);
tir_stmt *tir_evaluate(tir_ctx *c, tir_expr *value);
/* `break` / `continue` of the innermost loop */
tir_stmt *tir_break(tir_ctx *c);
tir_stmt *tir_continue(tir_ctx *c);
/* flattens nested SeqStmts; n == 1 returns the stmt itself */
tir_stmt *tir_seq(tir_ctx *c, tir_stmt *const *stmts, int n);
tir_stmt *tir_allocate(tir_ctx *c, tir_expr *var, tir_dtype dtype, tir_expr *const *extents, int n,
                       const char *scope, tir_stmt *body);
tir_stmt *tir_decl_buffer(tir_ctx *c, tir_buffer *buf, tir_stmt *body);
tir_stmt *tir_alloc_buffer_stmt(tir_ctx *c, tir_buffer *buf, tir_stmt *body);
/* the same with annotations (a DICT, used as given; NULL for none) */
tir_stmt *tir_alloc_buffer_annotated(tir_ctx *c, tir_buffer *buf, tir_attr_val *annots, tir_stmt *body);
tir_stmt *tir_attr_stmt(tir_ctx *c, const char *key, tir_expr *node, tir_expr *value, tir_stmt *body);
tir_stmt *tir_assert(tir_ctx *c, tir_expr *cond, tir_expr *msg, tir_stmt *body);
/* block and iter_values are used as given (the block is copied shallowly) */
tir_stmt *tir_block_realize(tir_ctx *c, tir_expr *const *iter_values, int n, tir_expr *predicate,
                            tir_block *block);
/* a zeroed block in the ctx; fill its fields (arrays must be ctx-owned) */
tir_block *tir_block_new(tir_ctx *c, const char *name);
tir_block *tir_block_copy(tir_ctx *c, const tir_block *b);
/* a shallow copy of s (to change fields of the copy) */
tir_stmt *tir_stmt_copy(tir_ctx *c, const tir_stmt *s);

/* ------------------------------------------------------------------ */
/* functions and modules                                               */

typedef struct tir_func {
  const char *name;       /* the def's name */
  tir_expr **params;      /* Vars: handle for buffer params, scalar otherwise */
  int nparams;
  tir_buffer **buffer_map; /* nparams entries; NULL where a param has no buffer */
  tir_attr_val *attrs;     /* DICT or NULL ("global_symbol", "tir.noalias", ...) */
  tir_stmt *body;
  tir_dtype ret_type;      /* void normally */
  bool ret_void_written;   /* `-> T.void`: TVM keeps that ret_type (PrimType void); none is unset */
  bool s_tir;              /* block-level TIR (the body holds blocks) */
  bool s_tir_implicit;     /* s_tir for its blocks, though the text did not say s_tir=True (tirx) */
  bool root_written;       /* its root block is one the text wrote (with T.sblock("root"):), not one the reader made */
  bool private_;           /* @T.prim_func(private=True) */
  bool no_wf_check;        /* @T.prim_func(check_well_formed=False): printed back so, for TVM to read it */
  tir_span span;
} tir_func;

/* a function of an @I.ir_module class that is not TIR (a Relax
 * @R.function), kept as its text: tirc reads, rewrites and compiles TIR
 * only, and writes such a function back as it was written (re-indented to
 * the class's 4 spaces); no pass reads it, and code generation refuses a
 * module that holds one */
typedef struct tir_text_func {
  const char *name;  /* the function's name */
  const char *kind;  /* its decorator, e.g. "R.function" */
  const char *text;  /* decorator line to body end, each line ending in '\n' */
  int before;        /* written before TIR function `before` (nfuncs: after all) */
  tir_span span;
} tir_text_func;

typedef struct tir_module {
  const char *name; /* class name of @I.ir_module, or NULL for a bare prim_func */
  tir_attr_val *attrs; /* I.module_attrs({...}) of the class (a DICT), or NULL */
  /* I.module_global_infos({...}) of the class (a DICT of LISTs, TVM's
   * global infos such as "vdevice": [I.vdevice(...)]), or NULL: kept as
   * written, no pass reads it */
  tir_attr_val *global_infos;
  /* or, where they are global infos tirc does not model (a Relax device
   * mesh, TVM's dummy one), that statement's text, written back as it is */
  const char *global_infos_text;
  /* the module-level `n = TypeVar("n")` lines (TVM's print of a symbolic
   * var shared by a signature and a Relax function) that the text
   * functions name, written back before the class; NULL if none */
  const char *type_vars_text;
  tir_text_func *text_funcs; /* the class's non-TIR functions, in the order written */
  int ntext_funcs;
  tir_func **funcs;
  int nfuncs;
  bool no_wf_check; /* @I.ir_module(check_well_formed=False): printed back so */
  /* tir_module_add's own: the array it made and its room (it grows by
   * doubling, so n adds take O(n); a funcs array set by hand is copied) */
  tir_func **own_funcs;
  int cap_funcs;
} tir_module;

tir_func *tir_func_copy(tir_ctx *c, const tir_func *f);
/* b is one of f's parameter buffers, or a view of one's data */
bool tir_func_is_param_buffer(const tir_func *f, const tir_buffer *b);
/* a deep copy of m into c, wherever m lives: every node copied once (vars and
 * buffers keep their identity among themselves, and their ids; c's next id
 * is raised past them); m is not touched (src/ir/clone.c) */
tir_module *tir_module_clone(tir_ctx *c, const tir_module *m);
/* f (or m) with every node that lives in ctx `from` copied into c, what
 * lives elsewhere shared as it is; c's ids go on past from's.  `from` is
 * to be freed after: its nodes are overwritten as they are copied (each
 * with the address of its copy, instead of a map of every node).  The
 * pipeline runs each pass in a scratch ctx and promotes its result, so
 * that what a pass allocates for its analysis dies with it, and reclaims
 * the IR its passes replaced by promoting the live IR out of the ctx. */
tir_func *tir_func_promote(tir_ctx *c, tir_func *f, tir_ctx *from);
tir_module *tir_module_promote(tir_ctx *c, const tir_module *m, tir_ctx *from);
tir_module *tir_module_new(tir_ctx *c, const char *name);
/* an empty module of m's name and attributes (in m's ctx) */
tir_module *tir_module_new_like(tir_ctx *c, const tir_module *m);
void tir_module_add(tir_ctx *c, tir_module *m, tir_func *f);
tir_func *tir_module_find(const tir_module *m, const char *name);
/* the global_symbol attr if set, else the name */
const char *tir_func_symbol(const tir_func *f);
/* f with its global_symbol attribute set to symbol (a new func in c) */
tir_func *tir_func_with_symbol(tir_ctx *c, const tir_func *f, const char *symbol);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
