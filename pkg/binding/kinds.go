package binding

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/names"
)

// Indexes on Works: the permanent id of the binding a Work belongs to.
const (
	// WorkIndexResourceBindingID indexes Works by the label
	// resourcebinding.karmada.io/permanent-id.
	WorkIndexResourceBindingID = "propel.binding/work-resourcebinding-id"
	// WorkIndexClusterResourceBindingID indexes Works by the label
	// clusterresourcebinding.karmada.io/permanent-id.
	WorkIndexClusterResourceBindingID = "propel.binding/work-clusterresourcebinding-id"
)

// bindingKind is what differs between ResourceBindings and
// ClusterResourceBindings.
type bindingKind struct {
	name           string
	controllerName string
	idLabel        string
	finalizer      string
	workIndex      string
	newObject      func() client.Object
	newList        func() client.ObjectList
	// items returns the bindings of a list of this kind.
	items func(client.ObjectList) []client.Object
}

var rbKind = &bindingKind{
	name:           "ResourceBinding",
	controllerName: names.BindingControllerName,
	idLabel:        names.ResourceBindingPermanentIDLabel,
	finalizer:      names.BindingControllerFinalizer,
	workIndex:      WorkIndexResourceBindingID,
	newObject:      func() client.Object { return &workv1alpha2.ResourceBinding{} },
	newList:        func() client.ObjectList { return &workv1alpha2.ResourceBindingList{} },
	items: func(l client.ObjectList) []client.Object {
		list := l.(*workv1alpha2.ResourceBindingList)
		out := make([]client.Object, len(list.Items))
		for i := range list.Items {
			out[i] = &list.Items[i]
		}
		return out
	},
}

var crbKind = &bindingKind{
	name:           "ClusterResourceBinding",
	controllerName: names.ClusterResourceBindingControllerName,
	idLabel:        names.ClusterResourceBindingPermanentIDLabel,
	finalizer:      names.ClusterResourceBindingControllerFinalizer,
	workIndex:      WorkIndexClusterResourceBindingID,
	newObject:      func() client.Object { return &workv1alpha2.ClusterResourceBinding{} },
	newList:        func() client.ObjectList { return &workv1alpha2.ClusterResourceBindingList{} },
	items: func(l client.ObjectList) []client.Object {
		list := l.(*workv1alpha2.ClusterResourceBindingList)
		out := make([]client.Object, len(list.Items))
		for i := range list.Items {
			out[i] = &list.Items[i]
		}
		return out
	},
}

// binding is one ResourceBinding or ClusterResourceBinding.
type binding struct {
	kind *bindingKind
	obj  client.Object
	spec *workv1alpha2.ResourceBindingSpec
}

func (k *bindingKind) wrap(obj client.Object) *binding {
	b := &binding{kind: k, obj: obj}
	switch t := obj.(type) {
	case *workv1alpha2.ResourceBinding:
		b.spec = &t.Spec
	case *workv1alpha2.ClusterResourceBinding:
		b.spec = &t.Spec
	}
	return b
}

// id is the binding's permanent id.
func (b *binding) id() string { return b.obj.GetLabels()[b.kind.idLabel] }

// String names the binding in errors and logs.
func (b *binding) String() string {
	if ns := b.obj.GetNamespace(); ns != "" {
		return b.kind.name + " " + ns + "/" + b.obj.GetName()
	}
	return b.kind.name + " " + b.obj.GetName()
}

// ownerLabels are the labels Works and manifests get from the binding.
func (b *binding) ownerLabels() map[string]string {
	return map[string]string{b.kind.idLabel: b.id()}
}

// ownerAnnotations are the annotations Works and manifests get from the
// binding: its namespace and name (a ClusterResourceBinding: its name).
func (b *binding) ownerAnnotations() map[string]string {
	if b.kind == crbKind {
		return map[string]string{names.ClusterResourceBindingNameAnnotation: b.obj.GetName()}
	}
	return map[string]string{
		names.ResourceBindingNamespaceAnnotation: b.obj.GetNamespace(),
		names.ResourceBindingNameAnnotation:      b.obj.GetName(),
	}
}

// isWorkload: the binding has replicas, per-replica requirements or
// components.
func (b *binding) isWorkload() bool {
	return b.spec.Replicas > 0 || b.spec.ReplicaRequirements != nil || len(b.spec.Components) > 0
}

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
	if b.kind == crbKind {
		return fmt.Sprintf("clusterResourceBinding(%s)", b.obj.GetName())
	}
	return fmt.Sprintf("resourceBinding(%s/%s)", b.obj.GetNamespace(), b.obj.GetName())
}
