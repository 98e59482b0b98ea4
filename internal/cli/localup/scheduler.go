package localup

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/propel-mc/propel/internal/app/managerbase"
	"github.com/propel-mc/propel/internal/app/schedulermanager"
	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
)

// schedulerBinary is cmd/propel-scheduler, the drop-in for karmada-scheduler.
const schedulerBinary = "propel-scheduler"

// schedulerFlags are propel-scheduler's flags in local-up: the control
// plane's admin kubeconfig, karmada-scheduler's Lease in karmada-system,
// metrics, health and pprof on serving's addresses (local-up's ports, not
// Karmada's defaults, which collide with the controller manager's), the
// same feature gates as the controller manager, then extra (a later flag
// wins).
func schedulerFlags(kubeconfig string, serving managerbase.Serving, extra []string) []string {
	out := []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect-resource-namespace=" + names.SystemNamespace,
		"--metrics-bind-address=" + serving.MetricsBindAddress,
		"--health-probe-bind-address=" + serving.HealthProbeBindAddress,
		"--profiling-bind-address=" + serving.ProfilingBindAddress,
		"--feature-gates=" + FeatureGates,
	}
	return append(out, extra...)
}

// schedulerServing is where propel-scheduler serves with flags: they are
// parsed as propel-scheduler parses them, so that an address given in
// --scheduler-args is the one printed. Flags of the command line that the
// options do not have (klog's) are ignored here.
func schedulerServing(flags []string) (managerbase.Serving, error) {
	opts := schedulermanager.NewOptions()
	fs := pflag.NewFlagSet(schedulerBinary, pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	opts.AddFlags(fs)
	if err := fs.Parse(flags); err != nil {
		return managerbase.Serving{}, fmt.Errorf("%s flags: %w", schedulerBinary, err)
	}
	return opts.Serving, nil
}

// startScheduler runs propel-scheduler as its own process, as Karmada runs
// karmada-scheduler beside karmada-controller-manager; waitReady waits for it.
func startScheduler(o Options, progress *localenv.Progress, env *localenv.Environment, bin string) (*localenv.Process, *Serving, error) {
	var want managerbase.Serving
	if err := defaultServing(o.Out, schedulerBinary, &want, o.Ports.SchedulerMetrics, o.Ports.SchedulerHealth, o.Ports.SchedulerPprof); err != nil {
		return nil, nil, err
	}
	flags := schedulerFlags(env.ControlPlane.Kubeconfig, want, o.SchedulerArgs)
	got, err := schedulerServing(flags)
	if err != nil {
		return nil, nil, err
	}
	serving := servingOf(got)
	progress.Starting(schedulerBinary)
	fmt.Fprintf(o.Out, "    flags: %s\n", strings.Join(flags[1:], " "))
	p, err := localenv.StartProcess(schedulerBinary, bin, flags, env.LogDir)
	if err != nil {
		return nil, nil, err
	}
	return p, &serving, nil
}

// waitReady waits until p answers s.Readyz, and reports it; without
// health probes there is nothing to wait for.
func waitReady(ctx context.Context, progress *localenv.Progress, p *localenv.Process, s Serving) error {
	if s.Readyz == "" {
		return nil
	}
	if err := p.WaitUntil(ctx, s.Readyz, httpOK(s.Readyz)); err != nil {
		return err
	}
	progress.Ready(p.Name)
	return nil
}
