package convert

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	glua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func TestIntegralMatchesJSONDecoding(t *testing.T) {
	// Karmada encodes the number to JSON and decodes it as an unstructured
	// object does; integral() must agree for large values too.
	for _, f := range []float64{0, 1, -1, 1 << 53, 1<<53 + 2, 1234567890123456789, -9.2e18, 9.223372036854775e18, 1e19, 1e21, 0.5} {
		data, _ := json.Marshal(f)
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON([]byte(`{"kind":"X","v":` + string(data) + `}`)); err != nil {
			t.Fatal(err)
		}
		want := u.Object["v"]
		var got any = f
		if i, ok := integral(f); ok {
			got = i
		}
		if got != want {
			t.Errorf("%v: got %#v, JSON decoding gives %#v", f, got, want)
		}
	}
}

func TestStatusItemsConvertLikeJSON(t *testing.T) {
	// The direct conversion must equal what the items' JSON decodes to.
	items := []workv1alpha2.AggregatedStatusItem{
		{ClusterName: "a", Status: raw(`{"x":1,"n":null,"l":[1,null]}`), Applied: true, AppliedMessage: "ok", Health: workv1alpha2.ResourceUnhealthy},
		{ClusterName: "b"},
		{ClusterName: "c", Status: raw(`"scalar"`)},
		{ClusterName: "d", Status: raw(`{"escaped":"a\"b\u00e9","n":[1e3]}`)},
	}
	st := newTestState(t)
	direct, err := st.StatusItems(items)
	if err != nil {
		t.Fatal(err)
	}
	viaJSON, err := viaJSON(st, items)
	if err != nil {
		t.Fatal(err)
	}
	a, err := st.fromLua(direct.(*glua.LTable), sliceShape, false, false)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := st.fromLua(viaJSON.(*glua.LTable), sliceShape, false, false)
	if toJSON(t, a) != toJSON(t, b) {
		t.Errorf("direct %s\nJSON   %s", toJSON(t, a), toJSON(t, b))
	}
	if nilItems, _ := st.StatusItems(nil); nilItems != glua.LNil {
		t.Errorf("nil items = %v", nilItems)
	}
}

func TestJSONWriterMatchesEncoder(t *testing.T) {
	st := newTestState(t)
	L := st.L
	for _, expr := range []string{
		`{a = 1, b = "x\n\"q\"<&>", c = true, d = {1, 2, {}}, e = {}, f = {g = {}}, h = 1e21, i = 1e-7, j = -0.5, k = 123456789012}`,
		`{list = {{}, {}}, s = "\1\31 é"}`,
		`{nested = {deeper = {deepest = {1.5, "x", false}}}}`,
		`{}`,
		`{{}, {a = 1}}`,
	} {
		v := luaValue(t, L, expr)
		for _, sh := range []shape{structShape, sliceShape} {
			w := st.jsonWriter()
			w.sorted = true
			if err := w.writeRoot(v, sh); err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			var fast any
			if err := json.Unmarshal(w.buf, &fast); err != nil {
				t.Fatalf("%s: writer produced %s: %v", expr, w.buf, err)
			}
			tree, err := st.fromLua(v.(*glua.LTable), sh, false, false)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := json.Marshal(tree)
			var slow any
			_ = json.Unmarshal(data, &slow)
			if !reflect.DeepEqual(fast, slow) {
				t.Errorf("%s: writer %s, encoder %s", expr, w.buf, data)
			}
		}
	}
	for _, expr := range []string{`{[1] = 1, [3] = 3}`, `{1, a = 1}`, `{f = print}`, `{n = 0/0}`} {
		w := st.jsonWriter()
		_, encErr := st.fromLua(luaValue(t, L, expr).(*glua.LTable), structShape, false, false)
		if err := w.writeRoot(luaValue(t, L, expr), structShape); err == nil || encErr == nil || err.Error() != encErr.Error() {
			t.Errorf("%s: writer error %v, encoder error %v", expr, err, encErr)
		}
	}
}

func TestFastJSONDecoderMatchesEncodingJSON(t *testing.T) {
	st := newTestState(t)
	for _, doc := range []string{
		`{"b":2,"a":1,"n":null,"l":[1,null,"x",{"z":[]}],"t":true,"f":false}`,
		`{"num":[0,-0,1e2,1.5E-3,-12.25,12345678901234567890]}`,
		`{"dup":1,"dup":2,"nul":3,"nul":null}`,
		`{"u":"héllo ☃","esc":"a\"b\\c\n\u00e9"}`,
		`[1,2,3]`, `"s"`, `12`, ` {"a" : [ ] , "b" : { } } `,
		"{\"bad\":\"\xff\"}",
	} {
		var g any
		if err := json.Unmarshal([]byte(doc), &g); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		slow, err := st.eager(g)
		if err != nil {
			t.Fatal(err)
		}
		fast, err := st.jsonToLuaFast([]byte(doc))
		if err != nil {
			if err != errSlowPath {
				t.Errorf("%s: %v", doc, err)
			}
			continue // encoding/json takes over
		}
		a, _ := (&encoder{}).value(fast)
		b, _ := (&encoder{}).value(slow)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: fast %v, encoding/json %v", doc, a, b)
		}
	}
	for _, bad := range []string{`{"a":1`, `{"a":1}x`, `[1,]`, `{"a" 1}`, `01`, `-`, `1.`, `tru`} {
		if _, err := st.jsonToLuaFast([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestCanonicalTemplateJSONIgnoresLaziness(t *testing.T) {
	// The memo key of a template must not depend on whether the script
	// touched the template: a proxy and a filled table write the same bytes.
	st := newTestState(t)
	L := st.L
	root, err := st.Object(obj(t, deployment))
	if err != nil {
		t.Fatal(err)
	}
	L.SetGlobal("obj", root)
	if err := L.DoString(`proxy = obj.spec.template`); err != nil {
		t.Fatal(err)
	}
	canonical := func() string {
		L.Push(L.GetGlobal("proxy"))
		defer L.Pop(1)
		data, err := st.CanonicalJSON(L.CheckTable(L.GetTop()))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	lazy := canonical()
	if _, ok := st.lazy.backingOf(L.GetGlobal("proxy").(*glua.LTable)); !ok {
		t.Fatal("the template is not a proxy")
	}
	// Partly read: some members handed out, the proxy itself unfilled.
	if err := L.DoString(`partial = obj.spec.template.spec.containers[1].resources`); err != nil {
		t.Fatal(err)
	}
	if partial := canonical(); partial != lazy {
		t.Errorf("proxy   %s\npartial %s", lazy, partial)
	}
	if err := L.DoString(`local function walk(t) for _, v in pairs(t) do if type(v) == "table" then walk(v) end end end walk(proxy)`); err != nil {
		t.Fatal(err)
	}
	if filled := canonical(); filled != lazy {
		t.Errorf("proxy  %s\nfilled %s", lazy, filled)
	}
}

func newTestState(t testing.TB) *State {
	t.Helper()
	L := glua.NewState()
	t.Cleanup(L.Close)
	return NewState(L)
}

// viaJSON converts v through its JSON encoding, eagerly.
func viaJSON(st *State, v any) (glua.LValue, error) {
	g, err := generic(v)
	if err != nil {
		return nil, err
	}
	return st.eager(g)
}

func raw(s string) *runtime.RawExtension { return &runtime.RawExtension{Raw: []byte(s)} }

func toJSON(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// obj decodes a JSON object the way objects come from the API server.
func obj(t testing.TB, js string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(js)); err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	return u
}

const deployment = `{
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "prod"},
  "spec": {
    "replicas": 3,
    "template": {
      "metadata": {"labels": {"app": "web"}},
      "spec": {
        "nodeSelector": {"disk": "ssd"},
        "containers": [
          {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}},
          {"name": "sidecar", "image": "envoy", "resources": {"requests": {"cpu": "100m"}}}
        ],
        "volumes": [{"name": "cert", "secret": {"secretName": "web-cert"}}]
      }
    }
  }
}`

func luaValue(t *testing.T, L *glua.LState, expr string) glua.LValue {
	t.Helper()
	if err := L.DoString("__v = " + expr); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return L.GetGlobal("__v")
}

func TestFastJSONNumbersAndStrings(t *testing.T) {
	st := newTestState(t)
	for _, num := range []string{"0", "-0", "7", "-7", "1023", "1024", "-1024", "0.5", "-0.0", "1e2", "1E+2", "1e-2", "2.5e3",
		"123456789012345", "-123456789012345", "999999999999999", "1234567890123456", "9007199254740993", "12345678901234567890", "1e308"} {
		var want float64
		if err := json.Unmarshal([]byte(num), &want); err != nil {
			t.Fatal(err)
		}
		lv, err := st.jsonToLuaFast([]byte(num))
		if err != nil {
			t.Errorf("%s: %v", num, err)
			continue
		}
		got, ok := lv.(glua.LNumber)
		if !ok || float64(got) != want || math.Signbit(float64(got)) != math.Signbit(want) {
			t.Errorf("%s: got %v, encoding/json %v", num, lv, want)
		}
	}
	for _, str := range []string{`""`, `"plain"`, `"é☃😀"`, `"\"\\\/\b\f\n\r\t"`, `"\u0000\u001f\u00e9\u2603"`, `"\ud83d\ude00"`,
		`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\ud800\ud800"`, `"\uD83D\uDE00x"`, `"a\u0022b"`, `"long ` + strings.Repeat("x\\n", 40) + `"`} {
		var want string
		if err := json.Unmarshal([]byte(str), &want); err != nil {
			t.Fatal(err)
		}
		lv, err := st.jsonToLuaFast([]byte(str))
		if err != nil || lv.String() != want {
			t.Errorf("%s: got %q (%v), encoding/json %q", str, lv, err, want)
		}
	}
	// What encoding/json rejects, or replaces (invalid UTF-8), is left to it.
	for _, bad := range []string{`1e400`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\tb\"", "\"\xff\"", `"abc`, `"\`, `"\u`} {
		if _, err := st.jsonToLuaFast([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestFastJSONDoesNotKeepTheInput(t *testing.T) {
	// The input is read in place: nothing built may refer to it.
	st := newTestState(t)
	long := strings.Repeat("k", 100)
	doc := []byte(`{"key":"value","` + long + `":"` + long + `","esc":"a\nb","nested":{"inner":"x"}}`)
	lv, err := st.jsonToLuaFast(doc)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := (&encoder{}).value(lv)
	for i := range doc {
		if doc[i] >= 'a' && doc[i] <= 'z' {
			doc[i] = 'Z'
		}
	}
	after, _ := (&encoder{}).value(lv)
	if !reflect.DeepEqual(before, after) {
		t.Errorf("changing the input changed the tables:\nbefore %v\nafter  %v", before, after)
	}
}

func TestTableBuilderBounds(t *testing.T) {
	// Caches are bounded and keep giving right values when refilled.
	st := newTestState(t)
	tb := st.tables
	for i := 0; i < maxInterned*2+10; i++ {
		s := fmt.Sprintf("v%d", i)
		if v := tb.str(s); v.String() != s {
			t.Fatalf("str(%q) = %q", s, v)
		}
	}
	if len(tb.interned) > maxInterned {
		t.Errorf("%d interned strings", len(tb.interned))
	}
	for i := 0; i < 100; i++ {
		k := fmt.Sprintf("k%d", i)
		tbl := tb.object([]member{{k, glua.LNumber(i)}, {"a", glua.LTrue}})
		if got := tbl.RawGetString(k); got != glua.LNumber(i) {
			t.Fatalf("member %s = %v", k, got)
		}
		if k1, _ := tbl.Next(glua.LNil); k1.String() != "a" {
			t.Fatalf("first key %v, want a", k1)
		}
	}
}
