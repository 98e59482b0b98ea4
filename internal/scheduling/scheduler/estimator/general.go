package estimator

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// General is Karmada's general estimator over status.resourceSummary.
type General struct {
	// DisableResourceModels turns the resource-model path off (the
	// CustomizedClusterResourceModeling gate, on by default).
	DisableResourceModels bool
}

// MaxAvailableReplicas implements Estimator.
func (g General) MaxAvailableReplicas(c *clusterv1alpha1.Cluster, req *workv1alpha2.ReplicaRequirements) int64 {
	summary, allowedPods := podRoom(c)
	if allowedPods <= 0 {
		return 0
	}
	if req == nil {
		return allowedPods
	}
	if !g.DisableResourceModels && len(summary.AllocatableModelings) > 0 {
		if n, ok := fromResourceModels(c, req.ResourceRequest); ok {
			return min(allowedPods, n)
		}
	}
	return fromSummary(summary, req.ResourceRequest, allowedPods)
}

// podRoom returns the cluster's resource summary and how many more pods
// it admits: none without a summary.
func podRoom(c *clusterv1alpha1.Cluster) (*clusterv1alpha1.ResourceSummary, int64) {
	summary := c.Status.ResourceSummary
	if summary == nil {
		return nil, 0
	}
	return summary, available(summary, corev1.ResourcePods)
}

// MaxAvailableComponentSets implements ComponentSetEstimator: how many
// complete sets of components fit in the cluster's free resources. A set
// needs the sum of its components' pods and of their requests times
// replicas; the bound is taken from the resource summary (resource models
// describe nodes for one pod shape and are not used for sets).
func (g General) MaxAvailableComponentSets(c *clusterv1alpha1.Cluster, components []workv1alpha2.Component) int64 {
	summary, allowedPods := podRoom(c)
	if allowedPods <= 0 {
		return 0
	}
	setPods, setRequest := componentSet(components)
	if setPods == 0 {
		return allowedPods
	}
	return fromSummary(summary, setRequest, allowedPods/setPods)
}

// componentSet is what one complete set of components needs: its pods
// and the sum of every replica's requests.
func componentSet(components []workv1alpha2.Component) (pods int64, request corev1.ResourceList) {
	request = corev1.ResourceList{}
	for _, comp := range components {
		if comp.Replicas <= 0 {
			continue
		}
		pods += int64(comp.Replicas)
		if comp.ReplicaRequirements == nil {
			continue
		}
		for name, q := range comp.ReplicaRequirements.ResourceRequest {
			total := q.DeepCopy()
			total.Mul(int64(comp.Replicas))
			if sum, ok := request[name]; ok {
				total.Add(sum)
			}
			request[name] = total
		}
	}
	return pods, request
}

// fromSummary bounds the replicas by each requested resource's
// allocatable − allocated − allocating, and by allowedPods.
func fromSummary(summary *clusterv1alpha1.ResourceSummary, request corev1.ResourceList, allowedPods int64) int64 {
	result := allowedPods
	for name, q := range request {
		if q.Value() <= 0 {
			continue
		}
		avail := available(summary, name)
		if avail <= 0 {
			return 0
		}
		result = min(result, avail/amount(name, q))
	}
	return result
}

// available is allocatable − allocated − allocating of one resource, 0 when
// the cluster does not report it as allocatable. CPU is in milli-units.
func available(summary *clusterv1alpha1.ResourceSummary, name corev1.ResourceName) int64 {
	alloc, ok := summary.Allocatable[name]
	if !ok {
		return 0
	}
	n := amount(name, alloc)
	if q, ok := summary.Allocated[name]; ok {
		n -= amount(name, q)
	}
	if q, ok := summary.Allocating[name]; ok {
		n -= amount(name, q)
	}
	return n
}

// amount is q in the unit the estimator compares: milli-units for CPU,
// whole units otherwise.
func amount(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// clampInt32 caps n at MaxInt32.
func clampInt32(n int64) int64 { return min(n, math.MaxInt32) }
