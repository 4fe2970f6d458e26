/* arena.c - the per-module arena (tir_ctx): bump allocation in chunks,
 * freed all at once. */
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
