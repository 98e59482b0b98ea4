package lifecycle

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/test/harness"
)

// schedulerReconciles sums controller_runtime_reconcile_total of the
// scheduler controller (default-scheduler) at addr; 0 when it never ran.
func schedulerReconciles(ctx context.Context, addr string) (float64, error) {
	text, err := harness.ScrapeMetrics(ctx, addr)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, s := range harness.Samples(text, "controller_runtime_reconcile_total") {
		if s.Labels["controller"] == "scheduler-"+names.DefaultSchedulerName {
			total += s.Value
		}
	}
	return total, nil
}

// TestOneSchedulerAtATime runs propel-scheduler and a controller manager
// with its in-process scheduler (--controllers=*,scheduler) against one
// control plane. Both compete for Lease karmada-scheduler: propel-scheduler,
// started first, holds it and places every binding; the in-process
// scheduler waits and reconciles nothing, although its controller manager
// leads and runs every other controller. When propel-scheduler dies, the
// in-process scheduler takes the Lease and schedules new templates.
func TestOneSchedulerAtATime(t *testing.T) {
	const ns = "lifecycle-two-schedulers"
	createNamespace(t, names.SystemNamespace)
	createNamespace(t, ns)
	schedBin := buildBinary(t, "propel-scheduler")
	election := []string{"--leader-elect=true", "--leader-elect-lease-duration=8s",
		"--leader-elect-renew-deadline=6s", "--leader-elect-retry-period=1s"}
	schedAddr, cmAddr := freeAddr(t), freeAddr(t)
	sched, err := localenv.StartProcess("scheduler-beside-cm", schedBin, append(election,
		"--kubeconfig="+env.ControllerManagerKubeconfig(), "--metrics-bind-address="+schedAddr, "--health-probe-bind-address=0"), env.LogDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sched.Stop)
	harness.Eventually(t, "propel-scheduler holds karmada-scheduler", func(ctx context.Context) (bool, error) {
		status, err := leaderStatus(ctx, schedAddr, names.SchedulerLease)
		return status == 1, err
	}, harness.Timeout(2*time.Minute), harness.WhileRunning(sched), harness.LogsIn(env.LogDir))

	cm := startControllerManager(t, "cm-with-scheduler", append(election, "--metrics-bind-address="+cmAddr)...)
	both := []*localenv.Process{sched, cm}
	harness.Eventually(t, "the controller manager leads its own Lease and its scheduler waits for karmada-scheduler", func(ctx context.Context) (bool, error) {
		own, err := leaderStatus(ctx, cmAddr, names.ControllerManagerLease)
		if err != nil || own != 1 {
			return false, err
		}
		status, err := leaderStatus(ctx, cmAddr, names.SchedulerLease)
		if status == 1 {
			return false, fmt.Errorf("the in-process scheduler leads karmada-scheduler while propel-scheduler holds it")
		}
		return status == 0, err
	}, harness.Timeout(2*time.Minute), harness.WhileRunning(both...), harness.LogsIn(env.LogDir))
	waitClustersReady(t, both...)

	createPolicy(t, ns, "two-schedulers")
	first := createDeployments(t, ns, "two-schedulers", "two-schedulers", 5)
	expectPropagated(t, ns, first, 3*time.Minute, both...)
	ctx := context.Background()
	for _, c := range []struct {
		who, addr string
		leads     float64
	}{{"propel-scheduler", schedAddr, 1}, {"the in-process scheduler", cmAddr, 0}} {
		status, err := leaderStatus(ctx, c.addr, names.SchedulerLease)
		if err != nil || status != c.leads {
			t.Errorf("%s: leader_election_master_status{name=%q} = %v (%v), want %v", c.who, names.SchedulerLease, status, err, c.leads)
		}
		n, err := schedulerReconciles(ctx, c.addr)
		if err != nil {
			t.Fatal(err)
		}
		if (n > 0) != (c.leads == 1) {
			t.Errorf("%s reconciled %v bindings while leading=%v", c.who, n, c.leads == 1)
		}
	}

	sched.Kill()
	harness.Eventually(t, "the in-process scheduler takes karmada-scheduler", func(ctx context.Context) (bool, error) {
		status, err := leaderStatus(ctx, cmAddr, names.SchedulerLease)
		return status == 1, err
	}, harness.Timeout(2*time.Minute), harness.WhileRunning(cm), harness.LogsIn(env.LogDir))
	second := createDeployments(t, ns, "two-schedulers-after", "two-schedulers", 3)
	expectPropagated(t, ns, append(first, second...), 3*time.Minute, cm)
	if n, err := schedulerReconciles(ctx, cmAddr); err != nil || n == 0 {
		t.Errorf("the in-process scheduler reconciled %v bindings after taking the Lease (%v)", n, err)
	}
}
