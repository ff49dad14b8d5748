# augur's entry points. `make quickstart` and `make test` install the OpenCL
# packages they need (Debian/Ubuntu) when they are missing.
GO ?= go
export CGO_CFLAGS ?= -O2 -g -DCL_TARGET_OPENCL_VERSION=300

.PHONY: deps build test quickstart bench clean

deps:
	@./scripts/opencl-deps.sh

build: deps
	$(GO) build -o bin/augur ./cmd/augur

test: deps
	$(GO) vet ./...
	$(GO) test -count=1 ./...

quickstart: build
	./bin/augur quickstart

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./runtime ./predict ./train

clean:
	rm -rf bin augur-quickstart
