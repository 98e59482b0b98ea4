package execution

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func obj(t testing.TB, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	// Decode numbers as the API machinery does (int64, not float64).
	data, err := u.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	return out
}

const deployYAML = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  namespace: default
  labels: {app: nginx}
spec:
  replicas: 2
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      containers: [{name: nginx, image: nginx}]
`

func TestUpToDate(t *testing.T) {
	desired := obj(t, deployYAML)
	observed := obj(t, deployYAML)
	observed.SetResourceVersion("42")
	observed.SetUID("u")
	observed.SetGeneration(3)
	observed.SetManagedFields(nil)
	observed.Object["status"] = map[string]interface{}{"replicas": int64(2)}
	if !upToDate(desired, observed) {
		t.Fatal("server-set metadata and status must not count")
	}
	observed.Object["spec"].(map[string]interface{})["replicas"] = float64(2)
	if !upToDate(desired, observed) {
		t.Fatal("2 and 2.0 are the same JSON number")
	}
	desired.Object["spec"].(map[string]interface{})["paused"] = nil
	desired.Object["metadata"].(map[string]interface{})["annotations"] = map[string]interface{}{}
	if !upToDate(desired, observed) {
		t.Fatal("null and empty maps equal absent fields")
	}
	changes := map[string]func(o *unstructured.Unstructured){
		"image": func(o *unstructured.Unstructured) {
			c, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			c[0].(map[string]interface{})["image"] = "nginx:2"
			_ = unstructured.SetNestedSlice(o.Object, c, "spec", "template", "spec", "containers")
		},
		"added field": func(o *unstructured.Unstructured) { _ = unstructured.SetNestedField(o.Object, true, "spec", "paused") },
		"label":       func(o *unstructured.Unstructured) { o.SetLabels(map[string]string{"app": "other"}) },
		"finalizer":   func(o *unstructured.Unstructured) { o.SetFinalizers([]string{"x"}) },
		"list length": func(o *unstructured.Unstructured) {
			c, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			_ = unstructured.SetNestedSlice(o.Object, append(c, map[string]interface{}{"name": "b"}), "spec", "template", "spec", "containers")
		},
	}
	for name, change := range changes {
		o := observed.DeepCopy()
		change(o)
		if upToDate(desired, o) || upToDate(o, desired) {
			t.Errorf("%s: change not detected", name)
		}
	}
}

func TestSameContentIgnoresStatusOnlyUpdates(t *testing.T) {
	a := obj(t, deployYAML)
	b := a.DeepCopy()
	b.SetResourceVersion("2")
	b.Object["status"] = map[string]interface{}{"readyReplicas": int64(1)}
	if !sameContent(a, b) {
		t.Fatal("status-only update counted as a change")
	}
	b.SetAnnotations(map[string]string{"x": "y"})
	if sameContent(a, b) {
		t.Fatal("annotation change missed")
	}
	if !sameContent(nil, nil) || sameContent(a, nil) {
		t.Fatal("nil handling")
	}
}
