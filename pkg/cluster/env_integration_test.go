package cluster_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/pkg/cluster/lifecycle"
	"github.com/propel-mc/propel/pkg/cluster/status"
	"github.com/propel-mc/propel/pkg/execution"
	"github.com/propel-mc/propel/pkg/index"
	"github.com/propel-mc/propel/pkg/membercluster"
	"github.com/propel-mc/propel/pkg/namespacesync"
	"github.com/propel-mc/propel/pkg/resourceinterpreter"
	"github.com/propel-mc/propel/pkg/resourceinterpreter/native"
	"github.com/propel-mc/propel/test/harness"
)

var (
	env *harness.Env
	// writes counts the controllers' mutating requests to the control
	// plane (events excluded).
	writes atomic.Int64
	// clusterWrites counts those to cluster.karmada.io objects.
	clusterWrites atomic.Int64

	startOnce     sync.Once
	statusControl *status.Reconciler
)

func TestMain(m *testing.M) {
	// PROPEL_TEST_LOG=1 shows the controllers' logs.
	if os.Getenv("PROPEL_TEST_LOG") != "" {
		ctrl.SetLogger(funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1}))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	harness.Main(m, harness.Options{}, &env)
}

type countingTransport struct{ next http.RoundTripper }

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet && !isEvent(r.URL.Path) {
		writes.Add(1)
		if strings.HasPrefix(r.URL.Path, "/apis/cluster.karmada.io/") {
			clusterWrites.Add(1)
		}
	}
	return c.next.RoundTrip(r)
}

func isEvent(path string) bool {
	return filepath.Base(path) == "events" || filepath.Base(filepath.Dir(path)) == "events"
}

// Short intervals so that the tests run in seconds.
const (
	statusFrequency = time.Second
	threshold       = 2 * time.Second
)

// startControllers runs the cluster, cluster status and namespace sync
// controllers, with the execution controller that applies their Works, in
// one manager against the test control plane, once for the package.
func startControllers(t *testing.T) {
	t.Helper()
	startOnce.Do(func() {
		cfg := rest.CopyConfig(env.ControlPlane.Config)
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{rt} })
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
		if err != nil {
			t.Fatal(err)
		}
		lc := lifecycle.New(lifecycle.Options{
			RemovalPollInterval: 500 * time.Millisecond, MonitorPeriod: 500 * time.Millisecond,
			MonitorGracePeriod: 2 * time.Second, StartupGracePeriod: 2 * time.Second,
		})
		if err := index.AddDefaultIndexes(context.Background(), mgr); err != nil {
			t.Fatal(err)
		}
		if err := lc.SetupWithManager(mgr); err != nil {
			t.Fatal(err)
		}
		clients := membercluster.New(mgr.GetClient(), membercluster.Options{})
		statusControl = status.New(clients, status.Options{
			UpdateFrequency: statusFrequency, SuccessThreshold: threshold, FailureThreshold: threshold,
		})
		if err := statusControl.SetupWithManager(mgr); err != nil {
			t.Fatal(err)
		}
		ns, err := namespacesync.New(namespacesync.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := ns.SetupWithManager(mgr); err != nil {
			t.Fatal(err)
		}
		if err := setupExecution(mgr, clients); err != nil {
			t.Fatal(err)
		}
		go func() { _ = mgr.Start(context.Background()) }()
	})
	if statusControl == nil {
		t.Fatal("controllers did not start")
	}
}

func eventually(t *testing.T, timeout time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	harness.Eventually(t, what, timeout, cond)
}

// consistently checks cond at every poll for d: for what must NOT happen.
func consistently(t *testing.T, d time.Duration, what string, cond func(ctx context.Context) error) {
	t.Helper()
	ctx := context.Background()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if err := cond(ctx); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
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

// waitReady waits until cluster name is Ready without managed taints.
func waitReady(t *testing.T, name string, timeout time.Duration) *clusterv1alpha1.Cluster {
	t.Helper()
	var c *clusterv1alpha1.Cluster
	eventually(t, timeout, "cluster "+name+" Ready=True without taints", func(ctx context.Context) (bool, error) {
		var err error
		if c, err = getCluster(ctx, name); err != nil {
			return false, err
		}
		r := readyOf(c)
		return r != nil && r.Status == metav1.ConditionTrue &&
			!hasTaint(c, clusterv1alpha1.TaintClusterNotReady) && !hasTaint(c, clusterv1alpha1.TaintClusterUnreachable), nil
	})
	return c
}

func memberNames() []string {
	out := make([]string, 0, len(env.Members))
	for _, m := range env.Members {
		out = append(out, m.Options.Name)
	}
	return out
}

func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1_000_000_000)
}

// setupExecution adds the execution controller (pkg/execution) so that
// namespace Works really reach the members.
func setupExecution(mgr ctrl.Manager, clients *membercluster.Clients) error {
	informers := membercluster.NewInformers(membercluster.InformerOptions{})
	if err := informers.SetupWithManager(mgr, clients, true); err != nil {
		return err
	}
	return execution.New(execution.Deps{
		Client: mgr.GetClient(), Clients: clients, Informers: informers,
		Interpreter: resourceinterpreter.New(native.New()), Recorder: mgr.GetEventRecorderFor("execution-controller"),
	}, execution.Options{SkipNameValidation: true}).SetupWithManager(mgr)
}
