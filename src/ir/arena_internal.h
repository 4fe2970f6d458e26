/* arena_internal.h - what the IR layer's own files know of the arena
 * (internal). */
#ifndef TIR_ARENA_INTERNAL_H
#define TIR_ARENA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "tir/ir.h"

/* c's chunks sorted by address (malloc'd, *n entries) */
const void **tir_ctx_chunk_index(const tir_ctx *c, int *n);
/* the chunk p lies in (a node made in c, not elsewhere), or NULL; its data range into *data_lo, *data_hi
 * (either may be NULL) */
const void *tir_ctx_index_find(const void *const *index, int n, const void *p, uintptr_t *data_lo,
                               uintptr_t *data_hi);

#endif
