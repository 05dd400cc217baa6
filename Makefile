# Kindling's human entry points. The two you need: `make run` and `make test`.
# Everything else is in the README's table. Variables: BUILD (build folder), CH (chapter, e.g. 02),
# SOLUTIONS=1 (grade the reference solutions), DEST (handout folder), NATIVE=OFF (portable build).
BUILD     ?= build
NATIVE    ?= ON
JOBS      ?= $(shell nproc)
PYTHON    := /usr/bin/python3
CMAKE_FLAGS ?=

.PHONY: all deps configure build run test test-slow grade book handout bench sanitize tsan fuzz ci-extra clang-configure clean exercises help

all: build

help:
	@sed -n '1,/^$$/p' README.md >/dev/null; grep -E '^[a-z]+:' Makefile | cut -d: -f1 | tr '\n' ' '; echo

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DKINDLING_NATIVE=$(NATIVE) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

## run: build everything, run every chapter's programs in order, build the book
run: build
	@bash scripts/run-chapters.sh $(BUILD)
	@$(MAKE) --no-print-directory book
	@echo
	@echo "The book is ready: open file://$(CURDIR)/$(BUILD)/book/html/index.html"

## test: build and run the whole suite (unit, parity, grading, book, consumer project)
## (the slow handout round trip runs in `make test-slow`, which CI runs too)
test: build
	@cd $(BUILD) && ctest -j $(JOBS) --output-on-failure --timeout 900 -LE slow

## test-slow: tests that rebuild a second copy of the tree (the student handout)
test-slow: build
	@cd $(BUILD) && ctest -j $(JOBS) --output-on-failure --timeout 1800 -L slow

## exercises: regenerate exercises/ from solutions/
exercises:
	@$(PYTHON) scripts/make_exercises.py

## grade: grade exercises/ (SOLUTIONS=1 grades solutions/; CH=02 one chapter)
grade: configure
	@$(PYTHON) scripts/grade.py --build $(BUILD) $(if $(SOLUTIONS),--solutions) \
	  $(if $(CH),--chapter $(CH)) --jobs $(JOBS) --out $(BUILD)/grade

## book: Doxygen + Sphinx (-W) into build/book/html (+ singlehtml/), with program outputs captured now.
## Builds only what the book needs (the library and the chapter programs, not the tests).
book: configure
	@cmake --build $(BUILD) -j $(JOBS) --target kindling_book_programs
	@bash scripts/build-book.sh $(BUILD)

## handout: a student tree without solutions/ and hidden tests (DEST=folder)
handout:
	@bash scripts/handout.sh $(if $(DEST),$(DEST),$(BUILD)/handout)

## bench: every benchmark in bench/, printed as BENCH lines with ratios vs peers
bench: build
	@bash scripts/run-bench.sh $(BUILD)

## sanitize: the unit and parity suites under AddressSanitizer + UndefinedBehaviorSanitizer
## (also LeakSanitizer and static initialisation order). Only our binaries are instrumented: the
## parity oracle (/usr/bin/python3) just inherits the options, which it ignores.
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:check_initialization_order=1:strict_init_order=1:allocator_may_return_null=1 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
sanitize: deps
	@cmake -S . -B $(BUILD)-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKINDLING_SANITIZE=ON \
	  -DKINDLING_NATIVE=$(NATIVE) >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS)
	@cd $(BUILD)-asan && $(SAN_ENV) ctest -j $(JOBS) -L "unit|parity" --output-on-failure

## tsan: the unit tests tagged [threads] (DataLoader workers, shared generator, per-thread grad
## mode) under ThreadSanitizer. Only the unit-test programs are built: a test whose program is not
## built would silently not be discovered, so every layer's test_<layer> is listed.
tsan: deps
	@cmake -S . -B $(BUILD)-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKINDLING_TSAN=ON \
	  -DKINDLING_NATIVE=$(NATIVE) >/dev/null
	@cmake --build $(BUILD)-tsan -j $(JOBS) --target test_tensor test_autograd test_nn test_data test_train
	@cd $(BUILD)-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest -j $(JOBS) -L "threads" --output-on-failure

## fuzz: the libFuzzer targets of tests/fuzz (npy, safetensors, IDX, CSV, image, checkpoint), built
## with clang under ASan+UBSan in $(BUILD)-clang, each run for FUZZ_SECONDS (default 600 s).
## FUZZ_TARGETS="npy csv" picks some. What they discover stays in $(BUILD)-clang/fuzz/.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=
CLANG_FLAGS := -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
               -DKINDLING_FUZZ=ON -DKINDLING_BUILD_BOOK_PROGRAMS=OFF
clang-configure: deps
	@cmake -S . -B $(BUILD)-clang -G Ninja $(CLANG_FLAGS) -DKINDLING_NATIVE=$(NATIVE) >/dev/null

fuzz: clang-configure
	@cmake --build $(BUILD)-clang -j $(JOBS) --target fuzz_targets
	@bash scripts/run-fuzzers.sh $(BUILD)-clang $(FUZZ_SECONDS) $(FUZZ_TARGETS)

## ci-extra: what CI runs after `make test` (.ci/run): the project built with clang (learners on
## macOS use it) under AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer, its unit tests
## (ctest -L unit: every layer's tests and the fuzzers' regression replays) run, then each fuzzer
## for 30 s. This is the part of `make sanitize` that fits CI's time; `make sanitize` (g++, unit +
## parity) stays the full check before a release.
UNIT_TEST_PROGRAMS := test_tensor test_autograd test_nn test_data test_train \
                      bad_inputs $(foreach t,npy safetensors idx csv image checkpoint,fuzz_replay_$(t))
ci-extra: clang-configure
	@cmake --build $(BUILD)-clang -j $(JOBS) --target $(UNIT_TEST_PROGRAMS) fuzz_targets
	@cd $(BUILD)-clang && $(SAN_ENV) ctest -j $(JOBS) -L unit --output-on-failure --timeout 900
	@bash scripts/run-fuzzers.sh $(BUILD)-clang 30

clean:
	rm -rf $(BUILD) $(BUILD)-*
