package core

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// benchClusters is 100 clusters in 5 regions with resource summaries of
// varying size, labelled tier=gold/silver.
func benchClusters() []*clusterv1alpha1.Cluster {
	clusters := make([]*clusterv1alpha1.Cluster, 100)
	for i := range clusters {
		tier := "silver"
		if i%4 == 0 {
			tier = "gold"
		}
		clusters[i] = st.Cluster(fmt.Sprintf("member-%03d", i),
			st.Labels("tier", tier),
			st.Location("cloud", fmt.Sprintf("region-%d", i%5), fmt.Sprintf("zone-%d", i%10)),
			st.Resources(fmt.Sprint(16+i%32), fmt.Sprintf("%dGi", 64+i), 110))
	}
	return clusters
}

func benchSpec(p *policyv1alpha1.Placement, i int) *workv1alpha2.ResourceBindingSpec {
	spec := st.CPURequest(st.Spec(int32(50+i%50), p), "250m", "512Mi")
	spec.Resource.UID = types.UID(fmt.Sprint("uid-", i))
	return spec
}

func staticPlacement() *policyv1alpha1.Placement {
	return &policyv1alpha1.Placement{ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
		ReplicaSchedulingType:     policyv1alpha1.ReplicaSchedulingTypeDivided,
		ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
		WeightPreference: &policyv1alpha1.ClusterPreferences{StaticWeightList: []policyv1alpha1.StaticClusterWeight{
			{TargetCluster: policyv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}}}, Weight: 3},
			{TargetCluster: policyv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "silver"}}}, Weight: 1},
		}},
	}}
}

func runBench(b *testing.B, p *policyv1alpha1.Placement, previous bool) {
	clusters := benchClusters()
	s := New()
	specs := make([]*workv1alpha2.ResourceBindingSpec, 64)
	for i := range specs {
		specs[i] = benchSpec(p, i)
		if previous {
			res, err := s.Schedule(specs[i], noStatus, clusters)
			if err != nil {
				b.Fatal(err)
			}
			specs[i].Clusters = res.Clusters
			specs[i].Replicas += 20
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Schedule(specs[i%len(specs)], noStatus, clusters); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bindings/s")
}

// BenchmarkScheduleStaticWeight100 schedules Divided+Weighted bindings
// (static weights by label) over 100 clusters.
func BenchmarkScheduleStaticWeight100(b *testing.B) { runBench(b, staticPlacement(), false) }

// BenchmarkScheduleDynamicWeight100 schedules Divided+DynamicWeight
// bindings over 100 clusters, first schedule.
func BenchmarkScheduleDynamicWeight100(b *testing.B) { runBench(b, st.Dynamic(false), false) }

// BenchmarkScheduleDynamicWeightScaleUp100 scales DynamicWeight bindings
// up by 20 replicas over 100 clusters.
func BenchmarkScheduleDynamicWeightScaleUp100(b *testing.B) { runBench(b, st.Dynamic(false), true) }
