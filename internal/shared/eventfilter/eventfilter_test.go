package eventfilter_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/propel-mc/propel/internal/shared/eventfilter"
)

// passes reports which kinds of event f lets through for an update from
// old to new (and the other kinds for new).
func passes(f predicate.Funcs, old, new client.Object) map[eventfilter.Kind]bool {
	return map[eventfilter.Kind]bool{
		eventfilter.Creates:  f.Create(event.CreateEvent{Object: new}),
		eventfilter.Updates:  f.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: new}),
		eventfilter.Deletes:  f.Delete(event.DeleteEvent{Object: new}),
		eventfilter.Generics: f.Generic(event.GenericEvent{Object: new}),
	}
}

func configMap(data string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"k": data}}
}

func TestOnlyPassesTheKindsGiven(t *testing.T) {
	all := []eventfilter.Kind{eventfilter.Creates, eventfilter.Updates, eventfilter.Deletes, eventfilter.Generics}
	for _, kind := range all {
		got := passes(eventfilter.Only(kind), configMap("a"), configMap("b"))
		for _, k := range all {
			if got[k] != (k == kind) {
				t.Errorf("Only(%d): kind %d passes = %v", kind, k, got[k])
			}
		}
	}
	if got := passes(eventfilter.Only(), configMap("a"), configMap("b")); got[eventfilter.Creates] || got[eventfilter.Updates] || got[eventfilter.Deletes] || got[eventfilter.Generics] {
		t.Errorf("Only(): %v, want nothing passing", got)
	}
}

func TestUpdatesOfComparesTypedObjects(t *testing.T) {
	dataChanged := func(o, n *corev1.ConfigMap) bool { return o.Data["k"] != n.Data["k"] }
	f := eventfilter.UpdatesOf(dataChanged, eventfilter.Deletes)
	if got := passes(f, configMap("a"), configMap("b")); !got[eventfilter.Updates] || !got[eventfilter.Deletes] || got[eventfilter.Creates] || got[eventfilter.Generics] {
		t.Errorf("changed data: %v, want the update and deletes only", got)
	}
	if passes(f, configMap("a"), configMap("a"))[eventfilter.Updates] {
		t.Error("unchanged data passed")
	}
	if passes(f, &corev1.Secret{}, &corev1.Secret{})[eventfilter.Updates] {
		t.Error("an update of another type passed")
	}
}
