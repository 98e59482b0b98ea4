package status

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// amounts are resource quantities in integer units: millicores for cpu,
// plain units (bytes, counts) for everything else. Summing pod requests in
// int64 keeps the summary cheap on clusters with many pods.
type amounts map[corev1.ResourceName]int64

// amountOf converts q to the unit amounts uses for name.
func amountOf(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

func (a amounts) add(list corev1.ResourceList) {
	for name, q := range list {
		a[name] += amountOf(name, q)
	}
}

// max raises every resource of a to at least the value in list.
func (a amounts) max(list corev1.ResourceList) {
	for name, q := range list {
		if v := amountOf(name, q); v > a[name] {
			a[name] = v
		}
	}
}

func (a amounts) addAmounts(b amounts) {
	for name, v := range b {
		a[name] += v
	}
}

// podRequests is the effective request of a pod as the scheduler sees it:
// the sum of its containers' requests, raised per resource to the largest
// init container request, plus the pod overhead.
func podRequests(spec *corev1.PodSpec) amounts {
	r := amounts{}
	for i := range spec.Containers {
		r.add(spec.Containers[i].Resources.Requests)
	}
	for i := range spec.InitContainers {
		r.max(spec.InitContainers[i].Resources.Requests)
	}
	r.add(spec.Overhead)
	return r
}

// standardResources are always present in allocated and allocating, zero
// or not, as Karmada reports them.
var standardResources = []corev1.ResourceName{
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods,
}

// resourceList renders a as a ResourceList with Karmada's formats: cpu in
// millicores, memory-like resources in binary SI, counts in decimal SI.
func (a amounts) resourceList() corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, name := range standardResources {
		out[name] = quantity(name, a[name])
	}
	for name, v := range a {
		if _, ok := out[name]; !ok {
			out[name] = quantity(name, v)
		}
	}
	return out
}

func quantity(name corev1.ResourceName, v int64) resource.Quantity {
	switch {
	case name == corev1.ResourceCPU:
		return *resource.NewMilliQuantity(v, resource.DecimalSI)
	case name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage || isHugePages(name):
		return *resource.NewQuantity(v, resource.BinarySI)
	default:
		return *resource.NewQuantity(v, resource.DecimalSI)
	}
}

func isHugePages(name corev1.ResourceName) bool {
	const prefix = corev1.ResourceHugePagesPrefix
	return len(name) > len(prefix) && name[:len(prefix)] == prefix
}

// sumLists adds lists exactly, keeping every resource name and format.
func sumLists(dst corev1.ResourceList, src corev1.ResourceList) {
	for name, q := range src {
		if cur, ok := dst[name]; ok {
			cur.Add(q)
			dst[name] = cur
		} else {
			dst[name] = q.DeepCopy()
		}
	}
}
