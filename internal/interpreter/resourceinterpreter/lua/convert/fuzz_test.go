package convert

import (
	"encoding/json"
	"reflect"
	"testing"

	glua "github.com/yuin/gopher-lua"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

var jsonSeeds = []string{
	`{"replicas":3,"ready":2,"msg":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00 \ud800 \udc00x","conditions":[{"type":"A","status":"True"},null,{}],"empty":{},"none":[],"nul":null}`,
	`{"n":[0,-0,1,-1,1.5,-2.25,1e2,1E-3,123456789012345,-123456789012345,1234567890123456,12345678901234567890]}`,
	`{"dup":1,"dup":2,"gone":3,"gone":null,"back":null,"back":4}`,
	`"scalar"`, `[]`, `{}`, `[[],[{}],{"a":[]}]`, `{"active":[],"type":"","lastScheduleTime":{}}`,
	`{"a":{"b":{"c":{"d":[1,2,{"e":"f"}]}}}}`,
	// replica requirements: direct conversion and outside its shape
	`{"resourceRequest":{"cpu":"100m","memory":"1Gi"},"nodeClaim":{"nodeSelector":{"a":"b"}},"namespace":"ns","priorityClassName":"high"}`,
	`{"resourceRequest":{},"nodeClaim":{"nodeSelector":{}}}`, `{"resourceRequest":{"cpu":" 1","x":"1e3"}}`,
	`{"resourceRequest":{"cpu":2},"priorityClassName":""}`, `{"nodeClaim":{"tolerations":[{"key":"k"}]}}`, ` { "s" : "x" , "t" : true , "f" : false } `, `1e400`, "\"\xff\"",
}

// slowLua converts data as the reference path does: encoding/json, then
// the generic conversion.
func slowLua(st *State, data []byte) (glua.LValue, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return st.eager(v)
}

// encoded is what a Lua value encodes to (the canonical Lua -> Go
// conversion), scalars included.
func encoded(st *State, v glua.LValue) (any, error) {
	t, ok := v.(*glua.LTable)
	if !ok {
		return (&encoder{}).value(v)
	}
	return st.fromLua(t, structShape, false, false)
}

// FuzzJSONDecoderMatchesEncodingJSON holds the Go -> Lua fast paths to
// encoding/json: whatever the JSON decoder accepts, encoding/json accepts
// and the Lua values encode alike; status items built directly (with the
// fuzzed status, reused tables and interned strings) encode as their JSON
// decoded by encoding/json does.
func FuzzJSONDecoderMatchesEncodingJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	st := newTestState(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, err := st.jsonToLuaFast(data)
		if err != nil {
			return // left to encoding/json
		}
		slow, err := slowLua(st, data)
		if err != nil {
			t.Fatalf("fast decoder accepts %q, encoding/json: %v", data, err)
		}
		got, err1 := encoded(st, fast)
		want, err2 := encoded(st, slow)
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: fast %#v (%v), encoding/json %#v (%v)", data, got, err1, want, err2)
		}
		items := []workv1alpha2.AggregatedStatusItem{
			{ClusterName: "a", Applied: true, Health: workv1alpha2.ResourceHealthy, Status: &runtime.RawExtension{Raw: data}},
			{ClusterName: "b", AppliedMessage: string(data), Status: &runtime.RawExtension{Raw: data}},
		}
		for round := 0; round < 2; round++ { // the second reuses the tables of the first
			direct, err := st.StatusItems(items)
			if err != nil {
				t.Fatalf("%q: %v", data, err)
			}
			reference, err := viaJSON(st, items)
			if err != nil {
				t.Fatal(err)
			}
			a, errA := st.fromLua(direct.(*glua.LTable), sliceShape, false, false)
			b, errB := st.fromLua(reference.(*glua.LTable), sliceShape, false, false)
			if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
				t.Errorf("%q: status items %#v (%v), via JSON %#v (%v)", data, a, errA, b, errB)
			}
			st.EndCall()
		}
	})
}

// FuzzJSONWriterMatchesEncoder holds the Lua -> Go paths to references,
// on tables decoded from the fuzzed JSON: the encoder (with the repair
// without references) to Karmada's rule written plainly (karmadaDecode:
// empty tables dropped, empty strings and objects kept, as Karmada does
// observation 8), the JSON writer (typed results) to the encoder, and, for
// objects, the writer and encoder on lazy proxies to the same on eager
// tables and the sharing decode (AggregateStatus) to the copying one, and
// the direct conversion of replica requirements to their JSON decoding.
func FuzzJSONWriterMatchesEncoder(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	st := newTestState(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		lv, err := slowLua(st, data)
		if err != nil {
			return
		}
		tbl, ok := lv.(*glua.LTable)
		if !ok {
			return
		}
		directMatchesJSON(t, st, data)
		for _, sh := range []shape{structShape, sliceShape} {
			w := st.jsonWriter()
			w.sorted = true
			werr := w.writeRoot(tbl, sh)
			tree, eerr := st.fromLua(tbl, sh, false, false)
			if (werr == nil) != (eerr == nil) {
				t.Fatalf("%q: writer error %v, encoder error %v", data, werr, eerr)
			}
			if werr != nil {
				continue
			}
			var fast, slow any
			if err := json.Unmarshal(w.buf, &fast); err != nil {
				t.Fatalf("%q: writer produced %s: %v", data, w.buf, err)
			}
			enc, err := json.Marshal(tree)
			if err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal(enc, &slow)
			if !reflect.DeepEqual(fast, slow) {
				t.Errorf("%q: writer %s, encoder %s", data, w.buf, enc)
			}
			if ref, err := karmadaDecode(tbl, sh); err != nil || !reflect.DeepEqual(ref, slow) {
				t.Errorf("%q: encoder %s, Karmada's rule %#v (%v)", data, enc, ref, err)
			}
		}
		var m map[string]any
		if json.Unmarshal(data, &m) != nil || m == nil {
			return
		}
		m["kind"] = "X"
		eager, err := st.eager(m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := st.DecodeObject(eager.(*glua.LTable))
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		for _, sharing := range []bool{false, true} {
			in := &unstructured.Unstructured{Object: m}
			proxy, err := st.Object(in)
			if err != nil {
				t.Fatal(err)
			}
			var got *unstructured.Unstructured
			if sharing {
				got, err = st.DecodeObjectSharing(proxy.(*glua.LTable))
			} else {
				got, err = st.DecodeObject(proxy.(*glua.LTable))
			}
			if err != nil || !reflect.DeepEqual(got.Object, want.Object) {
				t.Errorf("%q (sharing %v): proxy %v (%v), eager %v", data, sharing, got, err, want.Object)
			}
			a, errA := st.CanonicalJSON(proxy.(*glua.LTable))
			a = append([]byte(nil), a...)
			b, errB := st.CanonicalJSON(eager.(*glua.LTable))
			if errA != nil || errB != nil || string(a) != string(b) {
				t.Errorf("%q: writer on proxy %s (%v), on tables %s (%v)", data, a, errA, b, errB)
			}
			st.EndCall()
		}
	})
}

// directMatchesJSON checks, on the table data decodes to, that the direct
// conversion of requirements, when it applies, gives what their JSON
// decoding gives. As in State.Requirements, the JSON decoding runs on the
// table the direct attempt has seen.
func directMatchesJSON(t *testing.T, st *State, data []byte) {
	lv, err := slowLua(st, data)
	if err != nil {
		return
	}
	tbl, ok := lv.(*glua.LTable)
	if !ok {
		return
	}
	direct, ok := directRequirements(st, tbl)
	fromJSON := &workv1alpha2.ReplicaRequirements{}
	jsonErr := st.DecodeInto(tbl, fromJSON)
	if ok && (jsonErr != nil || !apiequality.Semantic.DeepEqual(direct, fromJSON)) {
		t.Errorf("%q: direct requirements %s, JSON %s (%v)", data, toJSON(t, direct), toJSON(t, fromJSON), jsonErr)
	}
}

// karmadaDecode is Karmada's conversion of a result table written plainly:
// encode (an empty table is [], keys 1..n an array, string keys an
// object), decode with encoding/json, then delete every nested empty array
// (the repair without references); an empty root is {} for struct targets.
func karmadaDecode(t *glua.LTable, sh shape) (any, error) {
	v, err := karmadaEncode(t, 0)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	if a, ok := out.([]any); ok && len(a) == 0 {
		if sh == structShape {
			return map[string]any{}, nil
		}
		return a, nil
	}
	var drop func(v any) (any, bool)
	drop = func(v any) (any, bool) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				if ne, keep := drop(e); keep {
					t[k] = ne
				} else {
					delete(t, k)
				}
			}
		case []any:
			if len(t) == 0 {
				return nil, false
			}
			kept := []any{}
			for _, e := range t {
				if ne, keep := drop(e); keep {
					kept = append(kept, ne)
				}
			}
			return kept, true
		}
		return v, true
	}
	out, _ = drop(out)
	return out, nil
}

func karmadaEncode(v glua.LValue, depth int) (any, error) {
	if depth > 100 {
		return nil, errTooDeep
	}
	switch t := v.(type) {
	case glua.LString:
		return string(t), nil
	case glua.LBool:
		return bool(t), nil
	case glua.LNumber:
		return float64(t), nil
	case *glua.LTable:
		var keys []glua.LValue
		t.ForEach(func(k, _ glua.LValue) { keys = append(keys, k) })
		if len(keys) == 0 {
			return []any{}, nil
		}
		if _, ok := keys[0].(glua.LString); ok {
			m := map[string]any{}
			for _, k := range keys {
				ks, ok := k.(glua.LString)
				if !ok {
					return nil, errInvalidKeys
				}
				e, err := karmadaEncode(t.RawGet(k), depth+1)
				if err != nil {
					return nil, err
				}
				m[string(ks)] = e
			}
			return m, nil
		}
		arr := make([]any, len(keys))
		for i := range arr {
			e := t.RawGetInt(i + 1)
			if e == glua.LNil {
				return nil, errSparseArray
			}
			ev, err := karmadaEncode(e, depth+1)
			if err != nil {
				return nil, err
			}
			arr[i] = ev
		}
		return arr, nil
	}
	return nil, errInvalidKeys
}
