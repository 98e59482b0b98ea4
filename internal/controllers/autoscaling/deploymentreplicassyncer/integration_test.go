package deploymentreplicassyncer_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/controllers/autoscaling/deploymentreplicassyncer"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestSyncer: a retain-replicas Deployment template divided 1:1 whose
// members run 3 and 2 replicas (as their HPAs decided) gets spec.replicas
// 5 once its aggregated status says 5 and every member has reported; one
// member short of reporting, it is left alone.
func TestSyncer(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := env.Client
	d := harness.Deployment("default", "web", map[string]string{names.RetainReplicasLabel: "true"})
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	rb := &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-deployment"},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "web", UID: types.UID("uid-web")},
			Replicas: 2,
			Placement: &policyv1alpha1.Placement{ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
				ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted}},
			Clusters: []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 1}, {Name: "member2", Replicas: 1}},
		},
	}
	if err := c.Create(ctx, rb); err != nil {
		t.Fatal(err)
	}
	reported := func(replicas ...int) {
		t.Helper()
		rb.Status.SchedulerObservedGeneration = rb.Generation
		rb.Status.AggregatedStatus = nil
		for i, r := range replicas {
			rb.Status.AggregatedStatus = append(rb.Status.AggregatedStatus, workv1alpha2.AggregatedStatusItem{
				ClusterName: rb.Spec.Clusters[i].Name, Applied: true,
				Status: &runtime.RawExtension{Raw: fmt.Appendf(nil, `{"replicas":%d}`, r)},
			})
		}
		if err := c.Status().Update(ctx, rb); err != nil {
			t.Fatal(err)
		}
	}
	setStatusReplicas := func(n int32) {
		t.Helper()
		if err := c.Get(ctx, client.ObjectKeyFromObject(d), d); err != nil {
			t.Fatal(err)
		}
		d.Status.Replicas = n
		if err := c.Status().Update(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	specReplicas := func(ctx context.Context) (int32, error) {
		got := &appsv1.Deployment{}
		err := c.Get(ctx, client.ObjectKeyFromObject(d), got)
		return *got.Spec.Replicas, err
	}
	if _, err := harness.RunManager(ctx, env.ControllerManagerConfig(), func(mgr manager.Manager) error {
		return deploymentreplicassyncer.New(deploymentreplicassyncer.Deps{Client: mgr.GetClient()}).SetupWithManager(mgr)
	}); err != nil {
		t.Fatal(err)
	}

	reported(3) // member2 has not reported
	setStatusReplicas(3)
	harness.Consistently(t, "the template keeps 2 replicas while member2 has not reported", 3*time.Second, func(ctx context.Context) error {
		if n, err := specReplicas(ctx); err != nil || n != 2 {
			t.Fatalf("spec.replicas %d (%v) before every member reported", n, err)
		}
		return nil
	})
	reported(3, 2)
	setStatusReplicas(5)
	harness.Eventually(t, "the template takes the members' 5 replicas", func(ctx context.Context) (bool, error) {
		n, err := specReplicas(ctx)
		return n == 5, err
	})
}
