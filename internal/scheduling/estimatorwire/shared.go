package estimatorwire

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
)

// clusterField is the number of the cluster name in both estimate
// requests (MaxAvailableReplicasRequest, MaxAvailableComponentSetsRequest).
const clusterField protowire.Number = 1

// SharedRequest is the encoding of an estimate request without its cluster
// name: what the requests of one decision to every cluster have in common.
// The cluster name is the request's lowest field, so the encoding Codec
// writes for the whole request is the cluster field followed by these
// bytes; For rebuilds it exactly without encoding the rest again. Fields
// that differ per cluster and are numbered above the shared ones (the
// assumed workloads) would follow them.
type SharedRequest []byte

// EncodeShared encodes req, a MaxAvailableReplicasRequest or a
// MaxAvailableComponentSetsRequest without a cluster name, as Codec does.
func EncodeShared(req proto.Message) (SharedRequest, error) {
	var cluster string
	switch r := req.(type) {
	case *pb.MaxAvailableReplicasRequest:
		cluster = r.GetCluster()
	case *pb.MaxAvailableComponentSetsRequest:
		cluster = r.GetCluster()
	default:
		return nil, fmt.Errorf("estimator codec: %T is not an estimate request", req)
	}
	if cluster != "" {
		return nil, fmt.Errorf("estimator codec: shared request names cluster %q", cluster)
	}
	b, err := deterministic.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", req.ProtoReflect().Descriptor().Name(), err)
	}
	return b, nil
}

// For is the request's encoding for cluster, byte for byte what Codec
// writes for the request with its cluster name set.
func (s SharedRequest) For(cluster string) Encoded {
	if cluster == "" {
		// An empty string is not written.
		return Encoded(s)
	}
	b := make([]byte, 0, protowire.SizeTag(clusterField)+protowire.SizeBytes(len(cluster))+len(s))
	b = protowire.AppendTag(b, clusterField, protowire.BytesType)
	b = protowire.AppendString(b, cluster)
	return append(b, s...)
}

// The number of the assumed workloads in each estimate request: the
// highest of both, so the workloads assumed on one cluster can follow the
// shared bytes.
var (
	replicasAssumedField      = assumedField(&pb.MaxAvailableReplicasRequest{})
	componentSetsAssumedField = assumedField(&pb.MaxAvailableComponentSetsRequest{})
)

func assumedField(m proto.Message) protowire.Number {
	return m.ProtoReflect().Descriptor().Fields().ByName("assumedWorkloads").Number()
}

// WithAssumed appends the workloads assumed on one cluster to msg, a
// request's encoding from For (componentSets tells which request). It is
// byte for byte what Codec writes for the request holding them.
func WithAssumed(msg Encoded, componentSets bool, assumed []*pb.AssumedWorkload) (Encoded, error) {
	if len(assumed) == 0 {
		return msg, nil
	}
	field := replicasAssumedField
	if componentSets {
		field = componentSetsAssumedField
	}
	out := append([]byte(nil), msg...)
	for _, w := range assumed {
		b, err := deterministic.Marshal(w)
		if err != nil {
			return nil, fmt.Errorf("encode assumed workload of namespace %q: %w", w.GetNamespace(), err)
		}
		out = protowire.AppendTag(out, field, protowire.BytesType)
		out = protowire.AppendBytes(out, b)
	}
	return out, nil
}
