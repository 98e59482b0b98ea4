package layer

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func TestCheckRequirements(t *testing.T) {
	ok := &workv1alpha2.ReplicaRequirements{ResourceRequest: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("0"),
	}}
	if err := CheckRequirements(ok); err != nil {
		t.Errorf("valid requirements: %v", err)
	}
	if err := CheckRequirements(nil); err != nil {
		t.Errorf("nil requirements: %v", err)
	}
	bad := &workv1alpha2.ReplicaRequirements{ResourceRequest: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("-100"), corev1.ResourceMemory: resource.MustParse("-1Gi"),
	}}
	err := CheckRequirements(bad)
	if !errors.Is(err, ErrNegativeRequest) || err.Error() != "resourceRequest.cpu is -100: resource requests must not be negative" {
		t.Errorf("got %v", err)
	}
}

func TestCheckComponents(t *testing.T) {
	comps := []workv1alpha2.Component{
		{Name: "main", Replicas: 2, ReplicaRequirements: &workv1alpha2.ComponentReplicaRequirements{ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}},
		{Name: "aux"},
	}
	if err := CheckComponents(comps); err != nil {
		t.Errorf("valid components: %v", err)
	}
	comps[1].ReplicaRequirements = &workv1alpha2.ComponentReplicaRequirements{ResourceRequest: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("-1")}}
	if err := CheckComponents(comps); !errors.Is(err, ErrNegativeRequest) || err.Error() != "components[1] (aux): replicaRequirements.resourceRequest.memory is -1: resource requests must not be negative" {
		t.Errorf("negative request: %v", err)
	}
	comps[0].Replicas = -3
	if err := CheckComponents(comps); !errors.Is(err, ErrInvalidReplicas) || err.Error() != "components[0] (main): replicas -3: replicas must be an integer between 0 and 2147483647" {
		t.Errorf("negative replicas: %v", err)
	}
}
