/* cuda_vector.c - vector (multi-lane) stores on CUDA.  A load or store of n
 * lanes over a contiguous, aligned run - index Ramp(base, 1, n) with base a
 * provable multiple of n, a flat buffer whose data is aligned (its
 * data_alignment, 64 bytes by default, as TVM assumes of every buffer), and
 * an element type CUDA has an n-wide vector type for - is one access of
 * that type (float4, int2, char4, half2, ...).  The lanes of the value are
 * computed one statement each:
 *
 *   {
 *     float4 v_B = *(const float4 *)(B + i * 4);
 *     float4 v_A;
 *     v_A.x = v_B.x + 1.0f;
 *     ...
 *     *(float4 *)(A + i * 4) = v_A;
 *   }
 *
 * Other stores are printed lane by lane (all lanes computed first when the
 * value reads the buffer stored). */
#include <stdio.h>
#include <string.h>

#include "codegen_cuda/cuda_internal.h"
#include "tir/visit.h"

typedef struct vec_type {
  uint8_t code, bits;
  int lanes;
  const char *name;
} vec_type;

static const vec_type vec_types[] = {
    {TIR_TC_FLOAT, 32, 2, "float2"},    {TIR_TC_FLOAT, 32, 4, "float4"},        {TIR_TC_FLOAT, 64, 2, "double2"},
    {TIR_TC_INT, 32, 2, "int2"},        {TIR_TC_INT, 32, 4, "int4"},            {TIR_TC_UINT, 32, 2, "uint2"},
    {TIR_TC_UINT, 32, 4, "uint4"},      {TIR_TC_INT, 16, 2, "short2"},          {TIR_TC_INT, 16, 4, "short4"},
    {TIR_TC_UINT, 16, 2, "ushort2"},    {TIR_TC_UINT, 16, 4, "ushort4"},        {TIR_TC_INT, 8, 2, "char2"},
    {TIR_TC_INT, 8, 4, "char4"},        {TIR_TC_UINT, 8, 2, "uchar2"},          {TIR_TC_UINT, 8, 4, "uchar4"},
    {TIR_TC_INT, 64, 2, "longlong2"},   {TIR_TC_UINT, 64, 2, "ulonglong2"},     {TIR_TC_FLOAT, 16, 2, "half2"},
    {TIR_TC_BFLOAT, 16, 2, "__nv_bfloat162"},
};

static const char *const comp[4] = {"x", "y", "z", "w"};

static const char *vector_type_of(tir_dtype t, int lanes) {
  for (size_t i = 0; i < sizeof vec_types / sizeof vec_types[0]; i++)
    if (vec_types[i].code == t.code && vec_types[i].bits == t.bits && vec_types[i].lanes == lanes) return vec_types[i].name;
  return NULL;
}

/* can buf be accessed at idx (n lanes) as one vector of its type? */
static const char *vector_access(cg *g, const tir_buffer *b, const tir_expr *idx, int n) {
  int64_t stride, off;
  if (idx->kind != TIR_RAMP || idx->u.ramp.lanes != n || !tir_is_const_int(idx->u.ramp.stride, &stride) || stride != 1)
    return NULL;
  /* a view at a constant offset (a buffer the memory plan placed in a pool) keeps the alignment of n lanes
   * when the offset is a multiple of n */
  if (b->ndim != 1 || b->nstrides || !tir_is_const_int(b->elem_offset, &off) || off % n || b->dtype.lanes != 1)
    return NULL;
  const char *vt = vector_type_of(b->dtype, n);
  if (!vt) return NULL;
  int bytes = n * tir_dtype_bytes(b->dtype);
  int align = b->data_alignment > 0 ? b->data_alignment : 64;
  if (align % bytes) return NULL;
  if (!g->an) g->an = tir_analyzer_new(g->ctx, NULL);
  tir_modular_set ms = tir_modular_set_of(g->an, idx->u.ramp.base);
  if (ms.coeff % n || ms.base % n) return NULL;
  return vt;
}

/* the value's loads read as whole vectors, and their temporaries */
#define MAXVL 16
typedef struct vec_loads {
  const tir_expr *load[MAXVL];
  const char *tmp[MAXVL];
  int n, lanes;
  cg *g;
} vec_loads;

static bool find_loads(tir_visitor *v, const tir_expr *e) {
  vec_loads *vl = v->user;
  if (e->kind != TIR_BUFFER_LOAD || e->dtype.lanes != vl->lanes || e->u.load.nidx != 1 || vl->n == MAXVL) return true;
  const tir_buffer *b = e->u.load.buf;
  const char *vt = vector_access(vl->g, b, e->u.load.idx[0], vl->lanes);
  if (!vt) return true;
  cg *g = vl->g;
  char hint[80];
  snprintf(hint, sizeof hint, "v_%s", b->name);
  const char *t = cg_tmp(g, hint);
  tir_expr *base = e->u.load.idx[0]->u.ramp.base;
  cg_note_access(g, b->data, TIR_AOT_READ);
  cg_linef(g, "%s %s = *(const %s *)(%s + %s);", vt, t, vt, cg_buffer_ptr(g, b), cg_index_str(g, base));
  vl->load[vl->n] = e;
  vl->tmp[vl->n++] = t;
  return false;
}

/* lane k of a load read as a vector: a var printed as tmp.x */
static tir_expr *load_lane(cg *g, void *user, const tir_expr *load, tir_expr *lane) {
  vec_loads *vl = user;
  int64_t k;
  if (!tir_is_const_int(lane, &k) || k < 0 || k >= 4) return NULL;
  for (int i = 0; i < vl->n; i++) {
    if (vl->load[i] != load) continue;
    tir_expr *v = tir_var(g->ctx, "lane", tir_dtype_with_lanes(load->dtype, 1));
    char name[80];
    snprintf(name, sizeof name, "%s.%s", vl->tmp[i], comp[k]);
    cg_alias(g, v, tir_strdup(g->ctx, name));
    return v;
  }
  return NULL;
}

/* the lanes' values as C text; NULL on error */
static char **lane_values(cg *g, const tir_stmt *s, int n, vec_loads *vl) {
  cg_lane_hook hook = {load_lane, vl};
  char **vals = tir_alloc(g->ctx, sizeof *vals * (size_t)n);
  for (int k = 0; k < n; k++) {
    tir_expr *v = cg_lane_of(g, s->u.store.value, tir_i32(g->ctx, k), &hook);
    if (!v) return NULL;
    vals[k] = cg_expr_str(g, v);
  }
  return vals;
}

static void scatter(cg *g, const tir_stmt *s, int n, char **vals, const char *elem) {
  const char *buf = cg_buffer_ptr(g, s->u.store.buf);
  cg_note_access(g, s->u.store.buf->data, TIR_AOT_WRITE);
  const char *tmp = NULL;
  if (cg_expr_reads(s->u.store.value, s->u.store.buf->data)) {
    tmp = cg_tmp(g, "lanes");
    cg_linef(g, "%s %s[%d];", elem, tmp, n);
    for (int k = 0; k < n; k++) cg_linef(g, "%s[%d] = %s;", tmp, k, vals[k]);
  }
  for (int k = 0; k < n; k++) {
    tir_expr *idx = cg_lane_index(g, s->u.store.idx[0], tir_i32(g->ctx, k));
    if (!idx) return;
    char *i = cg_index_str(g, idx);
    if (tmp) cg_linef(g, "%s[%s] = %s[%d];", buf, i, tmp, k);
    else cg_linef(g, "%s[%s] = %s;", buf, i, vals[k]);
  }
}

bool cuda_vector_store(cg *g, const tir_stmt *s) {
  int n = cg_store_lanes(s);
  const tir_buffer *b = s->u.store.buf;
  if (s->u.store.nidx != 1 || n > 64) return false; /* the C printer reports it */
  char elem[32];
  if (!cg_type(g, tir_dtype_with_lanes(s->u.store.value->dtype, 1), elem, s->span)) return true;
  cg_linef(g, "{");
  g->indent++;
  cg_enter(g);
  vec_loads vl = {.lanes = n, .g = g};
  tir_visitor v = {.expr = find_loads, .user = &vl};
  tir_visit_expr(&v, s->u.store.value);
  char **vals = lane_values(g, s, n, &vl);
  const char *vt = vector_access(g, b, s->u.store.idx[0], n);
  if (vals && vt) {
    char hint[80];
    snprintf(hint, sizeof hint, "v_%s", b->name);
    const char *t = cg_tmp(g, hint);
    cg_linef(g, "%s %s;", vt, t);
    for (int k = 0; k < n; k++) cg_linef(g, "%s.%s = %s;", t, comp[k], vals[k]);
    cg_note_access(g, b->data, TIR_AOT_WRITE);
    cg_linef(g, "*(%s *)(%s + %s) = %s;", vt, cg_buffer_ptr(g, b), cg_index_str(g, s->u.store.idx[0]->u.ramp.base), t);
  } else if (vals) {
    scatter(g, s, n, vals, elem);
  }
  cg_leave(g);
  g->indent--;
  cg_linef(g, "}");
  return true;
}
