package plugins

import (
	corev1 "k8s.io/api/core/v1"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/pkg/scheduler/framework"
)

// TaintToleration passes clusters already targeted; otherwise it fails on
// the first NoSchedule or NoExecute taint that placement.clusterTolerations
// do not tolerate.
type TaintToleration struct{}

// Name implements framework.FilterPlugin.
func (TaintToleration) Name() string { return TaintTolerationName }

// Filter implements framework.FilterPlugin.
func (TaintToleration) Filter(b *framework.BindingInfo, c *clusterv1alpha1.Cluster) string {
	if b.Targeted(c.Name) {
		return ""
	}
	tolerations := b.Spec.Placement.ClusterTolerations
	for i := range c.Spec.Taints {
		taint := &c.Spec.Taints[i]
		if taint.Effect != corev1.TaintEffectNoSchedule && taint.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !Tolerated(tolerations, taint) {
			return "cluster(s) had untolerated taint {" + taint.ToString() + "}"
		}
	}
	return ""
}

// Tolerated reports whether any toleration tolerates taint, with
// Kubernetes semantics restricted to the Equal and Exists operators: the
// effect matches (or the toleration has none), an empty key with Exists
// matches every key, Exists ignores the value, Equal (or empty) compares
// it.
func Tolerated(tolerations []corev1.Toleration, taint *corev1.Taint) bool {
	for i := range tolerations {
		if tolerates(&tolerations[i], taint) {
			return true
		}
	}
	return false
}

// Tolerates reports whether toleration t tolerates taint, with the
// semantics of Tolerated (the taint manager picks the first toleration
// that does, for its tolerationSeconds).
func Tolerates(t *corev1.Toleration, taint *corev1.Taint) bool { return tolerates(t, taint) }

func tolerates(t *corev1.Toleration, taint *corev1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case corev1.TolerationOpExists:
		return true
	case corev1.TolerationOpEqual, "":
		return t.Value == taint.Value
	default:
		return false
	}
}
