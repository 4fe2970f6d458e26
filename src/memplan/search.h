/* search.h - the packer's exact search (internal). */
#ifndef TIR_MEMPLAN_SEARCH_H
#define TIR_MEMPLAN_SEARCH_H
#include "tir/memplan.h"

/* a placement of iv within cap bytes (offsets into off): 1 found, 0 none
 * exists (proven), -1 the node budget ran out first */
int tir_plan_search(const tir_interval *iv, int n, int **adj, const int *deg, int64_t cap, int64_t align,
                    int64_t budget, int64_t *off, int64_t *nodes);
#endif
