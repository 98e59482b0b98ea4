package objectdiff

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
)

// Change is one differing field. Old or New is nil when the field is
// absent on that side.
type Change struct {
	Path string `json:"path"`
	Old  any    `json:"old,omitempty"`
	New  any    `json:"new,omitempty"`
}

// String is "path: old -> new" with the values in JSON.
func (c Change) String() string {
	return fmt.Sprintf("%s: %s -> %s", c.Path, short(c.Old), short(c.New))
}

// maxValue bounds the JSON of a value in String.
const maxValue = 120

func short(v any) string {
	if v == nil {
		return "<none>"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > maxValue {
		return string(b[:maxValue]) + "..."
	}
	return string(b)
}

// Values returns the changes from old to new, sorted by path. Both are
// first normalised through JSON, so typed values, int64 and float64
// compare by their JSON form. Lists of different lengths are one change;
// lists of the same length are compared element by element ("path[i]").
func Values(old, new any) ([]Change, error) {
	o, err := normalise(old)
	if err != nil {
		return nil, fmt.Errorf("old value: %w", err)
	}
	n, err := normalise(new)
	if err != nil {
		return nil, fmt.Errorf("new value: %w", err)
	}
	var out []Change
	walk("", o, n, &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func normalise(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func walk(path string, o, n any, out *[]Change) {
	om, oIsMap := o.(map[string]any)
	nm, nIsMap := n.(map[string]any)
	if oIsMap && nIsMap {
		for k, ov := range om {
			nv, ok := nm[k]
			if !ok {
				*out = append(*out, Change{Path: join(path, k), Old: ov})
				continue
			}
			walk(join(path, k), ov, nv, out)
		}
		for k, nv := range nm {
			if _, ok := om[k]; !ok {
				*out = append(*out, Change{Path: join(path, k), New: nv})
			}
		}
		return
	}
	ol, oIsList := o.([]any)
	nl, nIsList := n.([]any)
	if oIsList && nIsList && len(ol) == len(nl) {
		for i := range ol {
			walk(path+"["+strconv.Itoa(i)+"]", ol[i], nl[i], out)
		}
		return
	}
	if !reflect.DeepEqual(o, n) {
		p := path
		if p == "" {
			p = "."
		}
		*out = append(*out, Change{Path: p, Old: o, New: n})
	}
}

// join appends key to path, quoting keys that contain dots (labels).
func join(path, key string) string {
	for _, r := range key {
		if r == '.' || r == '/' || r == '[' {
			key = strconv.Quote(key)
			break
		}
	}
	if path == "" {
		return key
	}
	return path + "." + key
}
