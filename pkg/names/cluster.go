package names

import clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"

// Deprecated: the Cluster condition vocabulary lives in
// pkg/apis/cluster/v1alpha1; these aliases go once every user has moved.
const (
	ClusterReasonReady                  = clusterv1alpha1.ClusterReasonReady
	ClusterMessageReady                 = clusterv1alpha1.ClusterMessageReady
	ClusterReasonNotReady               = clusterv1alpha1.ClusterReasonNotReady
	ClusterMessageNotReady              = clusterv1alpha1.ClusterMessageNotReady
	ClusterReasonNotReachable           = clusterv1alpha1.ClusterReasonNotReachable
	ClusterMessageNotReachable          = clusterv1alpha1.ClusterMessageNotReachable
	ClusterReasonStatusCollectionFailed = clusterv1alpha1.ClusterReasonStatusCollectionFailed
	ClusterMessageClientFailedPrefix    = clusterv1alpha1.ClusterMessageClientFailedPrefix
	ClusterReasonStatusNeverUpdated     = clusterv1alpha1.ClusterReasonStatusNeverUpdated
	ClusterMessageStatusNeverUpdated    = clusterv1alpha1.ClusterMessageStatusNeverUpdated
	ClusterReasonStatusUnknown          = clusterv1alpha1.ClusterReasonStatusUnknown
	ClusterMessageStatusUnknown         = clusterv1alpha1.ClusterMessageStatusUnknown
	APIEnablementsReasonComplete        = clusterv1alpha1.APIEnablementsReasonComplete
	APIEnablementsMessageComplete       = clusterv1alpha1.APIEnablementsMessageComplete
	APIEnablementsReasonPartial         = clusterv1alpha1.APIEnablementsReasonPartial
	APIEnablementsMessagePartialFormat  = clusterv1alpha1.APIEnablementsMessagePartialFormat
	APIEnablementsReasonEmpty           = clusterv1alpha1.APIEnablementsReasonEmpty
	APIEnablementsMessageEmpty          = clusterv1alpha1.APIEnablementsMessageEmpty
)

// Controller names (event sources and controller-runtime names).
const (
	ClusterControllerName       = "cluster-controller"
	ClusterStatusControllerName = "cluster-status-controller"
	NamespaceSyncControllerName = "namespace-sync-controller"
)
