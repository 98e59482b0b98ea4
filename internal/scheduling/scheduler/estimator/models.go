package estimator

import (
	"cmp"
	"math"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// podsPerVirtualNode is the pod capacity of every virtual node.
const podsPerVirtualNode = 110

// fromResourceModels first-fits one-pod replicas onto virtual nodes: for
// each grade (ascending) reported in allocatableModelings, count nodes
// whose capacity is the minimum of every range of that grade plus 110
// pods. A requested resource the model does not define has capacity 0.
// It reports false when the cluster has no usable model.
func fromResourceModels(c *clusterv1alpha1.Cluster, request corev1.ResourceList) (int64, bool) {
	models := standardModels(c.Spec.ResourceModels)
	if len(models) == 0 {
		return 0, false
	}
	counts := make(map[uint]int64, len(c.Status.ResourceSummary.AllocatableModelings))
	for _, m := range c.Status.ResourceSummary.AllocatableModelings {
		if m.Grade >= 0 && m.Count > 0 {
			counts[uint(m.Grade)] += int64(m.Count)
		}
	}
	var total int64
	for i := range models {
		nodes := counts[models[i].Grade]
		if nodes == 0 {
			continue
		}
		perNode := replicasPerNode(&models[i], request)
		if perNode > 0 && nodes > (math.MaxInt32-total)/perNode {
			return math.MaxInt32, true
		}
		total = clampInt32(total + nodes*perNode)
	}
	return total, true
}

// replicasPerNode is how many replicas fit on one virtual node of model.
func replicasPerNode(model *clusterv1alpha1.ResourceModel, request corev1.ResourceList) int64 {
	fit := int64(podsPerVirtualNode)
	for name, q := range request {
		need := amount(name, q)
		if need <= 0 {
			continue
		}
		capacity := int64(0)
		for _, r := range model.Ranges {
			if corev1.ResourceName(r.Name) == name {
				capacity = amount(name, r.Min)
				break
			}
		}
		fit = min(fit, capacity/need)
	}
	return fit
}

// standardModels returns the cluster's models sorted by grade with the
// first grade's minimums forced to 0 (what Karmada's cluster API does on
// write), or Karmada's default models when the cluster has none.
func standardModels(models []clusterv1alpha1.ResourceModel) []clusterv1alpha1.ResourceModel {
	if len(models) == 0 {
		return defaultModels()
	}
	if slices.IsSortedFunc(models, byGrade) && firstGradeFromZero(models) {
		return models
	}
	sorted := make([]clusterv1alpha1.ResourceModel, len(models))
	for i := range models {
		models[i].DeepCopyInto(&sorted[i])
	}
	slices.SortFunc(sorted, byGrade)
	for i := range sorted[0].Ranges {
		sorted[0].Ranges[i].Min = resource.Quantity{}
	}
	return sorted
}

func byGrade(a, b clusterv1alpha1.ResourceModel) int { return cmp.Compare(a.Grade, b.Grade) }

func firstGradeFromZero(models []clusterv1alpha1.ResourceModel) bool {
	for _, r := range models[0].Ranges {
		if !r.Min.IsZero() {
			return false
		}
	}
	return true
}

// defaultModels are the models Karmada's cluster API fills in: grade 0 is
// cpu [0,1) memory [0,4Gi), grade 1 cpu [1,2) memory [4Gi,16Gi), grade k
// (2..7) cpu [2^(k-1),2^k) memory [2^(k+2),2^(k+3))Gi, grade 8 cpu
// [128,inf) memory [1024Gi,inf).
var defaultModels = sync.OnceValue(func() []clusterv1alpha1.ResourceModel {
	grade := func(g uint, cpuMin, cpuMax, memMinGi, memMaxGi int64) clusterv1alpha1.ResourceModel {
		return clusterv1alpha1.ResourceModel{Grade: g, Ranges: []clusterv1alpha1.ResourceModelRange{
			{Name: clusterv1alpha1.ResourceCPU, Min: *resource.NewQuantity(cpuMin, resource.DecimalSI), Max: *resource.NewQuantity(cpuMax, resource.DecimalSI)},
			{Name: clusterv1alpha1.ResourceMemory, Min: *resource.NewQuantity(memMinGi<<30, resource.BinarySI), Max: *resource.NewQuantity(memMaxGi<<30, resource.BinarySI)},
		}}
	}
	models := []clusterv1alpha1.ResourceModel{grade(0, 0, 1, 0, 4), grade(1, 1, 2, 4, 16)}
	for k := uint(2); k <= 7; k++ {
		models = append(models, grade(k, 1<<(k-1), 1<<k, 1<<(k+2), 1<<(k+3)))
	}
	return append(models, grade(8, 128, math.MaxInt64, 1024, math.MaxInt64>>30))
})
