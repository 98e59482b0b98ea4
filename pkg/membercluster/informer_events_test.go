package membercluster

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/propel-mc/propel/pkg/names"
)

func member(managed bool, workName string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]interface{}{"name": "c", "namespace": "default", "managedFields": []interface{}{map[string]interface{}{}}}}}
	if managed {
		u.SetLabels(map[string]string{names.ManagedLabel: names.TrueValue})
	}
	if workName != "" {
		u.SetAnnotations(map[string]string{names.WorkNamespaceAnnotation: "karmada-es-member1", names.WorkNameAnnotation: workName})
	}
	return u
}

func TestRouteTo(t *testing.T) {
	var got []ObjectEvent
	h := routeTo(func(ev ObjectEvent) { got = append(got, ev) }, "member1", schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	h.OnAdd(member(true, "w1"), false)
	h.OnAdd(member(false, "w1"), false) // not managed
	h.OnAdd(member(true, ""), false)    // no back-reference
	h.OnUpdate(member(true, "w1"), member(true, ""))
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "default/c", Obj: member(true, "w2")})
	if len(got) != 3 {
		t.Fatalf("routed %d events: %+v", len(got), got)
	}
	if got[0].Type != ObjectAdded || got[0].Work.Name != "w1" || got[0].Cluster != "member1" {
		t.Errorf("add: %+v", got[0])
	}
	if got[1].Type != ObjectUpdated || got[1].Work.Name != "w1" || got[1].Old == nil {
		t.Errorf("an update that dropped the back-reference still routes to the old Work: %+v", got[1])
	}
	if got[2].Type != ObjectDeleted || got[2].Work.Name != "w2" {
		t.Errorf("tombstone: %+v", got[2])
	}
}

func TestStripManagedFields(t *testing.T) {
	u := member(true, "w")
	out, err := stripManagedFields(u)
	if err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(out.(*unstructured.Unstructured).Object, "metadata", "managedFields"); found {
		t.Fatal("managedFields kept")
	}
}
