package bindingstatus

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

var nginx = workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "nginx"}

func manifest(t *testing.T, name string) workv1alpha1.Manifest {
	raw, err := json.Marshal(map[string]interface{}{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]interface{}{"namespace": "default", "name": name}})
	if err != nil {
		t.Fatal(err)
	}
	return workv1alpha1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}}
}

func work(t *testing.T, cluster string, applied *metav1.Condition, statuses ...workv1alpha1.ManifestStatus) workv1alpha1.Work {
	w := workv1alpha1.Work{
		ObjectMeta: metav1.ObjectMeta{Namespace: names.ExecutionSpace(cluster), Name: "nginx-687f7fb96f"},
		Spec:       workv1alpha1.WorkSpec{Workload: workv1alpha1.WorkloadTemplate{Manifests: []workv1alpha1.Manifest{manifest(t, "nginx")}}},
	}
	if applied != nil {
		w.Status.Conditions = []metav1.Condition{*applied}
	}
	w.Status.ManifestStatuses = statuses
	return w
}

func appliedCond(status metav1.ConditionStatus, msg string) *metav1.Condition {
	return &metav1.Condition{Type: workv1alpha1.WorkApplied, Status: status, Message: msg}
}

var nginxID = workv1alpha1.ResourceIdentifier{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "default", Name: "nginx"}

func TestAggregateItems(t *testing.T) {
	ready := workv1alpha1.ManifestStatus{Identifier: nginxID, Status: &runtime.RawExtension{Raw: []byte(`{"readyReplicas":2}`)},
		Health: workv1alpha1.ResourceHealthy}
	other := ready
	other.Identifier.Name = "other"
	works := []workv1alpha1.Work{
		work(t, "member3", nil),
		work(t, "member2", appliedCond(metav1.ConditionFalse, "Failed to apply all manifests (0/1): boom")),
		work(t, "member1", appliedCond(metav1.ConditionTrue, ""), other, ready),
		work(t, "member4", appliedCond(metav1.ConditionTrue, "")),
	}
	items, err := aggregateItems(works, nginx)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(items)
	want := `[{"clusterName":"member1","status":{"readyReplicas":2},"applied":true,"health":"Healthy"},` +
		`{"clusterName":"member2","appliedMessage":"Failed to apply all manifests (0/1): boom","health":"Unknown"},` +
		`{"clusterName":"member3","health":"Unknown"},` +
		`{"clusterName":"member4","applied":true,"health":"Unknown"}]`
	if string(got) != want {
		t.Fatalf("items\n got %s\nwant %s", got, want)
	}
	if _, err := aggregateItems([]workv1alpha1.Work{work(t, "member1", nil)},
		workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "missing"}); err == nil ||
		!strings.Contains(err.Error(), "no manifest") {
		t.Fatalf("a Work without the binding's manifest: %v", err)
	}
}

func TestFullyApplied(t *testing.T) {
	spec := &workv1alpha2.ResourceBindingSpec{Clusters: []workv1alpha2.TargetCluster{{Name: "member1"}, {Name: "member2"}}}
	applied := func(names ...string) []workv1alpha2.AggregatedStatusItem {
		var out []workv1alpha2.AggregatedStatusItem
		for _, n := range names {
			out = append(out, workv1alpha2.AggregatedStatusItem{ClusterName: n, Applied: true})
		}
		return out
	}
	cases := []struct {
		name  string
		spec  *workv1alpha2.ResourceBindingSpec
		items []workv1alpha2.AggregatedStatusItem
		want  metav1.ConditionStatus
	}{
		{"all applied", spec, applied("member1", "member2"), metav1.ConditionTrue},
		{"one missing", spec, applied("member1"), metav1.ConditionFalse},
		{"unexpected cluster", spec, applied("member1", "member3"), metav1.ConditionFalse},
		{"not applied", spec, append(applied("member1"), workv1alpha2.AggregatedStatusItem{ClusterName: "member2"}), metav1.ConditionFalse},
		{"no clusters", &workv1alpha2.ResourceBindingSpec{}, nil, metav1.ConditionFalse},
		{"required by", &workv1alpha2.ResourceBindingSpec{RequiredBy: []workv1alpha2.BindingSnapshot{{Name: "x",
			Clusters: []workv1alpha2.TargetCluster{{Name: "member1"}}}}}, applied("member1"), metav1.ConditionTrue},
		{"graceful eviction counts", &workv1alpha2.ResourceBindingSpec{Clusters: spec.Clusters, GracefulEvictionTasks: []workv1alpha2.GracefulEvictionTask{
			{FromCluster: "member3", PurgeMode: policyv1alpha1.PurgeModeGracefully}}}, applied("member1", "member2"), metav1.ConditionFalse},
		{"direct eviction does not", &workv1alpha2.ResourceBindingSpec{Clusters: spec.Clusters, GracefulEvictionTasks: []workv1alpha2.GracefulEvictionTask{
			{FromCluster: "member3", PurgeMode: policyv1alpha1.PurgeModeDirectly}}}, applied("member1", "member2"), metav1.ConditionTrue},
	}
	for _, c := range cases {
		got := fullyApplied(c.spec, c.items)
		if got.Status != c.want {
			t.Errorf("%s: %s", c.name, got.Status)
		}
		wantReason, wantMsg := workv1alpha2.FullyAppliedFailedReason, workv1alpha2.FullyAppliedFailedMessage
		if c.want == metav1.ConditionTrue {
			wantReason, wantMsg = workv1alpha2.FullyAppliedSuccessReason, workv1alpha2.FullyAppliedSuccessMessage
		}
		if got.Reason != wantReason || got.Message != wantMsg || got.Type != workv1alpha2.FullyApplied {
			t.Errorf("%s: condition %+v", c.name, got)
		}
	}
}

func TestItemsEqual(t *testing.T) {
	a := []workv1alpha2.AggregatedStatusItem{{ClusterName: "m", Applied: true, Status: &runtime.RawExtension{Raw: []byte(`{"a":1,"b":2}`)}}}
	b := []workv1alpha2.AggregatedStatusItem{{ClusterName: "m", Applied: true, Status: &runtime.RawExtension{Raw: []byte(`{"b":2, "a":1}`)}}}
	if !itemsEqual(a, b) {
		t.Fatal("key order must not matter")
	}
	b[0].Health = workv1alpha2.ResourceHealthy
	if itemsEqual(a, b) || itemsEqual(a, nil) {
		t.Fatal("differences missed")
	}
}

func TestTemplateItemsLeaveOutEvictedClusters(t *testing.T) {
	items := []workv1alpha2.AggregatedStatusItem{{ClusterName: "member1"}, {ClusterName: "member2"}, {ClusterName: "member3"}}
	spec := &workv1alpha2.ResourceBindingSpec{
		Clusters: []workv1alpha2.TargetCluster{{Name: "member2"}, {Name: "member3"}},
		GracefulEvictionTasks: []workv1alpha2.GracefulEvictionTask{
			{FromCluster: "member1", PurgeMode: policyv1alpha1.PurgeModeGracefully},
			{FromCluster: "member3", PurgeMode: policyv1alpha1.PurgeModeGracefully}, // a target again (requiredBy or by hand): counted
		},
	}
	got := templateItems(spec, items)
	if len(got) != 2 || got[0].ClusterName != "member2" || got[1].ClusterName != "member3" {
		t.Errorf("templateItems = %v, want member2 and member3", got)
	}
	spec.GracefulEvictionTasks = nil
	if got := templateItems(spec, items); len(got) != 3 {
		t.Errorf("without tasks: %v", got)
	}
}
