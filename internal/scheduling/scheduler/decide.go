package scheduler

import (
	"encoding/json"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/core"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// trigger is why a binding is scheduled; "" means it is not.
type trigger string

// Scheduling triggers, checked in this order.
const (
	noTrigger             trigger = ""
	triggerPlacement      trigger = "PlacementChanged"
	triggerReplicas       trigger = "ReplicasChanged"
	triggerReschedule     trigger = "RescheduleTriggered"
	triggerAlways         trigger = "NonWorkloadOrDuplicated"
	triggerTargetRemoving trigger = "TargetClusterRemoved"
)

// decide returns the first scheduling trigger that fires for b, given the
// cached clusters by name.
func decide(b *binding, clusters map[string]*clusterv1alpha1.Cluster) trigger {
	spec := b.spec
	switch {
	case placementChanged(spec.Placement, b.obj.GetAnnotations()[names.AppliedPlacementAnnotation], b.status.SchedulerObservedAffinityName):
		return triggerPlacement
	case replicasChanged(spec):
		return triggerReplicas
	case core.RescheduleDue(spec, b.status):
		return triggerReschedule
	case !spec.IsWorkload() || spec.Placement.ReplicaSchedulingType() == policyv1alpha1.ReplicaSchedulingTypeDuplicated:
		return triggerAlways
	case targetRemoving(spec.Clusters, clusters):
		return triggerTargetRemoving
	}
	return noTrigger
}

// placementChanged compares the applied-placement annotation with the
// placement: an empty annotation is a change; an unparsable one is not;
// clusterAffinity, clusterTolerations, spreadConstraints and
// replicaScheduling are compared; a clusterAffinities difference counts
// only when the observed term is unknown, missing on either side, or
// changed.
func placementChanged(p *policyv1alpha1.Placement, applied, observedAffinity string) bool {
	if applied == "" {
		return true
	}
	var old policyv1alpha1.Placement
	if err := json.Unmarshal([]byte(applied), &old); err != nil {
		return false
	}
	eq := apiequality.Semantic.DeepEqual
	if !eq(p.ClusterAffinity, old.ClusterAffinity) || !eq(p.ClusterTolerations, old.ClusterTolerations) ||
		!eq(p.SpreadConstraints, old.SpreadConstraints) || !eq(p.ReplicaScheduling, old.ReplicaScheduling) {
		return true
	}
	if eq(p.ClusterAffinities, old.ClusterAffinities) {
		return false
	}
	if observedAffinity == "" {
		return true
	}
	oldTerm, newTerm := findTerm(old.ClusterAffinities, observedAffinity), findTerm(p.ClusterAffinities, observedAffinity)
	return oldTerm == nil || newTerm == nil || !eq(oldTerm, newTerm)
}

func findTerm(terms []policyv1alpha1.ClusterAffinityTerm, name string) *policyv1alpha1.ClusterAffinityTerm {
	for i := range terms {
		if terms[i].AffinityName == name {
			return &terms[i]
		}
	}
	return nil
}

// replicasChanged: with replicaScheduling set, Duplicated needs every
// target at spec.replicas, Divided needs the targets to add up to it;
// multi-component bindings only need a non-empty result.
func replicasChanged(spec *workv1alpha2.ResourceBindingSpec) bool {
	rs := spec.Placement.ReplicaScheduling
	if rs == nil {
		return false
	}
	if len(spec.Components) > 1 {
		return len(spec.Clusters) == 0
	}
	if rs.ReplicaSchedulingType == policyv1alpha1.ReplicaSchedulingTypeDuplicated {
		for _, tc := range spec.Clusters {
			if tc.Replicas != spec.Replicas {
				return true
			}
		}
		return false
	}
	var sum int32
	for _, tc := range spec.Clusters {
		sum += tc.Replicas
	}
	return sum != spec.Replicas
}

// targetRemoving reports a target cluster that is being deleted or is
// already gone.
func targetRemoving(targets []workv1alpha2.TargetCluster, clusters map[string]*clusterv1alpha1.Cluster) bool {
	for _, tc := range targets {
		c, ok := clusters[tc.Name]
		if !ok || c.DeletionTimestamp != nil {
			return true
		}
	}
	return false
}
