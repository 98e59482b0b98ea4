package status_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/controllers/cluster/lifecycle"
	"github.com/propel-mc/propel/internal/controllers/cluster/status"
	"github.com/propel-mc/propel/internal/shared/index"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// The suite runs the cluster status controller with the cluster
// (lifecycle) controller, which turns its Ready condition into taints,
// against one control plane with the default members.
var (
	env *harness.Env
	// writes counts the controllers' writes to the control plane.
	writes harness.WriteCounter

	statusControl *status.Reconciler
	// memberInformers runs the members' Node and Pod informers.
	memberInformers *membercluster.Informers
)

// Short intervals so that the tests run in seconds.
const (
	statusFrequency = time.Second
	threshold       = 2 * time.Second
)

func TestMain(m *testing.M) {
	// PROPEL_TEST_LOG=1 shows the controllers' logs.
	if os.Getenv("PROPEL_TEST_LOG") != "" {
		ctrl.SetLogger(funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1}))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	harness.Main(m, harness.Options{}, &env, startControllers)
}

func startControllers(ctx context.Context, e *harness.Env) error {
	_, err := harness.RunManager(ctx, writes.Count(e.ControllerManagerConfig(), "karmada"), func(mgr ctrl.Manager) error {
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
		memberInformers = membercluster.NewInformers(membercluster.InformerOptions{})
		if err := memberInformers.SetupWithManager(mgr, clients, false); err != nil {
			return err
		}
		statusControl = status.New(clients, memberInformers, status.Options{
			UpdateFrequency: statusFrequency, SuccessThreshold: threshold, FailureThreshold: threshold,
		})
		return statusControl.SetupWithManager(mgr)
	})
	return err
}

// clusterWrites counts the writes to cluster.karmada.io objects.
func clusterWrites() int {
	return writes.Matching(func(w harness.Write) bool { return strings.HasPrefix(w.Path, "/apis/cluster.karmada.io/") })
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
