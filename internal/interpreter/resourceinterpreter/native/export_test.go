package native

// Production functions and types the typed reference (typedref_*_test.go)
// uses as they are: only the operations rewritten since the typed
// implementation keep a reference copy of their own.
var (
	JobFinishedAs                  = jobFinishedAs
	AggregatedJobStatus            = aggregatedJobStatus
	Later                          = later
	DedupeServiceIngress           = serviceIngress.dedupe
	DedupeIngressIngress           = ingressIngress.dedupe
	AppendReadyAndState            = appendReadyAndState
	ObservedGeneration             = observedGeneration
	CaughtUp                       = caughtUp
	ToTyped                        = toTyped
	FromNested                     = fromNested
	NestedTyped                    = nestedTyped
	ToUnstructured                 = toUnstructured
	RawJSON                        = rawJSON
	Describe                       = describe
	ServiceImportDependencies      = serviceImportDependencies
	IngressHealthy                 = ingressHealthy
	PersistentVolumeClaimHealthy   = persistentVolumeClaimHealthy
	PodHealthy                     = podHealthy
	PodDisruptionBudgetHealthy     = podDisruptionBudgetHealthy
	ReflectService                 = reflectService
	ReflectJob                     = reflectJob
	ReflectPodDisruptionBudget     = reflectPodDisruptionBudget
	ReflectHorizontalPodAutoscaler = reflectHorizontalPodAutoscaler
	ReflectWholeStatus             = reflectWholeStatus
)

type FederatedGeneration = federatedGeneration
