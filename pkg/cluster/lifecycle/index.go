package lifecycle

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/index"
)

// targetedByBindings reports whether any binding still lists cluster in
// spec.clusters.
func (r *Reconciler) targetedByBindings(ctx context.Context, cluster string) (bool, error) {
	rbs := &workv1alpha2.ResourceBindingList{}
	if err := r.client.List(ctx, rbs, client.MatchingFields{index.BindingByTargetCluster: cluster}, client.Limit(1)); err != nil {
		return false, fmt.Errorf("cluster %s: list resourcebindings: %w", cluster, err)
	}
	if len(rbs.Items) > 0 {
		return true, nil
	}
	crbs := &workv1alpha2.ClusterResourceBindingList{}
	if err := r.client.List(ctx, crbs, client.MatchingFields{index.BindingByTargetCluster: cluster}, client.Limit(1)); err != nil {
		return false, fmt.Errorf("cluster %s: list clusterresourcebindings: %w", cluster, err)
	}
	return len(crbs.Items) > 0, nil
}
