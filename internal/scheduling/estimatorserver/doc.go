// Package estimatorserver is propel-scheduler-estimator: a gRPC server
// wire-compatible with karmada-scheduler-estimator that answers, for one
// member cluster, from that member's Nodes and Pods.
//
// A node's free capacity is its allocatable minus the requests of the pods
// assigned to it that have not finished (Succeeded and Failed pods free
// their resources), and its allowed pod count minus those pods. A replica
// fits a node when the node is schedulable (or the replica tolerates
// node.kubernetes.io/unschedulable), its labels match the claim's node
// selector and required node affinity, and the replica tolerates every
// NoSchedule and NoExecute taint. MaxAvailableReplicas is the sum over
// fitting nodes of the replicas their free capacity holds;
// MaxAvailableComponentSets is the largest number of complete sets that a
// first-fit packing (largest component first) places; both first deduct the
// request's assumed workloads, packed the same way. With
// ResourceQuotaEstimate (WithResourceQuotaEstimate) both answers are also
// capped by the ResourceQuotas of the request's namespace, as Karmada's
// ResourceQuotaEstimator plugin caps them: a quota charges a replica when
// it has no scopes or one of its PriorityClass scopes matches the
// replica's priority class, and its room per requested compute resource
// (cpu, memory, extended: hard minus used, less the namespace's assumed
// workloads it charges) divided by a replica's (or a set's) need bounds
// the answer; the quotas are kept from an informer's events, so a request
// reads only its namespace's. GetUnschedulableReplicas
// counts the unassigned pods selected by a Deployment, ReplicaSet or
// StatefulSet whose PodScheduled condition has been False (Unschedulable)
// for longer than the threshold.
//
// Every request is untrusted: the message size, every list and the
// request's totals are bounded by estimatorwire before anything is
// decoded, resource quantities, node affinity and tolerations are decoded
// with errors naming the field (gRPC InvalidArgument), and the arithmetic
// saturates at MaxInt32 replicas. At most MaxConcurrentRequests requests
// are held at once, and the computation stops when the caller's context
// ends.
package estimatorserver
