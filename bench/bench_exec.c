/* bench_exec.c - the interpreter's speed: simple statements per second.
 *
 * Each kernel is compiled once (tir_exec_compile) and run on seeded inputs;
 * a "simple statement" is one iteration of the innermost loop, whose body
 * is one store.  The issue asks for at least 50 million per second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tir/tir.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct kernel {
  const char *name, *src;
  double stmts; /* simple statements per run */
} kernel;

static const kernel KERNELS[] = {
    {"add1 (A[i] = A[i] + 1, int32, 1-D)",
     "from tvm.script import tirx as T\n"
     "@T.prim_func\n"
     "def add1(A: T.Buffer((4194304,), \"int32\")):\n"
     "    for i in range(4194304):\n"
     "        A[i] = A[i] + 1\n",
     4194304.0},
    {"saxpy (C[i] = a*A[i] + B[i], float32)",
     "from tvm.script import tirx as T\n"
     "@T.prim_func\n"
     "def saxpy(A: T.Buffer((4194304,), \"float32\"), B: T.Buffer((4194304,), \"float32\"),\n"
     "          C: T.Buffer((4194304,), \"float32\"), a: T.float32):\n"
     "    for i in range(4194304):\n"
     "        C[i] = a * A[i] + B[i]\n",
     4194304.0},
    {"2-D copy with floordiv/floormod indices (int8)",
     "from tvm.script import tirx as T\n"
     "@T.prim_func\n"
     "def tr(A: T.Buffer((1024, 1024), \"int8\"), B: T.Buffer((1024, 1024), \"int8\")):\n"
     "    for i, j in T.grid(1024, 1024):\n"
     "        B[i, j] = T.max(A[(i * 1024 + j) // 1024, (i * 1024 + j) % 1024], T.int8(0))\n",
     1048576.0},
    {"matmul 128^3 (blocks, T.init, float32)",
     "from tvm.script import tir as T\n"
     "@T.prim_func\n"
     "def mm(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), \"float32\"), C: T.Buffer((128, 128), \"float32\")):\n"
     "    for i, j, k in T.grid(128, 128, 128):\n"
     "        with T.block(\"C\"):\n"
     "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
     "            with T.init():\n"
     "                C[vi, vj] = T.float32(0)\n"
     "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n",
     2097152.0},
};

int main(void) {
  int fails = 0;
  for (size_t k = 0; k < sizeof KERNELS / sizeof KERNELS[0]; k++) {
    const kernel *K = &KERNELS[k];
    tir_diag d;
    tir_diag_init(&d);
    tir_ctx *ctx = tir_ctx_new();
    tir_module *m = tir_parse(ctx, K->src, strlen(K->src), &d);
    tir_exec_prog *p = m ? tir_exec_compile(m->funcs[0], &d) : NULL;
    tir_exec_args *a = p ? tir_exec_args_new(m->funcs[0], &d) : NULL;
    if (!a || !tir_exec_args_randomize(a, 1, &d)) {
      char *msg = tir_diag_format(&d, K->name, K->src, strlen(K->src));
      fprintf(stderr, "%s", msg);
      free(msg);
      return 1;
    }
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
      double t0 = now_s();
      if (!tir_exec_run(p, a, NULL, &d)) {
        fprintf(stderr, "%s: run failed\n", K->name);
        return 1;
      }
      double t = now_s() - t0;
      if (t < best) best = t;
    }
    double rate = K->stmts / best / 1e6;
    printf("  %-48s %8.1f M statements/s  (%.1f ms a run)\n", K->name, rate, best * 1e3);
    if (k == 0 && rate < 50) fails++;
    tir_exec_args_free(a);
    tir_exec_prog_free(p);
    tir_ctx_free(ctx);
    tir_diag_free(&d);
  }
  if (fails) printf("bench_exec: below 50 M simple statements per second\n");
  return 0;
}
