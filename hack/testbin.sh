#!/usr/bin/env bash
# testbin.sh builds the real Kubernetes binaries that Propel's integration and
# end-to-end tests (and `make up`) run: kube-apiserver, kube-controller-manager,
# kube-scheduler, etcd, kwok and metrics-server. Everything is compiled from the Go module
# proxy at pinned versions into a versioned cache outside the checkout and
# skipped when already present, so only the first run is slow.
#
# Usage: hack/testbin.sh [binary ...]   (default: all but kubectl, which
# only `make up` needs)
# Prints the cache directory on the last line of stdout.
set -euo pipefail

K8S_VERSION=v1.36.3
STAGING_VERSION=v0.36.3
ETCD_VERSION=v3.6.16
KWOK_VERSION=v0.7.0
METRICS_SERVER_VERSION=v0.8.0

dir=${PROPEL_TESTBIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/propel/testbin/$K8S_VERSION}
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

log() { echo "testbin: $*" >&2; }

# The build flags stamp the release version so that the binaries report it
# (kubectl and client-go version checks read it) and strip debug info to keep
# link time and size down.
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=36 -X k8s.io/component-base/version.gitTreeState=clean"

# kubernetes_module writes a go.mod that builds k8s.io/kubernetes at
# K8S_VERSION: its staging modules are replaced by the published modules of the
# same name, which is what the ./staging replace directives point to.
kubernetes_module() {
  local m=$work/kubernetes
  [ -f "$m/go.mod" ] && return
  mkdir -p "$m"
  local modfile
  modfile=$(cd "$m" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
  {
    echo "module propel.local/testbin"
    echo "go 1.26.0"
    echo "require k8s.io/kubernetes $K8S_VERSION"
    sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/src/k8s.io/.*#replace \1 => \1 '"$STAGING_VERSION"'#p' "$modfile"
  } >"$m/go.mod"
}

build_kube() { # name
  kubernetes_module
  (cd "$work/kubernetes" && GOFLAGS="-mod=mod -buildvcs=false" go build -trimpath -ldflags "$ldflags" -o "$dir/$1.tmp" "k8s.io/kubernetes/cmd/$1")
  mv "$dir/$1.tmp" "$dir/$1"
}

build_etcd() {
  local m=$work/etcd
  mkdir -p "$m"
  cat >"$m/main.go" <<'GO'
// Command etcd runs the etcd server for Propel's test environments.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  cat >"$m/go.mod" <<MOD
module propel.local/etcd
go 1.26.0
require go.etcd.io/etcd/server/v3 $ETCD_VERSION
MOD
  (cd "$m" && GOFLAGS="-mod=mod -buildvcs=false" go mod tidy >/dev/null 2>&1 && GOFLAGS="-mod=mod -buildvcs=false" go build -trimpath -ldflags "-s -w" -o "$dir/etcd.tmp" .)
  mv "$dir/etcd.tmp" "$dir/etcd"
}

build_kwok() {
  GOBIN="$work/kwok-bin" GOFLAGS="-buildvcs=false" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  mv "$work/kwok-bin/kwok" "$dir/kwok"
}

build_metrics_server() {
  GOBIN="$work/metrics-server-bin" GOFLAGS="-buildvcs=false" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/metrics-server/cmd/metrics-server@$METRICS_SERVER_VERSION"
  mv "$work/metrics-server-bin/metrics-server" "$dir/metrics-server"
}

# Rough cold build times on 2 cores, shown so a first run is not a surprise.
declare -A estimate=([etcd]="~1 min" [kube-apiserver]="~7 min" [kube-controller-manager]="~4 min" [kube-scheduler]="~2 min" [kwok]="~2 min" [kubectl]="~1 min" [metrics-server]="~2 min")
wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok metrics-server)
i=0
for b in "${wanted[@]}"; do
  i=$((i + 1))
  if [ -x "$dir/$b" ]; then
    log "[$i/${#wanted[@]}] $b: cached"
    continue
  fi
  log "[$i/${#wanted[@]}] building $b (cold build ${estimate[$b]:-a few min}) into $dir"
  start=$SECONDS
  case $b in
    etcd) build_etcd ;;
    kwok) build_kwok ;;
    metrics-server) build_metrics_server ;;
    kube-apiserver | kube-controller-manager | kube-scheduler | kubectl) build_kube "$b" ;;
    *) log "unknown binary $b"; exit 2 ;;
  esac
  log "[$i/${#wanted[@]}] $b built in $((SECONDS - start))s"
done
echo "$dir"
