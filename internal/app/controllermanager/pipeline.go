package controllermanager

import (
	"context"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/controllers/cluster/lifecycle"
	clusterstatus "github.com/propel-mc/propel/internal/controllers/cluster/status"
	"github.com/propel-mc/propel/internal/controllers/namespacesync"
	"github.com/propel-mc/propel/internal/pipeline/binding/overrides"
	"github.com/propel-mc/propel/internal/pipeline/execution"
	"github.com/propel-mc/propel/internal/pipeline/status"
	"github.com/propel-mc/propel/internal/pipeline/status/templatestatus"
)

// setupCluster starts the cluster controller and, as in Karmada, the
// taint manager under the same name ("cluster").
func setupCluster(ctx context.Context, c *Context) error {
	if err := lifecycle.New(lifecycle.Options{
		Workers: c.Options.ConcurrentClusterSyncs, MonitorPeriod: c.Options.ClusterMonitorPeriod,
		MonitorGracePeriod: c.Options.ClusterMonitorGracePeriod, StartupGracePeriod: c.Options.ClusterStartupGracePeriod,
	}).SetupWithManager(c.Manager); err != nil {
		return err
	}
	return setupTaintManager(ctx, c)
}

func setupClusterStatus(_ context.Context, c *Context) error {
	inf, err := c.MemberInformers()
	if err != nil {
		return err
	}
	return clusterstatus.New(c.MemberClients, inf, clusterstatus.Options{
		Workers: c.Options.ConcurrentClusterSyncs, UpdateFrequency: c.Options.ClusterStatusUpdateFrequency,
		SuccessThreshold: c.Options.ClusterSuccessThreshold, FailureThreshold: c.Options.ClusterFailureThreshold,
		CacheSyncTimeout: c.Options.ClusterCacheSyncTimeout, DisableResourceModeling: !c.Options.EnableClusterResourceModeling,
	}).SetupWithManager(c.Manager)
}

func setupExecution(_ context.Context, c *Context) error {
	inf, err := c.MemberInformers()
	if err != nil {
		return err
	}
	ws, err := c.WorkStatus()
	if err != nil {
		return err
	}
	return execution.New(execution.Deps{
		Client: c.Manager.GetClient(), Clients: c.MemberClients, Informers: inf, Status: ws,
		Interpreter: c.Interpreter, Recorder: recorder.For(c.Manager, "execution-controller"),
	}, execution.Options{Concurrency: c.Options.ConcurrentWorkSyncs}).SetupWithManager(c.Manager)
}

func statusDeps(c *Context) (status.Deps, error) {
	inf, err := c.MemberInformers()
	if err != nil {
		return status.Deps{}, err
	}
	cfg := c.Manager.GetConfig()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return status.Deps{}, err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return status.Deps{}, err
	}
	return status.Deps{
		Manager: c.Manager, Clients: c.MemberClients, Informers: inf, Interpreter: c.Interpreter,
		Templates:       templatestatus.NewDynamic(dyn, c.Manager.GetRESTMapper(), disc),
		CachedTemplates: c.Templates,
	}, nil
}

func setupWorkStatus(_ context.Context, c *Context) error {
	_, err := c.WorkStatus()
	return err
}

func setupBindingStatus(_ context.Context, c *Context) error {
	deps, err := statusDeps(c)
	if err != nil {
		return err
	}
	return status.SetupBindingStatus(deps, status.Options{})
}

func setupNamespaceSync(_ context.Context, c *Context) error {
	r, err := namespacesync.New(namespacesync.Options{
		Workers: c.Options.ConcurrentNamespaceSyncs, SkippedPropagatingNamespaces: c.Options.SkippedPropagatingNamespaces,
		Overrides: overrides.ClusterApplier{Reader: c.Manager.GetClient()},
	})
	if err != nil {
		return err
	}
	return r.SetupWithManager(c.Manager)
}
