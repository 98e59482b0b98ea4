package enforcement

import (
	"context"
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// chargedByWebhook reports whether a validating webhook of the control
// plane sees updates of ResourceBindings. In Karmada's layout that
// webhook is karmada-webhook's, which (gate FederatedQuotaEnforcement)
// checks the change of placement against the namespace's quotas and
// charges status.overallUsed itself; karmada-scheduler only reports the
// webhook's 403 QuotaExceeded. Charging in the scheduler too would count
// every placement twice, so the webhook, when installed, owns the charge.
// The configurations are listed through c, the manager's cached client,
// so installing or removing karmada-webhook takes effect on the next
// placement without a restart.
func chargedByWebhook(ctx context.Context, c client.Reader) (bool, error) {
	var configs admissionregistrationv1.ValidatingWebhookConfigurationList
	if err := c.List(ctx, &configs); err != nil {
		return false, fmt.Errorf("list ValidatingWebhookConfigurations: %w", err)
	}
	for i := range configs.Items {
		if ValidatesResourceBindingUpdates(&configs.Items[i]) {
			return true, nil
		}
	}
	return false, nil
}

// ValidatesResourceBindingUpdates reports whether a webhook of cfg has a
// rule matching UPDATE of work.karmada.io/v1alpha2 resourcebindings (the
// main resource, not a subresource), as karmada-webhook's
// resourcebinding.karmada.io rule does.
func ValidatesResourceBindingUpdates(cfg *admissionregistrationv1.ValidatingWebhookConfiguration) bool {
	for _, w := range cfg.Webhooks {
		for _, r := range w.Rules {
			if matchesAny(r.APIGroups, "work.karmada.io") &&
				matchesAny(r.APIVersions, "v1alpha2") &&
				matchesUpdate(r.Operations) &&
				(slices.Contains(r.Resources, "resourcebindings") || slices.Contains(r.Resources, "*") || slices.Contains(r.Resources, "*/*")) {
				return true
			}
		}
	}
	return false
}

func matchesAny(values []string, want string) bool {
	return slices.Contains(values, want) || slices.Contains(values, "*")
}

func matchesUpdate(ops []admissionregistrationv1.OperationType) bool {
	return slices.Contains(ops, admissionregistrationv1.Update) || slices.Contains(ops, admissionregistrationv1.OperationAll)
}
