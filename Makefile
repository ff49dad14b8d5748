# augur's entry points. `make quickstart` and `make test` install the OpenCL
# packages they need (Debian/Ubuntu) when they are missing.
GO ?= go
export CGO_CFLAGS ?= -O2 -g -DCL_TARGET_OPENCL_VERSION=300

.PHONY: deps build test quickstart bench fuzz clean lib

deps:
	@./scripts/opencl-deps.sh

build: deps
	$(GO) build -o bin/augur ./cmd/augur

test: deps
	$(GO) vet ./...
	$(GO) test -count=1 ./...

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

# Every fuzz target for FUZZTIME each. Minimizing each new interesting
# input (Go's default, up to 60 s an input) stalled the targets whose seeds
# are whole dataset files: FuzzReadFile ran 5 inputs in 60 s, and 1,300 a
# second without it. A failing input is saved unminimized; rerun it with
# `go test -run 'Fuzz.../HASH'`.
FUZZTIME ?= 30s
fuzz: deps
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "$$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 0 $$pkg || exit 1; \
		done; \
	done

clean:
	rm -rf bin augur-quickstart
	rm -f python/augur/libaugur.so
