package v1alpha2

import "slices"

// DispatchingSuspendedOn reports whether the binding's dispatching to
// cluster is suspended: spec.suspension.dispatching is true, or cluster is
// listed in spec.suspension.dispatchingOnClusters. A nil suspension
// suspends nothing. The binding controller writes the answer into each
// Work's spec.suspendDispatching, which work/v1alpha1's
// Work.DispatchingSuspended reads.
func (s *Suspension) DispatchingSuspendedOn(cluster string) bool {
	if s == nil {
		return false
	}
	if s.Dispatching != nil && *s.Dispatching {
		return true
	}
	return s.DispatchingOnClusters != nil && slices.Contains(s.DispatchingOnClusters.ClusterNames, cluster)
}
