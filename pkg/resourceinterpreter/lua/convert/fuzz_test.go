package convert

import (
	"encoding/json"
	"reflect"
	"testing"

	glua "github.com/yuin/gopher-lua"
)

var jsonSeeds = []string{
	`{"replicas":3,"ready":2,"msg":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00 \ud800 \udc00x","conditions":[{"type":"A","status":"True"},null,{}],"empty":{},"none":[],"nul":null}`,
	`{"n":[0,-0,1,-1,1.5,-2.25,1e2,1E-3,123456789012345,-123456789012345,1234567890123456,12345678901234567890]}`,
	`{"dup":1,"dup":2,"gone":3,"gone":null,"back":null,"back":4}`,
	`"scalar"`, `[]`, `{}`, `[[],[{}],{"a":[]}]`, `{"active":[],"type":"","lastScheduleTime":{}}`,
	`{"a":{"b":{"c":{"d":[1,2,{"e":"f"}]}}}}`, ` { "s" : "x" , "t" : true , "f" : false } `, `1e400`, "\"\xff\"",
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

// FuzzJSONDecoderMatchesEncodingJSON holds the fast JSON -> Lua decoder to
// encoding/json: whatever it accepts, encoding/json accepts and the Lua
// values encode alike.
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
	})
}

// FuzzJSONWriterMatchesEncoder holds the JSON writer (typed results) to
// the canonical encoder followed by encoding/json, on tables decoded from
// the fuzzed JSON.
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
		}
	})
}
