package estimatorwire

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
)

// TestSharedRequestForCluster checks that a request encoded once without
// its cluster and completed per cluster is byte for byte the request's
// own encoding, and that the codec sends it as is.
func TestSharedRequestForCluster(t *testing.T) {
	for _, req := range []proto.Message{
		sampleReplicasRequest(),
		&pb.MaxAvailableReplicasRequest{Cluster: "m", ReplicaRequirements: &pb.ReplicaRequirements{}},
		benchComponentSets(),
	} {
		for _, cluster := range []string{"member1", "", string(bytes.Repeat([]byte{'c'}, 200))} {
			full := proto.Clone(req)
			setCluster(full, cluster)
			want := marshal(t, full)
			unnamed := proto.Clone(req)
			setCluster(unnamed, "")
			shared, err := EncodeShared(unnamed)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Codec{}.Marshal(shared.For(cluster))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%T for cluster %q:\ngot  %x\nwant %x", req, cluster, got, want)
			}
		}
	}
}

func setCluster(m proto.Message, cluster string) {
	switch r := m.(type) {
	case *pb.MaxAvailableReplicasRequest:
		r.Cluster = cluster
	case *pb.MaxAvailableComponentSetsRequest:
		r.Cluster = cluster
	}
}

func TestEncodeSharedRefuses(t *testing.T) {
	if _, err := EncodeShared(&pb.MaxAvailableReplicasRequest{Cluster: "m"}); err == nil {
		t.Error("a request naming its cluster was encoded as shared")
	}
	if _, err := EncodeShared(&pb.UnschedulableReplicasRequest{}); err == nil {
		t.Error("a request that is not an estimate was encoded as shared")
	}
}

// TestSharedRequestWithAssumed checks that the workloads assumed on one
// cluster, appended to the shared request completed for it, give the
// encoding of the whole request holding them.
func TestSharedRequestWithAssumed(t *testing.T) {
	assumed := []*pb.AssumedWorkload{
		{Namespace: "ns1", Components: benchComponentSets().GetComponents()},
		{Namespace: "", Components: nil},
		{Namespace: "ns2", Components: benchComponentSets().GetComponents()[:1]},
	}
	for _, req := range []proto.Message{sampleReplicasRequest(), benchComponentSets()} {
		_, componentSets := req.(*pb.MaxAvailableComponentSetsRequest)
		full := proto.Clone(req)
		setCluster(full, "member1")
		switch r := full.(type) {
		case *pb.MaxAvailableReplicasRequest:
			r.AssumedWorkloads = assumed
		case *pb.MaxAvailableComponentSetsRequest:
			r.AssumedWorkloads = assumed
		}
		want := marshal(t, full)
		unnamed := proto.Clone(req)
		setCluster(unnamed, "")
		switch r := unnamed.(type) {
		case *pb.MaxAvailableReplicasRequest:
			r.AssumedWorkloads = nil
		case *pb.MaxAvailableComponentSetsRequest:
			r.AssumedWorkloads = nil
		}
		shared, err := EncodeShared(unnamed)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := WithAssumed(shared.For("member1"), componentSets, assumed)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Codec{}.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%T with assumed workloads:\ngot  %x\nwant %x", req, got, want)
		}
	}
}
