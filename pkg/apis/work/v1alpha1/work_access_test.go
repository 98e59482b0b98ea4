package v1alpha1

import (
	"testing"

	"k8s.io/utils/ptr"
)

func TestDispatchingSuspended(t *testing.T) {
	for _, tc := range []struct {
		flag *bool
		want bool
	}{{nil, false}, {ptr.To(false), false}, {ptr.To(true), true}} {
		w := &Work{Spec: WorkSpec{SuspendDispatching: tc.flag}}
		if got := w.DispatchingSuspended(); got != tc.want {
			t.Errorf("suspendDispatching %v: DispatchingSuspended() = %v, want %v", ptr.Deref(tc.flag, false), got, tc.want)
		}
	}
}
