/* test_analyzer_pass.c - the Simplify pass: each case is a function body
 * (under one fixed signature), run through tir_pass_simplify and printed;
 * the printed body must be the expected one, and simplifying it again must
 * change nothing.  The cases cover what the pass tells the analyzer (loop and
 * thread ranges, Let value bounds, branch conditions and their negation,
 * block iter domains and T.where predicates, non-negative shape vars), that
 * facts stay in their scope, and where exprs are simplified (store values
 * and indices, loop bounds, conditions, block iter values, domains and
 * regions). */
#include <stdio.h>

#include "testutil.h"

static const char HEAD[] =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def f(A: T.Buffer((64,), \"int32\"), B: T.Buffer((64,), \"int32\"), n: T.int32, m: T.int32,\n"
    "      C: T.Buffer((m,), \"int32\")):\n";

static const struct { const char *name, *body, *want; } CASES[] = {
    {"index fusion",
        "    for i, j in T.grid(8, 8):\n"
        "        B[(i * 8 + j) // 8 * 8 + (i * 8 + j) % 8] = A[i * 8 + j + 0]\n",
        "    for i, j in T.grid(8, 8):\n"
        "        B[i * 8 + j] = A[i * 8 + j]\n"},
    {"if decided true",
        "    for i in range(8):\n"
        "        if i < 8:\n"
        "            B[i] = 1\n"
        "        else:\n"
        "            B[i] = 2\n",
        "    for i in range(8):\n"
        "        B[i] = 1\n"},
    {"if decided false, else taken",
        "    for i in range(8):\n"
        "        if i >= 8:\n"
        "            B[i] = 1\n"
        "        else:\n"
        "            B[i] = 2\n",
        "    for i in range(8):\n"
        "        B[i] = 2\n"},
    {"if decided false, no else",
        "    for i in range(8):\n"
        "        if i > 9:\n"
        "            B[i] = 1\n",
        "    for i in range(8):\n"
        "        T.evaluate(0)\n"},
    {"then branch knows its condition",
        "    for i in range(8):\n"
        "        if i < 4:\n"
        "            B[i] = T.min(i, 5)\n",
        "    for i in range(8):\n"
        "        if i < 4:\n"
        "            B[i] = i\n"},
    {"else branch knows the negation",
        "    for i in range(8):\n"
        "        if i < 4:\n"
        "            B[i] = 0\n"
        "        else:\n"
        "            B[i] = T.max(i, 3)\n",
        "    for i in range(8):\n"
        "        if i < 4:\n"
        "            B[i] = 0\n"
        "        else:\n"
        "            B[i] = i\n"},
    {"a condition does not leak past its if",
        "    for i in range(8):\n"
        "        if i < 4:\n"
        "            B[i] = 0\n"
        "        B[i] = T.min(i, 4)\n",
        "    for i in range(8):\n"
        "        if i < 4:\n"
        "            B[i] = 0\n"
        "        B[i] = T.min(i, 4)\n"},
    {"let var keeps its name, gets its range",
        "    for i in range(8):\n"
        "        x: T.int32 = i % 4\n"
        "        B[x] = T.min(x, 10)\n",
        "    for i in range(8):\n"
        "        x: T.int32 = i % 4\n"
        "        B[x] = x\n"},
    {"thread binding range",
        "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
        "        B[tx] = tx // 32\n",
        "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
        "        B[tx] = 0\n"},
    {"loop bounds",
        "    for i in range(4 + 4):\n"
        "        B[i + 0] = 0\n",
        "    for i in range(8):\n"
        "        B[i] = 0\n"},
    {"store value",
        "    for i in range(8):\n"
        "        B[i] = A[i] + n * 0\n",
        "    for i in range(8):\n"
        "        B[i] = A[i]\n"},
    {"divisions decided by ranges",
        "    for i, j in T.grid(8, 8):\n"
        "        B[(i * 8 + j) // 64 + (i * 8 + j) % 8] = 0\n",
        "    for i, j in T.grid(8, 8):\n"
        "        B[j] = 0\n"},
    {"min decided by ranges",
        "    for i, j in T.grid(8, 8):\n"
        "        B[T.min(i * 8 + j, 63)] = 0\n",
        "    for i, j in T.grid(8, 8):\n"
        "        B[i * 8 + j] = 0\n"},
    {"nested conditions combine",
        "    for i, j in T.grid(8, 8):\n"
        "        if i < 4:\n"
        "            if j < 4:\n"
        "                B[i * 8 + j] = T.min(i + j, 7)\n",
        "    for i, j in T.grid(8, 8):\n"
        "        if i < 4:\n"
        "            if j < 4:\n"
        "                B[i * 8 + j] = i + j\n"},
    {"the condition itself",
        "    for i in range(8):\n"
        "        if i * 2 < 6:\n"
        "            B[i] = 0\n",
        "    for i in range(8):\n"
        "        if i < 3:\n"
        "            B[i] = 0\n"},
    {"else negation decides an inner if",
        "    for i in range(8):\n"
        "        if i >= 4:\n"
        "            B[i] = 0\n"
        "        else:\n"
        "            if i < 4:\n"
        "                B[i] = 1\n",
        "    for i in range(8):\n"
        "        if 4 <= i:\n"
        "            B[i] = 0\n"
        "        else:\n"
        "            B[i] = 1\n"},
    {"block predicate is a fact in the block",
        "    for i, j in T.grid(8, 8):\n"
        "        with T.block(\"b\"):\n"
        "            vi = T.axis.spatial(64, i * 8 + j)\n"
        "            T.where(i * 8 + j < 60)\n"
        "            T.reads(A[vi])\n"
        "            T.writes(B[vi])\n"
        "            if vi < 60:\n"
        "                B[vi] = A[vi]\n",
        "    for i, j in T.grid(8, 8):\n"
        "        with T.block(\"b\"):\n"
        "            vi = T.axis.spatial(64, i * 8 + j)\n"
        "            T.where(i * 8 + j < 60)\n"
        "            T.reads(A[vi])\n"
        "            T.writes(B[vi])\n"
        "            B[vi] = A[vi]\n"},
    {"block predicate does not leak to a sibling",
        "    for i, j in T.grid(8, 8):\n"
        "        with T.block(\"b\"):\n"
        "            vi = T.axis.spatial(64, i * 8 + j)\n"
        "            T.where(i * 8 + j < 60)\n"
        "            T.reads()\n"
        "            T.writes(B[vi])\n"
        "            B[vi] = 0\n"
        "        with T.block(\"c\"):\n"
        "            vj = T.axis.spatial(64, i * 8 + j)\n"
        "            T.reads()\n"
        "            T.writes(B[vj])\n"
        "            if vj < 60:\n"
        "                B[vj] = 1\n",
        "    for i, j in T.grid(8, 8):\n"
        "        with T.block(\"b\"):\n"
        "            vi = T.axis.spatial(64, i * 8 + j)\n"
        "            T.where(i * 8 + j < 60)\n"
        "            T.reads()\n"
        "            T.writes(B[vi])\n"
        "            B[vi] = 0\n"
        "        with T.block(\"c\"):\n"
        "            vj = T.axis.spatial(64, i * 8 + j)\n"
        "            T.reads()\n"
        "            T.writes(B[vj])\n"
        "            if vj < 60:\n"
        "                B[vj] = 1\n"},
    {"block iter values, domains and regions",
        "    for i, j in T.grid(8, 8):\n"
        "        with T.block(\"b\"):\n"
        "            vi = T.axis.spatial(32 + 32, i * 8 + j + 0)\n"
        "            T.reads(A[vi * 2 // 2])\n"
        "            T.writes(B[vi:vi + 1 - 0])\n"
        "            B[vi] = A[vi]\n",
        "    for i, j in T.grid(8, 8):\n"
        "        with T.block(\"b\"):\n"
        "            vi = T.axis.spatial(64, i * 8 + j)\n"
        "            T.reads(A[vi])\n"
        "            T.writes(B[vi])\n"
        "            B[vi] = A[vi]\n"},
    {"block iter domain bounds the body",
        "    for i, j in T.grid(8, 8):\n"
        "        with T.block(\"b\"):\n"
        "            vi = T.axis.spatial(64, i * 8 + j)\n"
        "            T.reads()\n"
        "            T.writes(B[vi])\n"
        "            B[vi] = vi // 64 + T.min(vi, 100)\n",
        "    for i, j in T.grid(8, 8):\n"
        "        with T.block(\"b\"):\n"
        "            vi = T.axis.spatial(64, i * 8 + j)\n"
        "            T.reads()\n"
        "            T.writes(B[vi])\n"
        "            B[vi] = vi\n"},
    {"shape vars are non-negative",
        "    for i in range(8):\n"
        "        if m >= 0:\n"
        "            B[i] = m\n",
        "    for i in range(8):\n"
        "        B[i] = m\n"},
    {"a symbolic var is kept",
        "    for i in range(8):\n"
        "        if i < n:\n"
        "            B[i] = T.min(i, n)\n",
        "    for i in range(8):\n"
        "        if i < n:\n"
        "            B[i] = i\n"},
    {"while condition and evaluate",
        "    for i in range(8):\n"
        "        while i * 2 < 4 + 4:\n"
        "            T.evaluate(i * 0 + 1)\n",
        "    for i in range(8):\n"
        "        while i < 4:\n"
        "            T.evaluate(1)\n"},
    {"select decided",
        "    for i in range(8):\n"
        "        B[i] = T.Select(i < 8, A[i], 0)\n",
        "    for i in range(8):\n"
        "        B[i] = A[i]\n"},
    {"if_then_else decided",
        "    for i in range(8):\n"
        "        B[i] = T.if_then_else(i >= 8, 0, A[i // 1])\n",
        "    for i in range(8):\n"
        "        B[i] = A[i]\n"},
    {"deep sum folds",
        "    for i in range(8):\n"
        "        B[i] = i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i + i - i * 39\n",
        "    for i in range(8):\n"
        "        B[i] = i\n"},
};

#define N(a) ((int)(sizeof a / sizeof a[0]))

/* the printed body of f: the lines after the def line (and the root block
 * comment); malloc'd */
static char *body_of(const tir_func *f) {
  tir_print_opts o = {.dialect = TIR_DIALECT_TIR, .no_import = true};
  char *text = tir_print_func(f, &o);
  ck_assert_ptr_nonnull(text);
  const char *p = strstr(text, "\ndef f(");
  ck_assert_ptr_nonnull(p);
  p = strstr(p + 1, ":\n");
  ck_assert_ptr_nonnull(p);
  p += 2;
  while (*p == ' ' && !strncmp(p + strspn(p, " "), "C = T.match_buffer", 18)) p = strchr(p, '\n') + 1;
  const char *root = "    # with T.block(\"root\"):\n";
  if (!strncmp(p, root, strlen(root))) p += strlen(root);
  char *r = strdup(p);
  free(text);
  return r;
}

static tir_func *parse(tir_ctx *c, const char *body) {
  size_t n = strlen(HEAD) + strlen(body) + 1;
  char *src = malloc(n);
  snprintf(src, n, "%s%s", HEAD, body);
  tir_diag d;
  tir_diag_init(&d);
  tir_module *m = tir_parse(c, src, strlen(src), &d);
  ck_assert_msg(m != NULL, "%s: does not parse", src);
  ck_assert_int_eq(d.n, 0);
  tir_diag_free(&d);
  free(src);
  return m->funcs[0];
}

START_TEST(pass_case) {
  tir_ctx *c = tir_ctx_new();
  tir_diag d;
  tir_diag_init(&d);
  tir_func *f = parse(c, CASES[_i].body);
  tir_func *g = tir_pass_simplify(c, f, &d);
  ck_assert_ptr_nonnull(g);
  ck_assert_int_eq(d.n, 0);
  char *got = body_of(g);
  ck_assert_msg(!strcmp(got, CASES[_i].want), "%s:\n--- got\n%s--- want\n%s", CASES[_i].name, got, CASES[_i].want);
  tir_func *h = tir_pass_simplify(c, g, &d); /* a fixed point */
  char *again = body_of(h);
  ck_assert_msg(!strcmp(again, got), "%s: not idempotent:\n%s", CASES[_i].name, again);
  free(got);
  free(again);
  tir_diag_free(&d);
  tir_ctx_free(c);
}
END_TEST

/* untouched statements are shared, not copied */
START_TEST(pass_shares_untouched) {
  tir_ctx *c = tir_ctx_new();
  tir_diag d;
  tir_diag_init(&d);
  tir_func *f = parse(c, "    for i in range(8):\n        B[i] = A[i]\n");
  tir_func *g = tir_pass_simplify(c, f, &d);
  ck_assert_ptr_eq(g->body, f->body);
  tir_diag_free(&d);
  tir_ctx_free(c);
}
END_TEST

/* a long chain (depth 4000) is simplified once at its root: linear work */
START_TEST(pass_deep_expr) {
  tir_ctx *c = tir_ctx_new();
  tir_diag d;
  tir_diag_init(&d);
  tir_func *f = parse(c, "    for i in range(8):\n        B[i] = i\n");
  tir_stmt *loop = f->body;
  while (loop->kind != TIR_FOR) loop = loop->u.decl.body;
  tir_expr *i = loop->u.loop.var, *e = i;
  for (int k = 0; k < 4000; k++) e = tir_binary(c, k % 2 ? TIR_SUB : TIR_ADD, e, tir_i32(c, 1));
  tir_stmt *st = loop->u.loop.body;
  tir_stmt *st2 = tir_store(c, st->u.store.buf, e, st->u.store.idx, st->u.store.nidx);
  tir_func *f2 = tir_func_copy(c, f);
  f2->body = tir_for(c, i, loop->u.loop.min, loop->u.loop.extent, TIR_FOR_SERIAL, NULL, NULL, st2);
  tir_func *g = tir_pass_simplify(c, f2, &d);
  ck_assert_ptr_nonnull(g);
  ck_assert_int_eq(g->body->kind, TIR_FOR);
  char *s = tir_print_expr(g->body->u.loop.body->u.store.value);
  ck_assert_str_eq(s, "i");
  free(s);
  tir_diag_free(&d);
  tir_ctx_free(c);
}
END_TEST

int main(void) {
  Suite *s = suite_create("analyzer_pass");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 60);
  tcase_add_loop_test(t, pass_case, 0, N(CASES));
  tcase_add_test(t, pass_shares_untouched);
  tcase_add_test(t, pass_deep_expr);
  suite_add_tcase(s, t);
  return tir_test_run_suite(s);
}
