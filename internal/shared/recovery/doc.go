// Package recovery keeps a panic in an informer event handler from killing
// the process. client-go runs handlers on the informer's goroutines and
// re-panics whatever they panic with (HandleCrash), so one bad object or
// one bug in a handler would otherwise restart the controller manager and,
// seeing the same object again after the restart, crash it in a loop.
// Reconcile workers need no help: controller-runtime recovers their panics
// and requeues the item.
package recovery
