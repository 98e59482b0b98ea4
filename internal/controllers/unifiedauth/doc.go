// Package unifiedauth owns the unified-auth controller (Karmada's
// "unifiedAuth"): for every Cluster with spec.impersonatorSecretRef it
// propagates, through Works in the cluster's execution namespace, the
// member RBAC that lets the cluster's impersonator identity (the
// ServiceAccount karmada-impersonator in the impersonator Secret's
// namespace) impersonate exactly the users, groups and ServiceAccounts
// that karmada-apiserver's RBAC lets reach the member through the proxy:
// the subjects of the ClusterRoleBindings whose ClusterRole grants
// cluster.karmada.io clusters/proxy for that cluster, or search.karmada.io
// proxying/proxy (which reaches every cluster).
//
// Both member objects are named karmada-impersonator and labelled
// karmada.io/system=true; their Works are controlled by the Cluster, so
// they go when the Cluster does. The controller syncs a Cluster when it is
// created and whenever a ClusterRole or ClusterRoleBinding that grants the
// proxy changes, and records SyncImpersonationConfigSucceed or
// SyncImpersonationConfigFailed on the Cluster.
package unifiedauth
