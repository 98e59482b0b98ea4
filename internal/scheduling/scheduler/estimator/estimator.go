package estimator

import (
	"math"

	corev1 "k8s.io/api/core/v1"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// UnauthenticReplica is an estimator's "no opinion" answer.
const UnauthenticReplica int64 = -1

// Estimator estimates how many replicas needing req a cluster can hold.
type Estimator interface {
	MaxAvailableReplicas(cluster *clusterv1alpha1.Cluster, req *workv1alpha2.ReplicaRequirements) int64
}

// ComponentSetEstimator estimates how many complete sets of a
// multi-template workload's components (each component's replicas, each
// replica with the component's requirements) a cluster can hold. An
// estimator that does not implement it has no opinion on such workloads.
type ComponentSetEstimator interface {
	MaxAvailableComponentSets(cluster *clusterv1alpha1.Cluster, components []workv1alpha2.Component) int64
}

// BatchEstimator estimates every cluster of one decision at once, for
// estimators that ask remote services concurrently under one deadline (the
// accurate estimators, internal/scheduling/scheduler/estimator/accurate). It answers one
// value per cluster, in order, UnauthenticReplica where it has no opinion
// (no estimator for that cluster, or it failed). When assumed is not nil
// the estimator deducts each cluster's assumed workloads from its answer.
type BatchEstimator interface {
	EstimateClusters(clusters []*clusterv1alpha1.Cluster, spec *workv1alpha2.ResourceBindingSpec, assumed Assumptions) []int64
}

// Set runs its estimators and combines them the way Karmada does.
type Set struct {
	Estimators []Estimator
	// Batch estimators are asked after Estimators; their answers count the
	// same way.
	Batch []BatchEstimator
	// Reservations, when set, are deducted from every cluster's estimate,
	// except from the Batch answers when Assumptions is set.
	Reservations Reservations
	// Assumptions, when set (gate SchedulingOvercommitProtection), are
	// given to the Batch estimators, which deduct them themselves, as
	// Karmada's accurate estimators do; Reservations must then be the
	// same workloads in total, so that nothing is deducted twice.
	Assumptions Assumptions
}

// Default is the general estimator alone.
func Default() *Set { return &Set{Estimators: []Estimator{General{}}} }

// Estimate returns the available replicas of each cluster for spec:
// MaxInt32 for every cluster when the binding has no replicas and no
// components; otherwise the minimum over estimators (ignoring -1), with a
// cluster nobody bounded getting spec.replicas. A binding with components
// (MultiplePodTemplatesScheduling) is estimated in complete component
// sets, as Karmada's MaxAvailableComponentSets does.
func (s *Set) Estimate(clusters []*clusterv1alpha1.Cluster, spec *workv1alpha2.ResourceBindingSpec) []int64 {
	out := make([]int64, len(clusters))
	for i := range out {
		out[i] = math.MaxInt32
	}
	if spec.Replicas == 0 && len(spec.Components) == 0 {
		return out
	}
	if len(spec.Components) > 0 {
		s.estimateComponentSets(clusters, spec.Components, out)
	} else {
		for _, e := range s.Estimators {
			for i, c := range clusters {
				if n := e.MaxAvailableReplicas(c, spec.ReplicaRequirements); n != UnauthenticReplica && n < out[i] {
					out[i] = n
				}
			}
		}
	}
	// The general answers and the batch answers are deducted separately:
	// the batch estimators may have deducted the same workloads already.
	// Deducting is monotone, so deducting both before taking the minimum
	// is the same as deducting the minimum.
	s.deductReservations(clusters, spec, out)
	if len(s.Batch) == 0 {
		return clampUnbounded(spec, out)
	}
	batch := make([]int64, len(clusters))
	for i := range batch {
		batch[i] = math.MaxInt32
	}
	for _, e := range s.Batch {
		for i, n := range e.EstimateClusters(clusters, spec, s.Assumptions) {
			if i < len(batch) && n != UnauthenticReplica && n < batch[i] {
				batch[i] = n
			}
		}
	}
	if s.Assumptions == nil {
		s.deductReservations(clusters, spec, batch)
	}
	for i := range out {
		out[i] = min(out[i], batch[i])
	}
	return clampUnbounded(spec, out)
}

// deductReservations lowers each cluster's estimate in out by what is
// reserved on it.
func (s *Set) deductReservations(clusters []*clusterv1alpha1.Cluster, spec *workv1alpha2.ResourceBindingSpec, out []int64) {
	if s.Reservations == nil {
		return
	}
	for i, c := range clusters {
		if pods, reqs := s.Reservations.Reserved(c.Name); pods > 0 {
			out[i] = deductFrom(out[i], pods, reqs, spec)
		}
	}
}

// clampUnbounded gives spec.replicas to the clusters no estimator bounded.
func clampUnbounded(spec *workv1alpha2.ResourceBindingSpec, out []int64) []int64 {
	for i := range out {
		if out[i] == math.MaxInt32 {
			out[i] = int64(spec.Replicas)
		}
	}
	return out
}

// estimateComponentSets lowers out to each component-set estimator's
// answer (ignoring -1).
func (s *Set) estimateComponentSets(clusters []*clusterv1alpha1.Cluster, components []workv1alpha2.Component, out []int64) {
	for _, e := range s.Estimators {
		cs, ok := e.(ComponentSetEstimator)
		if !ok {
			continue
		}
		for i, c := range clusters {
			if n := cs.MaxAvailableComponentSets(c, components); n != UnauthenticReplica && n < out[i] {
				out[i] = n
			}
		}
	}
}

// deductFrom deducts reservations from an estimate of replicas, or of
// component sets (one set being one "replica" that needs every
// component's pods and requests).
func deductFrom(estimate, pods int64, reserved corev1.ResourceList, spec *workv1alpha2.ResourceBindingSpec) int64 {
	if len(spec.Components) == 0 {
		return deduct(estimate, pods, reserved, spec.ReplicaRequirements)
	}
	setPods, setRequest := componentSet(spec.Components)
	if setPods > 0 {
		pods = (pods + setPods - 1) / setPods
	}
	return deduct(estimate, pods, reserved, &workv1alpha2.ReplicaRequirements{ResourceRequest: setRequest})
}
