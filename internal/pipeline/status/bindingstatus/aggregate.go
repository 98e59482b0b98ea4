package bindingstatus

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/pipeline/status/manifeststatus"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workapply"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// aggregateItems builds one aggregated item per Work of a binding, sorted
// by cluster name. A Work that is not applied contributes
// {applied:false, appliedMessage, health:Unknown}; an applied one
// contributes the status and health of the manifest of resource.
func aggregateItems(works []workv1alpha1.Work, resource workv1alpha2.ObjectReference) ([]workv1alpha2.AggregatedStatusItem, error) {
	items := make([]workv1alpha2.AggregatedStatusItem, 0, len(works))
	for i := range works {
		item, err := itemOf(&works[i], resource)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].ClusterName < items[j].ClusterName })
	return items, nil
}

func itemOf(work *workv1alpha1.Work, resource workv1alpha2.ObjectReference) (workv1alpha2.AggregatedStatusItem, error) {
	cluster, err := names.ClusterOfExecutionSpace(work.Namespace)
	if err != nil {
		return workv1alpha2.AggregatedStatusItem{}, fmt.Errorf("work %s/%s: %w", work.Namespace, work.Name, err)
	}
	id, err := identifierOf(work, resource)
	if err != nil {
		return workv1alpha2.AggregatedStatusItem{}, err
	}
	item := workv1alpha2.AggregatedStatusItem{ClusterName: cluster, Health: workv1alpha2.ResourceUnknown}
	cond := meta.FindStatusCondition(work.Status.Conditions, workv1alpha1.WorkApplied)
	if cond == nil || cond.Status != metav1.ConditionTrue {
		if cond != nil {
			// A Work's condition may be written by a member's agent.
			item.AppliedMessage = boundedtext.String(cond.Message)
		}
		return item, nil
	}
	item.Applied = true
	for _, s := range work.Status.ManifestStatuses {
		if s.Identifier == id {
			item.Status = s.Status.DeepCopy()
			item.Health = workv1alpha2.ResourceHealth(s.Health)
			break
		}
	}
	return item, nil
}

// identifierOf finds the manifest of resource in work and returns the
// identifier its status is recorded under.
func identifierOf(work *workv1alpha1.Work, resource workv1alpha2.ObjectReference) (workv1alpha1.ResourceIdentifier, error) {
	gv, err := schema.ParseGroupVersion(resource.APIVersion)
	if err != nil {
		return workv1alpha1.ResourceIdentifier{}, fmt.Errorf("binding resource apiVersion %q: %w", resource.APIVersion, err)
	}
	refs, err := workapply.Refs(work)
	if err != nil {
		return workv1alpha1.ResourceIdentifier{}, err
	}
	for _, ref := range refs {
		if ref.GVK == gv.WithKind(resource.Kind) && ref.Namespace == resource.Namespace && ref.Name == resource.Name {
			return ref.Identifier(), nil
		}
	}
	return workv1alpha1.ResourceIdentifier{}, fmt.Errorf("work %s/%s has no manifest of %s %s/%s",
		work.Namespace, work.Name, resource.Kind, resource.Namespace, resource.Name)
}

// expectedClusters are the clusters a binding should have Works in: its
// targets, the targets of the bindings that require it, and the clusters
// being evicted gracefully (not Directly).
func expectedClusters(spec *workv1alpha2.ResourceBindingSpec) map[string]bool {
	set := make(map[string]bool, len(spec.Clusters))
	for _, c := range spec.Clusters {
		set[c.Name] = true
	}
	for _, snap := range spec.RequiredBy {
		for _, c := range snap.Clusters {
			set[c.Name] = true
		}
	}
	for _, task := range spec.GracefulEvictionTasks {
		if task.PurgeMode != policyv1alpha1.PurgeModeDirectly {
			set[task.FromCluster] = true
		}
	}
	return set
}

// fullyApplied is the FullyApplied condition: True when every expected
// cluster has exactly one applied item.
func fullyApplied(spec *workv1alpha2.ResourceBindingSpec, items []workv1alpha2.AggregatedStatusItem) metav1.Condition {
	expected := expectedClusters(spec)
	ok := len(expected) > 0 && len(expected) == len(items)
	for _, item := range items {
		ok = ok && item.Applied && expected[item.ClusterName]
	}
	if ok {
		return metav1.Condition{Type: workv1alpha2.FullyApplied, Status: metav1.ConditionTrue,
			Reason: workv1alpha2.FullyAppliedSuccessReason, Message: workv1alpha2.FullyAppliedSuccessMessage}
	}
	return metav1.Condition{Type: workv1alpha2.FullyApplied, Status: metav1.ConditionFalse,
		Reason: workv1alpha2.FullyAppliedFailedReason, Message: workv1alpha2.FullyAppliedFailedMessage}
}

// itemsEqual compares aggregated items, statuses as JSON values.
func itemsEqual(a, b []workv1alpha2.AggregatedStatusItem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.ClusterName != y.ClusterName || x.Applied != y.Applied || x.AppliedMessage != y.AppliedMessage ||
			x.Health != y.Health || !manifeststatus.RawEqual(x.Status, y.Status) {
			return false
		}
	}
	return true
}

// templateItems are the items aggregated into the template's status:
// every item except those of clusters the binding is being evicted from
// (a graceful eviction task names them and they are no longer targets).
// Their copy is kept, and reported in the binding's aggregatedStatus,
// until the task ends, but its replicas were handed to other clusters:
// counting both would report more replicas than the template asks for
// (Karmada counts them; Propel does not).
func templateItems(spec *workv1alpha2.ResourceBindingSpec, items []workv1alpha2.AggregatedStatusItem) []workv1alpha2.AggregatedStatusItem {
	if len(spec.GracefulEvictionTasks) == 0 {
		return items
	}
	targets := map[string]bool{}
	for _, tc := range spec.Clusters {
		targets[tc.Name] = true
	}
	for _, rb := range spec.RequiredBy {
		for _, tc := range rb.Clusters {
			targets[tc.Name] = true
		}
	}
	evicted := map[string]bool{}
	for _, task := range spec.GracefulEvictionTasks {
		if !targets[task.FromCluster] {
			evicted[task.FromCluster] = true
		}
	}
	if len(evicted) == 0 {
		return items
	}
	out := make([]workv1alpha2.AggregatedStatusItem, 0, len(items))
	for _, item := range items {
		if !evicted[item.ClusterName] {
			out = append(out, item)
		}
	}
	return out
}
