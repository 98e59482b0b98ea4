#!/usr/bin/env bash
# generate.sh regenerates deepcopy code and CRD manifests from pkg/apis, and
# Propel's control-plane RBAC from the +kubebuilder:rbac markers beside the
# code that makes each API call, with a pinned controller-gen built from the
# Go module proxy. Run from a module root (default: this checkout);
# config/crds/crds_test.go runs it on a copy to prove the committed files are
# fresh.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
controller_gen="go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.21.0"
$controller_gen object:headerFile=hack/boilerplate.go.txt paths=./pkg/apis/...
$controller_gen crd:crdVersions=v1 paths=./pkg/apis/... output:crd:artifacts:config=config/crds
cluster_crd=config/crds/cluster.karmada.io_clusters.yaml
awk -f hack/relax-cluster-conditions.awk "$cluster_crd" >"$cluster_crd.tmp"
mv "$cluster_crd.tmp" "$cluster_crd"
$controller_gen rbac:roleName=propel-controller-manager paths="./pkg/...;./cmd/..." output:rbac:artifacts:config=config/deploy/karmada-apiserver
