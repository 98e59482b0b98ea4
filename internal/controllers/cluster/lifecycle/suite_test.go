package lifecycle_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/controllers/cluster/lifecycle"
	"github.com/propel-mc/propel/internal/controllers/cluster/status"
	"github.com/propel-mc/propel/internal/shared/index"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// The suite runs the cluster (lifecycle) controller with the cluster
// status controller, whose Ready condition it turns into taints, against a
// control plane without members: the Clusters under test are made up
// (missing credentials, a Pull agent that never reports).
var env *harness.Env

func TestMain(m *testing.M) {
	// PROPEL_TEST_LOG=1 shows the controllers' logs.
	if os.Getenv("PROPEL_TEST_LOG") != "" {
		ctrl.SetLogger(funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1}))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	harness.Main(m, harness.Options{Members: []localenv.MemberOptions{}}, &env, startControllers)
}

func startControllers(ctx context.Context, e *harness.Env) error {
	_, err := harness.RunManager(ctx, e.ControllerManagerConfig(), func(mgr ctrl.Manager) error {
		if err := index.AddDefaultIndexes(context.Background(), mgr); err != nil {
			return err
		}
		lc := lifecycle.New(lifecycle.Options{
			RemovalPollInterval: 500 * time.Millisecond, MonitorPeriod: 500 * time.Millisecond,
			MonitorGracePeriod: 2 * time.Second, StartupGracePeriod: 2 * time.Second,
		})
		if err := lc.SetupWithManager(mgr); err != nil {
			return err
		}
		clients := membercluster.New(mgr.GetClient(), membercluster.Options{})
		informers := membercluster.NewInformers(membercluster.InformerOptions{})
		if err := informers.SetupWithManager(mgr, clients, false); err != nil {
			return err
		}
		return status.New(clients, informers, status.Options{
			UpdateFrequency: time.Second, SuccessThreshold: 2 * time.Second, FailureThreshold: 2 * time.Second,
		}).SetupWithManager(mgr)
	})
	return err
}

func getCluster(ctx context.Context, name string) (*clusterv1alpha1.Cluster, error) {
	c := &clusterv1alpha1.Cluster{}
	return c, env.Client.Get(ctx, client.ObjectKey{Name: name}, c)
}

func readyOf(c *clusterv1alpha1.Cluster) *metav1.Condition {
	return meta.FindStatusCondition(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
}

func hasTaint(c *clusterv1alpha1.Cluster, key string) bool {
	for _, t := range c.Spec.Taints {
		if t.Key == key && t.Effect == corev1.TaintEffectNoSchedule {
			return true
		}
	}
	return false
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
