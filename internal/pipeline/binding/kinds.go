package binding

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// bindingKind is what differs between the ResourceBinding and the
// ClusterResourceBinding controllers; the bindings themselves are handled
// through workv1alpha2.Binding.
type bindingKind struct {
	controllerName string
	finalizer      string
	namespaced     bool
}

var rbKind = &bindingKind{
	controllerName: names.BindingControllerName,
	finalizer:      names.BindingControllerFinalizer,
	namespaced:     true,
}

var crbKind = &bindingKind{
	controllerName: names.ClusterResourceBindingControllerName,
	finalizer:      names.ClusterResourceBindingControllerFinalizer,
}

// newObject returns an empty binding of this kind.
func (k *bindingKind) newObject() workv1alpha2.Binding {
	if k.namespaced {
		return &workv1alpha2.ResourceBinding{}
	}
	return &workv1alpha2.ClusterResourceBinding{}
}

// binding is one ResourceBinding or ClusterResourceBinding, with the
// controller settings of its kind.
type binding struct {
	kind *bindingKind
	obj  workv1alpha2.Binding
	spec *workv1alpha2.ResourceBindingSpec
}

// wrap returns the binding view of obj, which must be a ResourceBinding
// or a ClusterResourceBinding.
func (k *bindingKind) wrap(obj client.Object) *binding {
	b, ok := workv1alpha2.AsBinding(obj)
	if !ok {
		panic(fmt.Sprintf("binding controller: %T is not a binding", obj))
	}
	return &binding{kind: k, obj: b, spec: b.BindingSpec()}
}

// id is the binding's permanent id.
func (b *binding) id() string { return workv1alpha2.PermanentID(b.obj) }

// String names the binding in errors and logs.
func (b *binding) String() string { return workv1alpha2.BindingName(b.obj) }

// ownerLabels are the labels Works and manifests get from the binding.
func (b *binding) ownerLabels() map[string]string {
	return map[string]string{b.obj.PermanentIDLabel(): b.id()}
}

// ownerAnnotations are the annotations Works and manifests get from the
// binding: its namespace and name (a ClusterResourceBinding: its name).
func (b *binding) ownerAnnotations() map[string]string { return b.obj.WorkAnnotations() }

// targets are spec.clusters, then the clusters of spec.requiredBy not
// already listed, each with its own replicas. A name listed twice keeps
// its last entry (the Work Karmada leaves behind).
func (b *binding) targets() []workv1alpha2.TargetCluster {
	out := make([]workv1alpha2.TargetCluster, 0, len(b.spec.Clusters))
	index := make(map[string]int, len(b.spec.Clusters))
	for _, c := range b.spec.Clusters {
		if i, dup := index[c.Name]; dup {
			out[i] = c
			continue
		}
		index[c.Name] = len(out)
		out = append(out, c)
	}
	for _, snapshot := range b.spec.RequiredBy {
		for _, c := range snapshot.Clusters {
			if _, ok := index[c.Name]; !ok {
				index[c.Name] = len(out)
				out = append(out, c)
			}
		}
	}
	return out
}

// expectedClusters are the clusters whose Works must be kept: the targets
// and the source clusters of graceful evictions that are not purged
// directly.
func (b *binding) expectedClusters() map[string]bool {
	out := map[string]bool{}
	for _, c := range b.targets() {
		out[c.Name] = true
	}
	for _, task := range b.spec.GracefulEvictionTasks {
		if task.PurgeMode != policyv1alpha1.PurgeModeDirectly {
			out[task.FromCluster] = true
		}
	}
	return out
}

// directlyPurged are the clusters of graceful evictions purged directly.
func (b *binding) directlyPurged() map[string]bool {
	out := map[string]bool{}
	for _, task := range b.spec.GracefulEvictionTasks {
		if task.PurgeMode == policyv1alpha1.PurgeModeDirectly {
			out[task.FromCluster] = true
		}
	}
	return out
}

// eventName names the binding in event messages as Karmada does.
func (b *binding) eventName() string {
	if !b.obj.Namespaced() {
		return fmt.Sprintf("clusterResourceBinding(%s)", b.obj.GetName())
	}
	return fmt.Sprintf("resourceBinding(%s/%s)", b.obj.GetNamespace(), b.obj.GetName())
}
