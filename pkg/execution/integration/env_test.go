package integration_test

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/pkg/execution"
	"github.com/propel-mc/propel/pkg/index"
	"github.com/propel-mc/propel/pkg/membercluster"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/resourceinterpreter"
	"github.com/propel-mc/propel/pkg/resourceinterpreter/native"
	"github.com/propel-mc/propel/pkg/status"
	"github.com/propel-mc/propel/pkg/status/bindingstatus"
	"github.com/propel-mc/propel/pkg/status/templatestatus"
	"github.com/propel-mc/propel/pkg/status/workstatus"
)

// writeLog records the mutating requests (events excluded) of one side:
// the control plane or the members.
type writeLog struct {
	mu    sync.Mutex
	lines []string
}

func (w *writeLog) add(line string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, line)
}

func (w *writeLog) len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.lines)
}

// since returns the writes after the first n.
func (w *writeLog) since(n int) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lines[n:]...)
}

type countingTransport struct {
	next http.RoundTripper
	log  *writeLog
	host string
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet && !isEvent(r.URL.Path) {
		c.log.add(c.host + " " + r.Method + " " + r.URL.Path)
	}
	return c.next.RoundTrip(r)
}

func isEvent(p string) bool { return path.Base(p) == "events" || path.Base(path.Dir(p)) == "events" }

func counted(cfg *rest.Config, log *writeLog, host string) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{next: rt, log: log, host: host} })
	return cfg
}

// countingClients hands out member clients whose requests are logged.
type countingClients struct {
	inner membercluster.ClientSource
	log   *writeLog
	mu    sync.Mutex
	made  map[*membercluster.Member]*membercluster.Member
}

func (c *countingClients) ForCluster(ctx context.Context, cluster *clusterv1alpha1.Cluster) (*membercluster.Member, error) {
	m, err := c.inner.ForCluster(ctx, cluster)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if w := c.made[m]; w != nil {
		return w, nil
	}
	cfg := counted(m.Config, c.log, m.Name)
	w := &membercluster.Member{Name: m.Name, Config: cfg, Kube: kubernetes.NewForConfigOrDie(cfg), Dynamic: dynamic.NewForConfigOrDie(cfg)}
	c.made[m] = w
	return w, nil
}

// controllers is one running manager with the execution and status
// controllers.
type controllers struct {
	cpWrites, memberWrites *writeLog
	informers              *membercluster.Informers
	stop                   func()
}

func fastRetries() workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](20*time.Millisecond, 500*time.Millisecond)
}

// startControllers runs a manager with the execution, work-status and
// binding-status controllers and the native interpreter.
func startControllers(t *testing.T) *controllers {
	t.Helper()
	c := &controllers{cpWrites: &writeLog{}, memberWrites: &writeLog{}}
	cfg := counted(env.ControlPlane.Config, c.cpWrites, "karmada")
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	clients := &countingClients{inner: membercluster.New(mgr.GetClient(), membercluster.Options{}), log: c.memberWrites,
		made: map[*membercluster.Member]*membercluster.Member{}}
	informers := membercluster.NewInformers(membercluster.InformerOptions{})
	c.informers = informers
	interp := resourceinterpreter.New(native.New())
	must(t, index.AddDefaultIndexes(context.Background(), mgr))
	must(t, informers.SetupWithManager(mgr, clients, true))
	exec := execution.New(execution.Deps{
		Client: mgr.GetClient(), Clients: clients, Informers: informers, Interpreter: interp,
		Recorder: mgr.GetEventRecorderFor(names.ExecutionControllerName),
	}, execution.Options{RateLimiter: fastRetries(), SkipNameValidation: true})
	must(t, exec.SetupWithManager(mgr))
	must(t, status.SetupWithManager(status.Deps{
		Manager: mgr, Clients: clients, Informers: informers, Interpreter: interp,
		Templates: templatestatus.NewDynamic(dynamic.NewForConfigOrDie(cfg), mgr.GetRESTMapper(), discovery.NewDiscoveryClientForConfigOrDie(cfg)),
	}, status.Options{
		Work:                   workstatus.Options{RateLimiter: fastRetries(), SkipNameValidation: true},
		ResourceBinding:        bindingstatus.Options{RateLimiter: fastRetries(), SkipNameValidation: true},
		ClusterResourceBinding: bindingstatus.Options{RateLimiter: fastRetries(), SkipNameValidation: true},
	}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	c.stop = func() { cancel(); <-done }
	return c
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// reconciles returns controller-runtime's count of finished reconciles of
// controller with result ("success", "error", "requeue"...; "" for all).
func reconciles(t *testing.T, controller, result string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			if label(m, "controller") == controller && (result == "" || label(m, "result") == result) {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// summarize counts writes by a short description, for the test log.
func summarize(lines []string) string {
	counts := map[string]int{}
	for _, l := range lines {
		counts[shorten(l)]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "\n  %3d  %s", counts[k], k)
	}
	return b.String()
}

func shorten(line string) string {
	parts := strings.Fields(line)
	if len(parts) != 3 {
		return line
	}
	segs := strings.Split(strings.Trim(parts[2], "/"), "/")
	return parts[0] + " " + parts[1] + " " + strings.Join(segs[max(0, len(segs)-4):], "/")
}
