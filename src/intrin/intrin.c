/* intrin.c - the one table of known intrinsics and the checks of a call
 * against it. */
#include "intrin/intrin.h"

#include <string.h>

#define A_ANY TIR_IA_ANY
#define A_INT TIR_IA_INT
#define A_FLT TIR_IA_FLOAT
#define A_NUM TIR_IA_NUMERIC
#define A_BOOL TIR_IA_BOOL
#define A_HDL TIR_IA_HANDLE
#define A_STR TIR_IA_STRING
#define A_TA TIR_IA_TYPE_ANNOT

/* a float -> float math function with its C (float32) name */
#define MATH1(n, cn) {n, TIR_ARITY_RANGE, 1, 1, {A_FLT}, 1, TIR_IR_ARG0, true, false, cn}
#define MATH2(n, cn) {n, TIR_ARITY_RANGE, 2, 2, {A_FLT, A_FLT}, 2, TIR_IR_ARG0, true, true, cn}
/* TVM's tirx.op.fmod / nextafter / hypot / copysign / atan2: call_intrin of
 * the first argument's dtype over the arguments as given (a Python 2 stays
 * an int32, 2.5 a float32): no conversion, no common dtype */
#define MATH2X(n, cn) {n, TIR_ARITY_RANGE, 2, 2, {A_FLT, A_ANY}, 2, TIR_IR_ARG0, true, false, cn}

/* TVM 0.27's T.cuda calls of N arguments of any dtype, with the result r
 * (CUDAP: pure) */
#define CUDA0(n, r) {n, TIR_ARITY_RANGE, 0, 0, {A_ANY}, 0, r, false, false, NULL}
#define CUDAN(n, k, r) {n, TIR_ARITY_RANGE, k, k, {A_ANY}, 0, r, false, false, NULL}
#define CUDAP(n, k, r) {n, TIR_ARITY_RANGE, k, k, {A_ANY}, 0, r, true, false, NULL}

static const tir_intrin TABLE[] = {
    /* memory */
    {"tvm_access_ptr", TIR_ARITY_RANGE, 5, 5, {A_TA, A_HDL, A_INT, A_INT, A_INT}, 5, TIR_IR_HANDLE, true, false, NULL},
    {"type_annotation", TIR_ARITY_RANGE, 0, 0, {A_ANY}, 0, TIR_IR_EXPLICIT, true, false, NULL},
    {"slice_tensor", TIR_ARITY_SLICE_TENSOR, 4, 16, {A_ANY}, 0, TIR_IR_HANDLE, false, false, NULL},
    {"address_of", TIR_ARITY_RANGE, 1, 1, {A_ANY}, 1, TIR_IR_HANDLE, true, false, NULL},
    {"isnullptr", TIR_ARITY_RANGE, 1, 1, {A_HDL}, 1, TIR_IR_BOOL, true, false, NULL},
    {"reinterpret", TIR_ARITY_RANGE, 1, 1, {A_ANY}, 1, TIR_IR_EXPLICIT, true, false, NULL},
    /* calls out */
    {"call_extern", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_EXPLICIT, false, false, NULL},
    {"call_pure_extern", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_EXPLICIT, true, false, NULL},
    /* control and sync */
    /* (scope, is_load, num_blocks): TVM 0.27's T.tvm_storage_sync writes all three; the last two are for "global" */
    {"tvm_storage_sync", TIR_ARITY_RANGE, 1, 3, {A_STR, A_BOOL, A_INT}, 3, TIR_IR_INT32, false, false, NULL},
    {"ret", TIR_ARITY_RANGE, 1, 1, {A_ANY}, 1, TIR_IR_ARG0, false, false, NULL},
    {"likely", TIR_ARITY_RANGE, 1, 1, {A_BOOL}, 1, TIR_IR_ARG0, true, false, NULL},
    {"if_then_else", TIR_ARITY_RANGE, 3, 3, {A_BOOL, A_ANY, A_ANY}, 3, TIR_IR_ARG1, true, false, NULL},
    /* float predicates */
    {"isnan", TIR_ARITY_RANGE, 1, 1, {A_FLT}, 1, TIR_IR_BOOL, true, false, "isnan"},
    {"isinf", TIR_ARITY_RANGE, 1, 1, {A_FLT}, 1, TIR_IR_BOOL, true, false, "isinf"},
    {"isfinite", TIR_ARITY_RANGE, 1, 1, {A_FLT}, 1, TIR_IR_BOOL, true, false, "isfinite"},
    /* bits */
    {"bitwise_and", TIR_ARITY_RANGE, 2, 2, {TIR_IA_INT_BOOL, TIR_IA_INT_BOOL}, 2, TIR_IR_ARG0, true, true, NULL},
    {"bitwise_or", TIR_ARITY_RANGE, 2, 2, {TIR_IA_INT_BOOL, TIR_IA_INT_BOOL}, 2, TIR_IR_ARG0, true, true, NULL},
    {"bitwise_xor", TIR_ARITY_RANGE, 2, 2, {TIR_IA_INT_BOOL, TIR_IA_INT_BOOL}, 2, TIR_IR_ARG0, true, true, NULL},
    {"bitwise_not", TIR_ARITY_RANGE, 1, 1, {A_INT}, 1, TIR_IR_ARG0, true, false, NULL},
    {"shift_left", TIR_ARITY_RANGE, 2, 2, {A_INT, A_INT}, 2, TIR_IR_ARG0, true, true, NULL},
    {"shift_right", TIR_ARITY_RANGE, 2, 2, {A_INT, A_INT}, 2, TIR_IR_ARG0, true, true, NULL},
    {"popcount", TIR_ARITY_RANGE, 1, 1, {A_INT}, 1, TIR_IR_ARG0, true, false, NULL},
    {"clz", TIR_ARITY_RANGE, 1, 1, {A_INT}, 1, TIR_IR_INT32, true, false, NULL}, /* int32 whatever the operand, as TVM's */
    /* math */
    MATH1("exp", "expf"), MATH1("exp2", "exp2f"), MATH1("exp10", "exp10f"),
    MATH1("log", "logf"), MATH1("log2", "log2f"), MATH1("log10", "log10f"),
    MATH1("log1p", "log1pf"), MATH1("sqrt", "sqrtf"), MATH1("rsqrt", NULL),
    MATH1("tanh", "tanhf"), MATH1("sigmoid", NULL), MATH1("fabs", "fabsf"),
    MATH1("floor", "floorf"), MATH1("ceil", "ceilf"), MATH1("round", "roundf"),
    MATH1("nearbyint", "nearbyintf"), MATH1("trunc", "truncf"), MATH1("erf", "erff"),
    MATH1("sin", "sinf"), MATH1("cos", "cosf"), MATH1("tan", "tanf"),
    MATH1("asin", "asinf"), MATH1("acos", "acosf"), MATH1("atan", "atanf"),
    MATH1("sinh", "sinhf"), MATH1("cosh", "coshf"), MATH1("asinh", "asinhf"),
    MATH1("acosh", "acoshf"), MATH1("atanh", "atanhf"),
    MATH2("pow", "powf"), MATH2X("atan2", "atan2f"), MATH2X("fmod", "fmodf"),
    MATH2X("hypot", "hypotf"), MATH2X("copysign", "copysignf"), MATH2X("nextafter", "nextafterf"),
    /* TVM's tensor-core, warp and hint intrinsics: read, checked and printed
     * as TVM prints them; refused by name where code is generated or run */
    {"tvm_fill_fragment", TIR_ARITY_RANGE, 6, 6, {A_HDL, A_INT, A_INT, A_INT, A_INT, A_ANY}, 6, TIR_IR_HANDLE, false, false, NULL},
    {"tvm_load_matrix_sync", TIR_ARITY_RANGE, 8, 8, {A_HDL, A_INT, A_INT, A_INT, A_INT, A_ANY}, 6, TIR_IR_HANDLE, false, false, NULL},
    {"tvm_store_matrix_sync", TIR_ARITY_RANGE, 8, 8, {A_HDL, A_INT, A_INT, A_INT, A_INT, A_ANY}, 6, TIR_IR_HANDLE, false, false, NULL},
    {"tvm_mma_sync", TIR_ARITY_RANGE, 8, 8, {A_HDL, A_INT, A_HDL, A_INT, A_HDL, A_ANY}, 6, TIR_IR_HANDLE, false, false, NULL},
    {"tvm_bmma_sync", TIR_ARITY_RANGE, 8, 8, {A_HDL, A_INT, A_HDL, A_INT, A_HDL, A_ANY}, 6, TIR_IR_HANDLE, false, false, NULL},
    {"tvm_warp_shuffle", TIR_ARITY_RANGE, 5, 5, {A_INT, A_ANY, A_INT, A_INT, A_INT}, 5, TIR_IR_ARG1, false, false, NULL},
    {"tvm_warp_shuffle_up", TIR_ARITY_RANGE, 5, 5, {A_INT, A_ANY, A_INT, A_INT, A_INT}, 5, TIR_IR_ARG1, false, false, NULL},
    {"tvm_warp_shuffle_down", TIR_ARITY_RANGE, 5, 5, {A_INT, A_ANY, A_INT, A_INT, A_INT}, 5, TIR_IR_ARG1, false, false, NULL},
    {"tvm_warp_shuffle_xor", TIR_ARITY_RANGE, 5, 5, {A_INT, A_ANY, A_INT, A_INT, A_INT}, 5, TIR_IR_ARG1, false, false, NULL},
    /* the CUDA mask of a warp's active threads (TVM's LowerThreadAllreduce writes it) */
    {"cuda.__activemask", TIR_ARITY_RANGE, 0, 0, {A_ANY}, 0, TIR_IR_UINT32, false, false, NULL},
    /* CUDA's warp shuffles as TVM's lowered allreduce writes them: (mask, value, lane or delta, width) */
    {"cuda.__shfl_sync", TIR_ARITY_RANGE, 4, 4, {A_INT, A_ANY, A_INT, A_INT}, 4, TIR_IR_ARG1, false, false, NULL},
    {"cuda.__shfl_up_sync", TIR_ARITY_RANGE, 4, 4, {A_INT, A_ANY, A_INT, A_INT}, 4, TIR_IR_ARG1, false, false, NULL},
    {"cuda.__shfl_down_sync", TIR_ARITY_RANGE, 4, 4, {A_INT, A_ANY, A_INT, A_INT}, 4, TIR_IR_ARG1, false, false, NULL},
    {"cuda.__shfl_xor_sync", TIR_ARITY_RANGE, 4, 4, {A_INT, A_ANY, A_INT, A_INT}, 4, TIR_IR_ARG1, false, false, NULL},
    /* LowerCrossThreadReduction's: (size, source[size], cond, result[size],
     * the reducing thread vars...), under a "reduce_scope" attr on a comm_reducer */
    {"tvm_thread_allreduce", TIR_ARITY_RANGE, 4, -1, {A_INT, A_ANY}, 2, TIR_IR_HANDLE, false, false, NULL},
    {"tvm_warp_activemask", TIR_ARITY_RANGE, 0, 0, {A_ANY}, 0, TIR_IR_UINT32, false, false, NULL},
    {"tvm_thread_invariant", TIR_ARITY_RANGE, 1, 1, {A_ANY}, 1, TIR_IR_ARG0, true, false, NULL},
    /* a condition LoopPartition is not to split on: the condition itself (a hint, as likely) */
    {"ignore_loop_partition", TIR_ARITY_RANGE, 1, 1, {A_BOOL}, 1, TIR_IR_ARG0, true, false, NULL},
    /* the counter of TVM's global barrier set up (CUDA; read and printed only) */
    {"tvm_global_barrier_kinit", TIR_ARITY_RANGE, 0, 0, {A_ANY}, 0, TIR_IR_VOID, false, false, NULL},
    /* (address, value): CUDA's atomicAdd, the old value (read and printed only) */
    {"cuda.atomic_add", TIR_ARITY_RANGE, 2, 2, {A_HDL, A_ANY}, 2, TIR_IR_ARG1, false, false, NULL},
    /* TVM 0.27's T.cuda conversions (read and printed only; result dtypes as TVM's) */
    {"cuda.half2float", TIR_ARITY_RANGE, 1, 1, {A_FLT}, 1, TIR_IR_FLOAT32, true, false, NULL},
    {"cuda.bfloat162float", TIR_ARITY_RANGE, 1, 1, {A_FLT}, 1, TIR_IR_FLOAT32, true, false, NULL},
    {"cuda.float_as_uint", TIR_ARITY_RANGE, 1, 1, {A_FLT}, 1, TIR_IR_UINT32, true, false, NULL},
    {"cuda.uint_as_float", TIR_ARITY_RANGE, 1, 1, {A_INT}, 1, TIR_IR_FLOAT32, true, false, NULL},
    {"cuda.fdividef", TIR_ARITY_RANGE, 2, 2, {A_FLT}, 1, TIR_IR_FLOAT32, true, false, NULL},
    /* more of TVM 0.27's T.cuda (read and printed only; result dtypes as
     * TVM's op.py gives them; the wrappers that expand into other ops,
     * T.cuda.warp_sum(x) into warp_reduce(x, "sum", 32), are kept as written,
     * which TVM expands again when it reads tirc's print) */
    /* TVM 0.27's T.metal (read and printed only: the code generators and
     * the interpreter refuse them by name); TVM's ops of the first four are
     * tirx.<name> without metal. (tir_intrin_tvm_op) */
    CUDAN("metal.make_filled_simdgroup_matrix", 5, TIR_IR_VOID), CUDAN("metal.simdgroup_load", 7, TIR_IR_VOID),
    CUDAN("metal.simdgroup_store", 7, TIR_IR_VOID), CUDAN("metal.simdgroup_multiply_accumulate", 8, TIR_IR_VOID),
    CUDAN("metal.simd_shuffle", 2, TIR_IR_ARG0), CUDAN("metal.simd_shuffle_up", 2, TIR_IR_ARG0),
    CUDAN("metal.simd_shuffle_down", 2, TIR_IR_ARG0),
    /* and T.webgpu's (its ops are tirx.webgpu.<name>) */
    CUDAN("webgpu.subgroup_shuffle", 2, TIR_IR_ARG0), CUDAN("webgpu.subgroup_shuffle_up", 2, TIR_IR_ARG0),
    CUDAN("webgpu.subgroup_shuffle_down", 2, TIR_IR_ARG0),
    CUDA0("cuda.warp_sync", TIR_IR_VOID), CUDA0("cuda.cta_sync", TIR_IR_VOID), CUDA0("cuda.grid_sync", TIR_IR_VOID),
    CUDA0("cuda.cluster_sync", TIR_IR_VOID), CUDA0("cuda.thread_fence", TIR_IR_VOID),
    CUDA0("cuda.thread_rank", TIR_IR_INT32), CUDA0("cuda.elect_sync", TIR_IR_UINT32),
    CUDA0("cuda.clock64", TIR_IR_UINT64),
    CUDAN("cuda.warpgroup_sync", 1, TIR_IR_VOID), CUDAN("cuda.nano_sleep", 1, TIR_IR_VOID),
    CUDAN("cuda.trap_when_assert_failed", 1, TIR_IR_VOID), CUDAN("cuda.mbarrier_wait", 2, TIR_IR_VOID),
    CUDAN("cuda.mbarrier_wait_acquire_cluster", 2, TIR_IR_VOID), CUDAN("cuda.half8tofloat8", 2, TIR_IR_VOID),
    CUDAN("cuda.float8tohalf8", 2, TIR_IR_VOID), CUDAN("cuda.float22half2", 2, TIR_IR_VOID),
    CUDAN("cuda.runtime_instr_desc", 2, TIR_IR_VOID),
    CUDAN("cuda.any_sync", 2, TIR_IR_INT32), CUDAN("cuda.ffs_u32", 1, TIR_IR_INT32),
    CUDAN("cuda.syncthreads_and", 1, TIR_IR_INT64), CUDAN("cuda.syncthreads_or", 1, TIR_IR_INT64),
    CUDAN("cuda.get_tmem_addr", 3, TIR_IR_UINT32), CUDAN("cuda.smem_addr_from_uint64", 1, TIR_IR_UINT32),
    CUDAN("cuda.sm100_2sm_leader_smem_addr", 1, TIR_IR_UINT32), CUDAN("cuda.ballot_sync", 2, TIR_IR_UINT32),
    CUDAN("cuda.reduce_add_sync_u32", 2, TIR_IR_UINT32), CUDAN("cuda.reduce_min_sync_u32", 2, TIR_IR_UINT32),
    CUDAN("cuda.atomic_cas", 3, TIR_IR_ARG1),
    {"cuda.cvta_generic_to_shared", TIR_ARITY_RANGE, 1, 1, {A_HDL}, 1, TIR_IR_UINT32, true, false, NULL},
    CUDAP("cuda.float22bfloat162_rn", 2, TIR_IR_UINT32), CUDAP("cuda.float22bfloat162_rn_from_float2", 1, TIR_IR_UINT32),
    CUDAP("cuda.hmin2", 2, TIR_IR_UINT32), CUDAP("cuda.hmax2", 2, TIR_IR_UINT32),
    CUDAP("cuda.fp8x4_e4m3_from_float4", 4, TIR_IR_UINT32), CUDAP("cuda.make_float2", 2, TIR_IR_UINT64),
    CUDAP("cuda.fmul2_rn", 2, TIR_IR_UINT64), CUDAP("cuda.fadd2_rn", 2, TIR_IR_UINT64),
    CUDAP("cuda.bfloat1622float2", 1, TIR_IR_UINT64), CUDAP("cuda.float2_x", 1, TIR_IR_FLOAT32),
    CUDAP("cuda.float2_y", 1, TIR_IR_FLOAT32),
    /* (value, op, width=32) and (value, width=32): the value's dtype */
    {"cuda.warp_reduce", TIR_ARITY_RANGE, 2, 3, {A_ANY, A_STR, A_INT}, 3, TIR_IR_ARG0, false, false, NULL},
    {"cuda.warp_sum", TIR_ARITY_RANGE, 1, 2, {A_ANY, A_INT}, 2, TIR_IR_ARG0, false, false, NULL},
    {"cuda.warp_max", TIR_ARITY_RANGE, 1, 2, {A_ANY, A_INT}, 2, TIR_IR_ARG0, false, false, NULL},
    {"cuda.warp_min", TIR_ARITY_RANGE, 1, 2, {A_ANY, A_INT}, 2, TIR_IR_ARG0, false, false, NULL},
    /* (format, values...) */
    {"cuda.printf", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_VOID, false, false, NULL},
    /* (data, byte offset, type_annotation(dtype)): data + byte offset as a
     * pointer to dtype (TVM 0.27's; typed by reader_call.c) */
    {"ptr_byte_offset", TIR_ARITY_RANGE, 3, 3, {A_HDL, A_INT, A_TA}, 3, TIR_IR_HANDLE, false, false, NULL},
    /* (address, dtype): CUDA's __ldg of the named dtype (its vector form,
     * dst= and vec=, is refused: TVM cannot read its own print of it) */
    {"cuda.ldg", TIR_ARITY_RANGE, 2, 2, {A_ANY, A_STR}, 2, TIR_IR_DTYPE_ARG1, false, false, NULL},
    /* (bits, register): `mov.u<bits> d, %<register>`, an int of those bits */
    {"cuda.mov_sreg", TIR_ARITY_RANGE, 2, 2, {A_INT, A_STR}, 2, TIR_IR_INT_BITS_ARG0, false, false, NULL},
    /* (name, args..., source code): a CUDA function or macro given as
     * source, of the call's dtype (T.cuda.func_call(name, *args,
     * source_code=, return_type=); reader_call.c) */
    {"cuda.func_call", TIR_ARITY_RANGE, 2, -1, {A_STR, A_ANY}, 2, TIR_IR_EXPLICIT, false, false, NULL},
    /* (address, value): PTX's addressed operand [base + byte offset] of T.ptx.ld / st and kin */
    {"ptx.addr", TIR_ARITY_RANGE, 2, 2, {A_ANY, A_INT}, 2, TIR_IR_HANDLE, true, false, NULL},
    /* (address, rw, locality, cache type): a hint to fetch the line (TVM's tirx.prefetch) */
    {"prefetch", TIR_ARITY_RANGE, 4, 4, {A_HDL, A_INT, A_INT, A_INT}, 4, TIR_IR_EXPLICIT, false, false, NULL},
    {"assume", TIR_ARITY_RANGE, 1, 1, {A_BOOL}, 1, TIR_IR_BOOL, false, false, NULL},
    /* T.call_intrin(dtype, "tirx.atomic_add", T.address_of(x), v): TVM 0.27 registers the op (no T.atomic_add) */
    {"atomic_add", TIR_ARITY_RANGE, 2, 2, {A_HDL, A_ANY}, 2, TIR_IR_EXPLICIT, false, false, NULL},
    /* TVM 0.27's CUDA tensor-core intrinsics (T.ptx_legacy.*, T.cuda.*_legacy,
     * as its s_tir tensor intrinsics write them) */
    {"ptx_legacy.mma", TIR_ARITY_RANGE, 13, 14, {A_STR, A_STR, A_STR, A_STR, A_STR, A_STR}, 0, TIR_IR_VOID, false, false, NULL},
    {"ptx_legacy.ldmatrix", TIR_ARITY_RANGE, 7, 7, {A_BOOL, A_INT, A_STR, A_ANY}, 4, TIR_IR_VOID, false, false, NULL},
    /* T.s_tir.cp_async_raw(elem_dtype, dst, dst_offset, src, src_offset, bytes): InjectPTXAsyncCopy's
     * raw cp.async, typed by its element dtype (printed first) */
    {"s_tir.cp_async_raw", TIR_ARITY_RANGE, 5, 5, {A_HDL, A_INT, A_HDL, A_INT, A_INT}, 5, TIR_IR_EXPLICIT, false, false, NULL},
    /* T.s_tir.ldg32(register, guard, element, offset): InjectPTXLDG32's guarded 32-bit global load, typed
     * by its register's pointer */
    {"s_tir.ldg32", TIR_ARITY_RANGE, 4, 4, {A_HDL, A_BOOL, A_ANY, A_INT}, 4, TIR_IR_ARG0, false, false, NULL},
    {"cuda.mma_store_legacy", TIR_ARITY_RANGE, 6, 6, {A_INT, A_INT, A_HDL, A_HDL, A_INT, A_INT}, 6, TIR_IR_VOID, false, false, NULL},
    {"cuda.mma_fill_legacy", TIR_ARITY_RANGE, 3, 3, {A_INT, A_HDL, A_INT}, 3, TIR_IR_VOID, false, false, NULL},
    /* and TVM 0.27's own spellings of the two (the same operands) */
    {"cuda.mma_store", TIR_ARITY_RANGE, 6, 6, {A_INT, A_INT, A_HDL, A_HDL, A_INT, A_INT}, 6, TIR_IR_VOID, false, false, NULL},
    {"cuda.mma_fill", TIR_ARITY_RANGE, 3, 3, {A_INT, A_HDL, A_INT}, 3, TIR_IR_VOID, false, false, NULL},
    /* TVM's fused multiply-add, ldexp(x, exp), fixed-point multiply
     * (q_multiply_shift(x, y, q, s): x * y * 2^(-q) * 2^s, rounded; TVM's
     * LowerIntrin expands it; and its per-axis form), an arbitrary value, a tuple of arguments
     * (a packed call's): read and printed */
    {"fma", TIR_ARITY_RANGE, 3, 3, {A_ANY}, 1, TIR_IR_ARG0, true, true, NULL},
    {"ldexp", TIR_ARITY_RANGE, 2, 2, {A_ANY, A_ANY}, 2, TIR_IR_ARG0, true, false, NULL}, /* TVM: any exponent */
    {"q_multiply_shift", TIR_ARITY_RANGE, 4, 4, {A_INT}, 1, TIR_IR_INT32_LANES, true, false, NULL},
    /* per output channel: (x, y, left shift, right shift, q, is_lshift_required, is_rshift_required) */
    {"q_multiply_shift_per_axis", TIR_ARITY_RANGE, 7, 7, {A_INT, A_INT, A_INT, A_INT, A_INT, A_BOOL}, 6, TIR_IR_INT32_LANES, true, false, NULL},
    {"undef", TIR_ARITY_RANGE, 0, 0, {A_ANY}, 0, TIR_IR_INT32, false, false, NULL},
    /* dp4a(a, b, acc): the dot product of two int8x4 plus acc (the reader
     * writes TVM's default acc 0 of a two-argument call) */
    {"dp4a", TIR_ARITY_RANGE, 3, 3, {A_ANY}, 1, TIR_IR_INT32, true, false, NULL},
    {"tvm_tuple", TIR_ARITY_RANGE, 0, -1, {A_ANY}, 1, TIR_IR_HANDLE, false, false, NULL},
    /* Arm SVE's vector length in units of 128 bits (scalable vectors: read
     * and printed; nothing lowers, emits or runs them) */
    {"vscale", TIR_ARITY_RANGE, 0, 0, {A_ANY}, 0, TIR_IR_INT32, true, false, NULL},
    /* lane masks and masked vector access (TVM 0.27's VectorizeLoop for
     * predicated targets; read and printed, refused where code is emitted
     * or run): get_active_lane_mask(dtype, base, limit), the lanes
     * base + i < limit; masked_load(dtype, buffer or pointer, indices...,
     * mask[, passthru]); masked_store(buffer or pointer, value or indices...,
     * mask) */
    {"get_active_lane_mask", TIR_ARITY_RANGE, 2, 2, {A_INT, A_INT}, 2, TIR_IR_EXPLICIT, true, false, NULL},
    {"masked_load", TIR_ARITY_RANGE, 3, -1, {A_HDL, A_ANY}, 2, TIR_IR_EXPLICIT, false, false, NULL},
    {"masked_store", TIR_ARITY_RANGE, 3, -1, {A_HDL, A_ANY}, 2, TIR_IR_VOID, false, false, NULL},
    /* LLVM intrinsics and vector halves (x86, Arm, Hexagon tensor intrinsics):
     * the dtype first, as call_extern */
    {"call_llvm_intrin", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_EXPLICIT, false, false, NULL},
    {"call_llvm_pure_intrin", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_EXPLICIT, true, false, NULL},
    {"vectorlow", TIR_ARITY_RANGE, 1, 1, {A_ANY}, 1, TIR_IR_EXPLICIT, true, false, NULL},
    {"vectorhigh", TIR_ARITY_RANGE, 1, 1, {A_ANY}, 1, TIR_IR_EXPLICIT, true, false, NULL},
    {"vectorcombine", TIR_ARITY_RANGE, 2, 2, {A_ANY}, 0, TIR_IR_EXPLICIT, true, false, NULL},
    /* TVM's host-side builtins (MakePackedAPI / LowerTVMBuiltin output) */
    {"call_packed", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_INT32, false, false, NULL},
    {"call_cpacked", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_INT32, false, false, NULL},
    {"tvm_call_packed", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_INT32, false, false, NULL},
    {"tvm_call_cpacked", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_INT32, false, false, NULL},
    {"tvm_struct_get", TIR_ARITY_RANGE, 3, 3, {A_HDL, A_INT, A_INT}, 3, TIR_IR_EXPLICIT, false, false, NULL},
    {"tvm_struct_set", TIR_ARITY_RANGE, 4, 4, {A_HDL, A_INT, A_INT, A_ANY}, 4, TIR_IR_INT32, false, false, NULL},
    {"tvm_stack_alloca", TIR_ARITY_RANGE, 2, 2, {A_STR, A_INT}, 2, TIR_IR_HANDLE, false, false, NULL},
    /* a DLTensor on the stack for T.call_packed (topi's sort, topk: te.extern): (data, shape, strides or 0,
     * ndim, a value of the element dtype, elem_offset) and its shape (the extents) */
    {"tvm_stack_make_array", TIR_ARITY_RANGE, 6, 6, {A_HDL, A_HDL, A_ANY, A_INT, A_ANY, A_INT}, 6, TIR_IR_HANDLE, false, false, NULL},
    {"tvm_stack_make_shape", TIR_ARITY_RANGE, 0, -1, {A_INT}, 1, TIR_IR_HANDLE, false, false, NULL},
    {"tvm_throw_last_error", TIR_ARITY_RANGE, 0, 0, {A_ANY}, 0, TIR_IR_INT32, false, false, NULL},
    /* the device context handle of a packed function's caller (TVM's builtin) */
    {"tvm_context_id", TIR_ARITY_RANGE, 0, 0, {A_ANY}, 0, TIR_IR_HANDLE, false, false, NULL},
    /* LowerTVMBuiltin's packed calls through a stack: (name, stack, begin, end) */
    {"call_packed_lowered", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_INT32, false, false, NULL},
    {"tvm_call_packed_lowered", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_INT32, false, false, NULL},
    {"call_cpacked_lowered", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_INT32, false, false, NULL},
    {"tvm_call_cpacked_lowered", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_INT32, false, false, NULL},
    /* the runtime's workspace: (device type, device id, bytes, dtype code, dtype bits) and its release */
    {"TVMBackendAllocWorkspace", TIR_ARITY_RANGE, 5, 5, {A_INT, A_INT, A_INT, A_INT, A_INT}, 5, TIR_IR_HANDLE, false, false, NULL},
    {"TVMBackendFreeWorkspace", TIR_ARITY_RANGE, 3, 3, {A_INT, A_INT, A_HDL}, 3, TIR_IR_INT32, false, false, NULL},
    /* TVM's debugging print of a buffer's elements: (data, dtype, 2 flags, 2 ints) */
    {"print_buffer", TIR_ARITY_RANGE, 6, 6, {A_HDL, A_STR, A_BOOL, A_BOOL, A_INT, A_INT}, 6, TIR_IR_VOID, false, false, NULL},
    /* TVM's instrumentation markers (InstrumentProfileIntrinsics) */
    {"start_profile_intrinsic", TIR_ARITY_RANGE, 1, 1, {A_INT}, 1, TIR_IR_HANDLE, false, false, NULL},
    {"end_profile_intrinsic", TIR_ARITY_RANGE, 1, 1, {A_INT}, 1, TIR_IR_HANDLE, false, false, NULL},
    /* a thread leaves the kernel (CUDA's return) */
    {"thread_return", TIR_ARITY_RANGE, 0, 0, {A_ANY}, 0, TIR_IR_VOID, false, false, NULL},
    /* TVM's Shuffle node, T.Shuffle([vectors], [indices]): (the number of vectors, the vectors, the indices) */
    {"Shuffle", TIR_ARITY_RANGE, 3, -1, {A_INT, A_ANY}, 2, TIR_IR_EXPLICIT, true, false, NULL},
    /* a pointer moved by a number of bytes */
    {"handle_add_byte_offset", TIR_ARITY_RANGE, 2, 2, {A_HDL, A_INT}, 2, TIR_IR_HANDLE, true, false, NULL},
    /* the Relax VM's register file (its TIR-compiled functions, __vmtir__*):
     * (list, index) and (list, index, function name, args...) */
    {"anylist_getitem", TIR_ARITY_RANGE, 2, 2, {A_HDL, A_INT}, 2, TIR_IR_HANDLE, false, false, NULL},
    {"anylist_resetitem", TIR_ARITY_RANGE, 2, 2, {A_HDL, A_INT}, 2, TIR_IR_INT32, false, false, NULL},
    {"anylist_setitem_call_packed", TIR_ARITY_RANGE, 3, -1, {A_HDL, A_INT, A_STR, A_ANY}, 4, TIR_IR_INT32, false, false, NULL},
    {"anylist_setitem_call_cpacked", TIR_ARITY_RANGE, 3, -1, {A_HDL, A_INT, A_STR, A_ANY}, 4, TIR_IR_INT32, false, false, NULL},
    /* a parameter of the module's by name (TVM's T.lookup_param) */
    {"lookup_param", TIR_ARITY_RANGE, 1, 1, {A_STR}, 1, TIR_IR_HANDLE, false, false, NULL},
    /* ops TVM 0.27 registers with no T.* function: written through
     * T.call_intrin(dtype, "tirx.NAME", ...) only (tir_intrin_call_intrin_only) */
    {"tvm_call_trace_packed", TIR_ARITY_RANGE, 1, -1, {A_STR, A_ANY}, 2, TIR_IR_EXPLICIT, false, false, NULL},
    /* Hexagon's DMA: copy (queue, dst, src, bytes, bypass cache), wait
     * (queue, in flight), and the group markers (queue) */
    {"dma_copy", TIR_ARITY_RANGE, 5, 5, {A_INT, A_HDL, A_HDL, A_INT, A_BOOL}, 5, TIR_IR_EXPLICIT, false, false, NULL},
    {"dma_wait", TIR_ARITY_RANGE, 2, 2, {A_INT, A_INT}, 2, TIR_IR_EXPLICIT, false, false, NULL},
    {"dma_start_group", TIR_ARITY_RANGE, 1, 1, {A_INT}, 1, TIR_IR_EXPLICIT, false, false, NULL},
    {"dma_end_group", TIR_ARITY_RANGE, 1, 1, {A_INT}, 1, TIR_IR_EXPLICIT, false, false, NULL},
    /* OpenCL / Adreno textures: (data, then coordinates and the like) */
    {"texture2d_load", TIR_ARITY_RANGE, 1, -1, {A_HDL, A_ANY}, 2, TIR_IR_EXPLICIT, false, false, NULL},
    {"texture2d_store", TIR_ARITY_RANGE, 1, -1, {A_HDL, A_ANY}, 2, TIR_IR_EXPLICIT, false, false, NULL},
    /* PTX's cp.async groups as InjectPTXAsyncCopy's tests write them (TVM
     * prints them T.ptx.cp(), which it cannot read): commit, wait (n) */
    {"ptx.cp_async_commit_group", TIR_ARITY_RANGE, 0, 0, {A_ANY}, 0, TIR_IR_EXPLICIT, false, false, NULL},
    {"ptx.cp_async_wait_group", TIR_ARITY_RANGE, 1, 1, {A_INT}, 1, TIR_IR_EXPLICIT, false, false, NULL},
    /* a static handle of the module (codegen's static init), and Hexagon's
     * VTCM allocation (scope, dtype, shape, ndim) */
    {"tvm_static_handle", TIR_ARITY_RANGE, 0, 0, {A_ANY}, 0, TIR_IR_EXPLICIT, false, false, NULL},
    {"nd_mem_alloc_with_scope", TIR_ARITY_RANGE, 1, -1, {A_ANY}, 0, TIR_IR_EXPLICIT, false, false, NULL},
    /* TVM 0.27's element offset of a buffer's element (A.elem_offset_of(...)): of one BufferLoad */
    {"buffer_offset", TIR_ARITY_RANGE, 1, 1, {A_ANY}, 1, TIR_IR_EXPLICIT, true, false, NULL},
};

/* the first entry of those written only through T.call_intrin */
#define FIRST_CALL_INTRIN_ONLY "tvm_call_trace_packed"

bool tir_intrin_call_intrin_only(const tir_intrin *in) {
  static int first = -1;
  if (first < 0)
    for (int i = 0; i < (int)(sizeof TABLE / sizeof TABLE[0]); i++)
      if (!strcmp(TABLE[i].name, FIRST_CALL_INTRIN_ONLY)) first = i;
  return in && first >= 0 && in - TABLE >= first;
}

#define NTABLE ((int)(sizeof TABLE / sizeof TABLE[0]))

/* the first of the read-only entries (TVM's GPU intrinsics), to the end */
#define FIRST_READ_ONLY "tvm_fill_fragment"

bool tir_intrin_read_only(const tir_intrin *in) {
  static int first = -1;
  if (first < 0)
    for (int i = 0; i < NTABLE; i++)
      if (!strcmp(TABLE[i].name, FIRST_READ_ONLY)) first = i;
  return in && first >= 0 && in - TABLE >= first;
}

const tir_intrin *tir_intrin_table(int *n) {
  if (n) *n = NTABLE;
  return TABLE;
}

const tir_intrin *tir_intrin_lookup(const char *name) {
  if (!name) return NULL;
  if (!strncmp(name, "tir.", 4)) name += 4;
  for (int i = 0; i < NTABLE; i++)
    if (!strcmp(TABLE[i].name, name)) return &TABLE[i];
  return NULL;
}

static const char *kind_name(tir_intrin_arg k) {
  switch (k) {
  case TIR_IA_INT: return "an integer";
  case TIR_IA_FLOAT: return "a float";
  case TIR_IA_NUMERIC: return "a number";
  case TIR_IA_BOOL: return "a boolean";
  case TIR_IA_HANDLE: return "a pointer (handle)";
  case TIR_IA_STRING: return "a string";
  case TIR_IA_TYPE_ANNOT: return "a T.type_annotation(dtype)";
  case TIR_IA_INT_BOOL: return "an integer or a boolean";
  default: return "an expression";
  }
}

static bool arg_fits(const tir_expr *e, tir_intrin_arg k) {
  tir_dtype t = e->dtype;
  switch (k) {
  case TIR_IA_INT: return tir_dtype_is_int(t);
  case TIR_IA_INT_BOOL: return tir_dtype_is_int(t) || tir_dtype_is_bool(t);
  case TIR_IA_FLOAT: return tir_dtype_is_float(t);
  case TIR_IA_NUMERIC: return tir_dtype_is_int(t) || tir_dtype_is_float(t);
  case TIR_IA_BOOL: return tir_dtype_is_bool(t) || tir_dtype_is_int(t);
  case TIR_IA_HANDLE: return tir_dtype_is_handle(t) && e->kind != TIR_STRING_IMM && t.bits != 0;
  case TIR_IA_STRING: return e->kind == TIR_STRING_IMM;
  case TIR_IA_TYPE_ANNOT:
    return e->kind == TIR_CALL && !strcmp(e->u.call.op, "type_annotation");
  default: return true;
  }
}

static bool check_arg(const tir_intrin *in, tir_expr **args, int i, tir_intrin_arg k, tir_span sp,
                      tir_diag *d) {
  if (arg_fits(args[i], k)) return true;
  char b[32];
  const char *got = args[i]->kind == TIR_STRING_IMM ? "a string" : tir_dtype_str(args[i]->dtype, b);
  if (i == 0 && k == TIR_IA_STRING && !strncmp(in->name, "call_llvm", 9) && tir_dtype_is_int(args[i]->dtype)) {
    /* TVM maps a numeric id through the LLVM it links: a name that depends on its LLVM version */
    tir_error(d, args[i]->span.line ? args[i]->span : sp,
              "T.%s with a numeric LLVM intrinsic id is not supported by tirc (the name TVM finds for it depends "
              "on the LLVM it links): name the intrinsic (\"llvm.x86.avx512.vpdpbusd.512\")", in->name);
    return false;
  }
  tir_error(d, args[i]->span.line ? args[i]->span : sp, "argument %d of T.%s must be %s, got %s", i + 1,
            in->name, kind_name(k), got);
  return false;
}

static bool check_arity(const tir_intrin *in, int n, tir_span sp, tir_diag *d) {
  if (in->arity == TIR_ARITY_SLICE_TENSOR) {
    if (n % 3 == 1 && n >= 4 && n <= 16) return true;
    tir_error(d, sp, "T.%s expects 3n+1 arguments (1 <= n <= 5), got %d", in->name, n);
    return false;
  }
  if (n >= in->min_args && (in->max_args < 0 || n <= in->max_args)) return true;
  if (in->min_args == in->max_args)
    tir_error(d, sp, "T.%s expects %d argument%s, got %d", in->name, in->min_args,
              in->min_args == 1 ? "" : "s", n);
  else if (in->max_args < 0)
    tir_error(d, sp, "T.%s expects at least %d argument%s, got %d", in->name, in->min_args,
              in->min_args == 1 ? "" : "s", n);
  else
    tir_error(d, sp, "T.%s expects %d to %d arguments, got %d", in->name, in->min_args, in->max_args, n);
  return false;
}

/* slice_tensor(e_0..e_{n-1}, dst, d_0..d_{n-2}, src, s_0..s_{n-2}, dtype) */
static bool check_slice_tensor(const tir_intrin *in, tir_expr **args, int nargs, tir_span sp,
                               tir_diag *d) {
  int n = (nargs - 1) / 3;
  bool ok = true;
  for (int i = 0; i < nargs - 1; i++) {
    tir_intrin_arg k = (i == n || i == 2 * n) ? TIR_IA_HANDLE : TIR_IA_INT;
    ok = check_arg(in, args, i, k, sp, d) && ok;
  }
  if (!check_arg(in, args, nargs - 1, TIR_IA_STRING, sp, d)) return false;
  tir_dtype t;
  if (!tir_dtype_parse(args[nargs - 1]->u.str, &t)) {
    tir_error(d, args[nargs - 1]->span.line ? args[nargs - 1]->span : sp, "unknown dtype '%s'",
              args[nargs - 1]->u.str);
    return false;
  }
  /* the copy is of dtype elements: its pointers must point at such, or the
   * copy is the wrong length */
  for (int w = 0; w < 2 && ok; w++) {
    const tir_expr *p = args[w ? 2 * n : n], *elem = NULL;
    if (p->kind == TIR_CALL && !strcmp(p->u.call.op, "tvm_access_ptr") && p->u.call.nargs == 5)
      elem = p->u.call.args[0];
    else if (p->kind == TIR_CALL && !strcmp(p->u.call.op, "address_of") && p->u.call.nargs == 1)
      elem = p->u.call.args[0];
    if (elem && !tir_dtype_eq(tir_dtype_with_lanes(elem->dtype, 1), t)) {
      char a[32], b[32];
      tir_error(d, p->span.line ? p->span : sp, "T.slice_tensor copies %s elements, but its %s points at %s",
                tir_dtype_str(t, a), w ? "source" : "destination", tir_dtype_str(elem->dtype, b));
      ok = false;
    }
  }
  for (int i = 0; i < n && ok; i++) {
    int64_t e;
    if (tir_is_const_int(args[i], &e) && e < 0) {
      tir_error(d, args[i]->span.line ? args[i]->span : sp, "T.slice_tensor extent %d is negative (%lld)", i,
                (long long)e);
      ok = false;
    }
  }
  /* a constant box that reaches past a constant access_ptr extent (the
   * elements from the pointer to the buffer's end) writes or reads outside
   * the buffer: an error at the pointer.  The box spans
   * sum_k (e_k - 1) * stride_k + e_{n-1} elements (innermost stride 1). */
  int64_t ext[5];
  bool konst = ok;
  for (int i = 0; i < n && konst; i++) konst = tir_is_const_int(args[i], &ext[i]);
  for (int i = 0; i < n && konst; i++)
    if (ext[i] == 0) konst = false; /* a copy of nothing */
  for (int w = 0; w < 2 && konst && ok; w++) {
    const tir_expr *p = args[w ? 2 * n : n];
    int64_t avail, span = ext[n - 1], st, term;
    if (p->kind != TIR_CALL || strcmp(p->u.call.op, "tvm_access_ptr") || p->u.call.nargs != 5 ||
        !tir_is_const_int(p->u.call.args[3], &avail))
      continue;
    bool over = false;
    for (int k = 0; k + 1 < n && !over; k++) {
      if (!tir_is_const_int(args[(w ? 2 * n : n) + 1 + k], &st)) {
        span = -1;
        break;
      }
      over = __builtin_mul_overflow(ext[k] - 1, st < 0 ? -st : st, &term) || __builtin_add_overflow(span, term, &span);
    }
    if (span < 0 && !over) continue;
    if (over || span > avail) {
      tir_error(d, p->span.line ? p->span : sp,
                "T.slice_tensor's box spans %s%lld elements from its %s pointer, which has %lld left in its buffer",
                over ? "more than " : "", over ? (long long)INT64_MAX : (long long)span,
                w ? "source" : "destination", (long long)avail);
      ok = false;
    }
  }
  return ok;
}

static bool check_special(const tir_intrin *in, tir_expr **args, int nargs, tir_span sp, tir_diag *d,
                          tir_dtype *result) {
  int64_t v;
  if (!strcmp(in->name, "tvm_access_ptr") && tir_is_const_int(args[4], &v) && (v < 1 || v > 3)) {
    tir_error(d, args[4]->span.line ? args[4]->span : sp,
              "T.tvm_access_ptr rw_mask must be 1 (read), 2 (write) or 3 (read-write), got %lld",
              (long long)v);
    return false;
  }
  /* of an int32 or int64 as TVM's parser (another dtype's: the code generators refuse it) */
  if ((!strcmp(in->name, "shift_left") || !strcmp(in->name, "shift_right")) && tir_is_const_int(args[1], &v) &&
      (v < 0 || v >= args[0]->dtype.bits) && args[0]->dtype.code == TIR_TC_INT && args[0]->dtype.bits >= 32) {
    char b[32];
    tir_error(d, args[1]->span.line ? args[1]->span : sp, "T.%s by %lld: a %s shifts by 0 to %d", in->name, (long long)v,
              tir_dtype_str(args[0]->dtype, b), args[0]->dtype.bits - 1);
    return false;
  }
  if (!strcmp(in->name, "tvm_storage_sync")) {
    const char *s = args[0]->u.str;
    if (strcmp(s, "shared") && strcmp(s, "global") && strcmp(s, "warp") && strcmp(s, "shared.dyn")) {
      tir_error(d, args[0]->span.line ? args[0]->span : sp, "T.tvm_storage_sync: unknown scope '%s'", s);
      return false;
    }
  }
  if (in->result == TIR_IR_DTYPE_ARG1) { /* a dtype TVM knows, not void */
    tir_dtype t;
    if (args[1]->kind != TIR_STRING_IMM || !tir_dtype_parse(args[1]->u.str, &t) || tir_dtype_eq(t, TIR_VOID)) {
      tir_error(d, args[1]->span.line ? args[1]->span : sp, "T.%s: argument 2 must name a dtype (\"float32\")",
                in->name);
      return false;
    }
  }
  if (in->result == TIR_IR_INT_BITS_ARG0 && !(tir_is_const_int(args[0], &v) && (v == 8 || v == 16 || v == 32 || v == 64))) {
    tir_error(d, args[0]->span.line ? args[0]->span : sp, "T.%s: argument 1 must be the register's bits (8, 16, 32 or 64)",
              in->name);
    return false;
  }
  if (!strcmp(in->name, "cuda.func_call") && args[nargs - 1]->kind != TIR_STRING_IMM) {
    tir_error(d, args[nargs - 1]->span.line ? args[nargs - 1]->span : sp,
              "T.cuda.func_call: its source_code must be a string");
    return false;
  }
  if (!strcmp(in->name, "reinterpret") &&
      result->bits * result->lanes != args[0]->dtype.bits * args[0]->dtype.lanes) {
    char a[32], b[32];
    tir_error(d, sp, "T.reinterpret: cannot reinterpret %s as %s (sizes differ)",
              tir_dtype_str(args[0]->dtype, a), tir_dtype_str(*result, b));
    return false;
  }
  (void)nargs;
  return true;
}

static tir_dtype result_of(const tir_intrin *in, tir_expr **args, int nargs, tir_dtype given) {
  switch (in->result) {
  case TIR_IR_ARG0: return nargs > 0 ? args[0]->dtype : TIR_VOID;
  case TIR_IR_ARG1: return nargs > 1 ? args[1]->dtype : TIR_VOID;
  case TIR_IR_HANDLE: return TIR_HANDLE;
  case TIR_IR_INT32: return TIR_INT32;
  case TIR_IR_UINT32: return (tir_dtype){.code = TIR_TC_UINT, .bits = 32, .lanes = 1};
  case TIR_IR_INT64: return (tir_dtype){.code = TIR_TC_INT, .bits = 64, .lanes = 1};
  case TIR_IR_UINT64: return (tir_dtype){.code = TIR_TC_UINT, .bits = 64, .lanes = 1};
  case TIR_IR_FLOAT32: return TIR_FLOAT32;
  case TIR_IR_BOOL: return tir_dtype_with_lanes(TIR_BOOL, nargs > 0 ? args[0]->dtype.lanes : 1);
  case TIR_IR_INT32_LANES: return tir_dtype_with_lanes(TIR_INT32, nargs > 0 ? args[0]->dtype.lanes : 1);
  case TIR_IR_VOID: return TIR_VOID;
  case TIR_IR_DTYPE_ARG1: {
    tir_dtype t = TIR_VOID;
    if (nargs > 1 && args[1]->kind == TIR_STRING_IMM) tir_dtype_parse(args[1]->u.str, &t);
    return t;
  }
  case TIR_IR_INT_BITS_ARG0: {
    int64_t v = 32;
    if (nargs > 0) tir_is_const_int(args[0], &v);
    return (tir_dtype){.code = TIR_TC_INT, .bits = (uint8_t)v, .lanes = 1};
  }
  default: return given;
  }
}

bool tir_intrin_check(tir_ctx *c, const char *name, tir_expr **args, int nargs, tir_span span,
                      tir_diag *d, tir_dtype *result) {
  (void)c;
  const tir_intrin *in = tir_intrin_lookup(name);
  if (!in) return false;
  if (!check_arity(in, nargs, span, d)) return false;
  bool ok = true;
  if (in->arity == TIR_ARITY_SLICE_TENSOR) {
    ok = check_slice_tensor(in, args, nargs, span, d);
  } else {
    for (int i = 0; i < nargs; i++) {
      tir_intrin_arg k = in->nkinds == 0 ? TIR_IA_ANY : in->kinds[i < in->nkinds ? i : in->nkinds - 1];
      ok = check_arg(in, args, i, k, span, d) && ok;
    }
  }
  if (ok && in->same_dtype_args)
    for (int i = 1; i < nargs; i++)
      if (!tir_dtype_eq(args[i]->dtype, args[0]->dtype)) {
        char a[32], b[32];
        tir_error(d, args[i]->span.line ? args[i]->span : span,
                  "arguments of T.%s must have one dtype: %s and %s", in->name,
                  tir_dtype_str(args[0]->dtype, a), tir_dtype_str(args[i]->dtype, b));
        ok = false;
        break;
      }
  tir_dtype given = *result;
  if (ok && !check_special(in, args, nargs, span, d, &given)) ok = false;
  if (ok) *result = result_of(in, args, nargs, given);
  return ok;
}

/* T.metal's ops that TVM names tirx.<op> (its simd_shuffle ones keep metal.) */
static bool metal_unprefixed(const char *op) {
  return !strcmp(op, "make_filled_simdgroup_matrix") || !strcmp(op, "simdgroup_load") ||
         !strcmp(op, "simdgroup_store") || !strcmp(op, "simdgroup_multiply_accumulate");
}
/* and T.cuda's that TVM names tirx.<op> */
static bool cuda_unprefixed(const char *op) {
  return !strcmp(op, "mma_fill") || !strcmp(op, "mma_store") || !strcmp(op, "mma_fill_legacy") ||
         !strcmp(op, "mma_store_legacy");
}

const char *tir_intrin_tvm_op(const char *name) {
  if (!strncmp(name, "metal.", 6) && metal_unprefixed(name + 6)) return name + 6;
  if (!strncmp(name, "cuda.", 5) && cuda_unprefixed(name + 5)) return name + 5;
  return name;
}

const char *tir_intrin_from_tvm_op(tir_ctx *c, const char *op) {
  const char *ns = metal_unprefixed(op) ? "metal." : cuda_unprefixed(op) ? "cuda." : NULL;
  if (!ns) return op;
  size_t n = strlen(op), k = strlen(ns);
  char *s = tir_alloc(c, n + k + 1);
  memcpy(s, ns, k);
  memcpy(s + k, op, n + 1);
  return s;
}
