package native_test

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Unchanged since the typed implementation: production code serves as
// the reference (export_test.go).
var (
	observedGeneration = native.ObservedGeneration
	caughtUp           = native.CaughtUp
)

func aggregateHandlers() map[schema.GroupVersionKind]aggregateFunc {
	return map[schema.GroupVersionKind]aggregateFunc{
		deploymentGVK:  aggregateDeployment,
		replicaSetGVK:  aggregateReplicaSet,
		daemonSetGVK:   aggregateDaemonSet,
		statefulSetGVK: aggregateStatefulSet,
		serviceGVK:     aggregateService,
		ingressGVK:     aggregateIngress,
		jobGVK:         aggregateJob,
		cronJobGVK:     aggregateCronJob,
		podGVK:         aggregatePod,
		pvGVK:          aggregatePersistentVolume,
		pvcGVK:         aggregatePersistentVolumeClaim,
		pdbGVK:         aggregatePodDisruptionBudget,
		hpaGVK:         aggregateHorizontalPodAutoscaler,
	}
}

// The four workload kinds read the template's status and generation first
// and convert the whole object only when the status changes: an unchanged
// status returns the template itself.

func aggregateDeployment(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var old, sum appsv1.DeploymentStatus
	if err := fromNested(obj, &old, "status"); err != nil {
		return nil, err
	}
	generation, latest := obj.GetGeneration(), 0
	err := decodeEach(items, func(_ *workv1alpha2.AggregatedStatusItem, m *wrappedDeploymentStatus) {
		sum.Replicas += m.Replicas
		sum.ReadyReplicas += m.ReadyReplicas
		sum.UpdatedReplicas += m.UpdatedReplicas
		sum.AvailableReplicas += m.AvailableReplicas
		sum.UnavailableReplicas += m.UnavailableReplicas
		if caughtUp(&m.federatedGeneration, m.ObservedGeneration, generation) {
			latest++
		}
	})
	if err != nil {
		return nil, err
	}
	sum.ObservedGeneration = observedGeneration(latest, len(items), old.ObservedGeneration, generation)
	if sum.ObservedGeneration == old.ObservedGeneration && sum.Replicas == old.Replicas &&
		sum.ReadyReplicas == old.ReadyReplicas && sum.UpdatedReplicas == old.UpdatedReplicas &&
		sum.AvailableReplicas == old.AvailableReplicas && sum.UnavailableReplicas == old.UnavailableReplicas {
		return obj, nil
	}
	return rebuild(obj, func(d *appsv1.Deployment) {
		s := &d.Status
		s.ObservedGeneration, s.Replicas, s.ReadyReplicas = sum.ObservedGeneration, sum.Replicas, sum.ReadyReplicas
		s.UpdatedReplicas, s.AvailableReplicas, s.UnavailableReplicas = sum.UpdatedReplicas, sum.AvailableReplicas, sum.UnavailableReplicas
	})
}

func aggregateReplicaSet(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var old, sum appsv1.ReplicaSetStatus
	if err := fromNested(obj, &old, "status"); err != nil {
		return nil, err
	}
	generation, latest := obj.GetGeneration(), 0
	err := decodeEach(items, func(_ *workv1alpha2.AggregatedStatusItem, m *wrappedReplicaSetStatus) {
		sum.Replicas += m.Replicas
		sum.ReadyReplicas += m.ReadyReplicas
		sum.AvailableReplicas += m.AvailableReplicas
		if caughtUp(&m.federatedGeneration, m.ObservedGeneration, generation) {
			latest++
		}
	})
	if err != nil {
		return nil, err
	}
	sum.ObservedGeneration = observedGeneration(latest, len(items), old.ObservedGeneration, generation)
	if sum.ObservedGeneration == old.ObservedGeneration && sum.Replicas == old.Replicas &&
		sum.ReadyReplicas == old.ReadyReplicas && sum.AvailableReplicas == old.AvailableReplicas {
		return obj, nil
	}
	return rebuild(obj, func(r *appsv1.ReplicaSet) {
		s := &r.Status
		s.ObservedGeneration, s.Replicas = sum.ObservedGeneration, sum.Replicas
		s.ReadyReplicas, s.AvailableReplicas = sum.ReadyReplicas, sum.AvailableReplicas
	})
}

// aggregateDaemonSet compares the whole old status with the eight
// aggregated fields, as Karmada does, so a template status holding
// conditions or collisionCount is always re-emitted (normalized).
func aggregateDaemonSet(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var old, sum appsv1.DaemonSetStatus
	if err := fromNested(obj, &old, "status"); err != nil {
		return nil, err
	}
	generation, latest := obj.GetGeneration(), 0
	err := decodeEach(items, func(_ *workv1alpha2.AggregatedStatusItem, m *wrappedDaemonSetStatus) {
		sum.CurrentNumberScheduled += m.CurrentNumberScheduled
		sum.DesiredNumberScheduled += m.DesiredNumberScheduled
		sum.NumberAvailable += m.NumberAvailable
		sum.NumberMisscheduled += m.NumberMisscheduled
		sum.NumberReady += m.NumberReady
		sum.UpdatedNumberScheduled += m.UpdatedNumberScheduled
		sum.NumberUnavailable += m.NumberUnavailable
		if caughtUp(&m.federatedGeneration, m.ObservedGeneration, generation) {
			latest++
		}
	})
	if err != nil {
		return nil, err
	}
	sum.ObservedGeneration = observedGeneration(latest, len(items), old.ObservedGeneration, generation)
	if equality.Semantic.DeepEqual(old, sum) {
		return obj, nil
	}
	return rebuild(obj, func(d *appsv1.DaemonSet) {
		s := &d.Status
		s.ObservedGeneration = sum.ObservedGeneration
		s.CurrentNumberScheduled, s.DesiredNumberScheduled = sum.CurrentNumberScheduled, sum.DesiredNumberScheduled
		s.NumberAvailable, s.NumberMisscheduled, s.NumberReady = sum.NumberAvailable, sum.NumberMisscheduled, sum.NumberReady
		s.UpdatedNumberScheduled, s.NumberUnavailable = sum.UpdatedNumberScheduled, sum.NumberUnavailable
	})
}

// aggregateStatefulSet keeps Karmada's quirk: a member counts as caught up
// when its template generation is >= its own generation (not the
// template's), and since reflected StatefulSet statuses carry no
// observedGeneration (0), any member with generation >= 1 never counts, so
// observedGeneration only advances for an empty item list.
func aggregateStatefulSet(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var old, sum appsv1.StatefulSetStatus
	if err := fromNested(obj, &old, "status"); err != nil {
		return nil, err
	}
	latest := 0
	err := decodeEach(items, func(_ *workv1alpha2.AggregatedStatusItem, m *wrappedStatefulSetStatus) {
		sum.AvailableReplicas += m.AvailableReplicas
		sum.CurrentReplicas += m.CurrentReplicas
		sum.ReadyReplicas += m.ReadyReplicas
		sum.Replicas += m.Replicas
		sum.UpdatedReplicas += m.UpdatedReplicas
		if caughtUp(&m.federatedGeneration, m.ObservedGeneration, m.Generation) {
			latest++
		}
	})
	if err != nil {
		return nil, err
	}
	sum.ObservedGeneration = observedGeneration(latest, len(items), old.ObservedGeneration, obj.GetGeneration())
	if sum.ObservedGeneration == old.ObservedGeneration && sum.AvailableReplicas == old.AvailableReplicas &&
		sum.CurrentReplicas == old.CurrentReplicas && sum.ReadyReplicas == old.ReadyReplicas &&
		sum.Replicas == old.Replicas && sum.UpdatedReplicas == old.UpdatedReplicas {
		return obj, nil
	}
	return rebuild(obj, func(st *appsv1.StatefulSet) {
		s := &st.Status
		s.ObservedGeneration, s.AvailableReplicas, s.CurrentReplicas = sum.ObservedGeneration, sum.AvailableReplicas, sum.CurrentReplicas
		s.ReadyReplicas, s.Replicas, s.UpdatedReplicas = sum.ReadyReplicas, sum.Replicas, sum.UpdatedReplicas
	})
}
