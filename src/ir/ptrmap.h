/* ptrmap.h - a map from pointers (IR nodes by identity) to ints, open
 * addressing, for passes that must look nodes up in O(1) (internal). */
#ifndef TIR_PTRMAP_H
#define TIR_PTRMAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tir_ptrmap {
  const void **keys;
  long *vals;
  size_t cap, n; /* cap a power of two, or 0 */
} tir_ptrmap;

/* sets key to val (key not NULL) */
void tir_ptrmap_put(tir_ptrmap *m, const void *key, long val);
/* the value of key, or dflt */
long tir_ptrmap_get(const tir_ptrmap *m, const void *key, long dflt);
void tir_ptrmap_free(tir_ptrmap *m);

#endif
