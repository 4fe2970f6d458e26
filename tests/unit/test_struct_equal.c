/* test_struct_equal.c - structural equality and hashing modulo var names. */
#include "testutil.h"

static tir_ctx *C;
static void setup(void) { C = tir_ctx_new(); }
static void teardown(void) { tir_ctx_free(C); }

static tir_expr *I(int64_t v) { return tir_i32(C, v); }
static tir_expr *B(tir_expr_kind k, tir_expr *a, tir_expr *b) { return tir_binary(C, k, a, b); }
static tir_expr *V(const char *n) { return tir_var(C, n, TIR_INT32); }

static void expect_eq(const tir_stmt *a, const tir_stmt *b, bool eq) {
  ck_assert_int_eq(tir_struct_equal_stmt(a, b), eq);
  if (eq) ck_assert_uint_eq(tir_struct_hash_stmt(a), tir_struct_hash_stmt(b));
}

/* for <v> in range(ext): A[v] = A[v] * k, with its own vars and buffer */
static tir_stmt *loop(const char *var, const char *buf, int64_t ext, double k, tir_dtype dt) {
  tir_expr *v = V(var);
  tir_expr *sh[] = {I(64)};
  tir_buffer *A = tir_buffer_new(C, buf, dt, sh, 1, NULL, 0, NULL, NULL, 0, 0, NULL);
  tir_expr *val = B(TIR_MUL, tir_load(C, A, &v, 1), tir_float(C, dt, k));
  return tir_for(C, v, I(0), I(ext), TIR_FOR_SERIAL, NULL, NULL, tir_store(C, A, val, &v, 1));
}

START_TEST(test_alpha_equivalence) {
  expect_eq(loop("i", "A", 8, 2.0, TIR_FLOAT32), loop("j", "B", 8, 2.0, TIR_FLOAT32), true);
  expect_eq(loop("i", "A", 8, 2.0, TIR_FLOAT32), loop("i", "A", 9, 2.0, TIR_FLOAT32), false);
  expect_eq(loop("i", "A", 8, 2.0, TIR_FLOAT32), loop("i", "A", 8, 2.5, TIR_FLOAT32), false);
  expect_eq(loop("i", "A", 8, 2.0, TIR_FLOAT32), loop("i", "A", 8, 2.0, TIR_FLOAT16), false);
  ck_assert_uint_ne(tir_struct_hash_stmt(loop("i", "A", 8, 2.0, TIR_FLOAT32)),
                    tir_struct_hash_stmt(loop("i", "A", 9, 2.0, TIR_FLOAT32)));
}
END_TEST

START_TEST(test_var_binding) {
  tir_expr *x = V("x"), *y = V("y"), *z = V("z");
  /* free vars map by first occurrence, one to one */
  ck_assert(tir_struct_equal_expr(B(TIR_ADD, x, y), B(TIR_ADD, y, x)));
  ck_assert(!tir_struct_equal_expr(B(TIR_ADD, x, y), B(TIR_ADD, z, z)));
  ck_assert(!tir_struct_equal_expr(B(TIR_ADD, x, x), B(TIR_ADD, y, z)));
  ck_assert(!tir_struct_equal_expr(x, tir_var(C, "x", TIR_INT64)));
  /* in one scope (tir_expr_identical) a free var is itself */
  ck_assert(!tir_expr_identical(B(TIR_ADD, x, y), B(TIR_ADD, y, x)));
  ck_assert(tir_expr_identical(B(TIR_ADD, x, y), B(TIR_ADD, x, y)));
  ck_assert(!tir_expr_identical(x, y));
  /* a let var is bound where defined: let x = 1 in x + y  vs  let z = 1 in z + y */
  tir_stmt *a = tir_let_stmt(C, x, I(1), tir_evaluate(C, B(TIR_ADD, x, y)));
  tir_stmt *b = tir_let_stmt(C, z, I(1), tir_evaluate(C, B(TIR_ADD, z, y)));
  tir_stmt *c = tir_let_stmt(C, z, I(1), tir_evaluate(C, B(TIR_ADD, y, z)));
  expect_eq(a, b, true);
  expect_eq(a, c, false);
  /* the same var defined by two loops in a row vs two distinct vars */
  tir_expr *i = V("i"), *j = V("j");
  tir_stmt *s1[] = {tir_for(C, i, I(0), I(4), TIR_FOR_SERIAL, NULL, NULL, tir_evaluate(C, i)),
                    tir_for(C, j, I(0), I(4), TIR_FOR_SERIAL, NULL, NULL, tir_evaluate(C, i))};
  tir_expr *k = V("k"), *l = V("l");
  tir_stmt *s2[] = {tir_for(C, k, I(0), I(4), TIR_FOR_SERIAL, NULL, NULL, tir_evaluate(C, k)),
                    tir_for(C, l, I(0), I(4), TIR_FOR_SERIAL, NULL, NULL, tir_evaluate(C, l))};
  expect_eq(tir_seq(C, s1, 2), tir_seq(C, s2, 2), false);
}
END_TEST

START_TEST(test_immediates) {
  ck_assert(tir_struct_equal_expr(tir_float(C, TIR_FLOAT32, 0.0), tir_float(C, TIR_FLOAT32, -0.0)));
  ck_assert(!tir_struct_equal_expr(I(1), tir_int(C, TIR_INT64, 1)));
  ck_assert(!tir_struct_equal_expr(I(1), tir_bool(C, true)));
  ck_assert(tir_struct_equal_expr(tir_string(C, "abcdefghij"), tir_string(C, "abcdefghij")));
  ck_assert(!tir_struct_equal_expr(tir_string(C, "abcdefghij"), tir_string(C, "abcdefghik")));
  tir_expr *a1[] = {I(1)}, *a2[] = {I(1)};
  ck_assert(tir_struct_equal_expr(tir_call(C, TIR_FLOAT32, "exp", a1, 1), tir_call(C, TIR_FLOAT32, "exp", a2, 1)));
  ck_assert(!tir_struct_equal_expr(tir_call(C, TIR_FLOAT32, "exp", a1, 1), tir_call(C, TIR_FLOAT32, "log", a2, 1)));
}
END_TEST

static tir_func *func(const char *pname, int64_t shape0, const char *scope, bool noalias) {
  tir_expr *sh[] = {I(shape0)};
  tir_buffer *A = tir_buffer_new(C, pname, TIR_INT8, sh, 1, NULL, 0, NULL, NULL, 0, 0, NULL);
  tir_buffer *S = tir_buffer_new(C, "S", TIR_INT8, sh, 1, NULL, 0, NULL, scope, 0, 0, NULL);
  tir_expr *z = I(0);
  tir_stmt *copy = tir_store(C, S, tir_load(C, A, &z, 1), &z, 1);
  tir_block *root = tir_block_new(C, "root");
  root->n_alloc = 1;
  root->alloc_buffers = tir_alloc(C, sizeof(tir_buffer *));
  root->alloc_buffers[0] = S;
  root->body = copy;
  tir_func *f = tir_alloc(C, sizeof *f);
  f->name = "f";
  f->nparams = 1;
  f->params = tir_alloc(C, sizeof(tir_expr *));
  f->params[0] = tir_var(C, pname, TIR_HANDLE);
  f->buffer_map = tir_alloc(C, sizeof(tir_buffer *));
  f->buffer_map[0] = A;
  const char *keys[] = {"tir.noalias", "global_symbol"};
  tir_attr_val *vals[] = {tir_av_expr(C, tir_bool(C, noalias)), tir_av_expr(C, tir_string(C, "f"))};
  f->attrs = tir_av_dict(C, keys, vals, 2);
  f->body = tir_block_realize(C, NULL, 0, NULL, root);
  return f;
}

/* a block with no realize (TVM's bare SBlock) is another node than a
 * realized block of no iter vars: never equal, as in TVM */
START_TEST(test_no_realize) {
  tir_block *a = tir_block_new(C, "b"), *b = tir_block_new(C, "b");
  a->body = b->body = loop("i", "A", 8, 2.0, TIR_FLOAT32);
  a->regions_known = b->regions_known = true;
  tir_stmt *ra = tir_block_realize(C, NULL, 0, NULL, a), *rb = tir_block_realize(C, NULL, 0, NULL, b);
  expect_eq(ra, rb, true);
  b->no_realize = true;
  expect_eq(ra, rb, false);
  a->no_realize = true;
  expect_eq(ra, rb, true);
}
END_TEST

START_TEST(test_funcs) {
  tir_func *a = func("A", 16, "shared", true), *b = func("X", 16, "shared", true);
  ck_assert(tir_struct_equal_func(a, b));
  ck_assert_uint_eq(tir_struct_hash_func(a), tir_struct_hash_func(b));
  ck_assert(!tir_struct_equal_func(a, func("A", 32, "shared", true)));
  ck_assert(!tir_struct_equal_func(a, func("A", 16, "local", true)));
  ck_assert(!tir_struct_equal_func(a, func("A", 16, "shared", false)));
  /* attrs compare as a dict: key order does not matter */
  tir_func *c = tir_func_copy(C, b);
  const char *keys[] = {"global_symbol", "tir.noalias"};
  tir_attr_val *vals[] = {tir_av_expr(C, tir_string(C, "f")), tir_av_expr(C, tir_bool(C, true))};
  c->attrs = tir_av_dict(C, keys, vals, 2);
  ck_assert(tir_struct_equal_func(a, c));
}
END_TEST

int main(void) {
  Suite *s = suite_create("struct_equal");
  TCase *tc = tcase_create("struct_equal");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_alpha_equivalence);
  tcase_add_test(tc, test_var_binding);
  tcase_add_test(tc, test_immediates);
  tcase_add_test(tc, test_funcs);
  tcase_add_test(tc, test_no_realize);
  suite_add_tcase(s, tc);
  return tir_test_run_suite(s);
}
