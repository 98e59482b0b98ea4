package v1alpha2

// Values of GracefulEvictionTask.Reason and GracefulEvictionTask.Producer
// that Karmada's controllers write (and that Propel's write the same way).
const (
	// EvictionReasonTaintUntolerated: the cluster carries a NoExecute taint
	// the binding's placement does not tolerate (or no longer tolerates).
	EvictionReasonTaintUntolerated = "TaintUntolerated"
	// EvictionReasonApplicationFailure: the workload stayed unhealthy on
	// the cluster longer than the policy tolerates.
	EvictionReasonApplicationFailure = "ApplicationFailure"

	// EvictionProducerTaintManager is the producer of taint evictions.
	EvictionProducerTaintManager = "TaintManager"
)
