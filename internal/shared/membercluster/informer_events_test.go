package membercluster

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/propel-mc/propel/internal/shared/names"
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
	var second int
	h := routeTo([]EventHandler{func(ev ObjectEvent) { got = append(got, ev) }, func(ObjectEvent) { second++ }},
		"member1", schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	h.OnAdd(cached(t, member(true, "w1")), false)
	h.OnAdd(cached(t, member(false, "w1")), false) // not managed
	h.OnAdd(cached(t, member(true, "")), false)    // no back-reference
	h.OnUpdate(cached(t, member(true, "w1")), cached(t, member(true, "")))
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "default/c", Obj: cached(t, member(true, "w2"))})
	if second != len(got) {
		t.Errorf("second handler got %d events, first %d", second, len(got))
	}
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

// cached is obj as the informer's transform stores it.
func cached(t *testing.T, obj *unstructured.Unstructured) interface{} {
	t.Helper()
	out, err := compact(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCompactKeepsTheOwningWork: the rest of the compact form (JSON
// without managedFields, private decoded copies) is package compactcache's.
func TestCompactKeepsTheOwningWork(t *testing.T) {
	c := cached(t, member(true, "w")).(*compactObject)
	if c.Name != "c" || c.Namespace != "default" || !c.owned || c.work.Name != "w" {
		t.Fatalf("compact meta %+v", c)
	}
	if again, _ := compact(c); again != c {
		t.Fatal("compacting a compact object must return it unchanged")
	}
	back, err := c.Decode()
	if err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(back.Object, "metadata", "managedFields"); found {
		t.Fatal("managedFields kept")
	}
	if w, ok := OwningWork(back); !ok || w != c.work {
		t.Errorf("decoded object points to %v", w)
	}
}
