/* tir/visit.h - walking and rewriting the IR, structural equality and
 * hashing, substitution. */
#ifndef TIR_VISIT_H
#define TIR_VISIT_H

#include "tir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: exported from libtir.so, which hides everything else (a new
 * public header puts its declarations between the same two pragmas: docs/embedding.md) */
#pragma GCC visibility push(default)

/* ---- read-only visitor: pre-order callbacks; return false to skip the
 * children of that node.  Any callback may be NULL.  Visits every expr in
 * statements, buffer regions (reads/writes/match sources), iter var domains,
 * block realize values and predicates, loop bounds; buffer shapes are not
 * visited unless visit_buffer_fields is set. */
typedef struct tir_visitor {
  bool (*expr)(struct tir_visitor *v, const tir_expr *e);
  bool (*stmt)(struct tir_visitor *v, const tir_stmt *s);
  /* each BufferRegion met (block reads/writes, match_buffer sources) */
  void (*region)(struct tir_visitor *v, const tir_buffer_region *r, const tir_stmt *owner);
  bool visit_buffer_fields;
  void *user;
} tir_visitor;

void tir_visit_expr(tir_visitor *v, const tir_expr *e);
void tir_visit_stmt(tir_visitor *v, const tir_stmt *s);

/* ---- mutator: post-order rewriting.  Each callback gets the node with its
 * children already rewritten (a new node only if a child changed, else the
 * original) and returns the replacement (or the node itself).  NULL callbacks
 * mean identity.  Untouched subtrees are shared, never copied.
 * pre_stmt, when set, runs before children: return non-NULL to replace the
 * whole subtree without descending (the mutator does not visit the result).
 * buffer maps each buffer met (loads, stores, regions, match sources, block
 * alloc_buffers, decl/alloc_buffer stmts) to its replacement. */
typedef struct tir_mutator {
  tir_expr *(*expr)(struct tir_mutator *m, tir_expr *e);
  tir_stmt *(*stmt)(struct tir_mutator *m, tir_stmt *s);
  tir_stmt *(*pre_stmt)(struct tir_mutator *m, tir_stmt *s);
  tir_buffer *(*buffer)(struct tir_mutator *m, tir_buffer *b);
  /* each BufferRegion after its exprs are rewritten, to change it further */
  void (*region)(struct tir_mutator *m, tir_buffer_region *r);
  tir_ctx *ctx;
  void *user;
} tir_mutator;

/* the first var of a comm_reducer's results that is not one of its own,
 * or the first buffer load there; NULL when it is closed */
const tir_expr *tir_comm_reducer_foreign(const tir_expr *reducer);

tir_expr *tir_mutate_expr(tir_mutator *m, tir_expr *e);
tir_stmt *tir_mutate_stmt(tir_mutator *m, tir_stmt *s);
/* rewrites n exprs; returns a new ctx array if any changed, else es itself */
tir_expr **tir_mutate_exprs(tir_mutator *m, tir_expr **es, int n);
/* rewrite exprs of a region (min/extent) through the mutator; returns a copy
 * only when something changed */
tir_buffer_region tir_mutate_region(tir_mutator *m, tir_buffer_region r);

/* ---- substitution: replace Vars by exprs (by identity) */
typedef struct tir_var_map {
  const tir_expr **keys;
  tir_expr **vals;
  int n, cap;
  struct tir_ptrmap *index; /* private: keys -> position + 1, once the map grows (lowering n
                               to drop the latest entries, as a scope stack, stays valid) */
} tir_var_map;
void tir_var_map_set(tir_var_map *m, const tir_expr *var, tir_expr *val); /* malloc'd storage */
tir_expr *tir_var_map_get(const tir_var_map *m, const tir_expr *var);
void tir_var_map_free(tir_var_map *m);

tir_expr *tir_substitute_expr(tir_ctx *c, tir_expr *e, const tir_var_map *m);
tir_stmt *tir_substitute_stmt(tir_ctx *c, tir_stmt *s, const tir_var_map *m);
/* a block var's binding as the var's dtype: TVM's T.axis.* keep a binding
 * of another integer dtype as written (T.axis.spatial(1, T.int64(0)) is an
 * int32 var); a pass that puts the binding for the var converts it */
tir_expr *tir_block_binding(tir_ctx *c, const tir_expr *var, tir_expr *value);

/* ---- structural equality and hashing, modulo var names (as TVM's):
 * vars are equal when they are defined at corresponding places (params,
 * loop vars, let vars, iter vars, buffers) or are the same free var. */
bool tir_struct_equal_expr(const tir_expr *a, const tir_expr *b);
/* the same value in one scope: equal exprs whose free vars and buffers are
 * the same ones (A[k] and A[j] differ; tir_struct_equal_expr maps k to j).
 * What a pass must use to replace one expr by another in place. */
bool tir_expr_identical(const tir_expr *a, const tir_expr *b);
bool tir_struct_equal_stmt(const tir_stmt *a, const tir_stmt *b);
bool tir_struct_equal_func(const tir_func *a, const tir_func *b);
uint64_t tir_struct_hash_expr(const tir_expr *e);
uint64_t tir_struct_hash_stmt(const tir_stmt *s);
uint64_t tir_struct_hash_func(const tir_func *f);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
