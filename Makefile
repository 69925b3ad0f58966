# toolerr — run `make` for the list of targets.
.DEFAULT_GOAL := help
SHELL := /bin/bash
GO ?= go
DIST := dist
FUZZTIME ?= 10s

.PHONY: gateway-check-litellm bench-litellm help build wasm cshared native packages demo test test-reset test-go conformance test-python test-frameworks test-frameworks-js test-node test-rust test-redis test-packages fuzz bench lint fmt check clean

help: ## show this list
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-22s %s\n", $$1, $$2}'

build: wasm cshared native ## build dist/toolerr.wasm, dist/libtoolerr.{so,a}, dist/toolerr.h, the Node addon dist/toolerr_native.node, the CLI dist/toolerr, the gateway dist/toolerr-gateway and dist/toolerr-gateway-check
	$(GO) build -trimpath -o $(DIST)/toolerr ./cmd/toolerr
	cd gateway && $(GO) build -trimpath -o $(abspath $(DIST))/toolerr-gateway ./cmd/toolerr-gateway
	cd gatewaycheck && $(GO) build -trimpath -o ../$(DIST)/toolerr-gateway-check ./cmd/toolerr-gateway-check

wasm: ## build dist/toolerr.wasm (GOOS=wasip1, -buildmode=c-shared)
	bash scripts/build-wasm.sh $(DIST)

cshared: ## build dist/libtoolerr.so, dist/libtoolerr.a and dist/toolerr.h
	bash scripts/build-cshared.sh $(DIST)

native: cshared ## build dist/toolerr_native.node, the Node binding's optional N-API addon (libtoolerr.a linked in; skipped without gcc or node_api.h)
	bash scripts/build-native.sh $(DIST)

packages: build ## dist/packages/: the Python wheel and sdist, the npm tarball and the Rust crate, as they would be published
	bash scripts/packages.sh $(DIST) $(DIST)/packages

demo: ## the main job: the seed's worked example, then every real recording classified
	$(GO) run ./cmd/toolerr demo

test: test-reset test-go test-python test-frameworks test-node test-rust test-redis test-packages conformance ## every test of every target and binding (conformance last, so the bindings join it), then a summary of every skip
	@bash scripts/testreport.sh summary

test-reset:
	@bash scripts/testreport.sh reset

test-go: ## Go unit tests, examples and vendor oracles
	$(GO) vet ./...
	set -o pipefail; $(GO) test -json -count=1 ./... | bash scripts/testreport.sh go 'go (root module)'
	bash scripts/setup-redis.sh
	bash scripts/test-modules.sh

conformance: build ## the shared fixtures through every build target
	bash scripts/test-conformance.sh $(DIST)

test-python: packages ## the Python binding (its tests run against the installed wheel)
	bash scripts/test-python.sh $(DIST)

test-frameworks: packages test-frameworks-js ## toolerr.integrations on the real agent frameworks (OpenAI Agents SDK, LangGraph, pydantic-ai, MCP), versions pinned
	bash scripts/test-frameworks-py.sh $(DIST)

test-frameworks-js: packages ## toolerr/integrations/* on the real JavaScript agent frameworks (Agents SDK, LangGraph, AI SDK, MCP), versions pinned
	bash scripts/test-frameworks-js.sh $(DIST)

test-node: build ## the Node binding
	bash scripts/test-node.sh $(DIST)

test-rust: build ## the Rust binding
	bash scripts/test-rust.sh $(DIST)

test-redis: build ## one breaker shared through a real redis-server by Go, Python, Node and Rust replicas, and the chaos test with all of them (after test-python, test-node)
	bash scripts/test-redis.sh $(DIST)

test-packages: packages ## each package installed into a fresh project outside the clone (hidden), the README examples run there
	bash scripts/test-packages.sh $(DIST)/packages

fuzz: ## every fuzz target for FUZZTIME each (default 10s)
	bash scripts/fuzz.sh $(FUZZTIME)

gateway-check-litellm: ## optional: the LiteLLM proxy (PyPI, build/litellm-venv) on loopback held to toolerr-gateway-check; matrix in build/gateway-check-litellm.md
	bash scripts/gateway-check-litellm.sh

bench: build ## benchmarks of every target, binding and runtime, with ratios to the baselines and peers (installed under build/ and bindings/node/bench, never by the tests)
	bash scripts/bench.sh $(DIST)

bench-litellm: build ## optional: toolerr-gateway beside the LiteLLM proxy (PyPI, build/litellm-venv) on the same fake upstream; report in build/bench-litellm.md
	bash scripts/bench-litellm.sh $(DIST)

lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

fmt: ## gofmt -w every Go file
	gofmt -w $$(git ls-files '*.go')

check: lint ## lint, the pure core built for wasip1, go mod tidy, clean git diff
	GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 $(GO) build ./core/...
	$(GO) mod tidy
	git diff --exit-code

clean: ## remove build output
	rm -rf $(DIST)
