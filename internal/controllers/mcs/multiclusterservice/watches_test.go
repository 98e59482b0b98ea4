package multiclusterservice

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/controllers/mcs/clusterset"
	"github.com/propel-mc/propel/pkg/apis"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
)

// TestForClusterEvent: a cluster event concerns the MCSs that the
// caller's test passes, and only those.
func TestForClusterEvent(t *testing.T) {
	consumedBy := func(name, consumer string) *networkingv1alpha1.MultiClusterService {
		return &networkingv1alpha1.MultiClusterService{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
			Spec: networkingv1alpha1.MultiClusterServiceSpec{ConsumerClusters: []networkingv1alpha1.ClusterSelector{{Name: consumer}}}}
	}
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(consumedBy("web", "member1"), consumedBy("api", "member2")).Build()
	got := ForClusterEvent(context.Background(), c, "member1", func(mcs *networkingv1alpha1.MultiClusterService) bool {
		return clusterset.Selects(mcs.Spec.ConsumerClusters, "member1")
	})
	if len(got) != 1 || got[0].Name != "web" {
		t.Errorf("MCSs %v, want only ns/web", got)
	}
}
