// Package names owns Karmada's naming: label, annotation and finalizer
// keys, reserved namespaces, controller names, the Cluster fields a
// placement may select on, and how binding, Work, execution-space and
// dependency-label names are derived. Every controller uses these so that
// objects written by Karmada are adopted without churn.
//
// It holds no other vocabulary: condition types, reasons and messages live
// in the API package of the object whose status carries them
// (pkg/apis/...), and event reasons beside the controller that records
// them.
package names

import workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"

// Labels and annotations on policies, templates, bindings, Works and member
// objects (Karmada's exact keys).
const (
	PropagationPolicyPermanentIDLabel        = "propagationpolicy.karmada.io/permanent-id"
	PropagationPolicyNamespaceAnnotation     = "propagationpolicy.karmada.io/namespace"
	PropagationPolicyNameAnnotation          = "propagationpolicy.karmada.io/name"
	ClusterPropagationPolicyPermanentIDLabel = "clusterpropagationpolicy.karmada.io/permanent-id"
	ClusterPropagationPolicyNameAnnotation   = "clusterpropagationpolicy.karmada.io/name"

	ResourceBindingPermanentIDLabel        = workv1alpha2.ResourceBindingPermanentIDLabel
	ClusterResourceBindingPermanentIDLabel = workv1alpha2.ClusterResourceBindingPermanentIDLabel
	WorkPermanentIDLabel                   = "work.karmada.io/permanent-id"

	ResourceBindingNamespaceAnnotation   = workv1alpha2.ResourceBindingNamespaceAnnotation
	ResourceBindingNameAnnotation        = workv1alpha2.ResourceBindingNameAnnotation
	ClusterResourceBindingNameAnnotation = workv1alpha2.ClusterResourceBindingNameAnnotation
	WorkNamespaceAnnotation              = "work.karmada.io/namespace"
	WorkNameAnnotation                   = "work.karmada.io/name"
	ConflictResolutionAnnotation         = "work.karmada.io/conflict-resolution"
	ResourceTemplateUIDAnnotation        = "resourcetemplate.karmada.io/uid"
	ResourceTemplateGenerationAnnotation = "resourcetemplate.karmada.io/generation"
	ManagedLabelsAnnotation              = "resourcetemplate.karmada.io/managed-labels"
	ManagedAnnotationsAnnotation         = "resourcetemplate.karmada.io/managed-annotations"
	AppliedPlacementAnnotation           = "policy.karmada.io/applied-placement"
	AppliedOverridesAnnotation           = "policy.karmada.io/applied-overrides"
	AppliedClusterOverridesAnnotation    = "policy.karmada.io/applied-cluster-overrides"
	BindingDependenciesAnnotation        = "resourcebinding.karmada.io/dependencies"
	DependedByLabelKeyPrefix             = "resourcebinding.karmada.io/depended-by-"
	ClaimedByLabel                       = "resourcetemplate.karmada.io/claimed-by"
	RetainReplicasLabel                  = "resourcetemplate.karmada.io/retain-replicas"
	DeletionProtectionLabel              = "resourcetemplate.karmada.io/deletion-protected"
	SkipAutoPropagationNamespaceLabel    = "namespace.karmada.io/skip-auto-propagation"
	BindingManagedByLabel                = "binding.karmada.io/managed-by"
	ManagedLabel                         = "karmada.io/managed"
	SystemLabel                          = "karmada.io/system"
	ConflictResolutionOverwrite          = "overwrite"
	ConflictResolutionAbort              = "abort"
	TrueValue                            = "true"
)

// Finalizers.
const (
	BindingControllerFinalizer                  = "karmada.io/binding-controller"
	ClusterResourceBindingControllerFinalizer   = "karmada.io/cluster-resource-binding-controller"
	ExecutionControllerFinalizer                = "karmada.io/execution-controller"
	ClusterControllerFinalizer                  = "karmada.io/cluster-controller"
	PropagationPolicyControllerFinalizer        = "karmada.io/propagation-policy-controller"
	ClusterPropagationPolicyControllerFinalizer = "karmada.io/cluster-propagation-policy-controller"
	BindingDependenciesDistributorFinalizer     = "karmada.io/binding-dependencies-distributor"
)

// Reserved namespaces.
const (
	SystemNamespace      = "karmada-system"
	ClusterNamespace     = "karmada-cluster"
	ExecutionSpacePrefix = "karmada-es-"
	DefaultSchedulerName = "default-scheduler"
)

// Leader-election Leases (in SystemNamespace by default): the controller
// manager's, and the scheduler's, which every scheduler takes (Karmada's
// karmada-scheduler, propel-scheduler and the controller manager's
// in-process scheduler) so that only one places bindings at a time.
const (
	ControllerManagerLease = "karmada-controller-manager"
	SchedulerLease         = "karmada-scheduler"
)
