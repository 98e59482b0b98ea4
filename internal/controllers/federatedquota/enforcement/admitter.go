package enforcement

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/controllers/federatedquota/usage"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Admitter is the quota check of a new placement. Karmada makes it in the
// ResourceBinding validating webhook, so a scheduler write that exceeds a
// quota is refused with 403 QuotaExceeded. Propel's scheduler calls Admit
// before writing, with the same arithmetic and the same optimistic charge
// of status.overallUsed, unless a validating webhook for ResourceBinding
// updates is installed (karmada-webhook running beside Propel): that
// webhook then charges the write and Admit leaves it to it.
type Admitter struct {
	Client client.Client
}

// Admit charges the change from oldSpec's placement to newSpec's to every
// quota of namespace, or refuses it with a *usage.Exceeded naming the
// first quota and resource it would exceed (nothing is charged then),
// or charges nothing when a ResourceBinding webhook owns the charge. A
// newSpec with a negative request or replica count is refused with an
// error wrapping usage.ErrNegativeCharge (the caller names the binding).
// Quota statuses are updated only when every quota admits; a conflict
// re-runs the whole evaluation.
func (a *Admitter) Admit(ctx context.Context, namespace string, oldSpec, newSpec *workv1alpha2.ResourceBindingSpec) error {
	if err := usage.CheckBinding(newSpec); err != nil {
		return fmt.Errorf("refuse the placement: %w", err)
	}
	delta := usage.Delta(usage.OfBinding(oldSpec), usage.OfBinding(newSpec))
	if len(delta) == 0 {
		return nil
	}
	webhook, err := chargedByWebhook(ctx, a.Client)
	if err != nil {
		return fmt.Errorf("find who charges FederatedResourceQuotas of %s: %w", namespace, err)
	}
	if webhook {
		return nil
	}
	var refused error
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		refused = nil
		var quotas policyv1alpha1.FederatedResourceQuotaList
		if err := a.Client.List(ctx, &quotas, client.InNamespace(namespace)); err != nil {
			return fmt.Errorf("list FederatedResourceQuotas of %s: %w", namespace, err)
		}
		type charge struct {
			frq  *policyv1alpha1.FederatedResourceQuota
			used corev1.ResourceList
		}
		var charges []charge
		for i := range quotas.Items {
			frq := &quotas.Items[i]
			if frq.Spec.Overall == nil {
				continue
			}
			d := usage.Restrict(delta, frq.Spec.Overall)
			if len(d) == 0 {
				continue
			}
			used, exceeded := usage.Charge(frq.Namespace, frq.Name, frq.Spec.Overall, frq.Status.OverallUsed, d)
			if exceeded != nil {
				refused = exceeded
				return nil
			}
			charges = append(charges, charge{frq, used})
		}
		for _, c := range charges {
			c.frq.Status.OverallUsed = c.used
			if err := a.Client.Status().Update(ctx, c.frq); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("charge FederatedResourceQuotas of %s: %w", namespace, err)
	}
	return refused
}
