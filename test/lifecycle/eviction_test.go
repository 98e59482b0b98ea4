package lifecycle

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// failoverFlags turn cluster failover on (taint eviction, purge mode
// Gracefully by default).
var failoverFlags = []string{"--leader-elect=false", "--metrics-bind-address=0",
	"--feature-gates=Failover=true", "--enable-no-execute-taint-eviction=true"}

func setMemberTaints(ctx context.Context, name string, taints []corev1.Taint) error {
	c := &clusterv1alpha1.Cluster{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: name}, c); err != nil {
		return err
	}
	c.Spec.Taints = taints
	return env.Client.Update(ctx, c)
}

// evictionProgress counts the bindings of ns evicted from member1 and
// fails on a binding with more than one task for it.
func evictionProgress(ctx context.Context, ns string) (evicted, total int, err error) {
	list := &workv1alpha2.ResourceBindingList{}
	if err := env.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		return 0, 0, err
	}
	for _, rb := range list.Items {
		tasks := 0
		for _, task := range rb.Spec.GracefulEvictionTasks {
			if task.FromCluster == memberNames[0] {
				tasks++
			}
		}
		if tasks > 1 {
			return 0, 0, fmt.Errorf("binding %s has %d eviction tasks for %s", rb.Name, tasks, memberNames[0])
		}
		onMember1 := false
		for _, tc := range rb.Spec.Clusters {
			onMember1 = onMember1 || tc.Name == memberNames[0]
		}
		if tasks == 1 && !onMember1 {
			evicted++
		}
	}
	return evicted, len(list.Items), nil
}

// TestRestartMidEvictionConvergesWithOneTask taints member1 NoExecute by
// hand, kills the controller manager while its taint manager (slowed by
// --resource-eviction-rate) is half way through the bindings, and checks
// that the next one finishes: every binding leaves member1 with exactly
// one task, no template or Work is lost, member1's Works are kept
// (Gracefully; member2's bare API server never reports the workloads
// healthy, so the tasks last).
func TestRestartMidEvictionConvergesWithOneTask(t *testing.T) {
	const ns, n = "lifecycle-evict", 24
	ctx := context.Background()
	createNamespace(t, ns)
	first := startControllerManager(t, "cm-evict-before-kill", append(failoverFlags, "--resource-eviction-rate=1")...)
	waitClustersReady(t, first)
	pol := createPolicy(t, ns, "evict")
	harness.Eventually(t, "divide the replicas 1:1", func(ctx context.Context) (bool, error) {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(pol), pol); err != nil {
			return false, err
		}
		pol.Spec.Placement.ReplicaScheduling = &policyv1alpha1.ReplicaSchedulingStrategy{
			ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
		}
		return env.Client.Update(ctx, pol) == nil, nil
	}, harness.LogsIn(env.LogDir))
	want := createDeployments(t, ns, "evict", "evict", n)
	expectPropagated(t, ns, want, 3*time.Minute, first)

	taint := corev1.Taint{Key: clusterv1alpha1.TaintClusterNotReady, Effect: corev1.TaintEffectNoExecute}
	harness.Eventually(t, "taint member1 NoExecute", func(ctx context.Context) (bool, error) {
		return setMemberTaints(ctx, memberNames[0], []corev1.Taint{taint}) == nil, nil
	}, harness.LogsIn(env.LogDir))
	t.Cleanup(func() {
		harness.Eventually(t, "untaint member1", func(ctx context.Context) (bool, error) {
			return setMemberTaints(ctx, memberNames[0], nil) == nil, nil
		}, harness.LogsIn(env.LogDir))
	})
	harness.Eventually(t, "the eviction under way", func(ctx context.Context) (bool, error) {
		evicted, _, err := evictionProgress(ctx, ns)
		return evicted >= 3, err
	}, harness.Timeout(time.Minute), harness.WhileRunning(first), harness.LogsIn(env.LogDir))
	first.Kill()
	evicted, total, err := evictionProgress(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("killed mid-eviction: %d/%d bindings evicted", evicted, total)
	if evicted >= n {
		t.Fatalf("the eviction had finished before the kill")
	}

	second := startControllerManager(t, "cm-evict-after-kill", append(failoverFlags, "--resource-eviction-rate=100", "--kube-api-qps=200", "--kube-api-burst=400")...)
	harness.Eventually(t, "every binding evicted from member1 exactly once", func(ctx context.Context) (bool, error) {
		evicted, total, err := evictionProgress(ctx, ns)
		return evicted == n && total == n, err
	}, harness.Timeout(4*time.Minute), harness.WhileRunning([]*localenv.Process{second}...), harness.LogsIn(env.LogDir))
	// The eviction takes member1 out of spec.clusters; the scheduler then
	// gives member2 both replicas in a write of its own.
	harness.Eventually(t, "every binding rescheduled with both replicas on member2", func(ctx context.Context) (bool, error) {
		s, err := observe(ctx, ns)
		if err != nil {
			return false, err
		}
		for _, rb := range s.bindings {
			if len(rb.Spec.Clusters) != 1 || rb.Spec.Clusters[0].Name != memberNames[1] || rb.Spec.Clusters[0].Replicas != 2 {
				return false, nil
			}
		}
		return len(s.bindings) == n, nil
	}, harness.Timeout(2*time.Minute), harness.WhileRunning([]*localenv.Process{second}...), harness.LogsIn(env.LogDir))

	s, err := observe(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.templates) != n {
		t.Errorf("%d templates, want %d", len(s.templates), n)
	}
	for _, m := range memberNames {
		if got := len(s.works[m]); got != n {
			t.Errorf("%s has %d Works, want %d (member1's kept while their tasks last)", m, got, n)
		}
	}
	evicted, _, err = evictionProgress(ctx, ns)
	if err != nil || evicted != n {
		t.Errorf("after rescheduling, %d of %d bindings keep exactly one task for member1 (%v)", evicted, n, err)
	}
}
