package webhook

import (
	"errors"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// Limits on the JSON patch a webhook returns. Without them an answer of a
// few kilobytes can expand the object to gigabytes ("copy" doubling a value
// a hundred times) or spend minutes of CPU. No Kubernetes object is larger
// than the API server's request limit (3 MiB), so a legitimate patch stays
// far below them.
const (
	// MaxPatchOperations bounds the operations in one patch.
	MaxPatchOperations = 2_000
	// MaxPatchWork bounds operations times the largest container (array
	// elements or object members) they may touch: the patch library copies
	// or scans the container on every add, remove and replace, so this
	// product, not the operation count alone, is the CPU a patch costs.
	MaxPatchWork = 1 << 24
	// MaxPatchCopyBytes bounds the bytes all "copy" operations of one patch
	// add together (the patch library's accumulated copy size).
	MaxPatchCopyBytes = 2 << 20
	// MaxPatchedObjectBytes bounds the patched object, encoded as JSON.
	MaxPatchedObjectBytes = 4 << 20
)

// ErrPatchLimit is wrapped by the error of a patch that exceeds one of the
// limits above.
var ErrPatchLimit = errors.New("patch exceeds a limit")

// applyPatch returns the object with the webhook's patch applied. With no
// patch, or an empty operation list, it returns the object itself.
//
// Difference from Karmada: Karmada decodes the patched JSON back into the
// caller's object; Propel decodes it into a new object and never mutates
// its input, which may come from an informer cache. Karmada applies the
// patch without limits; Propel enforces the limits above.
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
	patched, err := applyJSONPatch(objectJSON, res.Patch)
	if err != nil {
		return nil, err
	}
	if patched == nil {
		return obj, nil
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(patched); err != nil {
		return nil, fmt.Errorf("decode patched object: %w", err)
	}
	return out, nil
}

// applyJSONPatch applies an RFC 6902 patch to doc within the limits. It
// returns nil for a patch with no operations.
func applyJSONPatch(doc, rawPatch []byte) ([]byte, error) {
	patch, err := jsonpatch.DecodePatch(rawPatch)
	if err != nil {
		return nil, fmt.Errorf("decode patch: %w", err)
	}
	if len(patch) == 0 {
		return nil, nil
	}
	if len(patch) > MaxPatchOperations {
		return nil, fmt.Errorf("%w: %d operations, the limit is %d", ErrPatchLimit, len(patch), MaxPatchOperations)
	}
	if work := patchWork(doc, rawPatch, len(patch)); work > MaxPatchWork {
		return nil, fmt.Errorf("%w: %d operations on containers of up to %d entries (work %d), the limit is %d",
			ErrPatchLimit, len(patch), work/int64(len(patch)), work, MaxPatchWork)
	}
	for i, op := range patch {
		// RFC 6902 requires a value for these; the patch library
		// dereferences a missing one (a "test" without value crashed it).
		if kind := op.Kind(); (kind == "add" || kind == "replace" || kind == "test") && op["value"] == nil {
			return nil, fmt.Errorf("decode patch: operation %d (%s): no value", i, kind)
		}
	}
	opts := jsonpatch.NewApplyOptions()
	opts.AccumulatedCopySizeLimit = MaxPatchCopyBytes
	patched, err := applyRecovered(patch, doc, opts)
	if err != nil {
		if _, ok := errors.AsType[*jsonpatch.AccumulatedCopySizeError](err); ok {
			return nil, fmt.Errorf("%w: copy operations add more than %d bytes", ErrPatchLimit, MaxPatchCopyBytes)
		}
		return nil, fmt.Errorf("apply patch: %w", err)
	}
	if len(patched) > MaxPatchedObjectBytes {
		return nil, fmt.Errorf("%w: the patched object is %d bytes, the limit is %d", ErrPatchLimit, len(patched), MaxPatchedObjectBytes)
	}
	return patched, nil
}

// applyRecovered applies patch, turning a panic of the patch library on a
// webhook's patch into an error: no webhook answer may crash the process.
func applyRecovered(patch jsonpatch.Patch, doc []byte, opts *jsonpatch.ApplyOptions) (patched []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			patched, err = nil, fmt.Errorf("the JSON patch library failed on this patch: %v", r)
		}
	}()
	return patch.ApplyWithOptions(doc, opts)
}

// patchWork is an upper bound of the entries the patch library visits:
// every operation may copy or scan one container, and no container is ever
// larger than the largest one in the document or in the patch's values plus
// one entry per operation.
func patchWork(doc, rawPatch []byte, ops int) int64 {
	largest := max(largestContainer(doc, 0), largestContainer(rawPatch, 1))
	return int64(ops) * int64(largest+ops)
}

// largestContainer returns the most entries of any array or object in the
// JSON text js nested deeper than skipDepth (1 skips the top-level array of
// a patch). It scans bytes without decoding and expects valid JSON; on
// invalid JSON it returns a meaningless but finite number.
func largestContainer(js []byte, skipDepth int) int {
	type open struct {
		entries int
		empty   bool
	}
	var stack []open
	largest := 0
	inString, escaped := false, false
	for _, c := range js {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '[', '{':
			if n := len(stack); n > 0 {
				stack[n-1].empty = false
			}
			stack = append(stack, open{empty: true})
			continue
		case ']', '}':
			n := len(stack)
			if n == 0 {
				continue
			}
			top := stack[n-1]
			stack = stack[:n-1]
			if n > skipDepth && !top.empty {
				largest = max(largest, top.entries+1)
			}
			continue
		case ',':
			if n := len(stack); n > 0 {
				stack[n-1].entries++
			}
			continue
		case '"':
			inString = true
		}
		if n := len(stack); n > 0 {
			stack[n-1].empty = false
		}
	}
	return largest
}
