package estimatorwire

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
)

// Codec is the gRPC codec (google.golang.org/grpc/encoding.Codec) of the
// estimator's messages, the generated types of package pb. Its name is
// "proto", so calls carry the content type application/grpc+proto that
// Karmada's estimator expects.
//
// Marshal writes map entries sorted by key, as Karmada's code does, so
// that a request has one encoding. Unmarshal refuses a request over the
// limits (Limits, Totals) from a scan of its bytes before it decodes them.
type Codec struct{}

var deterministic = proto.MarshalOptions{Deterministic: true}

// Encoded is a message already encoded (as Codec.Marshal would): Marshal
// writes it as is. It lets a caller encode what many requests share once.
type Encoded []byte

// Marshal implements encoding.Codec.
func (Codec) Marshal(v any) ([]byte, error) {
	if e, ok := v.(Encoded); ok {
		return e, nil
	}
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("estimator codec: cannot marshal %T", v)
	}
	return deterministic.Marshal(m)
}

// Unmarshal implements encoding.Codec.
func (Codec) Unmarshal(data []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("estimator codec: cannot unmarshal into %T", v)
	}
	name := m.ProtoReflect().Descriptor().Name()
	if s := requestShape(m); s != nil {
		if err := checkTotals(s, data); err != nil {
			return fmt.Errorf("decode %s: %w", name, err)
		}
	}
	if err := proto.Unmarshal(data, m); err != nil {
		return fmt.Errorf("decode %s: %w", name, err)
	}
	return nil
}

// Name implements encoding.Codec.
func (Codec) Name() string { return "proto" }

// requestShape is the shape the scan checks m's encoding against; nil for
// messages without lists.
func requestShape(m proto.Message) shape {
	switch m.(type) {
	case *pb.MaxAvailableReplicasRequest:
		return maxAvailableReplicasShape
	case *pb.MaxAvailableComponentSetsRequest:
		return maxAvailableComponentSetsShape
	}
	return nil
}
