package status

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// Reconcile writes the quota's status when it changed.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	_, err := aggregateStatus.Run(ctx, r.client, r.recorder, req.NamespacedName, r.aggregate)
	return reconcile.Result{}, err
}

func (r *Reconciler) aggregate(ctx context.Context, frq *policyv1alpha1.FederatedResourceQuota) error {
	var works workv1alpha1.WorkList
	if err := r.client.List(ctx, &works, client.MatchingLabels{
		names.FederatedResourceQuotaNamespaceLabel: frq.Namespace,
		names.FederatedResourceQuotaNameLabel:      frq.Name,
	}); err != nil {
		return fmt.Errorf("list Works: %w", err)
	}
	entries, err := ClusterStatuses(works.Items)
	if err != nil {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current := &policyv1alpha1.FederatedResourceQuota{}
		if err := r.client.Get(ctx, client.ObjectKeyFromObject(frq), current); err != nil {
			return client.IgnoreNotFound(err)
		}
		want := current.Status.DeepCopy()
		want.AggregatedStatus = entries
		if !r.opts.Enforcement {
			want.Overall = current.Spec.Overall
			want.OverallUsed = SumUsed(entries)
		}
		if apiequality.Semantic.DeepEqual(*want, current.Status) {
			return nil
		}
		current.Status = *want
		return r.client.Status().Update(ctx, current)
	})
}

// ClusterStatuses reads the member ResourceQuota status each applied Work
// reflects, sorted by cluster name. Works not applied yet, or without a
// reflected status, are skipped; a Work outside an execution namespace or
// a status that is not a ResourceQuotaStatus is an error naming the Work.
func ClusterStatuses(works []workv1alpha1.Work) ([]policyv1alpha1.ClusterQuotaStatus, error) {
	var out []policyv1alpha1.ClusterQuotaStatus
	for i := range works {
		w := &works[i]
		if !workApplied(w) || len(w.Status.ManifestStatuses) == 0 {
			continue
		}
		cluster, err := names.ClusterOfExecutionSpace(w.Namespace)
		if err != nil {
			return nil, fmt.Errorf("work %s/%s: %w", w.Namespace, w.Name, err)
		}
		raw := w.Status.ManifestStatuses[0].Status
		if raw == nil || len(raw.Raw) == 0 {
			continue
		}
		var st corev1.ResourceQuotaStatus
		if err := json.Unmarshal(raw.Raw, &st); err != nil {
			return nil, fmt.Errorf("work %s/%s: status is not a ResourceQuotaStatus: %w", w.Namespace, w.Name, err)
		}
		out = append(out, policyv1alpha1.ClusterQuotaStatus{ClusterName: cluster, Hard: st.Hard, Used: st.Used})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ClusterName < out[j].ClusterName })
	return out, nil
}

func workApplied(w *workv1alpha1.Work) bool {
	for _, c := range w.Status.Conditions {
		if c.Type == workv1alpha1.WorkApplied {
			return c.Status == "True"
		}
	}
	return false
}

// SumUsed is the per-resource sum of the entries' usage (every key).
func SumUsed(entries []policyv1alpha1.ClusterQuotaStatus) corev1.ResourceList {
	if len(entries) == 0 {
		return nil
	}
	sum := corev1.ResourceList{}
	for _, e := range entries {
		for name, q := range e.Used {
			total := sum[name]
			total.Add(q)
			sum[name] = total
		}
	}
	return sum
}
