package estimatorwire

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
)

func sampleReplicasRequest() *pb.MaxAvailableReplicasRequest {
	return &pb.MaxAvailableReplicasRequest{
		Cluster: "member1",
		ReplicaRequirements: &pb.ReplicaRequirements{
			NodeClaim: &pb.NodeClaim{
				NodeSelector:      map[string]string{"zone": "a", "disk": "ssd"},
				NodeAffinityBytes: []byte{0x0a, 0x00},
				TolerationsBytes:  [][]byte{{0x0a, 0x01, 'k'}, {}},
			},
			Namespace:            "default",
			PriorityClassName:    "high",
			ResourceRequestBytes: map[string][]byte{"memory": {0x0a, 0x03, '1', 'G', 'i'}, "cpu": {0x0a, 0x01, '1'}},
		},
		AssumedWorkloads: []*pb.AssumedWorkload{{Namespace: "ns", Components: []*pb.Component{{Name: "w", Replicas: 2, ReplicaRequirements: &pb.ComponentReplicaRequirements{}}}}},
	}
}

// TestGoldenBytes pins the encoding to what Karmada's generated code
// writes: ascending fields, sorted map keys, zero scalars absent, and the
// required embedded messages present when empty (Propel's client always
// sets them, as Karmada's non-nullable fields always are).
func TestGoldenBytes(t *testing.T) {
	req := &pb.MaxAvailableReplicasRequest{
		Cluster:             "m",
		ReplicaRequirements: &pb.ReplicaRequirements{ResourceRequestBytes: map[string][]byte{"pods": {0x0a, 0x01, '1'}, "cpu": {0x0a, 0x01, '2'}}},
	}
	got := marshal(t, req)
	// 0a 01 'm' | 12 len { 2a len {0a 03 "cpu" 12 03 0a 01 '2'} 2a len {0a 04 "pods" 12 03 0a 01 '1'} }
	want := "0a016d" + "1219" + "2a0a" + "0a03637075" + "12030a0132" + "2a0b" + "0a04706f6473" + "12030a0131"
	if hex.EncodeToString(got) != want {
		t.Errorf("got  %x\nwant %s", got, want)
	}
	empty := marshal(t, &pb.MaxAvailableReplicasRequest{ReplicaRequirements: &pb.ReplicaRequirements{}})
	if hex.EncodeToString(empty) != "1200" {
		t.Errorf("empty request: got %x, want 1200 (replicaRequirements always present)", empty)
	}
	neg := marshal(t, &pb.MaxAvailableReplicasResponse{MaxReplicas: -1})
	if hex.EncodeToString(neg) != "08ffffffffffffffffff01" {
		t.Errorf("-1: got %x, want sign-extended varint", neg)
	}
	u := marshal(t, &pb.UnschedulableReplicasRequest{Cluster: "m", Resource: &pb.ObjectReference{}, UnschedulableThreshold: 60})
	if hex.EncodeToString(u) != "0a016d1200183c" {
		t.Errorf("unschedulable request: got %x", u)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, m := range []proto.Message{
		sampleReplicasRequest(),
		&pb.MaxAvailableReplicasResponse{MaxReplicas: 42},
		&pb.MaxAvailableComponentSetsRequest{Cluster: "c", Namespace: "n", Components: []*pb.Component{
			{Name: "launcher", Replicas: 1, ReplicaRequirements: &pb.ComponentReplicaRequirements{PriorityClassName: "p", ResourceRequestBytes: map[string][]byte{"cpu": {0x0a, 0x01, '1'}}}},
			{Name: "worker", Replicas: 4, ReplicaRequirements: &pb.ComponentReplicaRequirements{NodeClaim: &pb.NodeClaim{NodeSelector: map[string]string{"a": "b"}}}},
		}},
		&pb.MaxAvailableComponentSetsResponse{MaxSets: 3},
		&pb.UnschedulableReplicasRequest{Cluster: "c", Resource: &pb.ObjectReference{ApiVersion: "apps/v1", Kind: "Deployment", Namespace: "n", Name: "d"}, UnschedulableThreshold: 1e9},
		&pb.UnschedulableReplicasResponse{UnschedulableReplicas: 5},
	} {
		b := marshal(t, m)
		out := m.ProtoReflect().New().Interface()
		if err := (Codec{}).Unmarshal(b, out); err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		if !proto.Equal(m, out) {
			t.Errorf("%T: round trip\n got %v\nwant %v", m, out, m)
		}
		if again := marshal(t, out); !bytes.Equal(b, again) {
			t.Errorf("%T: re-encoding differs", m)
		}
	}
}

func TestLimitsAndMalformedInput(t *testing.T) {
	var req pb.MaxAvailableComponentSetsRequest
	many := &pb.MaxAvailableComponentSetsRequest{Components: components(MaxComponents+1, &pb.Component{})}
	if err := (Codec{}).Unmarshal(marshal(t, many), &req); err == nil {
		t.Error("more than MaxComponents components accepted")
	}
	for _, bad := range [][]byte{{0x0a, 0x05, 'a'}, {0x12, 0x02, 0x2a, 0x09}, {0x80}, {0x12, 0x02, 0x0a, 0x7f}} {
		if err := (Codec{}).Unmarshal(bad, &req); err == nil {
			t.Errorf("malformed %x accepted", bad)
		}
	}
	// Unknown fields and unexpected wire types are skipped.
	if err := (Codec{}).Unmarshal([]byte{0x0a, 0x01, 'c', 0x78, 0x01, 0x0d, 1, 2, 3, 4}, &req); err != nil || req.Cluster != "c" {
		t.Errorf("unknown fields: %v, cluster %q", err, req.Cluster)
	}
}

// TestPerListLimits: each list of a request is bounded on its own, below
// the request totals, before anything is decoded.
func TestPerListLimits(t *testing.T) {
	manyTolerations := &pb.MaxAvailableReplicasRequest{ReplicaRequirements: &pb.ReplicaRequirements{NodeClaim: &pb.NodeClaim{TolerationsBytes: emptyTolerations(MaxTolerations + 1)}}}
	selector := map[string]string{}
	for i := range MaxMapEntries + 1 {
		selector[string(rune('a'+i%26))+string(rune('a'+i/26))] = "v"
	}
	for _, tt := range []struct {
		name string
		msg  proto.Message
		want string
	}{
		{"components of the set", &pb.MaxAvailableComponentSetsRequest{Components: components(MaxComponents+1, &pb.Component{})}, "components: too many entries (at most 128)"},
		{"components of an assumed workload", &pb.MaxAvailableReplicasRequest{AssumedWorkloads: assumed(1, MaxComponents+1, &pb.Component{})}, "assumedWorkloads: components: too many entries (at most 128)"},
		{"assumed workloads", &pb.MaxAvailableComponentSetsRequest{AssumedWorkloads: assumed(MaxAssumedWorkloads+1, 0, nil)}, "assumedWorkloads: too many entries (at most 4096)"},
		{"tolerations", manyTolerations, "nodeClaim: tolerationsBytes: too many entries (at most 256)"},
		{"node selector", &pb.MaxAvailableComponentSetsRequest{Components: []*pb.Component{withClaim(&pb.NodeClaim{NodeSelector: selector})}}, "nodeSelector: too many entries (at most 256)"},
		{"resource requests", &pb.MaxAvailableComponentSetsRequest{Components: []*pb.Component{withResources(MaxMapEntries + 1)}}, "resourceRequestBytes: too many entries (at most 256)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := Codec{}.Unmarshal(marshal(t, tt.msg), tt.msg.ProtoReflect().New().Interface())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestShapesFitTheScan: the scan counts a message's fields in an array of
// maxShapeFields.
func TestShapesFitTheScan(t *testing.T) {
	var walk func(name string, s shape)
	walk = func(name string, s shape) {
		if len(s) > maxShapeFields {
			t.Errorf("%s: a shape of %d fields, the scan counts %d", name, len(s), maxShapeFields)
		}
		for _, f := range s {
			if f.body != nil {
				walk(name+"."+f.name, f.body)
			}
		}
	}
	walk("MaxAvailableReplicasRequest", maxAvailableReplicasShape)
	walk("MaxAvailableComponentSetsRequest", maxAvailableComponentSetsShape)
}

// FuzzDecode feeds arbitrary bytes to every request decoder (what the
// estimator server reads from the network): no panic, and what decodes
// re-encodes to something that decodes to the same message.
func FuzzDecode(f *testing.F) {
	for _, m := range []proto.Message{
		sampleReplicasRequest(),
		&pb.MaxAvailableComponentSetsRequest{Cluster: "c", Components: []*pb.Component{{Name: "x", Replicas: 1}}},
		&pb.UnschedulableReplicasRequest{Cluster: "c", Resource: &pb.ObjectReference{Kind: "Deployment"}},
	} {
		f.Add(marshal(f, m))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, empty := range []proto.Message{
			&pb.MaxAvailableReplicasRequest{},
			&pb.MaxAvailableComponentSetsRequest{},
			&pb.UnschedulableReplicasRequest{},
			&pb.MaxAvailableReplicasResponse{},
		} {
			m := empty.ProtoReflect().New().Interface()
			if err := (Codec{}).Unmarshal(data, m); err != nil {
				continue
			}
			again := empty.ProtoReflect().New().Interface()
			if err := (Codec{}).Unmarshal(marshal(t, m), again); err != nil {
				t.Fatalf("%T: re-encoded message does not decode: %v", m, err)
			}
			if !proto.Equal(m, again) {
				t.Fatalf("%T: decode(encode(m)) != m", m)
			}
		}
	})
}
