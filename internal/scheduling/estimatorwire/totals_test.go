package estimatorwire

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
)

// components is n times c.
func components(n int, c *pb.Component) []*pb.Component {
	out := make([]*pb.Component, n)
	for i := range out {
		out[i] = c
	}
	return out
}

// assumed is n workloads of per components c each.
func assumed(n, per int, c *pb.Component) []*pb.AssumedWorkload {
	out := make([]*pb.AssumedWorkload, n)
	for i := range out {
		out[i] = &pb.AssumedWorkload{Components: components(per, c)}
	}
	return out
}

func withClaim(claim *pb.NodeClaim) *pb.Component {
	return &pb.Component{ReplicaRequirements: &pb.ComponentReplicaRequirements{NodeClaim: claim}}
}

func withResources(n int) *pb.Component {
	m := map[string][]byte{}
	for i := range n {
		m[fmt.Sprint(i)] = []byte{0x0a, 0x01, '1'}
	}
	return &pb.Component{ReplicaRequirements: &pb.ComponentReplicaRequirements{ResourceRequestBytes: m}}
}

func emptyTolerations(n int) [][]byte { return make([][]byte, n) }

// marshal encodes m with the codec.
func marshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := Codec{}.Marshal(m)
	if err != nil {
		t.Fatalf("marshal %T: %v", m, err)
	}
	return b
}

// affinityBytes is a corev1.NodeSelector of terms terms, each of exprs
// match expressions of values values.
func affinityBytes(terms, exprs, values int) []byte {
	var ns corev1.NodeSelector
	for range terms {
		var term corev1.NodeSelectorTerm
		for range exprs {
			term.MatchExpressions = append(term.MatchExpressions, corev1.NodeSelectorRequirement{Key: "k", Operator: corev1.NodeSelectorOpIn, Values: make([]string, values)})
		}
		ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, term)
	}
	b, _ := ns.Marshal()
	return b
}

// TestRequestTotals: requests within every per-list limit whose elements
// together exceed a total are refused before decoding, naming the field and
// the total; the same requests at the total decode.
func TestRequestTotals(t *testing.T) {
	oneComponent := []*pb.Component{{Name: "c", Replicas: 1}}
	tests := []struct {
		name       string
		atLimit    proto.Message
		overLimit  proto.Message
		wantErrors []string
	}{
		{
			name:       "components of assumed workloads",
			atLimit:    &pb.MaxAvailableReplicasRequest{AssumedWorkloads: assumed(32, 128, &pb.Component{})},
			overLimit:  &pb.MaxAvailableReplicasRequest{AssumedWorkloads: assumed(33, 128, &pb.Component{})},
			wantErrors: []string{"decode MaxAvailableReplicasRequest: assumedWorkloads: components", "more than 4096 components in the request"},
		},
		{
			name:       "components of the set and of assumed workloads",
			atLimit:    &pb.MaxAvailableComponentSetsRequest{Components: components(128, &pb.Component{}), AssumedWorkloads: assumed(31, 128, &pb.Component{})},
			overLimit:  &pb.MaxAvailableComponentSetsRequest{Components: components(128, &pb.Component{}), AssumedWorkloads: append(assumed(31, 128, &pb.Component{}), &pb.AssumedWorkload{Components: components(1, &pb.Component{})})},
			wantErrors: []string{"decode MaxAvailableComponentSetsRequest: assumedWorkloads: components", "more than 4096 components"},
		},
		{
			name:       "tolerations",
			atLimit:    &pb.MaxAvailableComponentSetsRequest{Components: components(32, withClaim(&pb.NodeClaim{TolerationsBytes: emptyTolerations(256)}))},
			overLimit:  &pb.MaxAvailableComponentSetsRequest{Components: components(33, withClaim(&pb.NodeClaim{TolerationsBytes: emptyTolerations(256)}))},
			wantErrors: []string{"components: replicaRequirements: nodeClaim: tolerationsBytes", "more than 8192 tolerations"},
		},
		{
			name:       "resource request entries",
			atLimit:    &pb.MaxAvailableComponentSetsRequest{Components: oneComponent, AssumedWorkloads: assumed(1, 64, withResources(256))},
			overLimit:  &pb.MaxAvailableComponentSetsRequest{Components: oneComponent, AssumedWorkloads: assumed(1, 65, withResources(256))},
			wantErrors: []string{"resourceRequestBytes", "more than 16384 node selector and resource request entries"},
		},
		{
			name:       "affinity terms",
			atLimit:    &pb.MaxAvailableReplicasRequest{ReplicaRequirements: &pb.ReplicaRequirements{NodeClaim: &pb.NodeClaim{NodeAffinityBytes: affinityBytes(4096, 0, 0)}}},
			overLimit:  &pb.MaxAvailableReplicasRequest{ReplicaRequirements: &pb.ReplicaRequirements{NodeClaim: &pb.NodeClaim{NodeAffinityBytes: affinityBytes(4097, 0, 0)}}},
			wantErrors: []string{"replicaRequirements: nodeClaim: nodeAffinityBytes: nodeSelectorTerms", "more than 4096 node affinity terms"},
		},
		{
			name:       "affinity match expressions",
			atLimit:    &pb.MaxAvailableComponentSetsRequest{Components: components(2, withClaim(&pb.NodeClaim{NodeAffinityBytes: affinityBytes(1, 4096, 0)}))},
			overLimit:  &pb.MaxAvailableComponentSetsRequest{Components: components(3, withClaim(&pb.NodeClaim{NodeAffinityBytes: affinityBytes(1, 4096, 0)}))},
			wantErrors: []string{"nodeSelectorTerms: matchExpressions", "more than 8192 node affinity match expressions and fields"},
		},
		{
			name:       "affinity values",
			atLimit:    &pb.MaxAvailableReplicasRequest{ReplicaRequirements: &pb.ReplicaRequirements{NodeClaim: &pb.NodeClaim{NodeAffinityBytes: affinityBytes(1, 32, 1024)}}},
			overLimit:  &pb.MaxAvailableReplicasRequest{ReplicaRequirements: &pb.ReplicaRequirements{NodeClaim: &pb.NodeClaim{NodeAffinityBytes: affinityBytes(1, 33, 1024)}}},
			wantErrors: []string{"matchExpressions: values", "more than 32768 node affinity values"},
		},
		{
			name:       "quantity length",
			atLimit:    &pb.MaxAvailableReplicasRequest{ReplicaRequirements: &pb.ReplicaRequirements{ResourceRequestBytes: map[string][]byte{"cpu": append([]byte{0x0a, 126}, strings.Repeat("9", 126)...)}}},
			overLimit:  &pb.MaxAvailableReplicasRequest{ReplicaRequirements: &pb.ReplicaRequirements{ResourceRequestBytes: map[string][]byte{"cpu": append([]byte{0x0a, 127}, strings.Repeat("9", 127)...)}}},
			wantErrors: []string{"replicaRequirements: resourceRequestBytes: value: 129 bytes, at most 128"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := (Codec{}).Unmarshal(marshal(t, tt.atLimit), tt.atLimit.ProtoReflect().New().Interface()); err != nil {
				t.Fatalf("at the limit: %v", err)
			}
			err := Codec{}.Unmarshal(marshal(t, tt.overLimit), tt.overLimit.ProtoReflect().New().Interface())
			if err == nil {
				t.Fatal("over the limit: decoded")
			}
			for _, want := range tt.wantErrors {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// TestTotalsRefuseBeforeDecoding: a 4 MiB request of 418,432 components,
// each a 10-byte assumed component that decodes to some 700 bytes, is
// refused having allocated next to nothing: the components are counted on
// the wire, not decoded first.
func TestTotalsRefuseBeforeDecoding(t *testing.T) {
	c := &pb.Component{ReplicaRequirements: &pb.ComponentReplicaRequirements{NodeClaim: &pb.NodeClaim{}, ResourceRequestBytes: map[string][]byte{"": nil}}}
	one := marshal(t, &pb.MaxAvailableComponentSetsRequest{AssumedWorkloads: assumed(1, 128, c)})
	b := marshal(t, &pb.MaxAvailableComponentSetsRequest{AssumedWorkloads: assumed(MaxMessageSize/len(one), 128, c)})
	var req pb.MaxAvailableComponentSetsRequest
	var err error
	allocs := testing.AllocsPerRun(1, func() { err = Codec{}.Unmarshal(b, &req) })
	if err == nil || !strings.Contains(err.Error(), "more than 4096 components") {
		t.Fatalf("%d bytes: got %v, want the components total", len(b), err)
	}
	if allocs > 20 {
		t.Fatalf("refusing %d bytes took %v allocations", len(b), allocs)
	}
}

// FuzzTotals decodes arbitrary bytes as each request: whatever decodes
// holds no more than the totals allow, embedded Kubernetes objects
// included, and nothing panics.
func FuzzTotals(f *testing.F) {
	for _, m := range []proto.Message{
		sampleReplicasRequest(),
		&pb.MaxAvailableReplicasRequest{ReplicaRequirements: &pb.ReplicaRequirements{NodeClaim: &pb.NodeClaim{NodeAffinityBytes: affinityBytes(2, 2, 2), TolerationsBytes: emptyTolerations(3)}}},
		&pb.MaxAvailableComponentSetsRequest{Components: components(3, withResources(2)), AssumedWorkloads: assumed(2, 2, withClaim(&pb.NodeClaim{NodeSelector: map[string]string{"a": "b"}}))},
		&pb.MaxAvailableComponentSetsRequest{Components: components(2, withClaim(&pb.NodeClaim{NodeAffinityBytes: affinityBytes(1, 4096, 0)}))},
		&pb.MaxAvailableReplicasRequest{AssumedWorkloads: assumed(32, 128, &pb.Component{})},
	} {
		f.Add(marshal(f, m))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r pb.MaxAvailableReplicasRequest
		if (Codec{}).Unmarshal(data, &r) == nil {
			var c counted
			c.addRequirements(r.GetReplicaRequirements().GetNodeClaim(), r.GetReplicaRequirements().GetResourceRequestBytes())
			c.addAssumed(r.AssumedWorkloads)
			c.check(t)
		}
		var s pb.MaxAvailableComponentSetsRequest
		if (Codec{}).Unmarshal(data, &s) == nil {
			var c counted
			c.addComponents(s.Components)
			c.addAssumed(s.AssumedWorkloads)
			c.check(t)
		}
	})
}

// counted is what a decoded request holds, counted from the decoded form.
type counted struct {
	components, tolerations, entries, terms, exprs, values int
	longestQuantity                                        int
}

func (c *counted) addRequirements(claim *pb.NodeClaim, resources map[string][]byte) {
	c.entries += len(resources)
	for _, q := range resources {
		c.longestQuantity = max(c.longestQuantity, len(q))
	}
	if claim == nil {
		return
	}
	c.entries += len(claim.NodeSelector)
	c.tolerations += len(claim.TolerationsBytes)
	var ns corev1.NodeSelector
	if ns.Unmarshal(claim.NodeAffinityBytes) != nil {
		return
	}
	c.terms += len(ns.NodeSelectorTerms)
	for _, term := range ns.NodeSelectorTerms {
		for _, r := range append(term.MatchExpressions, term.MatchFields...) {
			c.exprs++
			c.values += len(r.Values)
		}
	}
}

func (c *counted) addComponents(cs []*pb.Component) {
	c.components += len(cs)
	for _, comp := range cs {
		c.addRequirements(comp.GetReplicaRequirements().GetNodeClaim(), comp.GetReplicaRequirements().GetResourceRequestBytes())
	}
}

func (c *counted) addAssumed(ws []*pb.AssumedWorkload) {
	for _, w := range ws {
		c.addComponents(w.Components)
	}
}

func (c *counted) check(t *testing.T) {
	t.Helper()
	for _, l := range []struct {
		name     string
		got, max int
	}{
		{"components", c.components, MaxRequestComponents},
		{"tolerations", c.tolerations, MaxRequestTolerations},
		{"map entries", c.entries, MaxRequestMapEntries},
		{"affinity terms", c.terms, MaxRequestAffinityTerms},
		{"affinity requirements", c.exprs, MaxRequestAffinityRequirements},
		{"affinity values", c.values, MaxRequestAffinityValues},
		{"quantity bytes", c.longestQuantity, MaxQuantityBytes},
	} {
		if l.got > l.max {
			t.Fatalf("decoded %d %s, the limit is %d", l.got, l.name, l.max)
		}
	}
}
