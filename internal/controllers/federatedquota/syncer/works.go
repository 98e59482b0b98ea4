package syncer

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workwriter"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// desiredWork is the Work carrying the ResourceQuota of one assignment.
func desiredWork(frq *policyv1alpha1.FederatedResourceQuota, a policyv1alpha1.StaticClusterAssignment) (*workwriter.Desired, error) {
	rq := &corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Hard: a.Hard}}
	rq.Namespace, rq.Name = frq.Namespace, frq.Name
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(rq)
	if err != nil {
		return nil, fmt.Errorf("convert the ResourceQuota of cluster %s: %w", a.ClusterName, err)
	}
	obj := &unstructured.Unstructured{Object: content}
	obj.SetAPIVersion("v1")
	obj.SetKind("ResourceQuota")
	d := &workwriter.Desired{
		Cluster:   a.ClusterName,
		Namespace: names.ExecutionSpace(a.ClusterName),
		Name:      names.WorkName("ResourceQuota", frq.Name, frq.Namespace),
		Labels: map[string]string{
			names.FederatedResourceQuotaNamespaceLabel: frq.Namespace,
			names.FederatedResourceQuotaNameLabel:      frq.Name,
		},
		Manifest: obj,
	}
	if err := workwriter.PrepareManifest(obj, d.Namespace, d.Name); err != nil {
		return nil, err
	}
	return d, nil
}

// removeWorks deletes the quota's Works outside keep (execution
// namespaces); nil keep removes all of them. Removing a Work only asks the
// execution controller to delete the member ResourceQuota: a member that
// is unreachable keeps it until it comes back.
func (r *Reconciler) removeWorks(ctx context.Context, namespace, name string, keep []string) error {
	var works workv1alpha1.WorkList
	if err := r.client.List(ctx, &works, client.MatchingLabels{
		names.FederatedResourceQuotaNamespaceLabel: namespace,
		names.FederatedResourceQuotaNameLabel:      name,
	}); err != nil {
		return fmt.Errorf("list Works of FederatedResourceQuota %s/%s: %w", namespace, name, err)
	}
	var errs []error
	for i := range works.Items {
		w := &works.Items[i]
		if slices.Contains(keep, w.Namespace) || w.DeletionTimestamp != nil {
			continue
		}
		if err := r.client.Delete(ctx, w); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("delete Work %s/%s: %w", w.Namespace, w.Name, err))
		}
	}
	return kerrors.NewAggregate(errs)
}
