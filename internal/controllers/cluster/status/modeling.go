package status

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/propel-mc/propel/internal/shared/membercluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// modelsOf returns the cluster's resource models, or Karmada's default
// grades when none are set (Karmada's API server defaults them; Propel's
// Cluster CRD cannot).
func modelsOf(cluster *clusterv1alpha1.Cluster) []clusterv1alpha1.ResourceModel {
	if len(cluster.Spec.ResourceModels) > 0 {
		return cluster.Spec.ResourceModels
	}
	return defaultModels
}

// defaultModels are grades 0..8: grade 0 is cpu [0,1) and memory [0,4Gi),
// grade 1 cpu [1,2) and memory [4Gi,16Gi), grade k in 2..7 cpu
// [2^(k-1),2^k) and memory [2^(k+2),2^(k+3))Gi, grade 8 cpu [128,inf) and
// memory [1024Gi,inf).
var defaultModels = func() []clusterv1alpha1.ResourceModel {
	bounds := func(k int) (cpuMin, cpuMax, memMinGi, memMaxGi int64) {
		switch k {
		case 0:
			return 0, 1, 0, 4
		case 1:
			return 1, 2, 4, 16
		case 8:
			return 128, math.MaxInt64, 1024, math.MaxInt64
		}
		return 1 << (k - 1), 1 << k, 1 << (k + 2), 1 << (k + 3)
	}
	gi := func(n int64) resource.Quantity {
		if n == math.MaxInt64 {
			return *resource.NewQuantity(n, resource.BinarySI)
		}
		return *resource.NewQuantity(n<<30, resource.BinarySI)
	}
	models := make([]clusterv1alpha1.ResourceModel, 0, 9)
	for k := range 9 {
		cpuMin, cpuMax, memMin, memMax := bounds(k)
		models = append(models, clusterv1alpha1.ResourceModel{Grade: uint(k), Ranges: []clusterv1alpha1.ResourceModelRange{
			{Name: clusterv1alpha1.ResourceCPU, Min: *resource.NewQuantity(cpuMin, resource.DecimalSI), Max: *resource.NewQuantity(cpuMax, resource.DecimalSI)},
			{Name: clusterv1alpha1.ResourceMemory, Min: gi(memMin), Max: gi(memMax)},
		}})
	}
	return models
}()

// modelings counts nodes per grade, one entry per model in model order. A
// node's available resources are its allocatable minus the requests of the
// pods bound to it; its grade is, over the model's resources, the minimum
// of the last grade whose min is at most what is available. Nodes without
// a free pod slot are not counted (Karmada stops the scan there instead,
// which makes the result depend on list order; see the package tests).
func modelings(models []clusterv1alpha1.ResourceModel, nodes []*membercluster.NodeRecord, perNode map[string]amounts) []clusterv1alpha1.AllocatableModeling {
	if len(models) == 0 {
		return nil
	}
	counts := make([]int, len(models))
	for _, n := range nodes {
		avail := available(n, perNode[n.Name()])
		if used := perNode[n.Name()]; used != nil && avail[corev1.ResourcePods] <= 0 {
			continue
		}
		counts[gradeIndex(models, avail)]++
	}
	out := make([]clusterv1alpha1.AllocatableModeling, len(models))
	for i, m := range models {
		out[i] = clusterv1alpha1.AllocatableModeling{Grade: int(m.Grade), Count: counts[i]}
	}
	return out
}

// available is allocatable minus used, for the resources the node has.
func available(n *membercluster.NodeRecord, used amounts) amounts {
	avail := amounts{}
	n.Allocatable.AddTo(avail)
	for name, v := range used {
		if _, ok := avail[name]; ok {
			avail[name] -= v
		}
	}
	return avail
}

// gradeIndex is the index of the node's grade in models.
func gradeIndex(models []clusterv1alpha1.ResourceModel, avail amounts) int {
	index := len(models) - 1
	for _, r := range models[0].Ranges {
		name := corev1.ResourceName(r.Name)
		last := 0
		for i := 1; i < len(models); i++ {
			if lo, ok := rangeMin(models[i], r.Name); !ok || membercluster.AmountOf(name, lo) <= avail[name] {
				last = i
			}
		}
		index = min(index, last)
	}
	return index
}

func rangeMin(m clusterv1alpha1.ResourceModel, name clusterv1alpha1.ResourceName) (resource.Quantity, bool) {
	for _, r := range m.Ranges {
		if r.Name == name {
			return r.Min, true
		}
	}
	return resource.Quantity{}, false
}
