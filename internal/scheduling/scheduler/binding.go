package scheduler

import (
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// binding is the scheduler's view of a ResourceBinding or a
// ClusterResourceBinding: the object, with its spec and status at hand.
type binding struct {
	obj    workv1alpha2.Binding
	spec   *workv1alpha2.ResourceBindingSpec
	status *workv1alpha2.ResourceBindingStatus
}

// wrap returns the binding view of obj, or false for other types.
func wrap(obj client.Object) (*binding, bool) {
	b, ok := workv1alpha2.AsBinding(obj)
	if !ok {
		return nil, false
	}
	return &binding{obj: b, spec: b.BindingSpec(), status: b.BindingStatus()}, true
}

// copy returns a deep copy.
func (b *binding) copy() *binding {
	c, _ := wrap(b.obj.DeepCopyObject().(client.Object))
	return c
}

// key is the binding's queue key: namespace/name, or name for a CRB.
func (b *binding) key() types.NamespacedName { return client.ObjectKeyFromObject(b.obj) }

// String names the binding for messages: "ResourceBinding ns/name".
func (b *binding) String() string { return workv1alpha2.BindingName(b.obj) }

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
