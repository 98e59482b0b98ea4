package endpointslice

import (
	"context"
	"fmt"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// madeFrom reports whether slice is the copy of work's member slice. The
// work.karmada.io/namespace and work.karmada.io/name annotations (written
// at creation by Karmada and Propel, never rewritten) name the Work; a
// slice without them is work's only when it carries work's permanent id.
// Any other slice (another cluster's copy, or one a user made) is not.
func madeFrom(slice *discoveryv1.EndpointSlice, work *workv1alpha1.Work) bool {
	ns, hasNS := slice.Annotations[names.WorkNamespaceAnnotation]
	name, hasName := slice.Annotations[names.WorkNameAnnotation]
	if hasNS || hasName {
		return ns == work.Namespace && name == work.Name
	}
	id := work.Labels[names.WorkPermanentIDLabel]
	return id != "" && slice.Labels[names.WorkPermanentIDLabel] == id
}

// importedName is the control-plane name for cluster's member slice:
// Karmada's imported-<cluster>-<slice> unless another Work's slice holds
// that name (two clusters whose names and slice names concatenate alike),
// then the collision-free name. A slice is never taken from its owner.
func (r *Reconciler) importedName(ctx context.Context, work *workv1alpha1.Work, cluster string, member *discoveryv1.EndpointSlice) (string, error) {
	candidates := []string{
		names.ImportedEndpointSliceName(cluster, member.Name),
		names.CollisionFreeImportedEndpointSliceName(cluster, member.Name),
	}
	for _, name := range candidates {
		current := &discoveryv1.EndpointSlice{}
		err := r.client.Get(ctx, client.ObjectKey{Namespace: member.Namespace, Name: name}, current)
		if apierrors.IsNotFound(err) || (err == nil && madeFrom(current, work)) {
			return name, nil
		}
		if err != nil {
			return "", fmt.Errorf("get endpointslice %s/%s: %w", member.Namespace, name, err)
		}
	}
	return "", fmt.Errorf("endpointslices %s/%s and %s/%s belong to other Works than %s/%s: slice %s of cluster %s is not imported",
		member.Namespace, candidates[0], member.Namespace, candidates[1], work.Namespace, work.Name, member.Name, cluster)
}
