/* arena.c - the per-module arena (tir_ctx): bump allocation in chunks,
 * freed all at once. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tir/ir.h"

typedef struct chunk {
  struct chunk *next;
  size_t size, used;
  _Alignas(16) unsigned char data[];
} chunk;

struct tir_ctx {
  chunk *head;
  uint32_t next_id;
  size_t bytes; /* malloc'd for chunks */
};

tir_ctx *tir_ctx_new(void) {
  tir_ctx *c = calloc(1, sizeof *c);
  if (!c) abort();
  c->next_id = 1;
  return c;
}

void tir_ctx_free(tir_ctx *c) {
  if (!c) return;
  for (chunk *k = c->head, *n; k; k = n) {
    n = k->next;
    free(k);
  }
  free(c);
}

void *tir_alloc(tir_ctx *c, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (size == 0) size = 16;
  chunk *k = c->head;
  if (!k || k->size - k->used < size) {
    size_t csize = size > 65536 ? size : 65536;
    k = malloc(sizeof(chunk) + csize);
    if (!k) abort(); /* out of memory is not bad input */
    k->size = csize;
    k->used = 0;
    c->bytes += sizeof(chunk) + csize;
    if (c->head && size > 65536) { /* keep the current chunk for small objects */
      k->next = c->head->next;
      c->head->next = k;
    } else {
      k->next = c->head;
      c->head = k;
    }
  }
  void *p = k->data + k->used;
  k->used += size;
  memset(p, 0, size);
  return p;
}

const char *tir_strndup(tir_ctx *c, const char *s, size_t n) {
  char *p = tir_alloc(c, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

const char *tir_strdup(tir_ctx *c, const char *s) {
  return s ? tir_strndup(c, s, strlen(s)) : NULL;
}

uint32_t tir_ctx_next_id(tir_ctx *c) { return c->next_id++; }

size_t tir_ctx_bytes(const tir_ctx *c) { return c ? c->bytes : 0; }

void tir_ctx_reserve_id(tir_ctx *c, uint32_t id) {
  if (id >= c->next_id) c->next_id = id + 1;
}

void tir_ctx_swap(tir_ctx *a, tir_ctx *b) {
  tir_ctx t = *a;
  *a = *b;
  *b = t;
  /* ids stay unique across both: each goes on from the larger */
  uint32_t next = a->next_id > b->next_id ? a->next_id : b->next_id;
  a->next_id = b->next_id = next;
}

uint32_t tir_ctx_peek_id(const tir_ctx *c) { return c->next_id; }

static int cmp_ptr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
  return (x > y) - (x < y);
}

/* the chunks of c by address, for tir_ctx_index_find: malloc'd, n entries */
const void **tir_ctx_chunk_index(const tir_ctx *c, int *n) {
  int cnt = 0;
  for (chunk *k = c->head; k; k = k->next) cnt++;
  const void **a = malloc(sizeof *a * (size_t)(cnt + 1));
  if (!a) abort();
  cnt = 0;
  for (chunk *k = c->head; k; k = k->next) a[cnt++] = k;
  qsort(a, (size_t)cnt, sizeof *a, cmp_ptr);
  *n = cnt;
  return a;
}

const void *tir_ctx_index_find(const void *const *index, int n, const void *p, uintptr_t *data_lo,
                               uintptr_t *data_hi) {
  int lo = 0, hi = n - 1, at = -1;
  while (lo <= hi) { /* the last chunk starting at or below p */
    int mid = (lo + hi) / 2;
    if ((uintptr_t)index[mid] <= (uintptr_t)p) at = mid, lo = mid + 1;
    else hi = mid - 1;
  }
  if (at < 0) return NULL;
  const chunk *k = index[at];
  uintptr_t a = (uintptr_t)k->data, b = (uintptr_t)(k->data + k->size);
  if ((uintptr_t)p < a || (uintptr_t)p >= b) return NULL;
  if (data_lo) *data_lo = a, *data_hi = b;
  return k;
}
