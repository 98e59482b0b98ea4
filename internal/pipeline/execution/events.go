package execution

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/shared/membercluster"
)

// Event reasons of the execution controller (Karmada's strings).
const (
	// EventReasonSyncSucceed is recorded on a template when its manifest
	// was created or updated in a member cluster, and on the Work when
	// any of its manifests was.
	EventReasonSyncSucceed = "SyncSucceed"
	// EventReasonSyncFailed is recorded on a template when its manifest
	// could not be applied, and on the Work when any could not.
	EventReasonSyncFailed = "SyncFailed"
	// EventReasonWorkDispatching is recorded on a Work when its
	// Dispatching condition changes: on its first dispatch, when its
	// dispatching is suspended and when it is resumed.
	EventReasonWorkDispatching = "WorkDispatching"
)

// ConflictResolutionRefusedMsgFormat is the error (kind, namespace, name,
// cluster, conflict-resolution annotation key) when an existing member
// object that Karmada does not manage is not overwritten.
const ConflictResolutionRefusedMsgFormat = "resource(kind=%s, %s/%s) already exists in the cluster %s and the %s strategy value is empty, Karmada will not manage this resource"

// onMemberEvent re-queues the Work of a member object when wantsEvent.
func (r *Reconciler) onMemberEvent(ev membercluster.ObjectEvent) {
	if r.wantsEvent(ev) {
		r.events.Enqueue(ev)
	}
}

// wantsEvent: a deletion (the object is recreated), or an add or update
// that is not the echo of Propel's own write (its resourceVersion differs
// from the recorded one) and, for updates, changed more than status and
// server-set metadata. Objects Propel has no record of are left to their
// Work's own reconcile.
func (r *Reconciler) wantsEvent(ev membercluster.ObjectEvent) bool {
	if ev.Type == membercluster.ObjectDeleted {
		return true
	}
	rec, ok := r.records.get(keyOf(ev.Cluster, ev.New))
	if !ok || rec.resourceVersion == ev.New.GetResourceVersion() {
		return false
	}
	return ev.Type != membercluster.ObjectUpdated || !sameContent(ev.Old, ev.New)
}

// sameContent compares two states of a member object, ignoring status and
// server-set metadata.
func sameContent(a, b *unstructured.Unstructured) bool {
	if a == nil || b == nil {
		return a == b
	}
	return objectsEqual(a.Object, b.Object)
}
