package enforcement

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/federatedquota/usage"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Reconcile sets status.overall and status.overallUsed from the
// namespace's bindings, and comes back after Options.SyncPeriod.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	live, err := collectOverallStatus.Run(ctx, r.client, r.recorder, req.NamespacedName, r.collect)
	if !live || err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: r.opts.SyncPeriod}, nil
}

func (r *Reconciler) collect(ctx context.Context, frq *policyv1alpha1.FederatedResourceQuota) error {
	var bindings workv1alpha2.ResourceBindingList
	if err := r.client.List(ctx, &bindings, client.InNamespace(frq.Namespace)); err != nil {
		return fmt.Errorf("list ResourceBindings: %w", err)
	}
	for i := range bindings.Items {
		if err := usage.CheckBinding(&bindings.Items[i].Spec); err != nil {
			log.FromContext(ctx).Error(err, "binding charges nothing for its negative requests", "binding", klog.KObj(&bindings.Items[i]))
		}
	}
	used := OverallUsed(bindings.Items, frq.Spec.Overall)
	if apiequality.Semantic.DeepEqual(frq.Status.Overall, frq.Spec.Overall) && apiequality.Semantic.DeepEqual(frq.Status.OverallUsed, used) {
		return nil
	}
	frq.Status.Overall = frq.Spec.Overall
	frq.Status.OverallUsed = used
	if err := r.client.Status().Update(ctx, frq); err != nil {
		return fmt.Errorf("update status: %w", err)
	}
	return nil
}

// OverallUsed is what the bindings charge, summed, restricted to the
// resources of overall (ClusterResourceBindings are not counted, as in
// Karmada).
func OverallUsed(bindings []workv1alpha2.ResourceBinding, overall corev1.ResourceList) corev1.ResourceList {
	sum := corev1.ResourceList{}
	for i := range bindings {
		for n, q := range usage.OfBinding(&bindings[i].Spec) {
			total := sum[n]
			total.Add(q)
			sum[n] = total
		}
	}
	return usage.Restrict(sum, overall)
}
