package native

import "k8s.io/apimachinery/pkg/runtime/schema"

// kindHandlers is what the native layer does for one kind: a handler per
// operation, nil where it has none.
type kindHandlers struct {
	replicas     replicaFunc
	revise       reviseFunc
	retain       retainFunc
	aggregate    aggregateFunc
	reflect      reflectFunc
	health       healthFunc
	dependencies dependencyFunc
}

// kinds is every kind the native layer knows and its handlers: the kinds
// and operations Karmada's default interpreters cover.
func kinds() map[schema.GroupVersionKind]kindHandlers {
	template := templateDependencies("spec", "template")
	return map[schema.GroupVersionKind]kindHandlers{
		deploymentGVK: {replicas: workloadReplicas, revise: reviseSpecField("replicas"), retain: retainDeploymentReplicas,
			aggregate: workloadAggregator(deploymentAggregation), reflect: reflectDeployment, health: deploymentHealthy,
			dependencies: template},
		replicaSetGVK: {replicas: workloadReplicas, revise: reviseSpecField("replicas"),
			aggregate: workloadAggregator(replicaSetAggregation), reflect: reflectReplicaSet, health: replicaSetHealthy,
			dependencies: template},
		statefulSetGVK: {replicas: workloadReplicas, revise: reviseSpecField("replicas"),
			aggregate: workloadAggregator(statefulSetAggregation), reflect: reflectStatefulSet, health: statefulSetHealthy,
			dependencies: statefulSetDependencies},
		daemonSetGVK: {aggregate: workloadAggregator(daemonSetAggregation), reflect: reflectDaemonSet,
			health: daemonSetHealthy, dependencies: template},
		jobGVK: {replicas: jobReplicas, revise: reviseSpecField("parallelism"), retain: retainJob,
			aggregate: aggregateJob, reflect: reflectJob, dependencies: template},
		cronJobGVK: {aggregate: aggregateCronJob,
			dependencies: templateDependencies("spec", "jobTemplate", "spec", "template")},
		podGVK: {replicas: podReplicas, retain: retainPod, aggregate: aggregatePod, health: podHealthy,
			dependencies: podDependencies},
		serviceGVK: {retain: retainService, aggregate: aggregateService, reflect: reflectService,
			health: serviceHealthy},
		ingressGVK: {aggregate: aggregateIngress, reflect: reflectWholeStatus, health: ingressHealthy,
			dependencies: ingressDependencies},
		serviceAccountGVK: {retain: retainServiceAccount},
		secretGVK:         {retain: retainServiceAccountToken},
		pvcGVK: {retain: retainSpecStringIfSet("volumeName"), aggregate: aggregatePersistentVolumeClaim,
			health: persistentVolumeClaimHealthy},
		pvGVK:            {retain: retainPersistentVolume, aggregate: aggregatePersistentVolume},
		pdbGVK:           {aggregate: aggregatePodDisruptionBudget, reflect: reflectPodDisruptionBudget, health: podDisruptionBudgetHealthy},
		hpaGVK:           {aggregate: aggregateHorizontalPodAutoscaler, reflect: reflectHorizontalPodAutoscaler},
		serviceImportGVK: {dependencies: serviceImportDependencies},
	}
}
