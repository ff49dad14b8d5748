# augur's entry points. `make quickstart` and `make test` install the OpenCL
# packages they need (Debian/Ubuntu) when they are missing.
GO ?= go
export CGO_CFLAGS ?= -O2 -g -DCL_TARGET_OPENCL_VERSION=300

.PHONY: deps build test quickstart bench fuzz fuzz-short clean lib install install-files uninstall wheel

# Where `make install` puts augur (DESTDIR is prefixed to each, for staging).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
# Where build and lib write, and install-files copies from.
BUILT ?= bin
PYTHON ?= python3
# libaugur's soname carries the ABI of its structs (include/augur_types.h),
# so that a caller built against one ABI never loads another.
AUGUR_ABI := $(shell sed -n 's/^.define AUGUR_ABI \([0-9][0-9]*\).*/\1/p' include/augur_types.h)
VERSION := $(shell sed -n 's/^const Version = "\(.*\)"/\1/p' features/version.go)

deps:
	@./scripts/opencl-deps.sh

build: deps
	$(GO) build -o $(BUILT)/augur ./cmd/augur

# Every fuzz target's seed corpus runs as a test here, and then the short
# fuzzing pass, counted in executions so that it cannot fail by chance
# (see fuzz-short); `make fuzz` fuzzes every target for longer.
test: deps
	$(GO) vet ./...
	$(GO) test -count=1 ./...
	@$(MAKE) --no-print-directory fuzz-short

# libaugur for C, C++ and Python callers (include/augur.h, python/): the
# shared library, with a link of its soname's name (libaugur.so.ABI, what a
# program linked against it loads), and the static one. Go also writes its own headers (libaugur.h)
# beside them; callers include include/augur.h instead, copied here with
# augur_types.h and augur.hpp so that bin/ is self-contained.
lib:
	$(GO) build -buildmode=c-shared -ldflags='-extldflags=-Wl,-soname,libaugur.so.$(AUGUR_ABI)' -o $(BUILT)/libaugur.so ./libaugur
	ln -sf libaugur.so $(BUILT)/libaugur.so.$(AUGUR_ABI)
	$(GO) build -buildmode=c-archive -o $(BUILT)/libaugur.a ./libaugur
	mkdir -p $(BUILT)/include
	cp include/augur.h include/augur_types.h include/augur.hpp $(BUILT)/include/

# The command, libaugur (shared, with its soname link, and static), the
# headers and a pkg-config file (augur.pc), under PREFIX: C and C++ callers
# then build with `pkg-config --cflags --libs augur`, and the Python
# package finds the library without AUGUR_LIB once the loader's cache
# knows it (run ldconfig after installing into a system directory).
install: build lib
	@$(MAKE) --no-print-directory install-files

install-files:
	@test -n "$(AUGUR_ABI)" || { echo "install: no AUGUR_ABI in include/augur_types.h"; exit 1; }
	@for f in augur libaugur.so libaugur.a; do test -f $(BUILT)/$$f || { echo "install: $(BUILT)/$$f is missing: run make build lib"; exit 1; }; done
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 0755 $(BUILT)/augur $(DESTDIR)$(BINDIR)/augur
	install -m 0755 $(BUILT)/libaugur.so $(DESTDIR)$(LIBDIR)/libaugur.so.$(AUGUR_ABI)
	ln -sf libaugur.so.$(AUGUR_ABI) $(DESTDIR)$(LIBDIR)/libaugur.so
	install -m 0644 $(BUILT)/libaugur.a $(DESTDIR)$(LIBDIR)/libaugur.a
	install -m 0644 include/augur.h include/augur_types.h include/augur.hpp $(DESTDIR)$(INCLUDEDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(VERSION)|' libaugur/augur.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/augur.pc

# The Python package as a wheel with libaugur inside ($(BUILT)/dist): pip
# installs it anywhere, no AUGUR_LIB or checkout needed. Built offline from
# the system's setuptools and wheel (--no-build-isolation), from a copy of
# python/ so that the checkout gains no build directories.
wheel: lib
	rm -rf $(BUILT)/wheel-src
	cp -r python $(BUILT)/wheel-src
	cp $(BUILT)/libaugur.so $(BUILT)/wheel-src/augur/
	cd $(BUILT)/wheel-src && $(PYTHON) -m pip wheel --quiet --no-build-isolation --no-deps -w $(abspath $(BUILT))/dist .
	rm -rf $(BUILT)/wheel-src

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/augur $(DESTDIR)$(LIBDIR)/libaugur.so $(DESTDIR)$(LIBDIR)/libaugur.so.$(AUGUR_ABI) \
		$(DESTDIR)$(LIBDIR)/libaugur.a $(DESTDIR)$(LIBDIR)/pkgconfig/augur.pc \
		$(DESTDIR)$(INCLUDEDIR)/augur.h $(DESTDIR)$(INCLUDEDIR)/augur_types.h $(DESTDIR)$(INCLUDEDIR)/augur.hpp

quickstart: build
	$(BUILT)/augur quickstart

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
