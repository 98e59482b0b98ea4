// Package core is the scheduling pipeline as a pure function of a binding
// (spec and status) and a snapshot of Clusters: validate the placement,
// filter (plugins), score, order, estimate available replicas, select
// (spread constraints) and assign replicas, trying clusterAffinities terms
// in order. It returns the target clusters or a typed error
// (framework.FitError, framework.UnschedulableError, or a plain error for
// everything else). It performs no I/O.
package core
