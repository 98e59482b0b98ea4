// Package recorder is the one constructor of the event recorders
// controllers emit Events with. It lives beside the manager wiring but in
// its own leaf package, so that the controllers the wiring imports can
// call it too.
package recorder

import (
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// For returns mgr's recorder for the component name (the Event source).
// It is the core/v1 recorder on purpose: Karmada emits core/v1 Events, and
// the events.k8s.io recorder would change them on the wire.
func For(mgr manager.Manager, name string) record.EventRecorder {
	//lint:ignore SA1019 Karmada emits core/v1 Events; the events.k8s.io recorder would change them on the wire
	return mgr.GetEventRecorderFor(name)
}
