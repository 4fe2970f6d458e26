/* test_visit.c - the visitor, the mutator (sharing of untouched subtrees)
 * and substitution. */
#include "testutil.h"

static tir_ctx *C;
static void setup(void) { C = tir_ctx_new(); }
static void teardown(void) { tir_ctx_free(C); }

static tir_expr *I(int64_t v) { return tir_i32(C, v); }
static tir_expr *B(tir_expr_kind k, tir_expr *a, tir_expr *b) { return tir_binary(C, k, a, b); }
static tir_expr *V(const char *n) { return tir_var(C, n, TIR_INT32); }

/* a block over buffer A (shape n) reading A[i:i+2], in a loop over i */
typedef struct fixture {
  tir_expr *n, *i, *m;
  tir_buffer *A;
  tir_stmt *loop, *realize, *store;
} fixture;

static fixture build(void) {
  fixture f;
  f.n = V("n");
  f.i = V("i");
  f.m = V("m");
  tir_expr *sh[] = {f.n};
  f.A = tir_buffer_new(C, "A", TIR_FLOAT32, sh, 1, NULL, 0, NULL, NULL, 0, 0, NULL);
  tir_block *b = tir_block_new(C, "blk");
  b->n_reads = 1;
  b->reads = tir_alloc(C, sizeof(tir_buffer_region));
  tir_range *r = tir_alloc(C, sizeof(tir_range));
  r[0] = (tir_range){f.i, I(2)};
  b->reads[0] = (tir_buffer_region){f.A, r, 1, {0, 0}};
  tir_expr *idx = B(TIR_ADD, f.i, f.m);
  f.store = tir_store(C, f.A, tir_load(C, f.A, &f.i, 1), &idx, 1);
  b->body = f.store;
  f.realize = tir_block_realize(C, NULL, 0, NULL, b);
  f.loop = tir_for(C, f.i, I(0), f.n, TIR_FOR_SERIAL, NULL, NULL, f.realize);
  return f;
}

typedef struct counts { int vars, stmts, regions, n_uses; const tir_expr *n; } counts;

static bool count_expr(tir_visitor *v, const tir_expr *e) {
  counts *c = v->user;
  if (e->kind == TIR_VAR) c->vars++;
  if (e == c->n) c->n_uses++;
  return true;
}
static bool count_stmt(tir_visitor *v, const tir_stmt *s) {
  (void)s;
  ((counts *)v->user)->stmts++;
  return true;
}
static void count_region(tir_visitor *v, const tir_buffer_region *r, const tir_stmt *owner) {
  (void)r;
  ck_assert_int_eq(owner->kind, TIR_BLOCK_REALIZE);
  ((counts *)v->user)->regions++;
}

START_TEST(test_visitor) {
  fixture f = build();
  counts c = {0};
  c.n = f.n;
  tir_visitor v = {.expr = count_expr, .stmt = count_stmt, .region = count_region, .user = &c};
  tir_visit_stmt(&v, f.loop);
  /* loop extent n; region min i; store: load idx i, store idx i, m */
  ck_assert_int_eq(c.vars, 5);
  ck_assert_int_eq(c.stmts, 3);
  ck_assert_int_eq(c.regions, 1);
  ck_assert_int_eq(c.n_uses, 1);
  /* with buffer fields, A's shape n is met at the region, load and store */
  counts c2 = {0};
  c2.n = f.n;
  tir_visitor v2 = {.expr = count_expr, .user = &c2, .visit_buffer_fields = true};
  tir_visit_stmt(&v2, f.loop);
  ck_assert_int_eq(c2.n_uses, 4);
}
END_TEST

static bool skip_stmts(tir_visitor *v, const tir_stmt *s) {
  (void)v;
  return s->kind != TIR_BLOCK_REALIZE;
}

START_TEST(test_visitor_skip) {
  fixture f = build();
  counts c = {0};
  tir_visitor v = {.expr = count_expr, .stmt = skip_stmts, .user = &c};
  tir_visit_stmt(&v, f.loop);
  ck_assert_int_eq(c.vars, 1); /* only the loop extent */
}
END_TEST

/* replaces m by 7 */
static tir_expr *m_to_7(tir_mutator *m, tir_expr *e) {
  return e == m->user ? tir_i32(m->ctx, 7) : e;
}

START_TEST(test_mutator_shares) {
  fixture f = build();
  tir_mutator id = {.ctx = C};
  ck_assert_ptr_eq(tir_mutate_stmt(&id, f.loop), f.loop);
  tir_mutator m = {.expr = m_to_7, .ctx = C, .user = f.m};
  tir_stmt *r = tir_mutate_stmt(&m, f.loop);
  ck_assert_ptr_ne(r, f.loop);
  ck_assert_ptr_eq(r->u.loop.extent, f.loop->u.loop.extent);
  tir_block *nb = r->u.loop.body->u.realize.block, *ob = f.realize->u.realize.block;
  ck_assert_ptr_ne(nb, ob);
  ck_assert_ptr_eq(nb->reads, ob->reads); /* untouched: shared */
  ck_assert_ptr_eq(nb->body->u.store.value, f.store->u.store.value);
  char *s = tir_print_expr(nb->body->u.store.idx[0]);
  ck_assert_str_eq(s, "i + 7");
  free(s);
  /* the original is unchanged */
  s = tir_print_expr(f.store->u.store.idx[0]);
  ck_assert_str_eq(s, "i + m");
  free(s);
}
END_TEST

static tir_stmt *drop_realize(tir_mutator *m, tir_stmt *s) {
  return s->kind == TIR_BLOCK_REALIZE ? tir_evaluate(m->ctx, tir_i32(m->ctx, 0)) : NULL;
}

static void widen(tir_mutator *m, tir_buffer_region *r) {
  tir_range *nr = tir_alloc(m->ctx, sizeof *nr * (size_t)r->n);
  for (int i = 0; i < r->n; i++) nr[i] = (tir_range){r->region[i].min, tir_i32(m->ctx, 4)};
  r->region = nr;
}

START_TEST(test_mutator_pre_and_region) {
  fixture f = build();
  tir_mutator m = {.pre_stmt = drop_realize, .ctx = C};
  tir_stmt *r = tir_mutate_stmt(&m, f.loop);
  char *s = tir_print_stmt(r);
  ck_assert_str_eq(s, "for i in range(n):\n    T.evaluate(0)\n");
  free(s);
  tir_mutator w = {.region = widen, .ctx = C};
  r = tir_mutate_stmt(&w, f.loop);
  ck_assert_ptr_ne(r, f.loop);
  tir_block *nb = r->u.loop.body->u.realize.block;
  int64_t ext;
  ck_assert(tir_is_const_int(nb->reads[0].region[0].extent, &ext));
  ck_assert_int_eq(ext, 4);
}
END_TEST

START_TEST(test_substitute) {
  fixture f = build();
  tir_var_map vm = {0};
  tir_var_map_set(&vm, f.m, B(TIR_MUL, f.n, I(2)));
  tir_var_map_set(&vm, f.n, I(16)); /* substitutes into A's shape too */
  ck_assert_int_eq(tir_var_map_get(&vm, f.n)->kind, TIR_INT_IMM);
  ck_assert_ptr_null(tir_var_map_get(&vm, f.i));
  tir_stmt *r = tir_substitute_stmt(C, f.loop, &vm);
  char *s = tir_print_stmt(r);
  ck_assert_str_eq(s,
                   "for i in range(16):\n"
                   "    with T.sblock(\"blk\"):\n"
                   "        T.reads(A[i:i + 2])\n"
                   "        T.writes()\n"
                   "        A[i + n * 2] = A[i]\n");
  free(s);
  /* the buffer was rebuilt once with shape 16, the same at every use */
  tir_stmt *st = r->u.loop.body->u.realize.block->body;
  tir_buffer *nb = st->u.store.buf;
  ck_assert_ptr_ne(nb, f.A);
  ck_assert_ptr_eq(nb, st->u.store.value->u.load.buf);
  ck_assert_ptr_eq(nb, r->u.loop.body->u.realize.block->reads[0].buf);
  int64_t v;
  ck_assert(tir_is_const_int(nb->shape[0], &v));
  ck_assert_int_eq(v, 16);
  /* an expr with no mapped var is returned as is */
  tir_expr *e = B(TIR_ADD, f.i, I(1));
  ck_assert_ptr_eq(tir_substitute_expr(C, e, &vm), e);
  tir_var_map_free(&vm);
  ck_assert_int_eq(vm.n, 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("visit");
  TCase *tc = tcase_create("visit");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_visitor);
  tcase_add_test(tc, test_visitor_skip);
  tcase_add_test(tc, test_mutator_shares);
  tcase_add_test(tc, test_mutator_pre_and_region);
  tcase_add_test(tc, test_substitute);
  suite_add_tcase(s, tc);
  return tir_test_run_suite(s);
}
