package names

import "testing"

func TestDerivedServiceName(t *testing.T) {
	if got, want := DerivedServiceName("foo"), "derived-foo"; got != want {
		t.Fatalf("DerivedServiceName(foo) = %q, want %q", got, want)
	}
}
