/* cuda_internal.h - shared by the CUDA code generator's files (internal). */
#ifndef TIR_CODEGEN_CUDA_INTERNAL_H
#define TIR_CODEGEN_CUDA_INTERNAL_H

#include "codegen_c/c_printer.h"
#include "passes/ptr_set.h"

/* what a kernel's printer knows about the kernel */
typedef struct cuda_kernel {
  var_list shared;          /* data vars of shared buffers allocated in it */
  const tir_expr *launch[6]; /* blockIdx.x/y/z, threadIdx.x/y/z extents (NULL: 1) */
  const char *guard;         /* while printing under `if (tx < n)` (a launch narrower than the
                                kernel's): its thread tag, else NULL */
  int64_t shared_bytes;      /* __shared__ bytes declared, as laid out (16-byte aligned arrays) */
  int64_t shared_need;       /* what its shared allocations need (before printing) */
  bool dynamic;              /* over the 48 KiB of static shared memory: one dynamic array */
  tir_span shared_span;      /* the first shared allocation's position */
  /* the sequences being printed, each with what its items since the last
   * barrier accessed (cuda_sync.c: linear in the sequence, not quadratic) */
  struct cuda_seq_state *seqs;
  int nseqs, capseqs;
  ptr_set unroll; /* the serial and vectorized loops printed with #pragma unroll (cuda_unroll.c) */
} cuda_kernel;

/* frees what cuda_sync.c keeps in k */
void cuda_sync_free(cuda_kernel *k);

/* 0..5 for blockIdx.x..threadIdx.z, -1 for another tag; and back */
int cuda_tag_index(const char *tag);
const char *cuda_tag_name(int i);
/* a thread_extent attr; its thread tag (its thread_tag, else, read from
 * T.launch_thread("blockIdx.x", n) without one, the var's name) */
bool cuda_is_thread_attr(const tir_stmt *s);
const char *cuda_attr_tag(const tir_stmt *s);

/* barriers (cuda_sync.c): the shared buffers a statement reads and writes */
void cuda_before_seq_item(cg *g, const tir_stmt *seq, int i);
void cuda_loop_end(cg *g, const tir_stmt *loop);

/* a thread tag bound again inside a binding of the same tag: the same
 * index (as TVM lowers it) where that provably keeps the loop's meaning,
 * else an error at the inner binding (cuda_rebind.c) */
bool cuda_rebindings_ok(cg *host, const tir_stmt *body);

/* the loops TVM's UnrollLoop unrolls in s, under a pragma_auto_unroll_max_step
 * of max_step (0 outside one), added to out (cuda_unroll.c) */
void cuda_unroll_plan(const tir_stmt *s, int64_t max_step, ptr_set *out);

/* the global loads of a copy to shared memory at the start of a serial
 * loop's body issued one iteration early, into registers (cuda_prefetch.c);
 * unrolled: the loops cuda_unroll_plan unrolls in body; restrict_data: the
 * data vars of the kernel's __restrict__ parameters.  body itself when
 * nothing is done.  Made after cuda_rebindings_ok: the result is CUDA's
 * meaning, one index per thread in a rebinding. */
tir_stmt *cuda_prefetch(tir_ctx *x, tir_stmt *body, const ptr_set *unrolled, const var_list *restrict_data);

/* slice_tensor as a per-thread vectorized copy (cuda_slice.c) */
bool cuda_slice_tensor(cg *g, const tir_stmt *s);

/* stores of several lanes, as CUDA vector types where aligned (cuda_vector.c) */
bool cuda_vector_store(cg *g, const tir_stmt *s);

/* a T.vectorized loop of one store as one vector store (cuda_vectorize.c);
 * false: print the loop */
bool cuda_vector_loop(cg *g, const tir_stmt *loop);

/* the loop of a kernel that binds no thread which could be bound to a
 * thread axis, provably safely, or NULL (cuda_bind_hint.c) */
const tir_stmt *cuda_bindable_loop(const tir_stmt *s);
bool cuda_has_loop(const tir_stmt *s);

#endif
