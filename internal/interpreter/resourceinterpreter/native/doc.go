// Package native is the last layer of the resource interpreter: Propel's
// built-in Go interpreters for Kubernetes' own kinds, answering exactly as
// Karmada's native ("default") interpreter does. It owns, per operation, a
// handler map keyed by exact GroupVersionKind (apps/v1 Deployment only, not
// extensions/v1beta1), the pod-template helpers shared with the Lua layer's
// kube module (AccuratePodRequirements, PodDependencies) and Prune, which
// strips server-set fields from a manifest before it is packed into a Work.
//
// Handlers read and write only the fields an operation needs, straight
// from the unstructured object, with the typed conversion's rules
// (fields.go): no object or pod template is converted to a typed struct,
// only the .status of the less common kinds and, as Karmada answers them
// normalized, a Pod in Retain and in AggregateStatus without items.
// AggregateStatus returns the input itself when the status does not
// change, else a new object sharing the input's fields but its metadata
// and status; its status is as Karmada's typed path writes it. The typed
// implementation this replaced is kept as a reference in
// typedref_*_test.go, and equivalence_test.go compares the two.
package native
