package overrides

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// applyField applies one field overrider: the string at fieldPath is
// parsed as YAML (when there are yaml operations) or JSON (when there are
// json operations), patched, and written back; YAML is re-serialised with
// sorted keys. With no operations at all the field becomes "" (Karmada's
// behaviour).
func applyField(obj *unstructured.Unstructured, o *policyv1alpha1.FieldOverrider) *pathError {
	parent, token, err := resolvePointer(obj.Object, o.FieldPath)
	if err != nil {
		return &pathError{path: o.FieldPath, err: err}
	}
	current, ok := parent.get(token).(string)
	if !ok {
		return &pathError{path: o.FieldPath, err: fmt.Errorf("value is a %T, not a string", parent.get(token))}
	}
	var out []byte
	switch {
	case len(o.YAML) > 0:
		out, err = patchYAML([]byte(current), o.YAML)
	case len(o.JSON) > 0:
		out, err = patchJSON([]byte(current), o.JSON)
	}
	if err != nil {
		return &pathError{path: o.FieldPath, err: err}
	}
	parent.set(token, string(out))
	return nil
}

func patchYAML(doc []byte, ops []policyv1alpha1.YAMLPatchOperation) ([]byte, error) {
	asJSON, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, fmt.Errorf("parse YAML document: %w", err)
	}
	patched, err := patchFieldDocument(asJSON, ops, "YAML")
	if err != nil {
		return nil, err
	}
	out, err := yaml.JSONToYAML(patched)
	if err != nil {
		return nil, fmt.Errorf("encode YAML document: %w", err)
	}
	return out, nil
}

func patchJSON(doc []byte, ops []policyv1alpha1.JSONPatchOperation) ([]byte, error) {
	if len(doc) > 0 && !json.Valid(doc) {
		return nil, errors.New("the field does not hold a JSON document")
	}
	return patchFieldDocument(doc, ops, "JSON")
}

// patchFieldDocument applies ops to doc, the JSON form of a field's
// document; format (JSON, YAML) names the document in errors. The two
// operation types have the same fields.
func patchFieldDocument[Op policyv1alpha1.JSONPatchOperation | policyv1alpha1.YAMLPatchOperation](doc []byte, ops []Op, format string) ([]byte, error) {
	patchOps := make([]patchOp, len(ops))
	for i := range ops {
		o := policyv1alpha1.JSONPatchOperation(ops[i])
		patchOps[i] = patchOp{op: string(o.Operator), path: o.SubPath, value: rawValue(o.Value)}
	}
	patched, err := patchDocument(doc, patchOps)
	if err != nil {
		return nil, fmt.Errorf("patch %s document: %w", format, subPathError(doc, patchOps, err))
	}
	return patched, nil
}

// subPathError names the first sub-document operation that fails alone.
func subPathError(doc []byte, ops []patchOp, err error) error {
	for i := range ops {
		next, opErr := patchDocument(doc, ops[i:i+1])
		if opErr != nil {
			return fmt.Errorf("operation %d (%s subPath %q): %w", i, ops[i].op, ops[i].path, err)
		}
		doc = next
	}
	return err
}

// container is a map or list holding the value a JSON pointer refers to.
type container struct {
	m map[string]interface{}
	l []interface{}
}

func (c container) get(token string) interface{} {
	if c.m != nil {
		return c.m[token]
	}
	i, _ := strconv.Atoi(token)
	return c.l[i]
}

func (c container) set(token string, v interface{}) {
	if c.m != nil {
		c.m[token] = v
		return
	}
	i, _ := strconv.Atoi(token)
	c.l[i] = v
}

// resolvePointer resolves an RFC 6901 pointer in doc to the container of
// its target and the last (unescaped) token. Every token must exist: map
// keys present, list indexes in range.
func resolvePointer(doc map[string]interface{}, ptr string) (container, string, error) {
	if ptr == "" {
		return container{}, "", errors.New("the pointer refers to the whole object, not a string field")
	}
	if !strings.HasPrefix(ptr, "/") {
		return container{}, "", errors.New(`JSON pointer must be empty or start with a "/"`)
	}
	tokens := strings.Split(ptr[1:], "/")
	var cur interface{} = doc
	var parent container
	for i, raw := range tokens {
		token := strings.ReplaceAll(strings.ReplaceAll(raw, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]interface{}:
			next, ok := v[token]
			if !ok {
				return container{}, "", fmt.Errorf("object has no key %q", token)
			}
			parent, cur = container{m: v}, next
		case []interface{}:
			idx, err := strconv.Atoi(token)
			if err != nil || idx < 0 || idx >= len(v) {
				return container{}, "", fmt.Errorf("index %q out of range of a list of length %d", token, len(v))
			}
			parent, cur = container{l: v}, v[idx]
		default:
			return container{}, "", fmt.Errorf("token %q refers into a %T", strings.Join(tokens[:i+1], "/"), v)
		}
		if i == len(tokens)-1 {
			return parent, token, nil
		}
	}
	return parent, "", nil
}
