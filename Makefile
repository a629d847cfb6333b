# ctrlkit — the commands a contributor needs. `make help` lists them.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

GO       ?= go
BIN      := $(CURDIR)/bin
FUZZTIME ?= 10s
# go test's per-binary timeout; the first run may include a cold control plane build.
TIMEOUT  ?= 30m
# The newest k8s.io/* and controller-runtime releases ctrlkit is tested with;
# the oldest (the floor) are those go.mod requires.
K8S_NEWEST ?= v0.37.2
CR_NEWEST  ?= v0.25.2

.PHONY: help
help: ## List the targets.
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

.PHONY: test
test: fmt-check vet lint verify test-floor controlplane test-go test-newest fuzz ## The whole check: gofmt, vet, staticcheck, generated-file drift, the version floor, unit + envtest tests with -race, unit tests at the newest versions, a short run of every fuzzer.
	@echo "make test: all checks passed"

.PHONY: test-faults
test-faults: controlplane ## Fault tests on local control planes of their own (kube-apiserver killed and restarted with etcd kept, the provider-nop process killed and restarted, a leader released and crashed); about 3 minutes.
	CTRLKIT_FAULTS=1 go test -race -count=1 -run 'TestFault' ./nop/

.PHONY: test-e2e
test-e2e: controlplane xpkg ## Crossplane core (tools/crossplane's version, built from the Go module proxy and cached: a cold build takes many minutes; REBUILD=1 rebuilds) installs make xpkg's package from a loopback registry and runs nop and composition functions on a local control plane (e2e/); about a minute warm. CROSSPLANE_VERSION=v2.4.2 tests another Crossplane core (its own cold build; not in CI).
	cd e2e && $(GO) run ./internal/cmd/crossplane $(if $(REBUILD),-rebuild) $(if $(CROSSPLANE_VERSION),-version $(CROSSPLANE_VERSION))
	cd e2e && CTRLKIT_XPKG=$(BIN)/xpkg/provider-nop CROSSPLANE_VERSION=$(CROSSPLANE_VERSION) $(GO) test -count=1 -timeout $(TIMEOUT) -v ./...

.PHONY: test-examples
test-examples: controlplane ## Every example and the tour, twice, in opposite orders, against one control plane without kube-controller-manager (as make cluster's); about 4 minutes.
	CTRLKIT_EXAMPLES=1 go test -count=1 -run 'TestExamplesShareACluster' ./examples/

.PHONY: fmt-check
fmt-check: ## Fail if any Go file is not gofmt-ed.
	@bad=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './bin/*')); \
	if [ -n "$$bad" ]; then echo "gofmt would change:"; echo "$$bad"; exit 1; fi

.PHONY: vet
vet: ## go vet every module.
	$(GO) vet ./...
	cd bench && $(GO) vet ./...
	cd conformance && $(GO) vet ./...
	cd oracle && $(GO) vet ./...
	cd e2e && $(GO) vet ./...
	cd tools/images && $(GO) vet ./...

.PHONY: controlplane
controlplane: ## Build (first time, several minutes) or find the cached kube-apiserver and etcd; REBUILD=1 forces a rebuild.
	@$(GO) run ./internal/cmd/controlplane $(if $(REBUILD),-rebuild)

.PHONY: test-go
test-go: ## go test -race ./... (unit and envtest integration tests, the config/ manifests on the API server, each example run as its ServiceAccount with its base's RBAC alone), the health conformance tests (conformance/), the differential tests against upstream libraries (oracle/), the image builder (tools/images: builds nop's image for both platforms, reads it back, runs its binary), and compile the peer benchmarks.
	$(GO) test -race -timeout $(TIMEOUT) ./...
	cd bench && $(GO) test -run '^$$' ./...
	cd conformance && $(GO) test -timeout $(TIMEOUT) ./...
	cd oracle && $(GO) test -timeout $(TIMEOUT) ./...
	cd tools/images && $(GO) test -timeout $(TIMEOUT) ./...

.PHONY: test-floor
test-floor: ## A module on the floor versions (go.mod's k8s.io/*, controller-runtime) imports every package without moving them; the floor is two minors below the newest.
	@hack/compat.sh floor $(K8S_NEWEST) $(CR_NEWEST)

.PHONY: test-newest
test-newest: ## A copy of the module on K8S_NEWEST / CR_NEWEST: go vet and the unit tests (go test -short).
	@hack/compat.sh newest $(K8S_NEWEST) $(CR_NEWEST)

.PHONY: fuzz
fuzz: ## Run every FuzzXxx briefly (FUZZTIME=10s each); longer: make fuzz FUZZTIME=10m.
	@hack/fuzz.sh $(FUZZTIME)

.PHONY: generate
generate: tools ## Regenerate deepcopy, CRDs (controller-gen) and protobuf Go code (protoc-gen-go).
	@hack/generate.sh $(BIN)

.PHONY: verify
verify: ## Fail if generated files or go.mod/go.sum drift from what `make generate` / `go mod tidy` produce.
	@hack/verify.sh $(BIN)

.PHONY: tools
tools: $(BIN)/controller-gen $(BIN)/protoc-gen-go ## Build the pinned generators into ./bin.

# The generators' versions are pinned in tools/gen/go.mod.
$(BIN)/controller-gen: tools/gen/go.mod tools/gen/go.sum
	$(GO) build -C tools/gen -o $@ sigs.k8s.io/controller-tools/cmd/controller-gen
$(BIN)/protoc-gen-go: tools/gen/go.mod tools/gen/go.sum
	$(GO) build -C tools/gen -o $@ google.golang.org/protobuf/cmd/protoc-gen-go

.PHONY: images
images: ## OCI images of the example controllers without Docker (static binaries for linux/amd64 and linux/arm64, CA certificates, user 65532): bin/images/<example> (OCI layout) and bin/images/<example>-<arch>.tar (docker load); EXAMPLES=nop builds one.
	$(GO) run -C tools/images . -root $(CURDIR) -out $(BIN)/images $(EXAMPLES)

.PHONY: xpkg
xpkg: ## nop's Crossplane provider package without Docker or the crossplane CLI: nop/package/crossplane.yaml and nop/crds' CRDs as package.yaml in the layer annotated io.crossplane.xpkg: base, on the image of the provider-nop binary (its runtime), for linux/amd64 and linux/arm64: bin/xpkg/provider-nop (OCI layout) and bin/xpkg/provider-nop-<arch>.xpkg.
	$(GO) run -C tools/images . -xpkg -root $(CURDIR) -out $(BIN)/xpkg

.PHONY: lint
lint: ## staticcheck (pinned, fetched from the module proxy) on top of vet.
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
STATICCHECK_VERSION ?= v0.8.2

.PHONY: bench
bench: ## Benchmarks beside the code (allocations reported); includes nop's 1,000-object run on a real API server beside provider-nop v0.5.0 itself (minutes; its first build several more; NOP_BENCH_PEER=off leaves it out).
	$(GO) test -run '^$$' -bench . -benchmem ./...

# bench-charts' sizes: what a 2-core machine carries. On 16 cores:
# make bench-charts NOP_BENCH_OBJECTS=10000 NOP_BENCH_RATE=500 NOP_BENCH_CONCURRENCY=40
NOP_BENCH_OBJECTS     ?= 1000
NOP_BENCH_RATE        ?= 50
NOP_BENCH_CONCURRENCY ?= 10
BENCH_MACHINE         ?= $(shell nproc) cores, $(shell sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(shell $(GO) env GOVERSION)

.PHONY: bench-charts
bench-charts: ## nop's lateness by mode drawn into docs/benchmarks/nop-lateness-N.svg, from the modes measured even if one fails (NOP_BENCH_OBJECTS=1000 at NOP_BENCH_RATE=50/s, NOP_BENCH_CONCURRENCY=10; minutes per mode).
	@mkdir -p $(BIN)
	rm -f $(BIN)/nop-lateness.csv
	NOP_BENCH_OBJECTS=$(NOP_BENCH_OBJECTS) NOP_BENCH_RATE=$(NOP_BENCH_RATE) NOP_BENCH_CONCURRENCY=$(NOP_BENCH_CONCURRENCY) \
	NOP_BENCH_LATENESS_OUT=$(BIN)/nop-lateness.csv \
		$(GO) test -run '^$$' -bench '^BenchmarkAPIServer$$' -benchtime 1x -timeout $(TIMEOUT) ./nop || status=$$?; \
	$(GO) run ./internal/cmd/benchcharts -in $(BIN)/nop-lateness.csv -out docs/benchmarks \
		-machine "$(BENCH_MACHINE)" \
		-command "make bench-charts NOP_BENCH_OBJECTS=$(NOP_BENCH_OBJECTS) NOP_BENCH_RATE=$(NOP_BENCH_RATE) NOP_BENCH_CONCURRENCY=$(NOP_BENCH_CONCURRENCY)"; \
	exit $${status:-0}

.PHONY: bench-peers
bench-peers: ## Side-by-side benchmarks against peer libraries, with ratios (bench/ module).
	cd bench && $(GO) test -run '^$$' -bench . -benchmem ./...

.PHONY: demo
demo: ## A guided tour: every example's controllers in one manager, five scenarios with a live timeline of conditions and a pass/fail summary.
	$(GO) run ./examples/tour

.PHONY: cluster
cluster: ## Run a local control plane until Ctrl-C and print how to use kubectl with it.
	$(GO) run ./examples/cluster

.PHONY: clean
clean: ## Remove ./bin (the control plane cache in the user cache dir is kept).
	rm -rf $(BIN)
