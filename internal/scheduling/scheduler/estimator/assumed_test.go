package estimator

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// batchAnswer is a batch estimator answering n for every cluster, noting
// the assumptions it was given.
type batchAnswer struct {
	n   int64
	got Assumptions
}

func (b *batchAnswer) EstimateClusters(clusters []*clusterv1alpha1.Cluster, _ *workv1alpha2.ResourceBindingSpec, assumed Assumptions) []int64 {
	b.got = assumed
	out := make([]int64, len(clusters))
	for i := range out {
		out[i] = b.n
	}
	return out
}

type assumedOn map[string][]AssumedWorkload

func (a assumedOn) AssumedWorkloads(cluster string) []AssumedWorkload { return a[cluster] }

// TestAssumptionsDeductedOnce: 4 CPUs reserved on a cluster of 10 free
// CPUs, replicas of 1 CPU. Without assumptions the batch estimator's
// answer is deducted like the general one's; with them the batch
// estimator deducts them itself (it answers 6 here), and deducting them
// again would leave 2.
func TestAssumptionsDeductedOnce(t *testing.T) {
	clusters := []*clusterv1alpha1.Cluster{st.Cluster("a", st.Resources("10", "64Gi", 110))}
	spec := &workv1alpha2.ResourceBindingSpec{Replicas: 20, ReplicaRequirements: request("cpu", "1"), Placement: &policyv1alpha1.Placement{}}
	reserved := reservedOn{"a": {4, corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}}
	assumed := assumedOn{"a": {{Namespace: "default", Components: []workv1alpha2.Component{component("w", 4, "1")}}}}

	batch := &batchAnswer{n: 8}
	set := &Set{Estimators: []Estimator{General{}}, Batch: []BatchEstimator{batch}, Reservations: reserved}
	if got := set.Estimate(clusters, spec); got[0] != 4 || batch.got != nil {
		t.Errorf("without assumptions: %v (batch given %v), want min(10-4, 8-4) = 4 and no assumptions sent", got, batch.got)
	}

	batch = &batchAnswer{n: 6}
	set = &Set{Estimators: []Estimator{General{}}, Batch: []BatchEstimator{batch}, Reservations: reserved, Assumptions: assumed}
	if got := set.Estimate(clusters, spec); got[0] != 6 || batch.got == nil {
		t.Errorf("with assumptions: %v (batch given %v), want min(10-4, 6) = 6 and the assumptions sent", got, batch.got)
	}
	// The general answer is still deducted.
	batch.n = 100
	if got := set.Estimate(clusters, spec); got[0] != 6 {
		t.Errorf("with assumptions the general answer is %v, want 10-4 = 6", got)
	}
}
