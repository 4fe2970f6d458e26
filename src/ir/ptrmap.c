/* ptrmap.c - pointer -> int map, linear probing, load factor <= 1/2. */
#include "ir/ptrmap.h"

#include <stdint.h>
#include <stdlib.h>

static size_t slot(const void *key, size_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)key;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return (size_t)h & (cap - 1);
}

static void grow(tir_ptrmap *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  const void **keys = calloc(cap, sizeof *keys);
  long *vals = calloc(cap, sizeof *vals);
  if (!keys || !vals) abort();
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t j = slot(m->keys[i], cap);
    while (keys[j]) j = (j + 1) & (cap - 1);
    keys[j] = m->keys[i];
    vals[j] = m->vals[i];
  }
  free(m->keys);
  free(m->vals);
  m->keys = keys;
  m->vals = vals;
  m->cap = cap;
}

void tir_ptrmap_put(tir_ptrmap *m, const void *key, long val) {
  if (2 * (m->n + 1) > m->cap) grow(m);
  size_t j = slot(key, m->cap);
  while (m->keys[j] && m->keys[j] != key) j = (j + 1) & (m->cap - 1);
  if (!m->keys[j]) m->n++;
  m->keys[j] = key;
  m->vals[j] = val;
}

long tir_ptrmap_get(const tir_ptrmap *m, const void *key, long dflt) {
  if (!m->cap || !key) return dflt;
  size_t j = slot(key, m->cap);
  while (m->keys[j]) {
    if (m->keys[j] == key) return m->vals[j];
    j = (j + 1) & (m->cap - 1);
  }
  return dflt;
}

void tir_ptrmap_free(tir_ptrmap *m) {
  free(m->keys);
  free(m->vals);
  m->keys = NULL;
  m->vals = NULL;
  m->cap = m->n = 0;
}
