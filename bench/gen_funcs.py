"""gen_funcs.py N - an @I.ir_module of N small functions (each a block
with an alloc_buffer and a reduction), for the memory and time of reading
a module of many functions (bench/bench_scale.py --funcs)."""
import sys


def func(k):
    return f'''    @T.prim_func(s_tir=True)
    def f{k}(X: T.Buffer((8, 16), "float32"), Y: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.sblock("s"):
                vi = T.axis.spatial(8, i)
                T.reads(X[vi, 0:16])
                T.writes(Y[vi])
                t = T.sblock_alloc_buffer((16,))
                for r in range(16):
                    with T.sblock("r"):
                        vr = T.axis.reduce(16, r)
                        T.reads(X[vi, vr])
                        T.writes(Y[vi])
                        with T.init():
                            Y[vi] = T.float32(0.0)
                        Y[vi] = Y[vi] + X[vi, vr] * T.float32({k % 7 + 1}.0)
'''


def main():
    n = int(sys.argv[1])
    head = ['# from tvm.script import ir as I', '# from tvm.script import tirx as T', '', '@I.ir_module', 'class Module:']
    sys.stdout.write("\n".join(head) + "\n" + "\n".join(func(k) for k in range(n)))


main()
