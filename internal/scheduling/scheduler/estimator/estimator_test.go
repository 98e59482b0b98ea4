package estimator

import (
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func request(kv ...string) *workv1alpha2.ReplicaRequirements {
	rl := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		rl[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return &workv1alpha2.ReplicaRequirements{ResourceRequest: rl}
}

func TestGeneralSummaryPath(t *testing.T) {
	c := st.Cluster("m1", st.Resources("10", "20Gi", 100))
	c.Status.ResourceSummary.Allocated = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2500m"), corev1.ResourcePods: resource.MustParse("10")}
	c.Status.ResourceSummary.Allocating = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourcePods: resource.MustParse("5")}
	tests := []struct {
		name string
		req  *workv1alpha2.ReplicaRequirements
		want int64
	}{
		{"no requirements: allowed pods", nil, 85},
		{"cpu in milli-units: 7000m / 300m", request("cpu", "300m"), 23},
		{"memory bound: 20Gi / 3Gi", request("cpu", "100m", "memory", "3Gi"), 6},
		{"resource not allocatable gives 0", request("nvidia.com/gpu", "1"), 0},
		{"zero request is ignored", request("cpu", "0", "memory", "1Gi"), 20},
		{"pods bound", request("cpu", "1m"), 85},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (General{}).MaxAvailableReplicas(c, tt.req); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
	if got := (General{}).MaxAvailableReplicas(st.Cluster("none"), nil); got != 0 {
		t.Errorf("no resource summary: got %d, want 0", got)
	}
	full := st.Cluster("full", st.Resources("10", "20Gi", 10))
	full.Status.ResourceSummary.Allocated = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")}
	if got := (General{}).MaxAvailableReplicas(full, request("cpu", "1")); got != 0 {
		t.Errorf("no pods left: got %d, want 0", got)
	}
}

func modelCluster(models []clusterv1alpha1.ResourceModel, modelings ...clusterv1alpha1.AllocatableModeling) *clusterv1alpha1.Cluster {
	c := st.Cluster("m", st.Resources("1000", "4000Gi", 1000))
	c.Spec.ResourceModels = models
	c.Status.ResourceSummary.AllocatableModelings = modelings
	return c
}

func TestGeneralResourceModelPath(t *testing.T) {
	// Default models: grade 2 nodes have at least 2 CPU and 16Gi; grade 3
	// at least 4 CPU and 32Gi.
	c := modelCluster(nil, clusterv1alpha1.AllocatableModeling{Grade: 2, Count: 3}, clusterv1alpha1.AllocatableModeling{Grade: 3, Count: 1})
	tests := []struct {
		name string
		req  *workv1alpha2.ReplicaRequirements
		want int64
	}{
		{"1 cpu: 3 nodes × 2 + 1 node × 4", request("cpu", "1"), 10},
		{"3 cpu: only the grade 3 node fits one", request("cpu", "3"), 1},
		{"memory 5Gi: 3 × 3 + 1 × 6", request("memory", "5Gi"), 15},
		{"resource without a model range gives 0", request("cpu", "1", "ephemeral-storage", "1Gi"), 0},
		{"only pods requested: 110 per node", request(), 440},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (General{}).MaxAvailableReplicas(c, tt.req); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
	// The summary path caps the model path through allowed pods.
	c.Status.ResourceSummary.Allocatable[corev1.ResourcePods] = resource.MustParse("7")
	if got := (General{}).MaxAvailableReplicas(c, request("cpu", "1")); got != 7 {
		t.Errorf("allowed pods cap: got %d, want 7", got)
	}
	// With models disabled the summary is used: 1000 cpu / 1.
	if got := (General{DisableResourceModels: true}).MaxAvailableReplicas(modelCluster(nil, clusterv1alpha1.AllocatableModeling{Grade: 2, Count: 1}), request("cpu", "1")); got != 1000 {
		t.Errorf("models disabled: got %d, want 1000", got)
	}
}

func TestCustomModelsAreStandardized(t *testing.T) {
	q := resource.MustParse
	models := []clusterv1alpha1.ResourceModel{
		{Grade: 1, Ranges: []clusterv1alpha1.ResourceModelRange{{Name: "cpu", Min: q("4"), Max: q("8")}}},
		{Grade: 0, Ranges: []clusterv1alpha1.ResourceModelRange{{Name: "cpu", Min: q("2"), Max: q("4")}}},
	}
	// Grade 0 is first after sorting and its minimum is forced to 0, so its
	// nodes hold nothing; grade 1 nodes hold 4 one-CPU replicas.
	c := modelCluster(models, clusterv1alpha1.AllocatableModeling{Grade: 0, Count: 5}, clusterv1alpha1.AllocatableModeling{Grade: 1, Count: 2})
	if got := (General{}).MaxAvailableReplicas(c, request("cpu", "1")); got != 8 {
		t.Errorf("got %d, want 8", got)
	}
	if models[1].Ranges[0].Min.String() != "2" {
		t.Error("standardizing must not modify the cluster's models")
	}
}

func TestSetEstimate(t *testing.T) {
	clusters := []*clusterv1alpha1.Cluster{st.Cluster("a", st.Resources("4", "8Gi", 110)), st.Cluster("b")}
	spec := st.CPURequest(st.Spec(3, &policyv1alpha1.Placement{}), "1", "1Gi")
	got := Default().Estimate(clusters, spec)
	if got[0] != 4 || got[1] != 0 {
		t.Errorf("Estimate = %v, want [4 0]", got)
	}
	spec.Replicas = 0
	got = Default().Estimate(clusters, spec)
	if got[0] != math.MaxInt32 || got[1] != math.MaxInt32 {
		t.Errorf("no replicas: Estimate = %v, want MaxInt32 each", got)
	}
	spec.Replicas = 3
	unbounded := &Set{Estimators: []Estimator{fixed(UnauthenticReplica), fixed(math.MaxInt32 + 10)}}
	if got := unbounded.Estimate(clusters, spec); got[0] != 3 {
		t.Errorf("unbounded estimate must fall back to spec.replicas, got %v", got)
	}
	if got := (&Set{Estimators: []Estimator{fixed(9), fixed(5), fixed(UnauthenticReplica)}}).Estimate(clusters, spec); got[0] != 5 {
		t.Errorf("minimum over estimators ignoring -1: got %v", got)
	}
}

type fixed int64

func (f fixed) MaxAvailableReplicas(*clusterv1alpha1.Cluster, *workv1alpha2.ReplicaRequirements) int64 {
	return int64(f)
}

// component is one component of a multi-template workload with replicas
// each requesting cpu.
func component(name string, replicas int32, cpu string) workv1alpha2.Component {
	return workv1alpha2.Component{Name: name, Replicas: replicas, ReplicaRequirements: &workv1alpha2.ComponentReplicaRequirements{
		ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}
}

// A job with a launcher (1 x 1 CPU) and workers (4 x 2 CPU) needs 9 CPUs
// and 5 pods per set: the general estimator counts whole sets.
func TestGeneralComponentSets(t *testing.T) {
	job := []workv1alpha2.Component{component("launcher", 1, "1"), component("worker", 4, "2")}
	for _, tt := range []struct {
		name    string
		cluster *clusterv1alpha1.Cluster
		want    int64
	}{
		{"cpu bound: 20 CPUs hold 2 sets", st.Cluster("a", st.Resources("20", "64Gi", 110)), 2},
		{"8 CPUs hold no set, though they hold 8 launchers", st.Cluster("b", st.Resources("8", "64Gi", 110)), 0},
		{"pods bound: 12 pods hold 2 sets of 5", st.Cluster("c", st.Resources("100", "64Gi", 12)), 2},
		{"no resource summary", st.Cluster("d"), 0},
	} {
		if got := (General{}).MaxAvailableComponentSets(tt.cluster, job); got != tt.want {
			t.Errorf("%s: got %d sets, want %d", tt.name, got, tt.want)
		}
	}

	clusters := []*clusterv1alpha1.Cluster{st.Cluster("a", st.Resources("20", "64Gi", 110)), st.Cluster("b", st.Resources("8", "64Gi", 110))}
	spec := &workv1alpha2.ResourceBindingSpec{Components: job, Placement: &policyv1alpha1.Placement{}}
	if got := Default().Estimate(clusters, spec); got[0] != 2 || got[1] != 0 {
		t.Errorf("Estimate of a component binding = %v, want sets [2 0]", got)
	}
	// An estimator that only knows replicas has no opinion on sets.
	if got := (&Set{Estimators: []Estimator{General{}, fixed(1000)}}).Estimate(clusters, spec); got[0] != 2 {
		t.Errorf("a replicas-only estimator changed a set estimate: %v", got)
	}
	// 9 CPUs reserved on a: one set fewer.
	reserved := &Set{Estimators: []Estimator{General{}}, Reservations: reservedOn{"a": {5, corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("9")}}}}
	if got := reserved.Estimate(clusters, spec); got[0] != 1 {
		t.Errorf("reservations of one set: Estimate = %v, want 1 set on a", got)
	}
}

type reservedOn map[string]struct {
	pods int64
	reqs corev1.ResourceList
}

func (r reservedOn) Reserved(cluster string) (int64, corev1.ResourceList) {
	return r[cluster].pods, r[cluster].reqs
}
