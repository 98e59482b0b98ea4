package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestMemberDownAndBack stops member2's API server, changes the template
// (member1 follows, nothing of member2 is deleted in the control plane),
// then starts member2 again and checks it catches up. Whatever happens, it
// leaves member2 running and Ready and its objects deleted, so the tests
// after it find the environment as they would without it.
func TestMemberDownAndBack(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	const name = "down-web"
	deploy := testDeployment(name, "nginx", 1)
	pol := testPolicy(name+"-propagation", name, "member1", "member2")
	createAll(t, pol, deploy)
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), deploy)
		_ = env.Client.Delete(context.Background(), pol)
	})
	for _, m := range []string{"member1", "member2"} {
		harness.Eventually(t, name+" runs in "+m, func(ctx context.Context) (bool, error) {
			_, err := memberImage(ctx, m, name)
			return err == nil, err
		}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	}

	api := env.Member("member2").APIServer
	api.Stop()
	down := true
	t.Cleanup(func() {
		if down {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := api.Start(ctx); err != nil {
				t.Errorf("restart member2: %v", err)
				return
			}
		}
		env.WaitClusterReady(t, "member2", harness.Timeout(3*time.Minute), harness.LogsIn(env.LogDir))
	})
	harness.Eventually(t, "member2 is reported not Ready", func(ctx context.Context) (bool, error) {
		c := &clusterv1alpha1.Cluster{}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: "member2"}, c); err != nil {
			return false, err
		}
		ready := meta.FindStatusCondition(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
		return ready != nil && ready.Status != metav1.ConditionTrue, nil
	}, harness.Timeout(3*time.Minute), harness.LogsIn(env.LogDir))

	harness.Eventually(t, "label the template", func(ctx context.Context) (bool, error) {
		d := &appsv1.Deployment{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(deploy), d); err != nil {
			return false, err
		}
		d.Labels["rollout"] = "2"
		return env.Client.Update(ctx, d) == nil, nil
	}, harness.LogsIn(env.LogDir))
	hasLabel := func(ctx context.Context, member string) (bool, error) {
		d := &appsv1.Deployment{}
		d.Namespace, d.Name = "default", name
		if err := memberGet(ctx, member, d); err != nil {
			return false, err
		}
		return d.Labels["rollout"] == "2", nil
	}
	harness.Eventually(t, "member1 gets the change", func(ctx context.Context) (bool, error) { return hasLabel(ctx, "member1") }, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	harness.Eventually(t, "member2's Work carries the change and is kept", func(ctx context.Context) (bool, error) {
		w := &workv1alpha1.Work{}
		if err := env.Client.Get(ctx, workOf("member2", "Deployment", name, "default"), w); err != nil {
			return false, err
		}
		if w.DeletionTimestamp != nil {
			return false, fmt.Errorf("member2's Work is being deleted")
		}
		return len(w.Spec.Workload.Manifests) == 1 && strings.Contains(string(w.Spec.Workload.Manifests[0].Raw), `"rollout":"2"`), nil
	}, harness.LogsIn(env.LogDir))
	rb := &workv1alpha2.ResourceBinding{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: names.BindingName("Deployment", name)}, rb); err != nil {
		t.Fatal(err)
	}
	scheduled := map[string]bool{}
	for _, c := range rb.Spec.Clusters {
		scheduled[c.Name] = true
	}
	if !scheduled["member1"] || !scheduled["member2"] || rb.DeletionTimestamp != nil {
		t.Errorf("binding while member2 is down: clusters %+v, deletion %v", rb.Spec.Clusters, rb.DeletionTimestamp)
	}
	if d, err := memberImage(ctx, "member1", name); err != nil || d == "" {
		t.Errorf("member1 Deployment: %v", err)
	}

	startCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := api.Start(startCtx); err != nil {
		t.Fatalf("restart member2: %v", err)
	}
	down = false
	harness.Eventually(t, "member2 catches up", func(ctx context.Context) (bool, error) { return hasLabel(ctx, "member2") }, harness.Timeout(3*time.Minute), harness.LogsIn(env.LogDir))
	harness.Eventually(t, "member2 is Ready again", func(ctx context.Context) (bool, error) {
		c := &clusterv1alpha1.Cluster{}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: "member2"}, c); err != nil {
			return false, err
		}
		return meta.IsStatusConditionTrue(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady), nil
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
}
