package templatecontroller

import "testing"

func TestIDWaiters(t *testing.T) {
	w := newIDWaiters()
	a := Key{Namespace: "default", Name: "a"}
	b := Key{Namespace: "default", Name: "b"}
	if !w.park("default/p", a) || !w.park("default/p", b) || !w.park("default/q", a) {
		t.Fatal("parking before the id is known must succeed")
	}
	if got := w.idKnown("default/p"); len(got) != 2 {
		t.Fatalf("woken %v, want a and b", got)
	}
	if w.park("default/p", a) {
		t.Error("once the id is known, park must tell the caller to retry at once")
	}
	if got := w.idKnown("default/p"); len(got) != 0 {
		t.Errorf("woken twice: %v", got)
	}
	w.idLost("default/p")
	if !w.park("default/p", a) {
		t.Error("after the id label is removed, templates must park again")
	}
	w.forget("default/q")
	if got := w.idKnown("default/q"); len(got) != 0 {
		t.Errorf("a deleted policy's waiters must be dropped: %v", got)
	}
}
