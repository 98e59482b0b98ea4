package names

// Kubernetes' own well-known keys that k8s.io/api does not export, used when
// pruning manifests and interpreting workloads the way Karmada does.
const (
	// DeploymentRevisionAnnotation is set by the deployment controller of
	// each cluster; it is pruned from manifests.
	DeploymentRevisionAnnotation = "deployment.kubernetes.io/revision"
	// DeploymentRevisionHistoryAnnotation is set by the deployment
	// controller; it is pruned from manifests.
	DeploymentRevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	// LegacyJobControllerUIDLabel is the unprefixed selector label the job
	// controller generates (batch/v1 exports only the prefixed one).
	LegacyJobControllerUIDLabel = "controller-uid"
	// LegacyJobNameLabel is the unprefixed pod-template label the job
	// controller generates.
	LegacyJobNameLabel = "job-name"
	// PVCSelectedNodeAnnotation is set by the scheduler of a member cluster on
	// claims with WaitForFirstConsumer binding; it is pruned from manifests.
	PVCSelectedNodeAnnotation = "volume.kubernetes.io/selected-node"
	// DerivedServicePrefix prefixes the Service that Karmada's multi-cluster
	// service import derives from a ServiceImport.
	DerivedServicePrefix = "derived-"
)

// DerivedServiceName is the name of the Service derived from the
// ServiceImport named name.
func DerivedServiceName(name string) string { return DerivedServicePrefix + name }
