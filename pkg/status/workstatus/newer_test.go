package workstatus

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func withRV(rv string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetResourceVersion(rv)
	return u
}

// TestNewerPrefersTheLaterVersion: the applied object is reflected unless
// the member cache already holds a later version (a member event folded
// into the reconcile that carries the Outcome).
func TestNewerPrefersTheLaterVersion(t *testing.T) {
	cases := []struct {
		cached, applied string
		noApplied       bool
		want            bool
	}{
		{cached: "2096", applied: "2089", want: true},
		{cached: "10000", applied: "9999", want: true},
		{cached: "2089", applied: "2089", want: false},
		{cached: "2089", applied: "2096", want: false},
		{cached: "abc", applied: "2096", want: false},
		{cached: "5", noApplied: true, want: true},
	}
	for _, c := range cases {
		var applied *unstructured.Unstructured
		if !c.noApplied {
			applied = withRV(c.applied)
		}
		if got := newer(withRV(c.cached), applied); got != c.want {
			t.Errorf("newer(cached %q, applied %q) = %v, want %v", c.cached, c.applied, got, c.want)
		}
	}
}
