package rebalancer

import (
	"slices"
	"strings"

	appsv1alpha1 "github.com/propel-mc/propel/pkg/apis/apps/v1alpha1"
)

// observedWorkloads merges spec.workloads into the previous status list:
// entries still listed keep their result, entries no longer listed stay
// only when Successful, new workloads are added without a result. The
// list is sorted by "apiVersion kind namespace name".
func observedWorkloads(spec []appsv1alpha1.ObjectReference, previous []appsv1alpha1.ObservedWorkload) []appsv1alpha1.ObservedWorkload {
	listed := make(map[appsv1alpha1.ObjectReference]bool, len(spec))
	for _, w := range spec {
		listed[w] = true
	}
	out := make([]appsv1alpha1.ObservedWorkload, 0, len(spec))
	seen := make(map[appsv1alpha1.ObjectReference]bool, len(spec))
	for _, o := range previous {
		if seen[o.Workload] {
			continue
		}
		if listed[o.Workload] || o.Result == appsv1alpha1.RebalanceSuccessful {
			out = append(out, o)
			seen[o.Workload] = true
		}
	}
	for _, w := range spec {
		if !seen[w] {
			out = append(out, appsv1alpha1.ObservedWorkload{Workload: w})
			seen[w] = true
		}
	}
	slices.SortFunc(out, func(a, b appsv1alpha1.ObservedWorkload) int {
		return strings.Compare(sortKey(a.Workload), sortKey(b.Workload))
	})
	return out
}

func sortKey(w appsv1alpha1.ObjectReference) string {
	return w.APIVersion + " " + w.Kind + " " + w.Namespace + " " + w.Name
}
