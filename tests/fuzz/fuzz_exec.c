/* fuzz_exec.c - the differential fuzzer: random valid TIR programs run
 * before and after every pass of the default pipeline (--verify-exec), and
 * their generated C against the interpreter.
 *
 *   fuzz_exec [--seed=S] [--count=N] [--c-every=K] [--out=DIR] [--time=SEC] [--progress=N] [--print]
 *
 * Each program (TVMScript text, the old `tir` spelling) is built from
 * stages over parameter buffers: elementwise blocks with affine and
 * floordiv/floormod indices, reductions with T.init, staged intermediates
 * allocated in blocks (what CompactBufferAllocation shrinks), match_buffer
 * views read and written, GPU stages with blockIdx/threadIdx loops, shared
 * memory and barriers, branches.  Every index is in bounds and every
 * intermediate element is written before it is read, so the program runs
 * clean; a checked-execution error is the generator's bug.
 *
 * For each program: parse, run the default pipeline and PlanMemory with verify_exec (a
 * pass that changes a result, or makes the run fail, is reported); every
 * K-th program's C (tir_codegen_c) is compiled with gcc in batches and run
 * against the interpreter's result.  A failing program is written to DIR
 * (default /tmp/fuzz_exec) as fail_SEED_N.tir with the message.  Prints
 * counts; exit 1 when anything failed. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tir/tir.h"

/* ------------------------------------------------------------------ */
/* text                                                                 */

typedef struct sb {
  char *s;
  size_t n, cap;
} sb;

static void sb_printf(sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sb *b, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (b->s && (size_t)k < b->cap - b->n) {
      b->n += (size_t)k;
      return;
    }
    b->cap = (b->cap + (size_t)k + 64) * 2;
    b->s = realloc(b->s, b->cap);
    if (!b->s) abort();
  }
}

static void ind(sb *b, int d) {
  for (int i = 0; i < d; i++) sb_printf(b, "    ");
}

/* ------------------------------------------------------------------ */
/* the generator                                                        */

static uint64_t rng_state;
static uint64_t rnd(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int R(int n) { return n <= 1 ? 0 : (int)(rnd() % (uint64_t)n); }
static bool coin(int pct) { return R(100) < pct; }

typedef struct gbuf {
  char name[16];
  int ndim;
  int shape[3];
  const char *dtype; /* "int32", "float32", "int8" */
} gbuf;

typedef struct gvar {
  char name[16];
  int ext; /* the var ranges over [0, ext) */
} gvar;

typedef struct gen {
  sb b;
  gbuf in[3], out[2];
  int nin, nout;
  int uid;
  bool is_float;
  bool has_extern; /* calls an opaque extern: no C to link */
} gen;

/* an int expression of vars in [0, bound): affine, wrapped by floormod, or
 * a floordiv of a var by a constant */
static void index_expr(gen *g, const gvar *vs, int nv, int bound) {
  sb *b = &g->b;
  if (nv && coin(40)) {
    const gvar *v = &vs[R(nv)];
    if (v->ext <= bound) {
      sb_printf(b, "%s", v->name);
      return;
    }
  }
  if (nv && coin(25)) {
    const gvar *v = &vs[R(nv)];
    int k = (v->ext + bound - 1) / bound; /* v // k < bound */
    if (k < 1) k = 1;
    if (k > 1 || coin(50)) {
      sb_printf(b, "%s // %d", v->name, k);
      return;
    }
  }
  /* T.floormod(sum, bound) */
  sb_printf(b, "T.floormod(");
  int terms = 1 + R(3);
  for (int t = 0; t < terms; t++) {
    int c = R(7) - 3;
    if (c == 0) c = 1;
    if (t) sb_printf(b, " + ");
    if (nv) sb_printf(b, "%s * %d", vs[R(nv)].name, c);
    else sb_printf(b, "%d", c);
  }
  if (coin(50)) sb_printf(b, " + %d", R(9) - 4);
  sb_printf(b, ", %d)", bound);
}

static void access(gen *g, const gbuf *buf, const gvar *vs, int nv) {
  sb_printf(&g->b, "%s[", buf->name);
  for (int d = 0; d < buf->ndim; d++) {
    if (d) sb_printf(&g->b, ", ");
    index_expr(g, vs, nv, buf->shape[d]);
  }
  sb_printf(&g->b, "]");
}

/* a value expression: inputs read at in-bounds indices, combined */
static void value_expr(gen *g, const gvar *vs, int nv, int depth) {
  sb *b = &g->b;
  int k = R(depth > 2 ? 3 : 8);
  const char *cast = g->is_float ? "float32" : "int32";
  switch (k) {
  case 0: case 1: {
    const gbuf *in = &g->in[R(g->nin)];
    if (strcmp(in->dtype, cast)) {
      sb_printf(b, "T.Cast(\"%s\", ", cast);
      access(g, in, vs, nv);
      sb_printf(b, ")");
    } else {
      access(g, in, vs, nv);
    }
    return;
  }
  case 2:
    if (g->is_float) sb_printf(b, "T.float32(%d.5)", R(5) - 2);
    else if (nv && coin(50)) sb_printf(b, "%s", vs[R(nv)].name);
    else sb_printf(b, "%d", R(11) - 5);
    return;
  case 3: case 4: {
    static const char *ops[] = {" + ", " - ", " * "};
    sb_printf(b, "(");
    value_expr(g, vs, nv, depth + 1);
    sb_printf(b, "%s", ops[R(3)]);
    value_expr(g, vs, nv, depth + 1);
    sb_printf(b, ")");
    return;
  }
  case 5:
    sb_printf(b, "T.%s(", coin(50) ? "max" : "min");
    value_expr(g, vs, nv, depth + 1);
    sb_printf(b, ", ");
    value_expr(g, vs, nv, depth + 1);
    sb_printf(b, ")");
    return;
  case 6:
    if (!g->is_float) {
      sb_printf(b, "T.%s(", coin(50) ? "floordiv" : "floormod");
      value_expr(g, vs, nv, depth + 1);
      sb_printf(b, ", %d)", coin(50) ? 1 + R(7) : -(1 + R(5)));
      return;
    }
    /* fall through */
  default:
    sb_printf(b, "T.Select(");
    if (nv) sb_printf(b, "%s < %d", vs[R(nv)].name, 1 + R(4));
    else sb_printf(b, "True");
    sb_printf(b, ", ");
    value_expr(g, vs, nv, depth + 1);
    sb_printf(b, ", ");
    value_expr(g, vs, nv, depth + 1);
    sb_printf(b, ")");
    return;
  }
}

/* loops over each dim of `shape`; adds their vars; returns the depth */
static int open_loops(gen *g, int d, gvar *vs, int *nv, const int *shape, int ndim, const char *kind) {
  for (int k = 0; k < ndim; k++) {
    gvar *v = &vs[(*nv)++];
    snprintf(v->name, sizeof v->name, "i%d", g->uid++);
    v->ext = shape[k];
    ind(&g->b, d);
    if (kind) sb_printf(&g->b, "for %s in T.%s(%d):\n", v->name, kind, shape[k]);
    else sb_printf(&g->b, "for %s in range(%d):\n", v->name, shape[k]);
    d++;
  }
  return d;
}

/* OUT[loop vars] = value, in a block with spatial iter vars bound to the loops */
static void stage_elementwise(gen *g, int d, const gvar *outer, int nouter) {
  const gbuf *o = &g->out[R(g->nout)];
  gvar vs[16];
  int nv = 0;
  if (nouter) memcpy(vs, outer, sizeof *vs * (size_t)nouter);
  nv = nouter;
  int base = nv;
  const char *kind = coin(20) ? (coin(50) ? "vectorized" : "unroll") : NULL;
  d = open_loops(g, d, vs, &nv, o->shape, o->ndim, kind);
  sb *b = &g->b;
  if (coin(25)) { /* a branch around the block */
    ind(b, d);
    sb_printf(b, "if %s %% 2 == %d:\n", vs[nv - 1].name, R(2));
    d++;
  }
  ind(b, d);
  sb_printf(b, "with T.block(\"e%d\"):\n", g->uid++);
  d++;
  /* iter vars: v_k = loop var k */
  gvar iv[8];
  for (int k = 0; k < o->ndim; k++) {
    snprintf(iv[k].name, sizeof iv[k].name, "v%d", g->uid++);
    iv[k].ext = o->shape[k];
    ind(b, d);
    sb_printf(b, "%s = T.axis.spatial(%d, %s)\n", iv[k].name, o->shape[k], vs[base + k].name);
  }
  if (coin(20)) {
    ind(b, d);
    sb_printf(b, "T.where(%s < %d)\n", vs[base].name, 1 + R(o->shape[0]));
  }
  ind(b, d);
  sb_printf(b, "%s[", o->name);
  for (int k = 0; k < o->ndim; k++) sb_printf(b, "%s%s", k ? ", " : "", iv[k].name);
  sb_printf(b, "] = ");
  gvar all[24];
  if (nouter) memcpy(all, outer, sizeof *all * (size_t)nouter);
  memcpy(all + nouter, iv, sizeof *iv * (size_t)o->ndim);
  value_expr(g, all, nouter + o->ndim, 0);
  sb_printf(b, "\n");
}

/* OUT[i..] = sum over r of value: a reduction block with T.init */
static void stage_reduce(gen *g, int d, const gvar *outer, int nouter) {
  const gbuf *o = &g->out[R(g->nout)];
  gvar vs[16];
  int nv = nouter;
  if (nouter) memcpy(vs, outer, sizeof *vs * (size_t)nouter);
  int base = nv;
  int shape[4];
  memcpy(shape, o->shape, sizeof(int) * (size_t)o->ndim);
  shape[o->ndim] = 1 + R(6); /* the reduction extent */
  d = open_loops(g, d, vs, &nv, shape, o->ndim + 1, NULL);
  sb *b = &g->b;
  ind(b, d);
  sb_printf(b, "with T.block(\"r%d\"):\n", g->uid++);
  d++;
  gvar iv[8];
  for (int k = 0; k <= o->ndim; k++) {
    snprintf(iv[k].name, sizeof iv[k].name, "v%d", g->uid++);
    iv[k].ext = shape[k];
    ind(b, d);
    sb_printf(b, "%s = T.axis.%s(%d, %s)\n", iv[k].name, k == o->ndim ? "reduce" : "spatial", shape[k],
              vs[base + k].name);
  }
  char lhs[128];
  int n = snprintf(lhs, sizeof lhs, "%s[", o->name);
  for (int k = 0; k < o->ndim; k++) n += snprintf(lhs + n, sizeof lhs - (size_t)n, "%s%s", k ? ", " : "", iv[k].name);
  snprintf(lhs + n, sizeof lhs - (size_t)n, "]");
  ind(b, d);
  sb_printf(b, "with T.init():\n");
  ind(b, d + 1);
  sb_printf(b, "%s = %s\n", lhs, g->is_float ? "T.float32(0)" : (coin(50) ? "0" : "T.int32(1)"));
  ind(b, d);
  sb_printf(b, "%s = %s %s ", lhs, lhs, coin(70) ? "+" : (g->is_float ? "+" : "*"));
  gvar all[24];
  if (nouter) memcpy(all, outer, sizeof *all * (size_t)nouter);
  memcpy(all + nouter, iv, sizeof *iv * (size_t)(o->ndim + 1));
  value_expr(g, all, nouter + o->ndim + 1, 1);
  sb_printf(b, "\n");
}

/* for i: block: S = alloc (E1*E2,) [scope]; write S[i*E2 + j] for all j;
 * OUT[...] = f(S[i*E2 + perm(j)]) */
static void stage_staged(gen *g, int d, bool views) {
  sb *b = &g->b;
  const gbuf *o = &g->out[R(g->nout)];
  int e1 = o->shape[0], e2 = 1 + R(6);
  const char *scope = coin(30) ? "local" : coin(50) ? "shared" : "global";
  gvar vs[16];
  int nv = 0;
  int sh1[1] = {e1};
  d = open_loops(g, d, vs, &nv, sh1, 1, NULL);
  const char *i = vs[0].name;
  ind(b, d);
  sb_printf(b, "with T.block(\"s%d\"):\n", g->uid++);
  d++;
  char S[16];
  snprintf(S, sizeof S, "S%d", g->uid++);
  ind(b, d);
  sb_printf(b, "%s = T.alloc_buffer((%d,), \"%s\", scope=\"%s\")\n", S, e1 * e2, g->is_float ? "float32" : "int32",
            scope);
  /* the writes */
  int sh2[1] = {e2};
  int d2 = open_loops(g, d, vs, &nv, sh2, 1, NULL);
  const char *j = vs[nv - 1].name;
  ind(b, d2);
  sb_printf(b, "with T.block(\"w%d\"):\n", g->uid++);
  if (views && coin(50)) { /* written through a view of the row */
    char V[16];
    snprintf(V, sizeof V, "V%d", g->uid++);
    ind(b, d2 + 1);
    sb_printf(b, "%s = T.match_buffer(%s[%s * %d + %s:%s * %d + %s + 1], (1,), \"%s\", scope=\"%s\", offset_factor=1)\n", V, S, i, e2, j, i,
              e2, j, g->is_float ? "float32" : "int32", scope);
    ind(b, d2 + 1);
    sb_printf(b, "%s[0] = ", V);
  } else {
    ind(b, d2 + 1);
    sb_printf(b, "%s[%s * %d + %s] = ", S, i, e2, j);
  }
  value_expr(g, vs, nv, 0);
  sb_printf(b, "\n");
  nv--;
  /* the reads: a row of OUT (dims past the first wrapped) */
  int rest[3];
  for (int k = 1; k < o->ndim; k++) rest[k - 1] = o->shape[k];
  int d3 = open_loops(g, d, vs, &nv, rest, o->ndim - 1, NULL);
  ind(b, d3);
  sb_printf(b, "with T.block(\"u%d\"):\n", g->uid++);
  ind(b, d3 + 1);
  sb_printf(b, "%s[%s", o->name, i);
  for (int k = 1; k < o->ndim; k++) sb_printf(b, ", %s", vs[nv - o->ndim + k].name);
  sb_printf(b, "] = %s[%s * %d + T.floormod(", S, i, e2);
  index_expr(g, vs, nv, 1000);
  sb_printf(b, ", %d)] %s ", e2, coin(50) ? "+" : "*");
  value_expr(g, vs, nv, 1);
  sb_printf(b, "\n");
}

/* a view of a row of an input, read in a block */
static void stage_view(gen *g, int d) {
  sb *b = &g->b;
  const gbuf *o = &g->out[R(g->nout)];
  const gbuf *in = NULL;
  for (int t = 0; t < 4 && !in; t++) {
    const gbuf *c = &g->in[R(g->nin)];
    if (c->ndim >= 2 && !strcmp(c->dtype, g->is_float ? "float32" : "int32")) in = c;
  }
  if (!in) {
    stage_elementwise(g, d, NULL, 0);
    return;
  }
  gvar vs[16];
  int nv = 0;
  int sh1[1] = {o->shape[0]};
  d = open_loops(g, d, vs, &nv, sh1, 1, NULL);
  ind(b, d);
  sb_printf(b, "with T.block(\"m%d\"):\n", g->uid++);
  d++;
  char V[16];
  snprintf(V, sizeof V, "V%d", g->uid++);
  int row = in->shape[0];
  ind(b, d);
  bool strided = coin(50);
  /* a whole row of `in` (its first index wraps the loop var), as a 1-D view */
  sb_printf(b, "%s = T.match_buffer(%s[T.floormod(%s, %d), 0:%d", V, in->name, vs[0].name, row, in->shape[1]);
  for (int k = 2; k < in->ndim; k++) sb_printf(b, ", 0:%d", in->shape[k]);
  sb_printf(b, "], (%d", in->shape[1]);
  for (int k = 2; k < in->ndim; k++) sb_printf(b, ", %d", in->shape[k]);
  sb_printf(b, "), \"%s\"%s, offset_factor=1)\n", in->dtype, strided ? (in->ndim == 2 ? ", strides=[1]" : "") : "");
  gvar vv[4];
  int nvv = 0;
  for (int k = 1; k < in->ndim; k++) {
    snprintf(vv[nvv].name, sizeof vv[nvv].name, "i%d", g->uid++);
    vv[nvv].ext = in->shape[k];
    nvv++;
  }
  int rest[3];
  for (int k = 1; k < o->ndim; k++) rest[k - 1] = o->shape[k];
  int nv0 = nv;
  int d3 = open_loops(g, d, vs, &nv, rest, o->ndim - 1, NULL);
  ind(b, d3);
  sb_printf(b, "%s[%s", o->name, vs[0].name);
  for (int k = nv0; k < nv; k++) sb_printf(b, ", %s", vs[k].name);
  sb_printf(b, "] = %s[", V);
  for (int k = 1; k < in->ndim; k++) {
    if (k > 1) sb_printf(b, ", ");
    index_expr(g, vs, nv, in->shape[k]);
  }
  sb_printf(b, "] + ");
  value_expr(g, vs, nv, 1);
  sb_printf(b, "\n");
}

/* blockIdx x threadIdx; shared S per block; write, barrier, read another's */
static void stage_gpu(gen *g, int d) {
  sb *b = &g->b;
  const gbuf *o = NULL;
  for (int t = 0; t < 4 && !o; t++)
    if (g->out[t % g->nout].ndim == 1) o = &g->out[t % g->nout];
  if (!o) o = &g->out[0];
  int n = 1;
  for (int k = 0; k < o->ndim; k++) n *= o->shape[k];
  int tx = 1 + R(8), bx = (n + tx - 1) / tx;
  char B[16], T_[16], S[16];
  snprintf(B, sizeof B, "bx%d", g->uid++);
  snprintf(T_, sizeof T_, "tx%d", g->uid++);
  snprintf(S, sizeof S, "S%d", g->uid++);
  ind(b, d);
  sb_printf(b, "for %s in T.thread_binding(%d, thread=\"blockIdx.x\"):\n", B, bx);
  ind(b, d + 1);
  sb_printf(b, "for %s in T.thread_binding(%d, thread=\"threadIdx.x\"):\n", T_, tx);
  ind(b, d + 2);
  sb_printf(b, "with T.block(\"g%d\"):\n", g->uid++);
  d += 3;
  ind(b, d);
  sb_printf(b, "%s = T.alloc_buffer((%d,), \"%s\", scope=\"shared\")\n", S, tx, g->is_float ? "float32" : "int32");
  gvar vs[2] = {{"", bx}, {"", tx}};
  strcpy(vs[0].name, B);
  strcpy(vs[1].name, T_);
  ind(b, d);
  sb_printf(b, "%s[%s] = ", S, T_);
  value_expr(g, vs, 2, 1);
  sb_printf(b, "\n");
  bool sync = coin(80);
  if (sync) {
    ind(b, d);
    sb_printf(b, "T.evaluate(T.tvm_storage_sync(\"shared\"))\n");
  }
  /* the flat element bx*tx + t of OUT, when it exists */
  ind(b, d);
  sb_printf(b, "if %s * %d + %s < %d:\n", B, tx, T_, n);
  ind(b, d + 1);
  sb_printf(b, "%s[", o->name);
  int stride = n;
  for (int k = 0; k < o->ndim; k++) {
    stride /= o->shape[k];
    sb_printf(b, "%s(%s * %d + %s) // %d %% %d", k ? ", " : "", B, tx, T_, stride, o->shape[k]);
  }
  if (sync) sb_printf(b, "] = %s[(%s + %d) %% %d] + %s[%s]\n", S, T_, 1 + R(tx), tx, S, T_);
  else sb_printf(b, "] = %s[%s] * 2\n", S, T_);
}

/* a reduction into an intermediate allocated in a block, then copied out:
 * T.init, compaction and allocation planning together */
static void stage_reduce_tmp(gen *g, int d) {
  sb *b = &g->b;
  const gbuf *o = &g->out[R(g->nout)];
  int e1 = o->shape[0], er = 1 + R(5);
  const char *ty = g->is_float ? "float32" : "int32";
  gvar vs[16];
  int nv = 0;
  int sh1[1] = {e1};
  d = open_loops(g, d, vs, &nv, sh1, 1, NULL);
  ind(b, d);
  sb_printf(b, "with T.block(\"t%d\"):\n", g->uid++);
  d++;
  char S[16];
  snprintf(S, sizeof S, "S%d", g->uid++);
  int rows = coin(50) ? e1 : e1 + R(3);
  ind(b, d);
  sb_printf(b, "%s = T.alloc_buffer((%d, %d), \"%s\", scope=\"%s\")\n", S, rows, er, ty, coin(50) ? "local" : "global");
  int sh2[2] = {er, er};
  int d2 = open_loops(g, d, vs, &nv, sh2, 2, NULL);
  ind(b, d2);
  sb_printf(b, "with T.block(\"q%d\"):\n", g->uid++);
  char a[16], r[16];
  snprintf(a, sizeof a, "v%d", g->uid++);
  snprintf(r, sizeof r, "v%d", g->uid++);
  ind(b, d2 + 1);
  sb_printf(b, "%s = T.axis.spatial(%d, %s)\n", a, er, vs[nv - 2].name);
  ind(b, d2 + 1);
  sb_printf(b, "%s = T.axis.reduce(%d, %s)\n", r, er, vs[nv - 1].name);
  ind(b, d2 + 1);
  sb_printf(b, "with T.init():\n");
  ind(b, d2 + 2);
  sb_printf(b, "%s[%s, %s] = %s\n", S, vs[0].name, a, g->is_float ? "T.float32(0)" : "0");
  ind(b, d2 + 1);
  sb_printf(b, "%s[%s, %s] = %s[%s, %s] + ", S, vs[0].name, a, S, vs[0].name, a);
  gvar all[4] = {vs[0], {"", er}, {"", er}};
  strcpy(all[1].name, a);
  strcpy(all[2].name, r);
  value_expr(g, all, 3, 1);
  sb_printf(b, "\n");
  nv -= 2;
  int rest[3];
  for (int k = 1; k < o->ndim; k++) rest[k - 1] = o->shape[k];
  int nv0 = nv;
  int d3 = open_loops(g, d, vs, &nv, rest, o->ndim - 1, NULL);
  ind(b, d3);
  sb_printf(b, "with T.block(\"c%d\"):\n", g->uid++);
  ind(b, d3 + 1);
  sb_printf(b, "%s[%s", o->name, vs[0].name);
  for (int k = nv0; k < nv; k++) sb_printf(b, ", %s", vs[k].name);
  sb_printf(b, "] = %s[%s, ", S, vs[0].name);
  index_expr(g, vs, nv, er);
  sb_printf(b, "]\n");
}

/* a strided 2-D view with stride and elem_offset vars, written, then read */
static void stage_strided_view(gen *g, int d) {
  sb *b = &g->b;
  const gbuf *o = &g->out[R(g->nout)];
  int e1 = o->shape[0], r = 1 + R(3), c = 1 + R(4), cols = c + R(4);
  const char *ty = g->is_float ? "float32" : "int32";
  gvar vs[16];
  int nv = 0;
  int sh1[1] = {e1};
  d = open_loops(g, d, vs, &nv, sh1, 1, NULL);
  ind(b, d);
  sb_printf(b, "with T.block(\"x%d\"):\n", g->uid++);
  d++;
  char S[16];
  snprintf(S, sizeof S, "S%d", g->uid++);
  ind(b, d);
  sb_printf(b, "%s = T.alloc_buffer((%d, %d), \"%s\")\n", S, e1 * r, cols, ty);
  int u = g->uid++;
  ind(b, d);
  sb_printf(b, "with T.block(\"y%d\"):\n", u);
  int dd = d + 1;
  ind(b, dd);
  sb_printf(b, "s0_%d = T.int32()\n", u);
  ind(b, dd);
  sb_printf(b, "eo_%d = T.int32()\n", u);
  int c0 = R(cols - c + 1);
  ind(b, dd);
  sb_printf(b, "W%d = T.match_buffer(%s[%s * %d:%s * %d + %d, %d:%d], (%d, %d), \"%s\", strides=[s0_%d, 1], elem_offset=eo_%d, offset_factor=1)\n",
            u, S, vs[0].name, r, vs[0].name, r, r, c0, c0 + c, r, c, ty, u, u);
  /* every element of the view, and the rest of the rows' columns directly */
  int sh2[2] = {r, c};
  int d2 = open_loops(g, dd, vs, &nv, sh2, 2, NULL);
  ind(b, d2);
  sb_printf(b, "W%d[%s, %s] = ", u, vs[nv - 2].name, vs[nv - 1].name);
  value_expr(g, vs, nv, 1); /* (not s0 or eo: the layout is the passes' to change) */
  sb_printf(b, "\n");
  nv -= 2;
  int rest[3];
  for (int k = 1; k < o->ndim; k++) rest[k - 1] = o->shape[k];
  int nv0 = nv;
  int d3 = open_loops(g, d, vs, &nv, rest, o->ndim - 1, NULL);
  ind(b, d3);
  sb_printf(b, "with T.block(\"z%d\"):\n", g->uid++);
  ind(b, d3 + 1);
  sb_printf(b, "%s[%s", o->name, vs[0].name);
  for (int k = nv0; k < nv; k++) sb_printf(b, ", %s", vs[k].name);
  sb_printf(b, "] = %s[%s * %d + ", S, vs[0].name, r);
  index_expr(g, vs, nv, r);
  sb_printf(b, ", %d + ", c0);
  index_expr(g, vs, nv, c);
  sb_printf(b, "]\n");
}

/* an outer loop around stages that use its var; loops with a min; lets; if/else */
static void stage_nested(gen *g, int d) {
  sb *b = &g->b;
  const gbuf *o = &g->out[R(g->nout)];
  int lo = R(3), n = 1 + R(3);
  char v[16];
  snprintf(v, sizeof v, "n%d", g->uid++);
  ind(b, d);
  sb_printf(b, "for %s in range(%d, %d):\n", v, lo, lo + n);
  gvar outer[2] = {{"", lo + n}};
  strcpy(outer[0].name, v);
  int nouter = 1;
  if (!g->is_float && coin(50)) {
    snprintf(outer[1].name, sizeof outer[1].name, "l%d", g->uid++);
    outer[1].ext = 1000000;
    ind(b, d + 1);
    sb_printf(b, "%s: T.int32 = %s * %d + %d\n", outer[1].name, v, 1 + R(3), R(5));
    nouter = 2;
  }
  if (coin(50)) {
    ind(b, d + 1);
    sb_printf(b, "if %s %% 2 == 0:\n", v);
    stage_elementwise(g, d + 2, outer, nouter);
    ind(b, d + 1);
    sb_printf(b, "else:\n");
    stage_reduce(g, d + 2, outer, nouter);
  } else {
    stage_elementwise(g, d + 1, outer, nouter);
  }
  (void)o;
}

/* shared memory allocated per thread block outside the thread loops,
 * filled by one thread loop and read across threads by the next */
static void stage_gpu2(gen *g, int d) {
  sb *b = &g->b;
  const gbuf *o = &g->out[R(g->nout)];
  int n = 1;
  for (int k = 0; k < o->ndim; k++) n *= o->shape[k];
  int tx = 1 + R(8), bx = (n + tx - 1) / tx;
  const char *ty = g->is_float ? "float32" : "int32";
  int u = g->uid++;
  ind(b, d);
  sb_printf(b, "for bx%d in T.thread_binding(%d, thread=\"blockIdx.x\"):\n", u, bx);
  ind(b, d + 1);
  sb_printf(b, "with T.block(\"gb%d\"):\n", u);
  ind(b, d + 2);
  sb_printf(b, "S%d = T.alloc_buffer((%d,), \"%s\", scope=\"%s\")\n", u, tx, ty, coin(80) ? "shared" : "global");
  char B[16], T1[16], T2[16];
  snprintf(B, sizeof B, "bx%d", u);
  snprintf(T1, sizeof T1, "tx%d", g->uid++);
  snprintf(T2, sizeof T2, "tx%d", g->uid++);
  ind(b, d + 2);
  sb_printf(b, "for %s in T.thread_binding(%d, thread=\"threadIdx.x\"):\n", T1, tx);
  ind(b, d + 3);
  sb_printf(b, "with T.block(\"ld%d\"):\n", g->uid++);
  ind(b, d + 4);
  sb_printf(b, "S%d[%s] = ", u, T1);
  gvar vs[2] = {{"", bx}, {"", tx}};
  strcpy(vs[0].name, B);
  strcpy(vs[1].name, T1);
  value_expr(g, vs, 2, 1);
  sb_printf(b, "\n");
  ind(b, d + 2);
  sb_printf(b, "for %s in T.thread_binding(%d, thread=\"threadIdx.x\"):\n", T2, tx);
  ind(b, d + 3);
  sb_printf(b, "with T.block(\"st%d\"):\n", g->uid++);
  ind(b, d + 4);
  sb_printf(b, "T.where(%s * %d + %s < %d)\n", B, tx, T2, n);
  ind(b, d + 4);
  sb_printf(b, "%s[", o->name);
  int stride = n;
  for (int k = 0; k < o->ndim; k++) {
    stride /= o->shape[k];
    sb_printf(b, "%s(%s * %d + %s) // %d %% %d", k ? ", " : "", B, tx, T2, stride, o->shape[k]);
  }
  strcpy(vs[1].name, T2);
  sb_printf(b, "] = S%d[", u);
  index_expr(g, vs, 2, tx);
  sb_printf(b, "] + S%d[%s]\n", u, T2);
}

/* a split loop with a tail: blocks bound to io * f + ii under T.where */
static void stage_tail(gen *g, int d) {
  sb *b = &g->b;
  const gbuf *o = &g->out[R(g->nout)];
  int n = o->shape[0], f = 1 + R(4), outer = (n + f - 1) / f;
  int u = g->uid++;
  ind(b, d);
  sb_printf(b, "for io%d, ii%d in T.grid(%d, %d):\n", u, u, outer, f);
  ind(b, d + 1);
  sb_printf(b, "with T.block(\"tl%d\"):\n", u);
  ind(b, d + 2);
  sb_printf(b, "vi%d = T.axis.spatial(%d, io%d * %d + ii%d)\n", u, n, u, f, u);
  ind(b, d + 2);
  sb_printf(b, "T.where(io%d * %d + ii%d < %d)\n", u, f, u, n);
  gvar vs[4];
  snprintf(vs[0].name, sizeof vs[0].name, "vi%d", u);
  vs[0].ext = n;
  int nv = 1;
  int rest[3];
  for (int k = 1; k < o->ndim; k++) rest[k - 1] = o->shape[k];
  int d3 = open_loops(g, d + 2, vs, &nv, rest, o->ndim - 1, NULL);
  ind(b, d3);
  sb_printf(b, "%s[vi%d", o->name, u);
  for (int k = 1; k < nv; k++) sb_printf(b, ", %s", vs[k].name);
  sb_printf(b, "] = ");
  value_expr(g, vs, nv, 0);
  sb_printf(b, "\n");
}

/* lets inside loops inside a block: index values bound by lets (block
 * access inference must see through them) */
static void stage_lets(gen *g, int d) {
  sb *b = &g->b;
  const gbuf *o = &g->out[R(g->nout)];
  int e1 = o->shape[0], e2 = 1 + R(5);
  const char *ty = g->is_float ? "float32" : "int32";
  int u = g->uid++;
  ind(b, d);
  sb_printf(b, "with T.block(\"lb%d\"):\n", u);
  ind(b, d + 1);
  sb_printf(b, "S%d = T.alloc_buffer((%d, %d), \"%s\")\n", u, e1, e2, ty);
  ind(b, d + 1);
  sb_printf(b, "for ij%d in range(%d):\n", u, e1 * e2);
  ind(b, d + 2);
  sb_printf(b, "a%d: T.int32 = ij%d // %d\n", u, u, e2);
  ind(b, d + 2);
  sb_printf(b, "c%d: T.int32 = ij%d %% %d\n", u, u, e2);
  gvar vs[3];
  snprintf(vs[0].name, sizeof vs[0].name, "a%d", u);
  vs[0].ext = e1;
  snprintf(vs[1].name, sizeof vs[1].name, "c%d", u);
  vs[1].ext = e2;
  ind(b, d + 2);
  sb_printf(b, "S%d[a%d, c%d] = ", u, u, u);
  value_expr(g, vs, 2, 1);
  sb_printf(b, "\n");
  int nv = 0;
  gvar lv[8];
  d = open_loops(g, d + 1, lv, &nv, o->shape, o->ndim, NULL);
  ind(b, d);
  sb_printf(b, "%s[", o->name);
  for (int k = 0; k < o->ndim; k++) sb_printf(b, "%s%s", k ? ", " : "", lv[k].name);
  sb_printf(b, "] = S%d[%s, ", u, lv[0].name);
  index_expr(g, lv, nv, e2);
  sb_printf(b, "]\n");
}

/* an opaque extern writing a row of an intermediate through
 * tvm_access_ptr (compaction must move the pointer) */
static void stage_extern(gen *g, int d) {
  sb *b = &g->b;
  const gbuf *o = &g->out[R(g->nout)];
  int e1 = o->shape[0], e2 = 1 + R(6);
  const char *ty = g->is_float ? "float32" : "int32";
  int u = g->uid++;
  g->has_extern = true;
  ind(b, d);
  sb_printf(b, "for i%d in range(%d):\n", u, e1);
  ind(b, d + 1);
  sb_printf(b, "with T.block(\"xb%d\"):\n", u);
  ind(b, d + 2);
  sb_printf(b, "S%d = T.alloc_buffer((%d,), \"%s\")\n", u, e1 * e2, ty);
  ind(b, d + 2);
  sb_printf(b, "with T.block(\"xf%d\"):\n", u);
  ind(b, d + 3);
  sb_printf(b, "T.reads()\n");
  ind(b, d + 3);
  sb_printf(b, "T.writes(S%d[i%d * %d:i%d * %d + %d])\n", u, u, e2, u, e2, e2);
  ind(b, d + 3);
  sb_printf(b, "T.evaluate(T.call_extern(\"int32\", \"fill%d\", S%d.access_ptr(\"w\", offset=i%d * %d, extent=%d), i%d))\n",
            R(3), u, u, e2, e2, u);
  gvar vs[4];
  snprintf(vs[0].name, sizeof vs[0].name, "i%d", u);
  vs[0].ext = e1;
  int nv = 1;
  int rest[3];
  for (int k = 1; k < o->ndim; k++) rest[k - 1] = o->shape[k];
  int d3 = open_loops(g, d + 2, vs, &nv, rest, o->ndim - 1, NULL);
  ind(b, d3);
  sb_printf(b, "with T.block(\"xr%d\"):\n", g->uid++);
  ind(b, d3 + 1);
  sb_printf(b, "%s[i%d", o->name, u);
  for (int k = 1; k < nv; k++) sb_printf(b, ", %s", vs[k].name);
  sb_printf(b, "] = S%d[i%d * %d + ", u, u, e2);
  index_expr(g, vs, nv, e2);
  sb_printf(b, "]\n");
}

/* threadIdx.y x threadIdx.x with a per-thread local accumulator and a
 * shared tile read across both dims after a barrier */
static void stage_gpu3(gen *g, int d) {
  sb *b = &g->b;
  const gbuf *o = &g->out[R(g->nout)];
  int n = 1;
  for (int k = 0; k < o->ndim; k++) n *= o->shape[k];
  int ty_ = 1 + R(3), tx = 1 + R(4), bx = (n + tx * ty_ - 1) / (tx * ty_);
  const char *dt = g->is_float ? "float32" : "int32";
  int u = g->uid++;
  ind(b, d);
  sb_printf(b, "for bx%d in T.thread_binding(%d, thread=\"blockIdx.x\"):\n", u, bx);
  ind(b, d + 1);
  sb_printf(b, "for ty%d in T.thread_binding(%d, thread=\"threadIdx.y\"):\n", u, ty_);
  ind(b, d + 2);
  sb_printf(b, "for tx%d in T.thread_binding(%d, thread=\"threadIdx.x\"):\n", u, tx);
  ind(b, d + 3);
  sb_printf(b, "with T.block(\"g3_%d\"):\n", u);
  int e = d + 4;
  ind(b, e);
  sb_printf(b, "S%d = T.alloc_buffer((%d, %d), \"%s\", scope=\"shared\")\n", u, ty_, tx, dt);
  ind(b, e);
  sb_printf(b, "L%d = T.alloc_buffer((1,), \"%s\", scope=\"local\")\n", u, dt);
  ind(b, e);
  sb_printf(b, "L%d[0] = %s\n", u, g->is_float ? "T.float32(0)" : "0");
  int kk = 1 + R(3);
  ind(b, e);
  sb_printf(b, "for k%d in range(%d):\n", u, kk);
  gvar vs[4] = {{"", bx}, {"", ty_}, {"", tx}, {"", kk}};
  snprintf(vs[0].name, sizeof vs[0].name, "bx%d", u);
  snprintf(vs[1].name, sizeof vs[1].name, "ty%d", u);
  snprintf(vs[2].name, sizeof vs[2].name, "tx%d", u);
  snprintf(vs[3].name, sizeof vs[3].name, "k%d", u);
  ind(b, e + 1);
  sb_printf(b, "S%d[ty%d, tx%d] = ", u, u, u);
  value_expr(g, vs, 4, 1);
  sb_printf(b, "\n");
  ind(b, e + 1);
  sb_printf(b, "T.evaluate(T.tvm_storage_sync(\"shared\"))\n");
  ind(b, e + 1);
  sb_printf(b, "L%d[0] = L%d[0] + S%d[(ty%d + %d) %% %d, (tx%d + k%d) %% %d]\n", u, u, u, u, R(3), ty_, u, u, tx);
  ind(b, e + 1);
  sb_printf(b, "T.evaluate(T.tvm_storage_sync(\"shared\"))\n");
  ind(b, e);
  sb_printf(b, "if (bx%d * %d + ty%d) * %d + tx%d < %d:\n", u, ty_, u, tx, u, n);
  ind(b, e + 1);
  sb_printf(b, "%s[", o->name);
  int stride = n;
  for (int k = 0; k < o->ndim; k++) {
    stride /= o->shape[k];
    sb_printf(b, "%s((bx%d * %d + ty%d) * %d + tx%d) // %d %% %d", k ? ", " : "", u, ty_, u, tx, u, stride, o->shape[k]);
  }
  sb_printf(b, "] = L%d[0]\n", u);
}

static char *generate(uint64_t seed) {
  rng_state = seed;
  gen g = {0};
  g.is_float = coin(25);
  g.nin = 1 + R(3);
  g.nout = 1 + R(2);
  for (int k = 0; k < g.nin + g.nout; k++) {
    gbuf *x = k < g.nin ? &g.in[k] : &g.out[k - g.nin];
    snprintf(x->name, sizeof x->name, k < g.nin ? "A%d" : "O%d", k < g.nin ? k : k - g.nin);
    x->ndim = 1 + R(3);
    for (int d = 0; d < x->ndim; d++) x->shape[d] = 1 + R(d == 0 ? 8 : 5);
    x->dtype = g.is_float ? "float32" : "int32";
    if (k < g.nin && coin(20)) x->dtype = g.is_float ? "int32" : "int8";
  }
  sb *b = &g.b;
  sb_printf(b, "# seed %llu\nfrom tvm.script import tir as T\n\n\n@T.prim_func\ndef f(", (unsigned long long)seed);
  for (int k = 0; k < g.nin + g.nout; k++) {
    gbuf *x = k < g.nin ? &g.in[k] : &g.out[k - g.nin];
    sb_printf(b, "%s%s: T.Buffer((", k ? ", " : "", x->name);
    for (int d = 0; d < x->ndim; d++) sb_printf(b, "%d%s", x->shape[d], x->ndim == 1 ? "," : d + 1 < x->ndim ? ", " : "");
    sb_printf(b, "), \"%s\")", x->dtype);
  }
  sb_printf(b, "):\n");
  int nst = 1 + R(3);
  for (int s = 0; s < nst; s++) {
    int k = R(21);
    if (k < 2) stage_elementwise(&g, 1, NULL, 0);
    else if (k < 4) stage_reduce(&g, 1, NULL, 0);
    else if (k < 6) stage_staged(&g, 1, true);
    else if (k < 7) stage_view(&g, 1);
    else if (k < 9) stage_gpu(&g, 1);
    else if (k < 11) stage_reduce_tmp(&g, 1);
    else if (k < 12) stage_strided_view(&g, 1);
    else if (k < 14) stage_nested(&g, 1);
    else if (k < 16) stage_gpu2(&g, 1);
    else if (k < 17) stage_tail(&g, 1);
    else if (k < 18) stage_lets(&g, 1);
    else if (k < 19) stage_extern(&g, 1);
    else stage_gpu3(&g, 1);
  }
  return g.b.s;
}

/* ------------------------------------------------------------------ */
/* the driver                                                           */

typedef struct stats {
  long programs, verified, c_checked, c_refused, invalid, rejected, pass_bugs, c_bugs;
} stats;

static const char *outdir = "/tmp/fuzz_exec";

static void save(const char *what, uint64_t seed, const char *src, const char *msg) {
  mkdir(outdir, 0755);
  char path[512];
  snprintf(path, sizeof path, "%s/%s_%llu.tir", outdir, what, (unsigned long long)seed);
  FILE *f = fopen(path, "w");
  if (!f) return;
  fputs(src, f);
  fprintf(f, "\n# ---- %s\n", what);
  for (const char *p = msg; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    fprintf(f, "# %.*s\n", (int)n, p);
    p = nl ? nl + 1 : p + n;
  }
  fclose(f);
}

static char *diag_text(const tir_diag *d, const char *src) {
  return tir_diag_format(d, "fuzz.tir", src, strlen(src));
}

/* a batch of programs whose C is compiled together and run */
typedef struct centry {
  uint64_t seed;
  char *src;
  char *code;
  tir_exec_args *want; /* the interpreter's result */
  tir_exec_args *in;   /* the inputs */
  tir_aot_module *meta;
  tir_ctx *ctx; /* the IR the names point into */
} centry;

static void free_entry(centry *e) {
  free(e->src);
  free(e->code);
  tir_exec_args_free(e->want);
  tir_exec_args_free(e->in);
  tir_aot_free(e->meta);
  tir_ctx_free(e->ctx);
}

static int run_batch(centry *es, int n, stats *st) {
  char dir[256];
  snprintf(dir, sizeof dir, "%s/batch", outdir);
  mkdir(outdir, 0755);
  mkdir(dir, 0755);
  char path[600], cmd[4096];
  snprintf(path, sizeof path, "%s/main.c", dir);
  FILE *mc = fopen(path, "w");
  snprintf(path, sizeof path, "%s/in.bin", dir);
  FILE *in = fopen(path, "wb");
  if (!mc || !in) return 1;
  fprintf(mc, "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n");
  for (int k = 0; k < n; k++) fprintf(mc, "int32_t f%d_packed(const void *, void *);\n", k);
  fprintf(mc, "static void *rd(FILE *f, size_t n) { void *p = aligned_alloc(64, (n + 127) / 64 * 64); /* the C calling convention: 64-byte aligned */ if (p) memset(p, 0, (n + 127) / 64 * 64); if (!p || fread(p, 1, n, f) != n) exit(3); return p; }\n"
              "int main(int argc, char **argv) {\n  (void)argc;\n  FILE *in = fopen(argv[1], \"rb\"), *out = fopen(argv[2], \"wb\");\n"
              "  if (!in || !out) return 2;\n");
  for (int k = 0; k < n; k++) {
    centry *e = &es[k];
    snprintf(path, sizeof path, "%s/k%d.c", dir, k);
    FILE *kf = fopen(path, "w");
    if (!kf) return 1;
    fputs(e->code, kf);
    fclose(kf);
    const tir_aot_func *af = &e->meta->funcs[0];
    fprintf(mc, "  {\n    static unsigned char packed[%zu] __attribute__((aligned(16)));\n", af->args_bytes + 16);
    for (int i = 0; i < af->nargs && i < e->in->n; i++) {
      const tir_exec_arg *x = &e->in->a[i];
      if (!x->is_buffer) continue; /* the fuzzer's programs take buffers only */
      fwrite(x->data, 1, x->bytes, in);
      fprintf(mc, "    void *b%d = rd(in, %zu);\n    memcpy(packed + %zu, &b%d, sizeof(void *));\n", i, x->bytes,
              af->args[i].offset, i);
    }
    fprintf(mc, "    void *ws = aligned_alloc(64, (%lld + 127) / 64 * 64);\n    if (ws) memset(ws, 0, (%lld + 127) / 64 * 64);\n    if (f%d_packed(packed, ws)) return 4;\n    free(ws);\n",
            (long long)af->workspace_bytes, (long long)af->workspace_bytes, k);
    for (int i = 0; i < e->in->n; i++)
      if (e->in->a[i].is_buffer) fprintf(mc, "    fwrite(b%d, 1, %zu, out);\n    free(b%d);\n", i, e->in->a[i].bytes, i);
    fprintf(mc, "  }\n");
  }
  fprintf(mc, "  fclose(in);\n  return fclose(out) != 0;\n}\n");
  fclose(mc);
  fclose(in);
  int len = snprintf(cmd, sizeof cmd, "cd %s && gcc -std=c11 -O1 -w -o prog main.c", dir);
  for (int k = 0; k < n; k++) len += snprintf(cmd + len, sizeof cmd - (size_t)len, " k%d.c", k);
  snprintf(cmd + len, sizeof cmd - (size_t)len, " -lm 2>cc.log && ./prog in.bin out.bin");
  int rc = system(cmd);
  if (rc != 0) {
    /* find the program that does not compile or run, one by one */
    for (int k = 0; k < n; k++) {
      snprintf(cmd, sizeof cmd, "cd %s && gcc -std=c11 -O1 -w -c k%d.c -o k.o 2>k.log", dir, k);
      if (system(cmd) != 0) {
        save("c_compile", es[k].seed, es[k].src, "the generated C does not compile (gcc)");
        st->c_bugs++;
      }
    }
    return 1;
  }
  snprintf(path, sizeof path, "%s/out.bin", dir);
  FILE *out = fopen(path, "rb");
  if (!out) return 1;
  for (int k = 0; k < n; k++) {
    centry *e = &es[k];
    tir_exec_args *got = tir_exec_args_copy(e->in);
    bool ok = true;
    for (int i = 0; i < got->n; i++)
      if (got->a[i].is_buffer && fread(got->a[i].data, 1, got->a[i].bytes, out) != got->a[i].bytes) ok = false;
    char msg[512] = "short output";
    int64_t flat;
    if (!ok || tir_exec_args_compare(e->want, got, TIR_EXEC_RTOL, TIR_EXEC_ATOL, &flat, msg, sizeof msg) >= 0) {
      char m2[700];
      snprintf(m2, sizeof m2, "the generated C and the interpreter differ: %s (interpreter's after 'was')", msg);
      save("c_differs", e->seed, e->src, m2);
      st->c_bugs++;
    } else {
      st->c_checked++;
    }
    tir_exec_args_free(got);
  }
  fclose(out);
  return 0;
}

int main(int argc, char **argv) {
  uint64_t seed = 1;
  long count = 1000, c_every = 10;
  double max_time = 0;
  bool print = false;
  long progress = 0;
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "--seed=", 7)) seed = strtoull(argv[i] + 7, NULL, 0);
    else if (!strncmp(argv[i], "--count=", 8)) count = strtol(argv[i] + 8, NULL, 0);
    else if (!strncmp(argv[i], "--c-every=", 10)) c_every = strtol(argv[i] + 10, NULL, 0);
    else if (!strncmp(argv[i], "--out=", 6)) outdir = argv[i] + 6;
    else if (!strncmp(argv[i], "--time=", 7)) max_time = strtod(argv[i] + 7, NULL);
    else if (!strcmp(argv[i], "--print")) print = true;
    else if (!strncmp(argv[i], "--progress=", 11)) progress = strtol(argv[i] + 11, NULL, 0);
    else {
      fprintf(stderr, "usage: fuzz_exec [--seed=S] [--count=N] [--c-every=K] [--out=DIR] [--time=SEC] [--progress=N] [--print]\n");
      return 2;
    }
  }
  stats st = {0};
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  enum { BATCH = 40 };
  centry batch[BATCH];
  int nb = 0;
  tir_pipeline *pl = NULL;
  {
    tir_diag d;
    tir_diag_init(&d);
    pl = tir_pipeline_parse("default,plan_memory", &d);
    tir_diag_free(&d);
  }
  for (long k = 0; k < count; k++) {
    uint64_t s = seed + (uint64_t)k;
    char *src = generate(s * 0x2545F4914F6CDD1Dull + 7);
    if (print) {
      puts(src);
      free(src);
      continue;
    }
    st.programs++;
    tir_diag d;
    tir_diag_init(&d);
    tir_ctx *ctx = tir_ctx_new();
    tir_module *m = tir_parse(ctx, src, strlen(src), &d);
    if (!m) {
      char *t = diag_text(&d, src);
      save("invalid_parse", s, src, t);
      free(t);
      st.invalid++;
    } else {
      tir_pipeline_opts po = {.verify_each = true, .verify_exec = true, .exec_seed = s};
      tir_module *low = tir_pipeline_run(pl, ctx, m, &po, &d);
      char *t = d.n ? diag_text(&d, src) : NULL;
      if (!low) {
        if (t && strstr(t, "cannot be run on its input")) {
          save("invalid_run", s, src, t);
          st.invalid++;
        } else if (t && strstr(t, "--verify-exec: pass")) {
          save("pass_bug", s, src, t);
          st.pass_bugs++;
        } else {
          save("rejected", s, src, t);
          st.rejected++;
        }
      } else {
        st.verified++;
        if (c_every > 0 && k % c_every == 0 && strstr(src, "T.call_extern")) {
          st.c_refused++; /* an opaque extern: nothing to link the C with */
        } else if (c_every > 0 && k % c_every == 0) {
          tir_module *ren = tir_module_new(ctx, NULL);
          char sym[32];
          snprintf(sym, sizeof sym, "f%d", nb);
          tir_module_add(ctx, ren, tir_func_with_symbol(ctx, low->funcs[0], sym));
          centry *e = &batch[nb];
          memset(e, 0, sizeof *e);
          tir_diag cd;
          tir_diag_init(&cd);
          e->code = tir_codegen_c_aot(ren, &e->meta, &cd);
          e->in = tir_exec_args_new(m->funcs[0], &cd);
          if (e->code && e->in && tir_exec_args_randomize(e->in, s, &cd)) {
            e->want = tir_exec_args_copy(e->in);
            if (tir_exec(m->funcs[0], e->want, NULL, &cd)) {
              e->seed = s;
              e->src = src;
              src = NULL;
              e->ctx = ctx;
              ctx = NULL;
              nb++;
            } else {
              free_entry(e);
            }
          } else {
            char *ct = diag_text(&cd, src);
            if (ct && strstr(ct, "cannot keep this barrier")) {
              st.c_refused++; /* the C target refuses barriers between threads, by name */
            } else {
              save("c_codegen", s, src, ct);
              st.c_bugs++;
            }
            free(ct);
            free_entry(e);
          }
          tir_diag_free(&cd);
        }
      }
      free(t);
    }
    if (nb == BATCH || (nb && k == count - 1)) {
      run_batch(batch, nb, &st);
      for (int i = 0; i < nb; i++) free_entry(&batch[i]);
      nb = 0;
    }
    if (ctx) tir_ctx_free(ctx);
    tir_diag_free(&d);
    free(src);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double el = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (progress && st.programs % progress == 0) {
      printf("fuzz_exec: progress: %ld programs, %ld verified, %ld C checked, %ld pass bugs, %ld C bugs, %ld rejected, "
             "%ld invalid; %.0f s\n",
             st.programs, st.verified, st.c_checked, st.pass_bugs, st.c_bugs, st.rejected, st.invalid, el);
      fflush(stdout);
    }
    if (max_time > 0 && el > max_time) break;
  }
  if (nb) {
    run_batch(batch, nb, &st);
    for (int i = 0; i < nb; i++) free_entry(&batch[i]);
  }
  tir_pipeline_free(pl);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double el = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  if (!print)
    printf("fuzz_exec: %ld programs (seeds %llu..), %ld verified pass by pass, %ld C runs checked; "
           "%ld C not built (barriers, externs); %ld pass bugs, %ld C bugs, %ld rejected by a pass, %ld invalid (generator); %.1f s\n",
           st.programs, (unsigned long long)seed, st.verified, st.c_checked, st.c_refused, st.pass_bugs, st.c_bugs, st.rejected,
           st.invalid, el);
  return (st.pass_bugs || st.c_bugs || st.invalid || st.rejected) ? 1 : 0;
}
