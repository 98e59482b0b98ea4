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
