package failover

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestKarmadaWrittenTaskIsHonouredAndCleared puts a binding in the state
// karmada-controller-manager leaves after a taint eviction (member3 taken
// out of spec.clusters, a task without creationTimestamp), as after a
// switch to Propel in the middle of an eviction: the scheduler gives
// member3's replica to member2, member3's copy is kept while the task
// lives, the task is stamped, then dropped once member2 is healthy, and
// member3's copy is removed.
func TestKarmadaWrittenTaskIsHonouredAndCleared(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	logs := harness.LogsIn(env.LogDir)
	const name = "karmada-task"
	deploy := deployment(name, 2)
	pp := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: name}},
			Placement: policyv1alpha1.Placement{
				ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2", "member3"}},
				// Divided 1:1 (no weight list: equal weights).
				ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
					ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
				},
			},
		},
	}
	for _, o := range []client.Object{pp, deploy} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), deploy)
		_ = env.Client.Delete(context.Background(), pp)
	})
	for _, m := range []string{"member2", "member3"} {
		harness.Eventually(t, name+" Ready in "+m, func(ctx context.Context) (bool, error) {
			n, err := readyIn(ctx, m, name)
			return n == 1, client.IgnoreNotFound(err)
		}, harness.Timeout(3*time.Minute), logs)
	}

	harness.Eventually(t, "write Karmada's eviction of member3", func(ctx context.Context) (bool, error) {
		rb, err := getBinding(ctx, name)
		if err != nil {
			return false, err
		}
		rb.Spec.Clusters = []workv1alpha2.TargetCluster{{Name: "member2", Replicas: 1}}
		rb.Spec.GracefulEvictionTasks = []workv1alpha2.GracefulEvictionTask{{
			FromCluster: "member3", PurgeMode: policyv1alpha1.PurgeModeGracefully, Reason: "TaintUntolerated", Producer: "TaintManager",
		}}
		return env.Client.Update(ctx, rb) == nil, nil
	}, logs)

	workKey := client.ObjectKey{Namespace: names.ExecutionSpace("member3"), Name: names.WorkName("Deployment", name, "default")}
	var sawStamp bool
	harness.Eventually(t, "the task is stamped or already cleared, member3's Work kept meanwhile", func(ctx context.Context) (bool, error) {
		rb, err := getBinding(ctx, name)
		if err != nil {
			return false, err
		}
		if len(rb.Spec.GracefulEvictionTasks) == 0 {
			return true, nil
		}
		w := &workv1alpha1.Work{}
		if err := env.Client.Get(ctx, workKey, w); err != nil || w.DeletionTimestamp != nil {
			t.Errorf("member3's Work is not kept while its task lives: %v", err)
		}
		sawStamp = sawStamp || rb.Spec.GracefulEvictionTasks[0].CreationTimestamp != nil
		return false, nil
	}, harness.Timeout(time.Minute), logs)
	t.Logf("creationTimestamp observed before the task ended: %v", sawStamp)

	harness.Eventually(t, "member3's copy is removed", func(ctx context.Context) (bool, error) {
		return goneFrom(ctx, "member3", name)
	}, harness.Timeout(time.Minute), logs)
	harness.Eventually(t, "member2 runs both replicas", func(ctx context.Context) (bool, error) {
		n, err := readyIn(ctx, "member2", name)
		return n == 2, err
	}, harness.Timeout(time.Minute), logs)
	rb, err := getBinding(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if r := replicasOf(rb); len(r) != 1 || r["member2"] != 2 {
		t.Errorf("binding clusters after the task = %v, want member2 only", rb.Spec.Clusters)
	}
}
