/* analyzer_internal.h - the analyzer's state and the helpers its files share
 * (simplify.c, bounds.c, isl_bridge.c, region.c).  Not a public header. */
#ifndef TIR_ANALYZER_INTERNAL_H
#define TIR_ANALYZER_INTERNAL_H

#include <isl/ctx.h>

#include "ir/ptrmap.h"

#include "tir/analysis.h"

/* what the context knows about one var */
typedef struct ana_var {
  const tir_expr *var;
  tir_expr *value;          /* bound value (simplified), or NULL */
  tir_expr *min, *extent;   /* bound range, or NULL */
} ana_var;

/* a constant bound of an atom derived from an entered constraint */
typedef struct ana_fact {
  tir_expr *atom;
  int64_t lo, hi;
  bool ne; /* atom != lo (lo == hi) rather than atom in [lo, hi] */
} ana_fact;

typedef struct ana_cond {
  tir_expr *cond;
  int nfacts_before; /* facts[] length before this constraint */
} ana_cond;

struct tir_analyzer {
  tir_ctx *c;
  tir_diag *d;
  isl_ctx *isl;
  ana_var *vars;
  int nvars, capvars;
  /* var -> its slot in vars (open addressing; an entry whose slot is past
   * nvars or holds another var is stale: the var has no slot) */
  const tir_expr **slot_keys;
  int *slot_idx;
  int slot_cap, slot_n;
  ana_cond *conds;
  int nconds, capconds;
  ana_fact *facts;
  int nfacts, capfacts;
  int depth;  /* recursion guard for bounds through symbolic ranges */
  bool canon; /* inside ana_canonical: no size guard */
  unsigned long isl_max_ops; /* per isl query; 0 = no limit (test tools) */
  /* tir_loop_carries' answers by their isl text, its names renamed in
   * order of appearance: a program of many alike stages asks isl once */
  tir_strmap flow_memo;
  /* ana_isl_prove's answers by their isl text */
  tir_strmap prove_memo;
};

/* ---- carry_check.c ---- */
/* tir_loop_carries' test before isl's: uncarried[i] set where read i is
 * proved to read nothing an earlier iteration of the loop wrote and the
 * iteration did not write before it (affine indices apart between
 * iterations, or covered by an earlier write of the iteration); false
 * where it cannot tell */
void ana_uncarried_reads(const tir_expr *var, tir_expr *min, tir_expr *extent, const tir_relax_var *outer,
                         int nouter, const tir_flow_access *acc, int nacc, bool *uncarried);

/* ---- analyzer.c ---- */
/* relaxed vars bound as ranges for a while: what bind_range overwrote,
 * restored by ana_pop_ranges */
typedef struct ana_saved_slot {
  int idx;
  ana_var old;
} ana_saved_slot;
typedef struct ana_saved {
  int nvars, n;
  ana_saved_slot inline_slots[8], *slots;
} ana_saved;
void ana_push_ranges(tir_analyzer *a, const tir_relax_var *relax, int n, ana_saved *s);
void ana_pop_ranges(tir_analyzer *a, ana_saved *s);
const ana_var *ana_lookup(const tir_analyzer *a, const tir_expr *var);
/* structural equality: vars by identity */
bool ana_expr_equal(const tir_expr *x, const tir_expr *y);
/* number of nodes */
int ana_expr_size(const tir_expr *e);
/* 1 + the sizes of e's operands, each measured by size (0 for NULL) */
int ana_size_of(const tir_expr *e, int (*size)(const tir_expr *));
/* canonical scalar signed int? (the linear form applies) */
bool ana_is_index_type(tir_dtype t);
int64_t ana_floordiv(int64_t a, int64_t b);
int64_t ana_floormod(int64_t a, int64_t b);
int64_t ana_gcd(int64_t a, int64_t b);
/* wrap v to the range of dtype t (ints); false if t is not an int type */
bool ana_fits(tir_dtype t, int64_t v);

/* ---- simplify.c ---- */
/* full canonical form (no size guard): used by proofs */
tir_expr *ana_canonical(tir_analyzer *a, tir_expr *e);
/* the nodes of e were each sum spelled shortest (a common factor of its
 * coefficients out, a negative constant first): a result may grow in nodes
 * only to TVM's spelling of a sum, distributed, its constant last */
int ana_lean_size(const tir_expr *e);
/* a new expr a OP b, folded when both are constants */
tir_expr *ana_make_bin(tir_analyzer *a, tir_expr_kind k, tir_expr *x, tir_expr *y);

/* ---- bounds.c ---- */
/* interval bound of e; unbounded sides INT64_MIN / INT64_MAX */
void ana_bound(tir_analyzer *a, const tir_expr *e, int64_t *lo, int64_t *hi);
/* derive facts from a constraint (conjunctions of comparisons) */
void ana_add_facts(tir_analyzer *a, tir_expr *cond);
/* the modular set of e as written (no simplification) */
tir_modular_set ana_modset(tir_analyzer *a, const tir_expr *e);
/* saturating arithmetic on bounds */
int64_t ana_sat_add(int64_t x, int64_t y);
int64_t ana_sat_mul(int64_t x, int64_t y);

/* ---- region.c ---- */
/* symbolic [lo, hi] of e as the relax vars range over their domains (the
 * entered constraints narrow constant ranges); simplified */
bool ana_relaxed_bounds(tir_analyzer *a, tir_expr *e, const tir_relax_var *relax, int nrelax, tir_expr **lo,
                        tir_expr **hi);

/* ---- region_affine.c ---- */
/* the exact bounding box without isl where interval arithmetic is exact
 * (every index affine in the relaxed vars over constant-extent boxes, no
 * conditions, hull ends a constant apart); false: ask isl */
bool ana_affine_bbox(tir_analyzer *a, const tir_access_region *acc, int nacc, int ndim, tir_range *out);

/* ---- isl_bridge.c ---- */
/* the most isl operations one query may take before it gives up */
#define ANA_ISL_MAX_OPS 200000UL
/* 1 proved, 0 not proved (or not expressible) */
bool ana_isl_prove(tir_analyzer *a, tir_expr *cond);
/* bounding box by isl; false when not quasi-affine or not one piece */
bool ana_isl_bbox(tir_analyzer *a, const tir_access_region *acc, int nacc, int ndim, tir_range *out);
/* the max over the context of a quasi-affine int expr; false if unknown */
bool ana_isl_max(tir_analyzer *a, tir_expr *e, int64_t *out);

#endif
