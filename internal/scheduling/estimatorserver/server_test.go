package estimatorserver

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
)

func node(name, cpu string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}, Status: corev1.NodeStatus{Allocatable: rl}}
}

func pod(name, nodeName, cpu string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "x"}},
		Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)},
		}}}},
		Status: corev1.PodStatus{Phase: phase},
	}
}

// startWatching starts an estimator on kube and returns its context and a
// wait until a 1-cpu MaxAvailableReplicas answers want, for tests that
// change the member and expect the answer to follow.
func startWatching(t *testing.T, kube *fake.Clientset) (context.Context, func(want int32)) {
	t.Helper()
	e := New("m1", kube)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := &pb.MaxAvailableReplicasRequest{Cluster: "m1", ReplicaRequirements: &pb.ReplicaRequirements{ResourceRequestBytes: quantities("cpu", "1")}}
	return ctx, func(want int32) {
		t.Helper()
		var got int32
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
			resp, err := e.MaxAvailableReplicas(ctx, req)
			if err != nil {
				return false, err
			}
			got = resp.MaxReplicas
			return got == want, nil
		})
		if err != nil {
			t.Fatalf("max replicas %d, want %d: %v", got, want, err)
		}
	}
}

func start(t *testing.T, objs ...runtime.Object) *Estimator {
	t.Helper()
	e := New("m1", fake.NewClientset(objs...))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

func quantities(kv ...string) map[string][]byte {
	out := map[string][]byte{}
	for i := 0; i+1 < len(kv); i += 2 {
		q := resource.MustParse(kv[i+1])
		out[kv[i]], _ = q.Marshal()
	}
	return out
}

func tolerations(ts ...corev1.Toleration) [][]byte {
	var out [][]byte
	for _, t := range ts {
		b, _ := t.Marshal()
		out = append(out, b)
	}
	return out
}

func affinity(op corev1.NodeSelectorOperator, key string, values ...string) []byte {
	ns := corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}}}
	b, _ := ns.Marshal()
	return b
}

var dedicated = corev1.Taint{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}

func testCluster(t *testing.T) *Estimator {
	unschedulable := node("n3", "100", nil)
	unschedulable.Spec.Unschedulable = true
	return start(t,
		node("n1", "4", map[string]string{"zone": "a"}),
		node("n2", "16", map[string]string{"zone": "b"}, dedicated, corev1.Taint{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule}),
		unschedulable,
		pod("running", "n1", "1", corev1.PodRunning),
		pod("pending-bound", "n2", "2", corev1.PodPending),
		pod("done", "n1", "3", corev1.PodSucceeded),
	)
}

func TestMaxAvailableReplicas(t *testing.T) {
	e := testCluster(t)
	tolerate := tolerations(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpExists})
	tests := []struct {
		name string
		rr   *pb.ReplicaRequirements
		want int32
	}{
		{"1 cpu: n1 has 3 free; n2 tainted, n3 unschedulable", &pb.ReplicaRequirements{ResourceRequestBytes: quantities("cpu", "1")}, 3},
		{"tolerating the taint adds n2's 14 free", &pb.ReplicaRequirements{ResourceRequestBytes: quantities("cpu", "1"), NodeClaim: &pb.NodeClaim{TolerationsBytes: tolerate}}, 17},
		{"node selector zone=b", &pb.ReplicaRequirements{ResourceRequestBytes: quantities("cpu", "1"), NodeClaim: &pb.NodeClaim{NodeSelector: map[string]string{"zone": "b"}, TolerationsBytes: tolerate}}, 14},
		{"node affinity zone NotIn b", &pb.ReplicaRequirements{ResourceRequestBytes: quantities("cpu", "500m"), NodeClaim: &pb.NodeClaim{NodeAffinityBytes: affinity(corev1.NodeSelectorOpNotIn, "zone", "b"), TolerationsBytes: tolerate}}, 6},
		{"resource no node has", &pb.ReplicaRequirements{ResourceRequestBytes: quantities("cpu", "1", "nvidia.com/gpu", "1")}, 0},
		{"no request: pod slots of n1", &pb.ReplicaRequirements{}, 109},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.MaxAvailableReplicas(context.Background(), &pb.MaxAvailableReplicasRequest{Cluster: "m1", ReplicaRequirements: tt.rr})
			if err != nil {
				t.Fatal(err)
			}
			if res.MaxReplicas != tt.want {
				t.Errorf("got %d, want %d", res.MaxReplicas, tt.want)
			}
		})
	}
	assumed := &pb.MaxAvailableReplicasRequest{Cluster: "m1", ReplicaRequirements: &pb.ReplicaRequirements{ResourceRequestBytes: quantities("cpu", "1")},
		AssumedWorkloads: []*pb.AssumedWorkload{{Components: []*pb.Component{{Replicas: 2, ReplicaRequirements: &pb.ComponentReplicaRequirements{ResourceRequestBytes: quantities("cpu", "1")}}}}}}
	if res, err := e.MaxAvailableReplicas(context.Background(), assumed); err != nil || res.MaxReplicas != 1 {
		t.Errorf("assumed workloads deducted: got %v, %v; want 1", res, err)
	}
}

func TestRejectsBadRequests(t *testing.T) {
	e := testCluster(t)
	for name, req := range map[string]*pb.MaxAvailableReplicasRequest{
		"other cluster":  {Cluster: "m2"},
		"bad quantity":   {Cluster: "m1", ReplicaRequirements: &pb.ReplicaRequirements{ResourceRequestBytes: map[string][]byte{"cpu": {0x0a, 0x03, 'x', 'y', 'z'}}}},
		"bad affinity":   {Cluster: "m1", ReplicaRequirements: &pb.ReplicaRequirements{NodeClaim: &pb.NodeClaim{NodeAffinityBytes: []byte{0x0a, 0x7f}}}},
		"bad operator":   {Cluster: "m1", ReplicaRequirements: &pb.ReplicaRequirements{NodeClaim: &pb.NodeClaim{NodeAffinityBytes: affinity("Near", "zone")}}},
		"bad toleration": {Cluster: "m1", ReplicaRequirements: &pb.ReplicaRequirements{NodeClaim: &pb.NodeClaim{TolerationsBytes: [][]byte{{0xff}}}}},
		"bad selector":   {Cluster: "m1", ReplicaRequirements: &pb.ReplicaRequirements{NodeClaim: &pb.NodeClaim{NodeSelector: map[string]string{"a b": "c"}}}},
	} {
		if _, err := e.MaxAvailableReplicas(context.Background(), req); status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s: got %v, want InvalidArgument", name, err)
		}
	}
}

func TestMaxAvailableComponentSets(t *testing.T) {
	e := testCluster(t)
	tolerate := &pb.NodeClaim{TolerationsBytes: tolerations(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpExists})}
	comps := []*pb.Component{
		{Name: "launcher", Replicas: 1, ReplicaRequirements: &pb.ComponentReplicaRequirements{ResourceRequestBytes: quantities("cpu", "1")}},
		{Name: "worker", Replicas: 2, ReplicaRequirements: &pb.ComponentReplicaRequirements{ResourceRequestBytes: quantities("cpu", "2")}},
	}
	res, err := e.MaxAvailableComponentSets(context.Background(), &pb.MaxAvailableComponentSetsRequest{Cluster: "m1", Components: comps})
	if err != nil || res.MaxSets != 0 {
		t.Errorf("only n1 (3 cpu) for sets of 5 cpu: got %v, %v; want 0", res, err)
	}
	for i := range comps {
		comps[i].ReplicaRequirements.NodeClaim = tolerate
	}
	// n1 3 cpu + n2 14 cpu free: 3 sets (6 workers: 1 on n1, 5 on n2;
	// 3 launchers: 1 on n1, 2 on n2); a 4th set does not pack.
	res, err = e.MaxAvailableComponentSets(context.Background(), &pb.MaxAvailableComponentSetsRequest{Cluster: "m1", Components: comps})
	if err != nil || res.MaxSets != 3 {
		t.Errorf("got %v, %v; want 3", res, err)
	}
	if _, err := e.MaxAvailableComponentSets(context.Background(), &pb.MaxAvailableComponentSetsRequest{Cluster: "m1"}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("no components: got %v, want InvalidArgument", err)
	}
}

func TestGetUnschedulableReplicas(t *testing.T) {
	old, recent := pod("old", "", "1", corev1.PodPending), pod("recent", "", "1", corev1.PodPending)
	old.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, LastTransitionTime: metav1.NewTime(time.Now().Add(-10 * time.Minute))}}
	recent.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, LastTransitionTime: metav1.Now()}}
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "default"}, Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}}}
	e := start(t, old, recent, pod("bound", "n1", "1", corev1.PodRunning), deploy)
	ref := &pb.ObjectReference{ApiVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "d"}
	res, err := e.GetUnschedulableReplicas(context.Background(), &pb.UnschedulableReplicasRequest{Cluster: "m1", Resource: ref, UnschedulableThreshold: int64(time.Minute)})
	if err != nil || res.UnschedulableReplicas != 1 {
		t.Errorf("got %v, %v; want 1", res, err)
	}
	ref.Kind = "CronJob"
	if _, err := e.GetUnschedulableReplicas(context.Background(), &pb.UnschedulableReplicasRequest{Cluster: "m1", Resource: ref}); status.Code(err) != codes.Unimplemented {
		t.Errorf("unsupported kind: got %v", err)
	}
	ref.Kind, ref.Name = "Deployment", "missing"
	if _, err := e.GetUnschedulableReplicas(context.Background(), &pb.UnschedulableReplicasRequest{Cluster: "m1", Resource: ref}); status.Code(err) != codes.NotFound {
		t.Errorf("missing workload: got %v", err)
	}
}
