package enforcement

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/pkg/apis"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func binding(namespace, name, cpu string, clusters ...workv1alpha2.TargetCluster) *workv1alpha2.ResourceBinding {
	return &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: workv1alpha2.ResourceBindingSpec{
			ReplicaRequirements: &workv1alpha2.ReplicaRequirements{ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}},
			Clusters:            clusters,
		},
	}
}

// TestOverallUsedFromTheNamespaceBindings: status.overall copies the spec
// and status.overallUsed sums the namespace's placements, restricted to
// the quota's resources; the reconcile comes back after the sync period.
func TestOverallUsedFromTheNamespaceBindings(t *testing.T) {
	frq := &policyv1alpha1.FederatedResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q"},
		Spec: policyv1alpha1.FederatedResourceQuotaSpec{Overall: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("10"), corev1.ResourceMemory: resource.MustParse("1Gi"),
		}},
	}
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithStatusSubresource(frq).WithObjects(frq,
		binding("ns", "a", "500m", workv1alpha2.TargetCluster{Name: "m1", Replicas: 2}, workv1alpha2.TargetCluster{Name: "m2", Replicas: 1}),
		binding("ns", "b", "1", workv1alpha2.TargetCluster{Name: "m1", Replicas: 1}),
		binding("other", "c", "4", workv1alpha2.TargetCluster{Name: "m1", Replicas: 1}),
	).Build()
	events := record.NewFakeRecorder(5)
	r := New(Deps{Client: c, Recorder: events}, Options{SyncPeriod: time.Minute})
	res, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "q"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter != time.Minute {
		t.Errorf("requeue after %v, want the sync period", res.RequeueAfter)
	}
	got := &policyv1alpha1.FederatedResourceQuota{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(frq), got); err != nil {
		t.Fatal(err)
	}
	cpu := got.Status.OverallUsed[corev1.ResourceCPU]
	if cpu.Cmp(resource.MustParse("2500m")) != 0 {
		t.Errorf("overallUsed cpu = %s, want 2500m (1.5 + 1, the other namespace not counted)", cpu.String())
	}
	if _, ok := got.Status.OverallUsed[corev1.ResourceMemory]; ok {
		t.Errorf("overallUsed has memory nobody requested: %v", got.Status.OverallUsed)
	}
	if len(got.Status.Overall) != 2 {
		t.Errorf("status.overall = %v", got.Status.Overall)
	}
	if e := <-events.Events; !strings.Contains(e, EventReasonCollectOverallStatusSucceed) {
		t.Errorf("event %q", e)
	}
}

func TestZeroSyncPeriodRefused(t *testing.T) {
	if err := New(Deps{}, Options{}).SetupWithManager(nil); err == nil || !strings.Contains(err.Error(), "--federated-resource-quota-sync-period") {
		t.Errorf("error %v, want one naming the flag", err)
	}
}
