package scheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
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

// TestOvercommitIntegration submits 200 Divided bindings (Aggregated and
// DynamicWeight, 3 replicas of 1 CPU each) at once against three clusters
// that hold 100 + 60 + 40 replicas, scheduled by the real controller with 8
// workers on a real API server. With the assume cache no cluster gets more
// than it can run. The same burst handled by a scheduler with the cache
// disabled (another schedulerName, other clusters of the same capacity)
// overcommits: that is what the first check would catch without the cache.
func TestOvercommitIntegration(t *testing.T) {
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	capacity := map[string]int64{"cap-a": 100, "cap-b": 60, "cap-c": 40}
	for _, prefix := range []string{"assume", "noassume"} {
		for name, cpus := range capacity {
			createCapacityCluster(ctx, t, env.Client, prefix+"-"+name, cpus)
		}
	}
	mgr, err := ctrl.NewManager(env.ControllerManagerConfig(), ctrl.Options{
		Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{SchedulerName: "assume"}, {SchedulerName: "noassume", DisableAssume: true}} {
		s, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetupWithManager(mgr); err != nil {
			t.Fatal(err)
		}
	}
	go func() { _ = mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("cache did not sync")
	}

	placed := func(prefix string) map[string]int64 {
		t.Helper()
		var objs []client.Object
		for i := range 200 {
			objs = append(objs, burstBinding(prefix, i, capacity))
		}
		if err := harness.CreateConcurrently(ctx, env.Client, 20, objs); err != nil {
			t.Fatal(err)
		}
		sums := map[string]int64{}
		harness.Eventually(t, "200 "+prefix+" bindings have a Scheduled condition", func(ctx context.Context) (bool, error) {
			list := &workv1alpha2.ResourceBindingList{}
			if err := env.Client.List(ctx, list, client.InNamespace("default"), client.MatchingLabels{"burst": prefix}); err != nil {
				return false, err
			}
			done := 0
			clear(sums)
			for _, rb := range list.Items {
				if meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled) != nil {
					done++
				}
				for _, tc := range rb.Spec.Clusters {
					sums[tc.Name] += int64(tc.Replicas)
				}
			}
			return done == 200, nil
		}, harness.Timeout(2*time.Minute))
		return sums
	}

	with := placed("assume")
	total := int64(0)
	for name, limit := range capacity {
		total += with["assume-"+name]
		if with["assume-"+name] > limit {
			t.Errorf("cluster assume-%s got %d replicas, it can run %d", name, with["assume-"+name], limit)
		}
	}
	if total < 200-3*2 {
		t.Errorf("only %d replicas placed; the clusters hold 200", total)
	}
	without := placed("noassume")
	over := false
	for name, limit := range capacity {
		over = over || without["noassume-"+name] > limit
	}
	t.Logf("placed with the assume cache: %v; without: %v (capacity %v)", with, without, capacity)
	if !over {
		t.Errorf("without the assume cache nothing was overcommitted (%v): the burst does not exercise the cache", without)
	}
}

func createCapacityCluster(ctx context.Context, t *testing.T, c client.Client, name string, cpus int64) {
	t.Helper()
	cl := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push},
	}
	if err := c.Create(ctx, cl); err != nil {
		t.Fatalf("create cluster %s: %v", name, err)
	}
	cl.Status = clusterv1alpha1.ClusterStatus{
		APIEnablements: []clusterv1alpha1.APIEnablement{{GroupVersion: "apps/v1", Resources: []clusterv1alpha1.APIResource{{Name: "deployments", Kind: "Deployment"}}}},
		Conditions: []metav1.Condition{
			{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue, Reason: "ClusterReady", Message: "ready", LastTransitionTime: metav1.Now()},
		},
		ResourceSummary: &clusterv1alpha1.ResourceSummary{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: *resource.NewQuantity(cpus, resource.DecimalSI), corev1.ResourceMemory: resource.MustParse("1000Gi"), corev1.ResourcePods: resource.MustParse("1000"),
		}},
	}
	if err := c.Status().Update(ctx, cl); err != nil {
		t.Fatalf("update status of cluster %s: %v", name, err)
	}
}

// burstBinding is binding i of a burst for scheduler prefix over the
// prefix's clusters: Aggregated for even i, DynamicWeight for odd i.
func burstBinding(prefix string, i int, capacity map[string]int64) *workv1alpha2.ResourceBinding {
	var clusterNames []string
	for name := range capacity {
		clusterNames = append(clusterNames, prefix+"-"+name)
	}
	rs := &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided}
	if i%2 == 0 {
		rs.ReplicaDivisionPreference = policyv1alpha1.ReplicaDivisionPreferenceAggregated
	} else {
		rs.ReplicaDivisionPreference = policyv1alpha1.ReplicaDivisionPreferenceWeighted
		rs.WeightPreference = &policyv1alpha1.ClusterPreferences{DynamicWeight: policyv1alpha1.DynamicWeightByAvailableReplicas}
	}
	name := fmt.Sprintf("%s-%d", prefix, i)
	return &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-deployment", Namespace: "default",
			Labels: map[string]string{names.PropagationPolicyPermanentIDLabel: "pp-" + prefix, "burst": prefix}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource:      workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
			Replicas:      3,
			SchedulerName: prefix,
			ReplicaRequirements: &workv1alpha2.ReplicaRequirements{ResourceRequest: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Mi"),
			}},
			Placement: &policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: clusterNames}, ReplicaScheduling: rs},
		},
	}
}
