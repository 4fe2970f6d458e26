# tirc - a tensor-IR lowering pass library in C.  `make deps`, then `make test`.
CC      ?= cc
BUILD   ?= build
PKGS    := tree-sitter isl jansson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)
GRAMMAR := $(BUILD)/deps/tree-sitter-python
GRAMMAR_SRC := build/deps/tree-sitter-python/src
SAN     ?=
FUZZ_N  ?= 12
OPT     ?= -O2 -g
# the library exports only its public API: include/tir/*.h mark it visible,
# and scripts/libtir.map (tir_* and TIR_*) also hides the grammar's symbols
CFLAGS_ALL := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -fPIC -fvisibility=hidden $(OPT) $(SAN) \
              -Iinclude -Isrc $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL := $(PKG_LIBS) -lm $(SAN)

SRCS    := $(sort $(wildcard src/*/*.c))
OBJS    := $(SRCS:%.c=$(BUILD)/obj/%.o)
TS_OBJS := $(BUILD)/obj/grammar/parser.o $(BUILD)/obj/grammar/scanner.o
LIB_A   := $(BUILD)/lib/libtir.a
VERSION := $(shell sed -n 's/^\#define TIR_VERSION "\(.*\)"/\1/p' include/tir/tir.h)
SOMAJOR := $(word 1,$(subst ., ,$(VERSION)))
SOMINOR := $(word 2,$(subst ., ,$(VERSION)))
SONAME  := libtir.so.$(SOMAJOR)
LIB_SO_REAL := $(BUILD)/lib/libtir.so.$(SOMAJOR).$(SOMINOR)
LIB_SO  := $(BUILD)/lib/libtir.so
PREFIX  ?= /usr/local
DESTDIR ?=
TIRC    := $(BUILD)/bin/tirc
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c))
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tests/tools/%)
BENCH_SRCS := $(sort $(wildcard bench/*.c))
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)

.PHONY: check-full codegen-full hostile-full scale-hunt sweep-full check-exp corpus-full bench-gpu-gen golden-reclaim chunked-read emit-sweep bench-ops memplan-tvm exec exec-tvm exec-full fuzz-exec fuzz-exec-long bench-memplan bigdeep bigdeep-long install uninstall install-check python-test hostile corpus all deps test unit cli aot aot-full golden oracle codegen analyzer-diff fuzz fuzz-tvm op-matrix op-matrix-sample asan valgrind run clean bench grammar
all: $(LIB_A) $(LIB_SO) $(TIRC) $(TOOL_BINS)

deps:
	scripts/deps.sh

grammar: $(GRAMMAR_SRC)/parser.c
$(GRAMMAR_SRC)/parser.c:
	scripts/fetch-grammar.sh build/deps/tree-sitter-python

$(BUILD)/obj/grammar/%.o: $(GRAMMAR_SRC)/parser.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -fPIC -fvisibility=hidden $(SAN) -w -I$(GRAMMAR_SRC) -c $(GRAMMAR_SRC)/$*.c -o $@

$(BUILD)/obj/%.o: %.c $(wildcard include/tir/*.h) $(wildcard src/*/*.h) | $(GRAMMAR_SRC)/parser.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(LIB_A): $(OBJS) $(TS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIB_SO_REAL): $(OBJS) $(TS_OBJS) scripts/libtir.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=scripts/libtir.map -o $@ $(filter %.o,$^) $(LDLIBS_ALL)

$(LIB_SO): $(LIB_SO_REAL)
	ln -sf $(notdir $(LIB_SO_REAL)) $(BUILD)/lib/$(SONAME)
	ln -sf $(SONAME) $@

$(TIRC): tools/tirc.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< -o $@ $(LIB_A) $(LDLIBS_ALL)

$(BUILD)/tests/%: tests/unit/%.c $(LIB_A) tests/unit/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CHECK_CFLAGS) -Itests/unit $< -o $@ $(LIB_A) $(CHECK_LIBS) $(LDLIBS_ALL)

$(BUILD)/tests/tools/%: tests/tools/%.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< -o $@ $(LIB_A) $(LDLIBS_ALL)

$(BUILD)/bench/%: bench/%.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< -o $@ $(LIB_A) $(LDLIBS_ALL)

unit: $(UNIT_BINS)
	@scripts/run-unit.sh $(UNIT_BINS)

golden: $(TIRC)
	@tests/run-golden.sh $(TIRC)

oracle: $(TIRC)
	@python3 tests/oracle/run_oracle.py $(TIRC)

codegen: $(TIRC)
	@tests/codegen/run.sh $(TIRC)

# codegen with the CUDA built for sm_90 as well as sm_80
codegen-full: $(TIRC)
	@FULL=1 tests/codegen/run.sh $(TIRC)
	@tests/exp/run.sh $(TIRC) 257

# tir_exp_f32 (the generated C's float32 e^x) on all 2^32 floats: a few minutes
check-exp: $(TIRC)
	@tests/exp/run.sh $(TIRC) 1

cli: $(TIRC)
	@tests/cli/run.sh $(TIRC)

aot: $(TIRC)
	@tests/aot/run.sh $(TIRC)

install-check: all
	@tests/install/run.sh

hostile: $(TIRC)
	@tests/hostile/run.sh $(TIRC)

# with the CUDA of every input that gives C built by nvcc too
hostile-full: $(TIRC)
	@FULL=1 tests/hostile/run.sh $(TIRC)

corpus: $(TIRC)
	@python3 tests/corpus/run_corpus.py $(TIRC)
	@tests/corpus/run_parallel.sh $(TIRC) tests/corpus/tensor_intrin.py tests/corpus/tvm_source.py tests/corpus/topi_sweep.py tests/corpus/constructs.py

python-test: all
	@tests/python/run.sh

# the long forms of make test's sampled targets, one after another (about
# an hour): every corpus text, every input's C and CUDA built, the slow runs
check-full: all
	@$(MAKE) --no-print-directory hostile-full corpus-full sweep-full exec-full aot-full codegen-full op-matrix

aot-full: $(TIRC)
	@FULL=1 tests/aot/run.sh $(TIRC)

analyzer-diff: all
	@python3 tests/oracle/diff_analyzer.py

# make corpus's long form: every scheduled program's CUDA, the topi sweep and
# TVM's own kernels with their CUDA built by nvcc, every construct-sweep text
# (about 40 minutes)
corpus-full: $(TIRC)
	@python3 tests/corpus/run_corpus.py $(TIRC) --full
	@python3 tests/corpus/topi_sweep.py $(TIRC) --full
	@python3 tests/corpus/tvm_source.py $(TIRC) --full
	@python3 tests/corpus/relax_sweep.py $(TIRC) --full
	@CONSTRUCTS_FULL=1 python3 tests/corpus/constructs.py $(TIRC)

# the interpreter (docs/exec.md): its own tests, the C against it, every
# golden input of tests/passes/ with --verify-exec; exec-full adds the slow ones
exec: all
	@tests/exec/run.sh $(TIRC)
	@python3 tests/exec/jam_stress.py $(BUILD)/tests/tools/exec_harness $(TIRC) 60 1

exec-full: all
	@FULL=1 TIMEOUT=600 tests/exec/run.sh $(TIRC)

# tirc's and TVM's pass outputs run against their inputs (needs apache-tvm)
exec-tvm: all
	@python3 tests/exec/tvm_diff.py $(TIRC) $$(find tests/passes -name '*.tir' | sort) tests/exec/tvm_let_binding.tir tests/exec/tvm_let_scalar.tir tests/exec/tvm_spatial_pool.tir

# the differential fuzzer (tests/fuzz/fuzz_exec.c): a short run in make test,
# FUZZ_EXEC_N programs from FUZZ_EXEC_SEED for the long one
FUZZ_EXEC := $(BUILD)/tests/fuzz_exec
$(FUZZ_EXEC): tests/fuzz/fuzz_exec.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< -o $@ $(LIB_A) $(LDLIBS_ALL)

fuzz-exec: $(FUZZ_EXEC)
	@$(FUZZ_EXEC) --seed=1 --count=150 --c-every=5 --out=$(BUILD)/fuzz_exec

FUZZ_EXEC_N ?= 1000000
FUZZ_EXEC_SEED ?= 1000000
fuzz-exec-long: $(FUZZ_EXEC)
	@$(FUZZ_EXEC) --seed=$(FUZZ_EXEC_SEED) --count=$(FUZZ_EXEC_N) --c-every=100 --progress=10000 --out=$(BUILD)/fuzz_exec

# every test input through --emit=c and --emit=cuda: exit 0 or 1, errors placed
emit-sweep: $(TIRC)
	@tests/cli/emit_sweep.sh $(TIRC)

# the reader's chunked parse against its whole parse, on every test input
# (every other text of the construct corpus; sweep-full: all)
chunked-read: $(TIRC)
	@tests/cli/chunked_read.sh $(TIRC)

sweep-full: $(TIRC)
	@FULL=1 tests/cli/chunked_read.sh $(TIRC)
	@FULL=1 tests/cli/emit_sweep.sh $(TIRC)

fuzz: $(TIRC)
	@python3 tests/fuzz/smoke.py $(TIRC) $(FUZZ_N)

# TVM's operators and intrinsics over a matrix of operand types, read by
# tirc and by TVM (a silent change fails it); make test runs every sixteenth
# case, make op-matrix (and check-full) all 6,801
OP_MATRIX_EVERY ?= 1
op-matrix: $(TIRC)
	@python3 tests/fuzz/op_matrix.py $(TIRC) --every $(OP_MATRIX_EVERY)

op-matrix-sample: $(TIRC)
	@python3 tests/fuzz/op_matrix.py $(TIRC) --every 16

# mutants of the TVM-readable corpora read by tirc and by TVM side by side
# (silent changes, leniency, refusals: tests/fuzz/README.md); not in make test
FUZZ_TVM_N ?= 2000
FUZZ_TVM_SEED ?= 1
fuzz-tvm: $(TIRC)
	@python3 tests/fuzz/diff_tvm.py $(TIRC) $(BUILD)/fuzz_tvm --n $(FUZZ_TVM_N) --seed $(FUZZ_TVM_SEED)

# big and deep programs, their C compiled with -Werror and run (issue 11);
# the long run: make bigdeep-long BIGDEEP_TIME=3600 (CUDA through nvcc too)
BIGDEEP_N ?= 60
BIGDEEP_TIME ?= 3600
bigdeep: $(TIRC)
	@python3 tests/fuzz/bigdeep.py $(TIRC) $(BIGDEEP_N)

bigdeep-long: $(TIRC)
	@python3 tests/fuzz/bigdeep.py $(TIRC) --time $(BIGDEEP_TIME) --seed $$(date +%s) --cuda

# programs grown 1000x in one dimension each (bench/gen_huge.py), through
# tirc's commands at growing sizes: crashes, unclear errors, growth worse
# than linear, C that gcc -Werror refuses (not in make test: minutes)
SCALE_SIZES ?= 1000,4000,16000
scale-hunt: $(TIRC)
	@python3 bench/scale_hunt.py --sizes $(SCALE_SIZES)
	@python3 bench/scale_hunt.py --cc --sizes 1000

test: all
	@$(MAKE) --no-print-directory -j2 --output-sync=target corpus hostile codegen aot install-check exec emit-sweep chunked-read memplan-tvm fuzz op-matrix-sample bigdeep oracle python-test fuzz-exec golden golden-reclaim unit cli analyzer-diff

# the golden outputs again with the pipeline moving the live IR to a fresh
# ctx after every pass (docs/passes.md): the same text
golden-reclaim: $(TIRC)
	@echo "golden-reclaim: the golden tests with TIR_RECLAIM=always"
	@TIR_RECLAIM=always tests/run-golden.sh $(TIRC)

asan:
	TIR_RECLAIM=always ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:exitcode=98:print_stacktrace=1 $(MAKE) BUILD=build-asan OPT="-O1 -g" SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" all unit cli chunked-read emit-sweep golden fuzz exec fuzz-exec FUZZ_N=6
	@echo "asan: suite clean"

valgrind: all $(UNIT_BINS)
	@VALGRIND=1 scripts/run-unit.sh $(UNIT_BINS)
	@VALGRIND=1 tests/run-golden.sh $(TIRC)

# the GPU benchmark's inputs (TVM here; bench/gpu/run_gpu.sh builds and runs
# them on a GPU machine), the codegen kernels' CUDA for
# tests/codegen/gpu/run_gpu.sh FROM=build/gpu/codegen, and the corpus's
# dlight-scheduled programs as tirc's and TVM's CUDA for run_corpus_gpu.sh
bench-gpu-gen: $(TIRC)
	@python3 bench/gpu/gen_gpu.py $(BUILD)/gpu $(TIRC)
	@EMIT_TO=$(BUILD)/gpu/codegen bash tests/codegen/gpu/run_gpu.sh $(TIRC)
	@python3 tests/corpus/gen_corpus.py $(BUILD)/gpu/corpus_src $(TIRC) > /dev/null
	@python3 bench/gpu/gen_corpus_gpu.py $(BUILD)/gpu/corpus_src $(BUILD)/gpu/corpus $(TIRC)
	@mkdir -p $(BUILD)/gpu/lctr && cp bench/gpu/lctr_main.cu $(BUILD)/gpu/lctr/main.cu
	@$(TIRC) --emit=cuda --symbol=k tests/passes/lower_cross_thread/writeback_spatial_conjunct.tir -o $(BUILD)/gpu/lctr/k.cu
	@echo "on a GPU machine: sh bench/gpu/run_gpu.sh $(BUILD)/gpu; FROM=$(BUILD)/gpu/codegen bash tests/codegen/gpu/run_gpu.sh x sm_90; sh bench/gpu/run_corpus_gpu.sh $(BUILD)/gpu/corpus; (cd $(BUILD)/gpu/lctr && nvcc -arch=sm_90 -o lctr_main main.cu && ./lctr_main)"

bench: $(BENCH_BINS) $(TIRC)
	@for b in $(BENCH_BINS); do echo "== $$b"; $$b || exit 1; done
	@echo "== bench/bench_vs_tvm.py"; python3 bench/bench_vs_tvm.py

# generated C against TVM's LLVM build of the same TIR on tvm.topi operators
# (issue 12; needs apache-tvm; not in make test).  BENCH_RUNS calls each,
# BENCH_THREADS threads for both (1 by default: on a loaded machine a thread
# descheduled at OpenMP's barrier measures the machine, not the code)
BENCH_RUNS ?= 15
BENCH_THREADS ?= 1
bench-ops: $(TIRC)
	@OMP_NUM_THREADS=$(BENCH_THREADS) TVM_NUM_THREADS=$(BENCH_THREADS) python3 bench/bench_ops.py $(BENCH_RUNS)

# tirc's memory plan against TVM's StorageRewrite + MergeSharedMemoryAllocations (issue 13)
memplan-tvm: $(TIRC)
	@python3 tests/memplan/tvm_storage.py -q $(TIRC) examples/*.tir tests/codegen/*.tir tests/exec/*.tir $$(find tests/passes -name '*.tir' | sort)

bench-memplan: $(BUILD)/bench/bench_memplan
	@$(BUILD)/bench/bench_memplan

run: $(TIRC)
	@echo "== before: examples/relu.tir as tirc reads it (tirc examples/relu.tir)"
	@$(TIRC) examples/relu.tir
	@echo
	@echo "== after: tirc --passes=compact,lower_match examples/relu.tir"
	@$(TIRC) --passes=compact,lower_match examples/relu.tir

# make install PREFIX=/usr/local DESTDIR=; make uninstall removes exactly these
INST_HDRS := $(notdir $(wildcard include/tir/*.h))
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/tir $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(TIRC) $(DESTDIR)$(PREFIX)/bin/tirc
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/libtir.a
	install -m 755 $(LIB_SO_REAL) $(DESTDIR)$(PREFIX)/lib/$(notdir $(LIB_SO_REAL))
	ln -sf $(notdir $(LIB_SO_REAL)) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libtir.so
	install -m 644 $(addprefix include/tir/,$(INST_HDRS)) $(DESTDIR)$(PREFIX)/include/tir/
	install -m 644 docs/tirc.1 $(DESTDIR)$(PREFIX)/share/man/man1/tirc.1
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' scripts/tir.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tir.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/tirc $(DESTDIR)$(PREFIX)/lib/libtir.a \
	      $(DESTDIR)$(PREFIX)/lib/$(notdir $(LIB_SO_REAL)) $(DESTDIR)$(PREFIX)/lib/$(SONAME) \
	      $(DESTDIR)$(PREFIX)/lib/libtir.so $(DESTDIR)$(PREFIX)/lib/pkgconfig/tir.pc \
	      $(DESTDIR)$(PREFIX)/share/man/man1/tirc.1 $(addprefix $(DESTDIR)$(PREFIX)/include/tir/,$(INST_HDRS))
	-rmdir $(DESTDIR)$(PREFIX)/include/tir 2>/dev/null

clean:
	rm -rf build build-asan
