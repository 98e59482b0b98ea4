package workapply

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

func TestRefs(t *testing.T) {
	w := &workv1alpha1.Work{Spec: workv1alpha1.WorkSpec{Workload: workv1alpha1.WorkloadTemplate{Manifests: []workv1alpha1.Manifest{
		{RawExtension: runtime.RawExtension{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"namespace":"default","name":"nginx"}}`)}},
		{RawExtension: runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)}},
	}}}}
	refs, err := Refs(w)
	if err != nil {
		t.Fatal(err)
	}
	want := workv1alpha1.ResourceIdentifier{Ordinal: 1, Version: "v1", Kind: "Namespace", Name: "demo"}
	if len(refs) != 2 || refs[1].Identifier() != want || refs[0].Identifier().Group != "apps" || refs[0].String() != "Deployment default/nginx" {
		t.Fatalf("refs %+v", refs)
	}
	w.Spec.Workload.Manifests[1].Raw = []byte(`{"kind":"Namespace"}`)
	if _, err := Refs(w); err == nil {
		t.Fatal("a manifest without apiVersion and name must fail")
	}
}
