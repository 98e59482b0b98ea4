package harness

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/membercluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// TestEnvironment starts the standard topology and checks what every later
// test relies on: members registered the way karmadactl join does, with
// credentials that really work, and a member whose Deployments get Ready pods.
func TestEnvironment(t *testing.T) {
	env := StartT(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	clusters := &clusterv1alpha1.ClusterList{}
	if err := env.Client.List(ctx, clusters); err != nil {
		t.Fatalf("list clusters: %v", err)
	}
	if len(clusters.Items) != 3 {
		t.Fatalf("got %d clusters, want 3", len(clusters.Items))
	}
	for _, c := range clusters.Items {
		t.Run("credentials/"+c.Name, func(t *testing.T) { checkClusterCredentials(t, ctx, env, &c) })
	}

	t.Run("deployment becomes ready in member1", func(t *testing.T) {
		member, err := env.MemberClient("member1")
		if err != nil {
			t.Fatal(err)
		}
		deploy := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nginx"},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](2),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
				},
			},
		}
		// The default ServiceAccount appears once kube-controller-manager
		// has started; pod admission needs it.
		err = wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
			return member.Get(ctx, client.ObjectKey{Namespace: "default", Name: "default"}, &corev1.ServiceAccount{}) == nil, nil
		})
		if err != nil {
			t.Fatalf("default ServiceAccount never appeared in member1: %v", err)
		}
		if err := member.Create(ctx, deploy); err != nil {
			t.Fatalf("create deployment: %v", err)
		}
		err = wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
			if err := member.Get(ctx, client.ObjectKeyFromObject(deploy), deploy); err != nil {
				return false, err
			}
			return deploy.Status.ReadyReplicas == 2, nil
		})
		if err != nil {
			t.Fatalf("deployment not ready: status %+v: %v (logs in %s)", deploy.Status, err, env.LogDir)
		}
		pods := &corev1.PodList{}
		if err := member.List(ctx, pods, client.InNamespace("default"), client.MatchingLabels{"app": "nginx"}); err != nil {
			t.Fatal(err)
		}
		for _, p := range pods.Items {
			if p.Status.Phase != corev1.PodRunning || p.Spec.NodeName == "" {
				t.Errorf("pod %s: phase %s on node %q, want Running on a kwok node", p.Name, p.Status.Phase, p.Spec.NodeName)
			}
		}
	})
}

// checkClusterCredentials builds a client only from what the Cluster and its
// Secret say, as Propel's controllers will, and lists the member's namespaces.
func checkClusterCredentials(t *testing.T, ctx context.Context, env *Env, c *clusterv1alpha1.Cluster) {
	if c.Spec.SyncMode != clusterv1alpha1.Push || c.Spec.SecretRef == nil {
		t.Fatalf("cluster %s: syncMode %q secretRef %v", c.Name, c.Spec.SyncMode, c.Spec.SecretRef)
	}
	secret, err := env.Kube.CoreV1().Secrets(c.Spec.SecretRef.Namespace).Get(ctx, c.Spec.SecretRef.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("cluster %s secret: %v", c.Name, err)
	}
	cfg, err := membercluster.RESTConfig(c, secret)
	if err != nil {
		t.Fatal(err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("cluster %s: list namespaces with the joined token: %v", c.Name, err)
	}
	if m := env.Member(c.Name); m == nil || m.URL != c.Spec.APIEndpoint {
		t.Fatalf("cluster %s: apiEndpoint %s does not match a member", c.Name, c.Spec.APIEndpoint)
	}
}
