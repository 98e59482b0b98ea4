package application

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/pkg/apis"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

type healthHooks bool

func (h healthHooks) HookEnabled(schema.GroupVersionKind, configv1alpha1.InterpreterOperation) bool {
	return bool(h)
}

type fixture struct {
	c   client.Client
	r   *reconciler
	now time.Time
}

func newFixture(t *testing.T, opts Options, k kind, objs ...client.Object) *fixture {
	t.Helper()
	f := &fixture{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	f.c = fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(objs...).Build()
	f.r = &reconciler{
		Deps: Deps{Client: f.c, Interpreter: healthHooks(true), Recorder: record.NewFakeRecorder(10)},
		opts: opts, kind: k, since: newUnhealthySince(), now: func() time.Time { return f.now },
	}
	return f
}

func (f *fixture) reconcile(t *testing.T, b client.Object) reconcile.Result {
	t.Helper()
	res, err := f.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(b)})
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	return res
}

func (f *fixture) get(t *testing.T, b workv1alpha2.Binding) workv1alpha2.Binding {
	t.Helper()
	if err := f.c.Get(context.Background(), client.ObjectKeyFromObject(b), b); err != nil {
		t.Fatal(err)
	}
	return b
}

func rb(mode policyv1alpha1.PurgeMode, health ...workv1alpha2.ResourceHealth) *workv1alpha2.ResourceBinding {
	b := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app-deployment"}}
	b.Spec.Resource = workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "app"}
	b.Spec.PropagateDeps = true
	b.Spec.Failover = &policyv1alpha1.FailoverBehavior{Application: &policyv1alpha1.ApplicationFailoverBehavior{
		DecisionConditions: policyv1alpha1.DecisionConditions{TolerationSeconds: ptr.To[int32](30)},
		PurgeMode:          mode, GracePeriodSeconds: ptr.To[int32](600),
	}}
	for i, h := range health {
		name := []string{"member1", "member2", "member3"}[i]
		b.Spec.Clusters = append(b.Spec.Clusters, workv1alpha2.TargetCluster{Name: name, Replicas: 1})
		b.Status.AggregatedStatus = append(b.Status.AggregatedStatus, workv1alpha2.AggregatedStatusItem{
			ClusterName: name, Health: h, Status: &runtime.RawExtension{Raw: []byte(`{"updatedReplicas":1}`)},
		})
	}
	return b
}

// TestTolerationThenEviction follows example (b) of the reference:
// member2 is recorded, requeued after tolerationSeconds and evicted once
// they have passed.
func TestTolerationThenEviction(t *testing.T) {
	b := rb(policyv1alpha1.PurgeModeGracefully, workv1alpha2.ResourceHealthy, workv1alpha2.ResourceUnhealthy)
	f := newFixture(t, Options{GracefulEviction: true}, kinds[0], b)
	if res := f.reconcile(t, b); res.RequeueAfter != 30*time.Second {
		t.Fatalf("first pass requeues after %v, want 30s", res.RequeueAfter)
	}
	f.now = f.now.Add(10*time.Second + 500*time.Millisecond)
	if res := f.reconcile(t, b); res.RequeueAfter != 20*time.Second {
		t.Fatalf("second pass requeues after %v, want 20s (whole seconds elapsed)", res.RequeueAfter)
	}
	if got := f.get(t, b).BindingSpec(); len(got.GracefulEvictionTasks) != 0 {
		t.Fatalf("evicted before tolerationSeconds: %+v", got.GracefulEvictionTasks)
	}
	f.now = f.now.Add(20 * time.Second)
	if res := f.reconcile(t, b); res.RequeueAfter != 0 {
		t.Errorf("requeue after the eviction: %v", res.RequeueAfter)
	}
	spec := f.get(t, b).BindingSpec()
	want := workv1alpha2.GracefulEvictionTask{
		FromCluster: "member2", PurgeMode: policyv1alpha1.PurgeModeGracefully, Replicas: ptr.To[int32](1),
		Reason: "ApplicationFailure", Producer: "resource-binding-application-failover-controller", GracePeriodSeconds: ptr.To[int32](600),
	}
	if len(spec.GracefulEvictionTasks) != 1 || len(spec.Clusters) != 1 || spec.Clusters[0].Name != "member1" {
		t.Fatalf("clusters %v, tasks %+v", spec.Clusters, spec.GracefulEvictionTasks)
	}
	got := spec.GracefulEvictionTasks[0]
	if got.FromCluster != want.FromCluster || got.PurgeMode != want.PurgeMode || *got.Replicas != 1 || got.Reason != want.Reason ||
		got.Producer != want.Producer || *got.GracePeriodSeconds != 600 || got.SuppressDeletion != nil || got.PreservedLabelState != nil {
		t.Errorf("task %+v, want %+v", got, want)
	}
}

// TestRecoveryRestartsTheClock: Healthy (or Unknown) in between erases
// the record, so the tolerance starts again.
func TestRecoveryRestartsTheClock(t *testing.T) {
	b := rb(policyv1alpha1.PurgeModeDirectly, workv1alpha2.ResourceUnhealthy)
	f := newFixture(t, Options{}, kinds[0], b)
	f.reconcile(t, b)
	b = f.get(t, b).(*workv1alpha2.ResourceBinding)
	b.Status.AggregatedStatus[0].Health = workv1alpha2.ResourceUnknown
	if err := f.c.Update(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(time.Minute)
	if res := f.reconcile(t, b); res.RequeueAfter != 0 {
		t.Errorf("Unknown requeued after %v", res.RequeueAfter)
	}
	b = f.get(t, b).(*workv1alpha2.ResourceBinding)
	b.Status.AggregatedStatus[0].Health = workv1alpha2.ResourceUnhealthy
	if err := f.c.Update(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if res := f.reconcile(t, b); res.RequeueAfter != 30*time.Second {
		t.Errorf("unhealthy again requeued after %v, want a fresh 30s", res.RequeueAfter)
	}
	if tasks := f.get(t, b).BindingSpec().GracefulEvictionTasks; len(tasks) != 0 {
		t.Errorf("evicted although the copy recovered in between: %+v", tasks)
	}
}

// TestPurgeModes: Never suppresses deletion; Directly has no extras;
// Gracefully is refused with the GracefulEviction gate off; the state is
// preserved with StatefulFailoverInjection.
func TestPurgeModes(t *testing.T) {
	evict := func(t *testing.T, opts Options, b *workv1alpha2.ResourceBinding) (workv1alpha2.Binding, error) {
		f := newFixture(t, opts, kinds[0], b)
		f.reconcile(t, b)
		f.now = f.now.Add(31 * time.Second)
		_, err := f.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(b)})
		return f.get(t, b), err
	}
	t.Run("never", func(t *testing.T) {
		got, err := evict(t, Options{}, rb(policyv1alpha1.PurgeModeNever, workv1alpha2.ResourceUnhealthy))
		if err != nil {
			t.Fatal(err)
		}
		task := got.BindingSpec().GracefulEvictionTasks[0]
		if !ptr.Equal(task.SuppressDeletion, ptr.To(true)) || task.GracePeriodSeconds != nil {
			t.Errorf("task %+v, want suppressDeletion true and no gracePeriodSeconds", task)
		}
	})
	t.Run("gracefully with the gate off", func(t *testing.T) {
		got, err := evict(t, Options{GracefulEviction: false}, rb(policyv1alpha1.PurgeModeGracefully, workv1alpha2.ResourceUnhealthy))
		if !errors.Is(err, errGracefulEvictionDisabled) {
			t.Errorf("error %v, want %v", err, errGracefulEvictionDisabled)
		}
		if len(got.BindingSpec().GracefulEvictionTasks) != 0 {
			t.Errorf("evicted with the gate off")
		}
	})
	t.Run("directly with state preservation", func(t *testing.T) {
		b := rb(policyv1alpha1.PurgeModeDirectly, workv1alpha2.ResourceHealthy, workv1alpha2.ResourceUnhealthy)
		b.Spec.Failover.Application.StatePreservation = &policyv1alpha1.StatePreservation{Rules: []policyv1alpha1.StatePreservationRule{
			{AliasLabelName: "example.com/updated", JSONPath: "{.updatedReplicas}"},
		}}
		got, err := evict(t, Options{StatePreservation: true}, b)
		if err != nil {
			t.Fatal(err)
		}
		task := got.BindingSpec().GracefulEvictionTasks[0]
		if task.PreservedLabelState["example.com/updated"] != "1" || len(task.ClustersBeforeFailover) != 2 || task.SuppressDeletion != nil {
			t.Errorf("task %+v, want the preserved state and clusters [member1 member2]", task)
		}
	})
	t.Run("bad jsonPath blocks the eviction", func(t *testing.T) {
		b := rb(policyv1alpha1.PurgeModeDirectly, workv1alpha2.ResourceUnhealthy)
		b.Spec.Failover.Application.StatePreservation = &policyv1alpha1.StatePreservation{Rules: []policyv1alpha1.StatePreservationRule{
			{AliasLabelName: "example.com/x", JSONPath: "{.missing}"},
		}}
		got, err := evict(t, Options{StatePreservation: true}, b)
		if err == nil || len(got.BindingSpec().GracefulEvictionTasks) != 0 {
			t.Errorf("error %v, tasks %+v: want an error and no eviction", err, got.BindingSpec().GracefulEvictionTasks)
		}
	})
}

// TestEligibility: RB needs propagateDeps, CRB does not; no health hook,
// no failover.
func TestEligibility(t *testing.T) {
	b := rb(policyv1alpha1.PurgeModeDirectly, workv1alpha2.ResourceUnhealthy)
	b.Spec.PropagateDeps = false
	f := newFixture(t, Options{}, kinds[0], b)
	if res := f.reconcile(t, b); res.RequeueAfter != 0 {
		t.Errorf("RB without propagateDeps was timed")
	}
	crb := &workv1alpha2.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "reader-clusterrole"}, Spec: b.Spec, Status: b.Status}
	f = newFixture(t, Options{}, kinds[1], crb)
	if res := f.reconcile(t, crb); res.RequeueAfter != 30*time.Second {
		t.Errorf("CRB without propagateDeps was not timed (requeue %v)", res.RequeueAfter)
	}
	f.r.Interpreter = healthHooks(false)
	if res := f.reconcile(t, crb); res.RequeueAfter != 0 {
		t.Errorf("kind without a health hook was timed")
	}
}
