/* ptr_set.h - a set of pointers (open addressing, malloc'd storage), for the
 * passes' bookkeeping ("was this node in the input?").  Free with
 * ptr_set_free. */
#ifndef TIR_PASSES_PTR_SET_H
#define TIR_PASSES_PTR_SET_H
#include <stdint.h>
#include <stdlib.h>

typedef struct {
  const void **keys;
  size_t cap, n;
} ptr_set;

static inline size_t ptr_set_slot(const ptr_set *s, const void *k) {
  uint64_t h = (uint64_t)(uintptr_t)k;
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15ull;
  size_t i = (size_t)(h >> 7) & (s->cap - 1);
  while (s->keys[i] && s->keys[i] != k) i = (i + 1) & (s->cap - 1);
  return i;
}

static inline void ptr_set_add(ptr_set *s, const void *k) {
  if (!k) return;
  if ((s->n + 1) * 2 > s->cap) {
    ptr_set old = *s;
    s->cap = old.cap ? old.cap * 2 : 256;
    s->keys = calloc(s->cap, sizeof *s->keys);
    if (!s->keys) abort();
    s->n = 0;
    for (size_t i = 0; i < old.cap; i++)
      if (old.keys[i]) {
        s->keys[ptr_set_slot(s, old.keys[i])] = old.keys[i];
        s->n++;
      }
    free(old.keys);
  }
  size_t i = ptr_set_slot(s, k);
  if (!s->keys[i]) {
    s->keys[i] = k;
    s->n++;
  }
}

static inline int ptr_set_has(const ptr_set *s, const void *k) {
  return s->cap && k && s->keys[ptr_set_slot(s, k)] == k;
}

static inline void ptr_set_free(ptr_set *s) {
  free(s->keys);
  s->keys = NULL;
  s->cap = s->n = 0;
}
#endif
