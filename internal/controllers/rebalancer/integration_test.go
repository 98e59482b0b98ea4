package rebalancer_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/controllers/rebalancer"
	"github.com/propel-mc/propel/internal/scheduling/scheduler"
	"github.com/propel-mc/propel/internal/shared/names"
	appsv1alpha1 "github.com/propel-mc/propel/pkg/apis/apps/v1alpha1"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestWorkloadRebalancer runs the rebalancer beside the scheduler on a real
// control plane (Cluster objects without members): a rebalancer makes the
// scheduler start again from the first clusterAffinities term, reports
// Successful / Failed per workload, takes spec changes and expires after
// its TTL.
func TestWorkloadRebalancer(t *testing.T) {
	if os.Getenv("PROPEL_TEST_LOG") != "" {
		ctrl.SetLogger(funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 2}))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := env.Client
	for _, name := range []string{"member1", "member2"} {
		createCluster(ctx, t, c, name)
	}
	if _, err := harness.RunManager(ctx, env.ControllerManagerConfig(), func(mgr ctrl.Manager) error {
		s, err := scheduler.New(scheduler.Options{})
		if err != nil {
			return err
		}
		if err := s.SetupWithManager(mgr); err != nil {
			return err
		}
		return rebalancer.New(rebalancer.Deps{Client: mgr.GetClient()}).SetupWithManager(mgr)
	}); err != nil {
		t.Fatal(err)
	}

	// member1 is tainted, so the binding lands on the backup term.
	setTaints(ctx, t, c, "member1", corev1.Taint{Key: "example.com/maintenance", Effect: corev1.TaintEffectNoSchedule})
	rb := newRB("app-deployment")
	if err := c.Create(ctx, rb); err != nil {
		t.Fatal(err)
	}
	scheduled := waitScheduled(t, c, "backup", "member2")
	// Untainting member1 does not move it back: nothing asks for a
	// reschedule.
	setTaints(ctx, t, c, "member1")
	// creationTimestamp and lastScheduledTime have whole seconds: the
	// rebalancer must be created in a later second to count.
	time.Sleep(time.Until(scheduled.Status.LastScheduledTime.Add(1100 * time.Millisecond)))
	if got := getRB(ctx, t, c); got.Status.SchedulerObservedAffinityName != "backup" {
		t.Fatalf("binding moved to %q before any rebalancer", got.Status.SchedulerObservedAffinityName)
	}

	app := appsv1alpha1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "app"}
	missing := appsv1alpha1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "missing"}
	wr := &appsv1alpha1.WorkloadRebalancer{
		ObjectMeta: metav1.ObjectMeta{Name: "move-app"},
		Spec:       appsv1alpha1.WorkloadRebalancerSpec{Workloads: []appsv1alpha1.ObjectReference{missing, app}},
	}
	if err := c.Create(ctx, wr); err != nil {
		t.Fatal(err)
	}
	got := waitResults(t, c, "move-app", 1, map[string]string{"app": "Successful", "missing": "Failed/ReferencedBindingNotFound"})
	if got.Status.ObservedWorkloads[0].Workload.Name != "app" {
		t.Errorf("observed workloads not sorted: %+v", got.Status.ObservedWorkloads)
	}
	if got.Status.FinishTime == nil {
		t.Error("finishTime not set once every workload has a result")
	}
	// The binding carries the rebalancer's creationTimestamp and the
	// scheduler starts again from the first term.
	after := waitScheduled(t, c, "primary", "member1")
	if at := after.Spec.RescheduleTriggeredAt; at == nil || !at.Equal(&got.CreationTimestamp) {
		t.Errorf("rescheduleTriggeredAt %v, want the rebalancer's creationTimestamp %v", at, got.CreationTimestamp)
	}

	// A spec change adds a workload: a cluster-scoped one, whose binding is
	// a ClusterResourceBinding; the earlier results are kept.
	crb := &workv1alpha2.ClusterResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: names.BindingName("ClusterRole", "reader")},
		Spec:       workv1alpha2.ResourceBindingSpec{Resource: workv1alpha2.ObjectReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "reader"}},
	}
	if err := c.Create(ctx, crb); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(wr), wr); err != nil {
		t.Fatal(err)
	}
	wr.Spec.Workloads = append(wr.Spec.Workloads, appsv1alpha1.ObjectReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "reader"})
	if err := c.Update(ctx, wr); err != nil {
		t.Fatal(err)
	}
	waitResults(t, c, "move-app", 2, map[string]string{"app": "Successful", "missing": "Failed/ReferencedBindingNotFound", "reader": "Successful"})
	if err := c.Get(ctx, client.ObjectKeyFromObject(crb), crb); err != nil {
		t.Fatal(err)
	}
	if at := crb.Spec.RescheduleTriggeredAt; at == nil || !at.Equal(&wr.CreationTimestamp) {
		t.Errorf("cluster resource binding rescheduleTriggeredAt %v, want %v", at, wr.CreationTimestamp)
	}

	// A rebalancer older than the binding's trigger leaves it alone but
	// still reports Successful; with a TTL it is deleted once finished.
	old := &appsv1alpha1.WorkloadRebalancer{
		ObjectMeta: metav1.ObjectMeta{Name: "short-lived"},
		Spec:       appsv1alpha1.WorkloadRebalancerSpec{Workloads: []appsv1alpha1.ObjectReference{app}, TTLSecondsAfterFinished: ptr.To[int32](2)},
	}
	future := metav1.NewTime(time.Now().Add(time.Hour).Truncate(time.Second))
	b := getRB(ctx, t, c)
	b.Spec.RescheduleTriggeredAt = &future
	if err := c.Update(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, old); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "rebalancer short-lived deleted after its TTL", func(ctx context.Context) (bool, error) {
		err := c.Get(ctx, client.ObjectKeyFromObject(old), &appsv1alpha1.WorkloadRebalancer{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	if at := getRB(ctx, t, c).Spec.RescheduleTriggeredAt; at == nil || !at.Equal(&future) {
		t.Errorf("an older rebalancer moved rescheduleTriggeredAt back to %v", at)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(wr), wr); err != nil {
		t.Errorf("rebalancer without TTL was deleted: %v", err)
	}
}

func createCluster(ctx context.Context, t *testing.T, c client.Client, name string) {
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
			{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue, Reason: "ClusterReady", Message: "cluster is healthy and ready to accept workloads", LastTransitionTime: metav1.Now()},
		},
	}
	if err := c.Status().Update(ctx, cl); err != nil {
		t.Fatalf("update status of cluster %s: %v", name, err)
	}
}

func setTaints(ctx context.Context, t *testing.T, c client.Client, name string, taints ...corev1.Taint) {
	t.Helper()
	var cl clusterv1alpha1.Cluster
	if err := c.Get(ctx, client.ObjectKey{Name: name}, &cl); err != nil {
		t.Fatal(err)
	}
	cl.Spec.Taints = taints
	if err := c.Update(ctx, &cl); err != nil {
		t.Fatal(err)
	}
}

// newRB is a Divided binding with two affinity terms: primary (member1),
// then backup (member2).
func newRB(name string) *workv1alpha2.ResourceBinding {
	return &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{names.PropagationPolicyPermanentIDLabel: "pp-1"}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "app", UID: "uid-app"},
			Replicas: 2,
			Placement: &policyv1alpha1.Placement{
				ClusterAffinities: []policyv1alpha1.ClusterAffinityTerm{
					{AffinityName: "primary", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}}},
					{AffinityName: "backup", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}}},
				},
				ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
					ReplicaSchedulingType:     policyv1alpha1.ReplicaSchedulingTypeDivided,
					ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
				},
			},
		},
	}
}

func getRB(ctx context.Context, t *testing.T, c client.Client) *workv1alpha2.ResourceBinding {
	t.Helper()
	rb := &workv1alpha2.ResourceBinding{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "app-deployment"}, rb); err != nil {
		t.Fatal(err)
	}
	return rb
}

// waitScheduled waits until the binding is scheduled under term onto
// cluster (all replicas) with the observed generation caught up.
func waitScheduled(t *testing.T, c client.Client, term, cluster string) *workv1alpha2.ResourceBinding {
	t.Helper()
	rb := &workv1alpha2.ResourceBinding{}
	harness.Eventually(t, "binding scheduled to "+cluster+" under "+term, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "app-deployment"}, rb); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled)
		ok := cond != nil && cond.Status == metav1.ConditionTrue && rb.Status.SchedulerObservedAffinityName == term &&
			len(rb.Spec.Clusters) == 1 && rb.Spec.Clusters[0].Name == cluster && rb.Status.SchedulerObservedGeneration == rb.Generation
		if ok {
			return true, nil
		}
		return false, fmt.Errorf("clusters %v, term %q, generation %d observed %d, condition %v", rb.Spec.Clusters, rb.Status.SchedulerObservedAffinityName, rb.Generation, rb.Status.SchedulerObservedGeneration, cond)
	})
	return rb
}

// waitResults waits for the rebalancer's status at generation gen to hold
// exactly want (workload name to "Result[/Reason]").
func waitResults(t *testing.T, c client.Client, name string, gen int64, want map[string]string) *appsv1alpha1.WorkloadRebalancer {
	t.Helper()
	wr := &appsv1alpha1.WorkloadRebalancer{}
	harness.Eventually(t, "rebalancer "+name+" results", func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Name: name}, wr); err != nil {
			return false, err
		}
		got := map[string]string{}
		for _, o := range wr.Status.ObservedWorkloads {
			r := string(o.Result)
			if o.Reason != "" {
				r += "/" + string(o.Reason)
			}
			got[o.Workload.Name] = r
		}
		if wr.Status.ObservedGeneration == gen && fmt.Sprint(got) == fmt.Sprint(want) {
			return true, nil
		}
		return false, fmt.Errorf("generation %d, results %v", wr.Status.ObservedGeneration, got)
	})
	return wr
}
