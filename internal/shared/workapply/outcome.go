package workapply

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// Outcome is what one sync of the execution controller did to a Work's
// member objects. A sync whose outcome is unknown (a transient member
// error) produces none.
type Outcome struct {
	// WorkUID is the UID of the Work synced; an Outcome is not applied to
	// a Work recreated under the same name.
	WorkUID types.UID
	// Suspended says dispatching is suspended: nothing was applied and
	// Manifests is empty.
	Suspended bool
	// Manifests has one entry per manifest, in manifest order.
	Manifests []Manifest
}

// Manifest is the outcome of one manifest.
type Manifest struct {
	Ref Ref
	// Object is the member object after the apply; nil when Err is set.
	// Receivers must not mutate it.
	Object *unstructured.Unstructured
	Err    error
}

// Errors returns the manifests' errors.
func (o Outcome) Errors() []error {
	var errs []error
	for _, m := range o.Manifests {
		if m.Err != nil {
			errs = append(errs, m.Err)
		}
	}
	return errs
}
