package lifecycle

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/index"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// targetedByBindings reports whether any binding still lists cluster in
// spec.clusters.
func (r *Reconciler) targetedByBindings(ctx context.Context, cluster string) (bool, error) {
	bindings, err := workv1alpha2.ListBindings(ctx, r.client, "", true, client.MatchingFields{index.BindingByTargetCluster: cluster}, client.Limit(1))
	if err != nil {
		return false, fmt.Errorf("cluster %s: %w", cluster, err)
	}
	return len(bindings) > 0, nil
}
