/* test_aot.c - the AOT description (tir/aot.h): SHA-256 against the FIPS
 * 180-4 vectors; the packed layout; the description of a symbolic kernel
 * and of a CUDA launch, field by field; the JSON and text forms. */
#include <stdio.h>

#include "testutil.h"

static tir_module *lowered(tir_ctx *c, const char *src, tir_diag *d) {
  tir_module *m = tir_parse(c, src, strlen(src), d);
  ck_assert_ptr_nonnull(m);
  tir_pipeline *p = tir_pipeline_parse("default", d);
  tir_pipeline_opts o = {.verify_each = true};
  m = tir_pipeline_run(p, c, m, &o, d);
  tir_pipeline_free(p);
  ck_assert_ptr_nonnull(m);
  return m;
}

START_TEST(sha256_vectors) {
  char h[65];
  tir_sha256_hex("", 0, h);
  ck_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  tir_sha256_hex("abc", 3, h);
  ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* 56 bytes: padding spills */
  tir_sha256_hex(two, strlen(two), h);
  ck_assert_str_eq(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

static const char *SYM =
    "@T.prim_func\n"
    "def f(a: T.handle, s: T.int8, x: T.float64):\n"
    "    m = T.int32()\n"
    "    n = T.int32()\n"
    "    A = T.match_buffer(a, (m, n), \"float32\")\n"
    "    for i, j in T.grid(m, n):\n"
    "        A[i, j] = A[i, j] * T.float32(2.0) + T.Cast(\"float32\", s) + T.Cast(\"float32\", x)\n";

START_TEST(symbolic_c) {
  tir_diag d;
  tir_diag_init(&d);
  tir_ctx *c = tir_ctx_new();
  tir_module *m = lowered(c, SYM, &d);
  tir_aot_module *a = tir_aot_build(m, TIR_AOT_TARGET_C, "x", 1, &d);
  ck_assert_ptr_nonnull(a);
  ck_assert_int_eq(a->nfuncs, 1);
  const tir_aot_func *f = &a->funcs[0];
  ck_assert_str_eq(f->packed_symbol, "f_packed");
  ck_assert_int_eq(f->nargs, 5); /* A, s, x, then the size vars m, n */
  /* layout: A@0 (8), s@8 (1), x@16 (8, aligned), m@24, n@28; block 32, align 8 */
  size_t off[5] = {0, 8, 16, 24, 28}, size[5] = {8, 1, 8, 4, 4};
  for (int i = 0; i < 5; i++) {
    ck_assert_uint_eq(f->args[i].offset, off[i]);
    ck_assert_uint_eq(f->args[i].size, size[i]);
  }
  ck_assert_uint_eq(f->args_bytes, 32);
  ck_assert_uint_eq(f->args_align, 8);
  ck_assert(f->args[0].is_buffer);
  ck_assert_int_eq(f->args[0].access, TIR_AOT_READ | TIR_AOT_WRITE);
  ck_assert_str_eq(f->args[0].shape[0].expr, "m");
  ck_assert_str_eq(f->args[0].strides[0].expr, "n");
  ck_assert_ptr_null(f->args[0].strides[1].expr);
  ck_assert_int_eq(f->args[0].strides[1].value, 1);
  ck_assert_str_eq(f->args[0].bytes.expr, "4 * m * n");
  ck_assert_str_eq(f->args[3].name, "m");
  ck_assert_int_eq(f->args[3].bound_arg, 0);
  ck_assert_str_eq(f->args[3].bound_field, "shape");
  ck_assert_int_eq(f->args[4].bound_dim, 1);
  ck_assert_int_eq(f->args[1].bound_arg, -1);
  char *json = tir_aot_to_json(a), *text = tir_aot_to_text(a);
  ck_assert_ptr_nonnull(strstr(json, "\"input_sha256\": \"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881\""));
  ck_assert_ptr_nonnull(strstr(json, "\"bytes\": \"4 * m * n\""));
  ck_assert_ptr_null(strstr(json, "\"kernels\""));
  ck_assert_ptr_nonnull(strstr(text, "packed_symbol: f_packed\n"));
  free(json);
  free(text);
  tir_aot_free(a);
  tir_ctx_free(c);
  tir_diag_free(&d);
}
END_TEST

static const char *LAUNCH =
    "@T.prim_func\n"
    "def g(A: T.Buffer((4096,), \"float32\"), B: T.Buffer((4096,), \"float32\")):\n"
    "    for bx in T.thread_binding(16, thread=\"blockIdx.x\"):\n"
    "        for tx in T.thread_binding(256, thread=\"threadIdx.x\"):\n"
    "            with T.sblock(\"c\"):\n"
    "                S = T.sblock_alloc_buffer((256,), scope=\"shared\")\n"
    "                S[tx] = A[bx * 256 + tx]\n"
    "                B[bx * 256 + tx] = S[255 - tx]\n";

START_TEST(cuda_launch) {
  tir_diag d;
  tir_diag_init(&d);
  tir_ctx *c = tir_ctx_new();
  tir_module *m = lowered(c, LAUNCH, &d);
  tir_aot_module *a = NULL;
  char *code = tir_codegen_cuda_aot(m, &a, &d);
  ck_assert_ptr_nonnull(code);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(strstr(code, "extern \"C\" __global__ void __launch_bounds__(256) g_kernel0("));
  ck_assert_ptr_nonnull(strstr(code, "extern \"C\" int g_packed(const void *args, void *workspace, cudaStream_t stream)"));
  const tir_aot_func *f = &a->funcs[0];
  ck_assert_int_eq(f->nkernels, 1);
  const tir_aot_kernel *k = &f->kernels[0];
  ck_assert_str_eq(k->name, "g_kernel0");
  ck_assert_int_eq(k->grid[0].value, 16);
  ck_assert_int_eq(k->block[0].value, 256);
  ck_assert_int_eq(k->grid[1].value, 1);
  ck_assert_int_eq(k->threads_per_block.value, 256);
  ck_assert_int_eq(k->total_threads.value, 4096);
  ck_assert_int_eq(k->shared_bytes, 1024);
  ck_assert_int_eq(k->nreads, 1);
  ck_assert_str_eq(k->reads[0], "A");
  ck_assert_int_eq(k->nwrites, 1);
  ck_assert_str_eq(k->writes[0], "B");
  ck_assert_int_eq(f->args[0].access, TIR_AOT_READ);
  ck_assert_int_eq(f->args[1].access, TIR_AOT_WRITE);
  ck_assert_uint_eq(f->workspace_align, 256);
  free(code);
  tir_aot_free(a);
  tir_ctx_free(c);
  tir_diag_free(&d);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("aot");
  TCase *t = tcase_create("aot");
  tcase_add_test(t, sha256_vectors);
  tcase_add_test(t, symbolic_c);
  tcase_add_test(t, cuda_launch);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tir_test_run_suite(suite()); }
