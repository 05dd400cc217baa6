# Kindling's human entry points. The two you need: `make run` and `make test`.
# Everything else is in the README's table. Variables: BUILD (build folder), CH (chapter, e.g. 02),
# EX (one exercise, e.g. ch02.ex3), REFERENCE (chapters whose reference answers your library takes,
# e.g. 01,02), MINE=1 (`make run` on your own library), SOLUTIONS=1 (grade the reference solutions),
# FORCE=1 (`make exercises` over edited files, after a backup), DEST (handout folder), NATIVE=OFF,
# INSECURE=1 (`make grade` without a working sandbox: untrustworthy scores).
BUILD     ?= build
NATIVE    ?= ON
JOBS      ?= $(shell nproc)
PYTHON    := /usr/bin/python3
CMAKE_FLAGS ?=
comma := ,
empty :=
space := $(empty) $(empty)

# Your library: in the full tree a second build folder whose layers take your exercises/ (the reference
# only for the chapters in REFERENCE, none by default); in a handout the build folder itself (REFERENCE
# defaults to the chapters your instructor shipped).
ifeq ($(wildcard .kindling-handout),)
  LEARNER_BUILD ?= $(BUILD)-learner
  REFERENCE     ?= none
  LEARNER_ARGS  := -DKINDLING_LEARNER_BUILD=ON -DKINDLING_REFERENCE=$(REFERENCE) -DKINDLING_NATIVE=$(NATIVE)
else
  LEARNER_BUILD ?= $(BUILD)
  SHIPPED       := $(patsubst solutions/ch%,%,$(wildcard solutions/ch[0-9][0-9]))
  REFERENCE     ?= $(or $(subst $(space),$(comma),$(strip $(SHIPPED))),none)
  LEARNER_ARGS  := -DKINDLING_REFERENCE=$(REFERENCE) -DKINDLING_NATIVE=$(NATIVE)
  MINE          := 1
endif
# INSECURE=1: grade even where the sandbox (bubblewrap) does not work -- scores are then not trustworthy.
GRADE = $(PYTHON) scripts/grade.py --build $(LEARNER_BUILD) $(foreach a,$(LEARNER_ARGS),--cmake-arg=$(a)) \
        --jobs $(JOBS) --out $(LEARNER_BUILD)/grade $(if $(INSECURE),--insecure)

.PHONY: all deps configure build run test test-slow grade milestone hint scratch book book-html readmes handout bench sanitize tsan \
        fuzz ci-extra clang-configure clean exercises help

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
## (MINE=1: the programs run on your own library and stop at the first piece you have not written)
ifeq ($(MINE),)
run: build
	@bash scripts/run-chapters.sh $(BUILD)
	@$(MAKE) --no-print-directory book
	@echo
	@echo "The book is ready: open file://$(CURDIR)/$(BUILD)/book/html/index.html"
else
run: deps
	@cmake -S . -B $(LEARNER_BUILD) -G Ninja $(LEARNER_ARGS) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(LEARNER_BUILD) -j $(JOBS)
	@bash scripts/run-chapters.sh $(LEARNER_BUILD)
endif

## test: build and run the whole suite (unit, parity, grading, book, consumer project)
## (the grader's slow checks run in `make test-slow`, which CI runs too)
test: build
	@cd $(BUILD) && ctest -j $(JOBS) --output-on-failure --timeout 900 -LE slow

## test-slow: the grader's slow checks: every tree of every chapter, the red team, the planted
## milestones, the handout round trip (each builds and grades whole trees: ~25 min on 2 cores)
test-slow: build
	@cd $(BUILD) && ctest -j $(JOBS) --output-on-failure --timeout 1800 -L slow

## exercises: regenerate exercises/ from solutions/ (never over a file you edited; FORCE=1 backs it up first)
exercises:
	@$(PYTHON) scripts/make_exercises.py $(if $(FORCE),--force)

## grade: grade your exercises/ in your library (CH=02 one chapter, EX=ch02.ex3 one exercise,
## REFERENCE=01,02 the reference for chapters you skip; SOLUTIONS=1 grades solutions/)
ifeq ($(SOLUTIONS),)
grade: deps
	@$(GRADE) $(if $(CH),--chapter $(CH)) $(if $(EX),--exercise $(EX))
else
grade: configure
	@$(PYTHON) scripts/grade.py --build $(BUILD) --tree solutions $(if $(CH),--chapter $(CH)) \
	  $(if $(EX),--exercise $(EX)) --jobs $(JOBS) --out $(BUILD)/grade $(if $(INSECURE),--insecure)
endif

## milestone: run the chapter's milestone on your library (CH=05: your chapters 1-5 train Fashion-MNIST)
milestone: deps
	@$(GRADE) --milestone-only $(if $(CH),--chapter $(CH))

## hint: the hints of one exercise (EX=ch02.ex3): the concept and the approach; LEVEL=3 adds the
## near-answer (LEVEL=1: the concept only). `make grade` shows the first after an attempt
hint:
	@$(PYTHON) scripts/grade.py --hint "$(EX)" $(if $(LEVEL),--hint-level $(LEVEL))

## scratch: a scratch program on your library (CH=07): the first time, copies the chapter's template
## (chapters/NN-*/mine.cpp.template, else chapters/mine.cpp.template) to chapters/NN-*/mine.cpp, never over
## yours; then builds it (target chNN_mine) and runs it, with ARGS="..." as its arguments
scratch: deps
	@test -n "$(CH)" || { echo "make scratch CH=07: name the chapter (two digits)" >&2; exit 2; }
	@dir=$$(ls -d chapters/$(CH)-* 2>/dev/null | head -n 1); \
	 test -n "$$dir" || { echo "make scratch: no chapter $(CH) in chapters/ (CH=07: two digits)" >&2; exit 2; }; \
	 if [ ! -e "$$dir/mine.cpp" ]; then \
	   tpl="$$dir/mine.cpp.template"; [ -e "$$tpl" ] || tpl=chapters/mine.cpp.template; \
	   cp "$$tpl" "$$dir/mine.cpp" && echo "make scratch: wrote $$dir/mine.cpp from $$tpl; it is yours now"; \
	 fi
	@cmake -S . -B $(LEARNER_BUILD) -G Ninja $(LEARNER_ARGS) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(LEARNER_BUILD) -j $(JOBS) --target ch$(CH)_mine
	@$(LEARNER_BUILD)/chapters/ch$(CH)_mine $(ARGS)

## book: Doxygen + Sphinx (-W) into build/book/html (+ singlehtml/), with program outputs captured now.
## Builds only what the book needs (the library and the chapter programs, not the tests).
book: configure
	@cmake --build $(BUILD) -j $(JOBS) --target kindling_book_programs
	@bash scripts/build-book.sh $(BUILD)

## book-html: the same, without the one-page book (the edit loop: an edit to a chapter's prose
## rebuilds in seconds; the one-page build alone re-renders every chapter).
book-html: configure
	@cmake --build $(BUILD) -j $(JOBS) --target kindling_book_programs
	@bash scripts/build-book.sh $(BUILD) --no-single

## readmes: every chapter's README.md (what a Git host shows: listings and outputs inlined) from its
## chapter.md, with the outputs and figures of this build's book (it builds the book first)
readmes: book
	@$(PYTHON) scripts/make-readmes.py --outputs $(abspath $(BUILD))/book/outputs

## handout: a student tree without solutions/ and hidden tests (DEST=folder; REFERENCE=01,02 also ships
## those chapters' reference answers)
handout:
	@bash scripts/handout.sh $(if $(DEST),$(DEST),$(BUILD)/handout) $(filter-out none,$(subst $(comma),$(space),$(if $(filter command line,$(origin REFERENCE)),$(REFERENCE))))

## bench: every benchmark in bench/, printed as BENCH lines with ratios vs peers
bench:
	@$(MAKE) --no-print-directory build >&2  # the build's messages to stderr: `make bench > file` is a capture
	@bash scripts/run-bench.sh $(BUILD)

## sanitize: the unit and parity suites under AddressSanitizer + UndefinedBehaviorSanitizer
## (also LeakSanitizer and static initialisation order). Only our binaries are instrumented: the
## parity oracle (/usr/bin/python3) just inherits the options, which it ignores.
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:check_initialization_order=1:strict_init_order=1:allocator_may_return_null=1 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
sanitize: deps
	@cmake -S . -B $(BUILD)-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKINDLING_SANITIZE=ON -DKINDLING_TEST_TIMEOUT=600 \
	  -DKINDLING_NATIVE=$(NATIVE) >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS)
	@cd $(BUILD)-asan && $(SAN_ENV) ctest -j $(JOBS) -L "unit|parity" --output-on-failure

## tsan: the unit tests tagged [threads] (DataLoader workers, shared generator, per-thread grad
## mode) under ThreadSanitizer, with the small-object pool and the caching allocators compiled in
## as in a normal build (only AddressSanitizer turns them off). Only the unit-test programs are built: a test whose program is not
## built would silently not be discovered, so every layer's test_<layer> is listed.
tsan: deps
	@cmake -S . -B $(BUILD)-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKINDLING_TSAN=ON \
	  -DKINDLING_NATIVE=$(NATIVE) >/dev/null
	@cmake --build $(BUILD)-tsan -j $(JOBS) --target test_tensor test_autograd test_nn test_data test_train test_amp \
	  test_debug test_cuda test_jit $(if $(wildcard /usr/bin/mpicc),test_distributed)
	@cd $(BUILD)-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest -j $(JOBS) -L "threads" --output-on-failure

## fuzz: the libFuzzer targets of tests/fuzz (npy, safetensors, IDX, CSV, image, checkpoint), built
## with clang under ASan+UBSan in $(BUILD)-clang, each run for FUZZ_SECONDS (default 600 s).
## FUZZ_TARGETS="npy csv" picks some. What they discover stays in $(BUILD)-clang/fuzz/.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=
# Sanitized tests run several times slower (the kernel emulator's fibers most): 600 s per test, not 120.
CLANG_FLAGS := -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
               -DKINDLING_FUZZ=ON -DKINDLING_BUILD_BOOK_PROGRAMS=OFF -DKINDLING_TEST_TIMEOUT=600
clang-configure: deps
	@cmake -S . -B $(BUILD)-clang -G Ninja $(CLANG_FLAGS) -DKINDLING_NATIVE=$(NATIVE) >/dev/null

fuzz: clang-configure
	@cmake --build $(BUILD)-clang -j $(JOBS) --target fuzz_targets
	@bash scripts/run-fuzzers.sh $(BUILD)-clang $(FUZZ_SECONDS) $(FUZZ_TARGETS)

## ci-extra: what CI runs after `make test` (.ci/run): the project built with clang (learners on
## macOS use it) under AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer, its unit tests
## (ctest -L unit: every layer's tests, ONNX's conformance models through the importer, the exporter's
## round trips and the fuzzers' regression replays) run, then each fuzzer for 20 s. This is the part of `make sanitize`
## that fits CI's time; `make sanitize` (g++, unit + parity) stays the full check before a release.
UNIT_TEST_PROGRAMS := test_tensor test_autograd test_nn test_data test_train test_amp test_debug test_cuda \
                      test_vision test_jit test_distributed test_text onnx_conformance onnx_export_models bad_inputs \
                      $(foreach t,npy safetensors idx csv image checkpoint onnx,fuzz_replay_$(t))
ci-extra: clang-configure
	@cmake --build $(BUILD)-clang -j $(JOBS) --target $(UNIT_TEST_PROGRAMS) fuzz_targets
	@cd $(BUILD)-clang && $(SAN_ENV) ctest -j $(JOBS) -L unit --output-on-failure --timeout 900
	@bash scripts/run-fuzzers.sh $(BUILD)-clang 20

clean:
	rm -rf $(BUILD) $(BUILD)-*
