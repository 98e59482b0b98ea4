package unifiedauth

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/workwriter"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// writeWork writes d's Work through the Work writer in one write: created
// when the cache has none (read fresh if it exists after all), merged into
// the cached one otherwise, and nothing when it is current. d names the
// Cluster as the Work's controller, so that the Work goes with it.
func (r *Reconciler) writeWork(ctx context.Context, d *workwriter.Desired) error {
	cached := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: d.Name}, cached); err != nil {
		if !apierrors.IsNotFound(err) {
			return err
		}
		cached = nil
	}
	written, err := workwriter.Write(ctx, r.client, r.reader, d, cached)
	if written {
		log.FromContext(ctx).V(2).Info("wrote impersonation work", "work", klog.KRef(d.Namespace, d.Name))
	}
	return err
}
