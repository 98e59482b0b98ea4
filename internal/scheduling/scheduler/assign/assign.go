package assign

import (
	"fmt"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Strategy is how replicas are assigned.
type Strategy string

// Strategies, chosen from the placement by StrategyOf.
const (
	Duplicated    Strategy = "Duplicated"
	Aggregated    Strategy = "Aggregated"
	DynamicWeight Strategy = "DynamicWeight"
	StaticWeight  Strategy = "StaticWeight"
)

// Request is one assignment problem.
type Request struct {
	// Spec is the binding (placement, template UID).
	Spec *workv1alpha2.ResourceBindingSpec
	// Replicas is the number of replicas to place: spec.replicas, or an
	// overflow tier's share.
	Replicas int32
	// Clusters are the selected clusters, in selection order.
	Clusters []framework.ClusterDetail
	// Previous is the previous result (spec.clusters, or its part in a
	// tier).
	Previous []workv1alpha2.TargetCluster
	// Fresh discards the previous result of dynamic strategies (a manual
	// reschedule is due).
	Fresh bool
}

// StrategyOf maps a placement to its strategy: nil replicaScheduling or
// Duplicated → Duplicated; Divided+Aggregated → Aggregated;
// Divided+Weighted with a dynamic weight → DynamicWeight;
// Divided+Weighted otherwise → StaticWeight.
func StrategyOf(p *policyv1alpha1.Placement) (Strategy, error) {
	rs := p.ReplicaScheduling
	if rs == nil || rs.ReplicaSchedulingType == policyv1alpha1.ReplicaSchedulingTypeDuplicated {
		return Duplicated, nil
	}
	if rs.ReplicaSchedulingType == policyv1alpha1.ReplicaSchedulingTypeDivided {
		switch rs.ReplicaDivisionPreference {
		case policyv1alpha1.ReplicaDivisionPreferenceAggregated:
			return Aggregated, nil
		case policyv1alpha1.ReplicaDivisionPreferenceWeighted:
			if rs.WeightPreference != nil && rs.WeightPreference.DynamicWeight != "" {
				return DynamicWeight, nil
			}
			return StaticWeight, nil
		}
	}
	return "", fmt.Errorf("unsupported replica scheduling strategy, replicaSchedulingType: %s, replicaDivisionPreference: %s, please try another scheduling strategy",
		rs.ReplicaSchedulingType, rs.ReplicaDivisionPreference)
}

// UsesStrategy reports whether replicas are assigned by a strategy: a
// binding with replicas or requirements and at most one component.
// Otherwise every selected cluster is listed without replicas.
//
// This is Karmada's assignment rule, deliberately narrower than
// ResourceBindingSpec.IsWorkload: a binding whose only replica information
// is its components (MultiplePodTemplatesScheduling) is a workload but is
// not divided by the single-template strategies.
func UsesStrategy(spec *workv1alpha2.ResourceBindingSpec) bool {
	return (spec.Replicas > 0 || spec.ReplicaRequirements != nil) && len(spec.Components) <= 1
}

// Assign places req.Replicas on req.Clusters with the placement's
// strategy and drops clusters left with no replicas.
func Assign(req Request) ([]workv1alpha2.TargetCluster, error) {
	if !UsesStrategy(req.Spec) {
		return namesOnly(req.Clusters), nil
	}
	strategy, err := StrategyOf(req.Spec.Placement)
	if err != nil {
		return nil, err
	}
	var out []workv1alpha2.TargetCluster
	switch strategy {
	case Duplicated:
		out = duplicated(req)
	case StaticWeight:
		out = staticWeight(req)
	default:
		out, err = dynamic(req, strategy == Aggregated)
	}
	if err != nil {
		return nil, err
	}
	return dropEmpty(out), nil
}

// duplicated gives every selected cluster all replicas, in selection order.
func duplicated(req Request) []workv1alpha2.TargetCluster {
	out := make([]workv1alpha2.TargetCluster, len(req.Clusters))
	for i := range req.Clusters {
		out[i] = workv1alpha2.TargetCluster{Name: req.Clusters[i].Name(), Replicas: req.Replicas}
	}
	return out
}

func namesOnly(clusters []framework.ClusterDetail) []workv1alpha2.TargetCluster {
	out := make([]workv1alpha2.TargetCluster, len(clusters))
	for i := range clusters {
		out[i] = workv1alpha2.TargetCluster{Name: clusters[i].Name()}
	}
	return out
}

func dropEmpty(tcs []workv1alpha2.TargetCluster) []workv1alpha2.TargetCluster {
	out := tcs[:0]
	for _, tc := range tcs {
		if tc.Replicas > 0 {
			out = append(out, tc)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func fromParties(parties []Party) []workv1alpha2.TargetCluster {
	out := make([]workv1alpha2.TargetCluster, len(parties))
	for i, p := range parties {
		out[i] = workv1alpha2.TargetCluster{Name: p.Name, Replicas: p.Seats}
	}
	return out
}
