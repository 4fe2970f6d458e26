"""gen_stages.py N [--seed S] [--root] - a TVMScript program of N independent
stages, each a block with an alloc_buffer, a match_buffer view of it and a
reduction, as a scaled-up TVM schedule looks (for bench/bench_scale.py).

With --root: each stage's buffer is allocated by the root block, as
te.create_prim_func allocates a program's intermediates, so that all N are
in scope of every block, and each stage writes its buffer whole in each
iteration of its outer loop before reading it, so that
PlanAndUpdateBufferAllocationLocation moves it into that loop once it has
found the loop carries no value in it."""
import sys


def stage(k):
    return f'''    for i_{k} in range(8):
        with T.sblock("s{k}"):
            vi = T.axis.spatial(8, i_{k})
            T.reads(X[vi, 0:16])
            T.writes(Y[{k % 64}, vi])
            t{k} = T.sblock_alloc_buffer((8, 16))
            for j in range(16):
                with T.sblock("c{k}"):
                    vj = T.axis.spatial(16, j)
                    T.reads(X[vi, vj])
                    T.writes(t{k}[vi, vj])
                    t{k}[vi, vj] = X[vi, vj] * T.float32({k % 7 + 1}.0)
            for r in range(16):
                with T.sblock("r{k}"):
                    vr = T.axis.reduce(16, r)
                    T.reads(t{k}[vi, vr])
                    T.writes(Y[{k % 64}, vi])
                    v = T.match_buffer(t{k}[vi, vr], (1,), offset_factor=1)
                    with T.init():
                        Y[{k % 64}, vi] = T.float32(0.0)
                    Y[{k % 64}, vi] = Y[{k % 64}, vi] + v[0]
'''


def root_stage(k):
    return f'''        for i_{k} in range(8):
            for j in range(16):
                with T.sblock("c{k}"):
                    vi, vj = T.axis.remap("SS", [i_{k}, j])
                    t{k}[vj] = X[vi, vj] * T.float32({k % 7 + 1}.0)
            for r in range(16):
                with T.sblock("r{k}"):
                    vi, vr = T.axis.remap("SR", [i_{k}, r])
                    with T.init():
                        Y[{k % 64}, vi] = T.float32(0.0)
                    Y[{k % 64}, vi] = Y[{k % 64}, vi] + t{k}[15 - vr]
'''


def main():
    n = int(sys.argv[1])
    if "--root" in sys.argv:
        out = ['# from tvm.script import tirx as T', '',
               '@T.prim_func(s_tir=True)',
               'def stages(X: T.Buffer((8, 16), "float32"), Y: T.Buffer((64, 8), "float32")):',
               '    with T.sblock("root"):']
        out += [f'        t{k} = T.sblock_alloc_buffer((16,))' for k in range(n)]
        sys.stdout.write("\n".join(out) + "\n" + "".join(root_stage(k) for k in range(n)))
        return
    out = ['# from tvm.script import tirx as T', '',
           '@T.prim_func(s_tir=True)',
           'def stages(X: T.Buffer((8, 16), "float32"), Y: T.Buffer((64, 8), "float32")):']
    body = "".join(stage(k) for k in range(n))
    sys.stdout.write("\n".join(out) + "\n" + body)


main()
