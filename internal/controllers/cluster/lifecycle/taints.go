package lifecycle

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	clustertaints "github.com/propel-mc/propel/internal/controllers/cluster/taints"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// The taints the controller manages. Karmada adds NoExecute variants only
// with the Failover gate (default off), so Propel manages NoSchedule only.
var (
	notReadyTaint    = corev1.Taint{Key: clusterv1alpha1.TaintClusterNotReady, Effect: corev1.TaintEffectNoSchedule}
	unreachableTaint = corev1.Taint{Key: clusterv1alpha1.TaintClusterUnreachable, Effect: corev1.TaintEffectNoSchedule}
)

// taintChange derives from the Ready condition which managed taints the
// cluster must carry and which it must not:
//
//	Ready False   -> add not-ready, remove unreachable
//	Ready Unknown -> add unreachable, remove not-ready
//	Ready True    -> remove both
//	no Ready      -> add not-ready
func taintChange(conditions []metav1.Condition) (add, remove []corev1.Taint) {
	ready := meta.FindStatusCondition(conditions, clusterv1alpha1.ClusterConditionReady)
	switch {
	case ready == nil:
		return []corev1.Taint{notReadyTaint}, nil
	case ready.Status == metav1.ConditionFalse:
		return []corev1.Taint{notReadyTaint}, []corev1.Taint{unreachableTaint}
	case ready.Status == metav1.ConditionUnknown:
		return []corev1.Taint{unreachableTaint}, []corev1.Taint{notReadyTaint}
	default:
		return nil, []corev1.Taint{notReadyTaint, unreachableTaint}
	}
}

// applyTaints returns taints with remove dropped and the missing members of
// add appended (stamped with now), and whether anything changed. Taints
// are matched by key and effect; other taints keep their order.
func applyTaints(taints, add, remove []corev1.Taint, now time.Time) ([]corev1.Taint, bool) {
	out := make([]corev1.Taint, 0, len(taints)+len(add))
	changed := false
	for _, t := range taints {
		if containsTaint(remove, t) {
			changed = true
			continue
		}
		out = append(out, t)
	}
	for _, t := range add {
		if containsTaint(out, t) {
			continue
		}
		stamp := metav1.NewTime(now)
		t.TimeAdded = &stamp
		out = append(out, t)
		changed = true
	}
	return out, changed
}

// stampNoExecute sets timeAdded on the NoExecute taints that lack it
// (taints is modified) and reports whether any did. Karmada's aggregated
// Cluster API stamps them on every write; Cluster is a CRD here, so the
// cluster controller does it, since NoExecute toleration times count from
// timeAdded.
func stampNoExecute(taints []corev1.Taint, now time.Time) bool {
	stamped := false
	for i := range taints {
		if taints[i].Effect == corev1.TaintEffectNoExecute && taints[i].TimeAdded == nil {
			stamp := metav1.NewTime(now)
			taints[i].TimeAdded = &stamp
			stamped = true
		}
	}
	return stamped
}

func containsTaint(taints []corev1.Taint, t corev1.Taint) bool {
	for i := range taints {
		if taints[i].MatchTaint(&t) {
			return true
		}
	}
	return false
}

// ensureTaints writes spec.taints when the Ready condition calls for a
// different set of managed taints (a patch with optimistic locking).
func (r *Reconciler) ensureTaints(ctx context.Context, cluster *clusterv1alpha1.Cluster) error {
	add, remove := taintChange(cluster.Status.Conditions)
	now := time.Now()
	taints, changed := applyTaints(cluster.Spec.Taints, add, remove, now)
	if stampNoExecute(taints, now) {
		changed = true
	}
	if !changed {
		return nil
	}
	patch := client.MergeFromWithOptions(cluster.DeepCopy(), client.MergeFromWithOptimisticLock{})
	cluster.Spec.Taints = taints
	if err := r.client.Patch(ctx, cluster, patch); err != nil {
		r.recorder.Event(cluster, corev1.EventTypeWarning, EventReasonTaintClusterFailed, boundedtext.String(err.Error()))
		return fmt.Errorf("cluster %s: update taints: %w", cluster.Name, err)
	}
	r.recorder.Event(cluster, corev1.EventTypeNormal, EventReasonTaintClusterSucceed, "Taint cluster succeed: "+clustertaints.Summary(taints)+".")
	log.FromContext(ctx).Info("updated cluster taints", "taints", clustertaints.Summary(taints))
	return nil
}
