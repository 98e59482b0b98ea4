package overrides

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// nginxOP is Karmada's nginx/overridepolicy.yaml sample, in default.
func nginxOP(t *testing.T) *Set {
	op := overridePolicy(t, string(sampleFile(t, "nginx/overridepolicy.yaml")))
	op.Namespace = "default"
	return NewSet(nil, []*Policy{FromOverridePolicy(op)})
}

func nginxDeployment(t *testing.T) *unstructured.Unstructured {
	obj := object(t, string(sampleFile(t, "nginx/deployment.yaml")))
	obj.SetNamespace("default")
	return obj
}

func TestNginxSampleLabelsOnMember2(t *testing.T) {
	set := nginxOP(t)
	obj := nginxDeployment(t)
	obj.SetLabels(map[string]string{"app": "nginx", "for": "x", "bar": "y"})
	res, err := set.Apply(obj, cluster("member2", nil))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"app": "nginx", "env": "skoala-dev", "env-stat": "skoala-stage", "bar": "test"}
	if got := obj.GetLabels(); !reflect.DeepEqual(got, want) {
		t.Errorf("labels = %v, want %v", got, want)
	}
	if obj.GetAnnotations() != nil {
		t.Errorf("member2 annotations changed: %v", obj.GetAnnotations())
	}
	cops, ops, err := res.Annotations()
	if err != nil {
		t.Fatal(err)
	}
	const wantOps = `[{"policyName":"nginx-op","overriders":{"labelsOverrider":[` +
		`{"operator":"add","value":{"env":"skoala-dev"}},{"operator":"add","value":{"env-stat":"skoala-stage"}},` +
		`{"operator":"remove","value":{"for":"for"}},{"operator":"replace","value":{"bar":"test"}}]}}]`
	if cops != "" || ops != wantOps {
		t.Errorf("applied annotations:\n cluster %q\n ns      %s\nwant ns  %s", cops, ops, wantOps)
	}
}

func TestNginxSampleAnnotationsOnMember1(t *testing.T) {
	set := nginxOP(t)
	obj := nginxDeployment(t)
	obj.SetAnnotations(map[string]string{"bom": "1", "emma": "2"})
	if _, err := set.Apply(obj, cluster("member1", nil)); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"env": "skoala-stage", "emma": "sophia"}
	if got := obj.GetAnnotations(); !reflect.DeepEqual(got, want) {
		t.Errorf("annotations = %v, want %v", got, want)
	}
	if got := obj.GetLabels(); !reflect.DeepEqual(got, map[string]string{"app": "nginx"}) {
		t.Errorf("member1 labels changed: %v", got)
	}

	// Without annotations, add creates the map; replace and remove of
	// missing keys do nothing.
	plain := nginxDeployment(t)
	if _, err := set.Apply(plain, cluster("member1", nil)); err != nil {
		t.Fatal(err)
	}
	if got := plain.GetAnnotations(); !reflect.DeepEqual(got, map[string]string{"env": "skoala-stage"}) {
		t.Errorf("annotations = %v", got)
	}
}

func TestNginxSampleOtherClusterUntouched(t *testing.T) {
	set := nginxOP(t)
	obj := nginxDeployment(t)
	before := obj.DeepCopy()
	res, err := set.Apply(obj, cluster("member3", nil))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(obj, before) || len(res.Overrides)+len(res.ClusterOverrides) != 0 {
		t.Errorf("member3 got overrides: %v %+v", obj.Object, res)
	}
}

func TestGuestbookSamplePlaintext(t *testing.T) {
	op := overridePolicy(t, string(sampleFile(t, "guestbook/guestbooks-overridepolicy.yaml")))
	op.Namespace = "default"
	set := NewSet(nil, []*Policy{FromOverridePolicy(op)})
	obj := object(t, string(sampleFile(t, "guestbook/guestbook.yaml")))
	obj.SetNamespace("default")
	res, err := set.Apply(obj, cluster("member1", nil))
	if err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(obj.Object, "spec", "size"); size != 4 {
		t.Errorf("spec.size = %v, want 4", obj.Object["spec"])
	}
	if got := obj.GetAnnotations(); !reflect.DeepEqual(got, map[string]string{"OverridePolicy": "test"}) {
		t.Errorf("annotations = %v", got)
	}
	_, ops, _ := res.Annotations()
	const want = `[{"policyName":"guestbook-sample","overriders":{"plaintext":[` +
		`{"path":"/spec/size","operator":"replace","value":4},` +
		`{"path":"/metadata/annotations","operator":"add","value":{"OverridePolicy":"test"}}]}}]`
	if ops != want {
		t.Errorf("applied-overrides = %s\nwant %s", ops, want)
	}

	other := object(t, string(sampleFile(t, "guestbook/guestbook.yaml")))
	other.SetNamespace("default")
	if _, err := set.Apply(other, cluster("member2", nil)); err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(other.Object, "spec", "size"); size != 2 {
		t.Errorf("member2 spec.size = %d, want 2", size)
	}
}
