package serviceexport

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"
	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch"
	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// syncSlice reports a slice of an exported Service, or withdraws the Work
// of a slice that is gone.
func (r *Reconciler) syncSlice(ctx context.Context, caches *memberwatch.Caches, key memberwatch.Key) error {
	slice, err := caches.Get(memberwatch.EndpointSlices, key.Namespace, key.Name)
	if err != nil {
		return err
	}
	if slice == nil {
		work := &workv1alpha1.Work{}
		err := r.Client.Get(ctx, types.NamespacedName{Namespace: names.ExecutionSpace(key.Cluster), Name: collectedwork.WorkName(key.Namespace, key.Name)}, work)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if !collectedwork.IsCollected(work, collectedwork.ServiceExport) {
			return nil
		}
		return collectedwork.Clean(ctx, r.Client, work, collectedwork.ServiceExport)
	}
	if collectedwork.IsKarmadaManaged(slice) {
		return nil
	}
	service := slice.GetLabels()[names.KubeServiceNameLabel]
	if service == "" {
		return nil
	}
	export, err := caches.Get(memberwatch.ServiceExports, key.Namespace, service)
	if err != nil || export == nil {
		return err
	}
	return collectedwork.Report(ctx, r.Client, r.Reader, key.Cluster, service, slice, collectedwork.ServiceExport)
}
