package scheduler

import (
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/names"
)

// Kinds of the scheduled objects, for logs and messages.
const (
	kindResourceBinding        = "ResourceBinding"
	kindClusterResourceBinding = "ClusterResourceBinding"
)

// binding gives uniform access to a ResourceBinding or a
// ClusterResourceBinding. A request without a namespace is a
// ClusterResourceBinding.
type binding struct {
	obj    client.Object
	kind   string
	spec   *workv1alpha2.ResourceBindingSpec
	status *workv1alpha2.ResourceBindingStatus
}

// wrap returns the binding view of obj, or false for other types.
func wrap(obj client.Object) (*binding, bool) {
	switch o := obj.(type) {
	case *workv1alpha2.ResourceBinding:
		return &binding{obj: o, kind: kindResourceBinding, spec: &o.Spec, status: &o.Status}, true
	case *workv1alpha2.ClusterResourceBinding:
		return &binding{obj: o, kind: kindClusterResourceBinding, spec: &o.Spec, status: &o.Status}, true
	}
	return nil, false
}

// emptyBinding returns an empty object of the kind a request addresses.
func emptyBinding(key types.NamespacedName) client.Object {
	if key.Namespace == "" {
		return &workv1alpha2.ClusterResourceBinding{}
	}
	return &workv1alpha2.ResourceBinding{}
}

// copy returns a deep copy.
func (b *binding) copy() *binding {
	c, _ := wrap(b.obj.DeepCopyObject().(client.Object))
	return c
}

// key is the binding's queue key: namespace/name, or name for a CRB.
func (b *binding) key() types.NamespacedName { return client.ObjectKeyFromObject(b.obj) }

// String names the binding for messages: "ResourceBinding ns/name".
func (b *binding) String() string { return b.kind + " " + b.key().String() }

// schedulerName is spec.schedulerName, empty meaning the default.
func (b *binding) schedulerName() string {
	if b.spec.SchedulerName == "" {
		return names.DefaultSchedulerName
	}
	return b.spec.SchedulerName
}

// schedulingSuspended reports spec.suspension.scheduling == true.
func (b *binding) schedulingSuspended() bool {
	s := b.spec.Suspension
	return s != nil && s.Scheduling != nil && *s.Scheduling
}

// claimed reports whether a policy or another controller owns the binding
// (non-empty PP/CPP permanent-id or managed-by label); only those are
// scheduled.
func (b *binding) claimed() bool {
	l := b.obj.GetLabels()
	return l[names.PropagationPolicyPermanentIDLabel] != "" ||
		l[names.ClusterPropagationPolicyPermanentIDLabel] != "" ||
		l[names.BindingManagedByLabel] != ""
}

// priority is spec.schedulePriority.priority, 0 when absent.
func (b *binding) priority() int {
	if b.spec.SchedulePriority == nil {
		return 0
	}
	return int(b.spec.SchedulePriority.Priority)
}
