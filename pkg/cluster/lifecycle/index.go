package lifecycle

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// bindingClustersIndex indexes ResourceBindings and ClusterResourceBindings
// by the names in spec.clusters. The name is private to this controller so
// that it never conflicts with another controller's index.
const bindingClustersIndex = "lifecycle.propel-mc.io/spec.clusters"

func indexBindingClusters(ctx context.Context, indexer client.FieldIndexer) error {
	if err := indexer.IndexField(ctx, &workv1alpha2.ResourceBinding{}, bindingClustersIndex, func(o client.Object) []string {
		return targetNames(o.(*workv1alpha2.ResourceBinding).Spec.Clusters)
	}); err != nil {
		return fmt.Errorf("index resourcebindings by cluster: %w", err)
	}
	if err := indexer.IndexField(ctx, &workv1alpha2.ClusterResourceBinding{}, bindingClustersIndex, func(o client.Object) []string {
		return targetNames(o.(*workv1alpha2.ClusterResourceBinding).Spec.Clusters)
	}); err != nil {
		return fmt.Errorf("index clusterresourcebindings by cluster: %w", err)
	}
	return nil
}

func targetNames(targets []workv1alpha2.TargetCluster) []string {
	out := make([]string, 0, len(targets))
	for _, t := range targets {
		out = append(out, t.Name)
	}
	return out
}

// targetedByBindings reports whether any binding still lists cluster in
// spec.clusters.
func (r *Reconciler) targetedByBindings(ctx context.Context, cluster string) (bool, error) {
	rbs := &workv1alpha2.ResourceBindingList{}
	if err := r.client.List(ctx, rbs, client.MatchingFields{bindingClustersIndex: cluster}, client.Limit(1)); err != nil {
		return false, fmt.Errorf("cluster %s: list resourcebindings: %w", cluster, err)
	}
	if len(rbs.Items) > 0 {
		return true, nil
	}
	crbs := &workv1alpha2.ClusterResourceBindingList{}
	if err := r.client.List(ctx, crbs, client.MatchingFields{bindingClustersIndex: cluster}, client.Limit(1)); err != nil {
		return false, fmt.Errorf("cluster %s: list clusterresourcebindings: %w", cluster, err)
	}
	return len(crbs.Items) > 0, nil
}
