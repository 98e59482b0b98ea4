// Package localenv runs real Kubernetes control planes on loopback from the
// binaries that hack/testbin.sh builds: one etcd, a Karmada-style control
// plane (kube-apiserver with Propel's CRDs) and member clusters, each member
// optionally with kube-controller-manager, kube-scheduler and kwok fake nodes
// so that workloads really get Ready pods.
//
// It owns process lifecycle (free ports, logs, readiness, stop on exit) and
// the PKI the processes share. Integration tests reach it through
// test/harness; `propelctl local-up` uses it directly.
package localenv
