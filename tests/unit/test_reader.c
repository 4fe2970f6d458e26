/* test_reader.c - the TVMScript reader: parses, identities, scoping, every
 * construct, and the errors of bad input. */
#include "testutil.h"

#include "intrin/intrin.h"

static tir_ctx *C;
static tir_diag D;

static tir_module *parse(const char *src) {
  if (C) tir_ctx_free(C);
  C = tir_ctx_new();
  tir_diag_free(&D);
  tir_diag_init(&D);
  return tir_parse(C, src, strlen(src), &D);
}

static tir_module *parse_n(const char *src, size_t n) {
  if (C) tir_ctx_free(C);
  C = tir_ctx_new();
  tir_diag_free(&D);
  tir_diag_init(&D);
  return tir_parse(C, src, n, &D);
}

static tir_func *parse1(const char *src) {
  tir_module *m = parse(src);
  ck_assert_msg(m, "parse failed: %s", D.n ? D.items[0].msg : "?");
  ck_assert_int_eq(m->nfuncs, 1);
  return m->funcs[0];
}

static void expect_error(const char *src, const char *msg, int line, int col) {
  tir_module *m = parse(src);
  ck_assert_ptr_null(m);
  ck_assert_int_ge(D.n, 1);
  ck_assert_msg(strstr(D.items[0].msg, msg), "got '%s', want '%s'", D.items[0].msg, msg);
  ck_assert_int_eq(D.items[0].span.line, line);
  ck_assert_int_eq(D.items[0].span.col, col);
}

#define TIR "from tvm.script import tir as T\n"
#define TIRX "from tvm.script import tirx as T\n"

START_TEST(seed_examples) {
  static const char *files[] = {"examples/relu.tir", "examples/chain.tir"};
  for (int i = 0; i < 2; i++) {
    FILE *f = fopen(files[i], "rb");
    ck_assert_ptr_nonnull(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    tir_func *fn = parse1(buf);
    ck_assert(fn->s_tir);
    ck_assert_int_eq(fn->body->kind, TIR_BLOCK_REALIZE);
    ck_assert_str_eq(fn->body->u.realize.block->name, "root");
  }
}
END_TEST

START_TEST(params_and_buffers) {
  tir_func *f = parse1(TIR "@T.prim_func\ndef f(A: T.Buffer((16, 8), \"int8\"), n: T.int32, x: T.handle):\n"
                           "    X = T.match_buffer(x, (n,), \"float32\", offset_factor=1)\n    T.evaluate(0)\n");
  ck_assert_str_eq(f->name, "f");
  ck_assert_int_eq(f->nparams, 3);
  ck_assert(tir_dtype_eq(f->params[0]->dtype, TIR_HANDLE));
  tir_buffer *a = f->buffer_map[0];
  ck_assert_str_eq(a->name, "A");
  ck_assert(tir_dtype_eq(a->dtype, TIR_INT8));
  ck_assert_int_eq(a->ndim, 2);
  ck_assert_ptr_ne(a->data, f->params[0]); /* param var and data var are different Vars */
  ck_assert(tir_dtype_eq(f->params[1]->dtype, TIR_INT32));
  ck_assert_ptr_null(f->buffer_map[1]);
  tir_buffer *x = f->buffer_map[2];
  ck_assert_str_eq(x->name, "X");
  ck_assert_ptr_eq(x->shape[0], f->params[1]); /* the shape uses the param n itself */
  ck_assert_int_eq(x->elem_offset->kind, TIR_VAR);
  ck_assert_str_eq(x->elem_offset->u.var.name, "X_elem_offset");
  ck_assert(!f->s_tir || true);
}
END_TEST

START_TEST(loop_identity) {
  tir_func *f = parse1(TIRX "@T.prim_func\ndef f(A: T.Buffer((16,), \"int32\")):\n"
                            "    for i in range(16):\n        A[i] = i\n    for i in range(2, 16):\n        A[i] = i\n");
  ck_assert_int_eq(f->body->kind, TIR_SEQ);
  tir_stmt *l0 = f->body->u.seq.stmts[0], *l1 = f->body->u.seq.stmts[1];
  ck_assert_ptr_ne(l0->u.loop.var, l1->u.loop.var); /* two `i` loops, two Vars */
  ck_assert_ptr_eq(l0->u.loop.body->u.store.value, l0->u.loop.var);
  ck_assert_ptr_eq(l1->u.loop.body->u.store.value, l1->u.loop.var);
  int64_t v;
  ck_assert(tir_is_const_int(l1->u.loop.min, &v) && v == 2);
  ck_assert(tir_is_const_int(l1->u.loop.extent, &v) && v == 14);
  ck_assert(!f->s_tir);
}
END_TEST

START_TEST(grid_and_kinds) {
  tir_func *f = parse1(TIRX "@T.prim_func\ndef f(A: T.Buffer((16, 16), \"int32\")):\n"
                            "    for bx in T.thread_binding(4, thread=\"blockIdx.x\"):\n"
                            "        for i, j in T.grid(4, 16):\n"
                            "            for k in T.vectorized(1):\n                A[bx * 4 + i, j] = k\n");
  tir_stmt *s = f->body;
  ck_assert_int_eq(s->u.loop.kind, TIR_FOR_THREAD_BINDING);
  ck_assert_str_eq(s->u.loop.thread_tag, "blockIdx.x");
  s = s->u.loop.body;
  ck_assert_int_eq(s->kind, TIR_FOR);
  ck_assert_int_eq(s->u.loop.body->kind, TIR_FOR);
  ck_assert_int_eq(s->u.loop.body->u.loop.body->u.loop.kind, TIR_FOR_VECTORIZED);
}
END_TEST

START_TEST(blocks_and_root) {
  tir_func *f = parse1(TIR "@T.prim_func\ndef f(A: T.Buffer((8, 8), \"float32\")):\n"
                           "    B = T.alloc_buffer((8, 8))\n"
                           "    for i, k in T.grid(8, 8):\n        with T.block(\"s\"):\n"
                           "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
                           "            T.reads(A[vi, vk])\n            T.writes(B[vi, 0:8])\n"
                           "            with T.init():\n                B[vi, 0] = T.float32(0)\n"
                           "            B[vi, 0] += A[vi, vk]\n");
  ck_assert(f->s_tir);
  tir_block *root = f->body->u.realize.block;
  ck_assert_str_eq(root->name, "root");
  ck_assert_int_eq(root->n_alloc, 1);
  ck_assert_str_eq(root->alloc_buffers[0]->name, "B");
  tir_stmt *li = root->body, *lk = li->u.loop.body;
  tir_stmt *rz = lk->u.loop.body;
  ck_assert_int_eq(rz->kind, TIR_BLOCK_REALIZE);
  tir_block *b = rz->u.realize.block;
  ck_assert_str_eq(b->name, "s");
  ck_assert_int_eq(b->n_iter, 2);
  ck_assert_int_eq(b->iter_vars[1].type, TIR_ITER_REDUCE);
  ck_assert_ptr_ne(b->iter_vars[0].var, li->u.loop.var);
  ck_assert_ptr_eq(rz->u.realize.iter_values[0], li->u.loop.var);
  ck_assert_ptr_eq(rz->u.realize.iter_values[1], lk->u.loop.var);
  ck_assert_ptr_eq(b->iter_vars[1].dom.extent, lk->u.loop.extent);
  ck_assert_int_eq(b->n_reads, 1);
  ck_assert_int_eq(b->n_writes, 1);
  int64_t v;
  ck_assert(tir_is_const_int(b->writes[0].region[1].extent, &v) && v == 8);
  ck_assert(tir_is_const_int(b->reads[0].region[1].extent, &v) && v == 1);
  ck_assert_ptr_nonnull(b->init);
  ck_assert_int_eq(b->body->kind, TIR_BUFFER_STORE);
  ck_assert_int_eq(b->body->u.store.value->kind, TIR_ADD);
}
END_TEST

START_TEST(tirx_alloc_forms) {
  tir_func *f = parse1(TIRX "@T.prim_func(s_tir=True)\ndef f(A: T.Buffer((8,), \"float32\")):\n"
                            "    R = T.sblock_alloc_buffer((8,))\n"
                            "    for i in range(8):\n        with T.sblock():\n"
                            "            T.reads()\n            T.writes()\n"
                            "            L = T.alloc_buffer((1,), scope=\"local\")\n"
                            "            L[0] = A[i]\n            R[i] = L[0]\n");
  tir_block *root = f->body->u.realize.block;
  ck_assert_int_eq(root->n_alloc, 1);
  tir_block *b = root->body->u.loop.body->u.realize.block;
  ck_assert_str_eq(b->name, "");
  ck_assert_int_eq(b->n_alloc, 0);
  ck_assert_int_eq(b->body->kind, TIR_ALLOC_BUFFER); /* statement-level, wraps the rest */
  ck_assert_str_eq(b->body->u.decl.buf->scope, "local");
  ck_assert_int_eq(b->body->u.decl.body->kind, TIR_SEQ);
}
END_TEST

START_TEST(match_buffer_block) {
  tir_func *f = parse1(TIR "@T.prim_func\ndef f(A: T.Buffer((16, 16), \"float32\")):\n"
                           "    for i in range(4):\n        with T.block(\"t\"):\n"
                           "            T.reads()\n            T.writes()\n"
                           "            s0 = T.int32()\n"
                           "            S = T.match_buffer(A[i * 4:i * 4 + 4, 0:16], (4, 16), strides=[s0, \"d1\"], offset_factor=1)\n"
                           "            S[0, 0] = T.float32(s0)\n");
  tir_block *b = f->body->u.realize.block->body->u.loop.body->u.realize.block;
  ck_assert_int_eq(b->n_match, 1);
  tir_match_buffer *m = &b->match_buffers[0];
  ck_assert_ptr_eq(m->src.buf, f->buffer_map[0]);
  int64_t v;
  ck_assert(tir_is_const_int(m->src.region[0].extent, &v) && v == 4);
  ck_assert_int_eq(m->buf->nstrides, 2);
  ck_assert_str_eq(m->buf->strides[1]->u.var.name, "d1");
  ck_assert_ptr_eq(b->body->u.store.buf, m->buf);
  ck_assert_int_eq(b->body->u.store.value->kind, TIR_CAST);
  ck_assert_ptr_eq(b->body->u.store.value->u.un.a, m->buf->strides[0]);
}
END_TEST

START_TEST(lets_and_decls) {
  /* the old dialect: `m = n * c` is a LetStmt, a Python number is bound by name */
  tir_func *f = parse1(TIR "@T.prim_func\ndef f(A: T.Buffer((16,), \"int32\")):\n"
                            "    n = T.int32()\n    c = 4\n    m = n * c\n    A[0] = m + c\n");
  tir_stmt *s = f->body;
  ck_assert_int_eq(s->kind, TIR_LET_STMT);
  ck_assert_str_eq(s->u.let.var->u.var.name, "m");
  ck_assert_int_eq(s->u.let.value->kind, TIR_MUL);
  tir_expr *n = s->u.let.value->u.bin.a;
  ck_assert_int_eq(n->kind, TIR_VAR); /* a free var, no Let */
  ck_assert_ptr_eq(s->u.let.body->u.store.value->u.bin.a, s->u.let.var);
}
END_TEST

/* the first statement of a body */
static tir_stmt *first(tir_stmt *s) { return s->kind == TIR_SEQ ? s->u.seq.stmts[0] : s; }

START_TEST(tirx_lets_and_scalars) {
  /* TVM 0.27: `x: T.f32 = v` / `x = v` are local scalars, T.let binds */
  tir_func *f = parse1(TIRX "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n"
                            "    x: T.float32 = A[1]\n    for i in range(3):\n        x = x + A[i]\n"
                            "    x += T.float32(2)\n    y: T.let[T.float32] = x\n    c = 5\n"
                            "    p = T.address_of(A[0])\n    A[0] = y + T.Cast(\"float32\", c)\n");
  tir_stmt *s = f->body;
  ck_assert_int_eq(s->kind, TIR_ALLOC_BUFFER);
  tir_buffer *x = s->u.decl.buf;
  int64_t v;
  ck_assert(x->scalar && x->ndim == 1 && tir_is_const_int(x->shape[0], &v) && v == 1);
  ck_assert_str_eq(x->scope, "local");
  tir_stmt **b = s->u.decl.body->u.seq.stmts;
  ck_assert_int_eq(s->u.decl.body->u.seq.n, 4);
  ck_assert(b[0]->kind == TIR_BUFFER_STORE && b[0]->u.store.buf == x && b[0]->u.store.nidx == 1);
  tir_stmt *re = b[1]->u.loop.body; /* x = x + A[i]: a store of a load of x */
  ck_assert(re->kind == TIR_BUFFER_STORE && re->u.store.buf == x);
  ck_assert(re->u.store.value->u.bin.a->kind == TIR_BUFFER_LOAD && re->u.store.value->u.bin.a->u.load.buf == x);
  ck_assert(b[2]->kind == TIR_BUFFER_STORE && b[2]->u.store.buf == x && b[2]->u.store.value->kind == TIR_ADD);
  tir_stmt *let = b[3];
  ck_assert_int_eq(let->kind, TIR_LET_STMT);
  ck_assert_int_eq(let->u.let.value->kind, TIR_BUFFER_LOAD);
  tir_stmt *c = let->u.let.body; /* c = 5: an int32 scalar */
  ck_assert(c->kind == TIR_ALLOC_BUFFER && c->u.decl.buf->scalar && tir_dtype_eq(c->u.decl.buf->dtype, TIR_INT32));
  tir_stmt *p = first(c->u.decl.body)->kind == TIR_BUFFER_STORE ? c->u.decl.body->u.seq.stmts[1] : NULL;
  ck_assert(p && p->kind == TIR_LET_STMT && tir_dtype_is_handle(p->u.let.var->dtype)); /* a pointer binds */
  /* a declaration alone, and T.local_scalar */
  f = parse1(TIRX "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\")):\n    z: T.int32\n"
                  "    w = T.local_scalar(\"int32\")\n    z = 1\n    w = z\n    A[0] = w\n");
  ck_assert(f->body->kind == TIR_ALLOC_BUFFER && f->body->u.decl.buf->scalar);
  tir_stmt *w = f->body->u.decl.body;
  ck_assert(w->kind == TIR_ALLOC_BUFFER && w->u.decl.buf->scalar);
  ck_assert_int_eq(w->u.decl.body->u.seq.n, 3);
  expect_error(TIRX "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\")):\n    h: T.handle = A.data\n",
               "a handle cannot be a local scalar", 4, 5);
}
END_TEST

START_TEST(tvm027_forms) {
  /* rank 0, decl_buffer without data, dtype= keywords, vthread */
  tir_func *f = parse1(TIRX "@T.prim_func\ndef f(A: T.Buffer((), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
                            "    A[()] = A[()] + T.call_extern(\"g\", dtype=\"float32\")\n"
                            "    C = T.decl_buffer((5,), \"int32\")\n    D = T.decl_buffer((4,), data=B.data)\n"
                            "    v = T.launch_thread(\"vthread\", 2)\n"
                            "    if T.likely(v < 1, dtype=\"bool\"):\n        C[0] = T.truncdiv(v, 2, dtype=\"int32\")\n"
                            "    D[v] = T.exp(D[0], dtype=\"float32\")\n");
  tir_stmt **s = f->body->u.seq.stmts;
  ck_assert_int_eq(s[0]->u.store.nidx, 0);
  ck_assert_int_eq(s[0]->u.store.value->u.bin.a->u.load.nidx, 0);
  tir_expr *g = s[0]->u.store.value->u.bin.b;
  ck_assert(!strcmp(g->u.call.op, "call_extern") && tir_dtype_eq(g->dtype, TIR_FLOAT32) && g->u.call.nargs == 1);
  ck_assert_int_eq(s[1]->kind, TIR_ALLOC_BUFFER);
  tir_stmt *d = s[1]->u.decl.body;
  ck_assert_int_eq(d->kind, TIR_DECL_BUFFER);
  ck_assert_ptr_eq(d->u.decl.buf->data, f->buffer_map[1]->data);
  ck_assert_int_eq(d->u.decl.body->kind, TIR_ATTR);
  ck_assert_str_eq(d->u.decl.body->u.attr.key, "virtual_thread");
  ck_assert_str_eq(d->u.decl.body->u.attr.thread_tag, "vthread");
  expect_error(TIRX "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\")):\n    A[0] = T.max(1, 2, dtype=\"int32\")\n",
               "T.max takes no keyword argument 'dtype'", 4, 24);
}
END_TEST

START_TEST(expr_dtypes_and_folding) {
  tir_func *f = parse1(TIRX "@T.prim_func\ndef f(A: T.Buffer((8,), \"int64\"), B: T.Buffer((8,), \"float32\"), m: T.int64):\n"
                            "    A[0] = m + 1\n    A[1] = 2 * 3 + 1\n    B[0] = B[1] * 2.5\n    A[2] = 3000000000\n"
                            "    B[2] = -B[3]\n    A[3] = T.int64(5) + 0\n");
  tir_stmt **s = f->body->u.seq.stmts;
  ck_assert(tir_dtype_eq(s[0]->u.store.value->u.bin.b->dtype, TIR_INT64));
  int64_t v;
  ck_assert(tir_is_const_int(s[1]->u.store.value, &v) && v == 7);
  ck_assert(tir_dtype_eq(s[2]->u.store.value->u.bin.b->dtype, TIR_FLOAT32));
  ck_assert(tir_is_const_int(s[3]->u.store.value, &v) && v == 3000000000LL);
  ck_assert_int_eq(s[4]->u.store.value->kind, TIR_MUL); /* -x is x * -1 as TVM */
  ck_assert(tir_is_const_int(s[5]->u.store.value, &v) && v == 5);
}
END_TEST

START_TEST(access_ptr_desugar) {
  tir_func *f = parse1(TIR "@T.prim_func\ndef f(A: T.Buffer((4, 8), \"int8\")):\n"
                           "    T.evaluate(A.access_ptr(\"rw\", offset=8))\n");
  tir_expr *e = f->body->u.eval.value;
  ck_assert_str_eq(e->u.call.op, "tvm_access_ptr");
  ck_assert_int_eq(e->u.call.nargs, 5);
  ck_assert_str_eq(e->u.call.args[0]->u.call.op, "type_annotation");
  ck_assert(tir_dtype_eq(e->u.call.args[0]->dtype, TIR_INT8));
  ck_assert_ptr_eq(e->u.call.args[1], f->buffer_map[0]->data);
  int64_t v;
  ck_assert(tir_is_const_int(e->u.call.args[2], &v) && v == 8);
  ck_assert(tir_is_const_int(e->u.call.args[3], &v) && v == 24);
  ck_assert(tir_is_const_int(e->u.call.args[4], &v) && v == 3);
}
END_TEST

START_TEST(ir_module) {
  tir_module *m = parse("from tvm.script import ir as I\n" TIR "@I.ir_module\nclass Mod:\n"
                        "    @T.prim_func\n    def a(A: T.Buffer((4,), \"int32\")):\n        A[0] = 1\n"
                        "    @T.prim_func(private=True)\n    def b(self, B: T.Buffer((4,), \"int32\")):\n        B[0] = 2\n");
  ck_assert_ptr_nonnull(m);
  ck_assert_str_eq(m->name, "Mod");
  ck_assert_int_eq(m->nfuncs, 2);
  ck_assert(m->funcs[1]->private_);
  ck_assert_int_eq(m->funcs[1]->nparams, 1);
}
END_TEST

START_TEST(control_flow) {
  tir_func *f = parse1(TIR "@T.prim_func\ndef f(A: T.Buffer((8,), \"int32\"), n: T.int32):\n"
                            "    func_attr_dummy = 0\n"
                            "    T.func_attr({\"tir.noalias\": True, \"k\": [1, 2]})\n"
                            "    if n < 2:\n        A[0] = 0\n    elif n < 4:\n        A[0] = 1\n    else:\n        A[0] = 2\n"
                            "    while A[1] < n:\n        A[1] = A[1] + 1\n"
                            "    assert n > 0, \"positive\"\n    A[2] = 3\n");
  ck_assert_ptr_nonnull(tir_av_get(f->attrs, "tir.noalias"));
  ck_assert_int_eq(tir_av_get(f->attrs, "k")->kind, TIR_AV_LIST);
  tir_stmt **s = f->body->u.seq.stmts;
  ck_assert_int_eq(s[0]->kind, TIR_IF);
  ck_assert_int_eq(s[0]->u.ifs.else_s->kind, TIR_IF);
  ck_assert_ptr_nonnull(s[0]->u.ifs.else_s->u.ifs.else_s);
  ck_assert_int_eq(s[1]->kind, TIR_WHILE);
  ck_assert_int_eq(s[2]->kind, TIR_ASSERT);
  ck_assert_str_eq(s[2]->u.assrt.msg->u.str, "positive");
}
END_TEST

START_TEST(intrinsics) {
  tir_func *f = parse1(TIR "@T.prim_func\ndef f(A: T.Buffer((8, 8), \"int8\"), B: T.Buffer((8, 8), \"int8\"), F: T.Buffer((8,), \"float32\")):\n"
                           "    T.evaluate(T.slice_tensor(8, 8, B.access_ptr(\"w\"), 8, A.access_ptr(\"r\"), 8, \"int8\"))\n"
                           "    F[0] = T.exp(F[1]) + T.call_extern(\"float32\", \"g\", 1)\n");
  tir_expr *st = f->body->u.seq.stmts[0]->u.eval.value;
  ck_assert_str_eq(st->u.call.op, "slice_tensor");
  ck_assert_int_eq(st->u.call.nargs, 7);
  ck_assert(tir_dtype_eq(st->dtype, TIR_HANDLE));
  ck_assert_ptr_nonnull(tir_intrin_lookup("tir.exp"));
  ck_assert_ptr_null(tir_intrin_lookup("nope"));
  ck_assert_int_eq(tir_intrin_lookup("tvm_access_ptr")->min_args, 5);
}
END_TEST

START_TEST(errors) {
  expect_error(TIR "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\")):\n    A[0] = k\n", "undefined variable 'k'", 4, 12);
  expect_error(TIR "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\")):\n    A[0] = B[0]\n", "undefined buffer 'B'", 4, 12);
  expect_error(TIR "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\")):\n    A[0, 1] = 1\n",
               "buffer 'A' has 1 dimension but is indexed with 2 indices", 4, 5);
  expect_error(TIR "@T.prim_func\ndef f(A: T.Buffer((4,), \"flaot32\")):\n    T.evaluate(0)\n", "unknown dtype 'flaot32'", 3, 25);
  expect_error(TIR "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\"), A: T.int32):\n    T.evaluate(0)\n", "duplicate parameter 'A'", 3, 35);
  expect_error(TIR "@T.prim_func\ndef f():\n    T.evaluate(T.blok(1))\n", "unknown name 'T.blok'", 4, 16);
  expect_error(TIR "@T.prim_func\ndef f():\n    T.evaluate(99999999999999999999)\n",
               "the Python int 99999999999999999999 is past int64: TVM cannot make it a TIR value", 4, 16);
  expect_error(TIR "@T.prim_func\ndef f():\n    T.evaluate(999999999999999999999999999999999999999)\n",
               "integer literal 999999999999999999999999999999999999999 out of range (tirc holds Python ints to 2**127)", 4, 16);
  expect_error(TIR "@T.prim_func\ndef f(A: T.Buffer((4,), \"int8\")):\n    T.evaluate(T.tvm_access_ptr(T.type_annotation(\"int8\"), A.data, 0, 4))\n",
               "T.tvm_access_ptr expects 5 arguments, got 4", 4, 16);
  expect_error(TIR "@T.prim_func\ndef f():\n    T.evaluate(T.slice_tensor(1, 2, 3, 4, 5))\n",
               "T.slice_tensor expects 3n+1 arguments (1 <= n <= 5), got 5", 4, 16);
  expect_error(TIR "@T.prim_func\ndef f():\n    for i in range(4)\n        T.evaluate(0)\n", "expected ':'", 4, 22);
  ck_assert_ptr_nonnull(parse("@T.prim_func\ndef f():\n    T.evaluate(0)\n")); /* no import line: T is tirx, as in TVM */
  ck_assert_ptr_nonnull(parse("# from tvm.script import tir as T\n@T.prim_func\ndef f():\n    T.evaluate(0)\n"));
  tir_diag_clear(&D);
  ck_assert_ptr_null(tir_parse(C, "x\0y", 3, &D));
  ck_assert_str_eq(D.items[0].msg, "input contains a NUL byte");
  ck_assert_int_eq(D.items[0].span.col, 2);
  tir_module *m = parse("from tvm.script import tir as T\n\xff\xfe");
  ck_assert_ptr_null(m);
  ck_assert_str_eq(D.items[0].msg, "input is not valid UTF-8 text");
  ck_assert_int_eq(D.items[0].span.line, 2);
}
END_TEST

/* every prefix of a valid program is a clean error or a parse, never a crash */
START_TEST(prefixes_never_crash) {
  const char *src = TIR "@T.prim_func\ndef f(A: T.Buffer((8, 8), \"float32\")):\n"
                        "    for i, j in T.grid(8, 8):\n        with T.block(\"b\"):\n"
                        "            vi, vj = T.axis.remap(\"SS\", [i, j])\n            T.reads(A[vi, vj])\n"
                        "            T.writes(A[vi, vj])\n            A[vi, vj] = A[vi, vj] * T.float32(2)\n";
  size_t n = strlen(src);
  for (size_t k = 0; k <= n; k++) {
    if (C) tir_ctx_free(C);
    C = tir_ctx_new();
    tir_diag_free(&D);
    tir_diag_init(&D);
    tir_module *m = tir_parse(C, src, k, &D);
    ck_assert(m != NULL || D.nerrors > 0);
  }
}
END_TEST

/* every prefix, in a buffer of exactly its bytes (tir_parse's input is not
 * NUL-terminated), read whole and read in chunks (TIR_READ_CHUNK_BYTES=1:
 * a chunk after every compound statement): a module or an error, the same
 * either way, and no byte read past the end (ASan) */
START_TEST(prefixes_chunked) {
  const char *src = TIRX "@T.prim_func\ndef f(A: T.Buffer((8,), \"int32\")):\n"
                         "    for i in range(8):\n        A[i] = i\n"
                         "    n: T.let[T.int32] = A[1]\n"
                         "    with T.attr(0, \"pragma_x\", 1):\n        A[0] = n\n"
                         "    for i in range(8):\n        A[i] = A[i] + n\n"
                         "@T.prim_func\ndef g(B: T.Buffer((4,), \"int32\")):\n"
                         "    for j in range(4):\n        B[j] = 0\n    for j in range(4):\n        B[j] = 1\n    with";
  size_t n = strlen(src);
  for (size_t k = 0; k <= n; k++) {
    char *buf = malloc(k ? k : 1);
    memcpy(buf, src, k);
    bool ok[2];
    for (int chunked = 0; chunked < 2; chunked++) {
      if (chunked) setenv("TIR_READ_CHUNK_BYTES", "1", 1);
      tir_module *m = parse_n(buf, k);
      unsetenv("TIR_READ_CHUNK_BYTES");
      ck_assert(m != NULL || D.nerrors > 0);
      ok[chunked] = m != NULL;
    }
    ck_assert_msg(ok[0] == ok[1], "prefix of %zu bytes: read %s whole, %s in chunks", k, ok[0] ? "" : "not",
                  ok[1] ? "" : "not");
    free(buf);
  }
}
END_TEST

/* TVM's printing of a pragma attr on a loop var (LowerOpaqueBlock puts it
 * just outside the loop): `i = T.int32()`, `T.attr(i, ...)` concise or
 * `with`, then `for i`: the loop binds the declared var, so the attr's node
 * is the loop var; anything else between them keeps them apart */
START_TEST(pragma_attr_on_loop_var) {
  tir_func *f = parse1(TIRX "@T.prim_func(s_tir=True)\n"
                            "def f(A: T.Buffer((8,), \"float32\")):\n"
                            "    i = T.int32()\n"
                            "    T.attr(i, \"pragma_a\", 1)\n"
                            "    with T.attr(i, \"pragma_b\", 2):\n"
                            "        for i in range(8):\n"
                            "            A[i] = T.float32(0)\n");
  const tir_stmt *a = f->body;
  ck_assert_int_eq(a->kind, TIR_ATTR);
  ck_assert_str_eq(a->u.attr.key, "pragma_a");
  const tir_stmt *b = a->u.attr.body;
  ck_assert_int_eq(b->kind, TIR_ATTR);
  ck_assert_str_eq(b->u.attr.key, "pragma_b");
  const tir_stmt *loop = b->u.attr.body;
  ck_assert_int_eq(loop->kind, TIR_FOR);
  ck_assert_ptr_eq(a->u.attr.node, loop->u.loop.var);
  ck_assert_ptr_eq(b->u.attr.node, loop->u.loop.var);
  ck_assert_ptr_eq(loop->u.loop.body->u.store.idx[0], loop->u.loop.var);
  ck_assert(tir_verify_func(f, &D));
  /* a thread launch binds it too */
  f = parse1(TIRX "@T.prim_func(s_tir=True)\n"
                  "def f(A: T.Buffer((8,), \"float32\")):\n"
                  "    i = T.int32()\n"
                  "    with T.attr(i, \"pragma_a\", 1):\n"
                  "        i = T.launch_thread(\"threadIdx.x\", 8)\n"
                  "        A[i] = T.float32(0)\n");
  ck_assert_ptr_eq(f->body->u.attr.node, f->body->u.attr.body->u.attr.node);
  ck_assert_str_eq(f->body->u.attr.body->u.attr.thread_tag, "threadIdx.x");
  ck_assert(tir_verify_func(f, &D));
  /* more than the loop under the attr: two vars, the attr's undefined */
  f = parse1(TIRX "@T.prim_func(s_tir=True)\n"
                  "def f(A: T.Buffer((8,), \"float32\")):\n"
                  "    i = T.int32()\n"
                  "    with T.attr(i, \"pragma_a\", 1):\n"
                  "        for i in range(8):\n"
                  "            A[i] = T.float32(0)\n"
                  "        A[0] = T.float32(1)\n");
  const tir_stmt *seq = f->body->u.attr.body;
  ck_assert_int_eq(seq->kind, TIR_SEQ);
  ck_assert_ptr_ne(f->body->u.attr.node, seq->u.seq.stmts[0]->u.loop.var);
  ck_assert(!tir_verify_func(f, &D));
  /* a loop var of an enclosing loop is not rebound */
  f = parse1(TIRX "@T.prim_func(s_tir=True)\n"
                  "def f(A: T.Buffer((8,), \"float32\")):\n"
                  "    for i in range(8):\n"
                  "        with T.attr(i, \"pragma_a\", 1):\n"
                  "            for i in range(8):\n"
                  "                A[i] = T.float32(0)\n");
  const tir_stmt *attr = f->body->u.loop.body;
  ck_assert_ptr_eq(attr->u.attr.node, f->body->u.loop.var);
  ck_assert_ptr_ne(attr->u.attr.body->u.loop.var, f->body->u.loop.var);
}
END_TEST

int main(void) {
  Suite *s = suite_create("reader");
  TCase *t = tcase_create("reader");
  tcase_add_test(t, seed_examples);
  tcase_add_test(t, params_and_buffers);
  tcase_add_test(t, loop_identity);
  tcase_add_test(t, grid_and_kinds);
  tcase_add_test(t, blocks_and_root);
  tcase_add_test(t, tirx_alloc_forms);
  tcase_add_test(t, match_buffer_block);
  tcase_add_test(t, lets_and_decls);
  tcase_add_test(t, tirx_lets_and_scalars);
  tcase_add_test(t, tvm027_forms);
  tcase_add_test(t, expr_dtypes_and_folding);
  tcase_add_test(t, access_ptr_desugar);
  tcase_add_test(t, ir_module);
  tcase_add_test(t, control_flow);
  tcase_add_test(t, intrinsics);
  tcase_add_test(t, errors);
  tcase_add_test(t, prefixes_never_crash);
  tcase_add_test(t, prefixes_chunked);
  tcase_add_test(t, pragma_attr_on_loop_var);
  tcase_set_timeout(t, 60);
  suite_add_tcase(s, t);
  int rc = tir_test_run_suite(s);
  if (C) tir_ctx_free(C);
  tir_diag_free(&D);
  return rc;
}
