package failover

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "nginx",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi"),
					}},
				}}},
			},
		},
	}
}

// failoverPolicy is the ClusterTaintPolicy of Karmada's failover guide:
// NoExecute not-ready while Ready is not True.
func failoverPolicy() *policyv1alpha1.ClusterTaintPolicy {
	return &policyv1alpha1.ClusterTaintPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "failover-not-ready"},
		Spec: policyv1alpha1.ClusterTaintPolicySpec{
			AddOnConditions:    []policyv1alpha1.MatchCondition{{ConditionType: "Ready", Operator: "NotIn", StatusValues: []metav1.ConditionStatus{"True"}}},
			RemoveOnConditions: []policyv1alpha1.MatchCondition{{ConditionType: "Ready", Operator: "In", StatusValues: []metav1.ConditionStatus{"True"}}},
			Taints:             []policyv1alpha1.Taint{{Key: clusterv1alpha1.TaintClusterNotReady, Effect: corev1.TaintEffectNoExecute}},
		},
	}
}

func getBinding(ctx context.Context, name string) (*workv1alpha2.ResourceBinding, error) {
	rb := &workv1alpha2.ResourceBinding{}
	err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: names.BindingName("Deployment", name)}, rb)
	return rb, err
}

func replicasOf(rb *workv1alpha2.ResourceBinding) map[string]int32 {
	out := map[string]int32{}
	for _, tc := range rb.Spec.Clusters {
		out[tc.Name] = tc.Replicas
	}
	return out
}

// readyIn counts the Ready replicas of Deployment name in member.
func readyIn(ctx context.Context, member, name string) (int32, error) {
	c, err := env.MemberClient(member)
	if err != nil {
		return 0, err
	}
	d := &appsv1.Deployment{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, d); err != nil {
		return 0, err
	}
	return d.Status.ReadyReplicas, nil
}

func goneFrom(ctx context.Context, member, name string) (bool, error) {
	c, err := env.MemberClient(member)
	if err != nil {
		return false, err
	}
	err = c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &appsv1.Deployment{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}

func setTaints(ctx context.Context, cluster string, taints []corev1.Taint) error {
	c := &clusterv1alpha1.Cluster{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: cluster}, c); err != nil {
		return err
	}
	c.Spec.Taints = taints
	return env.Client.Update(ctx, c)
}

// schedulerSees waits until the scheduler places a probe Deployment on
// cluster alone, which it does only once its cache shows the cluster
// without a NoSchedule taint: the scheduler's cache itself is not
// observable from a test.
func schedulerSees(t *testing.T, cluster string, logs harness.PollOption) {
	t.Helper()
	ctx := context.Background()
	name := "probe-" + cluster
	probe := deployment(name, 1)
	pp := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: name}},
			Placement:         policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{cluster}}},
		},
	}
	for _, o := range []client.Object{pp, probe} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatalf("create probe %T: %v", o, err)
		}
	}
	defer func() {
		_ = env.Client.Delete(ctx, probe)
		_ = env.Client.Delete(ctx, pp)
	}()
	harness.Eventually(t, fmt.Sprintf("the scheduler places a probe on %s", cluster), func(ctx context.Context) (bool, error) {
		rb, err := getBinding(ctx, name)
		if err != nil {
			return false, client.IgnoreNotFound(err)
		}
		_, placed := replicasOf(rb)[cluster]
		return placed, nil
	}, logs)
}

// TestClusterFailover: a 2:1 Deployment on member1/member2 moves off
// member1 when its API server stops, member3 takes over its replicas, the
// eviction task ends once the new placement is healthy, and member1's old
// copy is removed when it comes back (purgeMode Gracefully).
func TestClusterFailover(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	logs := harness.LogsIn(env.LogDir)
	const name = "failover-web"

	// member3 is kept out of the first placement by a NoSchedule taint,
	// lifted once the workload runs: the scheduler only moves replicas
	// there when member1 is evicted.
	maintenance := corev1.Taint{Key: "example.io/maintenance", Effect: corev1.TaintEffectNoSchedule}
	harness.Eventually(t, "taint member3 NoSchedule", func(ctx context.Context) (bool, error) {
		return setTaints(ctx, "member3", []corev1.Taint{maintenance}) == nil, nil
	}, logs)

	ctp := failoverPolicy()
	deploy := deployment(name, 3)
	pp := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: name}},
			Placement: policyv1alpha1.Placement{
				ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1", "member2", "member3"}},
				ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
					ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
					WeightPreference: &policyv1alpha1.ClusterPreferences{StaticWeightList: []policyv1alpha1.StaticClusterWeight{
						{TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}}, Weight: 2},
						{TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}}, Weight: 1},
						{TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member3"}}, Weight: 1},
					}},
				},
			},
			Failover: &policyv1alpha1.FailoverBehavior{Cluster: &policyv1alpha1.ClusterFailoverBehavior{PurgeMode: policyv1alpha1.PurgeModeGracefully}},
		},
	}
	for _, o := range []client.Object{ctp, pp, deploy} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatalf("create %T: %v", o, err)
		}
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_ = env.Client.Delete(ctx, deploy)
		_ = env.Client.Delete(ctx, pp)
		_ = setTaints(ctx, "member3", nil)
	})

	for member, want := range map[string]int32{"member1": 2, "member2": 1} {
		harness.Eventually(t, fmt.Sprintf("%s runs %d Ready replicas", member, want), func(ctx context.Context) (bool, error) {
			n, err := readyIn(ctx, member, name)
			return n == want, client.IgnoreNotFound(err)
		}, harness.Timeout(3*time.Minute), logs)
	}
	harness.Eventually(t, "lift member3's NoSchedule taint", func(ctx context.Context) (bool, error) {
		return setTaints(ctx, "member3", nil) == nil, nil
	}, logs)

	schedulerSees(t, "member3", logs)
	history := &bindingHistory{}
	bindings := watchBindingInto(t, name, history)

	api := env.Member("member1").APIServer
	stopped := time.Now()
	api.Stop()
	down := true
	t.Cleanup(func() {
		if down {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := api.Start(ctx); err != nil {
				t.Errorf("restart member1: %v", err)
			}
		}
		env.WaitClusterReady(t, "member1", harness.Timeout(3*time.Minute), logs)
		harness.Eventually(t, "member1 loses its NoExecute taint", func(ctx context.Context) (bool, error) {
			c := &clusterv1alpha1.Cluster{}
			if err := env.Client.Get(ctx, client.ObjectKey{Name: "member1"}, c); err != nil {
				return false, err
			}
			return len(c.Spec.Taints) == 0, nil
		}, logs)
		_ = env.Client.Delete(context.Background(), ctp)
	})

	harness.Eventually(t, "member1 is tainted NoExecute", func(ctx context.Context) (bool, error) {
		c := &clusterv1alpha1.Cluster{}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: "member1"}, c); err != nil {
			return false, err
		}
		for _, taint := range c.Spec.Taints {
			if taint.Key == clusterv1alpha1.TaintClusterNotReady && taint.Effect == corev1.TaintEffectNoExecute {
				return taint.TimeAdded != nil, nil
			}
		}
		return false, nil
	}, harness.Timeout(time.Minute), logs)

	// The task may live only seconds (until member3 is healthy), shorter
	// than a poll: it is observed through a watch started before member1
	// stopped.
	var task workv1alpha2.GracefulEvictionTask
	harness.Eventually(t, "the binding leaves member1 with one eviction task", func(ctx context.Context) (bool, error) {
		for {
			select {
			case rb, ok := <-bindings:
				if !ok {
					return false, fmt.Errorf("binding watch closed")
				}
				if _, on := replicasOf(rb)["member1"]; on || len(rb.Spec.GracefulEvictionTasks) == 0 {
					continue
				}
				if n := len(rb.Spec.GracefulEvictionTasks); n != 1 {
					return false, fmt.Errorf("%d eviction tasks: %+v", n, rb.Spec.GracefulEvictionTasks)
				}
				task = rb.Spec.GracefulEvictionTasks[0]
				return true, nil
			default:
				return false, nil
			}
		}
	}, harness.Timeout(time.Minute), logs)
	if task.FromCluster != "member1" || task.Producer != "TaintManager" || task.Reason != "TaintUntolerated" ||
		task.PurgeMode != policyv1alpha1.PurgeModeGracefully || ptr.Deref(task.Replicas, 0) != 2 || task.CreationTimestamp == nil {
		t.Errorf("eviction task = %+v", task)
	}

	harness.Eventually(t, "member3 gets replicas and the binding sums to 3", func(ctx context.Context) (bool, error) {
		rb, err := getBinding(ctx, name)
		if err != nil {
			return false, err
		}
		r := replicasOf(rb)
		return r["member3"] > 0 && r["member2"]+r["member3"] == 3, nil
	}, harness.Timeout(time.Minute), logs)
	harness.Eventually(t, "3 Ready replicas on member2 and member3", func(ctx context.Context) (bool, error) {
		a, err := readyIn(ctx, "member2", name)
		if err != nil {
			return false, err
		}
		b, err := readyIn(ctx, "member3", name)
		return a+b == 3, client.IgnoreNotFound(err)
	}, harness.Timeout(2*time.Minute), logs)
	t.Logf("replicas Ready elsewhere %v after member1's API server stopped", time.Since(stopped).Round(100*time.Millisecond))

	harness.Eventually(t, "the template's status shows 3 ready, the evicted copy not counted", func(ctx context.Context) (bool, error) {
		d := &appsv1.Deployment{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(deploy), d); err != nil {
			return false, err
		}
		return d.Status.ReadyReplicas == 3 && d.Status.Replicas == 3, nil
	}, harness.Timeout(time.Minute), logs)
	harness.Eventually(t, "the eviction task ends once the new placement is healthy", func(ctx context.Context) (bool, error) {
		rb, err := getBinding(ctx, name)
		if err != nil {
			return false, err
		}
		return len(rb.Spec.GracefulEvictionTasks) == 0, nil
	}, harness.Timeout(time.Minute), logs)
	harness.Eventually(t, "the watch sees the task end", func(context.Context) (bool, error) {
		_, _, ended := history.writesDuringEviction()
		return ended, nil
	}, logs)
	spec, other, _ := history.writesDuringEviction()
	t.Logf("binding writes from the eviction to the end of its task: %d spec, %d status/metadata", spec, other)

	startCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := api.Start(startCtx); err != nil {
		t.Fatalf("restart member1: %v", err)
	}
	down = false
	harness.Eventually(t, "member1's old copy is removed", func(ctx context.Context) (bool, error) {
		return goneFrom(ctx, "member1", name)
	}, harness.Timeout(2*time.Minute), logs)
	harness.Eventually(t, "member1's Work is gone", func(ctx context.Context) (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: names.ExecutionSpace("member1"), Name: names.WorkName("Deployment", name, "default")}, &workv1alpha1.Work{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}, harness.Timeout(time.Minute), logs)
	rb, err := getBinding(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if r := replicasOf(rb); r["member1"] != 0 || r["member2"]+r["member3"] != 3 {
		t.Errorf("after member1 is back the binding moved: %v", r)
	}
}

// bindingHistory records every version of a binding a watch delivers.
type bindingHistory struct {
	mu       sync.Mutex
	versions []*workv1alpha2.ResourceBinding
}

// writesDuringEviction counts the versions (writes) of the binding from
// the first one with an eviction task to the first one without after it
// (ended tells whether that one was seen), split into spec writes
// (generation changes) and the others (status, metadata).
func (h *bindingHistory) writesDuringEviction() (spec, other int, ended bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	started := false
	var prev *workv1alpha2.ResourceBinding
	for _, rb := range h.versions {
		if !started {
			if len(rb.Spec.GracefulEvictionTasks) == 0 {
				prev = rb
				continue
			}
			started = true
		}
		if prev != nil && rb.Generation != prev.Generation {
			spec++
		} else {
			other++
		}
		prev = rb
		if len(rb.Spec.GracefulEvictionTasks) == 0 {
			return spec, other, true
		}
	}
	return spec, other, false
}

// watchBindingInto streams every version of the Deployment's binding
// until the test ends, recording each in history.
func watchBindingInto(t *testing.T, name string, history *bindingHistory) <-chan *workv1alpha2.ResourceBinding {
	t.Helper()
	wc, err := client.NewWithWatch(env.ControlPlane.Config, client.Options{Scheme: env.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(context.Background(), &workv1alpha2.ResourceBindingList{}, client.InNamespace("default"),
		client.MatchingFields{"metadata.name": names.BindingName("Deployment", name)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	out := make(chan *workv1alpha2.ResourceBinding, 1000)
	go func() {
		defer close(out)
		for ev := range w.ResultChan() {
			if rb, ok := ev.Object.(*workv1alpha2.ResourceBinding); ok {
				history.mu.Lock()
				history.versions = append(history.versions, rb)
				history.mu.Unlock()
				out <- rb
			}
		}
	}()
	return out
}
