package v1alpha1

// DispatchingSuspended reports whether the Work's spec.suspendDispatching
// is true: its manifests are not applied to the member (and a collected
// Work, which is never applied, carries it always). Every controller
// deciding on a Work's suspension asks this.
func (w *Work) DispatchingSuspended() bool {
	return w.Spec.SuspendDispatching != nil && *w.Spec.SuspendDispatching
}
