package estimatorserver

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
)

// quota is a ResourceQuota in namespace q whose status has hard and used
// as name, hard, used triples.
func quota(name string, scopes *corev1.ScopeSelector, hardUsed ...string) *corev1.ResourceQuota {
	rq := &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "q"},
		Spec:       corev1.ResourceQuotaSpec{ScopeSelector: scopes},
		Status:     corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{}, Used: corev1.ResourceList{}},
	}
	for i := 0; i+2 < len(hardUsed); i += 3 {
		n := corev1.ResourceName(hardUsed[i])
		rq.Status.Hard[n] = resource.MustParse(hardUsed[i+1])
		if hardUsed[i+2] != "" {
			rq.Status.Used[n] = resource.MustParse(hardUsed[i+2])
		}
	}
	rq.Spec.Hard = rq.Status.Hard.DeepCopy()
	return rq
}

func priorityIn(values ...string) *corev1.ScopeSelector {
	return &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{
		ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpIn, Values: values,
	}}}
}

// replicasIn asks for replicas of cpu (and optionally memory) in namespace
// q with priority class pc.
func replicasIn(pc string, kv ...string) *pb.MaxAvailableReplicasRequest {
	return &pb.MaxAvailableReplicasRequest{Cluster: "m1", ReplicaRequirements: &pb.ReplicaRequirements{
		Namespace: "q", PriorityClassName: pc, ResourceRequestBytes: quantities(kv...),
	}}
}

func startWith(t *testing.T, opts []Option, objs ...runtime.Object) *Estimator {
	t.Helper()
	e := New("m1", fake.NewClientset(objs...), opts...)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestQuotaCapsReplicas(t *testing.T) {
	bestEffort := quota("best-effort", nil, "requests.cpu", "1m", "0")
	bestEffort.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}
	anyPriority := quota("any-priority", nil, "requests.cpu", "20m", "0")
	anyPriority.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopePriorityClass}
	e := startWith(t, []Option{WithResourceQuotaEstimate()},
		node("n1", "4", nil),
		quota("cpu", nil, "requests.cpu", "30m", "0"),
		quota("high", priorityIn("high"), "requests.cpu", "100m", "80m"),
		bestEffort, anyPriority,
		quota("memory", nil, "memory", "1Gi", "256Mi", "limits.cpu", "1m", "0"),
		quota("no-used-yet", nil, "requests.cpu", "1m", ""),
	)
	tests := []struct {
		name string
		req  *pb.MaxAvailableReplicasRequest
		want int32
	}{
		{"30m of requests.cpu free for 10m replicas", replicasIn("", "cpu", "10m"), 3},
		{"the In scope applies to its priority class: 20m free", replicasIn("high", "cpu", "10m"), 2},
		{"the PriorityClass scope (Exists) applies to any named class: 20m", replicasIn("low", "cpu", "10m"), 2},
		{"memory: 768Mi free for 256Mi replicas; limits are not read", replicasIn("", "cpu", "1m", "memory", "256Mi"), 3},
		{"memory alone", replicasIn("", "memory", "200Mi"), 3},
		{"a request naming no quota's resource is not capped: the nodes' pod slots", replicasIn(""), 110},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.MaxAvailableReplicas(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if res.MaxReplicas != tt.want {
				t.Errorf("got %d, want %d", res.MaxReplicas, tt.want)
			}
		})
	}
	other := replicasIn("", "cpu", "10m")
	other.ReplicaRequirements.Namespace = "elsewhere"
	if res, err := e.MaxAvailableReplicas(context.Background(), other); err != nil || res.MaxReplicas != 110 {
		t.Errorf("a namespace without quotas: got %v, %v; want the nodes' 110", res, err)
	}
}

func TestQuotaDeductsAssumedWorkloadsOfItsNamespace(t *testing.T) {
	e := startWith(t, []Option{WithResourceQuotaEstimate()}, node("n1", "4", nil), quota("cpu", nil, "cpu", "1", "100m"))
	assumed := func(ns string, sets int32) *pb.AssumedWorkload {
		return &pb.AssumedWorkload{Namespace: ns, Components: []*pb.Component{
			{Name: "jobmanager", Replicas: sets, ReplicaRequirements: &pb.ComponentReplicaRequirements{ResourceRequestBytes: quantities("cpu", "50m")}},
			{Name: "taskmanager", Replicas: sets, ReplicaRequirements: &pb.ComponentReplicaRequirements{ResourceRequestBytes: quantities("cpu", "100m")}},
		}}
	}
	set := assumed("q", 1).Components
	for _, tt := range []struct {
		name    string
		assumed []*pb.AssumedWorkload
		want    int32
	}{
		{"900m free: 6 sets of 150m", nil, 6},
		{"5 sets assumed in q leave 150m", []*pb.AssumedWorkload{assumed("q", 5)}, 1},
		{"6 sets assumed leave nothing", []*pb.AssumedWorkload{assumed("q", 6)}, 0},
		{"more than the quota assumed", []*pb.AssumedWorkload{assumed("q", 7)}, 0},
		{"assumed in another namespace are not charged to q", []*pb.AssumedWorkload{assumed("other", 6)}, 6},
	} {
		res, err := e.MaxAvailableComponentSets(context.Background(), &pb.MaxAvailableComponentSetsRequest{Cluster: "m1", Namespace: "q", Components: set, AssumedWorkloads: tt.assumed})
		if err != nil || res.MaxSets != tt.want {
			t.Errorf("%s: got %v, %v; want %d", tt.name, res, err, tt.want)
		}
	}
	// A single replica of 200m after 6 assumed sets (900m) does not fit.
	req := replicasIn("", "cpu", "200m")
	req.AssumedWorkloads = []*pb.AssumedWorkload{assumed("q", 6)}
	if res, err := e.MaxAvailableReplicas(context.Background(), req); err != nil || res.MaxReplicas != 0 {
		t.Errorf("replicas after assumed sets: got %v, %v; want 0", res, err)
	}
}

func TestQuotaComponentsMatchTheirOwnPriorityClass(t *testing.T) {
	e := startWith(t, []Option{WithResourceQuotaEstimate()}, node("n1", "64", nil), quota("high", priorityIn("high"), "requests.cpu", "1", "0"))
	comps := []*pb.Component{
		{Name: "a", Replicas: 1, ReplicaRequirements: &pb.ComponentReplicaRequirements{PriorityClassName: "high", ResourceRequestBytes: quantities("cpu", "250m")}},
		{Name: "b", Replicas: 4, ReplicaRequirements: &pb.ComponentReplicaRequirements{PriorityClassName: "low", ResourceRequestBytes: quantities("cpu", "1")}},
	}
	// Only a is charged to the quota: 4 sets; the nodes hold 15.
	res, err := e.MaxAvailableComponentSets(context.Background(), &pb.MaxAvailableComponentSetsRequest{Cluster: "m1", Namespace: "q", Components: comps})
	if err != nil || res.MaxSets != 4 {
		t.Errorf("got %v, %v; want 4", res, err)
	}
	comps[0].ReplicaRequirements.PriorityClassName = "low"
	res, err = e.MaxAvailableComponentSets(context.Background(), &pb.MaxAvailableComponentSetsRequest{Cluster: "m1", Namespace: "q", Components: comps})
	if err != nil || res.MaxSets != 15 {
		t.Errorf("no component in the quota's scope: got %v, %v; want the nodes' 15", res, err)
	}
}

func TestQuotaLimitOf(t *testing.T) {
	both := quota("both", nil, "cpu", "100m", "0", "requests.cpu", "50m", "20m")
	over := quota("over", nil, "requests.cpu", "10m", "30m")
	gpu := quota("gpu", nil, "requests.nvidia.com/gpu", "4", "1", "count/pods", "10", "0", "requests.storage", "1Gi", "0")
	for _, tt := range []struct {
		rq   *corev1.ResourceQuota
		want map[corev1.ResourceName]int64
	}{
		{both, map[corev1.ResourceName]int64{corev1.ResourceCPU: 30}},
		{over, map[corev1.ResourceName]int64{corev1.ResourceCPU: -20}},
		{gpu, map[corev1.ResourceName]int64{"nvidia.com/gpu": 3}},
	} {
		got := limitOf(tt.rq).free
		if len(got) != len(tt.want) {
			t.Errorf("%s: free %v, want %v", tt.rq.Name, got, tt.want)
			continue
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("%s: free %v, want %v", tt.rq.Name, got, tt.want)
			}
		}
	}
	// Used above hard allows nothing.
	if n := maxByQuota([]quotaLimit{limitOf(over)}, []quotaDemand{{request: map[corev1.ResourceName]int64{corev1.ResourceCPU: 1}, count: 1}}, nil); n != 0 {
		t.Errorf("exhausted quota: got %d, want 0", n)
	}
}

func TestQuotaScopes(t *testing.T) {
	for _, tt := range []struct {
		name   string
		scopes []corev1.ResourceQuotaScope
		sel    *corev1.ScopeSelector
		pc     string
		want   bool
	}{
		{"no scope applies to all", nil, nil, "", true},
		{"PriorityClass scope, no class", []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopePriorityClass}, nil, "", false},
		{"PriorityClass scope, a class", []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopePriorityClass}, nil, "x", true},
		{"In, matching", nil, priorityIn("a", "b"), "b", true},
		{"In, other", nil, priorityIn("a", "b"), "c", false},
		{"NotIn, no class", nil, &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpNotIn, Values: []string{"a"}}}}, "", true},
		{"DoesNotExist, no class", nil, &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpDoesNotExist}}}, "", true},
		{"scopes the request cannot tell are never matched", []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeNotTerminating, corev1.ResourceQuotaScopeNotBestEffort}, nil, "x", false},
		{"one matching scope is enough", []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeNotTerminating}, priorityIn("x"), "x", true},
		{"a bad operator matches nothing", nil, &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: "Near"}}}, "x", false},
	} {
		rq := quota("q", tt.sel, "cpu", "1", "0")
		rq.Spec.Scopes = tt.scopes
		if l := limitOf(rq); l.appliesTo(tt.pc) != tt.want {
			t.Errorf("%s: appliesTo(%q) = %v, want %v", tt.name, tt.pc, !tt.want, tt.want)
		}
	}
}

func TestQuotaGateOffAndQuotaChanges(t *testing.T) {
	rq := quota("cpu", nil, "requests.cpu", "30m", "0")
	off := startWith(t, nil, node("n1", "4", nil), rq)
	if res, err := off.MaxAvailableReplicas(context.Background(), replicasIn("", "cpu", "10m")); err != nil || res.MaxReplicas != 110 {
		t.Errorf("ResourceQuotaEstimate off: got %v, %v; want the nodes' 110", res, err)
	}

	kube := fake.NewClientset(node("n1", "4", nil), rq)
	e := New("m1", kube, WithResourceQuotaEstimate())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, want int32) {
		t.Helper()
		var got int32
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
			res, err := e.MaxAvailableReplicas(ctx, replicasIn("", "cpu", "10m"))
			if err != nil {
				return false, err
			}
			got = res.MaxReplicas
			return got == want, nil
		})
		if err != nil {
			t.Fatalf("%s: got %d, want %d (%v)", what, got, want, err)
		}
	}
	waitFor("initial", 3)
	used := rq.DeepCopy()
	used.Status.Used[corev1.ResourceRequestsCPU] = resource.MustParse("20m")
	if _, err := kube.CoreV1().ResourceQuotas("q").UpdateStatus(ctx, used, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("20m used", 1)
	if err := kube.CoreV1().ResourceQuotas("q").Delete(ctx, "cpu", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("quota deleted", 110)
}
