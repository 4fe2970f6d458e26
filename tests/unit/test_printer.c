/* test_printer.c - the TVMScript printer, on IR built with the
 * constructors of ir.h: exact text. */
#include "testutil.h"

static tir_ctx *C;

static tir_expr *I(int64_t v) { return tir_i32(C, v); }
static tir_expr *B(tir_expr_kind k, tir_expr *a, tir_expr *b) { return tir_binary(C, k, a, b); }
static tir_expr *V(const char *n) { return tir_var(C, n, TIR_INT32); }

static void expect_expr(const tir_expr *e, const char *want) {
  char *s = tir_print_expr(e);
  ck_assert_str_eq(s, want);
  free(s);
}

static void setup(void) { C = tir_ctx_new(); }
static void teardown(void) { tir_ctx_free(C); }

START_TEST(test_precedence) {
  tir_expr *a = V("a"), *b = V("b"), *c = V("c");
  expect_expr(B(TIR_ADD, B(TIR_MUL, a, I(2)), b), "a * 2 + b");
  expect_expr(B(TIR_MUL, B(TIR_ADD, a, b), c), "(a + b) * c");
  expect_expr(B(TIR_SUB, a, B(TIR_SUB, b, c)), "a - (b - c)");
  expect_expr(B(TIR_SUB, B(TIR_SUB, a, b), c), "a - b - c");
  expect_expr(B(TIR_MUL, a, B(TIR_MUL, b, c)), "a * (b * c)");
  expect_expr(B(TIR_FLOORMOD, B(TIR_FLOORDIV, a, I(4)), I(3)), "a // 4 % 3");
  expect_expr(B(TIR_DIV, a, I(2)), "T.truncdiv(a, 2)");
  expect_expr(B(TIR_MOD, a, I(2)), "T.truncmod(a, 2)");
  expect_expr(B(TIR_MAX, a, B(TIR_MIN, b, c)), "T.max(a, T.min(b, c))");
  expect_expr(B(TIR_MUL, a, I(-1)), "a * -1");
  expect_expr(tir_not(C, B(TIR_LT, a, b)), "not a < b");
  expect_expr(tir_not(C, B(TIR_AND, B(TIR_LT, a, b), B(TIR_LT, b, c))), "not (a < b and b < c)");
  expect_expr(B(TIR_AND, B(TIR_EQ, a, I(0)), B(TIR_OR, B(TIR_LT, b, I(2)), B(TIR_GT, c, I(1)))),
              "a == 0 and (b < 2 or c > 1)");
  expect_expr(B(TIR_EQ, B(TIR_LT, a, b), tir_bool(C, true)), "(a < b) == T.bool(True)");
}
END_TEST

START_TEST(test_literals) {
  expect_expr(tir_int(C, TIR_INT8, 0), "T.int8(0)");
  expect_expr(tir_int(C, TIR_INT64, 5), "T.int64(5)");
  expect_expr(tir_int(C, TIR_UINT8, 7), "T.uint8(7)");
  expect_expr(I(-3), "-3");
  expect_expr(tir_float(C, TIR_FLOAT32, 2.0), "T.float32(2.0)");
  expect_expr(tir_float(C, TIR_FLOAT32, 0.5), "T.float32(0.5)");
  expect_expr(tir_float(C, TIR_FLOAT32, 1e-9), "T.float32(1.0000000000000001e-09)");
  expect_expr(tir_float(C, TIR_FLOAT16, -1.5), "T.float16(-1.5)");
  expect_expr(tir_float(C, TIR_FLOAT32, 1.0 / 0.0), "T.float32(\"inf\")");
  expect_expr(tir_string(C, "a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
  expect_expr(tir_cast(C, TIR_INT64, V("x")), "T.Cast(\"int64\", x)");
  expect_expr(tir_select(C, B(TIR_LT, V("x"), I(1)), I(1), I(2)), "T.Select(x < 1, 1, 2)");
  expect_expr(tir_ramp(C, I(0), I(1), 4), "T.Ramp(0, 1, 4)");
  expect_expr(tir_broadcast(C, tir_float(C, TIR_FLOAT32, 0), 4), "T.Broadcast(T.float32(0.0), 4)");
}
END_TEST

START_TEST(test_calls) {
  tir_expr *x = tir_var(C, "x", TIR_FLOAT32);
  expect_expr(tir_call(C, TIR_FLOAT32, "exp", &x, 1), "T.exp(x)");
  tir_expr *args[] = {tir_string(C, "f"), x, I(1)};
  expect_expr(tir_call(C, TIR_FLOAT32, "call_extern", args, 3), "T.call_extern(\"float32\", \"f\", x, 1)");
  tir_expr *sh[] = {I(16)};
  tir_buffer *A = tir_buffer_new(C, "A", TIR_INT8, sh, 1, NULL, 0, NULL, NULL, 0, 0, NULL);
  tir_expr *ptr[] = {tir_call(C, TIR_INT8, "type_annotation", NULL, 0), A->data, I(0), I(16), I(1)};
  /* a lone expr prints a buffer's data var by its own name */
  expect_expr(tir_call(C, TIR_HANDLE, "tvm_access_ptr", ptr, 5),
              "T.tvm_access_ptr(T.type_annotation(\"int8\"), A, 0, 16, 1)");
  tir_expr *i = V("i");
  expect_expr(tir_load(C, A, &i, 1), "A[i]");
}
END_TEST

/* a function of one float32 (4,) buffer A around body */
static tir_func *func_of(tir_buffer *A, tir_stmt *body) {
  tir_func *f = tir_alloc(C, sizeof *f);
  f->name = "f";
  f->nparams = 1;
  f->params = tir_alloc(C, sizeof(tir_expr *));
  f->params[0] = tir_var(C, "a", TIR_HANDLE);
  f->buffer_map = tir_alloc(C, sizeof(tir_buffer *));
  f->buffer_map[0] = A;
  f->body = body;
  return f;
}

static void expect_func(const tir_func *f, tir_dialect d, const char *body) {
  tir_print_opts o = {.dialect = d, .no_import = true};
  char *s = tir_print_func(f, &o);
  const char *def = strstr(s, "):\n"); /* past the def line */
  ck_assert_ptr_nonnull(def);
  ck_assert_str_eq(def + 3, body);
  free(s);
}

START_TEST(test_scalars_and_vthread) {
  tir_expr *sh[] = {I(4)}, *one[] = {I(1)}, *zero = I(0), *one_i = I(1);
  tir_buffer *A = tir_buffer_new(C, "A", TIR_FLOAT32, sh, 1, NULL, 0, NULL, NULL, 0, 0, NULL);
  tir_buffer *x = tir_buffer_new(C, "x", TIR_FLOAT32, one, 1, NULL, 0, NULL, "local", 0, 0, NULL);
  x->scalar = true;
  tir_expr *ax = tir_load(C, x, &zero, 1);
  tir_stmt *seq[] = {tir_store(C, x, tir_load(C, A, &one_i, 1), &zero, 1),
                     tir_store(C, x, B(TIR_ADD, ax, ax), &zero, 1), tir_store(C, A, ax, &zero, 1)};
  tir_func *f = func_of(A, tir_alloc_buffer_stmt(C, x, tir_seq(C, seq, 3)));
  expect_func(f, TIR_DIALECT_TIRX, "    x: T.float32 = A[1]\n    x = x + x\n    A[0] = x\n");
  /* the old dialect has no local scalar: a (1,) buffer allocated by decl_buffer */
  expect_func(f, TIR_DIALECT_TIR,
              "    x = T.decl_buffer((1,), scope=\"local\")\n    x[0] = A[1]\n    x[0] = x[0] + x[0]\n    A[0] = x[0]\n");
  /* a declaration alone */
  f = func_of(A, tir_alloc_buffer_stmt(C, x, seq[2]));
  expect_func(f, TIR_DIALECT_TIRX, "    x: T.float32\n    A[0] = x\n");
  /* a LetStmt: T.let[...]; a pointer: T.let; old dialect: x: T.int32 */
  tir_expr *n = V("n"), *p = tir_var(C, "p", TIR_HANDLE);
  tir_stmt *ev = tir_evaluate(C, p);
  tir_stmt *ls = tir_let_stmt(C, n, I(3), tir_let_stmt(C, p, A->data, ev));
  f = func_of(A, ls);
  expect_func(f, TIR_DIALECT_TIRX, "    n: T.let[T.int32] = 3\n    p: T.let = A.data\n    T.evaluate(p)\n");
  expect_func(f, TIR_DIALECT_TIR, "    n: T.int32 = 3\n    p: T.handle = A.data\n    T.evaluate(p)\n");
  /* virtual_thread: T.launch_thread("vthread", ...) */
  tir_expr *v = V("v");
  tir_stmt *vt = tir_attr_stmt(C, "virtual_thread", v, I(2), tir_store(C, A, tir_float(C, TIR_FLOAT32, 0), &v, 1));
  f = func_of(A, vt);
  expect_func(f, TIR_DIALECT_TIRX, "    v = T.launch_thread(\"vthread\", 2)\n    A[v] = T.float32(0.0)\n");
}
END_TEST

/* chain.tir's first and fourth stages: root block allocation, T.grid,
 * T.axis.remap, T.init, reads/writes */
static tir_func *chain_func(void) {
  tir_expr *sh2[] = {I(1024), I(1024)}, *sh1[] = {I(1024)};
  tir_buffer *x = tir_buffer_new(C, "x", TIR_FLOAT32, sh2, 2, NULL, 0, NULL, NULL, 0, 0, NULL);
  tir_buffer *a = tir_buffer_new(C, "a", TIR_FLOAT32, sh2, 2, NULL, 0, NULL, NULL, 0, 0, NULL);
  tir_buffer *d = tir_buffer_new(C, "d", TIR_FLOAT32, sh1, 1, NULL, 0, NULL, NULL, 0, 0, NULL);
  /* scale */
  tir_expr *i = V("i"), *j = V("j"), *vi = V("vi"), *vj = V("vj");
  tir_expr *ij[] = {vi, vj};
  tir_stmt *st = tir_store(C, a, B(TIR_MUL, tir_load(C, x, ij, 2), tir_float(C, TIR_FLOAT32, 2)), ij, 2);
  tir_block *bl = tir_block_new(C, "scale");
  bl->n_iter = 2;
  bl->iter_vars = tir_alloc(C, sizeof(tir_iter_var) * 2);
  bl->iter_vars[0] = (tir_iter_var){vi, {I(0), I(1024)}, TIR_ITER_SPATIAL, TIR_DOM_MADE};
  bl->iter_vars[1] = (tir_iter_var){vj, {I(0), I(1024)}, TIR_ITER_SPATIAL, TIR_DOM_MADE};
  tir_range *pt = tir_alloc(C, sizeof(tir_range) * 2);
  pt[0] = (tir_range){vi, I(1)};
  pt[1] = (tir_range){vj, I(1)};
  bl->n_reads = bl->n_writes = 1;
  bl->reads = tir_alloc(C, sizeof(tir_buffer_region));
  bl->reads[0] = (tir_buffer_region){x, pt, 2, {0, 0}};
  bl->writes = tir_alloc(C, sizeof(tir_buffer_region));
  bl->writes[0] = (tir_buffer_region){a, pt, 2, {0, 0}};
  bl->body = st;
  tir_expr *vals[] = {i, j};
  tir_stmt *s1 = tir_for(C, i, I(0), I(1024), TIR_FOR_SERIAL, NULL, NULL,
                         tir_for(C, j, I(0), I(1024), TIR_FOR_SERIAL, NULL, NULL,
                                 tir_block_realize(C, vals, 2, NULL, bl)));
  /* rowsum, with loop vars named like the first nest's */
  tir_expr *i2 = V("i"), *k = V("k"), *vi2 = V("vi"), *vk = V("vk");
  tir_expr *ik[] = {vi2, vk};
  tir_block *rb = tir_block_new(C, "rowsum");
  rb->n_iter = 2;
  rb->iter_vars = tir_alloc(C, sizeof(tir_iter_var) * 2);
  rb->iter_vars[0] = (tir_iter_var){vi2, {I(0), I(1024)}, TIR_ITER_SPATIAL, TIR_DOM_MADE};
  rb->iter_vars[1] = (tir_iter_var){vk, {I(0), I(1024)}, TIR_ITER_REDUCE, TIR_DOM_MADE};
  tir_range *rr = tir_alloc(C, sizeof(tir_range) * 2);
  rr[0] = (tir_range){vi2, I(1)};
  rr[1] = (tir_range){I(0), I(1024)};
  rb->n_reads = rb->n_writes = 1;
  rb->reads = tir_alloc(C, sizeof(tir_buffer_region));
  rb->reads[0] = (tir_buffer_region){a, rr, 2, {0, 0}};
  rb->writes = tir_alloc(C, sizeof(tir_buffer_region));
  rb->writes[0] = (tir_buffer_region){d, rr, 1, {0, 0}};
  rb->init = tir_store(C, d, tir_float(C, TIR_FLOAT32, 0), &vi2, 1);
  rb->body = tir_store(C, d, B(TIR_ADD, tir_load(C, d, &vi2, 1), tir_load(C, a, ik, 2)), &vi2, 1);
  tir_expr *vals2[] = {i2, k};
  tir_stmt *s2 = tir_for(C, i2, I(0), I(1024), TIR_FOR_SERIAL, NULL, NULL,
                         tir_for(C, k, I(0), I(1024), TIR_FOR_SERIAL, NULL, NULL,
                                 tir_block_realize(C, vals2, 2, NULL, rb)));
  tir_stmt *seq[] = {s1, s2};
  tir_block *root = tir_block_new(C, "root");
  root->n_alloc = 2;
  root->alloc_buffers = tir_alloc(C, sizeof(tir_buffer *) * 2);
  root->alloc_buffers[0] = a;
  root->alloc_buffers[1] = d;
  root->body = tir_seq(C, seq, 2);
  tir_func *f = tir_alloc(C, sizeof *f);
  f->name = "chain";
  f->nparams = 1;
  f->params = tir_alloc(C, sizeof(tir_expr *));
  f->params[0] = tir_var(C, "x", TIR_HANDLE);
  f->buffer_map = tir_alloc(C, sizeof(tir_buffer *));
  f->buffer_map[0] = x;
  const char *keys[] = {"global_symbol", "tir.noalias"};
  tir_attr_val *vs[] = {tir_av_expr(C, tir_string(C, "chain")), tir_av_expr(C, tir_bool(C, true))};
  f->attrs = tir_av_dict(C, keys, vs, 2);
  f->body = tir_block_realize(C, NULL, 0, NULL, root);
  f->s_tir = true;
  return f;
}

static const char *chain_text =
    "# from tvm.script import tirx as T\n"
    "\n"
    "@T.prim_func(s_tir=True)\n"
    "def chain(x: T.Buffer((1024, 1024), \"float32\")):\n"
    "    T.func_attr({\"tir.noalias\": True})\n"
    "    # with T.sblock(\"root\"):\n"
    "    a = T.sblock_alloc_buffer((1024, 1024))\n"
    "    d = T.sblock_alloc_buffer((1024,))\n"
    "    for i, j in T.grid(1024, 1024):\n"
    "        with T.sblock(\"scale\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            T.reads(x[vi, vj])\n"
    "            T.writes(a[vi, vj])\n"
    "            a[vi, vj] = x[vi, vj] * T.float32(2.0)\n"
    "    for i, k in T.grid(1024, 1024):\n"
    "        with T.sblock(\"rowsum\"):\n"
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "            T.reads(a[vi, 0:1024])\n"
    "            T.writes(d[vi])\n"
    "            with T.init():\n"
    "                d[vi] = T.float32(0.0)\n"
    "            d[vi] = d[vi] + a[vi, vk]\n";

START_TEST(test_chain_func) {
  tir_func *f = chain_func();
  char *s = tir_print_func(f, NULL);
  ck_assert_str_eq(s, chain_text);
  free(s);
  /* the old spelling */
  tir_print_opts o = {.dialect = TIR_DIALECT_TIR, .no_import = false};
  s = tir_print_func(f, &o);
  ck_assert_ptr_nonnull(strstr(s, "# from tvm.script import tir as T\n\n@T.prim_func\ndef chain("));
  ck_assert_ptr_nonnull(strstr(s, "    # with T.block(\"root\"):\n    a = T.alloc_buffer((1024, 1024))\n"));
  ck_assert_ptr_nonnull(strstr(s, "        with T.block(\"scale\"):\n"));
  free(s);
  /* a module of one bare function prints the same; no_import drops the import */
  tir_module *m = tir_module_new(C, NULL);
  tir_module_add(C, m, f);
  s = tir_print_module(m, NULL);
  ck_assert_str_eq(s, chain_text);
  free(s);
  tir_print_opts ni = {.dialect = TIR_DIALECT_TIRX, .no_import = true};
  s = tir_print_module(m, &ni);
  ck_assert_str_eq(s, chain_text + strlen("# from tvm.script import tirx as T\n\n"));
  free(s);
}
END_TEST

/* relu.tir's copy block: thread bindings, a block with match_buffers whose
 * strides and elem_offset are free vars, access_ptr, slice_tensor */
START_TEST(test_relu_dma) {
  tir_expr *sh[] = {I(256), I(256)}, *sub_sh[] = {I(2), I(2)};
  tir_buffer *A = tir_buffer_new(C, "A", TIR_INT8, sh, 2, NULL, 0, NULL, NULL, 0, 0, NULL);
  tir_buffer *S = tir_buffer_new(C, "S", TIR_INT8, sh, 2, NULL, 0, NULL, "shared", 0, 0, NULL);
  tir_expr *bx = V("bx"), *s0 = V("s0"), *off = V("elem_offset"), *d0 = V("d0");
  tir_expr *gst[] = {s0, I(1)}, *sst[] = {d0, I(1)};
  tir_buffer *g = tir_buffer_new(C, "global_buff", TIR_INT8, sub_sh, 2, gst, 2, off, NULL, 0, 1, NULL);
  tir_buffer *sb = tir_buffer_new(C, "shared_buff", TIR_INT8, sub_sh, 2, sst, 2, NULL, "shared", 0, 1, NULL);
  tir_range *r = tir_alloc(C, sizeof(tir_range) * 2);
  r[0] = (tir_range){B(TIR_MUL, bx, I(2)), I(2)};
  r[1] = (tir_range){I(0), I(2)};
  tir_block *bl = tir_block_new(C, "copy");
  bl->n_reads = bl->n_writes = 1;
  bl->reads = tir_alloc(C, sizeof(tir_buffer_region));
  bl->reads[0] = (tir_buffer_region){A, r, 2, {0, 0}};
  bl->writes = tir_alloc(C, sizeof(tir_buffer_region));
  bl->writes[0] = (tir_buffer_region){S, r, 2, {0, 0}};
  bl->n_match = 2;
  bl->match_buffers = tir_alloc(C, sizeof(tir_match_buffer) * 2);
  bl->match_buffers[0] = (tir_match_buffer){sb, {S, r, 2, {0, 0}}, {0, 0}};
  bl->match_buffers[1] = (tir_match_buffer){g, {A, r, 2, {0, 0}}, {0, 0}};
  tir_expr *wp[] = {tir_call(C, TIR_INT8, "type_annotation", NULL, 0), sb->data, sb->elem_offset,
                    B(TIR_MUL, I(2), d0), I(2)};
  tir_expr *rp[] = {tir_call(C, TIR_INT8, "type_annotation", NULL, 0), g->data, off,
                    B(TIR_MUL, I(2), s0), I(1)};
  tir_expr *args[] = {I(2), I(2), tir_call(C, TIR_HANDLE, "tvm_access_ptr", wp, 5), d0,
                      tir_call(C, TIR_HANDLE, "tvm_access_ptr", rp, 5), s0, tir_string(C, "int8")};
  bl->body = tir_evaluate(C, tir_call(C, TIR_HANDLE, "slice_tensor", args, 7));
  tir_stmt *body = tir_for(C, bx, I(0), I(128), TIR_FOR_THREAD_BINDING, "blockIdx.x", NULL,
                           tir_block_realize(C, NULL, 0, NULL, bl));
  tir_block *root = tir_block_new(C, "root");
  root->n_alloc = 1;
  root->alloc_buffers = tir_alloc(C, sizeof(tir_buffer *));
  root->alloc_buffers[0] = S;
  root->body = body;
  tir_func *f = tir_alloc(C, sizeof *f);
  f->name = "relu";
  f->nparams = 1;
  f->params = tir_alloc(C, sizeof(tir_expr *));
  f->params[0] = tir_var(C, "A", TIR_HANDLE);
  f->buffer_map = tir_alloc(C, sizeof(tir_buffer *));
  f->buffer_map[0] = A;
  f->body = tir_block_realize(C, NULL, 0, NULL, root);
  f->s_tir = true;
  char *s = tir_print_func(f, NULL);
  ck_assert_str_eq(s,
      "# from tvm.script import tirx as T\n"
      "\n"
      "@T.prim_func(s_tir=True)\n"
      "def relu(A: T.Buffer((256, 256), \"int8\")):\n"
      "    # with T.sblock(\"root\"):\n"
      "    S = T.sblock_alloc_buffer((256, 256), \"int8\", scope=\"shared\")\n"
      "    for bx in T.thread_binding(128, thread=\"blockIdx.x\"):\n"
      "        with T.sblock(\"copy\"):\n"
      "            T.reads(A[bx * 2:bx * 2 + 2, 0:2])\n"
      "            T.writes(S[bx * 2:bx * 2 + 2, 0:2])\n"
      "            d0 = T.int32()\n"
      "            s0 = T.int32()\n"
      "            elem_offset = T.int32()\n"
      "            shared_buff = T.match_buffer(S[bx * 2:bx * 2 + 2, 0:2], (2, 2), \"int8\", "
      "strides=(d0, 1), scope=\"shared\")\n"
      "            global_buff = T.match_buffer(A[bx * 2:bx * 2 + 2, 0:2], (2, 2), \"int8\", "
      "strides=(s0, 1), elem_offset=elem_offset, offset_factor=1)\n"
      "            T.evaluate(T.slice_tensor(2, 2, shared_buff.access_ptr(\"w\"), d0, "
      "global_buff.access_ptr(\"r\"), s0, \"int8\"))\n");
  free(s);
}
END_TEST

/* shadowed names get _1, _2; a free var is declared; a buffer param whose
 * shape uses a var becomes a handle and a match_buffer; the other stmts */
START_TEST(test_names_and_stmts) {
  tir_expr *n = V("n"), *i = V("i"), *i2 = V("i"), *i3 = V("i"), *x = V("x");
  tir_expr *sh[] = {n};
  tir_buffer *A = tir_buffer_new(C, "A", TIR_FLOAT32, sh, 1, NULL, 0, NULL, NULL, 0, 0, NULL);
  tir_expr *idx[] = {B(TIR_ADD, B(TIR_ADD, i, i2), i3)};
  tir_stmt *st = tir_store(C, A, tir_float(C, TIR_FLOAT32, 1), idx, 1);
  tir_stmt *inner = tir_for(C, i3, I(2), I(4), TIR_FOR_UNROLLED, NULL, NULL, st);
  const char *k[] = {"pragma_x"};
  tir_attr_val *v[] = {tir_av_expr(C, tir_int(C, TIR_INT64, 1))}; /* a Python int: printed bare */
  tir_stmt *mid = tir_for(C, i2, I(0), B(TIR_ADD, i, I(1)), TIR_FOR_SERIAL, NULL, tir_av_dict(C, k, v, 1), inner);
  tir_stmt *outer = tir_for(C, i, I(0), n, TIR_FOR_SERIAL, NULL, NULL, mid);
  tir_stmt *let = tir_let_stmt(C, x, B(TIR_FLOORDIV, n, I(2)),
                               tir_if(C, B(TIR_GT, x, I(0)), tir_evaluate(C, x),
                                      tir_assert(C, B(TIR_NE, x, I(3)), tir_string(C, "bad"),
                                                 tir_evaluate(C, I(0)))));
  tir_stmt *seq[] = {outer, let};
  tir_func *f = tir_alloc(C, sizeof *f);
  f->name = "names";
  f->nparams = 1;
  f->params = tir_alloc(C, sizeof(tir_expr *));
  f->params[0] = tir_var(C, "A", TIR_HANDLE);
  f->buffer_map = tir_alloc(C, sizeof(tir_buffer *));
  f->buffer_map[0] = A;
  f->body = tir_seq(C, seq, 2);
  char *s = tir_print_func(f, NULL);
  ck_assert_str_eq(s,
      "# from tvm.script import tirx as T\n"
      "\n"
      "@T.prim_func\n"
      "def names(A_handle: T.handle):\n"
      "    n = T.int32()\n"
      "    A = T.match_buffer(A_handle, (n,))\n"
      "    for i in range(n):\n"
      "        for i_1 in T.serial(i + 1, annotations={\"pragma_x\": 1}):\n"
      "            for i_2 in T.unroll(2, 6):\n"
      "                A[i + i_1 + i_2] = T.float32(1.0)\n"
      "    x: T.let[T.int32] = n // 2\n"
      "    if x > 0:\n"
      "        T.evaluate(x)\n"
      "    else:\n"
      "        assert x != 3, \"bad\"\n"
      "        T.evaluate(0)\n");
  free(s);
}
END_TEST

/* a grid does not fold a loop whose extent uses an outer loop var, nor a
 * loop with a nonzero min; a lone statement prints with its own names */
START_TEST(test_grid_rules) {
  tir_expr *i = V("i"), *j = V("j");
  tir_stmt *body = tir_evaluate(C, B(TIR_ADD, i, j));
  tir_stmt *s = tir_for(C, i, I(0), I(4), TIR_FOR_SERIAL, NULL, NULL,
                        tir_for(C, j, I(0), i, TIR_FOR_SERIAL, NULL, NULL, body));
  char *t = tir_print_stmt(s);
  ck_assert_str_eq(t, "for i in range(4):\n    for j in range(i):\n        T.evaluate(i + j)\n");
  free(t);
  s = tir_for(C, i, I(0), I(4), TIR_FOR_SERIAL, NULL, NULL,
              tir_for(C, j, I(1), I(4), TIR_FOR_SERIAL, NULL, NULL, body));
  t = tir_print_stmt(s);
  ck_assert_str_eq(t, "for i in range(4):\n    for j in range(1, 5):\n        T.evaluate(i + j)\n");
  free(t);
  s = tir_for(C, i, I(0), I(4), TIR_FOR_SERIAL, NULL, NULL,
              tir_for(C, j, I(0), I(8), TIR_FOR_SERIAL, NULL, NULL, body));
  t = tir_print_stmt(s);
  ck_assert_str_eq(t, "for i, j in T.grid(4, 8):\n    T.evaluate(i + j)\n");
  free(t);
}
END_TEST

/* the root block: a comment only under TVM 0.27's rule (it allocates,
 * or its body is a block with iter vars, or holds blocks under something
 * else); an empty root around one block without iter vars is explicit */
static tir_func *rooted(tir_stmt *inner_body, int n_iter) {
  tir_expr *eight = I(8);
  tir_buffer *A = tir_buffer_new(C, "A", TIR_FLOAT32, &eight, 1, NULL, 0, NULL, "global", 0, 0, NULL);
  tir_block *inner = tir_block_new(C, "w");
  tir_expr **vals = NULL;
  if (n_iter) {
    inner->iter_vars = tir_alloc(C, sizeof(tir_iter_var));
    inner->iter_vars[0].var = V("vi");
    inner->iter_vars[0].dom = (tir_range){I(0), I(8)};
    inner->iter_vars[0].type = TIR_ITER_SPATIAL;
    inner->n_iter = 1;
    vals = tir_alloc(C, sizeof(tir_expr *));
    vals[0] = I(0);
  }
  tir_expr *zero = I(0);
  inner->body = inner_body ? inner_body : tir_store(C, A, tir_float(C, TIR_FLOAT32, 0), &zero, 1);
  tir_block *root = tir_block_new(C, "root");
  root->body = tir_block_realize(C, vals, n_iter, NULL, inner);
  tir_func *f = tir_alloc(C, sizeof *f);
  f->name = "f";
  f->params = tir_alloc(C, sizeof(tir_expr *));
  f->params[0] = tir_var(C, "a", TIR_HANDLE);
  f->nparams = 1;
  f->buffer_map = tir_alloc(C, sizeof(tir_buffer *));
  f->buffer_map[0] = A;
  f->body = tir_block_realize(C, NULL, 0, NULL, root);
  f->s_tir = true;
  return f;
}

START_TEST(test_root_rule) {
  tir_print_opts o = {.dialect = TIR_DIALECT_TIRX, .no_import = true};
  char *s = tir_print_func(rooted(NULL, 0), &o);
  ck_assert_ptr_nonnull(strstr(s, "    with T.sblock(\"root\"):\n        T.reads()\n        T.writes()\n"
                                  "        with T.sblock(\"w\"):\n"));
  free(s);
  s = tir_print_func(rooted(NULL, 1), &o);
  ck_assert_ptr_nonnull(strstr(s, "    # with T.sblock(\"root\"):\n    with T.sblock(\"w\"):\n"));
  free(s);
}
END_TEST

/* a pragma attr on the loop var just outside the loop: the var declared
 * first, as TVM prints it, and the loop under the same name */
START_TEST(test_pragma_attr) {
  tir_expr *i = V("i"), *eight = I(8);
  tir_buffer *A = tir_buffer_new(C, "A", TIR_INT32, &eight, 1, NULL, 0, NULL, "global", 0, 0, NULL);
  tir_stmt *loop = tir_for(C, i, I(0), eight, TIR_FOR_SERIAL, NULL, NULL, tir_store(C, A, i, &i, 1));
  tir_stmt *s = tir_attr_stmt(C, "pragma_unroll", i, I(1), loop);
  char *t = tir_print_stmt(s);
  ck_assert_str_eq(t, "i = T.int32()\n"
                      "with T.attr(i, \"pragma_unroll\", 1):\n"
                      "    for i in range(8):\n"
                      "        A[i] = i\n");
  free(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("printer");
  TCase *tc = tcase_create("printer");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_precedence);
  tcase_add_test(tc, test_literals);
  tcase_add_test(tc, test_calls);
  tcase_add_test(tc, test_scalars_and_vthread);
  tcase_add_test(tc, test_chain_func);
  tcase_add_test(tc, test_relu_dma);
  tcase_add_test(tc, test_names_and_stmts);
  tcase_add_test(tc, test_grid_rules);
  tcase_add_test(tc, test_root_rule);
  tcase_add_test(tc, test_pragma_attr);
  suite_add_tcase(s, tc);
  return tir_test_run_suite(s);
}
