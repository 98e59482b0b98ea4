package membercluster

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/propel-mc/propel/internal/shared/names"
)

// EventType says what happened to a member object.
type EventType string

// Event types.
const (
	ObjectAdded   EventType = "Added"
	ObjectUpdated EventType = "Updated"
	ObjectDeleted EventType = "Deleted"
)

// ObjectEvent is a change of a member object that belongs to a Work.
// Old and New are decoded once for the event and shared by the handlers:
// handlers must not mutate them.
type ObjectEvent struct {
	Type    EventType
	Cluster string
	GVK     schema.GroupVersionKind
	// Work is the owning Work, from the object's work.karmada.io/namespace
	// and work.karmada.io/name annotations.
	Work types.NamespacedName
	// Old is the previous state (updates only).
	Old *unstructured.Unstructured
	// New is the current state, or the last known one on deletion.
	New *unstructured.Unstructured
}

// EventHandler receives member object events. It runs on the informer's
// goroutine and must not block.
type EventHandler func(ObjectEvent)

// OwningWork returns the Work an applied object points back to: it must be
// labelled karmada.io/managed=true and carry both Work annotations.
func OwningWork(obj *unstructured.Unstructured) (types.NamespacedName, bool) {
	if obj == nil || obj.GetLabels()[names.ManagedLabel] != names.TrueValue {
		return types.NamespacedName{}, false
	}
	a := obj.GetAnnotations()
	key := types.NamespacedName{Namespace: a[names.WorkNamespaceAnnotation], Name: a[names.WorkNameAnnotation]}
	return key, key.Namespace != "" && key.Name != ""
}

// routeTo adapts hs to one informer handler that drops objects without a
// Work back-reference (in their new or, for updates, old state) and
// decodes the others once for all of hs.
func routeTo(hs []EventHandler, cluster string, gvk schema.GroupVersionKind) cache.ResourceEventHandler {
	emit := func(t EventType, old, cur interface{}) {
		obj, prev := cachedObject(cur), cachedObject(old)
		if obj == nil {
			return
		}
		work, ok := obj.work, obj.owned
		if !ok {
			// A back-reference removed in the member still routes to the
			// Work that owned the object, so the Work repairs it.
			if prev == nil || !prev.owned {
				return
			}
			work = prev.work
		}
		ev := ObjectEvent{Type: t, Cluster: cluster, GVK: gvk, Work: work}
		var err error
		if ev.New, err = obj.Decode(); err != nil {
			return // cannot happen: the cache encoded it
		}
		if prev != nil {
			if ev.Old, err = prev.Decode(); err != nil {
				return
			}
		}
		for _, h := range hs {
			h(ev)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { emit(ObjectAdded, nil, obj) },
		UpdateFunc: func(old, cur interface{}) { emit(ObjectUpdated, old, cur) },
		DeleteFunc: func(obj interface{}) { emit(ObjectDeleted, nil, obj) },
	}
}
