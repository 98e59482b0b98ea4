package cronfederatedhpa

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// maxNamedDuplicates bounds how many duplicated rule names one message
// lists; the rest are counted.
const maxNamedDuplicates = 3

// validateRules refuses rules that share a name. The name keys a rule's
// execution history and its armed schedule, so two rules of one name
// would overwrite each other at every reconcile and neither would ever
// fire; Karmada's validating webhook rejects such an object, and Propel,
// which has no webhook, refuses it here until the names are fixed.
func validateRules(rules []autoscalingv1alpha1.CronFederatedHPARule) error {
	indexes := make(map[string][]int, len(rules))
	var duplicated []string
	for i, rule := range rules {
		indexes[rule.Name] = append(indexes[rule.Name], i)
		if len(indexes[rule.Name]) == 2 {
			duplicated = append(duplicated, rule.Name)
		}
	}
	if len(duplicated) == 0 {
		return nil
	}
	slices.Sort(duplicated)
	parts := make([]string, 0, maxNamedDuplicates+1)
	for _, name := range duplicated[:min(len(duplicated), maxNamedDuplicates)] {
		parts = append(parts, fmt.Sprintf("%q (rules %s)", boundedtext.Limit(name, 64), joinIndexes(indexes[name])))
	}
	if more := len(duplicated) - maxNamedDuplicates; more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	return fmt.Errorf("duplicated rule name %s: rule names must be unique, no rule runs until they are", strings.Join(parts, ", "))
}

// joinIndexes lists the first few indexes of a duplicated name.
func joinIndexes(indexes []int) string {
	const shown = 4
	parts := make([]string, 0, shown+1)
	for _, i := range indexes[:min(len(indexes), shown)] {
		parts = append(parts, strconv.Itoa(i))
	}
	if len(indexes) > shown {
		parts = append(parts, "…")
	}
	return strings.Join(parts, ", ")
}

// refuse stops every rule of cron, whose rules cannot run as given
// (reason), and says so: a Warning event, and no next execution time in
// any history (CronFederatedHPA's status has no conditions in Karmada's
// API). It does not requeue: only a spec change, which triggers a
// reconcile, can fix the rules.
func (r *Reconciler) refuse(ctx context.Context, cron *autoscalingv1alpha1.CronFederatedHPA, reason error) error {
	key := client.ObjectKeyFromObject(cron)
	r.forget(key)
	msg := boundedtext.String(fmt.Sprintf("CronFederatedHPA(%s): %v", key, reason))
	r.recorder.Event(cron, corev1.EventTypeWarning, EventReasonValidateRulesFailed, msg)
	log.FromContext(ctx).Info("cron rules refused", "cronFederatedHPA", klog.KObj(cron), "reason", msg)
	if err := r.recordStatus(ctx, key, &armedObject{}, nil); err != nil {
		r.recorder.Eventf(cron, corev1.EventTypeWarning, EventReasonUpdateStatusFailed, "Failed to update the status of CronFederatedHPA(%s): %v", key, boundedtext.Error(err))
		return err
	}
	return nil
}
