/* test_passes.c - the pass registry, pipelines, the verifier, and the two
 * seed passes driven from C on modules built with the constructors. */
#include <stdio.h>

#include "testutil.h"

static bool diag_has(const tir_diag *d, const char *needle) {
  for (int i = 0; i < d->n; i++)
    if (strstr(d->items[i].msg, needle)) return true;
  return false;
}

/* ---- registry and parsing ---- */

START_TEST(registry_lookup) {
  int n = 0;
  const tir_pass_info *reg = tir_pass_registry(&n);
  ck_assert_int_ge(n, 3);
  ck_assert_str_eq(reg[0].name, "CanonicalizeLoop");
  ck_assert_str_eq(reg[1].name, "Simplify");
  ck_assert_ptr_eq(tir_pass_lookup("compact"), tir_pass_lookup("CompactBufferAllocation"));
  ck_assert_ptr_eq(tir_pass_lookup("lower_match")->fn, tir_pass_lower_match_buffer);
  ck_assert_ptr_null(tir_pass_lookup("compactt"));
  ck_assert_ptr_null(tir_pass_lookup(NULL));
}
END_TEST

START_TEST(parse_list) {
  tir_diag d;
  tir_diag_init(&d);
  tir_pipeline *p = tir_pipeline_parse(" compact, LowerMatchBuffer ,simplify", &d);
  ck_assert_ptr_nonnull(p);
  int n;
  const tir_pass_info *const *ps = tir_pipeline_passes(p, &n);
  ck_assert_int_eq(n, 3);
  ck_assert_str_eq(ps[0]->alias, "compact");
  ck_assert_str_eq(ps[1]->alias, "lower_match");
  ck_assert_str_eq(ps[2]->name, "Simplify");
  ck_assert_int_eq(d.n, 0);
  tir_pipeline_free(p);
  tir_diag_free(&d);
}
END_TEST

START_TEST(parse_named) {
  tir_diag d;
  tir_diag_init(&d);
  int nn;
  const tir_named_pipeline *np = tir_pipeline_named(&nn);
  ck_assert_int_ge(nn, 1);
  ck_assert_str_eq(np[0].name, "default");
  tir_pipeline *p = tir_pipeline_parse("default", &d);
  ck_assert_ptr_nonnull(p);
  int n;
  tir_pipeline_passes(p, &n);
  ck_assert_int_ge(n, 3);
  tir_pipeline_free(p);
  tir_diag_free(&d);
}
END_TEST

START_TEST(parse_unknown) {
  tir_diag d;
  tir_diag_init(&d);
  ck_assert_ptr_null(tir_pipeline_parse("compact,bogus", &d));
  ck_assert_int_eq(d.nerrors, 1);
  ck_assert(diag_has(&d, "unknown pass 'bogus'"));
  ck_assert(diag_has(&d, "compact (CompactBufferAllocation)"));
  ck_assert(diag_has(&d, "lower_match (LowerMatchBuffer)"));
  tir_diag_clear(&d);
  ck_assert_ptr_null(tir_pipeline_parse("compact,,simplify", &d));
  ck_assert(diag_has(&d, "empty pass name"));
  tir_diag_clear(&d);
  const char *names[] = {"compact", "nope"};
  ck_assert_ptr_null(tir_pipeline_from_list(names, 2, &d));
  ck_assert(diag_has(&d, "unknown pass 'nope'"));
  tir_diag_free(&d);
}
END_TEST

/* ---- a module built by hand:
 *   def f(A: T.Buffer((16,), "int32")):
 *     for i in range(4):
 *       with T.block("b"):            # allocates tmp: int32[64]
 *         for j in range(4):
 *           tmp[i*16 + j + 8] = A[i*4 + j]
 *         for j in range(4):
 *           A[i*4 + j] = tmp[i*16 + j + 8]
 */
typedef struct {
  tir_module *m;
  tir_buffer *tmp;
  tir_expr *i;
} built;

static tir_expr *bin(tir_ctx *c, tir_expr_kind k, tir_expr *a, tir_expr *b) { return tir_binary(c, k, a, b); }

static built build_module(tir_ctx *c, bool bad_store_dtype) {
  built r;
  tir_expr *sixteen = tir_i32(c, 16), *sixtyfour = tir_i32(c, 64);
  tir_buffer *A = tir_buffer_new(c, "A", TIR_INT32, &sixteen, 1, NULL, 0, NULL, "global", 0, 0, NULL);
  r.tmp = tir_buffer_new(c, "tmp", TIR_INT32, &sixtyfour, 1, NULL, 0, NULL, "global", 0, 0, NULL);
  tir_expr *a = tir_var(c, "a", TIR_HANDLE);
  r.i = tir_var(c, "i", TIR_INT32);
  tir_expr *j1 = tir_var(c, "j", TIR_INT32), *j2 = tir_var(c, "j", TIR_INT32);
  tir_expr *ti1 = bin(c, TIR_ADD, bin(c, TIR_ADD, bin(c, TIR_MUL, r.i, tir_i32(c, 16)), j1), tir_i32(c, 8));
  tir_expr *ai1 = bin(c, TIR_ADD, bin(c, TIR_MUL, r.i, tir_i32(c, 4)), j1);
  tir_expr *val = tir_load(c, A, &ai1, 1);
  if (bad_store_dtype) val = tir_float(c, TIR_FLOAT32, 1.0);
  tir_stmt *s1 = tir_store(c, r.tmp, val, &ti1, 1);
  tir_expr *ti2 = bin(c, TIR_ADD, bin(c, TIR_ADD, bin(c, TIR_MUL, r.i, tir_i32(c, 16)), j2), tir_i32(c, 8));
  tir_expr *ai2 = bin(c, TIR_ADD, bin(c, TIR_MUL, r.i, tir_i32(c, 4)), j2);
  tir_stmt *s2 = tir_store(c, A, tir_load(c, r.tmp, &ti2, 1), &ai2, 1);
  tir_stmt *l1 = tir_for(c, j1, tir_i32(c, 0), tir_i32(c, 4), TIR_FOR_SERIAL, NULL, NULL, s1);
  tir_stmt *l2 = tir_for(c, j2, tir_i32(c, 0), tir_i32(c, 4), TIR_FOR_SERIAL, NULL, NULL, s2);
  tir_stmt *seq[] = {l1, l2};
  tir_block *blk = tir_block_new(c, "b");
  blk->alloc_buffers = tir_alloc(c, sizeof(tir_buffer *));
  blk->alloc_buffers[0] = r.tmp;
  blk->n_alloc = 1;
  blk->body = tir_seq(c, seq, 2);
  tir_stmt *realize = tir_block_realize(c, NULL, 0, NULL, blk);
  tir_stmt *loop = tir_for(c, r.i, tir_i32(c, 0), tir_i32(c, 4), TIR_FOR_SERIAL, NULL, NULL, realize);
  tir_func *f = tir_alloc(c, sizeof *f);
  f->name = "f";
  f->params = tir_alloc(c, sizeof(tir_expr *));
  f->params[0] = a;
  f->nparams = 1;
  f->buffer_map = tir_alloc(c, sizeof(tir_buffer *));
  f->buffer_map[0] = A;
  f->body = loop;
  f->s_tir = true;
  r.m = tir_module_new(c, NULL);
  tir_module_add(c, r.m, f);
  return r;
}

static const tir_block *first_block(const tir_stmt *s) {
  while (s && s->kind == TIR_FOR) s = s->u.loop.body;
  return s && s->kind == TIR_BLOCK_REALIZE ? s->u.realize.block : NULL;
}

START_TEST(run_compact) {
  tir_ctx *c = tir_ctx_new();
  built b = build_module(c, false);
  tir_diag d;
  tir_diag_init(&d);
  ck_assert(tir_verify_func(b.m->funcs[0], &d));
  tir_pipeline *p = tir_pipeline_parse("compact", &d);
  FILE *dump = tmpfile();
  tir_pipeline_opts o = {.verify_each = true, .print_after = "compact", .time_passes = true, .print_stream = dump};
  tir_module *out = tir_pipeline_run(p, c, b.m, &o, &d);
  ck_assert_ptr_nonnull(out);
  ck_assert_int_eq(d.nerrors, 0);
  ck_assert_ptr_ne(out, b.m);
  const tir_block *blk = first_block(out->funcs[0]->body);
  ck_assert_ptr_nonnull(blk);
  ck_assert_int_eq(blk->n_alloc, 1);
  int64_t ext = 0;
  ck_assert(tir_is_const_int(blk->alloc_buffers[0]->shape[0], &ext));
  ck_assert_int_eq(ext, 4); /* [i*16+8, i*16+12) */
  ck_assert_ptr_eq(blk->alloc_buffers[0]->data, b.tmp->data);
  /* the input is untouched */
  ck_assert(tir_is_const_int(b.tmp->shape[0], &ext));
  ck_assert_int_eq(ext, 64);
  /* the dump has its header; the timing table names the pass and the row */
  rewind(dump);
  char line[256] = {0};
  ck_assert_ptr_nonnull(fgets(line, sizeof line, dump));
  ck_assert_str_eq(line, "; IR after CompactBufferAllocation (compact)\n");
  fclose(dump);
  tir_pipeline_record_time(p, "parse", 1.5);
  FILE *t = tmpfile();
  tir_pipeline_report_times(p, t);
  rewind(t);
  char buf[2048] = {0};
  size_t nread = fread(buf, 1, sizeof buf - 1, t);
  ck_assert_uint_gt(nread, 0);
  ck_assert_ptr_nonnull(strstr(buf, "CompactBufferAllocation (compact)"));
  ck_assert_ptr_nonnull(strstr(buf, "parse"));
  ck_assert_ptr_nonnull(strstr(buf, "total"));
  fclose(t);
  tir_pipeline_free(p);
  tir_diag_free(&d);
  tir_ctx_free(c);
}
END_TEST

START_TEST(verify_rejects) {
  tir_ctx *c = tir_ctx_new();
  tir_diag d;
  tir_diag_init(&d);
  built b = build_module(c, true);
  ck_assert(!tir_verify_func(b.m->funcs[0], &d));
  ck_assert(diag_has(&d, "store of a float32 value into buffer 'tmp'"));
  tir_diag_clear(&d);
  /* the pipeline reports it and runs nothing */
  tir_pipeline *p = tir_pipeline_parse("compact", &d);
  tir_pipeline_opts o = {.verify_each = true};
  ck_assert_ptr_null(tir_pipeline_run(p, c, b.m, &o, &d));
  ck_assert(diag_has(&d, "IR verification failed on the input"));
  tir_pipeline_free(p);
  tir_diag_clear(&d);

  /* an undefined var, a buffer declared nowhere, a wrong index count, a var
   * bound twice */
  tir_expr *x = tir_var(c, "x", TIR_INT32), *k = tir_var(c, "k", TIR_INT32);
  tir_expr *four = tir_i32(c, 4);
  tir_expr *shape2[] = {four, four};
  tir_buffer *B = tir_buffer_new(c, "B", TIR_INT32, shape2, 2, NULL, 0, NULL, "global", 0, 0, NULL);
  tir_expr *idx1[] = {k};
  tir_stmt *st = tir_store(c, B, x, idx1, 1);
  tir_stmt *inner = tir_for(c, k, tir_i32(c, 0), four, TIR_FOR_SERIAL, NULL, NULL, st);
  tir_stmt *outer = tir_for(c, k, tir_i32(c, 0), four, TIR_FOR_SERIAL, NULL, NULL, inner);
  tir_func *f = tir_alloc(c, sizeof *f);
  f->name = "g";
  f->body = outer;
  ck_assert(!tir_verify_func(f, &d));
  ck_assert(diag_has(&d, "variable 'x' is used but not defined"));
  ck_assert(diag_has(&d, "buffer 'B' has no memory: nothing binds its pointer"));
  ck_assert(diag_has(&d, "buffer 'B' of rank 2 accessed with 1 indices"));
  ck_assert(diag_has(&d, "variable 'k' is bound more than once"));
  tir_diag_free(&d);
  tir_ctx_free(c);
}
END_TEST

/* a match_buffer whose declared stride contradicts its source: the error is
 * returned, with the field named, never printed */
START_TEST(lower_match_error) {
  tir_ctx *c = tir_ctx_new();
  tir_expr *shape[] = {tir_i32(c, 8), tir_i32(c, 16)};
  tir_buffer *A = tir_buffer_new(c, "A", TIR_FLOAT32, shape, 2, NULL, 0, NULL, "global", 0, 0, NULL);
  tir_expr *sub_shape[] = {tir_i32(c, 2), tir_i32(c, 16)};
  tir_expr *sub_strides[] = {tir_i32(c, 32), tir_i32(c, 1)};
  tir_buffer *S = tir_buffer_new(c, "S", TIR_FLOAT32, sub_shape, 2, sub_strides, 2, NULL, "global", 0, 0, NULL);
  tir_block *blk = tir_block_new(c, "m");
  blk->match_buffers = tir_alloc(c, sizeof(tir_match_buffer));
  blk->n_match = 1;
  blk->match_buffers[0].buf = S;
  blk->match_buffers[0].src.buf = A;
  blk->match_buffers[0].src.n = 2;
  blk->match_buffers[0].src.region = tir_alloc(c, 2 * sizeof(tir_range));
  blk->match_buffers[0].src.region[0] = (tir_range){tir_i32(c, 0), tir_i32(c, 2)};
  blk->match_buffers[0].src.region[1] = (tir_range){tir_i32(c, 0), tir_i32(c, 16)};
  blk->match_buffers[0].span = (tir_span){7, 9};
  tir_expr *idx[] = {tir_i32(c, 1), tir_i32(c, 3)};
  blk->body = tir_store(c, S, tir_float(c, TIR_FLOAT32, 0), idx, 2);
  tir_func *f = tir_alloc(c, sizeof *f);
  f->name = "h";
  f->params = tir_alloc(c, sizeof(tir_expr *));
  f->params[0] = tir_var(c, "a", TIR_HANDLE);
  f->nparams = 1;
  f->buffer_map = tir_alloc(c, sizeof(tir_buffer *));
  f->buffer_map[0] = A;
  f->body = tir_block_realize(c, NULL, 0, NULL, blk);
  tir_diag d;
  tir_diag_init(&d);
  ck_assert(tir_verify_func(f, &d));
  ck_assert_ptr_null(tir_pass_lower_match_buffer(c, f, &d));
  ck_assert_int_eq(d.nerrors, 1);
  ck_assert_str_eq(d.items[0].msg, "S.strides_0: buffer match constraint unmet: 32 == 16");
  ck_assert_int_eq(d.items[0].span.line, 7);
  ck_assert_int_eq(d.items[0].span.col, 9);
  /* with the right stride the view is gone and the store lands on A[1, 3] */
  tir_diag_clear(&d);
  S->strides[0] = tir_i32(c, 16);
  tir_func *g = tir_pass_lower_match_buffer(c, f, &d);
  ck_assert_ptr_nonnull(g);
  const tir_block *nb = g->body->u.realize.block;
  ck_assert_int_eq(nb->n_match, 0);
  ck_assert_ptr_eq(nb->body->u.store.buf, A);
  int64_t v0 = -1, v1 = -1;
  ck_assert(tir_is_const_int(nb->body->u.store.idx[0], &v0));
  ck_assert(tir_is_const_int(nb->body->u.store.idx[1], &v1));
  ck_assert_int_eq(v0, 1);
  ck_assert_int_eq(v1, 3);
  ck_assert(tir_verify_func(g, &d));
  tir_diag_free(&d);
  tir_ctx_free(c);
}
END_TEST

/* ---- a pass that breaks the IR: each use of the first loop's var becomes
 * a fresh var of the same name (a classic mutator bug), so the verifier
 * after it meets four undefined copies of `i` in one statement ---- */
static tir_expr *fresh_copy(tir_mutator *m, tir_expr *e) {
  const tir_expr *target = m->user;
  return e == target ? tir_var(m->ctx, e->u.var.name, e->dtype) : e;
}

static tir_func *break_loop_var(tir_ctx *c, const tir_func *f, tir_diag *d) {
  (void)d;
  const tir_stmt *s = f->body;
  while (s && s->kind != TIR_FOR) s = s->kind == TIR_ATTR ? s->u.attr.body : NULL;
  if (!s) return NULL;
  tir_mutator m = {.expr = fresh_copy, .ctx = c, .user = s->u.loop.var};
  tir_func *out = tir_func_copy(c, f);
  out->body = tir_mutate_stmt(&m, f->body);
  return out;
}

static int count_diags(const tir_diag *d, const char *needle) {
  int n = 0;
  for (int i = 0; i < d->n; i++)
    if (strstr(d->items[i].msg, needle)) n++;
  return n;
}

START_TEST(verify_after_pass_reports_once) {
  static const char src[] = "from tvm.script import tirx as T\n\n"
                            "@T.prim_func\n"
                            "def f(A: T.Buffer((8,), \"int32\")):\n"
                            "    for i in range(8):\n"
                            "        A[i] = A[i] + A[i] * A[i]\n";
  tir_ctx *c = tir_ctx_new();
  tir_diag d;
  tir_diag_init(&d);
  tir_module *m = tir_parse(c, src, sizeof src - 1, &d);
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(d.n, 0);
  /* a one-pass pipeline whose pass is swapped for the breaking one (the
   * registry stays as it is) */
  tir_pipeline *p = tir_pipeline_parse("remove_noop", &d);
  ck_assert_ptr_nonnull(p);
  int n;
  const tir_pass_info **ps = (const tir_pass_info **)tir_pipeline_passes(p, &n);
  ck_assert_int_eq(n, 1);
  const tir_pass_info breaker = {"BreakLoopVar", "break", "test only", break_loop_var};
  ps[0] = &breaker;
  tir_pipeline_opts o = {.verify_each = true};
  ck_assert_ptr_null(tir_pipeline_run(p, c, m, &o, &d));
  ck_assert_int_eq(count_diags(&d, "IR verification failed after pass"), 1);
  ck_assert_int_eq(d.nerrors, 1);
  ck_assert_str_eq(d.items[0].msg, "IR verification failed after pass 'BreakLoopVar' in function 'f': "
                                   "variable 'i' is used but not defined: no parameter, loop, let or block before the use binds it");
  ck_assert_int_eq(d.items[0].span.line, 6);
  /* the verifier alone: once as well */
  tir_diag_clear(&d);
  tir_func *g = break_loop_var(c, m->funcs[0], &d);
  ck_assert(!tir_verify_func(g, &d));
  ck_assert_int_eq(d.n, 1);
  tir_pipeline_free(p);
  tir_diag_free(&d);
  tir_ctx_free(c);
}
END_TEST

/* LowerOpaqueBlock writes a loop's pragma_* annotations as attrs on the
 * loop var just outside the loop (as TVM's does): the verifier accepts the
 * var there, bound by the loop the attrs wrap, and nowhere else */
START_TEST(verify_pragma_attr_on_loop_var) {
  tir_ctx *c = tir_ctx_new();
  tir_diag d;
  tir_diag_init(&d);
  tir_expr *eight = tir_i32(c, 8);
  tir_buffer *A = tir_buffer_new(c, "A", TIR_INT32, &eight, 1, NULL, 0, NULL, "global", 0, 0, NULL);
  tir_expr *i = tir_var(c, "i", TIR_INT32), *j = tir_var(c, "j", TIR_INT32);
  tir_stmt *st = tir_store(c, A, i, &i, 1);
  tir_stmt *loop = tir_for(c, i, tir_i32(c, 0), eight, TIR_FOR_SERIAL, NULL, NULL, st);
  tir_stmt *inner = tir_attr_stmt(c, "pragma_b", i, tir_i32(c, 2), loop);
  tir_func *f = tir_alloc(c, sizeof *f);
  f->name = "p";
  f->params = tir_alloc(c, sizeof(tir_expr *));
  f->params[0] = tir_var(c, "a", TIR_HANDLE);
  f->nparams = 1;
  f->buffer_map = tir_alloc(c, sizeof(tir_buffer *));
  f->buffer_map[0] = A;
  f->body = tir_attr_stmt(c, "pragma_a", i, tir_i32(c, 1), inner);
  ck_assert(tir_verify_func(f, &d));
  ck_assert_int_eq(d.n, 0);
  /* a var no loop under the attr binds: reported */
  f->body = tir_attr_stmt(c, "pragma_a", j, tir_i32(c, 1), inner);
  ck_assert(!tir_verify_func(f, &d));
  ck_assert(diag_has(&d, "variable 'j' is used but not defined"));
  tir_diag_clear(&d);
  /* the loop var used by an attr that wraps something else: reported */
  tir_stmt *seq[] = {tir_attr_stmt(c, "pragma_a", i, tir_i32(c, 1), tir_evaluate(c, tir_i32(c, 0))), loop};
  f->body = tir_seq(c, seq, 2);
  ck_assert(!tir_verify_func(f, &d));
  ck_assert(diag_has(&d, "variable 'i' is used but not defined"));
  tir_diag_free(&d);
  tir_ctx_free(c);
}
END_TEST

/* ---- clone, promote, and the pipeline's reclaiming ---- */

/* n stages of bench/gen_stages.py's shape: blocks, an alloc_buffer, a
 * match_buffer and a reduction each (malloc'd) */
static char *stages(int n) {
  size_t cap = 1024 + (size_t)n * 1200, len = 0;
  char *s = malloc(cap);
  len += (size_t)snprintf(s + len, cap - len,
                          "# from tvm.script import tirx as T\n@T.prim_func(s_tir=True)\n"
                          "def stages(X: T.Buffer((8, 16), \"float32\"), Y: T.Buffer((64, 8), \"float32\")):\n");
  for (int k = 0; k < n; k++)
    len += (size_t)snprintf(
        s + len, cap - len,
        "    for i_%d in range(8):\n        with T.sblock(\"s%d\"):\n            vi = T.axis.spatial(8, i_%d)\n"
        "            T.reads(X[vi, 0:16])\n            T.writes(Y[%d, vi])\n"
        "            t%d = T.sblock_alloc_buffer((8, 16))\n            for r in range(16):\n"
        "                with T.sblock(\"r%d\"):\n                    vr = T.axis.reduce(16, r)\n"
        "                    T.reads(X[vi, vr])\n                    T.writes(Y[%d, vi], t%d[vi, vr])\n"
        "                    v = T.match_buffer(t%d[vi, vr], (1,), offset_factor=1)\n"
        "                    with T.init():\n                        Y[%d, vi] = T.float32(0.0)\n"
        "                    v[0] = X[vi, vr]\n                    Y[%d, vi] = Y[%d, vi] + v[0]\n",
        k, k, k, k % 64, k, k, k % 64, k, k, k % 64, k % 64, k % 64);
  return s;
}

START_TEST(clone_keeps_everything) {
  char *src = stages(3);
  tir_diag d;
  tir_diag_init(&d);
  tir_ctx *c = tir_ctx_new(), *c2 = tir_ctx_new();
  tir_module *m = tir_parse(c, src, strlen(src), &d);
  ck_assert_ptr_nonnull(m);
  tir_module *copy = tir_module_clone(c2, m);
  char *a = tir_print_module(m, NULL);
  tir_ctx_free(c); /* the copy owns all it holds */
  char *b = tir_print_module(copy, NULL);
  ck_assert_str_eq(a, b);
  /* a buffer met twice is one buffer in the copy: the param X of the buffer map and of a load */
  const tir_func *f = copy->funcs[0];
  ck_assert_ptr_nonnull(f->buffer_map[0]);
  uint32_t id = tir_ctx_next_id(c2);
  ck_assert_uint_gt(id, f->buffer_map[0]->id); /* ids past the copied ones */
  free(a);
  free(b);
  free(src);
  tir_ctx_free(c2);
  tir_diag_free(&d);
}
END_TEST

/* the default pipeline with reclaiming (tirc's) gives what it gives without:
 * the same text, and the IR the passes replaced is gone */
START_TEST(reclaim_same_result) {
  char *src = stages(400);
  tir_diag d;
  tir_diag_init(&d);
  tir_pipeline *p = tir_pipeline_parse("default", &d);
  tir_ctx *c1 = tir_ctx_new(), *c2 = tir_ctx_new();
  tir_module *m1 = tir_parse(c1, src, strlen(src), &d);
  tir_module *m2 = tir_parse(c2, src, strlen(src), &d);
  ck_assert_ptr_nonnull(m1);
  ck_assert_ptr_nonnull(m2);
  tir_module *o1 = tir_pipeline_run(p, c1, m1, NULL, &d);
  tir_module *o2 = tir_pipeline_run_reclaim(p, c2, m2, NULL, &d);
  ck_assert_ptr_nonnull(o1);
  ck_assert_ptr_nonnull(o2);
  ck_assert_int_eq(d.nerrors, 0);
  char *a = tir_print_module(o1, NULL), *b = tir_print_module(o2, NULL);
  ck_assert_str_eq(a, b);
  ck_assert(tir_struct_equal_func(o1->funcs[0], o2->funcs[0]));
  ck_assert_uint_lt(tir_ctx_bytes(c2), tir_ctx_bytes(c1) / 2); /* the replaced IR went */
  free(a);
  free(b);
  free(src);
  tir_pipeline_free(p);
  tir_ctx_free(c1);
  tir_ctx_free(c2);
  tir_diag_free(&d);
}
END_TEST

int main(void) {
  Suite *s = suite_create("passes");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, registry_lookup);
  tcase_add_test(tc, parse_list);
  tcase_add_test(tc, parse_named);
  tcase_add_test(tc, parse_unknown);
  tcase_add_test(tc, run_compact);
  tcase_add_test(tc, verify_rejects);
  tcase_add_test(tc, lower_match_error);
  tcase_add_test(tc, verify_after_pass_reports_once);
  tcase_add_test(tc, verify_pragma_attr_on_loop_var);
  tcase_add_test(tc, clone_keeps_everything);
  tcase_add_test(tc, reclaim_same_result);
  suite_add_tcase(s, tc);
  return tir_test_run_suite(s);
}
