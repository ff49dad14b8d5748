# augur's entry points. `make quickstart` and `make test` install the OpenCL
# packages they need (Debian/Ubuntu) when they are missing.
GO ?= go
export CGO_CFLAGS ?= -O2 -g -DCL_TARGET_OPENCL_VERSION=300

.PHONY: deps build test quickstart bench fuzz fuzz-short clean lib

deps:
	@./scripts/opencl-deps.sh

build: deps
	$(GO) build -o bin/augur ./cmd/augur

# Every fuzz target's seed corpus runs as a test here, and then the short
# fuzzing pass, counted in executions so that it cannot fail by chance
# (see fuzz-short); `make fuzz` fuzzes every target for longer.
test: deps
	$(GO) vet ./...
	$(GO) test -count=1 ./...
	@$(MAKE) --no-print-directory fuzz-short

# libaugur for C, C++ and Python callers (include/augur.h, python/): the
# shared and static libraries. Go also writes its own headers (libaugur.h)
# beside them; callers include include/augur.h instead, copied here with
# augur_types.h and augur.hpp so that bin/ is self-contained.
lib:
	$(GO) build -buildmode=c-shared -o bin/libaugur.so ./libaugur
	$(GO) build -buildmode=c-archive -o bin/libaugur.a ./libaugur
	mkdir -p bin/include
	cp include/augur.h include/augur_types.h include/augur.hpp bin/include/

quickstart: build
	./bin/augur quickstart

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./runtime ./predict ./train

# Every fuzz target for FUZZTIME each, with Go's defaults: each new
# interesting input is minimised (up to 60 s), which the seed corpora allow
# by being small (a few hundred bytes; FuzzReadFile fuzzes edits to a
# small dataset file rather than the file itself). A failing input is
# saved under the package's testdata/fuzz; rerun it with
# `go test -run 'Fuzz.../HASH'`.
FUZZTIME ?= 30s
fuzz: deps
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "$$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

# A short fuzzing pass: the cheap targets (parsers
# of one line or one small file, whose packages build quickly with the
# fuzzer's instrumentation) for FUZZSHORT each. The pass is counted in
# executions, one worker, so that it cannot fail by chance: a duration
# (-fuzztime 3s) races the fuzzing workers against the clock, and under
# load a worker still busy at the deadline fails the target with "context
# deadline exceeded" or "fuzzing process hung or terminated unexpectedly"
# and no failing input (golang/go#51484, #56238; what FuzzRead did once).
# With counts, load only makes the pass slower.
FUZZSHORT ?= 500x
FUZZ_CHEAP = ./eval:FuzzRebuildRuns ./features:FuzzParseTask ./features:FuzzParseConfig \
	./features:FuzzParseWisdomLine ./features:FuzzParseSignature ./features:FuzzPythonValues ./features:FuzzPythonLists \
	./predict/lightgbm:FuzzRead ./collect/record:FuzzReadFile
fuzz-short:
	@for t in $(FUZZ_CHEAP); do \
		pkg=$${t%%:*}; f=$${t#*:}; \
		$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZSHORT) -fuzzminimizetime 100x -parallel 1 $$pkg > /dev/null || { echo "fuzz-short: $$pkg $$f failed"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZSHORT) -fuzzminimizetime 100x -parallel 1 $$pkg; exit 1; }; \
	done

clean:
	rm -rf bin augur-quickstart
	rm -f python/augur/libaugur.so
