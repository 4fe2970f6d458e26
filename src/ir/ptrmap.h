/* ptrmap.h - a map from pointers (IR nodes by identity) to ints, and one
 * from strings (names) to ints, open addressing, for passes and the
 * reader and printer, which must look nodes and names up in O(1)
 * (internal). */
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

typedef struct tir_strmap {
  char **keys; /* copies, owned */
  long *vals;
  size_t cap, n; /* cap a power of two, or 0 */
} tir_strmap;

/* the value of key, inserted as dflt (the key copied) where it has none;
 * the pointer is valid until the next insertion */
long *tir_strmap_at(tir_strmap *m, const char *key, long dflt);
/* the value of key, or dflt */
long tir_strmap_get(const tir_strmap *m, const char *key, long dflt);
void tir_strmap_free(tir_strmap *m);

#endif
