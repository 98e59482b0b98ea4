# Propel's two entry points: `make up` runs Propel's main job locally, `make test` runs every test.
SHELL := /usr/bin/env bash

.PHONY: test generate testbin vet
generate: ## Regenerate deepcopy code and CRD manifests from pkg/apis.
	@echo "generate: deepcopy and CRDs (controller-gen)"
	@hack/generate.sh

testbin: ## Build the real Kubernetes test binaries into ~/.cache/propel/testbin (skips what exists).
	@hack/testbin.sh >/dev/null

vet:
	go vet ./...

test: testbin vet ## Build test binaries when missing, then run every test.
	@echo "test: running go test ./..."
	PROPEL_TESTBIN_DIR=$$(hack/testbin.sh 2>/dev/null) go test -count=1 ./...
