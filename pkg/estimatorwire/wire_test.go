package estimatorwire

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"testing"
)

func sampleReplicasRequest() *MaxAvailableReplicasRequest {
	return &MaxAvailableReplicasRequest{
		Cluster: "member1",
		ReplicaRequirements: ReplicaRequirements{
			NodeClaim: &NodeClaim{
				NodeSelector:      map[string]string{"zone": "a", "disk": "ssd"},
				NodeAffinityBytes: []byte{0x0a, 0x00},
				TolerationsBytes:  [][]byte{{0x0a, 0x01, 'k'}, {}},
			},
			Namespace:            "default",
			PriorityClassName:    "high",
			ResourceRequestBytes: map[string][]byte{"memory": {0x0a, 0x03, '1', 'G', 'i'}, "cpu": {0x0a, 0x01, '1'}},
		},
		AssumedWorkloads: []AssumedWorkload{{Namespace: "ns", Components: []Component{{Name: "w", Replicas: 2}}}},
	}
}

// TestGoldenBytes pins the encoding to what Karmada's generated code
// writes: ascending fields, sorted map keys, empty embedded messages
// present, zero scalars absent.
func TestGoldenBytes(t *testing.T) {
	req := &MaxAvailableReplicasRequest{
		Cluster:             "m",
		ReplicaRequirements: ReplicaRequirements{ResourceRequestBytes: map[string][]byte{"pods": {0x0a, 0x01, '1'}, "cpu": {0x0a, 0x01, '2'}}},
	}
	got, _ := req.Marshal()
	// 0a 01 'm' | 12 len { 2a len {0a 03 "cpu" 12 03 0a 01 '2'} 2a len {0a 04 "pods" 12 03 0a 01 '1'} }
	want := "0a016d" + "1219" + "2a0a" + "0a03637075" + "12030a0132" + "2a0b" + "0a04706f6473" + "12030a0131"
	if hex.EncodeToString(got) != want {
		t.Errorf("got  %x\nwant %s", got, want)
	}
	empty, _ := (&MaxAvailableReplicasRequest{}).Marshal()
	if hex.EncodeToString(empty) != "1200" {
		t.Errorf("empty request: got %x, want 1200 (replicaRequirements always present)", empty)
	}
	neg, _ := (&MaxAvailableReplicasResponse{MaxReplicas: -1}).Marshal()
	if hex.EncodeToString(neg) != "08ffffffffffffffffff01" {
		t.Errorf("-1: got %x, want sign-extended varint", neg)
	}
	u, _ := (&UnschedulableReplicasRequest{Cluster: "m", UnschedulableThreshold: 60}).Marshal()
	if hex.EncodeToString(u) != "0a016d1200183c" {
		t.Errorf("unschedulable request: got %x", u)
	}
}

func TestRoundTrip(t *testing.T) {
	msgs := []struct{ in, out Message }{
		{sampleReplicasRequest(), &MaxAvailableReplicasRequest{}},
		{&MaxAvailableReplicasResponse{MaxReplicas: 42}, &MaxAvailableReplicasResponse{}},
		{&MaxAvailableComponentSetsRequest{Cluster: "c", Namespace: "n", Components: []Component{
			{Name: "launcher", Replicas: 1, ReplicaRequirements: ComponentReplicaRequirements{PriorityClassName: "p", ResourceRequestBytes: map[string][]byte{"cpu": {0x0a, 0x01, '1'}}}},
			{Name: "worker", Replicas: 4, ReplicaRequirements: ComponentReplicaRequirements{NodeClaim: &NodeClaim{NodeSelector: map[string]string{"a": "b"}}}},
		}}, &MaxAvailableComponentSetsRequest{}},
		{&MaxAvailableComponentSetsResponse{MaxSets: 3}, &MaxAvailableComponentSetsResponse{}},
		{&UnschedulableReplicasRequest{Cluster: "c", Resource: ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "n", Name: "d"}, UnschedulableThreshold: 1e9}, &UnschedulableReplicasRequest{}},
		{&UnschedulableReplicasResponse{UnschedulableReplicas: 5}, &UnschedulableReplicasResponse{}},
	}
	for _, m := range msgs {
		b, err := m.in.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := m.out.Unmarshal(b); err != nil {
			t.Fatalf("%T: %v", m.in, err)
		}
		if !reflect.DeepEqual(m.in, m.out) {
			t.Errorf("%T: round trip\n got %+v\nwant %+v", m.in, m.out, m.in)
		}
		again, _ := m.out.Marshal()
		if !bytes.Equal(b, again) {
			t.Errorf("%T: re-encoding differs", m.in)
		}
	}
}

func TestLimitsAndMalformedInput(t *testing.T) {
	var req MaxAvailableComponentSetsRequest
	many := &MaxAvailableComponentSetsRequest{Components: make([]Component, MaxComponents+1)}
	b, _ := many.Marshal()
	if err := req.Unmarshal(b); err == nil {
		t.Error("more than MaxComponents components accepted")
	}
	for _, bad := range [][]byte{{0x0a, 0x05, 'a'}, {0x12, 0x02, 0x2a, 0x09}, {0x80}, {0x12, 0x02, 0x0a, 0x7f}} {
		if err := req.Unmarshal(bad); err == nil {
			t.Errorf("malformed %x accepted", bad)
		}
	}
	// Unknown fields and unexpected wire types are skipped.
	if err := req.Unmarshal([]byte{0x0a, 0x01, 'c', 0x78, 0x01, 0x0d, 1, 2, 3, 4}); err != nil || req.Cluster != "c" {
		t.Errorf("unknown fields: %v, cluster %q", err, req.Cluster)
	}
}

// FuzzDecode feeds arbitrary bytes to every request decoder (what the
// estimator server reads from the network): no panic, and what decodes
// re-encodes to something that decodes to the same message.
func FuzzDecode(f *testing.F) {
	for _, m := range []Message{sampleReplicasRequest(), &MaxAvailableComponentSetsRequest{Cluster: "c", Components: []Component{{Name: "x", Replicas: 1}}}, &UnschedulableReplicasRequest{Cluster: "c", Resource: ObjectReference{Kind: "Deployment"}}} {
		b, _ := m.Marshal()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, newMsg := range []func() Message{
			func() Message { return &MaxAvailableReplicasRequest{} },
			func() Message { return &MaxAvailableComponentSetsRequest{} },
			func() Message { return &UnschedulableReplicasRequest{} },
			func() Message { return &MaxAvailableReplicasResponse{} },
		} {
			m := newMsg()
			if err := m.Unmarshal(data); err != nil {
				continue
			}
			b, err := m.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			again := newMsg()
			if err := again.Unmarshal(b); err != nil {
				t.Fatalf("%T: re-encoded message does not decode: %v", m, err)
			}
			if !reflect.DeepEqual(normalize(m), normalize(again)) {
				t.Fatalf("%T: decode(encode(m)) != m", m)
			}
		}
	})
}

// normalize maps an empty byte slice to nil: proto3 cannot tell them apart
// for singular bytes fields.
func normalize(m Message) Message {
	fix := func(nc *NodeClaim) {
		if nc != nil && len(nc.NodeAffinityBytes) == 0 {
			nc.NodeAffinityBytes = nil
		}
	}
	switch r := m.(type) {
	case *MaxAvailableReplicasRequest:
		fix(r.ReplicaRequirements.NodeClaim)
		for i := range r.AssumedWorkloads {
			for j := range r.AssumedWorkloads[i].Components {
				fix(r.AssumedWorkloads[i].Components[j].ReplicaRequirements.NodeClaim)
			}
		}
	case *MaxAvailableComponentSetsRequest:
		for i := range r.Components {
			fix(r.Components[i].ReplicaRequirements.NodeClaim)
		}
		for i := range r.AssumedWorkloads {
			for j := range r.AssumedWorkloads[i].Components {
				fix(r.AssumedWorkloads[i].Components[j].ReplicaRequirements.NodeClaim)
			}
		}
	}
	return m
}
