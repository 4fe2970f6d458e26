/* deep_stack.c - tir_run_with_stack: run the work on a thread whose stack
 * is as deep as the IR can be.
 *
 * The passes, printers and code generators recurse once per level of the
 * IR's nesting, and some passes make a level per item of a flat list
 * (FlattenBuffer declares each parameter's flat buffer around the body,
 * LowerOpaqueBlock each allocation of a block), so a program with 64,000
 * parameters nests 64,000 deep after FlattenBuffer, about 25 MiB of stack
 * where a process's main thread usually has 8.  The work therefore runs on
 * a thread of its own with a stack of 1 GiB: address space reserved
 * (MAP_NORESERVE), only the pages touched are memory.  Below it lies a
 * guard of 64 MiB with no access, larger than any frame, so that running
 * out of the stack always faults there (never into another mapping); with
 * an overflow message, that fault is caught on an alternate signal stack,
 * the message written and the process ended with status 1.  A fault
 * anywhere else goes to the handler that was there before. */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tir/driver.h"

enum { GUARD_BYTES = 64 << 20, ALT_BYTES = 256 << 10 };
static const size_t DEFAULT_BYTES = (size_t)1 << 30;

typedef struct job {
  void (*fn)(void *);
  void *arg;
  bool catch_overflow;
} job;

/* the one overflow handler of the process (a signal handler has no
 * argument): the guard it watches and what it writes */
static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile uintptr_t guard_lo, guard_hi;
static const char *volatile overflow_msg;
static struct sigaction old_segv;

static void on_segv(int sig, siginfo_t *info, void *uc) {
  (void)uc;
  uintptr_t a = (uintptr_t)info->si_addr;
  if (a >= guard_lo && a < guard_hi) {
    const char *m = overflow_msg;
    size_t n = strlen(m);
    while (n) {
      ssize_t w = write(2, m, n);
      if (w <= 0) break;
      m += w, n -= (size_t)w;
    }
    _exit(1);
  }
  /* not ours: the handler before ours takes it when the access faults again */
  sigaction(sig, &old_segv, NULL);
}

static void *thread_main(void *p) {
  job *j = p;
  void *alt = NULL;
  if (j->catch_overflow) {
    alt = mmap(NULL, ALT_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (alt != MAP_FAILED) {
      stack_t ss = {.ss_sp = alt, .ss_size = ALT_BYTES, .ss_flags = 0};
      if (sigaltstack(&ss, NULL)) {
        munmap(alt, ALT_BYTES);
        alt = NULL;
      }
    } else {
      alt = NULL;
    }
  }
  j->fn(j->arg);
  if (alt) {
    stack_t off = {.ss_flags = SS_DISABLE};
    sigaltstack(&off, NULL);
    munmap(alt, ALT_BYTES);
  }
  return NULL;
}

static size_t stack_bytes(size_t bytes) {
  if (bytes) return bytes;
  const char *e = getenv("TIR_STACK_MB");
  if (e && *e) {
    char *end;
    unsigned long long mb = strtoull(e, &end, 10);
    if (!*end && mb >= 1 && mb <= ((size_t)1 << 20)) return (size_t)mb << 20;
  }
  return DEFAULT_BYTES;
}

int tir_run_with_stack(void (*fn)(void *), void *arg, size_t bytes, const char *msg) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  bytes = (stack_bytes(bytes) + page - 1) / page * page;
  if (bytes < (size_t)PTHREAD_STACK_MIN) bytes = (size_t)PTHREAD_STACK_MIN;
  /* less address space where a limit (ulimit -v) refuses the whole */
  char *base = MAP_FAILED;
  for (; bytes >= ((size_t)8 << 20); bytes /= 4) {
    base = mmap(NULL, GUARD_BYTES + bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base != MAP_FAILED) break;
  }
  if (base == MAP_FAILED && bytes < ((size_t)8 << 20))
    base = mmap(NULL, GUARD_BYTES + bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED || mprotect(base + GUARD_BYTES, bytes, PROT_READ | PROT_WRITE)) {
    if (base != MAP_FAILED) munmap(base, GUARD_BYTES + bytes);
    fn(arg);
    return -1;
  }
  job j = {fn, arg, msg != NULL};
  bool handler = false;
  if (msg) {
    pthread_mutex_lock(&handler_lock);
    guard_lo = (uintptr_t)base;
    guard_hi = (uintptr_t)base + GUARD_BYTES;
    overflow_msg = msg;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    handler = sigaction(SIGSEGV, &sa, &old_segv) == 0;
    if (!handler) pthread_mutex_unlock(&handler_lock);
  }
  pthread_attr_t at;
  pthread_t t;
  int rc = -1;
  if (!pthread_attr_init(&at)) {
    if (!pthread_attr_setstack(&at, base + GUARD_BYTES, bytes) && !pthread_create(&t, &at, thread_main, &j)) {
      pthread_join(t, NULL);
      rc = 0;
    }
    pthread_attr_destroy(&at);
  }
  if (handler) {
    sigaction(SIGSEGV, &old_segv, NULL);
    guard_lo = guard_hi = 0;
    pthread_mutex_unlock(&handler_lock);
  }
  if (rc) fn(arg);
  munmap(base, GUARD_BYTES + bytes);
  return rc;
}
