// Package e2e runs Propel's controller manager, as the binary does, against
// a real control plane and real member clusters, and checks the seed
// scenarios end to end: template -> binding -> Works -> member objects ->
// status back on the template.
package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/propel-mc/propel/internal/app/controllermanager"
	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/test/harness"
)

var env *harness.Env

// members: member1 and member2 run real workloads (pods become Ready through
// kwok); member3 is a bare API server.
func members() []localenv.MemberOptions {
	return []localenv.MemberOptions{
		{Name: "member1", Workloads: true, Metrics: true, Region: "region-a", Zone: "zone-a1", Provider: "local"},
		{Name: "member2", Workloads: true, Metrics: true, Region: "region-b", Zone: "zone-b1", Provider: "local"},
		{Name: "member3", Region: "region-b", Zone: "zone-b2", Provider: "local"},
	}
}

func TestMain(m *testing.M) {
	harness.Main(m, harness.Options{Members: members()}, &env, startControllerManager)
}

// startControllerManager runs propel-controller-manager in-process with
// short intervals, as `propel-controller-manager --kubeconfig=...` would.
func startControllerManager(ctx context.Context, e *harness.Env) error {
	logFile, err := os.Create(filepath.Join(e.LogDir, "propel-controller-manager.log"))
	if err != nil {
		return err
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(logFile), zap.UseDevMode(true)))
	o := controllermanager.NewOptions()
	o.Kubeconfig = e.ControllerManagerKubeconfig()
	// One process runs everything here, the scheduler included.
	o.Controllers = []string{"*", "scheduler"}
	o.LeaderElect = false
	o.MetricsBindAddress, o.HealthProbeBindAddress = "0", "0"
	o.ClusterStatusUpdateFrequency = 2 * time.Second
	o.HPA.SyncPeriod = 5 * time.Second
	// The MultiClusterService controllers are alpha in Karmada (gate off);
	// TestMultiClusterService needs them.
	if err := o.FeatureGates.Set("MultiClusterService=true"); err != nil {
		return err
	}
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

// membersReady waits until every member is Ready without taints. Each test
// starts with it, so that any test runs alone (go test -run X) or after
// any other: the members join and turn Ready a few seconds after the
// environment starts, and a test that stops a member restores it.
func membersReady(t *testing.T) {
	t.Helper()
	for _, m := range env.MemberNames() {
		env.WaitClusterReady(t, m, harness.Timeout(3*time.Minute), harness.LogsIn(env.LogDir))
	}
}
