/* tir/memplan.h - the interval packer of memory planning: live ranges and
 * sizes in, offsets out (pure: no IR).  Buffers whose half-open live ranges
 * [lower, upper) meet must not overlap in memory. */
#ifndef TIR_MEMPLAN_H
#define TIR_MEMPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tir/diag.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: exported from libtir.so, which hides everything else (a new
 * public header puts its declarations between the same two pragmas: docs/embedding.md) */
#pragma GCC visibility push(default)

typedef struct tir_interval {
  int64_t lower, upper; /* live over [lower, upper) */
  int64_t size;         /* bytes, > 0 */
  int64_t offset;       /* out: where it is placed */
} tir_interval;

typedef struct tir_plan_options {
  int64_t alignment;   /* every offset a multiple of it (0 or 1: none) */
  int64_t node_budget; /* the exact search's nodes (0: 2,000,000; < 0: no search) */
} tir_plan_options;

typedef struct tir_plan_stats {
  int64_t lower_bound;   /* the most bytes live at one point */
  int64_t arena;         /* the plan's end: max offset + size */
  double gap_percent;    /* (arena - lower_bound) / lower_bound * 100 */
  bool proven_optimal;   /* arena == lower_bound */
  const char *winner;    /* the rule whose plan was kept ("exact search" when the search improved on them) */
  int candidates;        /* rules tried */
  int64_t nodes;         /* exact-search nodes */
} tir_plan_stats;

/* Plans iv[0..n): sets every offset, keeps the best plan of a portfolio of
 * rules (first-fit and best-fit under XLA's size and live-length orders,
 * area, start, and TVM USMP's greedy_by_size and greedy_by_conflicts); when
 * that is above the lower bound, searches exactly (placing buffers in
 * non-decreasing offset order, which is complete) for a smaller arena by
 * bisection down to the bound, within a deterministic node budget (up to
 * 2,000 buffers); and validates the plan.  0 on success; -1 (an internal error, with a message in d)
 * if a plan failed validation, never a silently wrong plan. */
int tir_plan_intervals(tir_interval *iv, int n, const tir_plan_options *o, tir_plan_stats *st, tir_diag *d);
/* MiniMalloc's CSV (header `id,lower,upper,size`): the intervals (malloc'd)
 * and their ids (each malloc'd, in a malloc'd array), or NULL with
 * `LINE:COL` errors in d (bad header, a missing column, a non-number, a
 * size <= 0, an empty range upper <= lower). */
tir_interval *tir_plan_read_csv(const char *text, size_t len, int *n, char ***ids, tir_diag *d);
/* the same rows under `id,lower,upper,size,offset` (malloc'd) */
char *tir_plan_write_csv(const tir_interval *iv, char *const *ids, int n);

/* the most bytes live at one point */
int64_t tir_plan_lower_bound(const tir_interval *iv, int n);
/* true when no two meeting intervals overlap, all aligned and >= 0 */
bool tir_plan_valid(const tir_interval *iv, int n, int64_t alignment);

/* MiniMalloc's CSV (header `id,lower,upper,size`): the intervals (malloc'd)
 * and their ids (each malloc'd, in a malloc'd array), or NULL with
 * `LINE:COL` errors in d (bad header, a missing column, a non-number, a
 * size <= 0, an empty range upper <= lower). */
tir_interval *tir_plan_read_csv(const char *text, size_t len, int *n, char ***ids, tir_diag *d);
/* the same rows under `id,lower,upper,size,offset` (malloc'd) */
char *tir_plan_write_csv(const tir_interval *iv, char *const *ids, int n);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
