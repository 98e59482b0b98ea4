package estimatorwire

import "testing"

// benchComponentSets is a component-set request with 16 assumed workloads
// of 4 components each, every component with resource requests and a node
// claim: what a busy scheduler sends.
func benchComponentSets() *MaxAvailableComponentSetsRequest {
	c := Component{Name: "worker", Replicas: 3, ReplicaRequirements: ComponentReplicaRequirements{
		NodeClaim:            &NodeClaim{NodeSelector: map[string]string{"zone": "a"}, TolerationsBytes: emptyTolerations(2)},
		ResourceRequestBytes: map[string][]byte{"cpu": {0x0a, 0x01, '1'}, "memory": {0x0a, 0x03, '1', 'G', 'i'}},
	}}
	return &MaxAvailableComponentSetsRequest{Cluster: "member1", Namespace: "default", Components: components(4, c), AssumedWorkloads: assumed(16, 4, c)}
}

// BenchmarkWire encodes and decodes requests through the gRPC codec.
func BenchmarkWire(b *testing.B) {
	for _, bc := range []struct {
		name     string
		msg      Message
		newEmpty func() Message
	}{
		{"replicas", sampleReplicasRequest(), func() Message { return &MaxAvailableReplicasRequest{} }},
		{"component-sets", benchComponentSets(), func() Message { return &MaxAvailableComponentSetsRequest{} }},
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
