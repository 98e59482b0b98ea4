package estimatorserver

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
)

// FuzzRequest decodes arbitrary bytes as the server does (the wire
// message, then the Kubernetes objects embedded in it) and answers them
// against a small cluster: any input gets an answer or an error, never a
// panic, and never a negative replica count.
func FuzzRequest(f *testing.F) {
	seeds := []proto.Message{
		&pb.MaxAvailableReplicasRequest{Cluster: "m1", ReplicaRequirements: &pb.ReplicaRequirements{
			ResourceRequestBytes: quantities("cpu", "1", "memory", "1Gi"),
			NodeClaim: &pb.NodeClaim{NodeSelector: map[string]string{"zone": "a"}, NodeAffinityBytes: affinity(corev1.NodeSelectorOpIn, "zone", "a"),
				TolerationsBytes: tolerations(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpExists})},
		}, AssumedWorkloads: []*pb.AssumedWorkload{{Components: []*pb.Component{{Replicas: 3, ReplicaRequirements: &pb.ComponentReplicaRequirements{ResourceRequestBytes: quantities("cpu", "2")}}}}}},
		&pb.MaxAvailableComponentSetsRequest{Cluster: "m1", Components: []*pb.Component{{Name: "w", Replicas: 2, ReplicaRequirements: &pb.ComponentReplicaRequirements{ResourceRequestBytes: quantities("cpu", "500m")}}}},
	}
	for _, m := range seeds {
		b, err := estimatorwire.Codec{}.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	e := New("m1", nil)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a"}}, Spec: corev1.NodeSpec{Taints: []corev1.Taint{dedicated}},
		Status: corev1.NodeStatus{Allocatable: node("n1", "8", nil).Status.Allocatable}}
	if err := e.factory.Core().V1().Nodes().Informer().GetStore().Add(node); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r pb.MaxAvailableReplicasRequest
		if (estimatorwire.Codec{}).Unmarshal(data, &r) == nil {
			r.Cluster = "m1"
			if res, err := e.MaxAvailableReplicas(context.Background(), &r); err == nil && res.MaxReplicas < 0 {
				t.Fatalf("negative answer %d", res.MaxReplicas)
			}
		}
		var c pb.MaxAvailableComponentSetsRequest
		if (estimatorwire.Codec{}).Unmarshal(data, &c) == nil {
			c.Cluster = "m1"
			if res, err := e.MaxAvailableComponentSets(context.Background(), &c); err == nil && res.MaxSets < 0 {
				t.Fatalf("negative answer %d", res.MaxSets)
			}
		}
	})
}
