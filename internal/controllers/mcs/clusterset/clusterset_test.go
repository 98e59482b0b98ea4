package clusterset

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
)

func TestServesEndpointSlices(t *testing.T) {
	complete := []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionCompleteAPIEnablements, Status: metav1.ConditionTrue}}
	withSlices := []clusterv1alpha1.APIEnablement{{GroupVersion: "discovery.k8s.io/v1", Resources: []clusterv1alpha1.APIResource{{Name: "endpointslices", Kind: "EndpointSlice"}}}}
	for name, tc := range map[string]struct {
		conditions []metav1.Condition
		apis       []clusterv1alpha1.APIEnablement
		want       bool
	}{
		"complete list with EndpointSlice":    {complete, withSlices, true},
		"complete list without EndpointSlice": {complete, nil, false},
		"incomplete list counts as serving":   {nil, nil, true},
	} {
		c := &clusterv1alpha1.Cluster{Status: clusterv1alpha1.ClusterStatus{Conditions: tc.conditions, APIEnablements: tc.apis}}
		if got := ServesEndpointSlices(c); got != tc.want {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}

func TestSelects(t *testing.T) {
	if !Selects(nil, "member1") {
		t.Error("an empty list does not select every cluster")
	}
	list := []networkingv1alpha1.ClusterSelector{{Name: "member2"}}
	if Selects(list, "member1") || !Selects(list, "member2") {
		t.Error("a named list selects the wrong clusters")
	}
}

func TestFitnessChanged(t *testing.T) {
	ready := func(status metav1.ConditionStatus, heartbeat int64) *clusterv1alpha1.Cluster {
		return &clusterv1alpha1.Cluster{Status: clusterv1alpha1.ClusterStatus{
			Conditions: []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: status, ObservedGeneration: heartbeat}},
		}}
	}
	p := FitnessChanged()
	if p.Update(event.UpdateEvent{ObjectOld: ready(metav1.ConditionTrue, 1), ObjectNew: ready(metav1.ConditionTrue, 2)}) {
		t.Error("a status rewrite that changes no fitness passes")
	}
	if !p.Update(event.UpdateEvent{ObjectOld: ready(metav1.ConditionTrue, 1), ObjectNew: ready(metav1.ConditionFalse, 2)}) {
		t.Error("a cluster turning not Ready does not pass")
	}
}
