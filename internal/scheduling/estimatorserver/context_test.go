package estimatorserver

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
)

// expiring is a context whose Err becomes DeadlineExceeded at its after-th
// call, counting the calls.
type expiring struct {
	context.Context
	after int64
	calls atomic.Int64
}

func (c *expiring) Err() error {
	if c.calls.Add(1) >= c.after {
		return context.DeadlineExceeded
	}
	return nil
}

// TestHandlersHonourContext: the handlers stop at the first check after
// the caller's context ends, within a node, pod or component of it,
// instead of answering a caller that no longer waits.
func TestHandlersHonourContext(t *testing.T) {
	objs := []runtime.Object{&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "default"}, Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}}}}
	for i := range 200 {
		objs = append(objs, node(fmt.Sprintf("n%03d", i), "64", nil), pod(fmt.Sprintf("p%03d", i), "", "1", corev1.PodPending))
	}
	e := start(t, objs...)
	cpu := &pb.ComponentReplicaRequirements{ResourceRequestBytes: quantities("cpu", "1")}
	assumed := []*pb.AssumedWorkload{{Components: []*pb.Component{{Replicas: 1000, ReplicaRequirements: cpu}}}}
	calls := map[string]func(ctx context.Context) error{
		"MaxAvailableReplicas": func(ctx context.Context) error {
			_, err := e.MaxAvailableReplicas(ctx, &pb.MaxAvailableReplicasRequest{Cluster: "m1", AssumedWorkloads: assumed,
				ReplicaRequirements: &pb.ReplicaRequirements{ResourceRequestBytes: quantities("cpu", "1")}})
			return err
		},
		"MaxAvailableComponentSets": func(ctx context.Context) error {
			_, err := e.MaxAvailableComponentSets(ctx, &pb.MaxAvailableComponentSetsRequest{Cluster: "m1", AssumedWorkloads: assumed,
				Components: []*pb.Component{{Name: "a", Replicas: 1, ReplicaRequirements: cpu}, {Name: "b", Replicas: 2, ReplicaRequirements: cpu}}})
			return err
		},
		"GetUnschedulableReplicas": func(ctx context.Context) error {
			_, err := e.GetUnschedulableReplicas(ctx, &pb.UnschedulableReplicasRequest{Cluster: "m1",
				Resource: &pb.ObjectReference{ApiVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "d"}})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			full := &expiring{Context: context.Background(), after: 1 << 62}
			if err := call(full); err != nil {
				t.Fatal(err)
			}
			steps := full.calls.Load()
			if steps < 200 {
				t.Fatalf("the context was checked %d times over 200 nodes or pods", steps)
			}
			// The context ends midway, then at once.
			for _, after := range []int64{steps / 2, 1} {
				ctx := &expiring{Context: context.Background(), after: after}
				err := call(ctx)
				if status.Code(err) != codes.DeadlineExceeded {
					t.Fatalf("context ended at check %d of %d: got %v, want DeadlineExceeded", after, steps, err)
				}
				if ctx.calls.Load() != after {
					t.Fatalf("context ended at check %d: checked %d times", after, ctx.calls.Load())
				}
			}
		})
	}
}
