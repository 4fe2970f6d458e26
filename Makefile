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
CFLAGS_ALL := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -fPIC $(OPT) $(SAN) \
              -Iinclude -Isrc $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL := $(PKG_LIBS) -lm $(SAN)

SRCS    := $(sort $(wildcard src/*/*.c))
OBJS    := $(SRCS:%.c=$(BUILD)/obj/%.o)
TS_OBJS := $(BUILD)/obj/grammar/parser.o $(BUILD)/obj/grammar/scanner.o
LIB_A   := $(BUILD)/lib/libtir.a
LIB_SO  := $(BUILD)/lib/libtir.so
TIRC    := $(BUILD)/bin/tirc
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c))
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tests/tools/%)
BENCH_SRCS := $(sort $(wildcard bench/*.c))
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)

.PHONY: all deps test unit cli aot aot-full golden oracle codegen analyzer-diff fuzz asan valgrind run clean bench grammar
all: $(LIB_A) $(LIB_SO) $(TIRC) $(TOOL_BINS)

deps:
	scripts/deps.sh

grammar: $(GRAMMAR_SRC)/parser.c
$(GRAMMAR_SRC)/parser.c:
	scripts/fetch-grammar.sh build/deps/tree-sitter-python

$(BUILD)/obj/grammar/%.o: $(GRAMMAR_SRC)/parser.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -fPIC $(SAN) -w -I$(GRAMMAR_SRC) -c $(GRAMMAR_SRC)/$*.c -o $@

$(BUILD)/obj/%.o: %.c $(wildcard include/tir/*.h) $(wildcard src/*/*.h) | $(GRAMMAR_SRC)/parser.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(LIB_A): $(OBJS) $(TS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIB_SO): $(OBJS) $(TS_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(LDLIBS_ALL)

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

cli: $(TIRC)
	@tests/cli/run.sh $(TIRC)

aot: $(TIRC)
	@tests/aot/run.sh $(TIRC)

aot-full: $(TIRC)
	@FULL=1 tests/aot/run.sh $(TIRC)

analyzer-diff: all
	@python3 tests/oracle/diff_analyzer.py

fuzz: $(TIRC)
	@python3 tests/fuzz/smoke.py $(TIRC) $(FUZZ_N)

test: all
	@$(MAKE) --no-print-directory unit cli golden codegen aot oracle analyzer-diff fuzz

asan:
	ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:exitcode=98:print_stacktrace=1 $(MAKE) BUILD=build-asan OPT="-O1 -g" SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" all unit cli golden fuzz FUZZ_N=6
	@echo "asan: suite clean"

valgrind: all $(UNIT_BINS)
	@VALGRIND=1 scripts/run-unit.sh $(UNIT_BINS)
	@VALGRIND=1 tests/run-golden.sh $(TIRC)

bench: $(BENCH_BINS) $(TIRC)
	@for b in $(BENCH_BINS); do echo "== $$b"; $$b || exit 1; done
	@echo "== bench/bench_vs_tvm.py"; python3 bench/bench_vs_tvm.py

run: $(TIRC)
	@echo "== before: examples/relu.tir as tirc reads it (tirc examples/relu.tir)"
	@$(TIRC) examples/relu.tir
	@echo
	@echo "== after: tirc --passes=compact,lower_match examples/relu.tir"
	@$(TIRC) --passes=compact,lower_match examples/relu.tir

clean:
	rm -rf build build-asan
