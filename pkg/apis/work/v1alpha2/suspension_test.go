package v1alpha2

import (
	"testing"

	"k8s.io/utils/ptr"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

func TestDispatchingSuspendedOn(t *testing.T) {
	onMember2 := &policyv1alpha1.SuspendClusters{ClusterNames: []string{"member2"}}
	for _, tc := range []struct {
		name       string
		suspension *Suspension
		member1    bool
		member2    bool
	}{
		{"no suspension", nil, false, false},
		{"scheduling only", &Suspension{Scheduling: ptr.To(true)}, false, false},
		{"dispatching false", &Suspension{Suspension: policyv1alpha1.Suspension{Dispatching: ptr.To(false)}}, false, false},
		{"dispatching", &Suspension{Suspension: policyv1alpha1.Suspension{Dispatching: ptr.To(true)}}, true, true},
		{"on member2", &Suspension{Suspension: policyv1alpha1.Suspension{DispatchingOnClusters: onMember2}}, false, true},
		{"dispatching false, on member2", &Suspension{Suspension: policyv1alpha1.Suspension{Dispatching: ptr.To(false), DispatchingOnClusters: onMember2}}, false, true},
		{"no cluster listed", &Suspension{Suspension: policyv1alpha1.Suspension{DispatchingOnClusters: &policyv1alpha1.SuspendClusters{}}}, false, false},
	} {
		if got := tc.suspension.DispatchingSuspendedOn("member1"); got != tc.member1 {
			t.Errorf("%s: member1 suspended %v, want %v", tc.name, got, tc.member1)
		}
		if got := tc.suspension.DispatchingSuspendedOn("member2"); got != tc.member2 {
			t.Errorf("%s: member2 suspended %v, want %v", tc.name, got, tc.member2)
		}
	}
}
