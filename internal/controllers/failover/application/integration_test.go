package application_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/controllermanager"
	"github.com/propel-mc/propel/internal/controllers/failover/application"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// The suite runs the whole controller manager, as the binary does, with
// gate StatefulFailoverInjection on, against a control plane and the
// default members: member1 runs workloads (kwok pods turn Ready), member2
// is a bare API server where the test writes the Deployment status itself.
var env *harness.Env

func TestMain(m *testing.M) {
	harness.Main(m, harness.Options{}, &env, startControllerManager)
}

func startControllerManager(ctx context.Context, e *harness.Env) error {
	logFile, err := os.Create(filepath.Join(e.LogDir, "propel-controller-manager.log"))
	if err != nil {
		return err
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(logFile), zap.UseDevMode(true)))
	o := controllermanager.NewOptions()
	o.Kubeconfig = e.ControllerManagerKubeconfig()
	o.Controllers = []string{"*", "scheduler"}
	o.LeaderElect = false
	o.MetricsBindAddress, o.HealthProbeBindAddress = "0", "0"
	o.ClusterStatusUpdateFrequency = 2 * time.Second
	if err := o.FeatureGates.Set(string(commandline.StatefulFailoverInjection) + "=true"); err != nil {
		return err
	}
	mgr, _, err := controllermanager.Build(ctx, o)
	if err != nil {
		return err
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "controller manager stopped:", err)
		}
	}()
	return nil
}

// preservedLabel carries member2's updatedReplicas to the new cluster.
const preservedLabel = "failover.propel.dev/updated-replicas"

// failoverPolicy places name on member2 first (affinity term "primary"),
// member1 as the fallback, with application failover after 2 s.
func failoverPolicy(name string, mode policyv1alpha1.PurgeMode) *policyv1alpha1.PropagationPolicy {
	app := &policyv1alpha1.ApplicationFailoverBehavior{
		DecisionConditions: policyv1alpha1.DecisionConditions{TolerationSeconds: ptr.To[int32](2)},
		PurgeMode:          mode,
		StatePreservation: &policyv1alpha1.StatePreservation{Rules: []policyv1alpha1.StatePreservationRule{
			{AliasLabelName: preservedLabel, JSONPath: "{.updatedReplicas}"},
		}},
	}
	if mode == policyv1alpha1.PurgeModeGracefully {
		// Karmada's webhook default.
		app.GracePeriodSeconds = ptr.To[int32](600)
	}
	return &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: name}},
			PropagateDeps:     true,
			Placement: policyv1alpha1.Placement{ClusterAffinities: []policyv1alpha1.ClusterAffinityTerm{
				{AffinityName: "primary", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}}},
				{AffinityName: "fallback", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}}},
			}},
			Failover: &policyv1alpha1.FailoverBehavior{Application: app},
		},
	}
}

// breakOnMember2 waits for name's copy on member2 and gives it the status
// of a rollout whose pods never become available.
func breakOnMember2(t *testing.T, name string) {
	t.Helper()
	member2, err := env.MemberClient("member2")
	if err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "unavailable status on member2's "+name, func(ctx context.Context) (bool, error) {
		d := &appsv1.Deployment{}
		if err := member2.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, d); err != nil {
			return false, err
		}
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 2, UpdatedReplicas: 2, UnavailableReplicas: 2}
		return true, member2.Status().Update(ctx, d)
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
}

// waitEvicted waits for the binding's task from member2 and returns it.
func waitEvicted(t *testing.T, name string) (*workv1alpha2.ResourceBinding, workv1alpha2.GracefulEvictionTask) {
	t.Helper()
	rb := &workv1alpha2.ResourceBinding{}
	harness.Eventually(t, "member2 evicted from "+name, func(ctx context.Context) (bool, error) {
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: names.BindingName("Deployment", name)}, rb); err != nil {
			return false, err
		}
		if len(rb.Spec.GracefulEvictionTasks) > 0 {
			return true, nil
		}
		return false, fmt.Errorf("clusters %v, aggregated status %+v", rb.Spec.Clusters, rb.Status.AggregatedStatus)
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	if n := len(rb.Spec.GracefulEvictionTasks); n != 1 {
		t.Fatalf("%d eviction tasks, want 1: %+v", n, rb.Spec.GracefulEvictionTasks)
	}
	task := rb.Spec.GracefulEvictionTasks[0]
	if task.FromCluster != "member2" || task.Reason != workv1alpha2.EvictionReasonApplicationFailure || task.Producer != application.ResourceBindingControllerName {
		t.Errorf("task %+v, want fromCluster member2, reason ApplicationFailure, producer %s", task, application.ResourceBindingControllerName)
	}
	if slices.ContainsFunc(rb.Spec.Clusters, func(tc workv1alpha2.TargetCluster) bool { return tc.Name == "member2" }) {
		t.Errorf("member2 still in spec.clusters %v", rb.Spec.Clusters)
	}
	if task.PreservedLabelState[preservedLabel] != "2" || !slices.Equal(task.ClustersBeforeFailover, []string{"member2"}) {
		t.Errorf("preservedLabelState %v, clustersBeforeFailover %v; want %s=2 and [member2]", task.PreservedLabelState, task.ClustersBeforeFailover, preservedLabel)
	}
	return rb, task
}

// member1Copy waits for name's Deployment on member1 and returns it with
// whether member2's copy still existed at that moment.
func member1Copy(t *testing.T, name string) (*appsv1.Deployment, bool) {
	t.Helper()
	member1, err := env.MemberClient("member1")
	if err != nil {
		t.Fatal(err)
	}
	member2, err := env.MemberClient("member2")
	if err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	var member2Exists bool
	harness.Eventually(t, name+" on member1", func(ctx context.Context) (bool, error) {
		if err := member1.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, d); err != nil {
			return false, err
		}
		err := member2.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &appsv1.Deployment{})
		if err != nil && !apierrors.IsNotFound(err) {
			return false, err
		}
		member2Exists = err == nil
		return true, nil
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	return d, member2Exists
}

// create makes name's Deployment and failover policy once both members are
// Ready: a member still tainted not-ready when the binding is first
// scheduled fails the "primary" term, and the scheduler rightly keeps the
// binding on the fallback term (member1) from then on.
func create(t *testing.T, name string, mode policyv1alpha1.PurgeMode) {
	t.Helper()
	for _, m := range []string{"member1", "member2"} {
		env.WaitClusterReady(t, m, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	}
	ctx := context.Background()
	if err := env.Client.Create(ctx, harness.Deployment("default", name, nil)); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, failoverPolicy(name, mode)); err != nil {
		t.Fatal(err)
	}
}

// TestDirectly: member2's copy is removed first, then member1 gets the
// workload with member2's preserved state as a label.
func TestDirectly(t *testing.T) {
	name := "app-directly"
	create(t, name, policyv1alpha1.PurgeModeDirectly)
	breakOnMember2(t, name)
	_, task := waitEvicted(t, name)
	if task.PurgeMode != policyv1alpha1.PurgeModeDirectly || task.GracePeriodSeconds != nil || task.SuppressDeletion != nil {
		t.Errorf("task %+v, want purgeMode Directly without gracePeriodSeconds or suppressDeletion", task)
	}
	d, member2Exists := member1Copy(t, name)
	if member2Exists {
		t.Error("member1 got the workload while member2's copy still existed (Directly removes it first)")
	}
	if got := d.Labels[preservedLabel]; got != "2" {
		t.Errorf("member1's Deployment label %s=%q, want the preserved 2 (labels %v)", preservedLabel, got, d.Labels)
	}
}

// TestGracefully: member1 gets the workload while member2's copy stays;
// no state is injected.
func TestGracefully(t *testing.T) {
	name := "app-gracefully"
	create(t, name, policyv1alpha1.PurgeModeGracefully)
	breakOnMember2(t, name)
	_, task := waitEvicted(t, name)
	if task.PurgeMode != policyv1alpha1.PurgeModeGracefully || !ptr.Equal(task.GracePeriodSeconds, ptr.To[int32](600)) {
		t.Errorf("task %+v, want purgeMode Gracefully with gracePeriodSeconds 600", task)
	}
	work := &workv1alpha1.Work{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: names.ExecutionSpace("member2"), Name: names.WorkName("Deployment", name, "default")}, work); err != nil || work.DeletionTimestamp != nil {
		t.Errorf("member2's Work was not kept while the Gracefully task lives: %v", err)
	}
	d, member2Exists := member1Copy(t, name)
	if !member2Exists {
		t.Error("member2's copy was gone when member1 got the workload (Gracefully keeps it until the new copy is healthy)")
	}
	if v, ok := d.Labels[preservedLabel]; ok {
		t.Errorf("Gracefully injected %s=%s into member1's Deployment", preservedLabel, v)
	}
}
