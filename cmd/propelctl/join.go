package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/propel-mc/propel/internal/cli/join"
	"github.com/propel-mc/propel/internal/shared/names"
)

func loadConfig(kubeconfig, context string) (*rest.Config, error) {
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig}
	if kubeconfig == "" {
		rules = clientcmd.NewDefaultClientConfigLoadingRules()
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig %q (context %q): %w", kubeconfig, context, err)
	}
	return cfg, nil
}

const joinExample = `  # Register the member in kubeconfig ./member1.config (its current context) as Cluster member1
  propelctl join member1 --cluster-kubeconfig=./member1.config

  # Pick a context of the member kubeconfig and record its topology
  propelctl join member1 --cluster-kubeconfig=$HOME/.kube/members --cluster-context=member1 \
    --cluster-provider=aws --cluster-region=eu-west-1 --cluster-zones=eu-west-1a,eu-west-1b

  # Print what would be created, creating nothing
  propelctl join member1 --cluster-kubeconfig=./member1.config --dry-run`

func newJoinCommand(controlPlane *controlPlaneFlags) *cobra.Command {
	var clusterKubeconfig, clusterContext string
	var dryRun bool
	var opts join.Options
	cmd := &cobra.Command{
		Use:     "join CLUSTER_NAME --cluster-kubeconfig=FILE",
		Short:   "Register a member cluster with the control plane in Push mode (as karmadactl join does)",
		Example: joinExample,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			cp, err := controlPlane.restConfig()
			if err != nil {
				return err
			}
			member, err := loadConfig(clusterKubeconfig, clusterContext)
			if err != nil {
				return err
			}
			return planOrRun(cmd, dryRun, "would create", func() (*join.Plan, error) {
				return join.PlanJoin(cmd.Context(), cp, member, opts)
			}, func() error {
				_, err := join.Join(cmd.Context(), cp, member, opts)
				return err
			}, fmt.Sprintf("cluster(%s) is joined successfully", opts.Name))
		},
	}
	f := cmd.Flags()
	f.StringVar(&clusterKubeconfig, "cluster-kubeconfig", "", "Member cluster kubeconfig.")
	f.StringVar(&clusterContext, "cluster-context", "", "Context in the member kubeconfig; its current context by default.")
	f.StringVar(&opts.ClusterNamespace, "cluster-namespace", names.ClusterNamespace, "Namespace, in the control plane and in the member, that holds the member's credentials.")
	f.StringVar(&opts.Provider, "cluster-provider", "", "Provider of the member cluster.")
	f.StringVar(&opts.Region, "cluster-region", "", "Region of the member cluster.")
	f.StringSliceVar(&opts.Zones, "cluster-zones", nil, "Zones of the member cluster.")
	f.DurationVar(&opts.TokenWait, "token-wait", join.DefaultTokenWait, "How long to wait for the member's token controller to fill in the ServiceAccount token Secrets.")
	f.BoolVar(&dryRun, "dry-run", false, "Print what would be created, creating nothing (the member and the control plane are still read for the checks).")
	_ = cmd.MarkFlagRequired("cluster-kubeconfig")
	return cmd
}

const unjoinExample = `  # Remove Cluster member1 from the control plane; what join created in the member stays
  propelctl unjoin member1

  # Also remove from the member what join created there
  propelctl unjoin member1 --cluster-kubeconfig=./member1.config

  # Wait up to two minutes for the cleanup, then remove the Cluster anyway
  propelctl unjoin member1 --cluster-kubeconfig=./member1.config --wait=2m --force`

func newUnjoinCommand(controlPlane *controlPlaneFlags) *cobra.Command {
	var clusterKubeconfig, clusterContext string
	var dryRun bool
	var opts join.UnjoinOptions
	cmd := &cobra.Command{
		Use:   "unjoin CLUSTER_NAME [--cluster-kubeconfig=FILE]",
		Short: "Remove a member cluster from the control plane, waiting for its cleanup (as karmadactl unjoin does)",
		Long: `Deletes the Cluster and waits until the controller manager has removed its
execution namespace (karmada-es-CLUSTER), and with it what was propagated to
the member, and the Cluster is gone. With --cluster-kubeconfig it then removes
from the member what join created there.`,
		Example:           unjoinExample,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeClusterNames(controlPlane),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if opts.Wait <= 0 {
				return fmt.Errorf("--wait %s must be a positive duration, e.g. 1m0s", opts.Wait)
			}
			cp, err := controlPlane.restConfig()
			if err != nil {
				return err
			}
			var member *rest.Config
			if clusterKubeconfig != "" {
				if member, err = loadConfig(clusterKubeconfig, clusterContext); err != nil {
					return err
				}
			}
			return planOrRun(cmd, dryRun, "would delete", func() (*join.Plan, error) {
				return join.PlanUnjoin(cmd.Context(), cp, member, opts)
			}, func() error {
				return join.Unjoin(cmd.Context(), cp, member, opts)
			}, fmt.Sprintf("cluster(%s) is unjoined successfully", opts.Name))
		},
	}
	f := cmd.Flags()
	f.StringVar(&clusterKubeconfig, "cluster-kubeconfig", "", "Member cluster kubeconfig; when set, what join created in the member is removed.")
	f.StringVar(&clusterContext, "cluster-context", "", "Context in the member kubeconfig; its current context by default.")
	f.StringVar(&opts.ClusterNamespace, "cluster-namespace", names.ClusterNamespace, "Namespace, in the control plane and in the member, that holds the member's credentials.")
	f.DurationVar(&opts.Wait, "wait", join.DefaultUnjoinWait, "How long to wait for the Cluster and its execution namespace to be removed; a timeout is an error unless --force.")
	f.BoolVar(&opts.Force, "force", false, "When the wait times out, remove the finalizers of the Cluster and of its Works so it goes anyway, and only warn when cleaning up the member fails; what was propagated to the member may stay.")
	f.BoolVar(&dryRun, "dry-run", false, "Print what would be deleted, deleting nothing.")
	return cmd
}

// planOrRun is --dry-run's fork of join and unjoin: with dryRun it prints
// the plan's steps as verb ("would create"), otherwise it runs and prints
// done.
func planOrRun(cmd *cobra.Command, dryRun bool, verb string, plan func() (*join.Plan, error), run func() error, done string) error {
	if dryRun {
		p, err := plan()
		if err != nil {
			return err
		}
		return p.Write(cmd.OutOrStdout(), verb)
	}
	if err := run(); err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), done)
	return nil
}
