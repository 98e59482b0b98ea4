package status_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestMemberOutageDeletesNothing stops member2's API server: Ready turns
// False (ClusterNotReachable) with the not-ready taint, and nothing in the
// control plane is deleted: the execution namespace, its Works and the last
// known status stay. Restarting the member brings Ready back and removes
// the taint.
func TestMemberOutageDeletesNothing(t *testing.T) {
	before := env.WaitClusterReady(t, "member2", harness.Timeout(2*time.Minute))
	ctx := context.Background()
	work := configMapWork(t, "karmada-es-member2", harness.UniqueName("outage"))
	if err := env.Client.Create(ctx, work); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), work) })

	member := env.Member("member2")
	member.APIServer.Stop()
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			_ = member.APIServer.Start(context.Background())
		}
	})

	var down *clusterv1alpha1.Cluster
	harness.Eventually(t, "member2 Ready=False/ClusterNotReachable with the not-ready taint", func(ctx context.Context) (bool, error) {
		c, err := getCluster(ctx, "member2")
		if err != nil {
			return false, err
		}
		down = c
		r := readyOf(c)
		return r != nil && r.Status == metav1.ConditionFalse && r.Reason == "ClusterNotReachable" &&
			r.Message == "cluster is not reachable" &&
			hasTaint(c, clusterv1alpha1.TaintClusterNotReady) && !hasTaint(c, clusterv1alpha1.TaintClusterUnreachable), nil
	})
	if down.Status.KubernetesVersion != before.Status.KubernetesVersion || len(down.Status.APIEnablements) != len(before.Status.APIEnablements) {
		t.Errorf("an unreachable member lost its last known status: version %q, %d API groups", down.Status.KubernetesVersion, len(down.Status.APIEnablements))
	}
	// Several status cycles and cluster reconciles while the member is down.
	harness.Consistently(t, "nothing deleted while member2 is down", 3*statusFrequency, func(ctx context.Context) error {
		return nothingDeleted(ctx, work)
	})

	if err := member.APIServer.Start(ctx); err != nil {
		t.Fatalf("restart member2: %v", err)
	}
	restarted = true
	env.WaitClusterReady(t, "member2")
	if err := nothingDeleted(ctx, work); err != nil {
		t.Fatal(err)
	}
}

// nothingDeleted checks that member2's cluster, execution namespace and the
// test's Work are all there and not terminating.
func nothingDeleted(ctx context.Context, work *workv1alpha1.Work) error {
	objs := []client.Object{&clusterv1alpha1.Cluster{}, &corev1.Namespace{}, &workv1alpha1.Work{}}
	keys := []client.ObjectKey{{Name: "member2"}, {Name: "karmada-es-member2"}, client.ObjectKeyFromObject(work)}
	for i, o := range objs {
		if err := env.Client.Get(ctx, keys[i], o); err != nil {
			return fmt.Errorf("%T %s: %w", o, keys[i], err)
		}
		if o.GetDeletionTimestamp() != nil {
			return fmt.Errorf("%T %s is being deleted", o, keys[i])
		}
	}
	return nil
}

// configMapWork is a Work holding one ConfigMap, like the binding
// controller writes.
func configMapWork(t *testing.T, namespace, name string) *workv1alpha1.Work {
	t.Helper()
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Data: map[string]string{"k": "v"}}
	raw, err := json.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	return &workv1alpha1.Work{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       workv1alpha1.WorkSpec{Workload: workv1alpha1.WorkloadTemplate{Manifests: []workv1alpha1.Manifest{{RawExtension: runtime.RawExtension{Raw: raw}}}}},
	}
}
