package status

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/propel-mc/propel/internal/shared/membercluster"
)

// amounts are resource quantities in the units of membercluster.Amounts:
// millicores for cpu, plain units (bytes, counts) for everything else.
// Summing pod requests in int64 keeps the summary cheap on clusters with
// many pods.
type amounts map[corev1.ResourceName]int64

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

// formattedSum adds amounts keeping, per resource, the format of the
// first one, as summing their Quantities would.
type formattedSum struct {
	values  amounts
	formats map[corev1.ResourceName]resource.Format
}

func newFormattedSum() formattedSum {
	return formattedSum{values: amounts{}, formats: map[corev1.ResourceName]resource.Format{}}
}

func (s formattedSum) add(a *membercluster.Amounts) {
	a.Each(func(name corev1.ResourceName, v int64, f resource.Format) {
		if _, ok := s.formats[name]; !ok {
			s.formats[name] = f
		}
		s.values[name] += v
	})
}

func (s formattedSum) resourceList() corev1.ResourceList {
	out := make(corev1.ResourceList, len(s.values))
	for name, v := range s.values {
		out[name] = membercluster.QuantityOf(name, v, s.formats[name])
	}
	return out
}
