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
  int64_t alignment;        /* every offset a multiple of it (0 or 1: none) */
  int64_t node_budget;      /* search nodes (0: 2,000,000; < 0: the rules alone) */
  const char *const *names; /* optional: the buffers' names, which USMP's rules break ties on */
} tir_plan_options;

#define TIR_PLAN_RULES 12

typedef struct tir_plan_stats {
  int64_t lower_bound;   /* the most bytes live at one point */
  int64_t arena;         /* the plan's end: max offset + size */
  double gap_percent;    /* (arena - lower_bound) / lower_bound * 100 */
  bool proven_optimal;   /* arena == lower_bound, or no smaller arena exists (the search finished) */
  const char *winner;    /* what made the plan kept: a rule, "exact search" or "local search" */
  int candidates;        /* rules tried */
  const char *rule[TIR_PLAN_RULES]; /* each rule's name */
  int64_t rule_arena[TIR_PLAN_RULES]; /* and its arena */
  int64_t nodes;         /* search nodes spent (the local search counts n per plan it tries) */
  int runs;              /* search runs */
} tir_plan_stats;

/* Plans iv[0..n): sets every offset.  Keeps the best plan of a portfolio of
 * rules (first-fit and best-fit under XLA's size and live-length orders,
 * area, start and conflicts, and TVM USMP's greedy_by_size and
 * greedy_by_conflicts exactly); when that is above the lower bound,
 * searches (src/memplan/search.c: buffers placed in non-decreasing offset
 * order, complete; run after run under a deterministic node budget) for a
 * plan at the bound, then below the best found, then improves what it has
 * by a seeded local search with the nodes left; validates the plan.  The
 * search and local search run on up to 2,000 buffers.  Intervals that are
 * never live (upper <= lower) or hold 0 bytes take offset 0.  0 on success;
 * -1 with an error in d for a negative size, or (an internal error) a plan
 * that failed validation: never a silently wrong plan. */
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

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
