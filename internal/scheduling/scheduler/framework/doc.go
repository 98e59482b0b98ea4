// Package framework is the scheduler's shared vocabulary: the per-attempt
// view of a binding (BindingInfo), the per-cluster candidate record
// (ClusterDetail), the filter and score plugin contracts, and the typed
// errors (FitError, UnschedulableError) that decide the Scheduled
// condition's reason. It holds no algorithm of its own.
package framework
