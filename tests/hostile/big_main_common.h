/* a huge array that only the touched pages occupy */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
static void *huge(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}
