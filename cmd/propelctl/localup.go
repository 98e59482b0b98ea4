package main

import (
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/internal/cli/localup"
)

func newLocalUpCommand() *cobra.Command {
	var o localup.Options
	cmd := &cobra.Command{
		Use:   "local-up",
		Short: "Run a local control plane, member clusters, propel-controller-manager and propel-scheduler until Ctrl-C",
		Example: `  # A control plane and three members under ~/.propel/local-up (until Ctrl-C)
  propelctl local-up

  # One member, from a clean state directory
  propelctl local-up --members 1 --fresh

  # With Karmada's webhook and aggregated API server beside Propel
  propelctl local-up --karmada-bin-dir ./karmada/_output/bin`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out = cmd.OutOrStdout()
			return localup.Run(ctrl.SetupSignalHandler(), o)
		},
	}
	cmd.Flags().StringVar(&o.Dir, "dir", localup.DefaultDir(), "Directory holding all state; reused by the next local-up.")
	cmd.Flags().IntVar(&o.Members, "members", 3, "Number of member clusters.")
	cmd.Flags().BoolVar(&o.Fresh, "fresh", false, "Wipe the state directory first.")
	cmd.Flags().StringVar(&o.KarmadaBinDir, "karmada-bin-dir", "", "Directory of Karmada's binaries to run beside Propel: karmada-aggregated-apiserver, karmada-webhook, karmada-search, karmada-metrics-adapter (each one present runs).")
	cmd.Flags().StringArrayVar(&o.ControllerManagerArgs, "controller-manager-args", nil, "A flag for propel-controller-manager, after local-up's own (repeatable), e.g. --controller-manager-args=--feature-gates=AllAlpha=true,AllBeta=true.")
	cmd.Flags().StringSliceVar(&o.GrantTemplates, "grant-templates", nil, "API groups ('*' for all) whose templates propel-controller-manager may claim beyond its least-privilege role, as a user grants their CRDs' kinds; Karmada's e2e suite needs '*'.")
	cmd.Flags().StringArrayVar(&o.SchedulerArgs, "scheduler-args", nil, "A flag for propel-scheduler, after local-up's own (repeatable).")
	cmd.Flags().BoolVar(&o.Estimators, "estimators", true, "Run a propel-scheduler-estimator per member (Service karmada-scheduler-estimator-<member> in karmada-system) and start the scheduler with --enable-scheduler-estimator=true, as Karmada's local-up does; skipped when the binary is not next to propelctl or in PATH.")
	cmd.Flags().StringArrayVar(&o.EstimatorArgs, "estimator-args", nil, "A flag for every propel-scheduler-estimator, after local-up's own (repeatable), e.g. --estimator-args=--feature-gates=AllAlpha=true,AllBeta=true.")
	o.Ports = localup.DefaultPorts
	cmd.Flags().IntVar(&o.Ports.ControllerManagerMetrics, "controller-manager-metrics-port", o.Ports.ControllerManagerMetrics, "Loopback port of propel-controller-manager's metrics (a free port when taken; 0 turns them off).")
	cmd.Flags().IntVar(&o.Ports.ControllerManagerHealth, "controller-manager-health-port", o.Ports.ControllerManagerHealth, "Loopback port of propel-controller-manager's /healthz and /readyz (a free port when taken; 0 turns them off).")
	cmd.Flags().IntVar(&o.Ports.ControllerManagerPprof, "controller-manager-pprof-port", o.Ports.ControllerManagerPprof, "Loopback port of propel-controller-manager's pprof, served with --controller-manager-args=--enable-pprof.")
	cmd.Flags().IntVar(&o.Ports.SchedulerMetrics, "scheduler-metrics-port", o.Ports.SchedulerMetrics, "Loopback port of propel-scheduler's metrics (a free port when taken; 0 turns them off).")
	cmd.Flags().IntVar(&o.Ports.SchedulerHealth, "scheduler-health-port", o.Ports.SchedulerHealth, "Loopback port of propel-scheduler's /healthz and /readyz (a free port when taken; 0 turns them off).")
	cmd.Flags().IntVar(&o.Ports.SchedulerPprof, "scheduler-pprof-port", o.Ports.SchedulerPprof, "Loopback port of propel-scheduler's pprof, served with --scheduler-args=--enable-pprof.")
	return cmd
}

func newLocalDownCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "local-down",
		Short: "Stop a running local-up",
		Example: `  # Stop the local-up of the default state directory
  propelctl local-down

  # Stop the one of another directory
  propelctl local-down --dir /tmp/propel-local`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return localup.Down(dir, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&dir, "dir", localup.DefaultDir(), "The local-up state directory.")
	return cmd
}

func newDemoCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Apply the seed scenarios to a running local-up and print what runs where",
		Example: `  # In a second terminal while propelctl local-up runs
  propelctl demo`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return localup.Demo(cmd.Context(), dir, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&dir, "dir", localup.DefaultDir(), "The local-up state directory.")
	return cmd
}
