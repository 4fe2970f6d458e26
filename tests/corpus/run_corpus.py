"""run_corpus.py TIRC [--full] - TIR that TVM itself writes, checked against TVM.

gen_corpus.py builds programs from tvm.topi operators with
te.create_prim_func (static and symbolic shapes) and prints each, then each
stage of TVM's own lowering (LowerInitBlock, PlanAndUpdateBufferAllocation
Location, ConvertBlocksToOpaque, CompactBufferAllocation, LowerMatchBuffer,
LowerOpaqueBlock, FlattenBuffer) as mod.script() prints it.  Then:
  - round trip: tirc reads every printed program, and TVM's reading of
    tirc's output is structurally equal to TVM's reading of the program;
  - stage by stage: tirc's pass on TVM's input of a stage is structurally
    equal to TVM's output of that stage (as they are, or once TVM's
    StmtSimplify has run on both, the issue's measure: a compacted index
    tirc folds to 0 where TVM keeps ax0 - ax0 is equal), or listed in known_differences.txt
    (program and pass, with the reason).
Fails on any refusal, crash, round-trip difference, or unlisted stage
difference; prints the counts per pass."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import lazy_stack  # noqa: F401  (before TVM reads a text)
import tvm

HERE = os.path.dirname(os.path.abspath(__file__))
ALIAS = {"LowerInitBlock": "lower_init", "PlanAndUpdateBufferAllocationLocation": "plan_alloc",
         "ConvertBlocksToOpaque": "to_opaque", "CompactBufferAllocation": "compact", "LowerMatchBuffer": "lower_match",
         "LowerOpaqueBlock": "lower_opaque", "FlattenBuffer": "flatten", "StmtSimplify": "simplify",
         "RemoveNoOp": "remove_noop", "LowerIntrin": "lower_intrin"}


SIMPLIFIED = [0]  # stages equal only after TVM's simplify of both sides


def simplified(x):
    """x after TVM's StmtSimplify (s_tir's for block-level functions)"""
    m = x if isinstance(x, tvm.IRModule) else tvm.IRModule({"main": x})
    for ns in (tvm.s_tir.transform, tvm.tirx.transform):
        try:
            return ns.StmtSimplify()(m)
        except Exception:  # noqa: BLE001
            continue
    return m


_PARSED = {}


def parse(text):
    """TVM's reading of text, once per text: each printed stage is read by
    the round trip and again as the expected output of its pass (TVM's
    parser is most of this script's time). An error is raised again."""
    if text not in _PARSED:
        try:
            _PARSED[text] = tvm.script.from_source(text)
        except Exception as e:  # noqa: BLE001
            _PARSED[text] = e
    if isinstance(_PARSED[text], Exception):
        raise _PARSED[text]
    return _PARSED[text]


def equal(a_text, b_text, after_simplify=False):
    """None where TVM reads the two texts as structurally equal (with
    after_simplify: or equal once TVM's StmtSimplify has run on both, the
    issue's measure for a stage, counted in SIMPLIFIED), else the first
    line of the difference"""
    a, b = parse(a_text), parse(b_text)
    try:
        tvm.ir.assert_structural_equal(a, b)
        return None
    except Exception as e:  # noqa: BLE001
        why = [l for l in str(e).splitlines() if l.strip()][0][:160]
    if not after_simplify:
        return why
    try:
        tvm.ir.assert_structural_equal(simplified(a), simplified(b))
        SIMPLIFIED[0] += 1
        return None
    except Exception:  # noqa: BLE001
        return why


def operator_of(name):
    """the operator a program is scheduled from: matmul for matmul_gpu and
    matmul_gpu_ctr (the same name for an unscheduled program)"""
    return re.sub(r"_gpu(_ctr)?$", "", name)


def tally(st, known, key, why):
    """count a stage into st ([equal, known]); 1 for a failure, printed"""
    if why is None and key in known:
        print(f"FAIL {key}: listed in known_differences.txt but now equal to TVM's (remove the line)")
        return 1
    if why is None:
        st[0] += 1
    elif key in known:
        st[1] += 1
    else:
        print(f"FAIL {key}: {why}")
        return 1
    return 0


def main():
    tirc = os.path.abspath(sys.argv[1])
    known = {}
    for line in open(os.path.join(HERE, "known_differences.txt")):
        if line.strip() and not line.startswith("#"):
            key, why = line.split(":", 1)
            known[key.strip()] = why.strip()
    fail = 0
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([sys.executable, os.path.join(HERE, "gen_corpus.py"), d, tirc], check=True, capture_output=True)
        files = sorted(glob.glob(os.path.join(d, "*.tir")))
        rt = 0
        unreadable = set()  # TVM's own prints that TVM cannot read back (its well-formedness check, a lost thread tag)
        for f in files:
            try:
                parse(open(f).read())
            except Exception:  # noqa: BLE001
                unreadable.add(f)
                continue
            r = subprocess.run([tirc, f], capture_output=True, text=True, timeout=60)
            why = f"exit {r.returncode}: {r.stderr.strip()[:160]}" if r.returncode else equal(r.stdout, open(f).read())
            if why:
                fail += 1
                print(f"FAIL round trip {os.path.basename(f)}: {why}")
            else:
                rt += 1
        print(f"corpus: {rt} of {len(files) - len(unreadable)} programs TVM printed round-trip through tirc "
              f"({len(unreadable)} more are prints TVM itself cannot read back)")
        # TVM's prints that TVM cannot read back, checked by gen_corpus.py:
        # tirc reads each as TVM reads it without its well-formedness check
        # (or, where TVM cannot read it at all, as the module itself), or
        # refuses it; a difference is listed as "NAME.tir print: reason"
        rep = [l.rstrip("\n").split("\t") for l in open(os.path.join(d, "unreadable.txt"))] \
            if os.path.exists(os.path.join(d, "unreadable.txt")) else []
        for name, res, why in rep:
            if res == "DIFFERS" and f"{name} print" in known:
                res = "known"
            elif res == "DIFFERS":
                fail += 1
                print(f"FAIL {name} (a print TVM cannot read back): tirc's print, read by TVM, is not TVM's module: {why}")
        nknown = sum(r[1] == "DIFFERS" and f"{r[0]} print" in known for r in rep)
        print(f"corpus: of those {len(unreadable)}, tirc reads {sum(r[1] == 'equal' for r in rep)} as TVM's own module "
              f"(TVM reads tirc's print back; {nknown} more with a known difference) and refuses {sum(r[1] == 'refused' for r in rep)}: "
              f"{' '.join(r[0] for r in rep if r[1] == 'refused')}")
        stats = {}
        for base in files:
            name = os.path.basename(base)[:-4]
            if "." in name:
                continue
            prev = base
            for k in range(1, 11):
                cur = glob.glob(os.path.join(d, f"{name}.{k}.*.tir"))
                if not cur:
                    break
                cur = cur[0]
                pname = cur.split(".")[-2]
                # a stage TVM cannot read back is not compared: its print may
                # not be its module (TVM prints an allocation that is not the
                # last of its sequence flat, and reads the rest as its body)
                if prev in unreadable or cur in unreadable:
                    prev = cur
                    continue
                st = stats.setdefault(pname, [0, 0, 0])
                r = subprocess.run([tirc, f"--passes={ALIAS[pname]}", prev], capture_output=True, text=True, timeout=60)
                before = SIMPLIFIED[0]
                why = f"exit {r.returncode}" if r.returncode else equal(r.stdout, open(cur).read(), after_simplify=True)
                st[2] += SIMPLIFIED[0] - before
                key = f"{name} {pname}"
                fail += tally(st, known, key, why)
                prev = cur
        # LowerCrossThreadReduction: tirc's lower_cross_thread on each
        # scheduled program against TVM's pass (whose output TVM's own
        # well-formedness check refuses: compared without it)
        st = stats.setdefault("LowerCrossThreadReduction", [0, 0, 0])
        for ctr in files:
            name = os.path.basename(ctr)[:-4]
            if not name.endswith("_gpu_ctr"):
                continue
            src = ctr[:-len("_ctr.tir")] + ".tir"
            r = subprocess.run([tirc, "--passes=lower_cross_thread", src], capture_output=True, text=True, timeout=60)
            why = f"exit {r.returncode}" if r.returncode else None
            if not why:  # TVM's pass run here: TVM cannot read its own print of argmax's (`or` in the reducer)
                try:
                    want = tvm.s_tir.transform.LowerCrossThreadReduction()(tvm.script.from_source(open(src).read()))
                    tvm.ir.assert_structural_equal(want, tvm.script.from_source(r.stdout, check_well_formed=False))
                except Exception as e:  # noqa: BLE001
                    why = [l for l in str(e).splitlines() if l.strip()][0][:160]
            key = f"{name[:-4]} LowerCrossThreadReduction"
            fail += tally(st, known, key, why)
        for p, (eq, kn, simp) in stats.items():
            print(f"corpus: {p}: {eq} equal to TVM's ({simp} of them once TVM's StmtSimplify has run on both), "
                  f"{kn} known differences")
        # by running (tirc's interpreter, seeded inputs): a scheduled program
        # (dlight's; and after LowerCrossThreadReduction, whose
        # T.tvm_thread_allreduce the interpreter runs across its threads)
        # computes what its operator computes, bit for bit; and every program
        # goes through tirc's default pipeline with each pass checked by running
        def run(f):
            r = subprocess.run([tirc, "--run", f], capture_output=True, text=True, timeout=120)
            return r.stdout if r.returncode == 0 else f"exit {r.returncode}: {r.stderr.strip()[:160]}"
        same = verified = 0
        for base in files:
            name = os.path.basename(base)[:-4]
            if "." in name:
                continue
            r = subprocess.run([tirc, "--passes=default", "--verify-exec", base], capture_output=True, text=True,
                               timeout=120)
            if r.returncode:
                fail += 1
                print(f"FAIL {name}: the default pipeline with --verify-exec: {r.stderr.strip()[:200]}")
            else:
                verified += 1
            op = operator_of(name)
            if op != name:
                want, got = run(os.path.join(d, op + ".tir")), run(base)
                if want != got:
                    fail += 1
                    print(f"FAIL {name}: computes otherwise than {op}: {got.strip()[:160]} / {want.strip()[:160]}")
                else:
                    same += 1
        print(f"corpus: {same} scheduled programs compute what their operators compute, bit for bit; "
              f"{verified} programs through the default pipeline, each pass checked by running")
        # every program scheduled for CUDA (dlight's thread bindings, shared
        # tiles fetched cooperatively, vectorized copies; the cross-thread
        # reductions through LowerThreadAllreduce's shared-memory trees) as
        # CUDA, compiled by nvcc where the toolkit is installed, two at a time
        if shutil.which("nvcc"):
            from concurrent.futures import ThreadPoolExecutor

            def build(base):
                name = os.path.basename(base)[:-4]
                cu = os.path.join(d, name + ".cu")
                r = subprocess.run([tirc, "--emit=cuda", f"--symbol={name}", base, "-o", cu], capture_output=True,
                                   text=True, timeout=120)
                if r.returncode == 0:
                    r = subprocess.run(["nvcc", "-arch=sm_80", "-Werror", "all-warnings", "-c", cu, "-o", cu + ".o"],
                                       capture_output=True, text=True, timeout=300)
                return name, r
            # a reduction over a thread-bound loop that lower_cross_thread
            # (second in the default pipeline) would not lower must be
            # refused by name (its CUDA would race), and its _gpu_ctr form
            # (TVM's pass's output) compile
            gpu_files = [b for b in files if re.search(r"_gpu(_ctr)?\.tir$", b)]
            names = {os.path.basename(b)[:-4] for b in gpu_files}
            # nvcc takes a second or more a file: make test builds every
            # other operator's two programs, make corpus-full (--full) all
            if "--full" not in sys.argv[2:]:
                ops = sorted({operator_of(n) for n in names})[::2]
                gpu_files = [b for b in gpu_files if operator_of(os.path.basename(b)[:-4]) in ops]
            built = refused = 0
            with ThreadPoolExecutor(2) as pool:
                for name, r in pool.map(build, gpu_files):
                    if r.returncode and "would race on CUDA" in r.stderr and name + "_ctr" in names:
                        refused += 1
                    elif r.returncode:
                        fail += 1
                        print(f"FAIL {name}: its CUDA: {r.stderr.strip()[:300]}")
                    else:
                        built += 1
            print(f"corpus: {built} programs scheduled for CUDA emitted as CUDA and compiled by nvcc (sm_80)"
                  f"{'' if '--full' in sys.argv[2:] else ' (every other operator: all with --full)'}; "
                  f"{refused} refused as reductions across threads that lower_cross_thread does not lower")
    print(f"corpus: {'ok' if not fail else f'{fail} failures'}")
    return 1 if fail else 0


sys.exit(main())
