#!/usr/bin/env bash
# generate.sh regenerates deepcopy code and CRD manifests from pkg/apis,
# Propel's control-plane RBAC from the +kubebuilder:rbac markers beside the
# code that makes each API call, with a pinned controller-gen built from the
# Go module proxy, and the estimator's protobuf and gRPC code from
# internal/scheduling/estimatorwire/*/*.proto with buf, protoc-gen-go (the
# version go.mod requires) and protoc-gen-go-grpc, all pinned Go programs (no protoc). Run
# from a module root (default: this checkout); config/crds/crds_test.go runs
# it on a copy to prove the committed files are fresh.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
# The estimator's wire code, first: controller-gen loads every package,
# which needs it. The plugins are built into a temporary directory put
# first on PATH, where buf finds them.
buf_version=v1.75.0
protoc_gen_go_grpc_version=v1.6.2
plugins=$(mktemp -d)
trap 'rm -rf "$plugins"' EXIT
go build -o "$plugins/protoc-gen-go" google.golang.org/protobuf/cmd/protoc-gen-go
GOBIN=$plugins go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$protoc_gen_go_grpc_version"
GOBIN=$plugins go install "github.com/bufbuild/buf/cmd/buf@$buf_version"
PATH=$plugins:$PATH "$plugins/buf" generate --template hack/buf.gen.yaml --path internal/scheduling/estimatorwire .

controller_gen="go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.21.0"
$controller_gen object:headerFile=hack/boilerplate.go.txt paths=./pkg/apis/...
$controller_gen crd:crdVersions=v1 paths=./pkg/apis/... output:crd:artifacts:config=config/crds
cluster_crd=config/crds/cluster.karmada.io_clusters.yaml
awk -f hack/relax-cluster-conditions.awk "$cluster_crd" >"$cluster_crd.tmp"
mv "$cluster_crd.tmp" "$cluster_crd"
$controller_gen rbac:roleName=propel-controller-manager paths="./internal/...;./pkg/...;./cmd/..." output:rbac:artifacts:config=config/deploy/karmada-apiserver

