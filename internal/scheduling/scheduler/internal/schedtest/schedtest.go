// Package schedtest builds Clusters and bindings for the scheduler's tests
// and benchmarks.
package schedtest

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// ClusterOption adjusts a test Cluster.
type ClusterOption func(*clusterv1alpha1.Cluster)

// Cluster returns a ready cluster serving apps/v1 Deployments, with
// opts applied.
func Cluster(name string, opts ...ClusterOption) *clusterv1alpha1.Cluster {
	c := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push},
		Status: clusterv1alpha1.ClusterStatus{
			APIEnablements: []clusterv1alpha1.APIEnablement{{GroupVersion: "apps/v1", Resources: []clusterv1alpha1.APIResource{{Name: "deployments", Kind: "Deployment"}}}},
			Conditions:     []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue, Reason: "ClusterReady"}},
		},
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Clusters returns n clusters named prefix-000.. with opts applied.
func Clusters(prefix string, n int, opts ...ClusterOption) []*clusterv1alpha1.Cluster {
	out := make([]*clusterv1alpha1.Cluster, n)
	for i := range out {
		out[i] = Cluster(fmt.Sprintf("%s-%03d", prefix, i), opts...)
	}
	return out
}

// Labels sets labels.
func Labels(kv ...string) ClusterOption {
	return func(c *clusterv1alpha1.Cluster) {
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			c.Labels[kv[i]] = kv[i+1]
		}
	}
}

// Location sets provider, region and zones.
func Location(provider, region string, zones ...string) ClusterOption {
	return func(c *clusterv1alpha1.Cluster) {
		c.Spec.Provider, c.Spec.Region, c.Spec.Zones = provider, region, zones
	}
}

// Taint adds a taint.
func Taint(key, value string, effect corev1.TaintEffect) ClusterOption {
	return func(c *clusterv1alpha1.Cluster) {
		c.Spec.Taints = append(c.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

// Resources sets the resource summary: allocatable cpu, memory and pods,
// nothing allocated.
func Resources(cpu, memory string, pods int64) ClusterOption {
	return func(c *clusterv1alpha1.Cluster) {
		c.Status.ResourceSummary = &clusterv1alpha1.ResourceSummary{
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse(cpu),
				corev1.ResourceMemory: resource.MustParse(memory),
				corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
			},
		}
	}
}

// NoAPIs clears status.apiEnablements.
func NoAPIs() ClusterOption {
	return func(c *clusterv1alpha1.Cluster) { c.Status.APIEnablements = nil }
}

// Names lists cluster names.
func Names(clusters []*clusterv1alpha1.Cluster) []string {
	out := make([]string, len(clusters))
	for i, c := range clusters {
		out[i] = c.Name
	}
	return out
}

// Spec returns a Deployment binding spec with replicas and placement.
func Spec(replicas int32, p *policyv1alpha1.Placement) *workv1alpha2.ResourceBindingSpec {
	return &workv1alpha2.ResourceBindingSpec{
		Resource:  workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "nginx", UID: "a"},
		Replicas:  replicas,
		Placement: p,
	}
}

// CPURequest sets a per-replica request of cpu and memory.
func CPURequest(spec *workv1alpha2.ResourceBindingSpec, cpu, memory string) *workv1alpha2.ResourceBindingSpec {
	spec.ReplicaRequirements = &workv1alpha2.ReplicaRequirements{ResourceRequest: corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
	}}
	return spec
}

// Static is a Divided/Weighted placement over names with the given
// static weights (names[i] gets weights[i]).
func Static(names []string, weights ...int64) *policyv1alpha1.Placement {
	p := &policyv1alpha1.Placement{
		ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: names},
		ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
			ReplicaSchedulingType:     policyv1alpha1.ReplicaSchedulingTypeDivided,
			ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
			WeightPreference:          &policyv1alpha1.ClusterPreferences{},
		},
	}
	for i, w := range weights {
		p.ReplicaScheduling.WeightPreference.StaticWeightList = append(p.ReplicaScheduling.WeightPreference.StaticWeightList,
			policyv1alpha1.StaticClusterWeight{TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{names[i]}}, Weight: w})
	}
	return p
}

// Dynamic is a Divided placement: Aggregated when aggregated, else
// Weighted with dynamicWeight AvailableReplicas.
func Dynamic(aggregated bool) *policyv1alpha1.Placement {
	rs := &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided}
	if aggregated {
		rs.ReplicaDivisionPreference = policyv1alpha1.ReplicaDivisionPreferenceAggregated
	} else {
		rs.ReplicaDivisionPreference = policyv1alpha1.ReplicaDivisionPreferenceWeighted
		rs.WeightPreference = &policyv1alpha1.ClusterPreferences{DynamicWeight: policyv1alpha1.DynamicWeightByAvailableReplicas}
	}
	return &policyv1alpha1.Placement{ReplicaScheduling: rs}
}

// Targets builds a target list from name/replicas pairs.
func Targets(pairs ...any) []workv1alpha2.TargetCluster {
	var out []workv1alpha2.TargetCluster
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, workv1alpha2.TargetCluster{Name: pairs[i].(string), Replicas: int32(pairs[i+1].(int))})
	}
	return out
}

// Format renders targets as "a:1 b:2" for comparisons.
func Format(tcs []workv1alpha2.TargetCluster) string {
	s := ""
	for i, tc := range tcs {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s:%d", tc.Name, tc.Replicas)
	}
	return s
}
