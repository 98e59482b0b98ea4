package convert

import (
	"encoding/json"
	"fmt"
	"reflect"

	glua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Lua -> Go, step 3: decoding the repaired value into the target type.

// DecodeInto converts a table into a typed struct or slice through JSON,
// as Karmada does (keys match case-insensitively, quantities may be strings
// or numbers). Nested empty tables are dropped; an empty root table is {}
// for struct targets and [] for slice targets.
func (st *State) DecodeInto(t *glua.LTable, target any) error {
	sh := structShape
	if isSlicePointer(target) {
		sh = sliceShape
	}
	w := st.jsonWriter()
	if err := w.writeRoot(t, sh); err != nil {
		return err
	}
	if err := json.Unmarshal(w.buf, target); err != nil {
		return fmt.Errorf("decode result into %T: %w", target, err)
	}
	return nil
}

func isSlicePointer(target any) bool {
	t := reflect.TypeOf(target)
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Slice
}

// DecodeObject converts a table into an unstructured object; the empty
// tables are repaired against refs. The object must have a kind.
func (st *State) DecodeObject(t *glua.LTable, refs ...*unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return st.decodeObject(t, false, refs...)
}

// DecodeObjectSharing is DecodeObject for a result that may share, with the
// objects given to the script, the members the script left untouched
// (never metadata): the caller must not change the result's members other
// than metadata unless it owns the objects it gave.
func (st *State) DecodeObjectSharing(t *glua.LTable) (*unstructured.Unstructured, error) {
	return st.decodeObject(t, true)
}

func (st *State) decodeObject(t *glua.LTable, share bool, refs ...*unstructured.Unstructured) (*unstructured.Unstructured, error) {
	maps := make([]map[string]any, 0, len(refs))
	for _, r := range refs {
		if r != nil {
			maps = append(maps, r.Object)
		}
	}
	v, err := st.fromLua(t, structShape, true, share, maps...)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("cannot unmarshal array into an object")
	}
	if kind, _ := obj["kind"].(string); kind == "" {
		data, _ := json.Marshal(obj)
		return nil, fmt.Errorf("Object 'Kind' is missing in '%s'", data)
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// DecodeRaw converts a table into raw JSON (compact, keys sorted).
func (st *State) DecodeRaw(t *glua.LTable) (*runtime.RawExtension, error) {
	v, err := st.fromLua(t, structShape, false, false)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode status: %w", err)
	}
	return &runtime.RawExtension{Raw: data}, nil
}

// CanonicalJSON writes t as JSON with object members in key order and
// nested empty tables left out, as a struct target would decode it: the
// same content gives the same bytes, whether t is a proxy or not. The
// bytes are valid until the state's next conversion.
func (st *State) CanonicalJSON(t *glua.LTable) ([]byte, error) {
	w := st.jsonWriter()
	w.sorted = true
	if err := w.writeRoot(t, structShape); err != nil {
		return nil, err
	}
	return w.buf, nil
}
