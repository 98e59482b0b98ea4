package scheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/plugins"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestWorkloadAffinityIntegration queues, before the scheduler starts on
// a real API server, an anti-affinity group of 5 bindings and an affinity
// group of 5 over 5 clusters, one cluster each. Eight workers decide them
// in parallel, faster than the cache shows their writes: each decision
// must still see the ones before it. The anti-affinity group ends on 5
// different clusters, the affinity group on a single one; a sixth
// anti-affinity member finds no cluster, with Karmada's reason.
func TestWorkloadAffinityIntegration(t *testing.T) {
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	const n = 5
	for i := range n {
		createCapacityCluster(ctx, t, env.Client, fmt.Sprintf("wa-%d", i), 100)
	}
	var objs []client.Object
	for i := range n {
		objs = append(objs, groupBinding(fmt.Sprintf("ha-%d", i), "", "app=ha"), groupBinding(fmt.Sprintf("train-%d", i), "app=train", ""))
	}
	if err := harness.CreateConcurrently(ctx, env.Client, 10, objs); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(env.ControllerManagerConfig(), ctrl.Options{
		Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{WorkloadAffinity: true, Workers: 8})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()

	placed := func(prefix string) map[string]int {
		t.Helper()
		on := map[string]int{}
		harness.Eventually(t, fmt.Sprintf("%d %s bindings scheduled", n, prefix), func(ctx context.Context) (bool, error) {
			clear(on)
			for i := range n {
				rb := &workv1alpha2.ResourceBinding{}
				key := types.NamespacedName{Namespace: "default", Name: names.BindingName("Deployment", fmt.Sprintf("%s-%d", prefix, i))}
				if err := env.Client.Get(ctx, key, rb); err != nil {
					return false, err
				}
				if !meta.IsStatusConditionTrue(rb.Status.Conditions, workv1alpha2.Scheduled) || len(rb.Spec.Clusters) != 1 {
					return false, nil
				}
				on[rb.Spec.Clusters[0].Name]++
			}
			return true, nil
		}, harness.Timeout(time.Minute))
		return on
	}
	if on := placed("ha"); len(on) != n {
		t.Errorf("anti-affinity group placed %v, want one member on each of the %d clusters", on, n)
	}
	if on := placed("train"); len(on) != 1 {
		t.Errorf("affinity group placed %v, want every member on one cluster", on)
	}

	extra := groupBinding("ha-extra", "", "app=ha")
	if err := env.Client.Create(ctx, extra); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("0/%d clusters are available: %d %s.", n, n, plugins.ReasonAntiAffinityGroupHere)
	harness.Eventually(t, "the sixth anti-affinity member finds no cluster", func(ctx context.Context) (bool, error) {
		rb := &workv1alpha2.ResourceBinding{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(extra), rb); err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled)
		return c != nil && c.Reason == workv1alpha2.BindingReasonNoClusterFit && c.Message == want && len(rb.Spec.Clusters) == 0, nil
	}, harness.Timeout(time.Minute))
}

// groupBinding is the ResourceBinding of Deployment default/name in the
// given workload affinity groups, for one cluster of any.
func groupBinding(name, affinity, anti string) *workv1alpha2.ResourceBinding {
	return &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: names.BindingName("Deployment", name), Namespace: "default",
			Labels: map[string]string{names.PropagationPolicyPermanentIDLabel: "pp-groups"}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
			Replicas: 1,
			Placement: &policyv1alpha1.Placement{SpreadConstraints: []policyv1alpha1.SpreadConstraint{
				{SpreadByField: policyv1alpha1.SpreadByFieldCluster, MinGroups: 1, MaxGroups: 1},
			}},
			WorkloadAffinityGroups: &workv1alpha2.WorkloadAffinityGroups{AffinityGroup: affinity, AntiAffinityGroup: anti},
		},
	}
}
