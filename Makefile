# Propel's two entry points: `make up` runs Propel's main job locally, `make test` runs every test.
SHELL := /usr/bin/env bash

.PHONY: up down demo test generate testbin vet tidy bench lint fuzz build

# The version the binaries report (--version, start-up log): the git
# description of the checkout unless VERSION is given.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/propel-mc/propel/internal/app/version.stamped=$(VERSION)

build: ## Build every binary into bin/, stamped with VERSION.
	@for b in propel-controller-manager propel-scheduler propel-scheduler-estimator propelctl; do \
		echo "build: $$b $(VERSION)"; go build -ldflags "$(LDFLAGS)" -o bin/$$b ./cmd/$$b || exit 1; \
	done

generate: ## Regenerate deepcopy code and CRD manifests from pkg/apis, the RBAC role, and the estimator's protobuf code.
	@echo "generate: deepcopy, CRDs and RBAC (controller-gen), estimator protobuf and gRPC code (buf)"
	@hack/generate.sh

up: ## Build what is missing, then run Propel on a local control plane with 3 member clusters (Ctrl-C stops it).
	@hack/testbin.sh etcd kube-apiserver kube-controller-manager kube-scheduler kwok metrics-server kubectl >/dev/null
	@echo "up: building propelctl, propel-scheduler, propel-scheduler-estimator and interpreter-webhook-example"
	@go build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/propelctl ./cmd/propel-scheduler ./cmd/propel-scheduler-estimator ./cmd/interpreter-webhook-example
	@bin/propelctl local-up $(UP_ARGS)

demo: ## With `make up` running (another terminal): apply the seed scenarios and print what runs where.
	@go build -ldflags "$(LDFLAGS)" -o bin/propelctl ./cmd/propelctl
	@go build -o bin/interpreter-webhook-example ./cmd/interpreter-webhook-example
	@bin/propelctl demo

down: ## Stop a running `make up`.
	@go build -ldflags "$(LDFLAGS)" -o bin/propelctl ./cmd/propelctl
	@bin/propelctl local-down

bench: ## Run the benchmarks reported in docs/benchmarks.md.
	go test -run '^$$' -bench . -benchmem ./internal/... ./pkg/...

testbin: ## Build the real Kubernetes test binaries into ~/.cache/propel/testbin (skips what exists).
	@hack/testbin.sh >/dev/null

vet:
	go vet ./...

tidy: ## Fail when `go mod tidy` would change go.mod or go.sum (run `go mod tidy` to fix).
	@go mod tidy -diff >/dev/null || { go mod tidy -diff; echo "tidy: go.mod/go.sum are not tidy; run go mod tidy and commit the result"; exit 1; }
	@echo "tidy: go.mod and go.sum are tidy"

# staticcheck, pinned, installed from the Go module proxy into bin/tools.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := bin/tools/staticcheck-$(STATICCHECK_VERSION)

$(STATICCHECK):
	@mkdir -p bin/tools
	@echo "lint: installing staticcheck $(STATICCHECK_VERSION)"
	GOBIN=$(CURDIR)/bin/tools go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@mv bin/tools/staticcheck $(STATICCHECK)

lint: $(STATICCHECK) ## Run staticcheck (pinned version) on every package; any finding fails the build.
	@echo "lint: running staticcheck $(STATICCHECK_VERSION) on ./... (a few minutes on a cold cache)"
	@$(STATICCHECK) ./... || { echo "lint: staticcheck reported findings (above); fix them or add a narrow //lint:ignore CHECK reason"; exit 1; }
	@echo "lint: staticcheck clean"

fuzz: ## Run every fuzz target for FUZZTIME (default 5s) each.
	@hack/fuzz.sh

test: testbin tidy vet lint ## Build test binaries when missing, check go.mod is tidy, vet and lint, then run every test and each fuzz target briefly.
	@echo "test: running go test ./..."
	PROPEL_TESTBIN_DIR=$$(hack/testbin.sh 2>/dev/null) go test -count=1 -timeout 40m ./...
	@hack/fuzz.sh
