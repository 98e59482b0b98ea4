package estimatorwire

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
)

// benchComponentSets is a component-set request with 16 assumed workloads
// of 4 components each, every component with resource requests and a node
// claim: what a busy scheduler sends.
func benchComponentSets() *pb.MaxAvailableComponentSetsRequest {
	c := &pb.Component{Name: "worker", Replicas: 3, ReplicaRequirements: &pb.ComponentReplicaRequirements{
		NodeClaim:            &pb.NodeClaim{NodeSelector: map[string]string{"zone": "a"}, TolerationsBytes: emptyTolerations(2)},
		ResourceRequestBytes: map[string][]byte{"cpu": {0x0a, 0x01, '1'}, "memory": {0x0a, 0x03, '1', 'G', 'i'}},
	}}
	return &pb.MaxAvailableComponentSetsRequest{Cluster: "member1", Namespace: "default", Components: components(4, c), AssumedWorkloads: assumed(16, 4, c)}
}

// BenchmarkWire encodes and decodes requests through the gRPC codec.
func BenchmarkWire(b *testing.B) {
	for _, bc := range []struct {
		name     string
		msg      proto.Message
		newEmpty func() proto.Message
	}{
		{"replicas", sampleReplicasRequest(), func() proto.Message { return &pb.MaxAvailableReplicasRequest{} }},
		{"component-sets", benchComponentSets(), func() proto.Message { return &pb.MaxAvailableComponentSetsRequest{} }},
	} {
		var codec Codec
		data, err := codec.Marshal(bc.msg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name+"/marshal", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := codec.Marshal(bc.msg); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/unmarshal", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := codec.Unmarshal(data, bc.newEmpty()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
