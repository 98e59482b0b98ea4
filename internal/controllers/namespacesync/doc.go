// Package namespacesync is Propel's namespace-sync-controller: it makes
// every Namespace of the control plane reach every member cluster, without
// any PropagationPolicy, by writing one Work per (namespace, cluster) in the
// cluster's execution namespace. The execution controller applies those
// Works like any other.
//
// It owns the Namespace Works: name GenerateWorkName("Namespace", ns, ""),
// finalizer karmada.io/execution-controller, a controller reference to the
// Namespace (so garbage collection removes them with the namespace), the
// policy.karmada.io/applied-cluster-overrides annotation, and the manifest
// (the Namespace with ClusterOverridePolicies applied, Karmada's managed
// label and annotations, pruned).
//
// Reserved namespaces, default, namespaces matching
// --skipped-propagating-namespaces, terminating namespaces and namespaces
// labelled namespace.karmada.io/skip-auto-propagation=true are skipped. The
// controller never deletes a Work: a namespace that stops being propagated
// keeps its Works until the namespace itself is deleted.
package namespacesync
