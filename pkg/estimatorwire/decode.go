package estimatorwire

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Limits bound what one decoded list or map may hold; a message over a
// limit is rejected. gRPC bounds the message size (MaxMessageSize) first,
// and the request totals (totals.go) bound the lists together.
const (
	// MaxMessageSize is the largest message the estimator server accepts.
	MaxMessageSize = 4 << 20
	// MaxComponents bounds the components of a request or assumed workload.
	MaxComponents = 128
	// MaxAssumedWorkloads bounds a request's assumed workloads.
	MaxAssumedWorkloads = 4096
	// MaxTolerations bounds a node claim's tolerations.
	MaxTolerations = 256
	// MaxMapEntries bounds the node selector and resource request maps.
	MaxMapEntries = 256
)

var errLimit = errors.New("too many entries")

// field is one decoded field: varint fields carry u, length-delimited
// fields carry v; other wire types are skipped before reaching a handler.
type field struct {
	num protowire.Number
	typ protowire.Type
	u   uint64
	v   []byte
}

func (f field) bytes() bool  { return f.typ == protowire.BytesType }
func (f field) varint() bool { return f.typ == protowire.VarintType }

// walk calls handle for every field of b. Unknown fields and fields of an
// unexpected wire type are the handler's to ignore.
func walk(b []byte, handle func(f field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.u, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			f.v, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
		if typ != protowire.VarintType && typ != protowire.BytesType {
			continue
		}
		if err := handle(f); err != nil {
			return err
		}
	}
	return nil
}

func decodeMapEntry(b []byte) (key string, value []byte, err error) {
	err = walk(b, func(f field) error {
		switch {
		case f.num == 1 && f.bytes():
			key = string(f.v)
		case f.num == 2 && f.bytes():
			value = f.v
		}
		return nil
	})
	return key, value, err
}

// addEntry decodes one map entry into *m, converting the value with
// value, within MaxMapEntries distinct keys.
func addEntry[V any](m *map[string]V, name string, b []byte, value func([]byte) V) error {
	k, v, err := decodeMapEntry(b)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if *m == nil {
		*m = map[string]V{}
	}
	if _, ok := (*m)[k]; !ok && len(*m) >= MaxMapEntries {
		return fmt.Errorf("%s: %w (at most %d)", name, errLimit, MaxMapEntries)
	}
	(*m)[k] = value(v)
	return nil
}

func toString(v []byte) string { return string(v) }

// clone copies v so that a decoded message never aliases the buffer gRPC
// reuses; nil stays nil, empty stays empty.
func clone(v []byte) []byte {
	if v == nil {
		return nil
	}
	return append([]byte{}, v...)
}

func (m *NodeClaim) decode(b []byte) error {
	return walk(b, func(f field) error {
		if !f.bytes() {
			return nil
		}
		switch f.num {
		case 2:
			return addEntry(&m.NodeSelector, "nodeSelector", f.v, toString)
		case 4:
			m.NodeAffinityBytes = clone(f.v)
		case 5:
			if len(m.TolerationsBytes) >= MaxTolerations {
				return fmt.Errorf("tolerationsBytes: %w (at most %d)", errLimit, MaxTolerations)
			}
			m.TolerationsBytes = append(m.TolerationsBytes, clone(f.v))
		}
		return nil
	})
}

func decodeNodeClaim(dst **NodeClaim, b []byte) error {
	if *dst == nil {
		*dst = &NodeClaim{}
	}
	if err := (*dst).decode(b); err != nil {
		return fmt.Errorf("nodeClaim: %w", err)
	}
	return nil
}

func (m *ReplicaRequirements) decode(b []byte) error {
	return walk(b, func(f field) error {
		if !f.bytes() {
			return nil
		}
		switch f.num {
		case 1:
			return decodeNodeClaim(&m.NodeClaim, f.v)
		case 3:
			m.Namespace = string(f.v)
		case 4:
			m.PriorityClassName = string(f.v)
		case 5:
			return addEntry(&m.ResourceRequestBytes, "resourceRequestBytes", f.v, clone)
		}
		return nil
	})
}

func (m *ComponentReplicaRequirements) decode(b []byte) error {
	return walk(b, func(f field) error {
		if !f.bytes() {
			return nil
		}
		switch f.num {
		case 1:
			return decodeNodeClaim(&m.NodeClaim, f.v)
		case 3:
			m.PriorityClassName = string(f.v)
		case 4:
			return addEntry(&m.ResourceRequestBytes, "resourceRequestBytes", f.v, clone)
		}
		return nil
	})
}

func (m *Component) decode(b []byte) error {
	return walk(b, func(f field) error {
		switch {
		case f.num == 1 && f.bytes():
			m.Name = string(f.v)
		case f.num == 2 && f.bytes():
			if err := m.ReplicaRequirements.decode(f.v); err != nil {
				return fmt.Errorf("replicaRequirements: %w", err)
			}
		case f.num == 3 && f.varint():
			m.Replicas = int32(f.u)
		}
		return nil
	})
}

// decoder is a message that decodes itself from its encoding.
type decoder[T any] interface {
	*T
	decode(b []byte) error
}

// appendDecoded decodes one more element of a repeated message field into
// *list, within max elements.
func appendDecoded[T any, P decoder[T]](list *[]T, name string, max int, b []byte) error {
	if len(*list) >= max {
		return fmt.Errorf("%s: %w (at most %d)", name, errLimit, max)
	}
	var v T
	if err := P(&v).decode(b); err != nil {
		return fmt.Errorf("%s[%d]: %w", name, len(*list), err)
	}
	*list = append(*list, v)
	return nil
}

func (m *AssumedWorkload) decode(b []byte) error {
	return walk(b, func(f field) error {
		switch {
		case f.num == 1 && f.bytes():
			m.Namespace = string(f.v)
		case f.num == 2 && f.bytes():
			return appendDecoded(&m.Components, "components", MaxComponents, f.v)
		}
		return nil
	})
}

func (m *ObjectReference) decode(b []byte) error {
	return walk(b, func(f field) error {
		if !f.bytes() {
			return nil
		}
		switch f.num {
		case 1:
			m.APIVersion = string(f.v)
		case 2:
			m.Kind = string(f.v)
		case 3:
			m.Namespace = string(f.v)
		case 4:
			m.Name = string(f.v)
		}
		return nil
	})
}

// Unmarshal decodes the request, replacing m.
func (m *MaxAvailableReplicasRequest) Unmarshal(b []byte) error {
	*m = MaxAvailableReplicasRequest{}
	if err := checkTotals("MaxAvailableReplicasRequest", maxAvailableReplicasShape, b); err != nil {
		return err
	}
	return unmarshal("MaxAvailableReplicasRequest", b, func(f field) error {
		if !f.bytes() {
			return nil
		}
		switch f.num {
		case 1:
			m.Cluster = string(f.v)
		case 2:
			if err := m.ReplicaRequirements.decode(f.v); err != nil {
				return fmt.Errorf("replicaRequirements: %w", err)
			}
		case 3:
			return appendDecoded(&m.AssumedWorkloads, "assumedWorkloads", MaxAssumedWorkloads, f.v)
		}
		return nil
	})
}

// Unmarshal decodes the response, replacing m.
func (m *MaxAvailableReplicasResponse) Unmarshal(b []byte) error {
	*m = MaxAvailableReplicasResponse{}
	return unmarshal("MaxAvailableReplicasResponse", b, int32Field(&m.MaxReplicas))
}

// Unmarshal decodes the request, replacing m.
func (m *MaxAvailableComponentSetsRequest) Unmarshal(b []byte) error {
	*m = MaxAvailableComponentSetsRequest{}
	if err := checkTotals("MaxAvailableComponentSetsRequest", maxAvailableComponentSetsShape, b); err != nil {
		return err
	}
	return unmarshal("MaxAvailableComponentSetsRequest", b, func(f field) error {
		if !f.bytes() {
			return nil
		}
		switch f.num {
		case 1:
			m.Cluster = string(f.v)
		case 2:
			return appendDecoded(&m.Components, "components", MaxComponents, f.v)
		case 3:
			m.Namespace = string(f.v)
		case 4:
			return appendDecoded(&m.AssumedWorkloads, "assumedWorkloads", MaxAssumedWorkloads, f.v)
		}
		return nil
	})
}

// Unmarshal decodes the response, replacing m.
func (m *MaxAvailableComponentSetsResponse) Unmarshal(b []byte) error {
	*m = MaxAvailableComponentSetsResponse{}
	return unmarshal("MaxAvailableComponentSetsResponse", b, int32Field(&m.MaxSets))
}

// Unmarshal decodes the request, replacing m.
func (m *UnschedulableReplicasRequest) Unmarshal(b []byte) error {
	*m = UnschedulableReplicasRequest{}
	return unmarshal("UnschedulableReplicasRequest", b, func(f field) error {
		switch {
		case f.num == 1 && f.bytes():
			m.Cluster = string(f.v)
		case f.num == 2 && f.bytes():
			if err := m.Resource.decode(f.v); err != nil {
				return fmt.Errorf("resource: %w", err)
			}
		case f.num == 3 && f.varint():
			m.UnschedulableThreshold = int64(f.u)
		}
		return nil
	})
}

// Unmarshal decodes the response, replacing m.
func (m *UnschedulableReplicasResponse) Unmarshal(b []byte) error {
	*m = UnschedulableReplicasResponse{}
	return unmarshal("UnschedulableReplicasResponse", b, int32Field(&m.UnschedulableReplicas))
}

// unmarshal walks b with handle, naming the message in errors.
func unmarshal(message string, b []byte, handle func(f field) error) error {
	if err := walk(b, handle); err != nil {
		return fmt.Errorf("decode %s: %w", message, err)
	}
	return nil
}

// int32Field reads field 1 (int32) of a one-field response into dst.
func int32Field(dst *int32) func(f field) error {
	return func(f field) error {
		if f.num == 1 && f.varint() {
			*dst = int32(f.u)
		}
		return nil
	}
}
