// Package eventfilter builds the predicates controllers filter their
// watches with: which kinds of event pass whole (Only), and which updates
// pass by comparing the old and the new object of their type (UpdatesOf).
// A controller states what reconciles it instead of spelling out
// predicate.Funcs with a function per kind that answers false.
package eventfilter

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// Kind is a kind of watch event.
type Kind int

// The kinds of watch event. Creates include the objects of the initial
// list (and of every resync of it).
const (
	Creates Kind = iota
	Updates
	Deletes
	Generics
)

// Only passes the events of the kinds given and no others.
func Only(kinds ...Kind) predicate.Funcs {
	pass := make(map[Kind]bool, len(kinds))
	for _, k := range kinds {
		pass[k] = true
	}
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return pass[Creates] },
		UpdateFunc:  func(event.UpdateEvent) bool { return pass[Updates] },
		DeleteFunc:  func(event.DeleteEvent) bool { return pass[Deletes] },
		GenericFunc: func(event.GenericEvent) bool { return pass[Generics] },
	}
}

// UpdatesOf passes the updates of a T for which changed(old, new) holds,
// and the events of the kinds in also whole (Updates in also changes
// nothing). An update whose objects are not both a T does not pass: the
// watch that uses the filter is of T.
func UpdatesOf[T client.Object](changed func(old, new T) bool, also ...Kind) predicate.Funcs {
	f := Only(also...)
	f.UpdateFunc = func(e event.UpdateEvent) bool {
		o, okOld := e.ObjectOld.(T)
		n, okNew := e.ObjectNew.(T)
		return okOld && okNew && changed(o, n)
	}
	return f
}
