/* test_exec.c - the interpreter through its C API: values read back from
 * the buffers (not hashes), errors with their positions, the pipeline's
 * verify_exec option. */
#include "testutil.h"

static tir_ctx *ctx;
static tir_diag d;

static void setup(void) {
  ctx = tir_ctx_new();
  tir_diag_init(&d);
}
static void teardown(void) {
  tir_diag_free(&d);
  tir_ctx_free(ctx);
}

static tir_func *parse1(const char *src) {
  tir_module *m = tir_parse(ctx, src, strlen(src), &d);
  ck_assert_ptr_nonnull(m);
  return m->funcs[0];
}

/* inputs with the given buffer contents (int32), n each */
static tir_exec_args *ints(const tir_func *f, int nb, const int32_t *const *vals, const int *n) {
  tir_exec_args *a = tir_exec_args_new(f, &d);
  ck_assert_ptr_nonnull(a);
  ck_assert(tir_exec_args_randomize(a, 1, &d));
  for (int i = 0; i < nb; i++) {
    ck_assert_uint_eq(a->a[i].bytes, (size_t)n[i] * 4);
    memcpy(a->a[i].data, vals[i], (size_t)n[i] * 4);
  }
  return a;
}

START_TEST(test_values) {
  tir_func *f = parse1("from tvm.script import tir as T\n"
                       "@T.prim_func\n"
                       "def f(A: T.Buffer((8,), \"int32\"), B: T.Buffer((8,), \"int32\")):\n"
                       "    for i in range(8):\n"
                       "        with T.block(\"b\"):\n"
                       "            vi = T.axis.spatial(8, i)\n"
                       "            B[vi] = T.floordiv(A[vi], 3) * 10 + T.floormod(A[vi], 3)\n");
  int32_t a[8] = {-7, -6, -1, 0, 1, 5, 6, 2147483647}, b[8] = {0};
  const int32_t *vals[] = {a, b};
  int n[] = {8, 8};
  tir_exec_args *args = ints(f, 2, vals, n);
  ck_assert(tir_exec(f, args, NULL, &d));
  const int32_t *out = args->a[1].data;
  int32_t want[8] = {-30 + 2, -20, -10 + 2, 0, 1, 10 + 2, 20, (int32_t)(715827882u * 10u + 1u)};
  for (int i = 0; i < 8; i++) ck_assert_int_eq(out[i], want[i]);
  tir_exec_args_free(args);
}
END_TEST

START_TEST(test_int8_wraps) {
  tir_func *f = parse1("from tvm.script import tirx as T\n"
                       "@T.prim_func\n"
                       "def f(A: T.Buffer((4,), \"int8\")):\n"
                       "    for i in range(4):\n"
                       "        A[i] = A[i] * T.int8(16) + T.int8(1)\n");
  tir_exec_args *a = tir_exec_args_new(f, &d);
  ck_assert(tir_exec_args_randomize(a, 1, &d));
  int8_t in[4] = {8, -8, 100, 0};
  memcpy(a->a[0].data, in, 4);
  ck_assert(tir_exec(f, a, NULL, &d));
  const int8_t *o = a->a[0].data;
  ck_assert_int_eq(o[0], (int8_t)(128 + 1)); /* 8 * 16 = 128 wraps to -128 */
  ck_assert_int_eq(o[1], -127);
  ck_assert_int_eq(o[2], (int8_t)(1600 + 1));
  ck_assert_int_eq(o[3], 1);
  tir_exec_args_free(a);
}
END_TEST

/* threads meet at a barrier: each reads what its neighbour wrote */
START_TEST(test_barrier) {
  tir_func *f = parse1("from tvm.script import tirx as T\n"
                       "@T.prim_func(s_tir=True)\n"
                       "def f(A: T.Buffer((8,), \"int32\"), B: T.Buffer((8,), \"int32\")):\n"
                       "    for tx in T.thread_binding(8, thread=\"threadIdx.x\"):\n"
                       "        with T.sblock(\"t\"):\n"
                       "            S = T.sblock_alloc_buffer((8,), \"int32\", scope=\"shared\")\n"
                       "            S[tx] = A[tx] + 100\n"
                       "            T.evaluate(T.tvm_storage_sync(\"shared\"))\n"
                       "            B[tx] = S[7 - tx]\n");
  int32_t a[8] = {0, 1, 2, 3, 4, 5, 6, 7}, b[8] = {0};
  const int32_t *vals[] = {a, b};
  int n[] = {8, 8};
  tir_exec_args *args = ints(f, 2, vals, n);
  ck_assert(tir_exec(f, args, NULL, &d));
  const int32_t *out = args->a[1].data;
  for (int i = 0; i < 8; i++) ck_assert_int_eq(out[i], 107 - i);
  tir_exec_args_free(args);
}
END_TEST

START_TEST(test_oob_position) {
  tir_func *f = parse1("from tvm.script import tirx as T\n"
                       "@T.prim_func\n"
                       "def f(A: T.Buffer((4,), \"int32\")):\n"
                       "    for i in range(4):\n"
                       "        if A[0] == A[0]:\n"
                       "            A[i] = A[i + 1]\n");
  /* (under a guard that reads A: the reader's compile-time check cannot
   * prove the access runs, the run finds it) */
  tir_exec_args *a = tir_exec_args_new(f, &d);
  ck_assert(tir_exec_args_randomize(a, 1, &d));
  ck_assert(!tir_exec(f, a, NULL, &d));
  ck_assert_int_eq(d.nerrors, 1);
  ck_assert_int_eq(d.items[0].span.line, 6);
  ck_assert_int_eq(d.items[0].span.col, 20);
  ck_assert_ptr_nonnull(strstr(d.items[0].msg, "A[4]"));
  tir_exec_args_free(a);
}
END_TEST

START_TEST(test_uninit) {
  tir_func *f = parse1("from tvm.script import tirx as T\n"
                       "@T.prim_func\n"
                       "def f(A: T.Buffer((4,), \"int32\")):\n"
                       "    L = T.alloc_buffer((4,), \"int32\", scope=\"local\")\n"
                       "    L[0] = 1\n"
                       "    A[0] = L[0] + L[1]\n");
  tir_exec_args *a = tir_exec_args_new(f, &d);
  ck_assert(tir_exec_args_randomize(a, 1, &d));
  ck_assert(!tir_exec(f, a, NULL, &d));
  ck_assert_ptr_nonnull(strstr(d.items[0].msg, "never written"));
  ck_assert_int_eq(d.items[0].span.line, 6);
  tir_diag_clear(&d);
  tir_exec_opts o = {.no_uninit_check = true};
  ck_assert(tir_exec(f, a, &o, &d));
  tir_exec_args_free(a);
}
END_TEST

/* the pipeline option: every pass of the default pipeline checked by running */
START_TEST(test_pipeline_verify_exec) {
  const char *src = "from tvm.script import tir as T\n"
                    "@T.prim_func\n"
                    "def mm(A: T.Buffer((8, 8), \"float32\"), B: T.Buffer((8, 8), \"float32\"), C: T.Buffer((8, 8), \"float32\")):\n"
                    "    for i, j, k in T.grid(8, 8, 8):\n"
                    "        with T.block(\"C\"):\n"
                    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
                    "            with T.init():\n"
                    "                C[vi, vj] = T.float32(0)\n"
                    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";
  tir_module *m = tir_parse(ctx, src, strlen(src), &d);
  ck_assert_ptr_nonnull(m);
  tir_pipeline *p = tir_pipeline_parse("default", &d);
  tir_pipeline_opts o = {.verify_each = true, .verify_exec = true, .exec_seed = 5};
  ck_assert_ptr_nonnull(tir_pipeline_run(p, ctx, m, &o, &d));
  ck_assert_int_eq(d.nerrors, 0);
  tir_pipeline_free(p);
}
END_TEST

START_TEST(test_compare) {
  tir_func *f = parse1("from tvm.script import tirx as T\n"
                       "@T.prim_func\n"
                       "def f(A: T.Buffer((2, 3), \"float32\")):\n"
                       "    A[0, 0] = A[0, 0]\n");
  tir_exec_args *a = tir_exec_args_new(f, &d);
  ck_assert(tir_exec_args_randomize(a, 1, &d));
  tir_exec_args *b = tir_exec_args_copy(a);
  char msg[256];
  int64_t flat = -1;
  ck_assert_int_eq(tir_exec_args_compare(a, b, TIR_EXEC_RTOL, TIR_EXEC_ATOL, &flat, msg, sizeof msg), -1);
  ((float *)b->a[0].data)[4] += 1.0f;
  ck_assert_int_eq(tir_exec_args_compare(a, b, TIR_EXEC_RTOL, TIR_EXEC_ATOL, &flat, msg, sizeof msg), 0);
  ck_assert_int_eq(flat, 4);
  ck_assert_ptr_nonnull(strstr(msg, "A[1, 1]"));
  tir_exec_args_free(a);
  tir_exec_args_free(b);
}
END_TEST

/* float16 within 8 ulps (a reordered reduction's rounding), not beyond;
 * an element a sum cancels to near 0 at the buffer's scale (its rms) */
START_TEST(test_compare_half) {
  tir_func *f = parse1("from tvm.script import tirx as T\n"
                       "@T.prim_func\n"
                       "def f(A: T.Buffer((4,), \"float16\")):\n"
                       "    A[0] = A[0]\n");
  tir_exec_args *a = tir_exec_args_new(f, &d);
  ck_assert(tir_exec_args_randomize(a, 1, &d));
  uint16_t *h = a->a[0].data;
  for (int i = 0; i < 4; i++) h[i] = 0x1C9F; /* 0.004513 (the buffer's scale too) */
  tir_exec_args *b = tir_exec_args_copy(a);
  uint16_t *g = b->a[0].data;
  char msg[256];
  int64_t flat = -1;
  g[2] = 0x1C9A; /* 0.004494: 5 ulps below */
  ck_assert_int_eq(tir_exec_args_compare(a, b, TIR_EXEC_RTOL, TIR_EXEC_ATOL, &flat, msg, sizeof msg), -1);
  g[2] = 0x1C8F; /* 16 ulps below */
  ck_assert_int_eq(tir_exec_args_compare(a, b, TIR_EXEC_RTOL, TIR_EXEC_ATOL, &flat, msg, sizeof msg), 0);
  ck_assert_int_eq(flat, 2);
  h[0] = h[1] = h[3] = 0x3C00; /* 1.0: the scale is about 0.87 */
  g[0] = g[1] = g[3] = 0x3C00;
  h[2] = 0x0000;
  g[2] = 0x1800; /* 0.00195: within 8 ulps of the scale (0.0068) */
  ck_assert_int_eq(tir_exec_args_compare(a, b, TIR_EXEC_RTOL, TIR_EXEC_ATOL, &flat, msg, sizeof msg), -1);
  g[2] = 0x2400; /* 0.0156: beyond */
  ck_assert_int_eq(tir_exec_args_compare(a, b, TIR_EXEC_RTOL, TIR_EXEC_ATOL, &flat, msg, sizeof msg), 0);
  tir_exec_args_free(a);
  tir_exec_args_free(b);
}
END_TEST

int main(void) {
  Suite *s = suite_create("exec");
  TCase *tc = tcase_create("exec");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_values);
  tcase_add_test(tc, test_int8_wraps);
  tcase_add_test(tc, test_barrier);
  tcase_add_test(tc, test_oob_position);
  tcase_add_test(tc, test_uninit);
  tcase_add_test(tc, test_pipeline_verify_exec);
  tcase_add_test(tc, test_compare);
  tcase_add_test(tc, test_compare_half);
  suite_add_tcase(s, tc);
  return tir_test_run_suite(s);
}
