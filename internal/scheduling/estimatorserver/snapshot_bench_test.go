package estimatorserver

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
)

// BenchmarkMaxAvailableReplicas answers one estimate on a member of 100
// nodes carrying 20 pods each (2,000 pods), the per-request server cost the
// scheduler pays once per cluster and decision.
func BenchmarkMaxAvailableReplicas(b *testing.B) {
	var objs []runtime.Object
	for i := range 100 {
		n := fmt.Sprintf("n%03d", i)
		objs = append(objs, node(n, "64", nil))
		for j := range 20 {
			objs = append(objs, pod(fmt.Sprintf("p%03d-%02d", i, j), n, "250m", corev1.PodRunning))
		}
	}
	e := New("m1", fake.NewClientset(objs...))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := e.Start(ctx); err != nil {
		b.Fatal(err)
	}
	req := &pb.MaxAvailableReplicasRequest{Cluster: "m1", ReplicaRequirements: &pb.ReplicaRequirements{ResourceRequestBytes: quantities("cpu", "500m")}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		resp, err := e.MaxAvailableReplicas(ctx, req)
		if err != nil || resp.MaxReplicas != 100*(110-20) {
			b.Fatalf("MaxAvailableReplicas = %v, %v", resp, err)
		}
	}
}
