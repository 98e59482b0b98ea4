package scheduler

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestOvercommitProtectionIntegration schedules, with the
// SchedulingOvercommitProtection gate, FlinkDeployments (a job manager of
// 50m and a task manager of 100m, placed with no replica count) one at a
// time onto a cluster of 1 CPU whose resource summary never changes, as
// when no operator runs them, on a real API server: 6 fit and the 7th
// does not. Once the first reports Healthy there, its room is free again
// for the next one.
func TestOvercommitProtectionIntegration(t *testing.T) {
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	createCapacityCluster(ctx, t, env.Client, "protect-a", 1)
	c := &clusterv1alpha1.Cluster{}
	if err := env.Client.Get(ctx, types.NamespacedName{Name: "protect-a"}, c); err != nil {
		t.Fatal(err)
	}
	c.Status.APIEnablements = append(c.Status.APIEnablements, clusterv1alpha1.APIEnablement{
		GroupVersion: "flink.apache.org/v1beta1", Resources: []clusterv1alpha1.APIResource{{Name: "flinkdeployments", Kind: "FlinkDeployment"}}})
	if err := env.Client.Status().Update(ctx, c); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(env.ControllerManagerConfig(), ctrl.Options{
		Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{SchedulerName: "protect", OvercommitProtection: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()

	schedule := func(i int) *workv1alpha2.ResourceBinding {
		t.Helper()
		name := fmt.Sprintf("flink-%d", i)
		spec := flinkSpec(name)
		spec.Resource.Namespace = "default"
		spec.SchedulerName = "protect"
		spec.Placement = &policyv1alpha1.Placement{
			ClusterAffinity:   &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"protect-a"}},
			SpreadConstraints: []policyv1alpha1.SpreadConstraint{{SpreadByField: policyv1alpha1.SpreadByFieldCluster, MinGroups: 1, MaxGroups: 1}},
			ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
				ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceAggregated,
			},
		}
		rb := &workv1alpha2.ResourceBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name + "-flinkdeployment",
				Labels: map[string]string{names.PropagationPolicyPermanentIDLabel: "pp-flink"}},
			Spec: *spec,
		}
		if err := env.Client.Create(ctx, rb); err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, name+" has a Scheduled condition", func(ctx context.Context) (bool, error) {
			if err := env.Client.Get(ctx, types.NamespacedName{Namespace: "default", Name: rb.Name}, rb); err != nil {
				return false, err
			}
			return meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled) != nil, nil
		})
		return rb
	}
	var first *workv1alpha2.ResourceBinding
	for i := range 6 {
		rb := schedule(i)
		if c := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled); c.Status != metav1.ConditionTrue || formatTargets(rb.Spec.Clusters) != "protect-a:0" {
			t.Fatalf("%s: Scheduled %s (%s: %s) to %q; 6 sets of 150m fit in 1 CPU", rb.Name, c.Status, c.Reason, c.Message, formatTargets(rb.Spec.Clusters))
		}
		if i == 0 {
			first = rb
		}
	}
	rb := schedule(6)
	if c := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled); c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "no enough resource") {
		t.Fatalf("the 7th FlinkDeployment: Scheduled %s (%s: %s) to %q; want unschedulable, no enough resource", c.Status, c.Reason, c.Message, formatTargets(rb.Spec.Clusters))
	}

	// The first one runs: its cluster reports it Healthy.
	first.Status.AggregatedStatus = []workv1alpha2.AggregatedStatusItem{{ClusterName: "protect-a", Applied: true, Health: workv1alpha2.ResourceHealthy}}
	if err := env.Client.Status().Update(ctx, first); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the first FlinkDeployment's reservation released", func(context.Context) (bool, error) {
		pods, _ := s.assumed.Reserved("protect-a")
		return pods == 5*2, nil
	})
	rb = schedule(7)
	if c := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled); c.Status != metav1.ConditionTrue {
		t.Fatalf("after the first became Healthy: Scheduled %s (%s: %s); want the freed room used", c.Status, c.Reason, c.Message)
	}
}
