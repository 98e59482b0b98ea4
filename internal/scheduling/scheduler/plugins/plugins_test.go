package plugins

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func info(p *policyv1alpha1.Placement, mutate ...func(*workv1alpha2.ResourceBindingSpec)) *framework.BindingInfo {
	spec := st.Spec(1, p)
	for _, m := range mutate {
		m(spec)
	}
	return framework.NewBindingInfo(spec, "")
}

func targeting(names ...string) func(*workv1alpha2.ResourceBindingSpec) {
	return func(s *workv1alpha2.ResourceBindingSpec) {
		for _, n := range names {
			s.Clusters = append(s.Clusters, workv1alpha2.TargetCluster{Name: n, Replicas: 1})
		}
	}
}

func TestTaintToleration(t *testing.T) {
	tainted := st.Cluster("m1", st.Taint("cluster.karmada.io/not-ready", "", corev1.TaintEffectNoSchedule))
	valued := st.Cluster("m2", st.Taint("dedicated", "gpu", corev1.TaintEffectNoExecute))
	soft := st.Cluster("m3", st.Taint("soft", "", corev1.TaintEffectPreferNoSchedule))
	tests := []struct {
		name string
		b    *framework.BindingInfo
		c    string
		want string
	}{
		{"untolerated NoSchedule", info(&policyv1alpha1.Placement{}), "m1", "cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoSchedule}"},
		{"untolerated NoExecute with value", info(&policyv1alpha1.Placement{}), "m2", "cluster(s) had untolerated taint {dedicated=gpu:NoExecute}"},
		{"PreferNoSchedule is ignored", info(&policyv1alpha1.Placement{}), "m3", ""},
		{"already targeted clusters pass", info(&policyv1alpha1.Placement{}, targeting("m1")), "m1", ""},
		{"Exists toleration", info(&policyv1alpha1.Placement{ClusterTolerations: []corev1.Toleration{{Key: "cluster.karmada.io/not-ready", Operator: corev1.TolerationOpExists}}}), "m1", ""},
		{"empty key Exists tolerates all", info(&policyv1alpha1.Placement{ClusterTolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}), "m2", ""},
		{"Equal with the right value", info(&policyv1alpha1.Placement{ClusterTolerations: []corev1.Toleration{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoExecute}}}), "m2", ""},
		{"Equal with a wrong value", info(&policyv1alpha1.Placement{ClusterTolerations: []corev1.Toleration{{Key: "dedicated", Value: "cpu"}}}), "m2", "cluster(s) had untolerated taint {dedicated=gpu:NoExecute}"},
		{"wrong effect", info(&policyv1alpha1.Placement{ClusterTolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}}), "m2", "cluster(s) had untolerated taint {dedicated=gpu:NoExecute}"},
		{"Gt operator is not supported", info(&policyv1alpha1.Placement{ClusterTolerations: []corev1.Toleration{{Key: "dedicated", Operator: "Gt", Value: "1"}}}), "m2", "cluster(s) had untolerated taint {dedicated=gpu:NoExecute}"},
	}
	clusters := map[string]*clusterv1alpha1.Cluster{"m1": tainted, "m2": valued, "m3": soft}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (TaintToleration{}).Filter(tt.b, clusters[tt.c]); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAPIEnablement(t *testing.T) {
	b := info(&policyv1alpha1.Placement{})
	if got := (APIEnablement{}).Filter(b, st.Cluster("m1")); got != "" {
		t.Errorf("cluster serving apps/v1 Deployment: %q", got)
	}
	if got := (APIEnablement{}).Filter(b, st.Cluster("m1", st.NoAPIs())); got != ReasonAPIMissing {
		t.Errorf("cluster without the API: %q", got)
	}
	if got := (APIEnablement{}).Filter(info(&policyv1alpha1.Placement{}, targeting("m1")), st.Cluster("m1", st.NoAPIs())); got != "" {
		t.Errorf("already targeted cluster must pass: %q", got)
	}
}

func TestSpreadConstraintAndEvictionFilters(t *testing.T) {
	p := &policyv1alpha1.Placement{SpreadConstraints: []policyv1alpha1.SpreadConstraint{
		{SpreadByField: policyv1alpha1.SpreadByFieldCluster}, {SpreadByField: policyv1alpha1.SpreadByFieldZone}}}
	if got := (SpreadConstraint{}).Filter(info(p), st.Cluster("m1")); got != ReasonNoZones {
		t.Errorf("zone constraint without zones: %q", got)
	}
	if got := (SpreadConstraint{}).Filter(info(p), st.Cluster("m1", st.Location("", "", "z1"))); got != "" {
		t.Errorf("zone constraint with zones: %q", got)
	}
	p.SpreadConstraints[1].SpreadByField = policyv1alpha1.SpreadByFieldRegion
	if got := (SpreadConstraint{}).Filter(info(p), st.Cluster("m1")); got != ReasonNoRegion {
		t.Errorf("region constraint without region: %q", got)
	}
	p.SpreadConstraints[1].SpreadByField = policyv1alpha1.SpreadByFieldProvider
	if got := (SpreadConstraint{}).Filter(info(p), st.Cluster("m1")); got != ReasonNoProvider {
		t.Errorf("provider constraint without provider: %q", got)
	}
	evicting := info(&policyv1alpha1.Placement{}, func(s *workv1alpha2.ResourceBindingSpec) {
		s.GracefulEvictionTasks = []workv1alpha2.GracefulEvictionTask{{FromCluster: "m1", Reason: "TaintUntolerated", Producer: "x"}}
	})
	if got := (ClusterEviction{}).Filter(evicting, st.Cluster("m1")); got != ReasonEvicting {
		t.Errorf("evicted cluster: %q", got)
	}
	if got := (ClusterEviction{}).Filter(evicting, st.Cluster("m2")); got != "" {
		t.Errorf("other cluster: %q", got)
	}
}

func TestClusterLocalityScore(t *testing.T) {
	b := info(&policyv1alpha1.Placement{}, targeting("m1"))
	if (ClusterLocality{}).Score(b, st.Cluster("m1")) != 100 || (ClusterLocality{}).Score(b, st.Cluster("m2")) != 0 {
		t.Error("ClusterLocality must score 100 for targeted clusters and 0 otherwise")
	}
}

func TestParse(t *testing.T) {
	all, err := Parse(nil, false)
	if err != nil || len(all.Filters) != 5 || len(all.Scores) != 2 {
		t.Fatalf("default: %d filters %d scores, %v", len(all.Filters), len(all.Scores), err)
	}
	set, err := Parse([]string{"*", "-TaintToleration", "-ClusterLocality"}, false)
	if err != nil || len(set.Filters) != 4 || len(set.Scores) != 1 {
		t.Fatalf("*,-TaintToleration,-ClusterLocality: %d filters %d scores, %v", len(set.Filters), len(set.Scores), err)
	}
	for _, f := range set.Filters {
		if f.Name() == TaintTolerationName {
			t.Error("TaintToleration must be disabled")
		}
	}
	set, err = Parse([]string{"ClusterAffinity"}, false)
	if err != nil || len(set.Filters) != 1 || len(set.Scores) != 1 {
		t.Fatalf("ClusterAffinity only: %d filters %d scores, %v", len(set.Filters), len(set.Scores), err)
	}
	if _, err := Parse([]string{"Bogus"}, false); err == nil {
		t.Error("unknown plugin must be an error")
	}
}
