/* ptrmap.c - pointer -> int and string -> int maps, linear probing, load
 * factor <= 1/2. */
#include "ir/ptrmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static size_t str_slot(const char *key, size_t cap) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *key; key++) h = (h ^ (unsigned char)*key) * 1099511628211ull;
  return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static size_t str_find(const tir_strmap *m, const char *key) {
  size_t j = str_slot(key, m->cap);
  while (m->keys[j] && strcmp(m->keys[j], key)) j = (j + 1) & (m->cap - 1);
  return j;
}

static void str_grow(tir_strmap *m) {
  tir_strmap o = *m;
  m->cap = o.cap ? o.cap * 2 : 64;
  m->keys = calloc(m->cap, sizeof *m->keys);
  m->vals = calloc(m->cap, sizeof *m->vals);
  if (!m->keys || !m->vals) abort();
  for (size_t i = 0; i < o.cap; i++) {
    if (!o.keys[i]) continue;
    size_t j = str_find(m, o.keys[i]);
    m->keys[j] = o.keys[i];
    m->vals[j] = o.vals[i];
  }
  free(o.keys);
  free(o.vals);
}

long *tir_strmap_at(tir_strmap *m, const char *key, long dflt) {
  if (2 * (m->n + 1) > m->cap) str_grow(m);
  size_t j = str_find(m, key);
  if (!m->keys[j]) {
    size_t len = strlen(key) + 1;
    m->keys[j] = malloc(len);
    if (!m->keys[j]) abort();
    memcpy(m->keys[j], key, len);
    m->vals[j] = dflt;
    m->n++;
  }
  return &m->vals[j];
}

long tir_strmap_get(const tir_strmap *m, const char *key, long dflt) {
  if (!m->cap) return dflt;
  size_t j = str_find(m, key);
  return m->keys[j] ? m->vals[j] : dflt;
}

void tir_strmap_free(tir_strmap *m) {
  for (size_t i = 0; i < m->cap; i++) free(m->keys[i]);
  free(m->keys);
  free(m->vals);
  m->keys = NULL;
  m->vals = NULL;
  m->cap = m->n = 0;
}
