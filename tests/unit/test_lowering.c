/* test_lowering.c - the lowering passes (lower_init, to_opaque,
 * plan_alloc, lower_opaque, flatten, lower_intrin, remove_noop), each run
 * on a small function read with tir_parse; the result is checked as
 * printed TVMScript (tir_print_func) or by structural facts. */
#include <stdio.h>

#include "testutil.h"

#define HDR "from tvm.script import tir as T\n\n@T.prim_func\n"

typedef struct lowered {
  tir_ctx *c;
  tir_diag d;
  const tir_func *in, *out;
  char *text; /* out printed without the import line; NULL when out is */
} lowered;

/* parse src, run the passes (by alias) on its first function, verifying
 * after each; stops at the first pass returning NULL */
static lowered run_passes(bool verify, const char *src, const char *const *passes, int n) {
  lowered r = {.c = tir_ctx_new()};
  tir_diag_init(&r.d);
  tir_module *m = tir_parse(r.c, src, strlen(src), &r.d);
  ck_assert_msg(m && m->nfuncs == 1, "parse failed: %s", r.d.n ? r.d.items[0].msg : "");
  const tir_func *f = r.in = m->funcs[0];
  for (int i = 0; i < n && f; i++) {
    const tir_pass_info *p = tir_pass_lookup(passes[i]);
    ck_assert_ptr_nonnull(p);
    f = p->fn(r.c, f, &r.d);
    if (f && verify) ck_assert_msg(tir_verify_func(f, &r.d), "verify after %s: %s", passes[i], r.d.n ? r.d.items[r.d.n - 1].msg : "");
  }
  r.out = f;
  tir_print_opts o = {.dialect = TIR_DIALECT_TIRX, .no_import = true};
  r.text = f ? tir_print_func(f, &o) : NULL;
  return r;
}
#define NPASSES(...) (int)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))
#define RUN(src, ...) run_passes(true, (src), (const char *const[]){__VA_ARGS__}, NPASSES(__VA_ARGS__))
/* without the verifier (see lower_opaque_pragma) */
#define RUN_UNVERIFIED(src, ...) run_passes(false, (src), (const char *const[]){__VA_ARGS__}, NPASSES(__VA_ARGS__))

static void done(lowered *r) {
  free(r->text);
  tir_diag_free(&r->d);
  tir_ctx_free(r->c);
}

static bool has(const lowered *r, const char *needle) { return r->text && strstr(r->text, needle); }
#define HAS(r, s) ck_assert_msg(has(&(r), s), "expected `%s` in:\n%s", s, (r).text ? (r).text : "(null)")
#define LACKS(r, s) ck_assert_msg(!has(&(r), s), "did not expect `%s` in:\n%s", s, (r).text ? (r).text : "(null)")

static bool diag_has(const tir_diag *d, const char *needle) {
  for (int i = 0; i < d->n; i++)
    if (strstr(d->items[i].msg, needle)) return true;
  return false;
}

/* the body text: everything after the `def` line */
static const char *body_of(const lowered *r) {
  const char *p = r->text ? strstr(r->text, "def ") : NULL;
  p = p ? strchr(p, '\n') : NULL;
  return p ? p + 1 : "";
}
#define BODY_EQ(r, want) ck_assert_str_eq(body_of(&(r)), want)

/* ---- sources ---- */

static const char *const reduce_src = HDR
    "def f(A: T.Buffer((8, 8), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "    for i, k in T.grid(8, 8):\n"
    "        with T.block(\"s\"):\n"
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "            with T.init():\n"
    "                B[vi] = T.float32(0)\n"
    "            B[vi] = B[vi] + A[vi, vk]\n";

static const char *const copy2d_src = HDR
    "def f(A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((4, 8), \"float32\")):\n"
    "    for i, j in T.grid(4, 8):\n"
    "        with T.block(\"c\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vi, vj] = A[vi, vj]\n";

/* ---- LowerInitBlock ---- */

START_TEST(init_one_reduce) {
  lowered r = RUN(reduce_src, "lower_init");
  HAS(r, "            if vk == 0:\n                B[vi] = T.float32(0.0)\n            B[vi] = B[vi] + A[vi, vk]\n");
  LACKS(r, "T.init()");
  done(&r);
}
END_TEST

START_TEST(init_reduce_min) {
  lowered r = RUN(HDR "def f(A: T.Buffer((8,), \"float32\"), B: T.Buffer((1,), \"float32\")):\n"
                      "    for k in range(4):\n"
                      "        with T.block(\"s\"):\n"
                      "            vk = T.axis.reduce((2, 6), k + 2)\n"
                      "            with T.init():\n"
                      "                B[0] = T.float32(0)\n"
                      "            B[0] = B[0] + A[vk]\n",
                  "lower_init");
  HAS(r, "if vk == 2:");
  done(&r);
}
END_TEST

START_TEST(init_spatial_only) {
  /* no reduce iter var: the init runs every time, before the body */
  lowered r = RUN(HDR "def f(B: T.Buffer((8,), \"float32\")):\n"
                      "    for i in range(8):\n"
                      "        with T.block(\"s\"):\n"
                      "            vi = T.axis.spatial(8, i)\n"
                      "            with T.init():\n"
                      "                B[vi] = T.float32(0)\n"
                      "            B[vi] = B[vi] + T.float32(1)\n",
                  "lower_init");
  HAS(r, "            B[vi] = T.float32(0.0)\n            B[vi] = B[vi] + T.float32(1.0)\n");
  LACKS(r, "if ");
  done(&r);
}
END_TEST

START_TEST(init_none_shares) {
  lowered r = RUN(copy2d_src, "lower_init");
  ck_assert_ptr_eq(r.out->body, r.in->body); /* untouched subtrees are shared */
  done(&r);
}
END_TEST

START_TEST(init_two_reduce) {
  lowered r = RUN(HDR "def f(A: T.Buffer((4, 4), \"float32\"), B: T.Buffer((1,), \"float32\")):\n"
                      "    for k, l in T.grid(4, 4):\n"
                      "        with T.block(\"s\"):\n"
                      "            vk, vl = T.axis.remap(\"RR\", [k, l])\n"
                      "            with T.init():\n"
                      "                B[0] = T.float32(0)\n"
                      "            B[0] = B[0] + A[vk, vl]\n",
                  "lower_init");
  HAS(r, "if vk == 0 and vl == 0:");
  done(&r);
}
END_TEST

/* ---- ConvertBlocksToOpaque ---- */

START_TEST(opaque_replaces_iters) {
  lowered r = RUN(copy2d_src, "to_opaque");
  HAS(r, "B[i, j] = A[i, j]");
  LACKS(r, "T.axis");
  LACKS(r, "vi");
  done(&r);
}
END_TEST

START_TEST(opaque_nested_transitive) {
  lowered r = RUN(HDR "def f(A: T.Buffer((16,), \"float32\")):\n"
                      "    for i in range(4):\n"
                      "        with T.block(\"outer\"):\n"
                      "            vo = T.axis.spatial(4, i)\n"
                      "            for j in range(4):\n"
                      "                with T.block(\"inner\"):\n"
                      "                    vi = T.axis.spatial(16, vo * 4 + j)\n"
                      "                    A[vi] = T.float32(1)\n",
                  "to_opaque");
  HAS(r, "A[i * 4 + j] = T.float32(1.0)");
  LACKS(r, "vo");
  done(&r);
}
END_TEST

START_TEST(opaque_keeps_predicate) {
  lowered r = RUN(HDR "def f(A: T.Buffer((10,), \"float32\")):\n"
                      "    for i in range(12):\n"
                      "        with T.block(\"b\"):\n"
                      "            vi = T.axis.spatial(10, i)\n"
                      "            T.where(i < 10)\n"
                      "            A[vi] = T.float32(0)\n",
                  "to_opaque", "lower_opaque");
  BODY_EQ(r, "    for i in range(12):\n        if i < 10:\n            A[i] = T.float32(0.0)\n");
  done(&r);
}
END_TEST

START_TEST(opaque_already_opaque) {
  lowered r = RUN(HDR "def f(A: T.Buffer((4,), \"float32\")):\n"
                      "    for i in range(4):\n"
                      "        with T.block(\"b\"):\n"
                      "            A[i] = T.float32(0)\n",
                  "to_opaque");
  ck_assert_ptr_eq(r.out->body, r.in->body);
  done(&r);
}
END_TEST

/* ---- PlanAndUpdateBufferAllocationLocation ---- */

static const char *const plan_src = HDR
    "def f(A: T.Buffer((8, 8), \"float32\"), B: T.Buffer((8, 8), \"float32\")):\n"
    "    tmp = T.alloc_buffer((8,), \"float32\")\n"
    "    unused = T.alloc_buffer((4,), \"float32\")\n"
    "    for i in range(8):\n"
    "        for j in range(8):\n"
    "            with T.block(\"a\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                tmp[vj] = A[vi, vj]\n"
    "        for j in range(8):\n"
    "            with T.block(\"b\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                B[vi, vj] = tmp[vj]\n";

START_TEST(plan_moves_to_loop) {
  lowered r = RUN(plan_src, "plan_alloc");
  HAS(r, "    for i in range(8):\n        with T.sblock(\"\"):\n");
  HAS(r, "            tmp = T.sblock_alloc_buffer((8,))\n");
  done(&r);
}
END_TEST

START_TEST(plan_drops_unused) {
  lowered r = RUN(plan_src, "plan_alloc");
  LACKS(r, "unused");
  done(&r);
}
END_TEST

START_TEST(plan_reduce_iter_stays_above) {
  /* acc is indexed by a reduce iter var bound to k: its home is above k */
  lowered r = RUN(HDR "def f(A: T.Buffer((8,), \"float32\")):\n"
                      "    acc = T.alloc_buffer((8,), \"float32\")\n"
                      "    for k in range(8):\n"
                      "        with T.block(\"r\"):\n"
                      "            vk = T.axis.reduce(8, k)\n"
                      "            acc[vk] = A[vk]\n",
                  "plan_alloc");
  HAS(r, "    acc = T.sblock_alloc_buffer((8,))\n    for k in range(8):\n");
  LACKS(r, "T.sblock(\"\")");
  done(&r);
}
END_TEST

START_TEST(plan_global_at_blockidx) {
  /* a global buffer used inside one block under a blockIdx loop is homed
   * at that loop (the LCA with the blockIdx loop), not in the block; a
   * shared one moves into the block.  The new block's regions leave out
   * buffers allocated in it or inside it (TVM 0.27 gives the same) */
  lowered r = RUN(HDR "def f(A: T.Buffer((8,), \"float32\")):\n"
                      "    g = T.alloc_buffer((8,), \"float32\")\n"
                      "    s = T.alloc_buffer((8,), \"float32\", scope=\"shared\")\n"
                      "    for bx in T.thread_binding(8, thread=\"blockIdx.x\"):\n"
                      "        with T.block(\"b\"):\n"
                      "            s[bx] = A[bx]\n"
                      "            g[bx] = s[bx]\n",
                  "plan_alloc");
  HAS(r, "    for bx in T.thread_binding(8, thread=\"blockIdx.x\"):\n        with T.sblock(\"\"):\n"
         "            T.reads(A[bx])\n            T.writes()\n            g = T.sblock_alloc_buffer((8,))\n");
  HAS(r, "                T.reads(A[bx])\n                T.writes(g[bx])\n"
         "                s = T.sblock_alloc_buffer((8,), scope=\"shared\")\n");
  done(&r);
}
END_TEST

/* ---- LowerOpaqueBlock ---- */

START_TEST(lower_opaque_needs_to_opaque) {
  lowered r = RUN(copy2d_src, "lower_opaque");
  ck_assert_ptr_null(r.out);
  ck_assert(diag_has(&r.d, "still has iter vars"));
  done(&r);
}
END_TEST

START_TEST(lower_opaque_unit_loop) {
  lowered r = RUN(HDR "def f(A: T.Buffer((4, 1), \"float32\")):\n"
                      "    for i, j in T.grid(4, 1):\n"
                      "        with T.block(\"b\"):\n"
                      "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                      "            A[vi, vj] = T.float32(0)\n",
                  "to_opaque", "lower_opaque");
  BODY_EQ(r, "    for i in range(4):\n        A[i, 0] = T.float32(0.0)\n");
  done(&r);
}
END_TEST

START_TEST(lower_opaque_threads) {
  lowered r = RUN(HDR "def f(A: T.Buffer((64,), \"float32\")):\n"
                      "    for bx in T.thread_binding(2, thread=\"blockIdx.x\"):\n"
                      "        for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                      "            with T.block(\"b\"):\n"
                      "                A[bx * 32 + tx] = T.float32(0)\n",
                  "to_opaque", "lower_opaque");
  HAS(r, "bx = T.launch_thread(\"blockIdx.x\", 2)");
  HAS(r, "tx = T.launch_thread(\"threadIdx.x\", 32)");
  HAS(r, "A[bx * 32 + tx] = T.float32(0.0)");
  LACKS(r, "thread_binding");
  done(&r);
}
END_TEST

START_TEST(lower_opaque_alloc) {
  lowered r = RUN(HDR "def f(A: T.Buffer((8,), \"float32\")):\n"
                      "    for i in range(8):\n"
                      "        with T.block(\"b\"):\n"
                      "            t = T.alloc_buffer((1,), \"float32\", scope=\"local\")\n"
                      "            t[0] = A[i]\n"
                      "            A[i] = t[0] + T.float32(1)\n",
                  "lower_opaque");
  HAS(r, "    for i in range(8):\n        t = T.alloc_buffer((1,), scope=\"local\", annotations={\"buffer_allocated_addr\": [], "
         "\"buffer_data_alignment\": 64})\n        t[0] = A[i]\n");
  LACKS(r, "sblock");
  done(&r);
}
END_TEST

/* TVM 0.27 annotates each allocation with the buffer's alignment */
START_TEST(lower_opaque_alloc_alignment) {
  lowered r = RUN(HDR "def f(A: T.Buffer((8,), \"float32\")):\n"
                      "    for i in range(8):\n"
                      "        with T.block(\"b\"):\n"
                      "            t = T.alloc_buffer((1,), \"float32\", scope=\"local\", align=128)\n"
                      "            t[0] = A[i]\n"
                      "            A[i] = t[0]\n",
                  "lower_opaque");
  const tir_stmt *s = r.out->body->u.loop.body;
  ck_assert_int_eq(s->kind, TIR_ALLOC_BUFFER);
  const tir_attr_val *al = tir_av_get(s->u.decl.annotations, "buffer_data_alignment");
  int64_t v = 0;
  ck_assert(al && al->kind == TIR_AV_EXPR && tir_is_const_int(al->expr, &v) && v == 128);
  ck_assert(tir_dtype_eq(al->expr->dtype, TIR_INT64)); /* a Python int, as TVM boxes it */
  const tir_attr_val *addr = tir_av_get(s->u.decl.annotations, "buffer_allocated_addr");
  ck_assert(addr && addr->kind == TIR_AV_LIST && addr->n == 0);
  done(&r);
}
END_TEST

START_TEST(lower_opaque_pragma) {
  /* as TVM: the attr names the loop var just outside the loop it wraps
   * (which the verifier accepts) */
  lowered r = RUN(HDR "def f(A: T.Buffer((8,), \"float32\")):\n"
                      "    for i in T.serial(8, annotations={\"pragma_unroll\": 1}):\n"
                      "        with T.block(\"b\"):\n"
                      "            A[i] = T.float32(0)\n",
                  "lower_opaque");
  HAS(r, "with T.attr(i, \"pragma_unroll\", 1):\n        for i in range(8):\n");
  LACKS(r, "annotations");
  done(&r);
}
END_TEST

/* ---- FlattenBuffer ---- */

START_TEST(flatten_2d) {
  lowered r = RUN(copy2d_src, "to_opaque", "lower_opaque", "flatten");
  HAS(r, "A_1 = T.decl_buffer((32,), data=A.data)");
  HAS(r, "B_1 = T.decl_buffer((32,), data=B.data)");
  HAS(r, "B_1[i * 8 + j] = A_1[i * 8 + j]");
  done(&r);
}
END_TEST

START_TEST(flatten_strided_offset) {
  lowered r = RUN(HDR "def f(a: T.handle):\n"
                      "    A = T.match_buffer(a, (4, 4), \"float32\", strides=[8, 1], elem_offset=2)\n"
                      "    for i, j in T.grid(4, 4):\n"
                      "        A[i, j] = T.float32(0)\n",
                  "flatten");
  /* its flat extent holds the offset its indices add (TVM's keeps 32) */
  HAS(r, "A_1 = T.decl_buffer((34,), data=A.data)");
  HAS(r, "A_1[i * 8 + j + 2] = T.float32(0.0)");
  done(&r);
}
END_TEST

START_TEST(flatten_vector_index) {
  lowered r = RUN(HDR "def f(Q: T.Buffer((8, 4), \"int8\")):\n"
                      "    for i in range(8):\n"
                      "        Q[i, T.Ramp(0, 1, 4)] = T.Broadcast(T.int8(0), 4)\n",
                  "flatten");
  HAS(r, "Q_1[T.Ramp(i * 4, 1, 4)] = T.Broadcast(T.int8(0), 4)");
  done(&r);
}
END_TEST

START_TEST(flatten_rejects_blocks) {
  lowered r = RUN(copy2d_src, "flatten");
  ck_assert_ptr_null(r.out);
  ck_assert(diag_has(&r.d, "run LowerOpaqueBlock"));
  done(&r);
}
END_TEST

/* as TVM: a parameter flat already still gets a flat view when used */
START_TEST(flatten_flat_param_view) {
  lowered r = RUN(HDR "def f(A: T.Buffer((8,), \"float32\")):\n"
                      "    for i in range(8):\n"
                      "        A[i] = T.float32(0)\n",
                  "flatten");
  HAS(r, "    A_1 = T.decl_buffer((8,), data=A.data)\n    for i in range(8):\n        A_1[i] = T.float32(0.0)\n");
  LACKS(r, "layout");
  done(&r);
}
END_TEST

/* unused parameters get no view; one used only through its data pointer does */
START_TEST(flatten_view_only_used) {
  lowered r = RUN(HDR "def f(D: T.Buffer((2, 4), \"float32\"), E: T.Buffer((2,), \"float32\"), F: T.Buffer((4,), \"float32\")):\n"
                      "    T.evaluate(T.call_extern(\"int32\", \"g\", E.data))\n",
                  "flatten");
  LACKS(r, "D_1");
  LACKS(r, "F_1");
  HAS(r, "E_1 = T.decl_buffer((2,), data=E.data)");
  done(&r);
}
END_TEST

/* a tirx function without s_tir: flat buffers have layout=None, printed,
 * read back and compared */
START_TEST(flatten_layout_none) {
  static const char *const src =
      "from tvm.script import tirx as T\n\n@T.prim_func\n"
      "def f(A: T.Buffer((2, 4), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
      "    T_1 = T.alloc_buffer((8,), scope=\"local\")\n"
      "    for i, j in T.grid(2, 4):\n"
      "        T_1[i * 4 + j] = A[i, j]\n"
      "        B[i * 4 + j] = T_1[i * 4 + j]\n";
  lowered r = RUN(src, "flatten");
  HAS(r, "A_1 = T.decl_buffer((8,), data=A.data, layout=None)");
  HAS(r, "B_1 = T.decl_buffer((8,), data=B.data, layout=None)");
  HAS(r, "T_1 = T.alloc_buffer((8,), scope=\"local\", layout=None)");
  HAS(r, "B_1[i * 4 + j] = T_1[i * 4 + j]");
  /* the printed text reads back equal; without layout=None it differs */
  char full[2048];
  snprintf(full, sizeof full, "from tvm.script import tirx as T\n\n%s", r.text);
  tir_module *back = tir_parse(r.c, full, strlen(full), &r.d);
  ck_assert(back && back->nfuncs == 1);
  ck_assert(tir_struct_equal_func(back->funcs[0], r.out));
  char *p;
  while ((p = strstr(full, ", layout=None"))) memmove(p, p + 13, strlen(p + 13) + 1);
  back = tir_parse(r.c, full, strlen(full), &r.d);
  ck_assert(back && back->nfuncs == 1);
  ck_assert(!tir_struct_equal_func(back->funcs[0], r.out));
  done(&r);
}
END_TEST

/* AllocBuffer annotations: read, printed, compared */
START_TEST(alloc_annotations_round_trip) {
  static const char *const fmt =
      "from tvm.script import tirx as T\n\n@T.prim_func\n"
      "def f(A: T.Buffer((8,), \"float32\")):\n"
      "    t = T.alloc_buffer((1,), scope=\"local\", annotations={\"buffer_data_alignment\": %d, \"k\": [1, 2]})\n"
      "    t[0] = A[0]\n";
  char src[512], other[512];
  snprintf(src, sizeof src, fmt, 64);
  snprintf(other, sizeof other, fmt, 32);
  lowered r = RUN(src, "remove_noop");
  HAS(r, "t = T.alloc_buffer((1,), scope=\"local\", annotations={\"buffer_data_alignment\": 64, \"k\": [1, 2]})");
  tir_module *b = tir_parse(r.c, other, strlen(other), &r.d);
  ck_assert(b && !tir_struct_equal_func(b->funcs[0], r.in));
  tir_module *c = tir_parse(r.c, src, strlen(src), &r.d);
  ck_assert(c && tir_struct_equal_func(c->funcs[0], r.in));
  done(&r);
}
END_TEST

static bool parse_fails(const char *src, const char *msg) {
  tir_ctx *c = tir_ctx_new();
  tir_diag d;
  tir_diag_init(&d);
  tir_module *m = tir_parse(c, src, strlen(src), &d);
  bool ok = !m && diag_has(&d, msg);
  tir_diag_free(&d);
  tir_ctx_free(c);
  return ok;
}

START_TEST(alloc_annotations_errors) {
  ck_assert(parse_fails("from tvm.script import tirx as T\n\n@T.prim_func\n"
                        "def f(A: T.Buffer((8,), \"float32\")):\n"
                        "    t = T.alloc_buffer((1,), annotations=5)\n"
                        "    t[0] = A[0]\n",
                        "annotations must be a dict"));
  ck_assert(parse_fails("from tvm.script import tirx as T\n\n@T.prim_func\n"
                        "def f(A: T.Buffer((8,), \"float32\")):\n"
                        "    t = T.decl_buffer((8,), data=A.data, annotations={\"a\": 1})\n"
                        "    t[0] = A[0]\n",
                        "T.decl_buffer takes no keyword argument 'annotations'")); /* TVM 0.27's decl_buffer has none */
}
END_TEST

/* ---- LowerIntrin ---- */

START_TEST(intrin_access_ptr) {
  lowered r = RUN(HDR "def f(A: T.Buffer((4, 16), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
                      "    T.evaluate(T.slice_tensor(2, 16, B.access_ptr(\"w\", offset=8), 16,"
                      " A.access_ptr(\"r\", offset=16), 16, \"float32\"))\n",
                  "flatten", "lower_intrin");
  HAS(r, "T.address_of(B[8])");
  HAS(r, "T.address_of(A_1[16])");
  LACKS(r, "access_ptr");
  done(&r);
}
END_TEST

START_TEST(intrin_other_dtype_kept) {
  /* a pointer of another element type has no buffer to index: kept */
  lowered r = RUN(HDR "def f(A: T.Buffer((64,), \"float32\")):\n"
                      "    T.evaluate(T.tvm_access_ptr(T.type_annotation(\"int8\"), A.data, 4, 8, 1))\n",
                  "lower_intrin");
  HAS(r, "T.tvm_access_ptr(T.type_annotation(\"int8\"), A.data, 4, 8, 1)");
  done(&r);
}
END_TEST

/* ---- RemoveNoOp ---- */

START_TEST(noop_evaluate_zero) {
  lowered r = RUN(HDR "def f(A: T.Buffer((8,), \"float32\")):\n"
                      "    T.evaluate(0)\n"
                      "    A[0] = T.float32(1)\n"
                      "    T.evaluate(1)\n",
                  "remove_noop");
  BODY_EQ(r, "    A[0] = T.float32(1.0)\n");
  done(&r);
}
END_TEST

START_TEST(noop_self_store) {
  lowered r = RUN(HDR "def f(A: T.Buffer((8,), \"float32\")):\n"
                      "    for i in range(8):\n"
                      "        A[i] = A[i]\n",
                  "remove_noop");
  BODY_EQ(r, "    T.evaluate(0)\n");
  done(&r);
}
END_TEST

START_TEST(noop_zero_extent_loop) {
  lowered r = RUN(HDR "def f(A: T.Buffer((8,), \"float32\")):\n"
                      "    for i in range(0):\n"
                      "        A[i] = T.float32(1)\n"
                      "    A[1] = T.float32(2)\n",
                  "remove_noop");
  BODY_EQ(r, "    A[1] = T.float32(2.0)\n");
  done(&r);
}
END_TEST

START_TEST(noop_const_if) {
  lowered r = RUN(HDR "def f(A: T.Buffer((8,), \"float32\")):\n"
                      "    if T.bool(True):\n"
                      "        A[0] = T.float32(1)\n"
                      "    else:\n"
                      "        A[0] = T.float32(2)\n",
                  "remove_noop");
  BODY_EQ(r, "    A[0] = T.float32(1.0)\n");
  done(&r);
}
END_TEST

START_TEST(noop_empty_then) {
  lowered r = RUN(HDR "def f(A: T.Buffer((8,), \"float32\"), n: T.int32):\n"
                      "    if n < 4:\n"
                      "        T.evaluate(0)\n"
                      "    else:\n"
                      "        A[0] = T.float32(2)\n",
                  "remove_noop");
  BODY_EQ(r, "    if not n < 4:\n        A[0] = T.float32(2.0)\n");
  done(&r);
}
END_TEST

START_TEST(noop_keeps_side_effects) {
  lowered r = RUN(HDR "def f(A: T.Buffer((8,), \"float32\")):\n"
                      "    for i in range(4):\n"
                      "        T.evaluate(T.call_extern(\"int32\", \"tick\", i))\n",
                  "remove_noop");
  HAS(r, "T.call_extern(\"int32\", \"tick\", i)");
  ck_assert_ptr_eq(r.out->body, r.in->body);
  done(&r);
}
END_TEST

/* ---- the whole pipeline ---- */

START_TEST(default_pipeline_flat) {
  lowered r = RUN(reduce_src, "lower_init", "plan_alloc", "to_opaque", "lower_opaque", "flatten", "lower_intrin",
                  "remove_noop");
  BODY_EQ(r, "    A_1 = T.decl_buffer((64,), data=A.data)\n"
             "    B_1 = T.decl_buffer((8,), data=B.data)\n"
             "    for i, k in T.grid(8, 8):\n"
             "        if k == 0:\n"
             "            B_1[i] = T.float32(0.0)\n"
             "        B_1[i] = B_1[i] + A_1[i * 8 + k]\n");
  done(&r);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("lowering");
  TCase *t = tcase_create("lower_init");
  tcase_add_test(t, init_one_reduce);
  tcase_add_test(t, init_reduce_min);
  tcase_add_test(t, init_spatial_only);
  tcase_add_test(t, init_none_shares);
  tcase_add_test(t, init_two_reduce);
  suite_add_tcase(s, t);
  t = tcase_create("to_opaque");
  tcase_add_test(t, opaque_replaces_iters);
  tcase_add_test(t, opaque_nested_transitive);
  tcase_add_test(t, opaque_keeps_predicate);
  tcase_add_test(t, opaque_already_opaque);
  suite_add_tcase(s, t);
  t = tcase_create("plan_alloc");
  tcase_add_test(t, plan_moves_to_loop);
  tcase_add_test(t, plan_drops_unused);
  tcase_add_test(t, plan_reduce_iter_stays_above);
  tcase_add_test(t, plan_global_at_blockidx);
  suite_add_tcase(s, t);
  t = tcase_create("lower_opaque");
  tcase_add_test(t, lower_opaque_needs_to_opaque);
  tcase_add_test(t, lower_opaque_unit_loop);
  tcase_add_test(t, lower_opaque_threads);
  tcase_add_test(t, lower_opaque_alloc);
  tcase_add_test(t, lower_opaque_alloc_alignment);
  tcase_add_test(t, alloc_annotations_round_trip);
  tcase_add_test(t, alloc_annotations_errors);
  tcase_add_test(t, lower_opaque_pragma);
  suite_add_tcase(s, t);
  t = tcase_create("flatten");
  tcase_add_test(t, flatten_2d);
  tcase_add_test(t, flatten_strided_offset);
  tcase_add_test(t, flatten_vector_index);
  tcase_add_test(t, flatten_rejects_blocks);
  tcase_add_test(t, flatten_flat_param_view);
  tcase_add_test(t, flatten_view_only_used);
  tcase_add_test(t, flatten_layout_none);
  suite_add_tcase(s, t);
  t = tcase_create("lower_intrin");
  tcase_add_test(t, intrin_access_ptr);
  tcase_add_test(t, intrin_other_dtype_kept);
  suite_add_tcase(s, t);
  t = tcase_create("remove_noop");
  tcase_add_test(t, noop_evaluate_zero);
  tcase_add_test(t, noop_self_store);
  tcase_add_test(t, noop_zero_extent_loop);
  tcase_add_test(t, noop_const_if);
  tcase_add_test(t, noop_empty_then);
  tcase_add_test(t, noop_keeps_side_effects);
  tcase_add_test(t, default_pipeline_flat);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tir_test_run_suite(suite()); }
