package scheduler

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// flinkSpec is a FlinkDeployment's binding: a job manager of 50m and a
// task manager of 100m, placed with no replica count.
func flinkSpec(name string) *workv1alpha2.ResourceBindingSpec {
	component := func(name, cpu string) workv1alpha2.Component {
		return workv1alpha2.Component{Name: name, Replicas: 1, ReplicaRequirements: &workv1alpha2.ComponentReplicaRequirements{
			ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}
	}
	return &workv1alpha2.ResourceBindingSpec{
		Resource:   workv1alpha2.ObjectReference{APIVersion: "flink.apache.org/v1beta1", Kind: "FlinkDeployment", Namespace: "ns", Name: name},
		Components: []workv1alpha2.Component{component("jobmanager", "50m"), component("taskmanager", "100m")},
		Placement:  st.Dynamic(true),
	}
}

func reservedCPU(t *testing.T, a *assumeCache, cluster string) (int64, int64) {
	t.Helper()
	pods, reqs := a.Reserved(cluster)
	return pods, reqs.Cpu().MilliValue()
}

func TestOvercommitProtectionReservesComponents(t *testing.T) {
	a := newAssumeCache()
	a.overcommitProtection = true
	start := time.Unix(1000, 0)
	now := start
	a.now = func() time.Time { return now }
	flink := types.NamespacedName{Namespace: "ns", Name: "flink-0"}
	a.assume(flink, true, flinkSpec("flink-0"), st.Targets("a", 0))
	if pods, cpu := reservedCPU(t, a, "a"); pods != 2 || cpu != 150 {
		t.Fatalf("a components binding reserves %d pods, %dm; want one set: 2 pods, 150m", pods, cpu)
	}
	now = now.Add(time.Second)
	deploy := types.NamespacedName{Namespace: "default", Name: "nginx-deployment"}
	spec := st.CPURequest(st.Spec(5, st.Dynamic(true)), "500m", "1Gi")
	spec.ReplicaRequirements.PriorityClassName = "high"
	a.assume(deploy, true, spec, st.Targets("a", 3, "b", 2))
	if pods, cpu := reservedCPU(t, a, "a"); pods != 5 || cpu != 1650 {
		t.Fatalf("a: %d pods, %dm reserved; want 5 pods, 1650m", pods, cpu)
	}
	got := a.AssumedWorkloads("a")
	if len(got) != 2 || got[0].Namespace != "default" || len(got[0].Components) != 1 || got[1].Namespace != "ns" || len(got[1].Components) != 2 {
		t.Fatalf("assumed on a: %+v; want the Deployment (newest) then the FlinkDeployment", got)
	}
	if c := got[0].Components[0]; c.Name != "nginx" || c.Replicas != 3 || c.ReplicaRequirements.PriorityClassName != "high" || c.ReplicaRequirements.ResourceRequest.Cpu().MilliValue() != 500 {
		t.Errorf("the Deployment is assumed as %+v; want one component named after it, 3 replicas of 500m, its priority class", c)
	}

	// Neither an applied report nor a summary change releases anything.
	a.observeApplied(flink, &workv1alpha2.ResourceBindingStatus{AggregatedStatus: []workv1alpha2.AggregatedStatusItem{{ClusterName: "a", Applied: true}}})
	a.summaryChanged("a")
	if pods, _ := reservedCPU(t, a, "a"); pods != 5 {
		t.Fatalf("applied and summary change released reservations: %d pods left on a", pods)
	}

	// Newly Healthy on a releases the Deployment there, not on b.
	unknown := &workv1alpha2.ResourceBindingStatus{AggregatedStatus: []workv1alpha2.AggregatedStatusItem{{ClusterName: "a", Health: workv1alpha2.ResourceUnknown}, {ClusterName: "b", Health: workv1alpha2.ResourceHealthy}}}
	healthy := &workv1alpha2.ResourceBindingStatus{AggregatedStatus: []workv1alpha2.AggregatedStatusItem{{ClusterName: "a", Health: workv1alpha2.ResourceHealthy}, {ClusterName: "b", Health: workv1alpha2.ResourceHealthy}}}
	a.observeHealth(deploy, unknown, healthy)
	if pods, cpu := reservedCPU(t, a, "a"); pods != 2 || cpu != 150 {
		t.Fatalf("a after the Deployment became Healthy there: %d pods, %dm; want the FlinkDeployment's 2 pods, 150m", pods, cpu)
	}
	// b was Healthy before: not newly Healthy, still reserved.
	if pods, _ := reservedCPU(t, a, "b"); pods != 2 {
		t.Fatalf("b, Healthy before and after, lost its reservation: %d pods", pods)
	}

	// A new placement drops b and overwrites a.
	spec.Clusters = st.Targets("a", 3, "b", 2)
	a.assume(deploy, true, spec, st.Targets("a", 4))
	if pods, _ := reservedCPU(t, a, "b"); pods != 0 {
		t.Fatalf("b dropped from the placement keeps %d pods", pods)
	}
	if pods, _ := reservedCPU(t, a, "a"); pods != 6 {
		t.Fatalf("a: %d pods, want 4 + 2", pods)
	}
	// Deciding the same placement again writes nothing and assumes nothing.
	spec.Clusters = st.Targets("a", 4)
	a.observeHealth(deploy, unknown, healthy)
	a.assume(deploy, true, spec, st.Targets("a", 4))
	if pods, _ := reservedCPU(t, a, "a"); pods != 2 {
		t.Fatalf("an unchanged placement assumed again: %d pods on a, want 2", pods)
	}

	// ClusterResourceBindings and non-workloads are not assumed.
	a.assume(types.NamespacedName{Name: "crb"}, false, st.CPURequest(st.Spec(1, st.Dynamic(true)), "1", "1Gi"), st.Targets("c", 1))
	a.assume(types.NamespacedName{Namespace: "ns", Name: "cm"}, true, st.Spec(0, st.Dynamic(true)), st.Targets("c", 0))
	if pods, _ := reservedCPU(t, a, "c"); pods != 0 {
		t.Fatalf("a ClusterResourceBinding or a non-workload reserved %d pods", pods)
	}

	// The TTL runs from the binding's latest placement.
	now = start.Add(assumptionTTL)
	if pods, _ := reservedCPU(t, a, "a"); pods != 2 {
		t.Fatalf("the FlinkDeployment expired early: %d pods on a", pods)
	}
	now = now.Add(2 * time.Second)
	if pods, _ := reservedCPU(t, a, "a"); pods != 0 {
		t.Fatalf("%d pods still reserved after the TTL", pods)
	}
	if got := a.AssumedWorkloads("a"); len(got) != 0 {
		t.Fatalf("expired workloads still assumed: %+v", got)
	}
	if len(a.byBinding) != 0 || len(a.byCluster) != 0 || len(a.totals) != 0 || len(a.assumedAt) != 0 {
		t.Fatalf("expiry left state: %v %v %v %v", a.byBinding, a.byCluster, a.totals, a.assumedAt)
	}

	// Deleting the binding releases everything.
	a.assume(flink, true, flinkSpec("flink-0"), st.Targets("a", 0, "b", 0))
	a.forget(flink)
	if len(a.byBinding) != 0 || len(a.assumedAt) != 0 {
		t.Fatalf("forget left state: %v %v", a.byBinding, a.assumedAt)
	}
}

// TestAssumeWithoutGateIgnoresComponents: without the gate the cache
// keeps Propel's own rules: a binding placed with no replica count
// reserves nothing.
func TestAssumeWithoutGateIgnoresComponents(t *testing.T) {
	a := newAssumeCache()
	a.assume(types.NamespacedName{Namespace: "ns", Name: "flink-0"}, true, flinkSpec("flink-0"), st.Targets("a", 0))
	if pods, _ := a.Reserved("a"); pods != 0 {
		t.Fatalf("gate off: a components binding reserved %d pods", pods)
	}
	a.assume(types.NamespacedName{Name: "crb"}, false, st.CPURequest(st.Spec(1, st.Dynamic(true)), "1", "1Gi"), st.Targets("a", 1))
	if pods, _ := a.Reserved("a"); pods != 1 {
		t.Fatalf("gate off: a ClusterResourceBinding reserved %d pods, want 1", pods)
	}
}
