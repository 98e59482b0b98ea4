package overrides

import (
	"encoding/json"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// patchOp is one RFC 6902 operation.
type patchOp struct {
	op    string
	path  string
	value json.RawMessage
}

// nullValue is the value of an operation without one, as Karmada sends it.
var nullValue = json.RawMessage("null")

// rawValue is the JSON of an overrider value; an empty value is null.
func rawValue(v apiextensionsv1.JSON) json.RawMessage {
	if len(v.Raw) == 0 {
		return nullValue
	}
	return v.Raw
}

func jsonValue(v interface{}) (json.RawMessage, error) {
	data, err := json.Marshal(v)
	return data, err
}

// buildPatch turns ops into a json-patch Patch without a JSON round trip.
func buildPatch(ops []patchOp) (jsonpatch.Patch, error) {
	patch := make(jsonpatch.Patch, len(ops))
	for i, o := range ops {
		op, err := json.Marshal(o.op)
		if err != nil {
			return nil, err
		}
		path, err := json.Marshal(o.path)
		if err != nil {
			return nil, err
		}
		opRaw, pathRaw, value := json.RawMessage(op), json.RawMessage(path), o.value
		if value == nil {
			value = nullValue
		}
		patch[i] = jsonpatch.Operation{"op": &opRaw, "path": &pathRaw, "value": &value}
	}
	return patch, nil
}

// patchDocument applies ops to a JSON document with RFC 6902 semantics
// (evanphx/json-patch v5 defaults, as Karmada).
func patchDocument(doc []byte, ops []patchOp) ([]byte, error) {
	patch, err := buildPatch(ops)
	if err != nil {
		return nil, err
	}
	return patch.Apply(doc)
}

// applyPatch applies ops to obj through its JSON form, as Karmada does.
func applyPatch(obj *unstructured.Unstructured, ops []patchOp) error {
	doc, err := obj.MarshalJSON()
	if err != nil {
		return fmt.Errorf("encode object: %w", err)
	}
	patched, err := patchDocument(doc, ops)
	if err != nil {
		return err
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(patched); err != nil {
		return fmt.Errorf("decode patched object: %w", err)
	}
	obj.Object = out.Object
	return nil
}

// applyPlaintext applies all plaintext overriders as one JSON patch. The
// error names the first operation whose path is missing when the patch
// fails.
func applyPlaintext(obj *unstructured.Unstructured, items []policyv1alpha1.PlaintextOverrider) *pathError {
	if len(items) == 0 {
		return nil
	}
	ops := make([]patchOp, len(items))
	for i := range items {
		ops[i] = patchOp{op: string(items[i].Operator), path: items[i].Path, value: rawValue(items[i].Value)}
	}
	if err := applyPatch(obj, ops); err != nil {
		i := failingOp(obj, ops)
		return &pathError{path: ops[i].path, index: i, err: err}
	}
	return nil
}

// failingOp finds the first operation that fails when the operations are
// applied one by one, to name it in the error; 0 if none fails alone.
func failingOp(obj *unstructured.Unstructured, ops []patchOp) int {
	doc, err := obj.MarshalJSON()
	if err != nil {
		return 0
	}
	for i := range ops {
		next, err := patchDocument(doc, ops[i:i+1])
		if err != nil {
			return i
		}
		doc = next
	}
	return 0
}
