package localup

import (
	"context"
	"fmt"
	"strings"

	"github.com/propel-mc/propel/pkg/localenv"
	"github.com/propel-mc/propel/pkg/names"
)

// schedulerBinary is cmd/propel-scheduler, the drop-in for karmada-scheduler.
const schedulerBinary = "propel-scheduler"

// schedulerFlags are propel-scheduler's flags in local-up: the control
// plane's admin kubeconfig, karmada-scheduler's Lease in karmada-system,
// no metrics or health listeners (their default ports would collide with
// the controller manager's and other local-ups), the same feature gates as
// the controller manager, then extra (a later flag wins).
func schedulerFlags(kubeconfig string, extra []string) []string {
	out := []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect-resource-namespace=" + names.SystemNamespace,
		"--metrics-bind-address=0",
		"--health-probe-bind-address=0",
		"--feature-gates=" + FeatureGates,
	}
	return append(out, extra...)
}

// startScheduler runs propel-scheduler as its own process, as Karmada runs
// karmada-scheduler beside karmada-controller-manager.
func startScheduler(ctx context.Context, o Options, env *localenv.Environment, bin string) (*localenv.Process, error) {
	flags := schedulerFlags(env.ControlPlane.Kubeconfig, o.SchedulerArgs)
	p, err := localenv.StartProcess(schedulerBinary, bin, flags, env.LogDir)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Out, "local-up: %s running with %s (log: %s)\n", schedulerBinary, strings.Join(flags[1:], " "), p.LogPath)
	return p, nil
}
