// Package manifeststatus turns a member object into the entry a Work
// records for it in status.manifestStatuses: the identifier of its
// manifest, the status the resource interpreter reflects and the health it
// interprets. It also compares status lists semantically, so that callers
// write a status only when it really changed. The work-status controller
// (the one writer of Work .status) and the binding status controllers use
// it.
package manifeststatus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/shared/rawjson"
	"github.com/propel-mc/propel/internal/shared/workapply"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// Interpreter is what status reflection needs of the resource interpreter.
type Interpreter interface {
	HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool
	ReflectStatus(ctx context.Context, obj *unstructured.Unstructured) (*runtime.RawExtension, error)
	InterpretHealth(ctx context.Context, obj *unstructured.Unstructured) (bool, error)
}

// Result is a reflected manifest status. HealthInterpreted is set when a
// layer interpreted the health (rather than the default Healthy of a kind
// without the hook); HealthErr when it could not (the health is then
// Unknown).
type Result struct {
	Status            workv1alpha1.ManifestStatus
	HealthInterpreted bool
	HealthErr         error
}

// Reflect builds the manifest status of obj, the member object of ref:
// ReflectStatus, then InterpretHealth (Healthy when no hook answers it,
// Unknown when it fails). A ReflectStatus failure is an error.
func Reflect(ctx context.Context, interp Interpreter, ref workapply.Ref, obj *unstructured.Unstructured) (Result, error) {
	status, err := interp.ReflectStatus(ctx, obj)
	if err != nil {
		return Result{}, fmt.Errorf("reflect status of %s: %w", ref, err)
	}
	res := Result{Status: workv1alpha1.ManifestStatus{Identifier: ref.Identifier(), Status: status, Health: workv1alpha1.ResourceHealthy}}
	if !interp.HookEnabled(ref.GVK, configv1alpha1.InterpreterOperationInterpretHealth) {
		return res, nil
	}
	healthy, err := interp.InterpretHealth(ctx, obj)
	switch {
	case err != nil:
		res.Status.Health, res.HealthErr = workv1alpha1.ResourceUnknown, fmt.Errorf("interpret health of %s: %w", ref, err)
	case !healthy:
		res.Status.Health, res.HealthInterpreted = workv1alpha1.ResourceUnhealthy, true
	default:
		res.HealthInterpreted = true
	}
	return res, nil
}

// Merge returns the status list for refs: the fresh entry of a manifest
// when there is one, else the entry old has for the same identifier.
// Entries of manifests the Work no longer has are dropped.
func Merge(old []workv1alpha1.ManifestStatus, refs []workapply.Ref, fresh map[int]workv1alpha1.ManifestStatus) []workv1alpha1.ManifestStatus {
	out := make([]workv1alpha1.ManifestStatus, 0, len(refs))
	for _, ref := range refs {
		if s, ok := fresh[ref.Ordinal]; ok {
			out = append(out, s)
			continue
		}
		id := ref.Identifier()
		for _, s := range old {
			if s.Identifier == id {
				out = append(out, s)
				break
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Equal compares two status lists; statuses are compared as JSON values,
// so key order and formatting do not matter.
func Equal(a, b []workv1alpha1.ManifestStatus) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Identifier != b[i].Identifier || a[i].Health != b[i].Health || !RawEqual(a[i].Status, b[i].Status) {
			return false
		}
	}
	return true
}

// RawEqual compares two raw JSON values semantically; nil equals nil only
// (and "null").
func RawEqual(a, b *runtime.RawExtension) bool {
	ra, rb := rawBytes(a), rawBytes(b)
	if ra == nil || rb == nil {
		return ra == nil && rb == nil
	}
	return rawjson.Equal(ra, rb)
}

func rawBytes(r *runtime.RawExtension) []byte {
	if r == nil {
		return nil
	}
	raw := r.Raw
	if raw == nil && r.Object != nil {
		raw, _ = json.Marshal(r.Object)
	}
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	return raw
}
