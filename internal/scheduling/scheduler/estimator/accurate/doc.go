// Package accurate is the scheduler's client of karmada-scheduler-estimator
// (and of propel-scheduler-estimator, which speaks the same protocol):
// with --enable-scheduler-estimator, every scheduling decision also asks,
// for each candidate cluster C, the estimator behind the Service
// <--scheduler-estimator-service-prefix>-C in
// --scheduler-estimator-service-namespace of the control plane, on
// --scheduler-estimator-port (for an ExternalName Service, the target port
// it maps that port to, as Karmada reads it), over TLS when a CA or
// --insecure-skip-estimator-verify is given (client certificate from
// --scheduler-estimator-cert-file/-key-file), all clusters concurrently
// under one --scheduler-estimator-timeout. It owns the flags, the Service
// resolution and the gRPC connections; the smallest answer among all
// estimators wins in estimator.Set.
//
// An estimator that is missing, unreachable, slow or erroring has no
// opinion on that cluster for that decision (the general estimator still
// answers); Karmada drops every accurate answer of the decision when any
// one cluster's estimator fails, Propel only that cluster's.
package accurate
