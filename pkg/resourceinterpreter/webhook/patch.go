package webhook

import (
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// applyPatch returns the object with the webhook's patch applied. With no
// patch, or an empty operation list, it returns the object itself.
//
// Difference from Karmada: Karmada decodes the patched JSON back into the
// caller's object; Propel decodes it into a new object and never mutates
// its input, which may come from an informer cache.
func applyPatch(obj *unstructured.Unstructured, objectJSON []byte, res *configv1alpha1.ResourceInterpreterResponse) (*unstructured.Unstructured, error) {
	if res.PatchType == nil && len(res.Patch) == 0 {
		return obj, nil
	}
	if res.PatchType == nil || *res.PatchType != configv1alpha1.PatchTypeJSONPatch {
		return nil, fmt.Errorf("return patch type %v is not support", res.PatchType)
	}
	if len(res.Patch) == 0 {
		return obj, nil
	}
	patch, err := jsonpatch.DecodePatch(res.Patch)
	if err != nil {
		return nil, fmt.Errorf("decode patch: %w", err)
	}
	if len(patch) == 0 {
		return obj, nil
	}
	patched, err := patch.Apply(objectJSON)
	if err != nil {
		return nil, fmt.Errorf("apply patch: %w", err)
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(patched); err != nil {
		return nil, fmt.Errorf("decode patched object: %w", err)
	}
	return out, nil
}
