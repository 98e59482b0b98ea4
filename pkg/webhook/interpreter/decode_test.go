package interpreter

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

func TestDecoder(t *testing.T) {
	d := NewDecoder(clientgoscheme.Scheme)
	raw := runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"v"},"x":{"n":3}}`)}
	req := Request{configv1alpha1.ResourceInterpreterRequest{Object: raw}}

	u := &unstructured.Unstructured{}
	if err := d.Decode(req, u); err != nil {
		t.Fatal(err)
	}
	if n, ok, _ := unstructured.NestedInt64(u.Object, "x", "n"); !ok || n != 3 {
		t.Fatalf("unstructured number = %v (found %v), want int64 3", u.Object["x"], ok)
	}

	cm := &corev1.ConfigMap{}
	if err := d.DecodeRaw(raw, cm); err != nil {
		t.Fatal(err)
	}
	if cm.Name != "cm" || cm.Data["k"] != "v" {
		t.Fatalf("typed = %+v", cm)
	}

	if err := d.Decode(Request{}, u); !errors.Is(err, ErrNoContent) || err.Error() != "there is no content to decode" {
		t.Fatalf("empty object: %v", err)
	}
	if err := d.DecodeRaw(runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"Nope"}`)}, cm); err == nil {
		t.Fatal("decoding an unregistered kind into a typed object succeeded")
	}
}
