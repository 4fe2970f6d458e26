/* memplan_gen.h - instances whose optimum is known by construction: a
 * capacity x time rectangle cut into pieces (each piece a buffer live over
 * its time span, as large as its height), so the optimum is the capacity,
 * which is also the lower bound.  Shared by the unit test and the bench. */
#ifndef TIR_MEMPLAN_GEN_H
#define TIR_MEMPLAN_GEN_H
#include <stdint.h>

#include "tir/memplan.h"

static uint64_t memplan_gen_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* n pieces of cap x [0, span), heights multiples of quantum, cut one
 * piece at a time at a random place across time or memory; returns the
 * number made (n unless nothing more can be cut) */
static int memplan_gen_known(tir_interval *iv, int n, int64_t cap, int64_t span, int64_t quantum, uint64_t *seed) {
  int m = 1;
  iv[0] = (tir_interval){0, span, cap, 0};
  int tries = 0;
  while (m < n && tries < 100 * n) {
    tries++;
    int i = (int)(memplan_gen_next(seed) % (uint64_t)m);
    tir_interval *p = &iv[i];
    bool in_time = memplan_gen_next(seed) % 2;
    if (in_time && p->upper - p->lower >= 2) {
      int64_t at = p->lower + 1 + (int64_t)(memplan_gen_next(seed) % (uint64_t)(p->upper - p->lower - 1));
      iv[m] = (tir_interval){at, p->upper, p->size, 0};
      p->upper = at;
      m++;
    } else if (!in_time && p->size >= 2 * quantum) {
      int64_t units = p->size / quantum;
      int64_t cut = (1 + (int64_t)(memplan_gen_next(seed) % (uint64_t)(units - 1))) * quantum;
      iv[m] = (tir_interval){p->lower, p->upper, p->size - cut, 0};
      p->size = cut;
      m++;
    }
  }
  return m;
}
#endif
