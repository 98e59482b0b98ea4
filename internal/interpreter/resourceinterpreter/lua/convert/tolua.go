package convert

import (
	"encoding/json"
	"fmt"
	"slices"

	glua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Go -> Lua. Values are converted as if they went through JSON (which is
// what Karmada does): null object members and null array elements vanish,
// numbers become Lua numbers, {} and [] both become an empty table. Object
// members are inserted in sorted key order so that pairs() iterates
// deterministically, which Karmada does not guarantee.

// eager converts a JSON-like Go value eagerly (no proxies).
func (st *State) eager(v any) (glua.LValue, error) {
	c := st.converter(false)
	return c.value(v)
}

// converter keeps one buffer for the sorted keys of all the maps of a
// value: each map uses the end of it while its members are converted.
// With lazy set, nested maps and slices become proxies (see lazy.go).
type converter struct {
	L    *glua.LState
	lazy *lazyTables
	keys []string
	// members stacks the converted members of the maps being filled.
	members []member
	tables  *tableBuilder
	// handedOut is the proxy being filled whose children were read
	// already: fillObject reuses them.
	handedOut *glua.LTable
}

func (c *converter) value(v any) (glua.LValue, error) {
	switch t := v.(type) {
	case nil:
		return glua.LNil, nil
	case bool:
		return glua.LBool(t), nil
	case string:
		return glua.LString(t), nil
	case int64:
		return luaNumber(float64(t)), nil
	case float64:
		return luaNumber(t), nil
	case int:
		return luaNumber(float64(t)), nil
	case int32:
		return luaNumber(float64(t)), nil
	case map[string]any:
		if t == nil {
			return glua.LNil, nil
		}
		if c.lazy != nil {
			return c.lazy.proxy(c.L, t), nil
		}
		tbl := c.L.CreateTable(0, len(t))
		return tbl, c.fillObject(tbl, t)
	case []any:
		if t == nil {
			return glua.LNil, nil
		}
		if c.lazy != nil {
			return c.lazy.proxy(c.L, t), nil
		}
		tbl := c.L.CreateTable(len(t), 0)
		return tbl, c.fillArray(tbl, t)
	}
	g, err := generic(v)
	if err != nil {
		return nil, err
	}
	return c.value(g)
}

// fillObject sets the non-null members of m in tbl, in key order.
func (c *converter) fillObject(tbl *glua.LTable, m map[string]any) error {
	start := len(c.keys)
	for k, e := range m {
		if e != nil {
			c.keys = append(c.keys, k)
		}
	}
	defer func() { c.keys = c.keys[:start] }()
	slices.Sort(c.keys[start:])
	mstart := len(c.members)
	defer func() {
		clear(c.members[mstart:])
		c.members = c.members[:mstart]
	}()
	reuse := c.handedOut == tbl
	for i, n := 0, len(c.keys)-start; i < n; i++ {
		k := c.keys[start+i]
		if reuse {
			if child, ok := c.lazy.child(tbl, k); ok {
				if child != glua.LNil {
					c.members = append(c.members, member{k, child})
				}
				continue
			}
		}
		lv, err := c.value(m[k])
		if err != nil {
			return err
		}
		if lv != glua.LNil {
			c.members = append(c.members, member{k, lv})
		}
	}
	c.tables.setMembers(tbl, c.members[mstart:])
	return nil
}

// fillArray appends the non-null elements of s to tbl.
func (c *converter) fillArray(tbl *glua.LTable, s []any) error {
	for _, e := range s {
		lv, err := c.value(e)
		if err != nil {
			return err
		}
		if lv != glua.LNil {
			tbl.Append(lv)
		}
	}
	return nil
}

// generic converts a value of any other type to what its JSON decodes to.
func generic(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %T for Lua: %w", v, err)
	}
	var g any
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("decode JSON for Lua: %w", err)
	}
	return g, nil
}

// Object converts an object argument, lazily (see lazy.go). A nil object
// is nil.
func (st *State) Object(obj *unstructured.Unstructured) (glua.LValue, error) {
	if obj == nil || obj.Object == nil {
		return glua.LNil, nil
	}
	c := st.converter(true)
	return c.value(obj.Object)
}

// StatusItems converts the AggregateStatus items to what their JSON
// decodes to: {clusterName, status, applied, appliedMessage, health}, with
// the omitempty members absent when empty. A nil list is nil. Items and
// statuses are read whole by aggregation scripts, so they are converted at
// once (measured faster than proxies here), by the table builder
// (ltable.go): the statuses of every cluster share one shape.
func (st *State) StatusItems(items []workv1alpha2.AggregatedStatusItem) (glua.LValue, error) {
	if items == nil {
		return glua.LNil, nil
	}
	tbl := st.L.CreateTable(len(items), 0)
	for i := range items {
		item, err := st.statusItem(&items[i])
		if err != nil {
			return nil, fmt.Errorf("status item %d (cluster %q): %w", i, items[i].ClusterName, err)
		}
		tbl.Append(item)
	}
	return tbl, nil
}

func (st *State) statusItem(it *workv1alpha2.AggregatedStatusItem) (glua.LValue, error) {
	// The members in key order, as fillObject would set them.
	var buf [5]member
	ms := buf[:0]
	tb := st.tables
	if it.AppliedMessage != "" {
		ms = append(ms, member{"appliedMessage", glua.LString(it.AppliedMessage)})
	}
	if it.Applied {
		ms = append(ms, member{"applied", glua.LTrue})
	}
	ms = append(ms, member{"clusterName", tb.str(it.ClusterName)})
	if it.Health != "" {
		ms = append(ms, member{"health", tb.str(string(it.Health))})
	}
	if it.Status != nil {
		status, err := st.raw(it.Status.Raw, it.Status.Object)
		if err != nil {
			return nil, err
		}
		if status != glua.LNil {
			ms = append(ms, member{"status", status})
		}
	}
	return tb.object(ms), nil
}

// raw converts a RawExtension's content.
func (st *State) raw(raw []byte, obj any) (glua.LValue, error) {
	if len(raw) > 0 {
		// Statuses are read whole: convert them at once.
		if lv, err := st.jsonToLuaFast(raw); err == nil {
			return lv, nil
		}
	}
	return st.rawSlow(raw, obj)
}

// rawSlow converts what jsonToLuaFast does not handle.
func (st *State) rawSlow(raw []byte, obj any) (glua.LValue, error) {
	var v any
	switch {
	case len(raw) > 0:
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("decode JSON for Lua: %w", err)
		}
	case obj != nil:
		g, err := generic(obj)
		if err != nil {
			return nil, err
		}
		v = g
	default:
		return glua.LNil, nil
	}
	c := st.converter(true)
	return c.value(v)
}

// Generic returns what the JSON encoding of v decodes to (maps, slices,
// float64...): the form a Go value takes before it becomes Lua tables.
func Generic(v any) (any, error) { return generic(v) }
