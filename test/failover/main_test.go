// Package failover runs cluster failover end to end: Propel's controller
// manager with the Failover gate and NoExecute taint eviction on, a
// ClusterTaintPolicy, and three members whose Deployments get Ready pods
// (kwok). Cluster health timings are shortened by flags so that a member
// is reported not Ready a few seconds after its API server stops.
package failover

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/propel-mc/propel/internal/app/controllermanager"
	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/test/harness"
)

var env *harness.Env

func members() []localenv.MemberOptions {
	return []localenv.MemberOptions{
		{Name: "member1", Workloads: true, Region: "region-a", Zone: "zone-a1", Provider: "local"},
		{Name: "member2", Workloads: true, Region: "region-b", Zone: "zone-b1", Provider: "local"},
		{Name: "member3", Workloads: true, Region: "region-b", Zone: "zone-b2", Provider: "local"},
	}
}

func TestMain(m *testing.M) {
	harness.Main(m, harness.Options{Members: members()}, &env, startControllerManager)
}

// failoverArgs are the flags the tests run the controller manager with,
// as a user enabling cluster failover would pass them.
var failoverArgs = []string{
	"--controllers=*,scheduler",
	"--feature-gates=Failover=true",
	"--enable-no-execute-taint-eviction=true",
	"--resource-eviction-rate=50",
	"--cluster-status-update-frequency=1s",
	"--cluster-failure-threshold=2s",
	"--cluster-success-threshold=2s",
	"--cluster-monitor-period=1s",
	"--cluster-monitor-grace-period=4s",
	"--cluster-startup-grace-period=8s",
	"--graceful-eviction-timeout=2m",
}

func startControllerManager(ctx context.Context, e *harness.Env) error {
	logFile, err := os.Create(filepath.Join(e.LogDir, "propel-controller-manager.log"))
	if err != nil {
		return err
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(logFile), zap.UseDevMode(true)))
	o := controllermanager.NewOptions()
	fs := pflag.NewFlagSet("propel-controller-manager", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(failoverArgs); err != nil {
		return err
	}
	o.Kubeconfig = e.ControllerManagerKubeconfig()
	o.LeaderElect = false
	o.MetricsBindAddress, o.HealthProbeBindAddress = "0", "0"
	mgr, _, err := controllermanager.Build(ctx, o)
	if err != nil {
		return err
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "controller manager stopped:", err)
		}
	}()
	return nil
}

func membersReady(t *testing.T) {
	t.Helper()
	for _, m := range env.MemberNames() {
		env.WaitClusterReady(t, m, harness.Timeout(3*time.Minute), harness.LogsIn(env.LogDir))
	}
}
