package taintmanager

import (
	"encoding/json"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// never is the delay of a binding that tolerates the taints forever.
const never = time.Duration(-1)

// noExecuteTaints are the NoExecute taints among taints.
func noExecuteTaints(taints []corev1.Taint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range taints {
		if t.Effect == corev1.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// tolerationsOf are the cluster tolerations of b's placement as the
// scheduler last applied it (annotation policy.karmada.io/applied-placement),
// falling back to spec.placement when the annotation is absent or not a
// Placement. (Karmada errors forever in that case and never evicts.)
func tolerationsOf(b workv1alpha2.Binding) []corev1.Toleration {
	if raw := b.GetAnnotations()[names.AppliedPlacementAnnotation]; raw != "" {
		var p policyv1alpha1.Placement
		if err := json.Unmarshal([]byte(raw), &p); err == nil {
			return p.ClusterTolerations
		}
	}
	if p := b.BindingSpec().Placement; p != nil {
		return p.ClusterTolerations
	}
	return nil
}

// evictionDelay says when a binding with tolerations must leave a cluster
// with the NoExecute taints taints: 0 now (a taint is not tolerated, or a
// toleration time has run out), d > 0 after d, never when every
// toleration used is unlimited. For each taint the first toleration that
// tolerates it (corev1.Toleration.ToleratesTaint, Gt and Lt disabled as in
// Karmada) counts; its tolerationSeconds run from the taint's
// timeAdded (taints without timeAdded and tolerations without seconds set
// no deadline).
func evictionDelay(taints []corev1.Taint, tolerations []corev1.Toleration, now time.Time) time.Duration {
	var earliest time.Time
	for i := range taints {
		taint := &taints[i]
		used := -1
		for j := range tolerations {
			if tolerations[j].ToleratesTaint(klog.Background(), taint, false) {
				used = j
				break
			}
		}
		if used < 0 {
			return 0
		}
		seconds := tolerations[used].TolerationSeconds
		if seconds == nil || taint.TimeAdded == nil {
			continue
		}
		deadline := taint.TimeAdded.Add(time.Duration(*seconds) * time.Second)
		if earliest.IsZero() || deadline.Before(earliest) {
			earliest = deadline
		}
	}
	if earliest.IsZero() {
		return never
	}
	if !earliest.After(now) {
		return 0
	}
	return earliest.Sub(now)
}
