package estimatorwire

import (
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// appendVarint writes a proto3 int32/int64 field; negative values are
// sign-extended to 64 bits as protobuf requires.
func appendVarint(b []byte, num protowire.Number, v int64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

// appendMessage writes an embedded message even when it is empty (a
// required, non-nullable field in Karmada's generated code).
func appendMessage(b []byte, num protowire.Number, body []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, body)
}

func appendStringMap(b []byte, num protowire.Number, m map[string]string) []byte {
	for _, k := range sortedKeys(m) {
		var entry []byte
		entry = protowire.AppendTag(entry, 1, protowire.BytesType)
		entry = protowire.AppendString(entry, k)
		entry = protowire.AppendTag(entry, 2, protowire.BytesType)
		entry = protowire.AppendString(entry, m[k])
		b = appendMessage(b, num, entry)
	}
	return b
}

// appendBytesMap writes map<string, bytes>; like Karmada's code it omits
// the value of an entry whose value is nil.
func appendBytesMap(b []byte, num protowire.Number, m map[string][]byte) []byte {
	for _, k := range sortedKeys(m) {
		var entry []byte
		entry = protowire.AppendTag(entry, 1, protowire.BytesType)
		entry = protowire.AppendString(entry, k)
		if v := m[k]; v != nil {
			entry = protowire.AppendTag(entry, 2, protowire.BytesType)
			entry = protowire.AppendBytes(entry, v)
		}
		b = appendMessage(b, num, entry)
	}
	return b
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (m *NodeClaim) appendTo(b []byte) []byte {
	b = appendStringMap(b, 2, m.NodeSelector)
	b = appendBytes(b, 4, m.NodeAffinityBytes)
	for _, t := range m.TolerationsBytes {
		b = protowire.AppendTag(b, 5, protowire.BytesType)
		b = protowire.AppendBytes(b, t)
	}
	return b
}

func (m *ReplicaRequirements) appendTo(b []byte) []byte {
	if m.NodeClaim != nil {
		b = appendMessage(b, 1, m.NodeClaim.appendTo(nil))
	}
	b = appendString(b, 3, m.Namespace)
	b = appendString(b, 4, m.PriorityClassName)
	return appendBytesMap(b, 5, m.ResourceRequestBytes)
}

func (m *ComponentReplicaRequirements) appendTo(b []byte) []byte {
	if m.NodeClaim != nil {
		b = appendMessage(b, 1, m.NodeClaim.appendTo(nil))
	}
	b = appendString(b, 3, m.PriorityClassName)
	return appendBytesMap(b, 4, m.ResourceRequestBytes)
}

func (m *Component) appendTo(b []byte) []byte {
	b = appendString(b, 1, m.Name)
	b = appendMessage(b, 2, m.ReplicaRequirements.appendTo(nil))
	return appendVarint(b, 3, int64(m.Replicas))
}

func (m *AssumedWorkload) appendTo(b []byte) []byte {
	b = appendString(b, 1, m.Namespace)
	for i := range m.Components {
		b = appendMessage(b, 2, m.Components[i].appendTo(nil))
	}
	return b
}

func appendAssumed(b []byte, num protowire.Number, ws []AssumedWorkload) []byte {
	for i := range ws {
		b = appendMessage(b, num, ws[i].appendTo(nil))
	}
	return b
}

func (m *ObjectReference) appendTo(b []byte) []byte {
	b = appendString(b, 1, m.APIVersion)
	b = appendString(b, 2, m.Kind)
	b = appendString(b, 3, m.Namespace)
	return appendString(b, 4, m.Name)
}

// Marshal encodes the request.
func (m *MaxAvailableReplicasRequest) Marshal() ([]byte, error) {
	b := appendString(nil, 1, m.Cluster)
	b = appendMessage(b, 2, m.ReplicaRequirements.appendTo(nil))
	return appendAssumed(b, 3, m.AssumedWorkloads), nil
}

// Marshal encodes the response.
func (m *MaxAvailableReplicasResponse) Marshal() ([]byte, error) {
	return appendVarint(nil, 1, int64(m.MaxReplicas)), nil
}

// Marshal encodes the request.
func (m *MaxAvailableComponentSetsRequest) Marshal() ([]byte, error) {
	b := appendString(nil, 1, m.Cluster)
	for i := range m.Components {
		b = appendMessage(b, 2, m.Components[i].appendTo(nil))
	}
	b = appendString(b, 3, m.Namespace)
	return appendAssumed(b, 4, m.AssumedWorkloads), nil
}

// Marshal encodes the response.
func (m *MaxAvailableComponentSetsResponse) Marshal() ([]byte, error) {
	return appendVarint(nil, 1, int64(m.MaxSets)), nil
}

// Marshal encodes the request.
func (m *UnschedulableReplicasRequest) Marshal() ([]byte, error) {
	b := appendString(nil, 1, m.Cluster)
	b = appendMessage(b, 2, m.Resource.appendTo(nil))
	return appendVarint(b, 3, m.UnschedulableThreshold), nil
}

// Marshal encodes the response.
func (m *UnschedulableReplicasResponse) Marshal() ([]byte, error) {
	return appendVarint(nil, 1, int64(m.UnschedulableReplicas)), nil
}
