package execution_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/pipeline/execution"
	"github.com/propel-mc/propel/internal/pipeline/status"
	"github.com/propel-mc/propel/internal/pipeline/status/bindingstatus"
	"github.com/propel-mc/propel/internal/pipeline/status/templatestatus"
	"github.com/propel-mc/propel/internal/pipeline/status/workstatus"
	"github.com/propel-mc/propel/internal/shared/index"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// The suite runs the execution controller with the status controllers
// that carry what it applied back (work status, binding status, template
// status) against one control plane with the default members: Works
// applied to members, drift, Retain, conflict resolution, deletion,
// member outages, the status flowing back through Works and bindings into
// the template, and the number of API writes all of it costs.
var env *harness.Env

func TestMain(m *testing.M) {
	// PROPEL_TEST_LOG=1 shows the controllers' logs.
	if os.Getenv("PROPEL_TEST_LOG") != "" {
		ctrl.SetLogger(zap.New(zap.UseDevMode(true)))
	} else {
		ctrl.SetLogger(logr.Discard())
	}
	harness.Main(m, harness.Options{}, &env)
}

// countingClients hands out member clients whose requests are logged.
type countingClients struct {
	inner  membercluster.ClientSource
	writes *harness.WriteCounter
	mu     sync.Mutex
	made   map[*membercluster.Member]*membercluster.Member
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
	cfg := c.writes.Count(m.Config, m.Name)
	w := &membercluster.Member{Name: m.Name, Config: cfg, Discovery: discovery.NewDiscoveryClientForConfigOrDie(cfg), Dynamic: dynamic.NewForConfigOrDie(cfg)}
	c.made[m] = w
	return w, nil
}

// controllers is one running manager with the execution and status
// controllers.
type controllers struct {
	cpWrites, memberWrites *harness.WriteCounter
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
	c := &controllers{cpWrites: &harness.WriteCounter{}, memberWrites: &harness.WriteCounter{}}
	cfg := c.cpWrites.Count(env.ControllerManagerConfig(), "karmada")
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	clients := &countingClients{inner: membercluster.New(mgr.GetClient(), membercluster.Options{}), writes: c.memberWrites,
		made: map[*membercluster.Member]*membercluster.Member{}}
	informers := membercluster.NewInformers(membercluster.InformerOptions{})
	c.informers = informers
	interp := resourceinterpreter.New(native.New())
	must(t, index.AddDefaultIndexes(context.Background(), mgr))
	must(t, informers.SetupWithManager(mgr, clients, true))
	ws, err := status.SetupWithManager(status.Deps{
		Manager: mgr, Clients: clients, Informers: informers, Interpreter: interp,
		Templates: templatestatus.NewDynamic(dynamic.NewForConfigOrDie(cfg), mgr.GetRESTMapper(), discovery.NewDiscoveryClientForConfigOrDie(cfg)),
	}, status.Options{
		Work:                   workstatus.Options{RateLimiter: fastRetries(), SkipNameValidation: true},
		ResourceBinding:        bindingstatus.Options{RateLimiter: fastRetries(), SkipNameValidation: true},
		ClusterResourceBinding: bindingstatus.Options{RateLimiter: fastRetries(), SkipNameValidation: true},
	})
	must(t, err)
	exec := execution.New(execution.Deps{
		Client: mgr.GetClient(), Clients: clients, Informers: informers, Interpreter: interp, Status: ws,
		//lint:ignore SA1019 Karmada emits core/v1 Events; the events.k8s.io recorder would change them on the wire
		Recorder: mgr.GetEventRecorderFor(names.ExecutionControllerName),
	}, execution.Options{RateLimiter: fastRetries(), SkipNameValidation: true})
	must(t, exec.SetupWithManager(mgr))
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
