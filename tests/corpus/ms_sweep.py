"""ms_sweep.py DIR [N] - TIR as TVM 0.27's MetaSchedule writes it, without
MetaSchedule (its TuneContext aborts TVM's process in this wheel): tvm.topi
workloads through te.create_prim_func, scheduled by seeded random choices
of the rules MetaSchedule's design spaces apply (tvm.s_tir.Schedule's own
sample_perfect_tile / sample_categorical / sample_compute_location, so the
tiles are TVM's), each program printed by TVM (mod.script()) and after
each pass of TVM's lowering, as gen_corpus.py prints its stages:

  cpu: compute_inline of injective producers; multi-level tiling of each
       block with a reduction ("SSRSRS": spatial loops split in four,
       reduction loops in two, reordered) with a cache_write to "global"
       put back at a tile (reverse_compute_at); the outer spatial tiles
       fused and parallel, the innermost spatial loop vectorized, and the
       annotations MetaSchedule's rules leave
       (meta_schedule.tiling_structure, meta_schedule.parallel,
       meta_schedule.vectorize, meta_schedule.unroll_explicit,
       meta_schedule.auto_tensorize not used); decompose_reduction at a
       sampled loop;
  gpu: multi-level tiling "SSSRRSRS" bound to blockIdx.x / vthread.x /
       threadIdx.x, cache_read of the inputs to "shared" at the reduction's
       outer tile with a cooperative fetch (fused, split by the thread
       extent, bound, vectorized, as MetaSchedule's
       meta_schedule.cooperative_fetch postproc rewrites it), cache_write
       to "local"; the rest (injective blocks) fused, split and bound
       (AutoBind); storage_align of the shared copies.

Every generated text is read by TVM first (a print TVM cannot read back is
dropped, as the other sweeps drop none of them silently: counted); the
corpus harness (constructs.py, CONSTRUCTS_DIR) then checks tirc against
each. N (default 6) seeds per workload and target."""
import os
import random
import sys

import lazy_stack  # noqa: F401  (before TVM reads a text)
import tvm
from tvm import te, topi
from tvm import s_tir

out = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 6
os.makedirs(out, exist_ok=True)


def P(*shape, dtype="float32", name="A"):
    return te.placeholder(shape, dtype=dtype, name=name)


WORKLOADS = {
    "matmul": lambda: [(A := P(64, 64)), (B := P(64, 64, name="B")), topi.matmul(A, B)],
    "dense_relu": lambda: [(A := P(32, 64)), (W := P(48, 64, name="W")), topi.nn.relu(topi.nn.dense(A, W))],
    "batch_matmul": lambda: [(A := P(2, 32, 16)), (B := P(2, 16, 32, name="B")),
                             topi.nn.batch_matmul(A, B, transpose_b=False)],
    "conv2d": lambda: [(A := P(1, 8, 16, 16)), (W := P(16, 8, 3, 3, name="W")), topi.nn.conv2d_nchw(A, W, 1, 1, 1)],
    "conv2d_nhwc": lambda: [(A := P(1, 14, 14, 8)), (W := P(3, 3, 8, 16, name="W")),
                            topi.nn.conv2d_nhwc(A, W, 1, 1, 1)],
    "depthwise": lambda: [(A := P(1, 8, 16, 16)), (W := P(8, 1, 3, 3, name="W")),
                          topi.nn.depthwise_conv2d_nchw(A, W, 1, 1, 1)],
    "softmax": lambda: [(A := P(16, 128)), topi.nn.softmax(A)],
    "layer_norm": lambda: [(A := P(16, 64)), (G := P(64, name="G")), (B := P(64, name="B")),
                           topi.nn.layer_norm(A, G, B, [1])],
    "sum": lambda: [(A := P(32, 256)), topi.sum(A, axis=1)],
    "pool": lambda: [(A := P(1, 8, 16, 16)), topi.nn.pool2d(A, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max")],
    "add_exp": lambda: [(A := P(64, 64)), (B := P(64, 64, name="B")), topi.exp(topi.add(A, B))],
    "matmul_f16": lambda: [(A := P(64, 64, dtype="float16")), (B := P(64, 64, dtype="float16", name="B")),
                           topi.matmul(A, B)],
}


def blocks_of(sch):
    return sch.get_child_blocks(sch.get_sblock("root")) if has_root(sch) else []


def has_root(sch):
    try:
        sch.get_sblock("root")
        return True
    except Exception:  # noqa: BLE001
        return False


def iter_kinds(sch, blk):
    """'S'/'R'/'O' per iter var of the block"""
    b = sch.get(blk)
    return "".join({0: "S", 2: "R"}.get(int(iv.iter_type), "O") for iv in b.iter_vars)


def try_(f, *a, **k):
    try:
        return f(*a, **k)
    except Exception:  # noqa: BLE001
        return None


def inline_injective(sch):
    for blk in list(blocks_of(sch)):
        if "R" in iter_kinds(sch, blk):
            continue
        if try_(sch.compute_inline, blk) is None:
            try_(sch.reverse_compute_inline, blk)


def tile(sch, loop, n, max_inner):
    factors = sch.sample_perfect_tile(loop, n=n, max_innermost_factor=max_inner)
    return sch.split(loop, factors)


def schedulable(sch):
    """after inlining the injective blocks: each block left whose loops are
    its iter vars' (spatial or reduction), with its kinds and loops"""
    inline_injective(sch)
    for blk in list(blocks_of(sch)):
        kinds = iter_kinds(sch, blk)
        loops = sch.get_loops(blk)
        if len(loops) == len(kinds) and "O" not in kinds:
            yield blk, kinds, loops


def cpu(sch, rnd):
    for blk, kinds, loops in schedulable(sch):
        if "R" in kinds:
            sch.annotate(blk, "meta_schedule.tiling_structure", "SSRSRS")
            cw = try_(sch.cache_write, blk, 0, "global") if rnd.random() < 0.6 else None
            s_t, r_t = [], []
            for lp, k in zip(loops, kinds):
                (s_t if k == "S" else r_t).append(tile(sch, lp, 4 if k == "S" else 2, 16 if k == "S" else 64))
            order = [t[0] for t in s_t] + [t[1] for t in s_t] + [t[0] for t in r_t] + [t[2] for t in s_t] + \
                    [t[1] for t in r_t] + [t[3] for t in s_t]
            sch.reorder(*order)
            if cw is not None:
                at = s_t[0][1] if rnd.random() < 0.5 else s_t[-1][0]
                try_(sch.reverse_compute_at, cw, at, preserve_unit_loops=True)
            outer = sch.fuse(*[t[0] for t in s_t]) if len(s_t) > 1 else s_t[0][0]
            sch.parallel(outer)
            if rnd.random() < 0.7:
                try_(sch.vectorize, s_t[-1][3])
            unroll = rnd.choice([0, 16, 64, 512])
            sch.annotate(outer, "pragma_auto_unroll_max_step", unroll)
            sch.annotate(outer, "pragma_unroll_explicit", rnd.choice([0, 1]))
            if rnd.random() < 0.5:
                loc = try_(sch.decompose_reduction, blk, r_t[0][0])
                if loc is not None and rnd.random() < 0.5:
                    try_(sch.vectorize, sch.get_loops(loc)[-1])
        else:
            fused = sch.fuse(*loops)
            a, b = sch.split(fused, [None, rnd.choice([4, 8, 16])])
            sch.parallel(a)
            if rnd.random() < 0.5:
                sch.vectorize(b)
        if rnd.random() < 0.5:
            root = sch.get_sblock("root")
            sch.annotate(root, "meta_schedule.parallel", 64)
            sch.annotate(root, "meta_schedule.vectorize", 32)
            sch.annotate(root, "meta_schedule.unroll_explicit", rnd.choice([0, 16, 64, 512]))


def coop_fetch(sch, blk, nthreads, rnd):
    """a shared copy's loops fused, split by the thread extent and bound,
    its innermost vectorized (MetaSchedule's cooperative_fetch postproc)"""
    loops = sch.get_loops(blk)
    n = len(sch.get(blk).iter_vars)
    f = sch.fuse(*loops[-n:])
    vec = rnd.choice([1, 2, 4])
    if vec > 1:
        o, t, v = sch.split(f, [None, nthreads, vec])
        sch.vectorize(v)
    else:
        o, t = sch.split(f, [None, nthreads])
    sch.bind(t, "threadIdx.x")
    if rnd.random() < 0.5:
        try_(sch.storage_align, blk, 0, axis=-2, factor=32, offset=rnd.choice([1, 8]))


def gpu(sch, rnd):
    for blk, kinds, loops in schedulable(sch):
        if "R" in kinds and rnd.random() < 0.85:
            sch.annotate(blk, "meta_schedule.tiling_structure", "SSSRRSRS")
            cw = try_(sch.cache_write, blk, 0, "local")
            s_t, r_t = [], []
            for lp, k in zip(loops, kinds):
                (s_t if k == "S" else r_t).append(tile(sch, lp, 5 if k == "S" else 3, 4 if k == "S" else 16))
            order = [t[0] for t in s_t] + [t[1] for t in s_t] + [t[2] for t in s_t] + [t[0] for t in r_t] + \
                    [t[1] for t in r_t] + [t[3] for t in s_t] + [t[2] for t in r_t] + [t[4] for t in s_t]
            sch.reorder(*order)
            bx = sch.fuse(*[t[0] for t in s_t])
            vx = sch.fuse(*[t[1] for t in s_t])
            tx = sch.fuse(*[t[2] for t in s_t])
            sch.bind(bx, "blockIdx.x")
            sch.bind(vx, "vthread.x")
            sch.bind(tx, "threadIdx.x")
            ext = sch.get(tx).extent
            nthreads = int(ext) if isinstance(ext, tvm.tirx.IntImm) else 32
            for i in range(len(sch.get(blk).reads)):
                if rnd.random() < 0.7:
                    sh = try_(sch.cache_read, blk, i, "shared")
                    if sh is not None:
                        try_(sch.compute_at, sh, r_t[0][0], preserve_unit_loops=True)
                        try_(coop_fetch, sch, sh, nthreads, rnd)
            if cw is not None:
                try_(sch.reverse_compute_at, cw, tx, preserve_unit_loops=True)
            sch.annotate(bx, "pragma_auto_unroll_max_step", rnd.choice([0, 16, 64, 512, 1024]))
            sch.annotate(bx, "pragma_unroll_explicit", rnd.choice([0, 1]))
            if rnd.random() < 0.5:
                try_(sch.decompose_reduction, blk, r_t[0][0])
        else:
            if "R" in kinds:  # a reduction left as it is: its spatial loops bound, the reduction serial
                sp = [lp for lp, k in zip(loops, kinds) if k == "S"]
                if not sp or kinds.index("R") < len(sp):
                    continue
                f = sch.fuse(*sp)
            else:
                f = sch.fuse(*loops)
            t = rnd.choice([32, 64, 128, 256])
            b, tt = sch.split(f, [None, t])
            sch.bind(b, "blockIdx.x")
            sch.bind(tt, "threadIdx.x")


PASSES = [s_tir.transform.LowerCrossThreadReduction(), s_tir.transform.LowerInitBlock(),
          s_tir.transform.PlanAndUpdateBufferAllocationLocation(), s_tir.transform.ConvertBlocksToOpaque(),
          s_tir.transform.CompactBufferAllocation(), s_tir.transform.LowerMatchBuffer(),
          s_tir.transform.LowerOpaqueBlock(), tvm.tirx.transform.FlattenBuffer(),
          tvm.tirx.transform.StmtSimplify(), tvm.tirx.transform.RemoveNoOp()]

stats = {"programs": 0, "texts": 0, "unreadable": 0, "failed": 0}


def save(path, mod):
    text = mod.script()
    try:
        tvm.script.from_source(text)
    except Exception:  # noqa: BLE001  (TVM cannot read its own print: not a corpus text)
        stats["unreadable"] += 1
        return
    open(path, "w").write(text)
    stats["texts"] += 1


def emit(name, mod):
    save(os.path.join(out, name + ".tir"), mod)
    m = mod
    for i, p in enumerate(PASSES):
        try:
            m = p(m)
        except Exception:  # noqa: BLE001
            break
        save(os.path.join(out, "%s.%d.%s.tir" % (name, i + 1, p.info.name)), m)


for wname, wl in WORKLOADS.items():
    mod = tvm.IRModule({"main": te.create_prim_func(wl())})
    for target, rule in (("cpu", cpu), ("gpu", gpu)):
        for seed in range(N):
            rnd = random.Random("%s/%s/%d" % (wname, target, seed))  # a str seed: the same in every run
            sch = s_tir.Schedule(mod, seed=seed + 1)
            try:
                rule(sch, rnd)
            except Exception as e:  # noqa: BLE001
                stats["failed"] += 1
                print("schedule failed", wname, target, seed, str(e).strip().splitlines()[-1][:100])
                continue
            stats["programs"] += 1
            emit("ms_%s_%s_%d" % (wname, target, seed), sch.mod)
print("ms_sweep:", stats)
