package deploymentreplicassyncer

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func deployment(spec, status int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", Labels: map[string]string{names.RetainReplicasLabel: "true"}},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(spec)},
		Status:     appsv1.DeploymentStatus{Replicas: status},
	}
}

// dividedBinding is scheduled for replicas with each member's reported
// Deployment replicas.
func dividedBinding(t *testing.T, replicas int32, reported map[string]int32) *workv1alpha2.ResourceBinding {
	rb := &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: names.BindingName("Deployment", "web"), Generation: 2},
		Spec: workv1alpha2.ResourceBindingSpec{
			Replicas: replicas,
			Placement: &policyv1alpha1.Placement{ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
				ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided,
			}},
		},
		Status: workv1alpha2.ResourceBindingStatus{SchedulerObservedGeneration: 2},
	}
	for cluster, n := range reported {
		raw, err := json.Marshal(appsv1.DeploymentStatus{Replicas: n})
		if err != nil {
			t.Fatal(err)
		}
		rb.Spec.Clusters = append(rb.Spec.Clusters, workv1alpha2.TargetCluster{Name: cluster, Replicas: n})
		rb.Status.AggregatedStatus = append(rb.Status.AggregatedStatus, workv1alpha2.AggregatedStatusItem{ClusterName: cluster, Status: &runtime.RawExtension{Raw: raw}})
	}
	return rb
}

func run(t *testing.T, objs ...client.Object) (reconcile.Result, *appsv1.Deployment) {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(objs...).Build()
	res, err := New(Deps{Client: c}).Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "web"}})
	if err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "web"}, d); err != nil {
		t.Fatal(err)
	}
	return res, d
}

// TestReplicasFollowReportedStatus: the members' replicas (scaled there
// by their HPAs) become the template's spec.replicas once all reported.
func TestReplicasFollowReportedStatus(t *testing.T) {
	_, got := run(t, deployment(4, 7), dividedBinding(t, 4, map[string]int32{"m1": 3, "m2": 4}))
	if *got.Spec.Replicas != 7 {
		t.Errorf("spec.replicas = %d, want the reported 7", *got.Spec.Replicas)
	}
}

// TestWaitsForEveryMember: a member that has not reported leaves the
// template alone and the check comes back soon.
func TestWaitsForEveryMember(t *testing.T) {
	rb := dividedBinding(t, 4, map[string]int32{"m1": 3})
	rb.Spec.Clusters = append(rb.Spec.Clusters, workv1alpha2.TargetCluster{Name: "m2", Replicas: 1})
	res, got := run(t, deployment(4, 3), rb)
	if *got.Spec.Replicas != 4 || res.RequeueAfter != notReadyRetry {
		t.Errorf("spec.replicas = %d, requeue %v; want 4 and %v", *got.Spec.Replicas, res.RequeueAfter, time.Second)
	}
}

// TestDuplicatedBindingIsLeftAlone: only Divided placements sum replicas.
func TestDuplicatedBindingIsLeftAlone(t *testing.T) {
	rb := dividedBinding(t, 4, map[string]int32{"m1": 3, "m2": 4})
	rb.Spec.Placement.ReplicaScheduling.ReplicaSchedulingType = policyv1alpha1.ReplicaSchedulingTypeDuplicated
	_, got := run(t, deployment(4, 7), rb)
	if *got.Spec.Replicas != 4 {
		t.Errorf("spec.replicas = %d under a Duplicated placement", *got.Spec.Replicas)
	}
}
