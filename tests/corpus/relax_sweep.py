"""relax_sweep.py TIRC [--full] [--save=DIR] [-v] - the TIR that Relax writes:
319 relax operator cases (every unary and binary elementwise op at static
and symbolic shapes and several dtypes, reductions, nn ops, convolutions
and pools, norms, attention, matmuls, indexing, gather and scatter, shape
ops, image ops, casts to each dtype, quantize, ...), each a relax function
put through relax.transform.LegalizeOps() in process (apache-tvm 0.27;
306 of them become TIR, the scans, sorts and a few more are left to the
relax pipelines below), every tirx PrimFunc it writes printed by TVM
(.script(); the module of them as well where there are several), and
again scheduled for CUDA by dlight.  No case is left out or sampled: the
default mode takes about 25 s on 2 cores (its budget is 60 s).

With --full also (about 10 minutes on 2 cores; 8930 programs):
  lowered:  each case's PrimFuncs through TVM's lowering pass list (the
            s_tir/tirx passes of tvm's default TIR pipeline, down to
            SplitHostDevice, MakePackedAPI and the storage legalizers) for
            llvm and, dlight-scheduled, for cuda (sm_80, llvm host), the
            module printed after each pass that changed its print, then
            tvm's finalize_host_passes and finalize_device_passes;
  models:   14 multi-op relax models (an MLP, attention, a convnet, sorts
            and scans, sampling, RoPE, GEMV, ...) through relax's
            zero_pipeline and the CUDA pipeline (legalized, then
            finalized), each PrimFunc printed, and each CUDA-legalized one
            lowered as above.
A text printed twice (a pass that changed nothing) is checked once; a
step TVM itself fails on (dlight on two cases; with --full also one
LowerCrossThreadReduction) is skipped and counted.

For every program: `tirc FILE` exits 0 or 1 (anything else, a sanitizer's
report or a timeout is a crash); when 0, TVM's reading of tirc's print is
structurally equal (map_free_vars) to TVM's reading of the text.  Also
`tirc --passes=default` and `tirc --emit=c` exit 0 or 1.  Outcomes:
  equal    round-trips structurally equal
  refused  tirc exit 1, its first error one of REFUSED below (else a failure)
  known    differs, and the name matches KNOWN below (else a failure)
  TVM cannot read back itself: the text TVM printed, TVM does not read
           (counted, not a failure)
A crash, an unlisted refusal or difference fails the run (exit 1).
--save=DIR writes each failing program there; -v lists the skipped steps.
"""
import concurrent.futures
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import typing

# import tirx before anything loads tvm.script.parser: tirc reads as the
# @T.prim_func decorator does (docs/syntax.md, comparisons)
from tvm.script import tirx as _T, ir as _I  # noqa: E402
import tvm  # noqa: E402
import tvm_ffi  # noqa: E402
import lazy_stack  # noqa: E402,F401  (after tirx, before TVM reads a text)

EV = {"T": _T, "I": _I, "TypeVar": typing.TypeVar}
import tvm_text  # noqa: E402  (after tirx: see above)
from tvm_text import as_pair  # noqa: E402

# (regex on tirc's first error line, reason): the refusals accepted
REFUSED = [
    (r"metadata\[\.\.\.\] names an object of the module's metadata section",
     "metadata[...] (a MakePackedAPI print, its metadata section omitted)"),
    (r"buffer data must be a handle variable",
     "buffer data must be a handle variable (a decl_buffer whose data= is a call)"),
]

# (regex on the program's name, reason): round trips known to differ
KNOWN = [
]

CRASH = re.compile(r"Sanitizer|runtime error:|Assertion .* failed|Segmentation")


# ---------------------------------------------------------------- cases

def relax_cases():
    """(name, input types, fn of the relax vars -> a relax expression)"""
    from tvm import relax, tirx
    from tvm.relax import op as O
    import numpy as np
    nn = O.nn
    n = tirx.Var("n", "int64")
    m = tirx.Var("m", "int64")

    def T(shape, dt="float32"):
        return relax.TensorType(shape, dt)

    cases = []

    def case(name, ins, f):
        cases.append((name, ins, f))

    S = [("s", (2, 8, 16)), ("d", (n, 8, 16))]
    unary = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "floor", "log",
             "negative", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc",
             "erf", "isfinite", "isinf", "isnan"]
    for u in unary:
        for tag, sh in S:
            case(f"{u}_{tag}", [T(sh)], lambda x, u=u: getattr(O, u)(x))
    case("bitwise_not_i32", [T((4, 8), "int32")], lambda x: O.bitwise_not(x))
    case("logical_not", [T((4, 8), "bool")], lambda x: O.logical_not(x))
    case("abs_f16", [T((4, 8), "float16")], lambda x: O.abs(x))
    case("exp_bf16", [T((4, 8), "bfloat16")], lambda x: O.exp(x))
    case("abs_i8", [T((4, 8), "int8")], lambda x: O.abs(x))
    binary = ["add", "subtract", "multiply", "divide", "floor_divide", "power", "maximum", "minimum", "mod",
              "floor_mod", "equal", "greater", "greater_equal", "less", "less_equal", "not_equal", "atan2",
              "log_add_exp"]
    for b in binary:
        case(f"{b}_bcast", [T((4, 1, 8)), T((3, 1))], lambda x, y, b=b: getattr(O, b)(x, y))
        case(f"{b}_sym", [T((n, 8)), T((8,))], lambda x, y, b=b: getattr(O, b)(x, y))
    for b in ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "floor_divide", "mod",
              "divide", "floor_mod"]:
        case(f"{b}_i32", [T((n, 8), "int32"), T((n, 8), "int32")], lambda x, y, b=b: getattr(O, b)(x, y))
        case(f"{b}_i8", [T((4, 8), "int8"), T((1, 8), "int8")], lambda x, y, b=b: getattr(O, b)(x, y))
    for b in ["logical_and", "logical_or", "logical_xor"]:
        case(b, [T((4, 8), "bool"), T((4, 8), "bool")], lambda x, y, b=b: getattr(O, b)(x, y))
    case("add_f16", [T((4, 8), "float16"), T((4, 8), "float16")], lambda x, y: O.add(x, y))
    case("add_bf16", [T((n, 8), "bfloat16"), T((n, 8), "bfloat16")], lambda x, y: O.add(x, y))
    case("add_u8", [T((4, 8), "uint8"), T((4, 8), "uint8")], lambda x, y: O.add(x, y))
    case("mul_i64", [T((4, 8), "int64"), T((4, 8), "int64")], lambda x, y: O.multiply(x, y))
    case("add_f64", [T((4, 8), "float64"), T((4, 8), "float64")], lambda x, y: O.add(x, y))
    case("add_scalar_const", [T((4, 8))], lambda x: O.add(x, relax.const(2.5, "float32")))
    case("mul_scalar_const_f16", [T((n, 8), "float16")], lambda x: O.multiply(x, relax.const(0.125, "float16")))
    # reductions
    for r in ["sum", "mean", "max", "min", "prod", "variance", "std"]:
        case(f"{r}_ax1", [T((4, 8, 16))], lambda x, r=r: getattr(O, r)(x, axis=[1]))
        case(f"{r}_all_sym", [T((n, 16))], lambda x, r=r: getattr(O, r)(x))
        case(f"{r}_keep", [T((n, m))], lambda x, r=r: getattr(O, r)(x, axis=[-1], keepdims=True))
    case("sum_i32", [T((4, 8), "int32")], lambda x: O.sum(x, axis=[0]))
    case("sum_f16", [T((4, 8), "float16")], lambda x: O.sum(x, axis=[1]))
    case("max_i8", [T((4, 8), "int8")], lambda x: O.max(x, axis=[1]))
    case("argmax", [T((4, 8, 16))], lambda x: O.argmax(x, axis=1))
    case("argmin_keep", [T((n, 16))], lambda x: O.argmin(x, axis=1, keepdims=True))
    case("argmax_all", [T((4, 8))], lambda x: O.argmax(x))
    case("median", [T((4, 8))], lambda x: O.median(x, axis=1))
    # nn
    case("relu", [T((n, 8))], lambda x: nn.relu(x))
    case("relu6", [T((4, 8))], lambda x: nn.relu6(x))
    case("gelu", [T((n, 8))], lambda x: nn.gelu(x))
    case("gelu_tanh", [T((4, 8))], lambda x: nn.gelu_tanh(x))
    case("silu", [T((4, 8), "float16")], lambda x: nn.silu(x))
    case("selu", [T((4, 8))], lambda x: nn.selu(x))
    case("softplus", [T((4, 8))], lambda x: nn.softplus(x))
    case("leakyrelu", [T((4, 8))], lambda x: nn.leakyrelu(x, 0.1))
    case("prelu", [T((2, 3, 8))], lambda x: nn.prelu(x, relax.const(np.ones(3, "float32"))))
    case("softmax", [T((4, 8))], lambda x: nn.softmax(x))
    case("softmax_sym", [T((n, m))], lambda x: nn.softmax(x, axis=0))
    case("log_softmax", [T((n, 16))], lambda x: nn.log_softmax(x))
    case("conv1d", [T((1, 4, 16)), T((8, 4, 3))], lambda x, w: nn.conv1d(x, w, padding=1))
    case("conv1d_ncw_stride", [T((2, 4, 17)), T((8, 2, 3))],
         lambda x, w: nn.conv1d(x, w, strides=2, groups=2, dilation=2))
    case("conv2d", [T((1, 3, 16, 16)), T((8, 3, 3, 3))], lambda x, w: nn.conv2d(x, w, padding=1))
    case("conv2d_nhwc", [T((1, 16, 16, 3)), T((3, 3, 3, 8))],
         lambda x, w: nn.conv2d(x, w, padding=1, data_layout="NHWC", kernel_layout="HWIO"))
    case("conv2d_dw", [T((1, 8, 16, 16)), T((8, 1, 3, 3))],
         lambda x, w: nn.conv2d(x, w, padding=1, groups=8, strides=2))
    case("conv2d_sym", [T((n, 3, 16, 16)), T((8, 3, 3, 3))], lambda x, w: nn.conv2d(x, w))
    case("conv2d_f16", [T((1, 4, 8, 8), "float16"), T((4, 4, 3, 3), "float16")],
         lambda x, w: nn.conv2d(x, w, out_dtype="float32"))
    case("conv3d", [T((1, 2, 8, 8, 8)), T((4, 2, 3, 3, 3))], lambda x, w: nn.conv3d(x, w, padding=1))
    case("conv1d_transpose", [T((1, 4, 8)), T((4, 2, 3))], lambda x, w: nn.conv1d_transpose(x, w, strides=2))
    case("conv2d_transpose", [T((1, 4, 8, 8)), T((4, 2, 3, 3))],
         lambda x, w: nn.conv2d_transpose(x, w, strides=2, padding=1, output_padding=1))
    case("conv3d_transpose", [T((1, 2, 4, 4, 4)), T((2, 2, 3, 3, 3))], lambda x, w: nn.conv3d_transpose(x, w))
    for p in ["max_pool1d", "avg_pool1d"]:
        case(p, [T((1, 4, 16))], lambda x, p=p: getattr(nn, p)(x, pool_size=3, strides=2, padding=1))
    for p in ["max_pool2d", "avg_pool2d"]:
        case(p, [T((1, 4, 16, 16))], lambda x, p=p: getattr(nn, p)(x, pool_size=3, strides=2, padding=1))
        case(p + "_ceil", [T((1, 4, 15, 15))], lambda x, p=p: getattr(nn, p)(x, pool_size=2, strides=2, ceil_mode=True))
        case(p + "_nhwc_sym", [T((n, 16, 16, 4))],
             lambda x, p=p: getattr(nn, p)(x, pool_size=2, strides=2, layout="NHWC"))
    case("avg_pool2d_nopadcount", [T((1, 4, 16, 16))],
         lambda x: nn.avg_pool2d(x, pool_size=3, padding=1, count_include_pad=False))
    case("max_pool2d_dil", [T((1, 4, 16, 16))], lambda x: nn.max_pool2d(x, pool_size=3, dilation=2))
    for p in ["max_pool3d", "avg_pool3d"]:
        case(p, [T((1, 2, 8, 8, 8))], lambda x, p=p: getattr(nn, p)(x, pool_size=2, strides=2))
    case("adaptive_avg_pool1d", [T((1, 4, 16))], lambda x: nn.adaptive_avg_pool1d(x, 5))
    case("adaptive_avg_pool2d", [T((1, 4, 16, 16))], lambda x: nn.adaptive_avg_pool2d(x, (5, 3)))
    case("adaptive_avg_pool2d_1", [T((n, 4, 16, 16))], lambda x: nn.adaptive_avg_pool2d(x, 1))
    case("adaptive_avg_pool3d", [T((1, 4, 8, 8, 8))], lambda x: nn.adaptive_avg_pool3d(x, 3))
    case("layer_norm", [T((n, 16)), T((16,)), T((16,))], lambda x, g, b: nn.layer_norm(x, g, b, axes=[-1]))
    case("layer_norm_f16", [T((2, 4, 16), "float16"), T((16,), "float16"), T((16,), "float16")],
         lambda x, g, b: nn.layer_norm(x, g, b, axes=[-1]))
    case("group_norm", [T((2, 8, 4, 4)), T((8,)), T((8,))],
         lambda x, g, b: nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2, 3]))
    case("instance_norm", [T((2, 8, 4, 4)), T((8,)), T((8,))],
         lambda x, g, b: nn.instance_norm(x, g, b, channel_axis=1, axes=[2, 3]))
    case("rms_norm", [T((n, 16)), T((16,))], lambda x, g: nn.rms_norm(x, g, axes=[-1]))
    case("rms_norm_f16", [T((2, 16), "float16"), T((16,), "float16")], lambda x, g: nn.rms_norm(x, g, axes=[-1]))
    case("batch_norm", [T((2, 8, 4, 4)), T((8,)), T((8,)), T((8,)), T((8,))],
         lambda x, g, b, mu, v: nn.batch_norm(x, g, b, mu, v, axis=1))
    case("attention", [T((1, 8, 2, 16)), T((1, 8, 2, 16)), T((1, 8, 2, 16))], lambda q, k, v: nn.attention(q, k, v))
    case("attention_causal", [T((1, n, 2, 16)), T((1, n, 2, 16)), T((1, n, 2, 16))],
         lambda q, k, v: nn.attention(q, k, v, causal_mask="TopLeft"))
    case("attention_bias", [T((1, 8, 2, 16)), T((1, 8, 2, 16)), T((1, 8, 2, 16)), T((1, 2, 8, 8))],
         lambda q, k, v, b: nn.attention_bias(q, k, v, b, scale=0.25))
    case("dropout", [T((4, 8))], lambda x: nn.dropout(x, 0.5)[0])
    case("pad", [T((4, 8))], lambda x: nn.pad(x, (1, 2, 0, 3), pad_value=1.5))
    case("pad_reflect", [T((4, 8))], lambda x: nn.pad(x, (1, 2, 0, 3), pad_mode="reflect"))
    case("batch_flatten", [T((2, 3, 4))], lambda x: nn.batch_flatten(x))
    case("cross_entropy", [T((4, 8)), T((4, 8))], lambda x, y: nn.cross_entropy_with_logits(x, y))
    case("nll_loss", [T((4, 8)), T((4,), "int64"), T((8,))], lambda x, t, w: nn.nll_loss(x, t, w))
    # matmul
    case("matmul", [T((4, 8)), T((8, 16))], lambda a, b: O.matmul(a, b))
    case("matmul_bcast", [T((2, 1, 4, 8)), T((3, 8, 16))], lambda a, b: O.matmul(a, b))
    case("matmul_vec", [T((8,)), T((2, 8, 16))], lambda a, b: O.matmul(a, b))
    case("matmul_sym", [T((1, n, 64)), T((64, 128))], lambda a, b: O.matmul(a, b))
    case("matmul_f16_out", [T((n, 64), "float16"), T((64, 32), "float16")],
         lambda a, b: O.matmul(a, b, out_dtype="float32"))
    case("matmul_i8", [T((4, 8), "int8"), T((8, 16), "int8")], lambda a, b: O.matmul(a, b, out_dtype="int32"))
    case("linear", [T((4, 8)), T((16, 8)), T((16,))], lambda a, w, b: O.linear(a, w, b))
    case("einsum", [T((4, 8)), T((8, 16))], lambda a, b: O.einsum([a, b], "ij,jk->ik"))
    case("outer", [T((4,)), T((8,))], lambda a, b: O.outer(a, b))
    # manipulation
    case("take", [T((16, 8)), T((4,), "int32")], lambda x, i: O.take(x, i, axis=0))
    case("take_2d", [T((n, 8)), T((2, 3), "int64")], lambda x, i: O.take(x, i, axis=1))
    case("take_clip", [T((16, 8)), T((4,), "int32")], lambda x, i: O.take(x, i, axis=0, mode="clip"))
    case("take_wrap", [T((16, 8)), T((4,), "int32")], lambda x, i: O.take(x, i, axis=0, mode="wrap"))
    case("gather_elements", [T((4, 8)), T((4, 3), "int32")], lambda x, i: O.gather_elements(x, i, axis=1))
    case("gather_nd", [T((4, 8, 3)), T((5, 2), "int64")], lambda x, i: O.gather_nd(x, i))
    case("scatter_elements", [T((4, 8)), T((4, 3), "int64"), T((4, 3))],
         lambda x, i, u: O.scatter_elements(x, i, u, axis=1))
    case("scatter_elements_add", [T((4, 8)), T((4, 3), "int64"), T((4, 3))],
         lambda x, i, u: O.scatter_elements(x, i, u, axis=1, reduction="add"))
    case("scatter_nd", [T((4, 8)), T((2, 1), "int64"), T((2, 8))], lambda x, i, u: O.scatter_nd(x, i, u))
    case("scatter_nd_mul", [T((4, 8)), T((2, 1), "int64"), T((2, 8))], lambda x, i, u: O.scatter_nd(x, i, u, "mul"))
    case("strided_slice", [T((16, 8))],
         lambda x: O.strided_slice(x, axes=[0, 1], begin=[1, 0], end=[13, 8], strides=[3, 2]))
    case("strided_slice_neg", [T((16, 8))],
         lambda x: O.strided_slice(x, axes=[0], begin=[-2], end=[-16], strides=[-2]))
    case("strided_slice_sym", [T((n, 8))], lambda x: O.strided_slice(x, axes=[0], begin=[1], end=[n]))
    case("dynamic_strided_slice", [T((16, 8)), T((2,), "int64"), T((2,), "int64"), T((2,), "int64")],
         lambda x, b, e, s: O.dynamic_strided_slice(x, b, e, s))
    case("concat", [T((4, 8)), T((3, 8))], lambda a, b: O.concat([a, b], axis=0))
    case("concat_sym", [T((n, 8)), T((m, 8))], lambda a, b: O.concat([a, b], axis=0))
    case("split", [T((12, 8))], lambda x: O.split(x, 3, axis=0)[1])
    case("split_idx", [T((n, 9))], lambda x: O.split(x, [2, 5], axis=1)[2])
    case("reshape", [T((4, 8))], lambda x: O.reshape(x, (2, 16)))
    case("reshape_sym", [T((n, 8))], lambda x: O.reshape(x, (n * 2, 4)))
    case("reshape_sym2", [T((n, m, 4))], lambda x: O.reshape(x, (-1, 4)))
    case("flatten", [T((2, 3, 4))], lambda x: O.flatten(x))
    case("permute_dims", [T((2, 3, 4))], lambda x: O.permute_dims(x, [2, 0, 1]))
    case("transpose_sym", [T((n, m))], lambda x: O.permute_dims(x))
    case("expand_dims", [T((4, 8))], lambda x: O.expand_dims(x, [0, 2]))
    case("squeeze", [T((1, 4, 1))], lambda x: O.squeeze(x))
    case("flip", [T((n, 8))], lambda x: O.flip(x, axis=0))
    case("tile", [T((2, 3))], lambda x: O.tile(x, (2, 1, 3)))
    case("repeat", [T((2, 3))], lambda x: O.repeat(x, 2, axis=1))
    case("repeat_flat", [T((2, 3))], lambda x: O.repeat(x, 2))
    case("cumsum", [T((4, 8))], lambda x: O.cumsum(x, axis=1))
    case("cumsum_excl", [T((n, 8), "int32")], lambda x: O.cumsum(x, axis=0, exclusive=True))
    case("cumprod", [T((4, 8))], lambda x: O.cumprod(x, axis=0))
    case("broadcast_to", [T((1, 8))], lambda x: O.broadcast_to(x, (4, 8)))
    case("broadcast_to_sym", [T((1, 8))], lambda x: O.broadcast_to(x, (n, 8)))
    case("stack", [T((4, 8)), T((4, 8))], lambda a, b: O.stack([a, b], axis=1))
    case("tril", [T((8, 8))], lambda x: O.tril(x, 1))
    case("triu_sym", [T((n, n))], lambda x: O.triu(x))
    case("where", [T((4, 8), "bool"), T((4, 8)), T((1, 8))], lambda c, a, b: O.where(c, a, b))
    case("one_hot", [T((4,), "int32")],
         lambda i: O.one_hot(i, relax.prim_value(tirx.FloatImm("float32", 1.0)),
                             relax.prim_value(tirx.FloatImm("float32", 0.0)), 10, -1))
    case("clip", [T((4, 8))], lambda x: O.clip(x, -1.0, 6.0))
    case("clip_i8", [T((4, 8), "int8")], lambda x: O.clip(x, -3, 5))
    case("sort", [T((4, 8))], lambda x: O.sort(x, axis=1))
    case("sort_desc", [T((n,))], lambda x: O.sort(x, descending=True))
    case("argsort", [T((4, 8))], lambda x: O.argsort(x, axis=-1, dtype="int32"))
    case("topk", [T((4, 8))], lambda x: O.topk(x, k=3, ret_type="values"))
    case("topk_both", [T((4, 8))], lambda x: O.topk(x, k=3)[1])
    case("resize2d", [T((1, 3, 8, 8))], lambda x: O.image.resize2d(x, (16, 12)))
    case("resize2d_nearest", [T((1, 8, 8, 3))],
         lambda x: O.image.resize2d(x, (16, 16), layout="NHWC", method="nearest_neighbor"))
    case("resize2d_cubic", [T((1, 3, 8, 8))],
         lambda x: O.image.resize2d(x, (5, 5), method="cubic", coordinate_transformation_mode="align_corners"))
    case("resize3d", [T((1, 3, 4, 4, 4))], lambda x: O.image.resize3d(x, (8, 8, 8)))
    case("grid_sample", [T((1, 3, 8, 8)), T((1, 4, 4, 2))], lambda x, g: O.image.grid_sample(x, g))
    case("affine_grid", [T((1, 2, 3))], lambda t: O.image.affine_grid(t, (8, 8)))
    for dt in ["float16", "bfloat16", "int8", "uint8", "int32", "int64", "bool", "float64", "float8_e4m3fn",
               "int16", "uint32"]:
        case(f"astype_f32_{dt}", [T((n, 8))], lambda x, dt=dt: O.astype(x, dt))
        case(f"astype_{dt}_f32", [T((4, 8), dt)], lambda x: O.astype(x, "float32"))
    case("astype_bf16_f16", [T((4, 8), "bfloat16")], lambda x: O.astype(x, "float16"))
    case("arange", [], lambda: O.arange(0, 10, 2, "int32"))
    case("full", [], lambda: O.full((3, 4), relax.const(1.5, "float32")))
    case("zeros_sym", [T((n, 4))], lambda x: O.add(x, O.zeros((n, 4), "float32")))
    case("ones_like", [T((4, 8), "float16")], lambda x: O.ones_like(x))
    case("eye", [], lambda: O.eye(4, 5, 1))
    case("masked_fill", [T((4, 8)), T((4, 8), "bool")],
         lambda x, msk: O.masked_fill(x, msk, relax.const(-1.0, "float32")))
    case("ewise_fma", [T((4, 8)), T((4, 8)), T((4, 8))], lambda a, b, c: O.ewise_fma(a, b, c))
    case("collapse_sum_to", [T((4, 8))], lambda x: O.collapse_sum_to(x, (1, 8)))
    case("layout_transform", [T((4, 8))], lambda x: O.layout_transform(x, index_map=lambda i, j: (j // 4, i, j % 4)))
    case("layout_transform_pad", [T((5, 8))],
         lambda x: O.layout_transform(x, index_map=lambda i, j: (i // 4, j, i % 4), pad_value=0.0))
    case("quantize", [T((4, 8)), T((8,)), T((8,), "int8")],
         lambda x, s, z: O.quantize(x, s, z, axis=1, out_dtype="int8"))
    case("dequantize", [T((4, 8), "int8"), T((8,)), T((8,), "int8")], lambda x, s, z: O.dequantize(x, s, z, axis=1))
    case("bucketize", [T((4, 8)), T((5,))], lambda x, b: O.bucketize(x, b))
    case("index_tensor", [T((4, 8)), T((3,), "int64")], lambda x, i: O.index_tensor(x, [i]))
    case("index_put", [T((4, 8)), T((3,), "int64"), T((3,), "int64"), T((3,))],
         lambda x, i, j, v: O.index_put(x, relax.Tuple([i, j]), v))
    case("slice_scatter", [T((8, 8)), T((2, 8))], lambda x, s: O.slice_scatter(x, s, 0, 2, 1, axis=0))
    case("reverse_sequence", [T((4, 8)), T((4,), "int64")], lambda x, l: O.reverse_sequence(x, l, 1, 0))
    case("meshgrid", [T((4,)), T((5,))], lambda a, b: O.meshgrid([a, b])[0])
    case("hamming_window", [],
         lambda: O.hamming_window(relax.prim_value(tirx.IntImm("int64", 8)), relax.prim_value(tirx.IntImm("int64", 1)),
                                  relax.prim_value(tirx.FloatImm("float32", 0.54)),
                                  relax.prim_value(tirx.FloatImm("float32", 0.46)), "float32"))
    case("nonzero", [T((4, 8))], lambda x: O.nonzero(x))
    case("unique", [T((8,))], lambda x: O.unique(x))
    case("multinomial", [T((2, 8)), T((3, 1)), T((3, 1), "int64")],
         lambda p, u, i: O.multinomial_from_uniform(p, u, i))
    case("roi_pool", [T((1, 4, 16, 16)), T((2, 5))], lambda x, r: O.roi_pool(x, r, (3, 3), 0.5))
    case("chain_mlp", [T((n, 16)), T((16, 32)), T((32,))], lambda x, w, b: nn.gelu(O.add(O.matmul(x, w), b)))
    return cases


def relax_models():
    """(name, input types, fn of (block builder, relax vars) -> the output var): multi-op models"""
    from tvm import relax, tirx
    from tvm.relax import op as O
    import numpy as np
    nn = O.nn
    n = tirx.Var("n", "int64")
    m = tirx.Var("m", "int64")
    rng = np.random.default_rng(0)

    def T(shape, dt="float32"):
        return relax.TensorType(shape, dt)

    def C(shape, dt="float32"):
        return relax.const(rng.random(shape).astype(dt))

    models = []

    def model(name, ins):
        def deco(f):
            models.append((name, ins, f))
            return f
        return deco

    @model("mlp", [T((n, 64))])
    def _(bb, x):
        h = bb.emit(O.add(O.matmul(x, C((64, 128))), C((128,))))
        h = bb.emit(nn.gelu(h))
        h = bb.emit(O.matmul(h, C((128, 64))))
        h = bb.emit(O.add(h, x))
        return bb.emit(nn.layer_norm(h, C((64,)), C((64,)), axes=[-1]))

    @model("attn", [T((1, n, 64))])
    def _(bb, x):
        def proj():
            y = bb.emit(O.matmul(x, C((64, 64))))
            y = bb.emit(O.reshape(y, (1, n, 4, 16)))
            return bb.emit(O.permute_dims(y, [0, 2, 1, 3]))
        q, k, v = proj(), proj(), proj()
        s = bb.emit(O.matmul(q, O.permute_dims(k, [0, 1, 3, 2])))
        s = bb.emit(O.multiply(s, relax.const(0.25, "float32")))
        s = bb.emit(nn.softmax(s, axis=-1))
        o = bb.emit(O.matmul(s, v))
        o = bb.emit(O.permute_dims(o, [0, 2, 1, 3]))
        return bb.emit(O.reshape(o, (1, n, 64)))

    @model("attn_f16", [T((1, n, 4, 16), "float16"), T((1, m, 4, 16), "float16"), T((1, m, 4, 16), "float16")])
    def _(bb, q, k, v):
        return bb.emit(nn.attention(q, k, v, causal_mask="BottomRight"))

    @model("convnet", [T((1, 3, 32, 32))])
    def _(bb, x):
        h = bb.emit(nn.conv2d(x, C((8, 3, 3, 3)), padding=1))
        bn = bb.emit(nn.batch_norm(h, C((8,)), C((8,)), C((8,)), C((8,)), axis=1))
        h = bb.emit(relax.TupleGetItem(bn, 0))
        h = bb.emit(nn.relu(h))
        h = bb.emit(nn.max_pool2d(h, pool_size=2, strides=2))
        h = bb.emit(nn.adaptive_avg_pool2d(h, 1))
        h = bb.emit(O.reshape(h, (1, 8)))
        h = bb.emit(O.linear(h, C((10, 8)), C((10,))))
        return bb.emit(nn.log_softmax(h))

    @model("sortscan", [T((n, 64))])
    def _(bb, x):
        a = bb.emit(O.cumsum(x, axis=1))
        b = bb.emit(O.sort(a, axis=1, descending=True))
        c = bb.emit(O.argsort(b, axis=1))
        d = bb.emit(O.topk(x, 5, axis=1, ret_type="values"))
        return bb.emit(relax.Tuple([b, c, d]))

    @model("cumsum_i32", [T((8, n), "int32")])
    def _(bb, x):
        return bb.emit(O.cumsum(x, axis=0, dtype="int64", exclusive=True))

    @model("sampling", [T((1, 128)), T((1, 1)), T((1, 1), "int64")])
    def _(bb, p, u, i):
        p = bb.emit(nn.softmax(p))
        return bb.emit(O.multinomial_from_uniform(p, u, i))

    @model("rms_rope_f16", [T((1, n, 8, 64), "float16")])
    def _(bb, x):
        h = bb.emit(nn.rms_norm(x, C((64,), "float16"), axes=[-1]))
        a = bb.emit(O.strided_slice(h, axes=[3], begin=[0], end=[32]))
        b = bb.emit(O.strided_slice(h, axes=[3], begin=[32], end=[64]))
        r = bb.emit(O.concat([O.negative(b), a], axis=3))
        return bb.emit(O.add(O.multiply(h, relax.const(0.5, "float16")), r))

    @model("embed", [T((n,), "int32")])
    def _(bb, ids):
        e = bb.emit(O.take(C((100, 32)), ids, axis=0))
        e = bb.emit(O.astype(e, "float16"))
        s = bb.emit(O.mean(e, axis=[0], keepdims=True))
        return bb.emit(O.astype(s, "bfloat16"))

    @model("gemv", [T((1, 1, 4096), "float16")])
    def _(bb, x):
        return bb.emit(O.matmul(x, O.permute_dims(C((1024, 4096), "float16"))))

    @model("bmm_i8", [T((n, 64), "int8")])
    def _(bb, x):
        y = bb.emit(O.matmul(x, C((64, 128), "int8"), out_dtype="int32"))
        y = bb.emit(O.astype(y, "float32"))
        return bb.emit(O.multiply(y, relax.const(0.01, "float32")))

    @model("groupnorm_silu", [T((2, 32, 8, 8), "float16")])
    def _(bb, x):
        h = bb.emit(nn.group_norm(x, C((32,), "float16"), C((32,), "float16"), num_groups=8, channel_axis=1,
                                  axes=[2, 3]))
        return bb.emit(nn.silu(h))

    @model("resize_pad", [T((1, 3, n, n))])
    def _(bb, x):
        h = bb.emit(O.image.resize2d(x, (64, 64), method="linear"))
        return bb.emit(nn.pad(h, (0, 0, 0, 0, 1, 1, 1, 1)))

    @model("where_mask", [T((n, n))])
    def _(bb, x):
        t = bb.emit(O.triu(O.ones_like(x), 1))
        mk = bb.emit(O.equal(t, relax.const(1.0, "float32")))
        return bb.emit(nn.softmax(O.where(mk, relax.const(-1e9, "float32"), x)))

    return models


# ---------------------------------------------------------------- TVM's side

def relax_module(ins, f, with_bb=False):
    from tvm import relax
    bb = relax.BlockBuilder()
    params = [relax.Var(f"a{i}", si) for i, si in enumerate(ins)]
    with bb.function("main", params):
        with bb.dataflow():
            if with_bb:
                lv = f(bb, *params)
            else:
                lv = bb.emit(f(*params))
                if isinstance(lv.ty, relax.TupleType):
                    lv = bb.emit(relax.TupleGetItem(lv, 0))
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv)
    return bb.get()


def prim_funcs(mod):
    return [(g, fn) for g, fn in mod.functions.items() if isinstance(fn, tvm.tirx.PrimFunc)]


def dlight(mod, target):
    from tvm.s_tir import dlight as dl
    with tvm.target.Target(target):
        return dl.ApplyDefaultSchedule(dl.gpu.Matmul(), dl.gpu.GEMV(), dl.gpu.Reduction(),
                                       dl.gpu.GeneralReduction(), dl.gpu.Fallback())(mod)


def lowering_passes():
    """the pass list of TVM's default TIR pipeline (s_tir.pipeline), down to the storage legalizers"""
    from tvm import s_tir, tirx
    st, tt = s_tir.transform, tirx.transform
    return [
        st.CanonicalizeLoop(), st.LowerCrossThreadReduction(), st.LowerInitBlock(),
        st.PlanAndUpdateBufferAllocationLocation(), st.ConvertBlocksToOpaque(), st.LiftThreadBinding(),
        st.ManifestSharedMemoryLocalStage(), st.CompactBufferAllocation(), st.LowerAutoCopy(),
        st.UnifyThreadBinding(), st.LowerMatchBuffer(), st.StmtSimplify(), st.InjectPermutedLayout(),
        st.AnnotateIrregularLoop(), st.InjectSoftwarePipeline(), st.TransformMmaBufferLayout(),
        st.LowerOpaqueBlock(), tt.FlattenBuffer(), tt.BF16ComputeLegalize(), tt.NarrowDataType(32),
        st.LoopPartition(), tt.VectorizeLoop(True), st.InjectVirtualThread(), st.InjectDoubleBuffer(),
        tt.StorageRewrite(), st.HoistIfThenElse(), tt.UnrollLoop(), st.RenormalizeSplitPattern(),
        tt.StmtSimplify(), tt.RemoveNoOp(), st.RewriteUnsafeSelect(), tt.CommonSubexprElim(),
        tt.FP8ComputeLegalize(), tt.VerifyMemory(), tt.AnnotateEntryFunc(), st.ThreadSync("shared"),
        st.ThreadSync("shared.dyn"), st.ThreadSync("warp"), st.InferFragment(), st.LowerThreadAllreduce(),
        st.MergeSharedMemoryAllocations(), tt.SplitHostDevice(), tt.MakePackedAPI(), tt.FP8StorageLegalize(),
        tt.BF16StorageLegalize(),
    ]


def lower(mod, target, prefix, emit, notes):
    """the module through lowering_passes(), printed after each pass that changes its print"""
    import tvm.s_tir.pipeline
    from tvm import tirx
    mod = tirx.transform.BindTarget(tvm.target.Target(target))(mod)
    last = None
    for p in lowering_passes():
        name = p.info.name.split(".")[-1]
        try:
            mod = p(mod)
        except Exception as e:  # noqa: BLE001 (a pass TVM itself fails on: not tirc's concern)
            notes.append("%s: TVM's %s fails: %s" % (prefix, name, str(e).strip().splitlines()[-1][:100]))
            return
        text = mod.script()
        if text != last:
            emit("%s__%s" % (prefix, name), text)
            last = text
    try:
        kinds = {g: f.attrs["target"].kind.name for g, f in mod.functions.items()}
        host = tvm.IRModule({g: f for g, f in mod.functions.items() if kinds[g] == "llvm"})
        dev = tvm.IRModule({g: f for g, f in mod.functions.items() if kinds[g] != "llvm"})
        emit(prefix + "__hostfin", tvm.s_tir.pipeline.finalize_host_passes()(host).script())
        if dev.functions:
            emit(prefix + "__devfin", tvm.s_tir.pipeline.finalize_device_passes()(dev).script())
    except Exception as e:  # noqa: BLE001
        notes.append("%s: TVM's finalize passes fail: %s" % (prefix, str(e).strip().splitlines()[-1][:100]))


def programs(full, emit, notes):
    """emit(name, text) for each program; returns the number of cases, of those legalized to TIR, of models"""
    from tvm import relax
    cases = relax_cases()
    legalized = 0
    cpu = {"kind": "llvm", "host": {"kind": "llvm"}}
    cuda = {"kind": "cuda", "arch": "sm_80", "host": {"kind": "llvm"}}
    for name, ins, f in cases:
        try:
            mod = relax.transform.LegalizeOps()(relax_module(ins, f))
        except Exception as e:  # noqa: BLE001 (an operator this TVM does not legalize)
            notes.append("%s: TVM fails: %s" % (name, str(e).strip().splitlines()[0][:100]))
            continue
        if not prim_funcs(mod):  # cumsum, sort, topk, ...: LegalizeOps leaves them to the relax pipelines
            continue
        legalized += 1
        prims = tvm.IRModule({g: fn for g, fn in prim_funcs(mod)})
        for g, fn in prim_funcs(prims):
            emit("%s__%s" % (name, g.name_hint), fn.script())
        if len(prims.functions) > 1:
            emit(name + "__MOD", prims.script())
        try:
            sm = dlight(prims, "cuda")
            for g, fn in prim_funcs(sm):
                emit("%s__%s__gpu" % (name, g.name_hint), fn.script())
        except Exception as e:  # noqa: BLE001 (dlight fails on it)
            notes.append("%s: dlight fails: %s" % (name, str(e).strip().splitlines()[0][:100]))
        if not full:
            continue
        prims = tvm.IRModule({g: fn.with_attr("global_symbol", g.name_hint) for g, fn in prim_funcs(mod)})
        with tvm.transform.PassContext(opt_level=3):
            lower(prims, cpu, name + "__cpu", emit, notes)
            try:
                sm = dlight(prims, cuda)
            except Exception as e:  # noqa: BLE001
                notes.append("%s: dlight fails: %s" % (name, str(e).strip().splitlines()[0][:100]))
                continue
            lower(sm, cuda, name + "__gpu", emit, notes)
    if not full:
        return len(cases), legalized, 0
    from tvm.relax.backend.cuda import pipeline as cp
    models = relax_models()
    target = tvm.target.Target(cuda)
    for name, ins, f in models:
        base = relax_module(ins, f, with_bb=True)
        try:
            for g, fn in prim_funcs(relax.pipeline.zero_pipeline()(base)):
                emit("%s__zero__%s" % (name, g.name_hint), fn.script())
        except Exception as e:  # noqa: BLE001
            notes.append("%s: zero_pipeline fails: %s" % (name, str(e).strip().splitlines()[0][:100]))
        try:
            with target:
                mod = tvm.transform.Sequential(cp.library_dispatch_passes(target) + cp.legalize_passes(target))(base)
            for g, fn in prim_funcs(mod):
                emit("%s__cuda__%s" % (name, g.name_hint), fn.script())
            with target:
                mod2 = tvm.transform.Sequential(cp.dataflow_lower_passes(target) + cp.finalize_passes(target))(mod)
            for g, fn in prim_funcs(mod2):
                emit("%s__cudafin__%s" % (name, g.name_hint), fn.script())
        except Exception as e:  # noqa: BLE001
            notes.append("%s: the CUDA pipeline fails: %s" % (name, str(e).strip().splitlines()[0][:100]))
            continue
        with tvm.transform.PassContext(opt_level=3):
            for g, fn in prim_funcs(mod):
                one = tvm.IRModule({"main": fn.with_attr("global_symbol", "main")})
                lower(one, cuda, "%s__cuda__%s" % (name, g.name_hint), emit, notes)
    return len(cases), legalized, len(models)


# ---------------------------------------------------------------- tirc's side (in the pool's processes)

def tvm_read(text):
    return tvm_text.tvm_read(text, EV)


def run(tirc, args, path):
    try:
        p = subprocess.run([tirc] + args + [path], capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timeout"


def crashed(rc, err):
    return rc not in (0, 1) or bool(CRASH.search(err))


def first_error(err):
    lines = [l for l in err.splitlines() if l.strip()]
    located = [l for l in lines if ": error: " in l]
    return (located or lines or [""])[0]


def check(job):
    """(name, outcome, detail): outcome equal, refused, differs, unreadable or crash"""
    tirc, d, name, text = job
    path = os.path.join(d, name + ".tir")
    with open(path, "w") as fh:
        fh.write(text)
    rc, out, err = run(tirc, [], path)
    for args in ([], ["--passes=default", "-o", os.devnull], ["--emit=c", "-o", os.devnull]):
        r = (rc, out, err) if not args else run(tirc, args, path)
        if crashed(r[0], r[2]):
            return name, "crash", "tirc %s exit %s: %s" % (" ".join(args), r[0], r[2].strip()[-300:])
    if rc == 1:
        why = first_error(err)
        for rx, reason in REFUSED:
            if re.search(rx, why):
                return name, "refused", reason
        if tvm_read(text) is None:
            return name, "unreadable", ""
        return name, "refused", "unlisted: " + why[:300]
    a = tvm_read(text)
    if a is None:
        return name, "unreadable", ""
    b = tvm_read(out)
    if b is None:
        return name, "differs", "TVM cannot read tirc's print"
    x, y = as_pair(a, b)
    if tvm_ffi.structural_equal(x, y, map_free_vars=True):
        return name, "equal", ""
    try:
        tvm.ir.assert_structural_equal(x, y, map_free_vars=True)
    except Exception as e:  # noqa: BLE001
        return name, "differs", [l for l in str(e).splitlines() if l.strip()][0][:300]
    return name, "differs", ""


# ---------------------------------------------------------------- main

def main():
    tirc = os.path.abspath(sys.argv[1])
    full = "--full" in sys.argv[2:]
    save = [a.split("=", 1)[1] for a in sys.argv[2:] if a.startswith("--save=")]
    texts, seen, notes = {}, set(), []
    results = []
    workers = max(2, min(8, os.cpu_count() or 2))
    ctx = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as d, \
            concurrent.futures.ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        def emit(name, text):
            if text in seen:
                return
            seen.add(text)
            name = re.sub(r"[^A-Za-z0-9_.]", "_", name)
            texts[name] = text
            results.append(pool.submit(check, (tirc, d, name, text)))
        ncases, nlegal, nmodels = programs(full, emit, notes)
        got = [r.result() for r in results]
    counts = {"equal": 0, "refused": 0, "known": 0, "unreadable": 0}
    reasons, fails = {}, []
    for name, outcome, detail in sorted(got):
        if outcome == "refused" and not detail.startswith("unlisted: "):
            counts["refused"] += 1
            reasons[detail] = reasons.get(detail, 0) + 1
        elif outcome == "differs" and any(re.search(rx, name) for rx, _ in KNOWN):
            counts["known"] += 1
        elif outcome in ("equal", "unreadable"):
            counts[outcome] += 1
        else:
            fails.append(name)
            print("FAIL relax_sweep %s: %s%s" % (name, outcome, ": " + detail if detail else ""))
    if "-v" in sys.argv[2:]:
        for note in notes:
            print("relax_sweep: skipped: " + note)
    if save and fails:
        os.makedirs(save[0], exist_ok=True)
        for name in fails:
            with open(os.path.join(save[0], name + ".tir"), "w") as fh:
                fh.write(texts[name])
    what = "%d relax operator cases, %d of them legalized to TIR, and scheduled by dlight" % (ncases, nlegal)
    if full:
        what += ", lowered for llvm and cuda pass by pass; %d models through relax's pipelines" % nmodels
    if notes:
        what += "; %d steps TVM itself fails, skipped" % len(notes)
    print("relax_sweep: %d programs (%s): %d equal, %d refused as listed (%s), %d known, "
          "%d that TVM cannot read back itself, %d failed" %
          (len(got), what, counts["equal"], counts["refused"],
           "; ".join("%d %s" % (k, r) for r, k in sorted(reasons.items())) or "none",
           counts["known"], counts["unreadable"], len(fails)))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
