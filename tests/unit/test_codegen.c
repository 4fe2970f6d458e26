/* test_codegen.c - the C and CUDA code generators on tiny kernels: the
 * generated text holds the expected signature, loops, barriers and vector
 * accesses; IR that is not lowered, or that a target cannot print, is a
 * clean error. */
#include <stdio.h>

#include "testutil.h"

#define HDR "from tvm.script import tir as T\n\n@T.prim_func\n"

typedef enum { EMIT_C, EMIT_CUDA } emit_kind;

typedef struct gen {
  tir_diag d;
  char *text; /* malloc'd, or NULL on error */
} gen;

/* parse src, run `passes` ("default", or "" for none), print it */
static gen generate(const char *src, const char *passes, emit_kind k) {
  gen g = {0};
  tir_diag_init(&g.d);
  tir_ctx *c = tir_ctx_new();
  tir_module *m = tir_parse(c, src, strlen(src), &g.d);
  ck_assert_msg(m != NULL, "parse failed: %s", g.d.n ? g.d.items[0].msg : "");
  if (*passes) {
    tir_pipeline *p = tir_pipeline_parse(passes, &g.d);
    ck_assert_ptr_nonnull(p);
    tir_pipeline_opts o = {.verify_each = true};
    m = tir_pipeline_run(p, c, m, &o, &g.d);
    tir_pipeline_free(p);
    ck_assert_msg(m != NULL, "pipeline failed: %s", g.d.n ? g.d.items[0].msg : "");
  }
  g.text = k == EMIT_C ? tir_codegen_c(m, &g.d) : tir_codegen_cuda(m, &g.d);
  tir_ctx_free(c);
  return g;
}

static void done(gen *g) {
  free(g->text);
  tir_diag_free(&g->d);
}

static bool diag_has(const tir_diag *d, const char *needle) {
  for (int i = 0; i < d->n; i++)
    if (strstr(d->items[i].msg, needle)) return true;
  return false;
}

static int count(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

#define HAS(g, s) ck_assert_msg((g).text && strstr((g).text, s), "expected `%s` in:\n%s", s, (g).text ? (g).text : "(null)")
#define LACKS(g, s) ck_assert_msg((g).text && !strstr((g).text, s), "did not expect `%s` in:\n%s", s, (g).text ? (g).text : "(null)")
#define FAILS_WITH(g, s)                                                                                      \
  do {                                                                                                        \
    ck_assert_ptr_null((g).text);                                                                             \
    ck_assert_msg(diag_has(&(g).d, s), "expected an error with `%s`, got: %s", s, (g).d.n ? (g).d.items[0].msg : "none"); \
  } while (0)

static const char *const copy_src = HDR
    "def copy(A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((4, 8), \"float32\")):\n"
    "    for i, j in T.grid(4, 8):\n"
    "        with T.block(\"c\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vi, vj] = A[vi, vj] + T.float32(1)\n";

/* ---- C ---- */

START_TEST(c_signature_and_loops) {
  gen g = generate(copy_src, "default", EMIT_C);
  HAS(g, "#include <stdint.h>\n");
  HAS(g, "int32_t copy(float *restrict A, float *restrict B) {\n");
  HAS(g, "  for (int32_t i = 0; i < 4; ++i) {\n    for (int32_t j = 0; j < 8; ++j) {\n");
  HAS(g, "      B[i * 8 + j] = A[i * 8 + j] + 1.0f;\n");
  HAS(g, "  return 0;\n}\n");
  done(&g);
}
END_TEST

START_TEST(c_unlowered_blocks) {
  gen g = generate(copy_src, "", EMIT_C);
  FAILS_WITH(g, "is not lowered: run the lowering passes");
  done(&g);
}
END_TEST

START_TEST(c_unflattened) {
  gen g = generate(copy_src, "to_opaque,lower_opaque", EMIT_C);
  FAILS_WITH(g, "run FlattenBuffer (flatten) before code generation");
  done(&g);
}
END_TEST

START_TEST(c_float16_error) {
  gen g = generate(HDR "def h(A: T.Buffer((8,), \"float16\")):\n"
                       "    for i in range(8):\n"
                       "        A[i] = A[i] + T.float16(1)\n",
                   "default", EMIT_C);
  FAILS_WITH(g, "dtype float16 is not supported by the C code generator");
  done(&g);
}
END_TEST

START_TEST(c_symbolic_shape_param) {
  gen g = generate(HDR "def s(a: T.handle):\n"
                       "    n = T.int32()\n"
                       "    A = T.match_buffer(a, (n,), \"int32\")\n"
                       "    for i in range(n):\n"
                       "        A[i] = i\n",
                   "default", EMIT_C);
  HAS(g, "int32_t s(int32_t *restrict A, int32_t n) {\n");
  HAS(g, "for (int32_t i = 0; i < n; ++i)");
  done(&g);
}
END_TEST

START_TEST(c_helper_once) {
  gen g = generate(HDR "def d(A: T.Buffer((8,), \"int32\")):\n"
                       "    for i in range(8):\n"
                       "        A[i] = T.floordiv(A[i], 3) + T.floordiv(A[i] - 7, 2)\n",
                   "default", EMIT_C);
  ck_assert_int_eq(count(g.text, "static inline int32_t tir_floordiv_i32("), 1);
  /* A[i] - 7 may overflow int32 (TIR wraps): computed unsigned; the sum of
   * the two quotients cannot */
  HAS(g, "A[i] = tir_floordiv_i32(A[i], 3) + tir_floordiv_i32((int32_t)((uint32_t)A[i] - 7u), 2);");
  done(&g);
}
END_TEST

/* signed + - *: C's operators where the loop ranges prove the value in
 * range, an int64 sum for a buffer index that needs it, and the unsigned
 * type (which wraps as TIR does) elsewhere */
START_TEST(c_int_wrap) {
  gen g = generate(HDR "def w(a: T.handle, B: T.Buffer((64,), \"int64\"), n: T.int32, u: T.int64):\n"
                       "    A = T.match_buffer(a, (n, n), \"int32\")\n"
                       "    for i, j in T.grid(n, n):\n"
                       "        A[i, j] = A[i, j] * 3 + n\n"
                       "    for k in range(8):\n"
                       "        B[k * 8 + 1] = B[k] * u - 5 + T.truncdiv(u, B[k]) + T.truncdiv(B[k], T.int64(4))\n",
                   "default", EMIT_C);
  HAS(g, "A[(int64_t)i * n + j] = (int32_t)((uint32_t)A[(int64_t)i * n + j] * 3u + (uint32_t)n);");
  HAS(g, "B[k * 8 + 1] = (int64_t)((uint64_t)(B[k] / INT64_C(4)) + (uint64_t)B[k] * (uint64_t)u + "
         "(uint64_t)tir_truncdiv_i64(u, B[k]) - UINT64_C(5));");
  HAS(g, "tir_truncdiv_i64(int64_t a, int64_t b) { return b == -1 ? (int64_t)(0u - (uint64_t)a) : a / b; }");
  done(&g);
}
END_TEST

START_TEST(c_bad_symbol) {
  gen g = generate(HDR "def f(A: T.Buffer((8,), \"int32\")):\n"
                       "    T.func_attr({\"global_symbol\": \"not a name\"})\n"
                       "    A[0] = 1\n",
                   "default", EMIT_C);
  FAILS_WITH(g, "is not a C identifier");
  done(&g);
}
END_TEST

START_TEST(c_assert_returns) {
  gen g = generate(HDR "def f(A: T.Buffer((8,), \"int32\"), n: T.int32):\n"
                       "    assert n < 8, \"n too big\"\n"
                       "    A[n] = 1\n",
                   "default", EMIT_C);
  HAS(g, "  if (!(n < 8)) {\n    return -1;\n  }\n  A[n] = 1;\n");
  done(&g);
}
END_TEST

static const char *const vec_src = HDR
    "def v(X: T.Buffer((16,), \"float32\"), Y: T.Buffer((16,), \"float32\")):\n"
    "    for i in range(4):\n"
    "        Y[T.Ramp(i * 4, 1, 4)] = X[T.Ramp(i * 4, 1, 4)] + T.Broadcast(T.float32(1), 4)\n";

START_TEST(c_vector_lanes) {
  gen g = generate(vec_src, "default", EMIT_C);
  HAS(g, "    for (int32_t lane = 0; lane < 4; ++lane) {\n      Y[i * 4 + lane] = X[i * 4 + lane] + 1.0f;\n    }\n");
  done(&g);
}
END_TEST

START_TEST(c_vector_self_read) {
  /* a vector store reads all lanes first: W[1:5] = W[0:4] + 1 */
  gen g = generate(HDR "def w(W: T.Buffer((8,), \"float32\")):\n"
                       "    W[T.Ramp(1, 1, 4)] = W[T.Ramp(0, 1, 4)] + T.Broadcast(T.float32(1), 4)\n",
                   "default", EMIT_C);
  HAS(g, "float lanes[4];");
  HAS(g, "lanes[lane] = W[lane] + 1.0f;");
  HAS(g, "W[lane + 1] = lanes[lane];");
  done(&g);
}
END_TEST

/* ---- CUDA ---- */

static const char *const shared_src = HDR
    "def t(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
    "    S = T.alloc_buffer((64,), \"float32\", scope=\"shared\")\n"
    "    for bx in T.thread_binding(2, thread=\"blockIdx.x\"):\n"
    "        for ty in T.thread_binding(4, thread=\"threadIdx.y\"):\n"
    "            for tx in T.thread_binding(8, thread=\"threadIdx.x\"):\n"
    "                with T.block(\"load\"):\n"
    "                    S[bx * 32 + ty * 8 + tx] = A[bx * 32 + ty * 8 + tx]\n"
    "        for ty in T.thread_binding(4, thread=\"threadIdx.y\"):\n"
    "            for tx in T.thread_binding(8, thread=\"threadIdx.x\"):\n"
    "                with T.block(\"use\"):\n"
    "                    B[bx * 32 + ty * 8 + tx] = S[bx * 32 + 31 - ty * 8 - tx]\n";

START_TEST(cuda_launch_bounds_and_grid) {
  gen g = generate(shared_src, "default", EMIT_CUDA);
  HAS(g, "__global__ void __launch_bounds__(32) t_kernel0(");
  HAS(g, "t_kernel0<<<dim3(2, 1, 1), dim3(8, 4, 1), 0, stream>>>(");
  HAS(g, "extern \"C\" int t(float *A, float *B, cudaStream_t stream) {");
  HAS(g, "int32_t tx = (int32_t)threadIdx.x;");
  done(&g);
}
END_TEST

START_TEST(cuda_barrier_between_write_and_read) {
  gen g = generate(shared_src, "default", EMIT_CUDA);
  ck_assert_int_eq(count(g.text, "__syncthreads();"), 1);
  const char *w = strstr(g.text, "S[");
  const char *b = strstr(g.text, "__syncthreads();");
  const char *r = strstr(g.text, "= S[");
  ck_assert(w && b && r && w < b && b < r);
  done(&g);
}
END_TEST

START_TEST(cuda_no_shared_no_barrier) {
  gen g = generate(HDR "def k(A: T.Buffer((64,), \"float32\")):\n"
                       "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                       "        with T.block(\"a\"):\n"
                       "            A[tx] = A[tx] * T.float32(2)\n"
                       "        with T.block(\"b\"):\n"
                       "            A[tx] = A[tx] + T.float32(1)\n",
                   "default", EMIT_CUDA);
  LACKS(g, "__syncthreads");
  HAS(g, "__launch_bounds__(64)");
  done(&g);
}
END_TEST

START_TEST(cuda_loop_carried_barrier) {
  /* the next iteration overwrites S after this one read it: a barrier at
   * the end of the loop body, and one between write and read */
  gen g = generate(HDR "def l(A: T.Buffer((128,), \"float32\"), B: T.Buffer((32,), \"float32\")):\n"
                       "    S = T.alloc_buffer((32,), \"float32\", scope=\"shared\")\n"
                       "    for bx in T.thread_binding(1, thread=\"blockIdx.x\"):\n"
                       "        for k in range(4):\n"
                       "            for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                       "                with T.block(\"w\"):\n"
                       "                    S[tx] = A[k * 32 + tx]\n"
                       "            for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                       "                with T.block(\"r\"):\n"
                       "                    B[tx] = B[tx] + S[31 - tx]\n",
                   "default", EMIT_CUDA);
  ck_assert_int_eq(count(g.text, "__syncthreads();"), 2);
  HAS(g, "__syncthreads();\n  }\n}\n");
  done(&g);
}
END_TEST

START_TEST(cuda_barrier_in_narrow_launch) {
  /* threads 16..31 skip the narrower launch: no barrier can go there */
  gen g = generate(HDR "def n(A: T.Buffer((32,), \"float32\")):\n"
                       "    S = T.alloc_buffer((16,), \"float32\", scope=\"shared\")\n"
                       "    for bx in T.thread_binding(1, thread=\"blockIdx.x\"):\n"
                       "        for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                       "            with T.block(\"z\"):\n"
                       "                A[tx] = T.float32(0)\n"
                       "        for tx in T.thread_binding(16, thread=\"threadIdx.x\"):\n"
                       "            with T.block(\"w\"):\n"
                       "                S[tx] = A[tx]\n"
                       "            with T.block(\"r\"):\n"
                       "                A[tx] = S[15 - tx]\n",
                   "default", EMIT_CUDA);
  FAILS_WITH(g, "inside a threadIdx.x launch narrower than the kernel's");
  done(&g);
}
END_TEST

START_TEST(cuda_float4) {
  gen g = generate(vec_src, "default", EMIT_CUDA);
  HAS(g, "float4 v_X = *(const float4 *)(X + i * 4);");
  HAS(g, "v_Y.w = v_X.w + 1.0f;");
  HAS(g, "*(float4 *)(Y + i * 4) = v_Y;");
  done(&g);
}
END_TEST

START_TEST(cuda_unaligned_lanes) {
  /* base i*4 + 1 is not a multiple of 4: scalar stores, vector load kept */
  gen g = generate(HDR "def u(X: T.Buffer((16,), \"float32\"), Y: T.Buffer((16,), \"float32\")):\n"
                       "    for i in range(3):\n"
                       "        Y[T.Ramp(i * 4 + 1, 1, 4)] = X[T.Ramp(i * 4, 1, 4)]\n",
                   "default", EMIT_CUDA);
  LACKS(g, "*(float4 *)(Y");
  HAS(g, "Y[i * 4 + 1] = v_X.x;");
  HAS(g, "Y[i * 4 + 4] = v_X.w;");
  done(&g);
}
END_TEST

START_TEST(cuda_half) {
  gen g = generate(HDR "def h(A: T.Buffer((64,), \"float16\"), B: T.Buffer((64,), \"float32\")):\n"
                       "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                       "        A[T.Ramp(tx * 2, 1, 2)] = A[T.Ramp(tx * 2, 1, 2)] + T.Broadcast(T.float16(1), 2)\n"
                       "        B[tx] = T.Cast(\"float32\", T.exp(A[tx]))\n",
                   "default", EMIT_CUDA);
  HAS(g, "#include <cuda_fp16.h>\n");
  HAS(g, "half2 v_A = *(const half2 *)(A + tx * 2);");
  HAS(g, "v_A_1.x = v_A.x + (half)1.0f;");
  HAS(g, "B[tx] = (float)(half)expf((float)A[tx]);");
  HAS(g, "(half *__restrict__ A, float *__restrict__ B)");
  done(&g);
}
END_TEST

START_TEST(cuda_no_fp16_include_without_half) {
  gen g = generate(copy_src, "default", EMIT_CUDA);
  LACKS(g, "cuda_fp16.h");
  HAS(g, "__launch_bounds__(1)");
  done(&g);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("codegen");
  TCase *t = tcase_create("c");
  tcase_add_test(t, c_signature_and_loops);
  tcase_add_test(t, c_unlowered_blocks);
  tcase_add_test(t, c_unflattened);
  tcase_add_test(t, c_float16_error);
  tcase_add_test(t, c_symbolic_shape_param);
  tcase_add_test(t, c_helper_once);
  tcase_add_test(t, c_int_wrap);
  tcase_add_test(t, c_bad_symbol);
  tcase_add_test(t, c_assert_returns);
  tcase_add_test(t, c_vector_lanes);
  tcase_add_test(t, c_vector_self_read);
  suite_add_tcase(s, t);
  t = tcase_create("cuda");
  tcase_add_test(t, cuda_launch_bounds_and_grid);
  tcase_add_test(t, cuda_barrier_between_write_and_read);
  tcase_add_test(t, cuda_no_shared_no_barrier);
  tcase_add_test(t, cuda_loop_carried_barrier);
  tcase_add_test(t, cuda_barrier_in_narrow_launch);
  tcase_add_test(t, cuda_float4);
  tcase_add_test(t, cuda_unaligned_lanes);
  tcase_add_test(t, cuda_half);
  tcase_add_test(t, cuda_no_fp16_include_without_half);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tir_test_run_suite(suite()); }
