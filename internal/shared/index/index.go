package index

import (
	"context"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: the field indexes start informers on Works and bindings.
// +kubebuilder:rbac:groups=work.karmada.io,resources=works;resourcebindings;clusterresourcebindings,verbs=get;list;watch

// Index names. Values are label values or object names, so a List with
// client.MatchingFields{name: value} finds the objects.
const (
	// WorkByResourceBindingID indexes Works by the value of their
	// resourcebinding.karmada.io/permanent-id label: the Works of a
	// ResourceBinding.
	WorkByResourceBindingID = "work.resourceBindingPermanentID"
	// WorkByClusterResourceBindingID indexes Works by the value of their
	// clusterresourcebinding.karmada.io/permanent-id label: the Works of a
	// ClusterResourceBinding.
	WorkByClusterResourceBindingID = "work.clusterResourceBindingPermanentID"
	// BindingByTargetCluster indexes ResourceBindings and
	// ClusterResourceBindings by the cluster names in spec.clusters.
	BindingByTargetCluster = "binding.spec.clusters"
)

// AddDefaultIndexes registers every index on mgr's cache. Call it once,
// after creating the manager and before starting it.
func AddDefaultIndexes(ctx context.Context, mgr ctrl.Manager) error {
	return Add(ctx, mgr.GetFieldIndexer())
}

// Add registers every index with indexer.
func Add(ctx context.Context, indexer client.FieldIndexer) error {
	for _, ix := range []struct {
		obj     client.Object
		name    string
		extract client.IndexerFunc
	}{
		{&workv1alpha1.Work{}, WorkByResourceBindingID, ResourceBindingIDOfWork},
		{&workv1alpha1.Work{}, WorkByClusterResourceBindingID, ClusterResourceBindingIDOfWork},
		{&workv1alpha2.ResourceBinding{}, BindingByTargetCluster, TargetClustersOfBinding},
		{&workv1alpha2.ClusterResourceBinding{}, BindingByTargetCluster, TargetClustersOfBinding},
	} {
		if err := indexer.IndexField(ctx, ix.obj, ix.name, ix.extract); err != nil {
			return fmt.Errorf("index %T by %s: %w", ix.obj, ix.name, err)
		}
	}
	return nil
}

// ResourceBindingIDOfWork extracts WorkByResourceBindingID.
func ResourceBindingIDOfWork(o client.Object) []string {
	return labelValue(o, names.ResourceBindingPermanentIDLabel)
}

// ClusterResourceBindingIDOfWork extracts WorkByClusterResourceBindingID.
func ClusterResourceBindingIDOfWork(o client.Object) []string {
	return labelValue(o, names.ClusterResourceBindingPermanentIDLabel)
}

// TargetClustersOfBinding extracts BindingByTargetCluster.
func TargetClustersOfBinding(o client.Object) []string {
	b, ok := workv1alpha2.AsBinding(o)
	if !ok {
		return nil
	}
	clusters := b.BindingSpec().Clusters
	out := make([]string, 0, len(clusters))
	for _, t := range clusters {
		out = append(out, t.Name)
	}
	return out
}

func labelValue(o client.Object, label string) []string {
	if v := o.GetLabels()[label]; v != "" {
		return []string{v}
	}
	return nil
}

// WorksOf selects the Works of b through WorkByResourceBindingID or
// WorkByClusterResourceBindingID, by b's permanent id.
func WorksOf(b workv1alpha2.Binding) client.MatchingFields {
	name := WorkByResourceBindingID
	if !b.Namespaced() {
		name = WorkByClusterResourceBindingID
	}
	return client.MatchingFields{name: workv1alpha2.PermanentID(b)}
}
