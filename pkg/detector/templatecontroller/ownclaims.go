package templatecontroller

import "sync"

// ownClaims remembers the resourceVersion of each claim the controller
// wrote on a template, so the claim's own update event is not reconciled a
// second time: the reconcile that wrote it already handled that state. An
// entry lives until the template's next update event (or its deletion).
type ownClaims struct {
	m sync.Map // Key -> resourceVersion
}

func newOwnClaims() *ownClaims { return &ownClaims{} }

// wrote records that the controller's claim left k at resourceVersion rv.
func (o *ownClaims) wrote(k Key, rv string) { o.m.Store(k, rv) }

// isOwn reports (once) whether resourceVersion rv of k is exactly the
// version the controller's own claim wrote.
func (o *ownClaims) isOwn(k Key, rv string) bool {
	v, ok := o.m.LoadAndDelete(k)
	return ok && v == rv
}

func (o *ownClaims) forget(k Key) { o.m.Delete(k) }
