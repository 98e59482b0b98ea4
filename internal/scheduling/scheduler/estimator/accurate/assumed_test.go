package accurate

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	clientfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/scheduling/estimatorserver"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/estimator"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

type assumedOn map[string][]estimator.AssumedWorkload

func (a assumedOn) AssumedWorkloads(cluster string) []estimator.AssumedWorkload { return a[cluster] }

func cpuComponent(name string, replicas int32, cpu string) workv1alpha2.Component {
	return workv1alpha2.Component{Name: name, Replicas: replicas, ReplicaRequirements: &workv1alpha2.ComponentReplicaRequirements{
		ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}
}

// TestRequestsCarryAssumedWorkloads runs propel-scheduler-estimator's
// server for a member with one node of 4 CPUs over real gRPC: the
// workloads assumed on the member (3 CPUs) reach it in both requests, and
// it deducts them.
func TestRequestsCarryAssumedWorkloads(t *testing.T) {
	ip := loopbackIPs(1)[0]
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("110")}
	est := estimatorserver.New("m1", fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{Allocatable: rl}}))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := est.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv, err := estimatorserver.NewGRPCServer(est, estimatorserver.TLSFiles{})
	if err != nil {
		t.Fatal(err)
	}
	lis, port := listenSamePort(t, []string{ip})
	go func() { _ = srv.Serve(lis[0]) }()
	t.Cleanup(srv.Stop)
	reader := clientfake.NewClientBuilder().WithObjects(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-system", Name: "karmada-scheduler-estimator-m1"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: ip},
	}).Build()
	opts := *NewOptions()
	opts.Enabled, opts.Port, opts.Timeout = true, port, 10*time.Second
	c := New(opts, reader, testr.New(t))
	clusters := []*clusterv1alpha1.Cluster{{ObjectMeta: metav1.ObjectMeta{Name: "m1"}}}
	assumed := assumedOn{"m1": {
		{Namespace: "ns", Components: []workv1alpha2.Component{cpuComponent("jobmanager", 1, "1"), cpuComponent("taskmanager", 1, "1")}},
		{Namespace: "default", Components: []workv1alpha2.Component{cpuComponent("nginx", 1, "1")}},
	}}

	replicas := &workv1alpha2.ResourceBindingSpec{Replicas: 10, ReplicaRequirements: &workv1alpha2.ReplicaRequirements{
		ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}
	sets := &workv1alpha2.ResourceBindingSpec{Resource: workv1alpha2.ObjectReference{Namespace: "ns"},
		Components: []workv1alpha2.Component{cpuComponent("launcher", 1, "500m"), cpuComponent("worker", 1, "500m")}}
	for _, tc := range []struct {
		name    string
		spec    *workv1alpha2.ResourceBindingSpec
		assumed estimator.Assumptions
		want    int64
	}{
		{"replicas, nothing assumed", replicas, nil, 4},
		{"replicas, 3 CPUs assumed", replicas, assumed, 1},
		{"component sets, nothing assumed", sets, nil, 4},
		{"component sets, 3 CPUs assumed", sets, assumed, 1},
	} {
		if got := c.EstimateClusters(clusters, tc.spec, tc.assumed); got[0] != tc.want {
			t.Errorf("%s: estimator answered %d, want %d", tc.name, got[0], tc.want)
		}
	}
}

// TestConvertAssumedBounds: a request never carries more assumed
// workloads, or components in all, than the estimator accepts; the newest
// (first) are kept.
func TestConvertAssumedBounds(t *testing.T) {
	many := make([]estimator.AssumedWorkload, estimatorwire.MaxAssumedWorkloads+5)
	for i := range many {
		many[i] = estimator.AssumedWorkload{Namespace: "ns", Components: []workv1alpha2.Component{cpuComponent("c", int32(i+1), "1m")}}
	}
	out, left, err := convertAssumed(many, 0)
	if err != nil || len(out) != estimatorwire.MaxAssumedWorkloads || left != 5 || out[0].Components[0].Replicas != 1 {
		t.Fatalf("%d workloads sent, %d left, %v; want the %d newest, 5 left", len(out), left, err, estimatorwire.MaxAssumedWorkloads)
	}
	// The request's own components use the same total budget.
	out, left, err = convertAssumed(many[:10], estimatorwire.MaxRequestComponents-3)
	if err != nil || len(out) != 3 || left != 7 {
		t.Fatalf("%d workloads sent, %d left, %v; want 3 sent, 7 left", len(out), left, err)
	}
	wide := []estimator.AssumedWorkload{{Components: make([]workv1alpha2.Component, estimatorwire.MaxComponents+1)}, many[0]}
	if out, left, _ = convertAssumed(wide, 0); len(out) != 1 || left != 1 {
		t.Fatalf("a workload over MaxComponents: %d sent, %d left; want it left out and the next one sent", len(out), left)
	}
}
