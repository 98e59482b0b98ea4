package estimatorwire

import "fmt"

// ServiceName is the gRPC service of karmada-scheduler-estimator.
const ServiceName = "github.com.karmada_io.karmada.pkg.estimator.service.Estimator"

// The full gRPC method names.
const (
	MethodMaxAvailableReplicas      = "/" + ServiceName + "/MaxAvailableReplicas"
	MethodMaxAvailableComponentSets = "/" + ServiceName + "/MaxAvailableComponentSets"
	MethodGetUnschedulableReplicas  = "/" + ServiceName + "/GetUnschedulableReplicas"
)

// Message is a message of this package.
type Message interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// Codec is a gRPC codec (google.golang.org/grpc/encoding.Codec) for this
// package's messages. Its name is "proto", so calls carry the content type
// application/grpc+proto that Karmada's estimator expects.
type Codec struct{}

// Marshal implements encoding.Codec.
func (Codec) Marshal(v any) ([]byte, error) {
	m, ok := v.(Message)
	if !ok {
		return nil, fmt.Errorf("estimator codec: cannot marshal %T", v)
	}
	return m.Marshal()
}

// Unmarshal implements encoding.Codec.
func (Codec) Unmarshal(data []byte, v any) error {
	m, ok := v.(Message)
	if !ok {
		return fmt.Errorf("estimator codec: cannot unmarshal into %T", v)
	}
	return m.Unmarshal(data)
}

// Name implements encoding.Codec.
func (Codec) Name() string { return "proto" }
