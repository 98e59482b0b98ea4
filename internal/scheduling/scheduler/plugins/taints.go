package plugins

import (
	corev1 "k8s.io/api/core/v1"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// TaintToleration passes clusters already targeted; otherwise it fails on
// the first NoSchedule or NoExecute taint that placement.clusterTolerations
// do not tolerate. Tolerations match taints as Kubernetes matches them
// (corev1.Toleration.ToleratesTaint) without the Gt and Lt operators, which
// Karmada leaves disabled: such a toleration tolerates nothing.
type TaintToleration struct{}

// Name implements framework.FilterPlugin.
func (TaintToleration) Name() string { return TaintTolerationName }

// Filter implements framework.FilterPlugin.
func (TaintToleration) Filter(b *framework.BindingInfo, c *clusterv1alpha1.Cluster) string {
	if b.Targeted(c.Name) {
		return ""
	}
	taint, untolerated := v1helper.FindMatchingUntoleratedTaint(klog.Background(), c.Spec.Taints, b.Spec.Placement.ClusterTolerations, schedulingTaints, false)
	if untolerated {
		return "cluster(s) had untolerated taint {" + taint.ToString() + "}"
	}
	return ""
}

// schedulingTaints are the taints that keep new placements off a cluster.
func schedulingTaints(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}
