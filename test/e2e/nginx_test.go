package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

func readSample(t *testing.T, rel string, into client.Object) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "config", "samples", rel))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}

// readyPods counts Running, Ready pods with app=<app> in a member.
func readyPods(ctx context.Context, member, ns, app string) (int, error) {
	c, err := env.MemberClient(member)
	if err != nil {
		return 0, err
	}
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{"app": app}); err != nil {
		return 0, err
	}
	n := 0
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				n++
			}
		}
	}
	return n, nil
}

func memberReplicas(ctx context.Context, member, ns, name string) (int32, error) {
	c, err := env.MemberClient(member)
	if err != nil {
		return 0, err
	}
	d := &appsv1.Deployment{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d); err != nil {
		return 0, err
	}
	return ptr.Deref(d.Spec.Replicas, 0), nil
}

// expectRunning waits until each member runs exactly want[member] Ready pods
// of the Deployment and the template's aggregated status shows their sum.
func expectRunning(t *testing.T, ns, name, app string, want map[string]int) {
	t.Helper()
	total := 0
	for member, n := range want {
		total += n
		harness.Eventually(t, member+" runs the assigned replicas", func(ctx context.Context) (bool, error) {
			replicas, err := memberReplicas(ctx, member, ns, name)
			if err != nil || int(replicas) != n {
				return false, err
			}
			ready, err := readyPods(ctx, member, ns, app)
			return ready == n, err
		}, harness.Timeout(3*time.Minute), harness.LogsIn(env.LogDir))
	}
	harness.Eventually(t, "template status shows what runs", func(ctx context.Context) (bool, error) {
		d := &appsv1.Deployment{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d); err != nil {
			return false, err
		}
		return int(d.Status.ReadyReplicas) == total && int(d.Status.Replicas) == total, nil
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
}

// TestNginxDuplicatedThenWeighted is seed scenario (a): without
// replicaScheduling each cluster runs both replicas; with Divided/Weighted
// 1:1 each runs one.
func TestNginxDuplicatedThenWeighted(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	deploy := &appsv1.Deployment{}
	readSample(t, "nginx/deployment.yaml", deploy)
	pol := &policyv1alpha1.PropagationPolicy{}
	readSample(t, "nginx/propagationpolicy.yaml", pol)
	for _, o := range []client.Object{pol, deploy} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	expectRunning(t, "default", "nginx", "nginx", map[string]int{"member1": 2, "member2": 2})

	weighted := &policyv1alpha1.PropagationPolicy{}
	readSample(t, "nginx-weighted/propagationpolicy.yaml", weighted)
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(pol), pol); err != nil {
		t.Fatal(err)
	}
	pol.Spec.Placement = weighted.Spec.Placement
	if err := env.Client.Update(ctx, pol); err != nil {
		t.Fatal(err)
	}
	expectRunning(t, "default", "nginx", "nginx", map[string]int{"member1": 1, "member2": 1})
}

// TestWeighted2To1AndScaling: 3 replicas with 2:1 weights run 2 in member1
// and 1 in member2; scaling the template to 6 gives 4/2.
func TestWeighted2To1AndScaling(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	deploy := &appsv1.Deployment{}
	readSample(t, "nginx/deployment.yaml", deploy)
	deploy.Name, deploy.Namespace = "web", "default"
	deploy.Labels = map[string]string{"app": "web"}
	deploy.Spec.Selector.MatchLabels = map[string]string{"app": "web"}
	deploy.Spec.Template.Labels = map[string]string{"app": "web"}
	deploy.Spec.Replicas = ptr.To[int32](3)
	pol := &policyv1alpha1.PropagationPolicy{}
	readSample(t, "nginx-weighted/propagationpolicy.yaml", pol)
	pol.Name = "web-propagation"
	pol.Spec.ResourceSelectors[0].Name = "web"
	pol.Spec.Placement.ReplicaScheduling.WeightPreference.StaticWeightList[0].Weight = 2
	for _, o := range []client.Object{pol, deploy} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	expectRunning(t, "default", "web", "web", map[string]int{"member1": 2, "member2": 1})

	harness.Eventually(t, "scale template to 6", func(ctx context.Context) (bool, error) {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(deploy), deploy); err != nil {
			return false, err
		}
		deploy.Spec.Replicas = ptr.To[int32](6)
		return env.Client.Update(ctx, deploy) == nil, nil
	}, harness.LogsIn(env.LogDir))
	expectRunning(t, "default", "web", "web", map[string]int{"member1": 4, "member2": 2})

	rb := &workv1alpha2.ResourceBinding{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web-deployment"}, rb); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{workv1alpha2.Scheduled, workv1alpha2.FullyApplied} {
		if !conditionTrue(rb.Status.Conditions, c) {
			t.Errorf("binding condition %s not True: %+v", c, rb.Status.Conditions)
		}
	}
}

func conditionTrue(conds []metav1.Condition, t string) bool {
	c := meta.FindStatusCondition(conds, t)
	return c != nil && c.Status == metav1.ConditionTrue
}
