/* search.h - the packer's exact search (internal). */
#ifndef TIR_MEMPLAN_SEARCH_H
#define TIR_MEMPLAN_SEARCH_H
#include "tir/memplan.h"

typedef struct tir_search tir_search;

/* a search over iv[0..n) (kept, with adj/deg: the conflicts of each buffer) */
tir_search *tir_search_new(const tir_interval *iv, int n, int **adj, const int *deg, int64_t align);
void tir_search_free(tir_search *s);
/* one run: a placement within cap bytes (offsets into off): 1 found, 0 none
 * exists (proven), -1 the node budget ran out first.  order: the buffers in
 * the preorder it branches in; sel: how it picks the section to branch on
 * (0..5); val: the order of its buffers (0 preorder, 1 longest first). */
int tir_search_run(tir_search *s, int64_t cap, const int *order, int sel, int val, int64_t budget, int64_t *off,
                   int64_t *nodes);
/* was b unplaced when the last run had placed the most buffers? */
bool tir_search_left(const tir_search *s, int b);
/* the sections (spans between consecutive range ends) and the bytes live in each */
int tir_search_sections(const tir_search *s, const int64_t **total);
/* the sections of buffer b: [first, end) */
void tir_search_span(const tir_search *s, int b, int *first, int *end);
#endif
