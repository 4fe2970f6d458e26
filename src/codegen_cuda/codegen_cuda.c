/* codegen_cuda.c - tir_codegen_cuda: the C printer with CUDA hooks, as TVM's
 * CodeGenCUDA extends CodeGenC.  Per PrimFunc:
 *  - every outermost T.launch_thread region becomes a __global__ kernel
 *    (grid from its blockIdx.*, block from its threadIdx.* extents, with
 *    __launch_bounds__ when constant); a thread var reads blockIdx/threadIdx
 *    (guarded when its extent is below the launch's);
 *  - top-level statements with no thread binding run as a 1x1 kernel;
 *  - shared allocations are static __shared__ arrays; global allocations
 *    outside kernels are cudaMallocAsync'd by the host function;
 *  - __syncthreads() where threads communicate through shared memory
 *    (cuda_sync.c); slice_tensor a per-thread vector copy (cuda_slice.c);
 *  - `extern "C" int SYMBOL(T0 *p0, ..., cudaStream_t stream)` launches the
 *    kernels in order on `stream` and returns the first CUDA error code;
 *    `extern "C" int SYMBOL_packed(const void *args, void *workspace,
 *    cudaStream_t stream)` the same with its arguments in a packed block;
 *  - kernels are extern "C" (unmangled names), and the AOT description
 *    (tir/aot.h) records each one's launch, shared bytes and accesses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_cuda/cuda_internal.h"
#include "tir/codegen.h"
#include "tir/script.h"
#include "tir/visit.h"

static const char *const tags[6] = {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"};

const char *cuda_tag_name(int i) { return i >= 0 && i < 6 ? tags[i] : NULL; }

int cuda_tag_index(const char *tag) {
  for (int i = 0; tag && i < 6; i++)
    if (!strcmp(tags[i], tag)) return i;
  return -1;
}

bool cuda_is_thread_attr(const tir_stmt *s) { return s->kind == TIR_ATTR && !strcmp(s->u.attr.key, "thread_extent"); }

/* the thread tag of a thread_extent attr: its thread_tag, else (IR read
 * from T.launch_thread("blockIdx.x", n) without one) the var's name */
const char *cuda_attr_tag(const tir_stmt *s) {
  if (s->u.attr.thread_tag) return s->u.attr.thread_tag;
  return tir_is_var(s->u.attr.node) ? s->u.attr.node->u.var.name : NULL;
}

/* ---- the unit being printed ---- */

typedef struct unit {
  tir_ctx *ctx;
  tir_diag *d;
  bool failed;
  const char **globals; /* cg_module_globals */
  int nglobals;
  cg_text kernels; /* __global__ functions */
  bool helpers[CG_HELPER_COUNT][CG_NTYPES];
  const char *symbol;
  int nkernels;
  bool used_f16, used_bf16;
  tir_aot_func *fn; /* the description of the function being printed */
  tir_span where;   /* the function being printed (cg.where) */
  cg_names host_calls; /* the externs the host code calls */
} unit;

/* ---- kernel hooks ---- */

static bool k_attr(cg *g, const tir_stmt *s) {
  cuda_kernel *k = g->user;
  if (!cuda_is_thread_attr(s)) return false;
  int ti = cuda_tag_index(cuda_attr_tag(s));
  if (ti < 0 || !tir_is_var(s->u.attr.node)) {
    cg_error(g, s->span, "thread tag '%s' is not one of blockIdx.x/y/z, threadIdx.x/y/z",
             cuda_attr_tag(s) ? cuda_attr_tag(s) : "");
    return true;
  }
  const tir_expr *var = s->u.attr.node;
  char ty[32];
  cg_type(g, var->dtype, ty, var->span);
  const char *n = cg_define(g, var, var->u.var.name);
  int64_t mine, launch;
  bool guard = !(tir_is_const_int(s->u.attr.value, &mine) && k->launch[ti] &&
                 tir_is_const_int(k->launch[ti], &launch) && mine == launch) &&
               !(k->launch[ti] && tir_expr_identical(k->launch[ti], s->u.attr.value));
  /* an index nothing reads is not declared (nvcc -Werror: set but unused) */
  if (guard || cg_uses_var(s->u.attr.body, var)) cg_linef(g, "%s %s = (%s)%s;", ty, n, ty, tags[ti]);
  /* var < the extent: under the guard, or the launch's own extent */
  tir_analyzer_bind_range(cg_bounds(g), var, tir_int(g->ctx, var->dtype, 0), s->u.attr.value);
  if (!guard) {
    cg_stmt(g, s->u.attr.body);
    return true;
  }
  cg_line_start(g);
  cg_text_printf(g->out, "if (%s < ", n);
  cg_expr(g, s->u.attr.value);
  cg_text_puts(g->out, ")");
  cg_open(g);
  const char *saved = k->guard;
  k->guard = tags[ti];
  cg_stmt(g, s->u.attr.body);
  k->guard = saved;
  cg_close(g);
  return true;
}

static bool k_unroll(cg *g, const tir_stmt *loop) {
  const cuda_kernel *k = g->user;
  return k && ptr_set_has(&k->unroll, loop);
}

typedef struct { bool found; } thread_find;
static bool find_thread_idx(tir_visitor *v, const tir_stmt *s) {
  if (cuda_is_thread_attr(s) && cuda_tag_index(cuda_attr_tag(s)) >= 3) ((thread_find *)v->user)->found = true;
  return true;
}
/* does s launch threadIdx threads? */
static bool launches_threads(const tir_stmt *s) {
  thread_find tf = {false};
  tir_visitor v = {.stmt = find_thread_idx, .user = &tf};
  tir_visit_stmt(&v, s);
  return tf.found;
}

/* does s read var (a load of a buffer over it, or the var itself)? */
typedef struct { const void *var; bool found; } read_scan;

static bool read_expr(tir_visitor *v, const tir_expr *e) {
  read_scan *rs = v->user;
  if ((e->kind == TIR_BUFFER_LOAD && e->u.load.buf->data == rs->var) || e == rs->var) rs->found = true;
  return !rs->found;
}

static bool reads_var(const tir_stmt *s, const void *var) {
  read_scan rs = {var, false};
  tir_visitor v = {.expr = read_expr, .user = &rs};
  tir_visit_stmt(&v, s);
  return rs.found;
}

/* shared: static __shared__; local, and global where one thread owns the
 * block's copy: a plain array */
static bool k_alloc(cg *g, const tir_stmt *s, const char *cname, const char *elem, const char *size) {
  if (s->kind != TIR_ALLOC_BUFFER) return false;
  const tir_buffer *b = s->u.decl.buf;
  const char *scope = b->scope ? b->scope : "global";
  int64_t n = 1, v, lo;
  for (int i = 0; i < b->ndim && n >= 0; i++) {
    if (!tir_is_const_int(b->shape[i], &v)) /* a symbolic extent with a constant bound (min(n, 1)): that many (size too) */
      tir_const_bound(cg_bounds(g), b->shape[i], &lo, &v);
    n = v < 0 || v == INT64_MAX || __builtin_mul_overflow(n, v, &n) ? -1 : n;
  }
  if (n == 0) n = 1;
  if (!strncmp(scope, "shared", 6)) {
    if (n < 0) {
      cg_error(g, s->span, "shared buffer '%s' has a symbolic size: only static shared memory is supported", b->name);
      return true;
    }
    if (cg_uses_var(s->u.decl.body, b->data)) {
      cuda_kernel *k = g->user;
      int64_t at = (k->shared_bytes + 15) / 16 * 16;
      if (k->dynamic) /* a view into the kernel's dynamic shared memory */
        cg_linef(g, "%s *__restrict__ %s = (%s *)(tir_dyn_smem + %lld);", elem, cname, elem, (long long)at);
      else /* stored to and never read: as a local below (nvcc: set but never used) */
        cg_linef(g, "__shared__ __align__(16) %s%s %s[%s];", reads_var(s->u.decl.body, b->data) ? "" : "__attribute__((unused)) ",
                 elem, cname, size);
      k->shared_bytes = at + n * tir_dtype_bytes(b->dtype);
    }
    return true;
  }
  if (!strcmp(scope, "global") && launches_threads(s->u.decl.body)) {
    /* one copy per block instance would need to be shared among its threads */
    cg_error(g, s->span, "global buffer '%s' is allocated inside a kernel, above its threadIdx launches: allocate it outside the kernel or in shared scope",
             b->name);
    return true;
  }
  if (n < 0) {
    cg_error(g, s->span, "%s buffer '%s' has a symbolic size, which a kernel cannot allocate", scope, b->name);
    return true;
  }
  if (cg_uses_var(s->u.decl.body, b->data)) {
    /* stored to and never read (a reduction's result nothing uses): nvcc
     * warns that it is set but never used */
    /* read and never written: what it reads is undefined (the interpreter
     * refuses it); zeros here, as nvcc warns of a use before a value is set */
    cg_linef(g, "__align__(16) %s%s %s[%s]%s;", reads_var(s->u.decl.body, b->data) ? "" : "__attribute__((unused)) ", elem,
             cname, size,
             cg_may_write_var(s->u.decl.body, b->data) && !cg_read_first(s->u.decl.body, b->data, n) ? "" : " = {}");
  }
  return true;
}

static bool k_evaluate(cg *g, const tir_stmt *s) {
  const tir_expr *v = s->u.eval.value;
  if (v->kind != TIR_CALL) return false;
  if (!strcmp(v->u.call.op, "slice_tensor")) return cuda_slice_tensor(g, s);
  if (!strcmp(v->u.call.op, "tvm_storage_sync")) { /* the scope is a string constant (checked when read) */
    const char *scope = v->u.call.nargs && v->u.call.args[0]->kind == TIR_STRING_IMM ? v->u.call.args[0]->u.str : "";
    if (!strcmp(scope, "warp")) cg_linef(g, "__syncwarp();");
    else if (!strcmp(scope, "shared") || !strcmp(scope, "shared.dyn")) cg_linef(g, "__syncthreads();");
    else cg_error(g, v->span, "T.tvm_storage_sync(\"%s\"): a barrier across thread blocks is not supported by tirc's CUDA", scope);
    return true;
  }
  return false;
}

static const cg_target kernel_target = {
    .helper_prefix = "static __host__ __device__ __forceinline__",
    .bool_type = "bool",
    .is_cuda = true,
    .f16_type = "half",
    .bf16_type = "__nv_bfloat16",
    .vector_store = cuda_vector_store,
    .attr = k_attr,
    .alloc_buffer = k_alloc,
    .evaluate = k_evaluate,
    .before_seq_item = cuda_before_seq_item,
    .loop_end = cuda_loop_end,
    .unroll = k_unroll,
    .loop = cuda_vector_loop,
};

static const cg_target host_target = {
    .helper_prefix = "static __host__ __device__ __forceinline__",
    .bool_type = "bool",
    .is_cuda = true,
    .f16_type = "half",
    .bf16_type = "__nv_bfloat16",
};

/* ---- a kernel's free vars: what it takes as parameters ---- */

typedef struct kfree {
  var_list used, defined;
  const tir_buffer **buf_of; /* for data vars: a buffer over it (elem type) */
  int nbuf, bufcap;
  const tir_buffer **bufs;
  tir_ptrmap noted;     /* bufs -> 1 */
  tir_ptrmap plain_of;  /* data var -> 1 + the first of bufs over it (a view or not) */
  tir_ptrmap plain;     /* data var -> 1 when a buffer over it that is not a view is in bufs */
  tir_ptrmap viewed;    /* data var -> 1 when a view of it is in bufs */
} kfree;

/* a view at an offset of its data, or of another type (PlanMemory's temporaries) */
static bool is_view(const tir_buffer *b) {
  int64_t off;
  tir_dtype pe = b->data->u.var.ptr_elem;
  return !tir_is_const_int(b->elem_offset, &off) || off != 0 || (pe.bits && !tir_dtype_eq(pe, b->dtype));
}

typedef struct decl_find {
  const tir_buffer *b;
  bool found;
} decl_find;

static bool decl_find_stmt(tir_visitor *v, const tir_stmt *s) {
  decl_find *df = v->user;
  if ((s->kind == TIR_DECL_BUFFER || s->kind == TIR_ALLOC_BUFFER) && s->u.decl.buf == df->b) df->found = true;
  return !df->found;
}

/* whether b is declared inside s (then the kernel declares it where it is) */
static bool declared_in(const tir_stmt *s, const tir_buffer *b) {
  int known = cg_index_has(s, b, 2);
  if (known >= 0) return known;
  decl_find df = {b, false};
  tir_visitor v = {.stmt = decl_find_stmt, .user = &df};
  tir_visit_stmt(&v, s);
  return df.found;
}

static void note_buffer(kfree *kf, const tir_buffer *b) {
  var_list_add(&kf->used, b->data);
  /* one buffer per data var, but every view of a workspace */
  bool view = is_view(b);
  if (tir_ptrmap_get(&kf->noted, b, 0) || (!view && tir_ptrmap_get(&kf->plain, b->data, 0))) return;
  tir_ptrmap_put(&kf->noted, b, 1);
  tir_ptrmap_put(view ? &kf->viewed : &kf->plain, b->data, 1);
  if (!tir_ptrmap_get(&kf->plain_of, b->data, 0)) tir_ptrmap_put(&kf->plain_of, b->data, kf->nbuf + 1);
  if (kf->nbuf == kf->bufcap) {
    kf->bufcap = kf->bufcap ? 2 * kf->bufcap : 16;
    kf->bufs = realloc(kf->bufs, sizeof *kf->bufs * (size_t)kf->bufcap);
    if (!kf->bufs) abort();
  }
  kf->bufs[kf->nbuf++] = b;
}

static bool kf_expr(tir_visitor *v, const tir_expr *e) {
  kfree *kf = v->user;
  if (e->kind == TIR_VAR) var_list_add(&kf->used, e);
  if (e->kind == TIR_BUFFER_LOAD) note_buffer(kf, e->u.load.buf);
  if (e->kind == TIR_LET) var_list_add(&kf->defined, e->u.let.var);
  return true;
}

static bool kf_stmt(tir_visitor *v, const tir_stmt *s) {
  kfree *kf = v->user;
  switch (s->kind) {
  case TIR_BUFFER_STORE: note_buffer(kf, s->u.store.buf); break;
  case TIR_FOR: var_list_add(&kf->defined, s->u.loop.var); break;
  case TIR_LET_STMT: var_list_add(&kf->defined, s->u.let.var); break;
  case TIR_ATTR: /* a virtual thread is a loop inside the kernel */
    if ((cuda_is_thread_attr(s) || !strcmp(s->u.attr.key, "virtual_thread")) && tir_is_var(s->u.attr.node))
      var_list_add(&kf->defined, s->u.attr.node);
    /* a loop pragma names its loop's var, which the kernel does not take (the
     * loop may be gone: LowerOpaqueBlock drops a unit loop, as TVM's) */
    if (!strncmp(s->u.attr.key, "pragma_", 7) && tir_is_var(s->u.attr.node))
      var_list_add(&kf->defined, s->u.attr.node);
    break;
  case TIR_ALLOCATE: var_list_add(&kf->defined, s->u.alloc.var); break;
  case TIR_ALLOC_BUFFER:
    var_list_add(&kf->defined, s->u.decl.buf->data);
    note_buffer(kf, s->u.decl.buf);
    break;
  case TIR_DECL_BUFFER: note_buffer(kf, s->u.decl.buf); break;
  default: break;
  }
  return true;
}

static bool in_list(const var_list *l, const tir_expr *v) { return var_list_has(l, v); }

static void kfree_free(kfree *kf) {
  var_list_free(&kf->used);
  var_list_free(&kf->defined);
  free(kf->bufs);
  tir_ptrmap_free(&kf->noted);
  tir_ptrmap_free(&kf->plain_of);
  tir_ptrmap_free(&kf->plain);
  tir_ptrmap_free(&kf->viewed);
}

static const tir_buffer *buffer_over(const kfree *kf, const tir_expr *data) {
  if (tir_ptrmap_get(&kf->viewed, data, 0)) return NULL; /* a workspace the kernel sees through views: its bytes */
  long i = tir_ptrmap_get(&kf->plain_of, data, 0);
  return i ? kf->bufs[i - 1] : NULL;
}

/* ---- the launch configuration ---- */

typedef struct launch_ctx {
  cg *host;
  cuda_kernel *k;
} launch_ctx;

static bool collect_launch(tir_visitor *v, const tir_stmt *s) {
  launch_ctx *lc = v->user;
  if (s->kind == TIR_ALLOC_BUFFER && s->u.decl.buf->scope && !strncmp(s->u.decl.buf->scope, "shared", 6)) {
    const tir_buffer *b = s->u.decl.buf;
    var_list_add(&lc->k->shared, b->data);
    int64_t n = tir_dtype_bytes(b->dtype), e;
    for (int i = 0; i < b->ndim && n >= 0; i++)
      n = tir_is_const_int(b->shape[i], &e) && !__builtin_mul_overflow(n, e, &n) ? n : -1;
    if (n >= 0 && cg_uses_var(s->u.decl.body, b->data)) {
      lc->k->shared_need = (lc->k->shared_need + 15) / 16 * 16 + n;
      tir_span at = s->span.line ? s->span : b->span;
      if (at.line && !lc->k->shared_span.line) lc->k->shared_span = at;
    }
  }
  if (!cuda_is_thread_attr(s)) return true;
  int ti = cuda_tag_index(cuda_attr_tag(s));
  if (ti < 0) return true; /* reported when printed */
  const tir_expr *prev = lc->k->launch[ti], *cur = s->u.attr.value;
  int64_t a, b;
  if (!prev || (tir_is_const_int(prev, &a) && tir_is_const_int(cur, &b) && b > a)) lc->k->launch[ti] = cur;
  else if (!tir_expr_identical(prev, cur) && !(tir_is_const_int(prev, &a) && tir_is_const_int(cur, &b)))
    cg_error(lc->host, s->span, "%s is launched with different symbolic extents in one kernel", tags[ti]);
  return true;
}

/* ---- CUDA's limits (sm_80 / sm_90) ---- */

#define CUDA_STATIC_SMEM 49152   /* static __shared__ per block */
#define CUDA_MAX_SMEM 232448     /* dynamic shared memory per block on sm_90 (227 KiB) */

/* the launch within what CUDA allows: an error at the binding otherwise */
static bool launch_in_limits(cg *host, cuda_kernel *k, const tir_stmt *body) {
  static const int64_t maxdim[6] = {2147483647, 65535, 65535, 1024, 1024, 64};
  bool ok = true;
  int64_t v, threads = 1;
  for (int i = 0; i < 6; i++) {
    if (!k->launch[i] || !tir_is_const_int(k->launch[i], &v)) continue;
    if (v <= 0 || v > maxdim[i]) {
      cg_error(host, k->launch[i]->span.line ? k->launch[i]->span : body->span,
               "%s is launched with extent %lld: CUDA allows 1 to %lld", tags[i], (long long)v, (long long)maxdim[i]);
      ok = false;
    }
    if (i >= 3) threads *= v;
  }
  if (ok && threads > 1024) {
    cg_error(host, k->launch[3] ? k->launch[3]->span : body->span, "a block of %lld threads (threadIdx.x * y * z): CUDA allows at most 1024", (long long)threads);
    ok = false;
  }
  if (ok && k->shared_need > CUDA_MAX_SMEM) {
    cg_error(host, k->shared_span, "the kernel's shared memory is %lld bytes: at most %d (227 KiB, sm_90) per block",
             (long long)k->shared_need, CUDA_MAX_SMEM);
    ok = false;
  }
  k->dynamic = k->shared_need > CUDA_STATIC_SMEM;
  return ok;
}

/* ---- printing a kernel and its launch ---- */

static void print_dims(cg *host, cg_text *t, const cuda_kernel *k, int first) {
  cg_text_puts(t, "dim3(");
  for (int i = first; i < first + 3; i++) {
    if (i > first) cg_text_puts(t, ", ");
    if (!k->launch[i]) {
      cg_text_puts(t, "1");
      continue;
    }
    cg_text *saved = host->out;
    host->out = t;
    cg_expr(host, k->launch[i]);
    host->out = saved;
  }
  cg_text_puts(t, ")");
}

static int64_t block_threads(const cuda_kernel *k) {
  int64_t n = 1, v;
  for (int i = 3; i < 6; i++) {
    if (!k->launch[i]) continue;
    if (!tir_is_const_int(k->launch[i], &v)) return -1;
    n *= v;
  }
  return n;
}

static void merge_helpers(unit *u, const cg *g) {
  for (int h = 0; h < CG_HELPER_COUNT; h++)
    for (int i = 0; i < CG_NTYPES; i++) u->helpers[h][i] |= g->helpers[h][i];
  u->used_f16 |= g->used_f16;
  u->used_bf16 |= g->used_bf16;
}

static void emit_kernel(unit *u, cg *host, const tir_stmt *body) {
  cuda_kernel k = {0};
  launch_ctx lc = {host, &k};
  tir_visitor lv = {.stmt = collect_launch, .user = &lc};
  tir_visit_stmt(&lv, body);
  if (!cuda_rebindings_ok(host, body) || !launch_in_limits(host, &k, body)) {
    var_list_free(&k.shared);
    return;
  }
  {
    /* the copies to shared memory whose loads can be issued an iteration early: made now, after the
     * rebindings are proved, on the kernel's own restrict parameters (cuda_prefetch.c) */
    ptr_set unroll0 = {0};
    cuda_unroll_plan(body, 0, &unroll0);
    kfree kf0 = {0};
    tir_visitor fv0 = {.expr = kf_expr, .stmt = kf_stmt, .user = &kf0};
    tir_visit_stmt(&fv0, body);
    var_list restricted = {0};
    for (int i = 0; i < kf0.used.n; i++) {
      const tir_expr *v = kf0.used.vars[i];
      if (!in_list(&kf0.defined, v) && v->dtype.code == TIR_TC_HANDLE && buffer_over(&kf0, v) &&
          !cg_is_void_ptr(host, v))
        var_list_add(&restricted, v);
    }
    body = cuda_prefetch(u->ctx, (tir_stmt *)body, &unroll0, &restricted);
    ptr_set_free(&unroll0);
    var_list_free(&restricted);
    kfree_free(&kf0);
  }
  cuda_unroll_plan(body, 0, &k.unroll);
  kfree kf = {0};
  tir_visitor fv = {.expr = kf_expr, .stmt = kf_stmt, .user = &kf};
  tir_visit_stmt(&fv, body);
  char name[160];
  snprintf(name, sizeof name, "%s_kernel%d", u->symbol, u->nkernels++);
  /* the kernel */
  cg g;
  cg_init(&g, &kernel_target, u->ctx, u->d);
  g.where = u->where;
  g.globals = u->globals, g.nglobals = u->nglobals;
  g.user = &k;
  cg_meta krec = {0};
  g.meta = &krec;
  u->fn->kernels = realloc(u->fn->kernels, sizeof *u->fn->kernels * (size_t)(u->fn->nkernels + 1));
  if (!u->fn->kernels) abort();
  tir_aot_kernel *ak = &u->fn->kernels[u->fn->nkernels++];
  memset(ak, 0, sizeof *ak);
  ak->name = cg_strdup(name);
  const char **knames = cg_calloc((size_t)kf.used.n, sizeof *knames);
  const tir_expr **kvars = cg_calloc((size_t)kf.used.n, sizeof *kvars);
  cg_text sig = {0}, args = {0}, text = {0};
  int np = 0;
  for (int i = 0; i < kf.used.n; i++) {
    const tir_expr *v = kf.used.vars[i];
    if (in_list(&kf.defined, v)) continue;
    const char *hname = cg_var(host, v);
    const char *kname = cg_define(&g, v, hname);
    char ty[32];
    if (np++) {
      cg_text_puts(&sig, ", ");
      cg_text_puts(&args, ", ");
    }
    const tir_buffer *b = v->dtype.code == TIR_TC_HANDLE ? buffer_over(&kf, v) : NULL;
    tir_aot_kparam *kp = cg_calloc(1, sizeof *kp);
    ak->params = realloc(ak->params, sizeof *ak->params * (size_t)(ak->nparams + 1));
    if (!ak->params) abort();
    kp->name = cg_strdup(kname);
    kp->is_pointer = v->dtype.code == TIR_TC_HANDLE;
    kp->dtype = b ? b->dtype : v->dtype;
    kp->size = kp->is_pointer ? sizeof(void *) : (size_t)tir_dtype_bytes(v->dtype);
    knames[ak->nparams] = kname;
    kvars[ak->nparams] = v;
    ak->params[ak->nparams++] = *kp;
    free(kp);
    bool typed_ptr = false;
    if (b) {
      /* __restrict__ for a parameter buffer's data (no alias, as TVM's noalias); not for a pointer the host
       * holds as a handle (a parameter or a let), which another may alias */
      cg_type(&g, b->dtype, ty, b->span);
      cg_text_printf(&sig, "%s *%s%s", ty, cg_is_void_ptr(host, v) ? "" : "__restrict__ ", kname);
      typed_ptr = true;
    } else if (v->dtype.code == TIR_TC_HANDLE && v->u.var.ptr_elem.bits) {
      cg_type(&g, v->u.var.ptr_elem, ty, v->span); /* a planned workspace, seen through views */
      cg_text_printf(&sig, "%s *%s", ty, kname);
      typed_ptr = true;
    } else if (v->dtype.code == TIR_TC_HANDLE) {
      cg_text_printf(&sig, "void *%s", kname);
    } else {
      cg_type(&g, v->dtype, ty, v->span);
      cg_text_printf(&sig, "%s %s", ty, kname);
    }
    /* a void * of the host (an untyped handle) given to a typed kernel pointer: C++ wants the cast */
    if (typed_ptr && cg_is_void_ptr(host, v)) cg_text_printf(&args, "(%s *)%s", ty, hname);
    else cg_text_puts(&args, hname);
  }
  int64_t threads = block_threads(&k);
  if (threads > 0)
    cg_text_printf(&text, "extern \"C\" __global__ void __launch_bounds__(%lld) %s(%s) {\n", (long long)threads, name,
                   np ? sig.s : "");
  else cg_text_printf(&text, "extern \"C\" __global__ void %s(%s) {\n", name, np ? sig.s : "");
  g.out = &text;
  g.indent = 1;
  if (k.dynamic) cg_linef(&g, "extern __shared__ __align__(16) unsigned char tir_dyn_smem[];");
  cg_use_index *saved_index = cg_index_push(body);
  cg_enter(&g);
  for (int i = 0; i < kf.nbuf; i++) { /* the views of a workspace parameter */
    const tir_buffer *b = kf.bufs[i];
    if (!is_view(b) || in_list(&kf.defined, b->data) || !cg_lookup(&g, b->data) || cg_lookup(&g, b) ||
        declared_in(body, b))
      continue;
    char ty[32];
    cg_type(&g, b->dtype, ty, b->span);
    char *off = cg_expr_str(&g, b->elem_offset);
    const char *data = cg_lookup(&g, b->data), *vn = cg_define(&g, b, b->name);
    /* nvcc counts no (void)x as a use */
    cg_linef(&g, "%s%s *%s = (%s *)%s + %s;", cg_buffer_used(body, b) ? "" : "[[maybe_unused]] ", ty, vn, ty, data,
             off);
  }
  cg_stmt(&g, body);
  cg_leave(&g);
  cg_index_pop(saved_index);
  cg_text_puts(&text, "}\n\n");
  if (g.failed) host->failed = true;
  merge_helpers(u, &g);
  /* its description: launch, shared bytes, and the buffers it reads and writes */
  const tir_expr *dims[6];
  for (int i = 0; i < 6; i++) dims[i] = k.launch[i] ? k.launch[i] : tir_i32(u->ctx, 1);
  for (int i = 0; i < 3; i++) {
    ak->grid[i] = cg_aot_size(dims[i]);
    ak->block[i] = cg_aot_size(dims[3 + i]);
  }
  ak->threads_per_block = cg_aot_product(u->ctx, dims + 3, 3);
  ak->total_threads = cg_aot_product(u->ctx, dims, 6);
  ak->shared_bytes = k.dynamic ? 0 : k.shared_bytes;
  ak->dynamic_shared_bytes = k.dynamic ? k.shared_bytes : 0;
  for (int i = 0; i < ak->nparams; i++) {
    int mask = cg_access_of(&krec, kvars[i]);
    if (!ak->params[i].is_pointer || !mask) continue;
    cg_note_access(host, kvars[i], mask);
    if (mask & TIR_AOT_READ) {
      ak->reads = realloc(ak->reads, sizeof *ak->reads * (size_t)(ak->nreads + 1));
      if (!ak->reads) abort();
      ak->reads[ak->nreads++] = cg_strdup(knames[i]);
    }
    if (mask & TIR_AOT_WRITE) {
      ak->writes = realloc(ak->writes, sizeof *ak->writes * (size_t)(ak->nwrites + 1));
      if (!ak->writes) abort();
      ak->writes[ak->nwrites++] = cg_strdup(knames[i]);
    }
  }
  free(knames);
  free(kvars);
  cg_meta_free(&krec);
  cg_text_puts(&u->kernels, text.s);
  /* the launch; a symbolic extent of 0 or less is a loop that does not run:
   * no launch (CUDA would refuse the configuration) */
  cg_line_start(host);
  cg_text_puts(host->out, "if (err == cudaSuccess");
  for (int i = 0; i < 6; i++) {
    int64_t v;
    if (!k.launch[i] || tir_is_const_int(k.launch[i], &v)) continue;
    cg_text_puts(host->out, " && ");
    cg_expr_prec(host, k.launch[i], 11); /* PREC_REL + 1 */
    cg_text_puts(host->out, " > 0");
  }
  cg_text_puts(host->out, ")");
  cg_open(host);
  if (k.dynamic) /* more than the static 48 KiB: the launch must ask for it */
    cg_linef(host, "err = cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, %lld);", name,
             (long long)k.shared_bytes);
  cg_line_start(host);
  cg_text_printf(host->out, "%s%s<<<", k.dynamic ? "if (err == cudaSuccess) " : "", name);
  print_dims(host, host->out, &k, 0);
  cg_text_puts(host->out, ", ");
  print_dims(host, host->out, &k, 3);
  cg_text_printf(host->out, ", %lld, stream>>>(%s);\n", (long long)(k.dynamic ? k.shared_bytes : 0), np ? args.s : "");
  cg_linef(host, "err = cudaGetLastError();");
  cg_close(host);
  cg_text_free(&sig);
  cg_text_free(&args);
  cg_text_free(&text);
  cg_free(&g);
  cuda_sync_free(&k);
  var_list_free(&k.shared);
  ptr_set_free(&k.unroll);
  kfree_free(&kf);
}

/* ---- the host function ---- */

typedef struct { bool found; } launch_find;
static bool find_launch(tir_visitor *v, const tir_stmt *s) {
  if (cuda_is_thread_attr(s)) ((launch_find *)v->user)->found = true;
  return true;
}
static bool has_launch(const tir_stmt *s) {
  launch_find lf = {false};
  tir_visitor v = {.stmt = find_launch, .user = &lf};
  tir_visit_stmt(&v, s);
  return lf.found;
}

static void host_stmt(unit *u, cg *h, const tir_stmt *s);

/* a kernel with loops that binds no thread runs as one thread of a 1x1
 * launch: say so, and name a loop that could be bound instead when one
 * provably can (cuda_bind_hint.c) */
static void warn_single_thread(unit *u, const tir_stmt *kernel) {
  if (!cuda_has_loop(kernel)) return;
  const tir_stmt *loop = cuda_bindable_loop(kernel);
  const char *fn = u->fn && u->fn->name ? u->fn->name : "?";
  if (!loop) {
    tir_diag_add(u->d, TIR_SEV_WARNING, kernel->span,
                 "function '%s' binds no thread here: its CUDA kernel runs on a single thread (and no loop of it "
                 "is provably free of dependences between iterations, to bind to a thread axis)",
                 fn);
    return;
  }
  char *ext = tir_print_expr(loop->u.loop.extent);
  tir_diag_add(u->d, TIR_SEV_WARNING, loop->span,
               "function '%s' binds no thread here: its CUDA kernel runs on a single thread; loop '%s' (extent %s) "
               "has no dependence between iterations and could be bound to a thread axis, e.g. "
               "T.thread_binding(%s, thread=\"blockIdx.x\")",
               fn, loop->u.loop.var->u.var.name, ext ? ext : "?", ext ? ext : "?");
  free(ext);
}

static void host_alloc(unit *u, cg *h, const tir_stmt *s) {
  const tir_buffer *b = s->u.decl.buf;
  const char *scope = b->scope ? b->scope : "global";
  if (strcmp(scope, "global")) {
    cg_error(h, s->span.line ? s->span : b->span, "%s buffer '%s' is allocated outside any thread launch", scope,
             b->name);
    return;
  }
  char ty[32];
  cg_type(h, b->dtype, ty, s->span);
  const char *n = cg_define(h, b->data, b->name);
  cg_linef(h, "%s *%s = NULL;", ty, n);
  cg_line_start(h);
  cg_text_printf(h->out, "if (err == cudaSuccess) err = cudaMallocAsync((void **)&%s, (size_t)(", n);
  cg_expr(h, b->ndim ? b->shape[0] : tir_i32(h->ctx, 1));
  cg_text_printf(h->out, ") * sizeof(%s), stream);\n", ty);
  host_stmt(u, h, s->u.decl.body);
  cg_linef(h, "if (%s) cudaFreeAsync(%s, stream);", n, n);
}

static void host_stmt(unit *u, cg *h, const tir_stmt *s) {
  if (!s || h->failed) return;
  switch (s->kind) {
  case TIR_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) host_stmt(u, h, s->u.seq.stmts[i]);
    return;
  case TIR_DECL_BUFFER: host_stmt(u, h, s->u.decl.body); return;
  case TIR_ALLOC_BUFFER: host_alloc(u, h, s); return;
  case TIR_LET_STMT: {
    char ty[32];
    cg_type(h, s->u.let.var->dtype, ty, s->span);
    char *val = cg_expr_str(h, s->u.let.value);
    cg_linef(h, "%s%s %s = %s;", cg_uses_var(s->u.let.body, s->u.let.var) ? "" : "[[maybe_unused]] ", ty,
             cg_define(h, s->u.let.var, s->u.let.var->u.var.name), val);
    if (s->u.let.var->dtype.code == TIR_TC_HANDLE) cg_note_void_ptr(h, s->u.let.var); /* cast where a kernel types it */
    host_stmt(u, h, s->u.let.body);
    return;
  }
  case TIR_ASSERT: /* on the host: a failed one is the call's error (every later launch and allocation waits on err) */
    if (!has_launch(s)) break;
    cg_line_start(h);
    cg_text_puts(h->out, "if (err == cudaSuccess && !(");
    cg_expr(h, s->u.assrt.cond);
    cg_text_puts(h->out, ")) err = cudaErrorAssert;\n");
    host_stmt(u, h, s->u.assrt.body);
    return;
  case TIR_BREAK: cg_linef(h, "break;"); return; /* of a host loop (the verifier checked) */
  case TIR_CONTINUE: cg_linef(h, "continue;"); return;
  default: break;
  }
  if (!has_launch(s) || cuda_is_thread_attr(s)) {
    if (!has_launch(s)) warn_single_thread(u, s);
    emit_kernel(u, h, s);
    return;
  }
  /* a virtual thread around the kernel's launches (LowerOpaqueBlock's for a
   * vthread loop outside the threadIdx ones) runs as the loop it stands for,
   * here on the host: one launch each, its var a kernel argument (as C runs it) */
  bool vthread = s->kind == TIR_ATTR && !strcmp(s->u.attr.key, "virtual_thread") && tir_is_var(s->u.attr.node);
  if (s->kind == TIR_ATTR && !vthread) {
    host_stmt(u, h, s->u.attr.body);
  } else if (s->kind == TIR_FOR || vthread) {
    const tir_expr *var = vthread ? s->u.attr.node : s->u.loop.var;
    char ty[32];
    cg_type(h, var->dtype, ty, s->span);
    char *lo = vthread ? cg_expr_str(h, tir_int(h->ctx, var->dtype, 0)) : cg_expr_str(h, s->u.loop.min);
    char *ext = cg_expr_str(h, vthread ? s->u.attr.value : s->u.loop.extent);
    cg_enter(h);
    const char *v = cg_define(h, var, var->u.var.name);
    cg_line_start(h);
    cg_text_printf(h->out, "for (%s %s = %s; %s < %s + %s; ++%s)", ty, v, lo, v, lo, ext, v);
    cg_open(h);
    host_stmt(u, h, vthread ? s->u.attr.body : s->u.loop.body);
    cg_close(h);
    cg_leave(h);
  } else if (s->kind == TIR_IF) {
    cg_line_start(h);
    cg_text_puts(h->out, "if (");
    cg_expr(h, s->u.ifs.cond);
    cg_text_puts(h->out, ")");
    cg_open(h);
    host_stmt(u, h, s->u.ifs.then_s);
    if (s->u.ifs.else_s) {
      cg_leave(h);
      h->indent--;
      cg_line_start(h);
      cg_text_puts(h->out, "} else");
      cg_open(h);
      host_stmt(u, h, s->u.ifs.else_s);
    }
    cg_close(h);
  } else {
    cg_error(h, s->span, "this statement mixes host code and thread launches in a way the CUDA generator cannot split");
  }
}

static void print_host(unit *u, const tir_func *f, cg_text *out) {
  cg h;
  cg_init(&h, &host_target, u->ctx, u->d);
  h.host_calls = &u->host_calls;
  h.where = u->where = f->span;
  h.globals = u->globals, h.nglobals = u->nglobals;
  cg_meta rec = {.fn = u->fn};
  h.meta = &rec;
  cg_enter(&h);
  var_list extra = {0};
  cg_shape_vars(f, &extra);
  cg_text sig = {0};
  for (int i = 0; i < f->nparams; i++) {
    const tir_buffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    char ty[32];
    const void *key = b ? (const void *)b->data : (const void *)f->params[i];
    bool later = false; /* over the same data as an earlier parameter: a name of its own */
    for (int j = 0; j < i; j++) {
      const tir_buffer *bj = f->buffer_map ? f->buffer_map[j] : NULL;
      later |= (bj ? (const void *)bj->data : (const void *)f->params[j]) == key;
    }
    if (later) {
      cg_type(&h, b ? b->dtype : TIR_UINT8, ty, f->params[i]->span);
      const char *n = cg_define(&h, &f->params[i], b ? b->name : f->params[i]->u.var.name);
      if (b) cg_text_printf(&sig, "%s *%s, ", ty, n);
      else cg_text_printf(&sig, "void *%s, ", n);
    } else if (b) {
      cg_type(&h, b->dtype, ty, b->span);
      const char *n = cg_define(&h, b->data, b->name);
      cg_alias(&h, f->params[i], n);
      cg_text_printf(&sig, "%s *%s, ", ty, n);
    } else if (f->params[i]->dtype.code == TIR_TC_HANDLE) {
      cg_text_printf(&sig, "void *%s, ", cg_define(&h, f->params[i], f->params[i]->u.var.name));
      cg_note_void_ptr(&h, f->params[i]); /* a kernel that types it gets it cast */
    } else {
      cg_type(&h, f->params[i]->dtype, ty, f->params[i]->span);
      cg_text_printf(&sig, "%s %s, ", ty, cg_define(&h, f->params[i], f->params[i]->u.var.name));
    }
  }
  for (int i = 0; i < extra.n; i++) {
    char ty[32];
    cg_type(&h, extra.vars[i]->dtype, ty, extra.vars[i]->span);
    cg_text_printf(&sig, "%s %s, ", ty, cg_define(&h, extra.vars[i], extra.vars[i]->u.var.name));
  }
  cg_text body = {0};
  h.out = &body;
  h.indent = 1;
  cg_linef(&h, "cudaError_t err = cudaSuccess;");
  cg_use_index *saved_index = cg_index_push(f->body);
  host_stmt(u, &h, f->body);
  cg_index_pop(saved_index);
  cg_linef(&h, "return (int)err;");
  /* params the host body never names */
  cg_text_printf(out, "extern \"C\" int %s(%scudaStream_t stream) {\n", u->symbol, sig.s ? sig.s : "");
  cg_text_puts(out, body.s);
  cg_text_puts(out, "}\n");
  if (!h.failed) {
    cg_aot_args(&h, f, &extra, u->fn);
    cg_aot_packed(&h, u->fn, out, "extern \"C\" int", "cudaStream_t stream", "stream");
  }
  if (h.failed) u->failed = true;
  merge_helpers(u, &h);
  cg_text_free(&sig);
  cg_text_free(&body);
  var_list_free(&extra);
  cg_leave(&h);
  cg_meta_free(&rec);
  cg_free(&h);
}


char *tir_codegen_cuda(const tir_module *m, tir_diag *d) { return tir_codegen_cuda_aot(m, NULL, d); }

char *tir_codegen_cuda_aot(const tir_module *m, tir_aot_module **meta, tir_diag *d) {
  if (meta) *meta = NULL;
  unit u = {.ctx = tir_ctx_new(), .d = d};
  cg_text hosts = {0};
  tir_aot_module *desc = cg_aot_module_new(TIR_AOT_TARGET_CUDA, m->nfuncs);
  const char **syms = cg_module_symbols(u.ctx, m, d);
  if (!syms) u.failed = true;
  else u.globals = cg_module_globals(u.ctx, m, syms, &u.nglobals);
  for (int i = 0; i < m->nfuncs && !u.failed; i++)
    if (!cg_check_steps(m->funcs[i], d)) u.failed = true;
  for (int i = 0; i < m->nfuncs && !u.failed; i++) {
    const tir_func *f = m->funcs[i];
    u.symbol = syms[i];
    u.nkernels = 0;
    desc->nfuncs = i + 1;
    u.fn = &desc->funcs[i];
    u.fn->name = cg_strdup(f->name);
    u.fn->symbol = cg_strdup(u.symbol ? u.symbol : "");
    size_t pn = strlen(u.fn->symbol) + sizeof "_packed";
    u.fn->packed_symbol = cg_calloc(pn, 1);
    snprintf(u.fn->packed_symbol, pn, "%s_packed", u.fn->symbol);
    u.fn->workspace_align = 256;
    if (!u.symbol) {
      u.failed = true;
      break;
    }
    if (i) cg_text_puts(&hosts, "\n");
    print_host(&u, f, &hosts);
  }
  char *result = NULL;
  if (!u.failed) {
    cg_text out = {0};
    cg_text_puts(&out, "/* generated by tirc: CUDA kernels and their extern \"C\" launchers */\n"
                       "#include <cuda_runtime.h>\n");
    if (u.used_f16) cg_text_puts(&out, "#include <cuda_fp16.h>\n");
    if (u.used_bf16) cg_text_puts(&out, "#include <cuda_bf16.h>\n");
    cg helpers_cg;
    cg_init(&helpers_cg, &kernel_target, u.ctx, d);
    memcpy(helpers_cg.helpers, u.helpers, sizeof u.helpers);
    cg_text protos = {0};
    helpers_cg.host_calls = &u.host_calls;
    cg_extern_decls(&helpers_cg, m, syms, &protos);
    cg_text_puts(&out, "#include <math.h>\n#include <stdint.h>\n");
    if (helpers_cg.used_stdio) cg_text_puts(&out, "#include <cstdio>\n");
    cg_text_puts(&out, "#include <string.h>\n\n");
    if (protos.len) cg_text_puts(&out, protos.s);
    cg_text_free(&protos);
    if (helpers_cg.failed) u.failed = true;
    cg_text helpers = {0};
    cg_emit_helpers(&helpers_cg, &helpers);
    if (helpers.len) {
      cg_text_puts(&out, helpers.s);
      cg_text_puts(&out, "\n");
    }
    cg_text_puts(&out, u.kernels.s ? u.kernels.s : "");
    cg_text_puts(&out, hosts.s ? hosts.s : "");
    cg_text_free(&helpers);
    cg_free(&helpers_cg);
    result = out.s;
    if (u.failed) {
      free(result);
      result = NULL;
    }
  }
  cg_text_free(&u.kernels);
  cg_text_free(&hosts);
  free(u.host_calls.v);
  tir_ctx_free(u.ctx);
  if (result && meta) *meta = desc;
  else tir_aot_free(desc);
  return result;
}
