package lua

import (
	"encoding/json"
	"fmt"
	"reflect"

	glua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Lua -> Go, step 3: decoding the repaired value into the target type.

// decodeTable converts a table into a typed struct or slice through JSON,
// as Karmada does (keys match case-insensitively, quantities may be strings
// or numbers). Nested empty tables are dropped; an empty root table is {}
// for struct targets and [] for slice targets.
func decodeTable(L *glua.LState, t *glua.LTable, target any) error {
	sh := structShape
	if isSlicePointer(target) {
		sh = sliceShape
	}
	w := writerFor(L)
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

// decodeObject converts a table into an unstructured object; the empty
// tables are repaired against refs. The object must have a kind.
func decodeObject(L *glua.LState, t *glua.LTable, refs ...*unstructured.Unstructured) (*unstructured.Unstructured, error) {
	maps := make([]map[string]any, 0, len(refs))
	for _, r := range refs {
		if r != nil {
			maps = append(maps, r.Object)
		}
	}
	v, err := fromLua(L, t, structShape, true, maps...)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("cannot unmarshal array into an object")
	}
	if kind, _ := obj["kind"].(string); kind == "" {
		data, _ := json.Marshal(obj)
		//lint:ignore ST1005 apimachinery's own text, which Karmada's callers see
		return nil, fmt.Errorf("Object 'Kind' is missing in '%s'", data)
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// decodeRaw converts a table into raw JSON (compact, keys sorted).
func decodeRaw(L *glua.LState, t *glua.LTable) (*runtime.RawExtension, error) {
	v, err := fromLua(L, t, structShape, false)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode status: %w", err)
	}
	return &runtime.RawExtension{Raw: data}, nil
}

// scratchOf returns the per-state scratch space of L (kept on its budget),
// nil for a state without one.
func scratchOf(L *glua.LState) *budget {
	if L == nil {
		return nil
	}
	b, _ := L.Context().(*budget)
	return b
}

// writerFor returns L's reusable JSON writer, or a new one.
func writerFor(L *glua.LState) *jsonWriter {
	if b := scratchOf(L); b != nil {
		b.writer.reset()
		b.writer.lazy = b.lazy
		return &b.writer
	}
	return &jsonWriter{}
}
