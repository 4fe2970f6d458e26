#!/usr/bin/env python3
"""Writes src/codegen_c/c_reserved.c: the names generated C and CUDA cannot
use as they are (issue 11, class 5).  The macros come from the compilers on
this machine (`-dM -E` over the headers the output includes, and the usual
libc ones a user's translation unit may add); run it where gcc, clang and
nvcc are installed, and review the diff."""
import re, shutil, subprocess, sys, tempfile, os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'src', 'codegen_c', 'c_reserved.c')
C_HEADERS = ['math.h', 'stdint.h', 'string.h', 'stdio.h', 'stdlib.h', 'errno.h', 'limits.h', 'float.h',
             'assert.h', 'stdbool.h', 'stddef.h', 'stdalign.h', 'stdnoreturn.h', 'inttypes.h', 'stdarg.h']
CU_HEADERS = ['cuda_runtime.h', 'cuda_fp16.h', 'cuda_bf16.h', 'math.h', 'stdint.h', 'string.h']
# the C library headers nvcc's cuda_runtime.h includes in the host pass (GNU
# mode: g++ defines _GNU_SOURCE), whose functions a kernel cannot call and
# a generated function cannot be named after
HOST_HEADERS = ['stdlib.h', 'string.h', 'strings.h', 'time.h', 'ctype.h', 'stdio.h', 'math.h', 'alloca.h',
                'endian.h', 'assert.h']


def libc_functions():
    """the functions the host headers declare (gcc -aux-info), less the
    implementation's own (_x, __x)"""
    with tempfile.TemporaryDirectory() as d:
        src, aux = os.path.join(d, 'h.c'), os.path.join(d, 'aux.txt')
        with open(src, 'w') as f:
            f.write('#define _GNU_SOURCE\n' + ''.join('#include <%s>\n' % h for h in HOST_HEADERS))
        subprocess.run(['gcc', '-aux-info', aux, '-c', src, '-o', os.devnull], check=True)
        names = set()
        with open(aux) as f:
            for line in f:
                m = re.match(r'/\* \S+:\d+:\w+ \*/ (.*)', line)
                n = m and re.search(r'(?<!\w)([A-Za-z]\w*)\s*\(', m.group(1))
                if n:
                    names.add(n.group(1))
    return names


def macros(cmd, headers, suffix):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, 'h' + suffix)
        with open(src, 'w') as f:
            f.write(''.join('#include <%s>\n' % h for h in headers))
        try:
            out = subprocess.run(cmd + [src], capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit('reserved_names.py: %s failed: %s' % (cmd[0], e))
    names = set()
    for line in out.splitlines():
        m = re.match(r'#define ([A-Za-z][A-Za-z0-9_]*)', line)
        if m:
            names.add(m.group(1))
    return names


def wrapped(items):
    """the items, comma-separated C initialisers, in lines of at most 110"""
    lines, line = [], '   '
    for item in items:
        item = ' %s,' % item
        if len(line) + len(item) > 110:
            lines.append(line)
            line = '   '
        line += item
    return lines + [line]


def c_callees(names):
    """how C (gcc -std=c11 with the headers the C output may include) can
    call each name: 'h', 's' or 'l' where math.h + stdint.h + string.h (+
    stdio.h, + stdlib.h) declare it as a function or function-like macro,
    'p' where none of them knows it (a prototype of its own), 'x' else"""
    base = ['math.h', 'stdint.h', 'string.h']
    sets = [('h', base), ('s', base + ['stdio.h']), ('l', base + ['stdlib.h'])]
    how = {}
    with tempfile.TemporaryDirectory() as d:
        def compiles(headers, body):
            src = os.path.join(d, 't.c')
            with open(src, 'w') as f:
                f.write(''.join('#include <%s>\n' % h for h in headers) + body + '\n')
            return subprocess.run(['gcc', '-std=c11', '-fsyntax-only', src], capture_output=True).returncode == 0
        fn_macros = {}
        for tag, hs in sets:
            src = os.path.join(d, 'm.c')
            with open(src, 'w') as f:
                f.write(''.join('#include <%s>\n' % h for h in hs))
            out = subprocess.run(['gcc', '-std=c11', '-dM', '-E', src], capture_output=True, text=True).stdout
            fn_macros[tag] = set(re.findall(r'^#define ([A-Za-z_][A-Za-z0-9_]*)\(', out, re.M))
        for n in names:
            how[n] = 'x'
            for tag, hs in sets:
                if n in fn_macros[tag] or compiles(hs, '_Static_assert(__builtin_types_compatible_p('
                                                     '__typeof__(&%s), __typeof__(&*%s)), "");' % (n, n)):
                    how[n] = tag
                    break
            else:
                if compiles(base + ['stdio.h', 'stdlib.h'], 'int %s;' % n):
                    how[n] = 'p'
    return how


def main():
    names = set()
    for cc in ('gcc', 'clang'):
        if not shutil.which(cc):
            sys.exit('reserved_names.py: %s is needed' % cc)
        names |= macros([cc, '-dM', '-E'], C_HEADERS, '.c')           # GNU mode: linux, unix
        names |= macros([cc, '-std=c11', '-dM', '-E'], C_HEADERS, '.c')
    names |= macros(['gcc', '-fopenmp', '-dM', '-E', '-include', 'omp.h'], C_HEADERS, '.c')
    if not shutil.which('nvcc'):
        sys.exit('reserved_names.py: nvcc is needed (the CUDA headers\' macros)')
    names |= macros(['nvcc', '-E', '-Xcompiler', '-dM'], CU_HEADERS, '.cu')
    names = {n for n in names if not n.startswith('cuda')}  # the prefix is reserved whole
    c_kw = '''auto break case char const continue default do double else enum extern float for goto if inline
      int long register restrict return short signed sizeof static struct switch typedef union unsigned void
      volatile while asm typeof'''.split()
    cpp_kw = '''alignas alignof and and_eq bitand bitor bool catch char8_t char16_t char32_t class compl concept
      consteval constexpr constinit const_cast co_await co_return co_yield decltype delete dynamic_cast explicit
      export false final friend mutable namespace new noexcept not not_eq nullptr operator or or_eq override
      private protected public reinterpret_cast requires static_assert static_cast template this thread_local
      throw true try typeid typename using virtual wchar_t xor xor_eq'''.split()
    math_base = '''acos asin atan atan2 cos sin tan acosh asinh atanh cosh sinh tanh exp exp2 expm1 frexp ilogb
      ldexp log log10 log1p log2 logb modf scalbn scalbln cbrt fabs hypot pow sqrt erf erfc lgamma tgamma ceil
      floor nearbyint rint lrint llrint round lround llround trunc fmod remainder remquo copysign nan nextafter
      nexttoward fdim fmax fmin fma'''.split()
    math = set()
    for m in math_base:
        math |= {m, m + 'f', m + 'l'}
    math |= set('''abs labs llabs div exp10 exp10f rsqrt rsqrtf sincos sincosf sigmoid normf norm3d rcbrt sinpi
      cospi erfinv erfcinv isnan isinf isfinite signbit fpclassify isnormal'''.split())
    cuda = '''threadIdx blockIdx blockDim gridDim warpSize dim3 min max umin umax llmin llmax atomicAdd atomicSub
      atomicExch atomicMin atomicMax atomicCAS atomicAnd atomicOr atomicXor half half2 nv_bfloat16 nv_bfloat162
      make_float2 make_float4 make_int2 make_int4 make_half2 std'''.split()
    for t in 'char uchar short ushort int uint long ulong longlong ulonglong float double'.split():
        cuda += [t + n for n in '1234']
    libc = '''memcpy memset memmove memcmp strlen strcmp strncmp strcpy malloc calloc realloc free abort exit
      printf fprintf puts size_t ptrdiff_t intptr_t uintptr_t intmax_t uintmax_t int8_t int16_t int32_t int64_t
      uint8_t uint16_t uint32_t uint64_t float_t double_t max_align_t main err stream linux unix errno stdin
      stdout stderr assert EOF offsetof'''.split()
    names |= set(c_kw) | set(cpp_kw) | math | set(cuda) | set(libc)
    names = sorted(n for n in names if re.fullmatch(r'[A-Za-z][A-Za-z0-9_]*', n))
    c_how = c_callees(names)
    host = sorted(libc_functions() - set(names))
    host_how = c_callees(host)
    out = ['/* c_reserved.c - the names the generated C and CUDA cannot use for a',
           ' * variable, buffer or function as they are (issue 11, class 5), sorted for',
           ' * bsearch: the keywords of C11 and C++20 (CUDA is C++), every macro that',
           ' * gcc and clang (C11 and GNU mode, OpenMP) and nvcc define with the headers',
           ' * the output includes and the usual libc ones, the C99 math functions in',
           ' * each width and the CUDA ones the code may call, the CUDA built-in',
           ' * variables and vector types, the libc names and types the code uses, and',
           ' * the names the CUDA host code declares (err, stream).  Beyond the table:',
           ' * the prefixes tir_ (the generator\'s helpers) and cuda (the CUDA runtime',
           ' * API), and what C reserves itself (__x, _X).  Written by',
           ' * scripts/reserved_names.py (%d names). */' % len(names),
           '#include <stdlib.h>', '#include <string.h>', '', '#include "codegen_c/c_printer.h"', '',
           'static const char *const names[] = {']
    out += wrapped('"%s"' % n for n in names)
    out += ['};', '',
            'static int cmp(const void *k, const void *e) { return strcmp((const char *)k, *(const char *const *)e); }',
            '', 'bool cg_reserved_name(const char *n) {',
            '  if (!strncmp(n, "tir_", 4) || !strncmp(n, "__", 2) || !strncmp(n, "cuda", 4)) return true;',
            "  if (n[0] == '_' && n[1] >= 'A' && n[1] <= 'Z') return true;",
            '  return bsearch(n, names, sizeof names / sizeof names[0], sizeof names[0], cmp) != NULL;', '}', '']
    out += ['/* how the generated C can call a reserved name (T.call_extern): the header',
            ' * that declares it as a function or function-like macro (math.h, stdint.h and',
            ' * string.h are always included), or a prototype of its own where no',
            ' * header tirc may include knows the name; any other reserved name (a keyword,',
            ' * type, object or constant) cannot be called (gcc -std=c11). */',
            'typedef struct {', '  const char *name;', '  char how;', '} callee;', '', 'static const callee c_callees[] = {']
    out += wrapped('{"%s", \'%s\'}' % (n, c_how[n]) for n in names)
    out += ['};', '',
            "/* 'h': declared by a header always included; 's': by <stdio.h>; 'l': by",
            " * <stdlib.h>; 'p': unknown to C's headers, called through a prototype;",
            " * 'x': cannot be called; 0: not a reserved name */",
            'char cg_c_callee(const char *n) {',
            "  const callee *e = bsearch(n, c_callees, sizeof c_callees / sizeof c_callees[0], sizeof c_callees[0], cmp);",
            "  return e ? e->how : 0;", '}', '']
    out += ['/* the other functions of the host C library headers nvcc\'s cuda_runtime.h',
            ' * includes (%s; GNU mode), with how C calls' % ', '.join(HOST_HEADERS),
            ' * each (as c_callees): a kernel cannot call them, and a generated function',
            ' * is not named after one.  %d names. */' % len(host),
            'static const callee host_fns[] = {']
    out += wrapped('{"%s", \'%s\'}' % (n, host_how[n]) for n in host)
    out += ['};', '', "/* how C calls a host C library function of host_fns; 0 where n is none */",
            'char cg_host_libc(const char *n) {',
            "  const callee *e = bsearch(n, host_fns, sizeof host_fns / sizeof host_fns[0], sizeof host_fns[0], cmp);",
            "  return e ? e->how : 0;", '}', '']
    kws = sorted(set(c_kw) | set(cpp_kw))
    out += ['/* the keywords of C11 and C++20 (alternative tokens such as `not` among them) */',
            'static const char *const keywords[] = {']
    out += wrapped('"%s"' % n for n in kws)
    out += ['};', '', 'bool cg_keyword(const char *n) {',
            '  return bsearch(n, keywords, sizeof keywords / sizeof keywords[0], sizeof keywords[0], cmp) != NULL;',
            '}', '']
    with open(OUT, 'w') as f:
        f.write('\n'.join(out))
    print('%s: %d names' % (OUT, len(names)))


if __name__ == '__main__':
    main()
