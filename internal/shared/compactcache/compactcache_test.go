package compactcache

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

func stdJSON(t *testing.T, v interface{}) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	values := []interface{}{
		nil, true, false, "", "plain", `quote " backslash \ slash /`, "tab\tnewline\nreturn\r bell\x07 nul\x00 del\x7f",
		"<html> & é 日本 🙂", int64(0), int64(-42), int64(math.MaxInt64), int64(math.MinInt64),
		1.5, -0.25, 1e-7, 1e-6, 1e20, 1e21, 123456789.125, 3.0, math.Copysign(0, -1), 1e300,
		[]interface{}{}, []interface{}(nil), []interface{}{int64(1), "a", nil, []interface{}{map[string]interface{}{}}},
		map[string]interface{}(nil), map[string]interface{}{},
		map[string]interface{}{"b": int64(1), "a": map[string]interface{}{"z": "x", "y": []interface{}{true}}, "": "empty", "é": 1.25},
		int(7), int32(-3), float32(0.5), map[string]string{"k": "v"}, // other types fall back to encoding/json
	}
	for _, v := range values {
		got, err := AppendJSON(nil, v)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		if want := stdJSON(t, v); !bytes.Equal(got, want) {
			t.Errorf("%#v:\n got %s\nwant %s", v, got, want)
		}
	}
	big := map[string]interface{}{}
	for _, k := range []string{"q", "w", "e", "r", "t", "y", "u", "i", "o", "p", "a", "s", "d", "f", "g", "h", "j", "k", "l", "z"} {
		big[k] = k // more keys than the stack array holds
	}
	if got, _ := AppendJSON(nil, big); !bytes.Equal(got, stdJSON(t, big)) {
		t.Errorf("20 keys: %s", got)
	}
	if _, err := AppendJSON(nil, math.NaN()); err == nil {
		t.Error("NaN encoded")
	}
}

// Where the bytes differ from encoding/json's (it escapes U+2028 and
// U+2029; invalid UTF-8 is replaced the same way), the decoded values agree.
func TestAppendJSONDecodesLikeEncodingJSON(t *testing.T) {
	for _, s := range []string{"line\u2028sep\u2029", "bad \xff\xfe utf8 \xe2\x82", "ok"} {
		got, err := AppendJSON(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		var a, b string
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("%q: %s is not JSON: %v", s, got, err)
		}
		if err := json.Unmarshal(stdJSON(t, s), &b); err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("%q decodes to %q, encoding/json's to %q", s, a, b)
		}
	}
}

func object() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]interface{}{"name": "c", "namespace": "default", "resourceVersion": "7",
			"managedFields": []interface{}{map[string]interface{}{"manager": "m"}}},
		"data": map[string]interface{}{"n": int64(3), "big": int64(math.MaxInt64), "f": 1.5, "s": "x"},
	}}
}

func TestCompactRoundTrip(t *testing.T) {
	o, err := Compact(object())
	if err != nil {
		t.Fatal(err)
	}
	if o.Name != "c" || o.Namespace != "default" || o.ResourceVersion != "7" {
		t.Fatalf("meta %+v", o.ObjectMeta)
	}
	if o.Size() != len(o.raw) || cap(o.raw) > len(o.raw)+len(o.raw)/8+16 {
		t.Errorf("raw holds %d bytes in %d", len(o.raw), cap(o.raw))
	}
	back, err := o.Decode()
	if err != nil {
		t.Fatal(err)
	}
	want := object()
	unstructured.RemoveNestedField(want.Object, "metadata", "managedFields")
	if !reflect.DeepEqual(back.Object, want.Object) {
		t.Fatalf("round trip (int64 must stay int64, float64 float64):\n got %#v\nwant %#v", back.Object, want.Object)
	}
	back.SetName("changed")
	if again, _ := o.Decode(); again.GetName() != "c" {
		t.Error("decoded copies share state with the cache")
	}
}

func TestHash(t *testing.T) {
	a := map[string]interface{}{"x": int64(1), "y": []interface{}{"a", "b"}}
	b := map[string]interface{}{"y": []interface{}{"a", "b"}, "x": int64(1)}
	ha, _ := Hash(a)
	hb, _ := Hash(b)
	if ha != hb {
		t.Error("equal maps hash differently")
	}
	b["x"] = int64(2)
	if hb, _ = Hash(b); ha == hb {
		t.Error("a changed value does not change the digest")
	}
	// Sequences: self-delimiting JSON keeps ("ab","c") apart from ("a","bc").
	h1, _ := Hash("ab", "c")
	h2, _ := Hash("a", "bc")
	if h1 == h2 {
		t.Error("value boundaries are lost")
	}
	if h3, _ := Hash(ha, nil); h3 == h1 {
		t.Error("digests combine")
	}
	if got, _ := AppendJSON(nil, ha); string(got) != `"`+ha.String()+`"` {
		t.Errorf("a Digest encodes as %s", got)
	}
}

func TestUnwrap(t *testing.T) {
	o := &Object{}
	if got, ok := Unwrap[*Object](o); !ok || got != o {
		t.Error("object")
	}
	if got, ok := Unwrap[*Object](cache.DeletedFinalStateUnknown{Key: "k", Obj: o}); !ok || got != o {
		t.Error("tombstone")
	}
	if _, ok := Unwrap[*Object]("other"); ok {
		t.Error("other type")
	}
}
