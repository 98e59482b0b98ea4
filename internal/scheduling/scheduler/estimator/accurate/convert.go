package accurate

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// The conversions below mirror Karmada's client: resource requests as
// protobuf-encoded Quantities, the hard node affinity as a
// protobuf-encoded NodeSelector, each toleration as a protobuf-encoded
// Toleration. The required embedded messages (a request's and a
// component's replicaRequirements) are always set, so that they are
// written even when empty, as Karmada's non-nullable fields are.

func replicaRequirements(rr *workv1alpha2.ReplicaRequirements) (*pb.ReplicaRequirements, error) {
	out := &pb.ReplicaRequirements{}
	if rr == nil {
		return out, nil
	}
	var err error
	out.Namespace, out.PriorityClassName = rr.Namespace, rr.PriorityClassName
	if out.ResourceRequestBytes, err = resourceBytes(rr.ResourceRequest); err != nil {
		return out, err
	}
	out.NodeClaim, err = nodeClaim(rr.NodeClaim)
	return out, err
}

func components(cs []workv1alpha2.Component) ([]*pb.Component, error) {
	out := make([]*pb.Component, len(cs))
	for i := range cs {
		out[i] = &pb.Component{Name: cs[i].Name, Replicas: cs[i].Replicas, ReplicaRequirements: &pb.ComponentReplicaRequirements{}}
		rr := cs[i].ReplicaRequirements
		if rr == nil {
			continue
		}
		var err error
		out[i].ReplicaRequirements.PriorityClassName = rr.PriorityClassName
		if out[i].ReplicaRequirements.ResourceRequestBytes, err = resourceBytes(rr.ResourceRequest); err != nil {
			return nil, fmt.Errorf("component %q: %w", cs[i].Name, err)
		}
		if out[i].ReplicaRequirements.NodeClaim, err = nodeClaim(rr.NodeClaim); err != nil {
			return nil, fmt.Errorf("component %q: %w", cs[i].Name, err)
		}
	}
	return out, nil
}

func resourceBytes(rl corev1.ResourceList) (map[string][]byte, error) {
	if rl == nil {
		return nil, nil
	}
	out := make(map[string][]byte, len(rl))
	for name, q := range rl {
		b, err := q.Marshal()
		if err != nil {
			return nil, fmt.Errorf("encode resource request %s: %w", name, err)
		}
		out[string(name)] = b
	}
	return out, nil
}

func nodeClaim(nc *workv1alpha2.NodeClaim) (*pb.NodeClaim, error) {
	if nc == nil {
		return nil, nil
	}
	out := &pb.NodeClaim{NodeSelector: nc.NodeSelector}
	if nc.HardNodeAffinity != nil {
		b, err := nc.HardNodeAffinity.Marshal()
		if err != nil {
			return nil, fmt.Errorf("encode node affinity: %w", err)
		}
		out.NodeAffinityBytes = b
	}
	for i := range nc.Tolerations {
		b, err := nc.Tolerations[i].Marshal()
		if err != nil {
			return nil, fmt.Errorf("encode toleration %d: %w", i, err)
		}
		out.TolerationsBytes = append(out.TolerationsBytes, b)
	}
	return out, nil
}
