// Package native is the last layer of the resource interpreter: Propel's
// built-in Go interpreters for Kubernetes' own kinds, answering exactly as
// Karmada's native ("default") interpreter does. It owns, per operation, a
// handler map keyed by exact GroupVersionKind (apps/v1 Deployment only, not
// extensions/v1beta1), the pod-template helpers shared with the Lua layer's
// kube module (AccuratePodRequirements, PodDependencies) and Prune, which
// strips server-set fields from a manifest before it is packed into a Work.
//
// Handlers that rebuild an object return it "normalized" (converted through
// the typed Kubernetes struct); when nothing changed they return the input
// object itself, untouched.
package native
