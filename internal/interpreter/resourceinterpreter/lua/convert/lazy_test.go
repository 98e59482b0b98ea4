package convert

import (
	"reflect"
	"testing"

	glua "github.com/yuin/gopher-lua"
)

const lazyFixture = `{"kind":"X","spec":{"list":[3,1,2],"map":{"b":2,"a":1,"c":null},"nested":{"deep":{"x":1}},"empty":{},"strs":["x","y"]}}`

func TestLazyWriterMatchesEncoderAfterEdits(t *testing.T) {
	// The JSON writer (typed results, pod-template keys) must see members
	// read, changed or removed by the script as the encoder does.
	for _, code := range []string{
		`local m = obj.spec.map local _ = m.a m.a = nil`,
		`local m = obj.spec.map local _ = m.a .. m.b m.a = nil m.b = nil`,
		`local s = obj.spec local _ = s.nested s.nested = nil local _ = s.list s.list = {}`,
		`local d = obj.spec.nested.deep d.x = 2 local _ = obj.spec.strs`,
	} {
		st := newTestState(t)
		L := st.L
		root, err := st.Object(obj(t, lazyFixture))
		if err != nil {
			t.Fatal(err)
		}
		L.SetGlobal("obj", root)
		if err := L.DoString(code); err != nil {
			t.Fatalf("%s: %v", code, err)
		}
		tree, err := st.fromLua(root.(*glua.LTable), structShape, false, false)
		if err != nil {
			t.Fatal(err)
		}
		w := st.jsonWriter()
		w.sorted = true
		if err := w.writeRoot(root, structShape); err != nil {
			t.Fatal(err)
		}
		if got, want := string(w.buf), toJSON(t, tree); got != want {
			t.Errorf("%s:\nwriter  %s\nencoder %s", code, got, want)
		}
	}
}

func TestEndCallDetachesProxies(t *testing.T) {
	st := newTestState(t)
	in := obj(t, `{"kind":"X","spec":{"a":{"b":7}},"status":{"c":{"d":8}}}`)
	root, err := st.Object(in)
	if err != nil {
		t.Fatal(err)
	}
	st.L.SetGlobal("obj", root)
	if err := st.L.DoString("filled = obj.spec.a\nfor _ in pairs(filled) do end\nunfilled = obj.status"); err != nil {
		t.Fatal(err)
	}
	st.EndCall()
	if n := len(st.lazy.backing); n != 0 {
		t.Errorf("%d proxies still backed by the caller's object", n)
	}
	if err := st.L.DoString("n = 0 for _ in pairs(unfilled) do n = n + 1 end"); err != nil {
		t.Fatal(err)
	}
	if n := st.L.GetGlobal("n"); n != glua.LNumber(0) {
		t.Errorf("a detached proxy has %v members, want none", n)
	}
}

// TestSharingDecodeMatchesCopy: a result that shares the untouched parts
// of the script's arguments is equal to the copied one, and its metadata
// is never the caller's.
func TestSharingDecodeMatchesCopy(t *testing.T) {
	const fixture = `{"kind":"X","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"n":3,"f":1.5,"big":9007199254740993,"list":[1,{"a":"b"}],"e":{},"l":[],"nul":null,"deep":{"x":{"y":[{}]}}},"status":{"s":"t"}}`
	for _, code := range []string{
		``,
		`local _ = obj.metadata.name`,
		`obj.status = {active = {}, type = "", lastScheduleTime = {}}`,
		`obj.spec.n = 4 local _ = obj.spec.deep`,
		`obj.extra = {{}, 1}`,
		`for k, v in pairs(obj.spec) do end`,
	} {
		st := newTestState(t)
		in := obj(t, fixture)
		root, err := st.Object(in)
		if err != nil {
			t.Fatal(err)
		}
		st.L.SetGlobal("obj", root)
		if err := st.L.DoString(code); err != nil {
			t.Fatalf("%s: %v", code, err)
		}
		copied, err := st.DecodeObject(root.(*glua.LTable))
		if err != nil {
			t.Fatal(err)
		}
		shared, err := st.DecodeObjectSharing(root.(*glua.LTable))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(copied.Object, shared.Object) {
			t.Errorf("%q:\ncopied %s\nshared %s", code, toJSON(t, copied.Object), toJSON(t, shared.Object))
		}
		shared.SetResourceVersion("2")
		shared.SetLabels(map[string]string{"changed": "yes"})
		if in.GetResourceVersion() != "" || in.GetLabels()["x"] != "y" {
			t.Errorf("%q: changing the result's metadata changed the caller's object", code)
		}
	}
}
