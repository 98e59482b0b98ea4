package enforcement

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/propel-mc/propel/internal/controllers/federatedquota/usage"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// A placement whose requirements request a negative quantity is refused
// before any quota is read or charged: charged, it would erase the usage
// the quotas record.
func TestAdmitRefusesNegativeRequest(t *testing.T) {
	spec := &workv1alpha2.ResourceBindingSpec{
		ReplicaRequirements: &workv1alpha2.ReplicaRequirements{ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("-100")}},
		Clusters:            []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 1}},
	}
	// No client: the refusal must come before the quotas are listed.
	err := (&Admitter{}).Admit(context.Background(), "ns", &workv1alpha2.ResourceBindingSpec{}, spec)
	if !errors.Is(err, usage.ErrNegativeCharge) || !strings.Contains(err.Error(), "spec.replicaRequirements.resourceRequest.cpu is -100") {
		t.Fatalf("got %v", err)
	}
}
