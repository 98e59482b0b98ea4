package serviceexport

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"
	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch"
	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// syncExport reports every slice of an exported Service and withdraws
// the Works of slices that are gone; or withdraws every Work of an export
// that is gone.
func (r *Reconciler) syncExport(ctx context.Context, caches *memberwatch.Caches, key memberwatch.Key) error {
	export, err := caches.Get(memberwatch.ServiceExports, key.Namespace, key.Name)
	if err != nil {
		return err
	}
	works, err := r.collectedWorks(ctx, key.Cluster, key.Namespace, key.Name)
	if err != nil {
		return err
	}
	if export == nil {
		return r.clean(ctx, works, nil)
	}
	slices, err := caches.List(memberwatch.EndpointSlices, key.Namespace, labels.SelectorFromSet(labels.Set{names.KubeServiceNameLabel: key.Name}))
	if err != nil {
		return err
	}
	current := make(map[string]bool, len(slices))
	for _, s := range slices {
		current[collectedwork.WorkName(s.GetNamespace(), s.GetName())] = true
	}
	errs := []error{r.clean(ctx, works, current)}
	for _, s := range slices {
		if collectedwork.IsKarmadaManaged(s) {
			continue
		}
		errs = append(errs, collectedwork.Report(ctx, r.Client, r.Reader, key.Cluster, key.Name, s, collectedwork.ServiceExport))
	}
	return errors.Join(errs...)
}

// collectedWorks lists the cluster's collected Works of the ServiceExport
// path for the Service namespace/name.
func (r *Reconciler) collectedWorks(ctx context.Context, cluster, namespace, name string) ([]workv1alpha1.Work, error) {
	works := &workv1alpha1.WorkList{}
	err := r.Client.List(ctx, works, client.InNamespace(names.ExecutionSpace(cluster)),
		client.MatchingLabels{names.EndpointSliceNamespaceLabel: namespace, names.EndpointSliceNameLabel: name})
	if err != nil {
		return nil, fmt.Errorf("list collected Works of service %s/%s in cluster %s: %w", namespace, name, cluster, err)
	}
	out := works.Items[:0]
	for _, w := range works.Items {
		if collectedwork.IsCollected(&w, collectedwork.ServiceExport) {
			out = append(out, w)
		}
	}
	return out, nil
}

// clean withdraws the path from each Work whose name keep lacks.
func (r *Reconciler) clean(ctx context.Context, works []workv1alpha1.Work, keep map[string]bool) error {
	var errs []error
	for i := range works {
		if keep[works[i].Name] {
			continue
		}
		errs = append(errs, collectedwork.Clean(ctx, r.Client, &works[i], collectedwork.ServiceExport))
	}
	return errors.Join(errs...)
}
