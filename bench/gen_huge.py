"""gen_huge.py - programs that grow in one dimension, for finding crashes and
super-linear time at 1000x the usual size (bench/scale_hunt.py runs them).

usage: python3 bench/gen_huge.py DIMENSION N  (prints the program)
       python3 bench/gen_huge.py --list
"""
import sys

HDR = "# from tvm.script import tirx as T\n\n"
MHDR = "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n\n"


def params(n):
    ps = ", ".join(f'A{i}: T.Buffer((16,), "float32")' for i in range(n))
    body = [f"        A{2*i+1}[j] = A{2*i}[j]" for i in range(n // 2)]
    return HDR + f"@T.prim_func\ndef f({ps}):\n    for j in range(16):\n" + "\n".join(body or ["        T.evaluate(0)"]) + "\n"


def alloc_buffers(n):
    L = [HDR, "@T.prim_func(s_tir=True)\ndef f(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n",
         "    for i in range(16):\n        with T.sblock(\"b\"):\n            vi = T.axis.spatial(16, i)\n"]
    for k in range(n):
        L.append(f"            t{k} = T.sblock_alloc_buffer((16,))\n")
    L.append("            t0[vi] = A[vi]\n")
    for k in range(1, n):
        L.append(f"            t{k}[vi] = t{k-1}[vi]\n")
    L.append(f"            B[vi] = t{n-1}[vi]\n")
    return "".join(L)


def match_buffers(n):
    L = [HDR, f"@T.prim_func(s_tir=True)\ndef f(A: T.Buffer(({n}, 16), \"float32\"), B: T.Buffer(({n}, 16), \"float32\")):\n",
         "    for i in range(16):\n        with T.sblock(\"b\"):\n            vi = T.axis.spatial(16, i)\n"]
    for k in range(n):
        L.append(f"            a{k} = T.match_buffer(A[{k}, vi], (1,), offset_factor=1)\n")
        L.append(f"            b{k} = T.match_buffer(B[{k}, vi], (1,), offset_factor=1)\n")
    for k in range(n):
        L.append(f"            b{k}[0] = a{k}[0]\n")
    return "".join(L)


def regions(n):
    rd = ", ".join(f"A[{k}, vi]" for k in range(n))
    wr = ", ".join(f"B[{k}, vi]" for k in range(n))
    L = [HDR, f"@T.prim_func(s_tir=True)\ndef f(A: T.Buffer(({n}, 16), \"float32\"), B: T.Buffer(({n}, 16), \"float32\")):\n",
         "    for i in range(16):\n        with T.sblock(\"b\"):\n            vi = T.axis.spatial(16, i)\n",
         f"            T.reads({rd})\n            T.writes({wr})\n"]
    for k in range(n):
        L.append(f"            B[{k}, vi] = A[{k}, vi]\n")
    return "".join(L)


def annotations(n):
    ann = ", ".join(f'"k{k}": {k}' for k in range(n))
    return (HDR + "@T.prim_func(s_tir=True)\ndef f(A: T.Buffer((16,), \"float32\")):\n"
            "    for i in range(16):\n        with T.sblock(\"b\"):\n            vi = T.axis.spatial(16, i)\n"
            f"            T.sblock_attr({{{ann}}})\n            A[vi] = T.float32(1)\n")


def blocks_seq(n):
    L = [HDR, f"@T.prim_func(s_tir=True)\ndef f(A: T.Buffer(({n}, 16), \"float32\"), B: T.Buffer(({n}, 16), \"float32\")):\n"]
    for k in range(n):
        L.append(f"    for i in range(16):\n        with T.sblock(\"b{k}\"):\n            vi = T.axis.spatial(16, i)\n"
                 f"            t = T.sblock_alloc_buffer((16,))\n            t[vi] = A[{k}, vi]\n            B[{k}, vi] = t[vi] * T.float32(2)\n")
    return "".join(L)


def blocks_nested(n):
    d = min(n, 30)  # nesting limit 62 (a loop and a block a level each)
    L = [HDR, f"@T.prim_func(s_tir=True)\ndef f(A: T.Buffer((16,), \"float32\")):\n"]
    ind = "    "
    for k in range(d):
        L.append(f"{ind}with T.sblock(\"b{k}\"):\n")
        ind += "    "
        L.append(f"{ind}t{k} = T.sblock_alloc_buffer((16,))\n")
    for k in range(max(1, n // 30)):
        L.append(f"{ind}for i{k} in range(16):\n{ind}    t{d-1}[i{k}] = A[i{k}]\n{ind}    A[i{k}] = t{d-1}[i{k}] + T.float32(1)\n")
    return "".join(L)


def iter_vars(n):
    L = [HDR, f"@T.prim_func(s_tir=True)\ndef f(A: T.Buffer((16,), \"float32\")):\n",
         "    for i in range(16):\n        with T.sblock(\"b\"):\n            vi = T.axis.spatial(16, i)\n"]
    for k in range(n):
        L.append(f"            v{k} = T.axis.spatial(2, 1)\n")
    s = " + ".join(f"v{k}" for k in range(min(n, 150)))
    L.append(f"            A[vi] = T.Cast(\"float32\", {s})\n")
    return "".join(L)


def loops_seq(n):
    L = [HDR, f"@T.prim_func\ndef f(A: T.Buffer(({n}, 16), \"float32\")):\n"]
    for k in range(n):
        L.append(f"    for i in range(16):\n        A[{k}, i] = A[{k}, i] + T.float32(1)\n")
    return "".join(L)


def grid(n):
    d = min(n, 64)
    ext = ", ".join("2" for _ in range(d))
    vs = ", ".join(f"i{k}" for k in range(d))
    s = " + ".join(f"i{k}" for k in range(d))
    return (HDR + f"@T.prim_func\ndef f(A: T.Buffer((128,), \"int32\")):\n    for {vs} in T.grid({ext}):\n"
            f"        A[({s}) % 128] = A[({s}) % 128] + 1\n")


def lets_chain(n):
    # chains of 500 lets (the reader's limit), n // 500 of them, each in its own loop
    L = [HDR, f"@T.prim_func\ndef f(A: T.Buffer(({max(1, n // 500)}, 16), \"int32\")):\n"]
    for c in range(max(1, n // 500)):
        L.append("    for i in range(16):\n        x0: T.int32 = A[%d, i]\n" % c)
        for k in range(1, min(n, 450)):
            L.append(f"        x{k}: T.int32 = x{k-1} * 3 + {k}\n")
        L.append(f"        A[{c}, i] = x{min(n, 450)-1}\n")
    return "".join(L)


def allocs_chain(n):
    m = min(n, 450)
    L = [HDR, f"@T.prim_func\ndef f(A: T.Buffer((16,), \"float32\")):\n    for i in range(16):\n"]
    for k in range(m):
        L.append(f"        t{k} = T.decl_buffer((16,), \"float32\")\n")
    L.append("        t0[i] = A[i]\n")
    for k in range(1, m):
        L.append(f"        t{k}[i] = t{k-1}[i]\n")
    L.append(f"        A[i] = t{m-1}[i]\n")
    return "".join(L)


def launch_threads(n):
    L = [HDR, f"@T.prim_func\ndef f(A: T.Buffer(({n}, 32), \"float32\")):\n"]
    for k in range(n):
        L.append(f"    with T.launch_thread(\"threadIdx.x\", 32) as tx:\n        A[{k}, tx] = A[{k}, tx] + T.float32(1)\n")
    return "".join(L)


def funcs(n):
    L = [MHDR, "@I.ir_module\nclass Module:\n"]
    for k in range(n):
        L.append(f"    @T.prim_func\n    def f{k}(A: T.Buffer((16,), \"float32\")):\n        for i in range(16):\n            A[i] = A[i] + T.float32({k})\n\n")
    return "".join(L)


def calls(n):
    L = [MHDR, "@I.ir_module\nclass Module:\n"]
    L.append("    @T.prim_func\n    def entry(A: T.Buffer((16,), \"int32\")):\n        A[0] = Module.g0(A[1])\n\n")
    for k in range(n):
        nxt = f"Module.g{k+1}(x) + 1" if k + 1 < n else "x + 1"
        L.append(f"    @T.prim_func(private=True)\n    def g{k}(x: T.int32) -> T.int32:\n        return {nxt}\n\n")
    return "".join(L)


def stmts(n):
    L = [HDR, f"@T.prim_func\ndef f(A: T.Buffer(({n},), \"float32\")):\n"]
    for k in range(n):
        L.append(f"    A[{k}] = A[{(k * 7) % n}] + T.float32(1)\n")
    return "".join(L)


def long_sums(n):
    # n // 100 statements, each a sum of 190 terms
    m = max(1, n // 100)
    s = " + ".join(f"A[i, {k % 16}]" for k in range(190))
    L = [HDR, f"@T.prim_func\ndef f(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer(({m}, 16), \"float32\")):\n    for i in range(16):\n"]
    for k in range(m):
        L.append(f"        B[{k}, i] = {s}\n")
    return "".join(L)


def many_dims(n):
    # 64-D buffers (extent 2 in 6 dims, 1 in the rest: 64 elements), n // 64 copies
    d = 64
    shape = ", ".join("2" if k % 11 == 0 else "1" for k in range(d))
    vs = ", ".join(f"i{k}" for k in range(d))
    m = max(1, n // 64)
    L = [HDR, f"@T.prim_func\ndef f(A: T.Buffer(({shape}), \"float32\"), B: T.Buffer(({shape}), \"float32\")):\n"]
    for c in range(m):
        L.append(f"    for {vs} in T.grid({shape}):\n        B[{vs}] = A[{vs}] + T.float32({c})\n")
    return "".join(L)


def big_extents(n):
    L = [HDR, "@T.prim_func\ndef f(A: T.Buffer((2147483647,), \"int8\")):\n"]
    for k in range(max(1, n // 1000)):
        L.append(f"    for i in range(2147483647):\n        A[i] = A[i] + T.int8(1)\n")
    L.append("    for j in T.unroll(4):\n        A[j] = T.int8(0)\n")
    return "".join(L)


def huge_shapes(n):
    L = [HDR, "@T.prim_func\ndef f(A: T.Buffer((T.int64(4611686018427387904),), \"int8\")):\n"]
    for k in range(max(1, n // 100)):
        L.append(f"    for i in range(T.int64(4611686018427387904)):\n        A[i] = A[i] + T.int8({k % 100})\n")
    return "".join(L)


def thread_loops(n):
    L = [HDR, f"@T.prim_func(s_tir=True)\ndef f(A: T.Buffer(({n}, 32), \"float32\")):\n"]
    for k in range(n):
        L.append(f"    for bx in T.thread_binding(4, thread=\"blockIdx.x\"):\n      for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                 f"        with T.sblock(\"b{k}\"):\n            v = T.axis.spatial(32, tx)\n            A[{k}, v] = A[{k}, v] + T.float32(1)\n")
    return "".join(L)


def reductions(n):
    L = [HDR, f"@T.prim_func(s_tir=True)\ndef f(A: T.Buffer(({n}, 32), \"float32\"), B: T.Buffer(({n},), \"float32\")):\n"]
    for k in range(n):
        L.append(f"    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n        with T.sblock(\"r{k}\"):\n"
                 f"            vk = T.axis.reduce(32, tx)\n            with T.init():\n                B[{k}] = T.float32(0)\n"
                 f"            B[{k}] = B[{k}] + A[{k}, vk]\n")
    return "".join(L)


def shared_allocs(n):
    # n shared temporaries: kernels of 100 each (the reader's chain limit is 500),
    # each stored and read back, with disjoint lifetimes (PlanMemory packs them)
    per = 100
    L = [HDR, f"@T.prim_func(s_tir=True)\ndef f(A: T.Buffer(({n}, 32), \"float32\")):\n"]
    for k0 in range(0, n, per):
        L.append("    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n")
        for k in range(k0, min(n, k0 + per)):
            L.append(f"        S{k} = T.alloc_buffer((32,), scope=\"shared\")\n")
        for k in range(k0, min(n, k0 + per)):
            L.append(f"        S{k}[tx] = A[{k}, tx]\n        A[{k}, tx] = S{k}[31 - tx]\n")
    return "".join(L)


def local_allocs_seq(n):
    # allocations in sequence (not chained): each in its own loop body
    L = [HDR, f"@T.prim_func\ndef f(A: T.Buffer(({n}, 16), \"float32\")):\n"]
    for k in range(n):
        L.append(f"    for i in range(16):\n        t = T.alloc_buffer((16,), scope=\"local\")\n        t[i] = A[{k}, i]\n        A[{k}, i] = t[i] * T.float32(2)\n")
    return "".join(L)


DIMS = {f.__name__: f for f in [params, alloc_buffers, match_buffers, regions, annotations, blocks_seq, blocks_nested,
                                 iter_vars, loops_seq, grid, lets_chain, allocs_chain, launch_threads, funcs, calls,
                                 stmts, long_sums, many_dims, big_extents, huge_shapes, thread_loops, reductions,
                                 shared_allocs, local_allocs_seq]}

if __name__ == "__main__":
    if sys.argv[1] == "--list":
        print(" ".join(DIMS))
    else:
        sys.stdout.write(DIMS[sys.argv[1]](int(sys.argv[2])))
