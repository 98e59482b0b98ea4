package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// BuildControllerManager compiles cmd/propel-controller-manager into dir
// and returns the binary's path, so that tests and the benchmark run the
// controller manager as its own process, exactly as it is deployed.
func BuildControllerManager(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "propel-controller-manager")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/propel-controller-manager")
	build.Dir, build.Stdout, build.Stderr = RepoRoot(), os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build propel-controller-manager: %w", err)
	}
	return bin, nil
}

// StartControllerManager runs the binary bin against the control plane
// with args, as Propel's ServiceAccount (ControllerManagerKubeconfig),
// logging to <LogDir>/<name>.log. Stop it with Stop (SIGTERM) or Kill
// (SIGKILL); it dies with the test process in any case.
func (e *Env) StartControllerManager(bin, name string, args ...string) (*localenv.Process, error) {
	args = append([]string{"--kubeconfig=" + e.ControllerManagerKubeconfig()}, args...)
	return localenv.StartProcess(name, bin, args, e.LogDir)
}

// ClustersReady reports whether want Clusters exist and all are Ready,
// which is when the scheduler places bindings on them.
func ClustersReady(ctx context.Context, c client.Client, want int) (bool, error) {
	list := &clusterv1alpha1.ClusterList{}
	if err := c.List(ctx, list); err != nil {
		return false, err
	}
	ready := 0
	for _, cl := range list.Items {
		if meta.IsStatusConditionTrue(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady) {
			ready++
		}
	}
	return ready == want, nil
}

// Deployment is a minimal two-replica Deployment with the given labels on
// the object (its pods are labelled app=<name>).
func Deployment(namespace, name string, labels map[string]string) *appsv1.Deployment {
	podLabels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: podLabels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
}

// CreateConcurrently creates objs with workers concurrent requests, as a
// busy user or CI pipeline would, and returns the first error.
func CreateConcurrently(ctx context.Context, c client.Client, workers int, objs []client.Object) error {
	jobs := make(chan client.Object)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range jobs {
				if err := c.Create(ctx, o); err != nil {
					once.Do(func() { first = fmt.Errorf("create %s/%s: %w", o.GetNamespace(), o.GetName(), err) })
				}
			}
		}()
	}
	for _, o := range objs {
		jobs <- o
	}
	close(jobs)
	wg.Wait()
	return first
}

// WaitClusterReady waits until Cluster name is Ready without the
// not-ready and unreachable taints, and returns it.
func (e *Env) WaitClusterReady(t testing.TB, name string, opts ...PollOption) *clusterv1alpha1.Cluster {
	t.Helper()
	var c *clusterv1alpha1.Cluster
	Eventually(t, "cluster "+name+" Ready=True without taints", func(ctx context.Context) (bool, error) {
		c = &clusterv1alpha1.Cluster{}
		if err := e.Client.Get(ctx, client.ObjectKey{Name: name}, c); err != nil {
			return false, err
		}
		return meta.IsStatusConditionTrue(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady) &&
			!hasTaint(c, clusterv1alpha1.TaintClusterNotReady) && !hasTaint(c, clusterv1alpha1.TaintClusterUnreachable), nil
	}, opts...)
	return c
}

func hasTaint(c *clusterv1alpha1.Cluster, key string) bool {
	for _, t := range c.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}
