package estimatorserver

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
)

// requirement is a decoded replica requirement: positive amounts per
// resource (CPU in milli-units) and the node constraints.
type requirement struct {
	request     map[corev1.ResourceName]int64
	selector    labels.Selector
	affinity    *nodeaffinity.NodeSelector
	tolerations []corev1.Toleration
}

// decodeRequirement validates what the network sent; errors name the field.
func decodeRequirement(claim *pb.NodeClaim, requests map[string][]byte) (*requirement, error) {
	r := &requirement{request: map[corev1.ResourceName]int64{}}
	for name, b := range requests {
		var q resource.Quantity
		if err := q.Unmarshal(b); err != nil {
			return nil, fmt.Errorf("resourceRequestBytes[%q]: %w", name, err)
		}
		if n := amount(corev1.ResourceName(name), q); n > 0 {
			r.request[corev1.ResourceName(name)] = n
		}
	}
	if claim == nil {
		return r, nil
	}
	if len(claim.NodeSelector) > 0 {
		sel, err := labels.ValidatedSelectorFromSet(claim.NodeSelector)
		if err != nil {
			return nil, fmt.Errorf("nodeClaim.nodeSelector: %w", err)
		}
		r.selector = sel
	}
	if len(claim.NodeAffinityBytes) > 0 {
		var ns corev1.NodeSelector
		if err := ns.Unmarshal(claim.NodeAffinityBytes); err != nil {
			return nil, fmt.Errorf("nodeClaim.nodeAffinityBytes: %w", err)
		}
		if len(ns.NodeSelectorTerms) > 0 {
			aff, err := nodeaffinity.NewNodeSelector(&ns)
			if err != nil {
				return nil, fmt.Errorf("nodeClaim.nodeAffinityBytes: %w", err)
			}
			r.affinity = aff
		}
	}
	for i, b := range claim.TolerationsBytes {
		var t corev1.Toleration
		if err := t.Unmarshal(b); err != nil {
			return nil, fmt.Errorf("nodeClaim.tolerationsBytes[%d]: %w", i, err)
		}
		r.tolerations = append(r.tolerations, t)
	}
	return r, nil
}

// amount is q in the unit the estimator compares: milli-units for CPU,
// whole units (rounded up) otherwise.
func amount(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// unschedulableTaint is what kube-scheduler treats spec.unschedulable as.
var unschedulableTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// fits reports whether a replica with r may run on node.
func (r *requirement) fits(node *corev1.Node) bool {
	if node.Spec.Unschedulable && !r.tolerates(&unschedulableTaint) {
		return false
	}
	if r.selector != nil && !r.selector.Matches(labels.Set(node.Labels)) {
		return false
	}
	if r.affinity != nil && !r.affinity.Match(node) {
		return false
	}
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		if !r.tolerates(t) {
			return false
		}
	}
	return true
}

func (r *requirement) tolerates(t *corev1.Taint) bool {
	return slices.ContainsFunc(r.tolerations, func(tol corev1.Toleration) bool {
		return tol.ToleratesTaint(klog.Background(), t, false)
	})
}
