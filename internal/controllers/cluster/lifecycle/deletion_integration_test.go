package lifecycle_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestClusterDeletionCleansUpOnlyWhatKarmadaDoes registers a Push cluster
// whose credentials are missing: Ready turns False (StatusCollectionFailed)
// with the not-ready taint. Deleting it removes its execution namespace and
// then waits for the bindings that target it; the bindings and the
// credentials Secret are never deleted.
func TestClusterDeletionCleansUpOnlyWhatKarmadaDoes(t *testing.T) {
	ctx := context.Background()
	name := harness.UniqueName("gone")
	// The suite joins no member, so nothing has made the namespace that
	// holds member credentials yet.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "karmada-cluster"}}
	if err := env.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-cluster", Name: name}}
	if err := env.Client.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: clusterv1alpha1.ClusterSpec{
		SyncMode: clusterv1alpha1.Push, APIEndpoint: "https://127.0.0.1:1",
		SecretRef: &clusterv1alpha1.LocalSecretReference{Namespace: "karmada-cluster", Name: name},
	}}
	if err := env.Client.Create(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "Ready=False/StatusCollectionFailed with the not-ready taint", func(ctx context.Context) (bool, error) {
		c, err := getCluster(ctx, name)
		if err != nil {
			return false, err
		}
		r := readyOf(c)
		return r != nil && r.Status == metav1.ConditionFalse && r.Reason == "StatusCollectionFailed" &&
			r.Message == "failed to create a ClusterClient: the secret of cluster "+name+" has no token: cluster credentials missing" &&
			hasTaint(c, clusterv1alpha1.TaintClusterNotReady), nil
	})
	execSpace := &corev1.Namespace{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "karmada-es-" + name}, execSpace); err != nil {
		t.Fatalf("execution space: %v", err)
	}
	rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name + "-configmap"},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: name},
			Clusters: []workv1alpha2.TargetCluster{{Name: name, Replicas: 1}},
		}}
	if err := env.Client.Create(ctx, rb); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), rb) })

	if err := env.Client.Delete(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "execution space removed", func(ctx context.Context) (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKey{Name: "karmada-es-" + name}, &corev1.Namespace{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	harness.Consistently(t, "cluster kept while a binding targets it", 2*time.Second, func(ctx context.Context) error {
		c, err := getCluster(ctx, name)
		if err != nil {
			return err
		}
		if len(c.Finalizers) == 0 {
			return fmt.Errorf("finalizer removed while %s targets the cluster", rb.Name)
		}
		return nil
	})
	rb.Spec.Clusters = nil
	if err := env.Client.Update(ctx, rb); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "cluster gone", func(ctx context.Context) (bool, error) {
		_, err := getCluster(ctx, name)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(secret), &corev1.Secret{}); err != nil {
		t.Errorf("credentials secret: %v", err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(rb), &workv1alpha2.ResourceBinding{}); err != nil {
		t.Errorf("binding: %v", err)
	}
}

// TestPullClusterMonitor: a Pull cluster whose agent never reports turns
// Ready=Unknown (ClusterStatusNeverUpdated) after the startup grace period
// and gets the unreachable taint; deleting it releases the Works no agent
// will ever finalize, so its execution namespace and the cluster go away.
func TestPullClusterMonitor(t *testing.T) {
	ctx := context.Background()
	name := harness.UniqueName("pull")
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Pull}}
	if err := env.Client.Create(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "Ready=Unknown/ClusterStatusNeverUpdated with the unreachable taint", func(ctx context.Context) (bool, error) {
		c, err := getCluster(ctx, name)
		if err != nil {
			return false, err
		}
		r := readyOf(c)
		return r != nil && r.Status == metav1.ConditionUnknown && r.Reason == "ClusterStatusNeverUpdated" &&
			r.Message == "Cluster status controller never posted cluster status." &&
			hasTaint(c, clusterv1alpha1.TaintClusterUnreachable) && !hasTaint(c, clusterv1alpha1.TaintClusterNotReady), nil
	})
	work := configMapWork(t, "karmada-es-"+name, "held")
	work.Finalizers = []string{"karmada.io/execution-controller"}
	if err := env.Client.Create(ctx, work); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "pull cluster and its execution space gone", func(ctx context.Context) (bool, error) {
		_, err := getCluster(ctx, name)
		if !apierrors.IsNotFound(err) {
			return false, client.IgnoreNotFound(err)
		}
		err = env.Client.Get(ctx, client.ObjectKey{Name: "karmada-es-" + name}, &corev1.Namespace{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}
