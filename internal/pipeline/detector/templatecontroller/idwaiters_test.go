package templatecontroller

import "testing"

func TestIDWaiters(t *testing.T) {
	w := newIDWaiters()
	a := Key{Namespace: "default", Name: "a"}
	b := Key{Namespace: "default", Name: "b"}
	if !w.park("default/p", a, false) || !w.park("default/p", b, false) || !w.park("default/q", a, false) {
		t.Fatal("parking before the id is known must succeed")
	}
	if got := w.idKnown("default/p"); len(got) != 2 {
		t.Fatalf("woken %v, want a and b", got)
	}
	if w.park("default/p", a, false) {
		t.Error("once the id is known, park must tell the caller to retry at once")
	}
	if got := w.idKnown("default/p"); len(got) != 0 {
		t.Errorf("woken twice: %v", got)
	}
	w.idLost("default/p")
	if !w.park("default/p", a, false) {
		t.Error("after the id label is removed, templates must park again")
	}
	w.forget("default/q")
	if got := w.idKnown("default/q"); len(got) != 0 {
		t.Errorf("a deleted policy's waiters must be dropped: %v", got)
	}
}

// TestIDWaitersKeepLazyFlag: a template queued by a Lazy policy's pick-up
// stays lazy while it waits for the policy's id, unless a real change
// arrives meanwhile.
func TestIDWaitersKeepLazyFlag(t *testing.T) {
	w := newIDWaiters()
	a := Key{Namespace: "default", Name: "a"}
	b := Key{Namespace: "default", Name: "b"}
	w.park("default/p", a, true)
	w.park("default/p", b, true)
	w.park("default/p", b, false)
	got := w.idKnown("default/p")
	if !got[a] || got[b] {
		t.Errorf("woken %v, want a lazy and b not", got)
	}
}
