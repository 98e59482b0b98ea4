package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/propel-mc/propel/pkg/join"
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

func newJoinCommand(controlPlane *controlPlaneFlags) *cobra.Command {
	var clusterKubeconfig, clusterContext string
	var opts join.Options
	cmd := &cobra.Command{
		Use:   "join CLUSTER_NAME --cluster-kubeconfig=FILE",
		Short: "Register a member cluster with the control plane (as karmadactl join does)",
		Args:  cobra.ExactArgs(1),
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
			if _, err := join.Join(cmd.Context(), cp, member, opts); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "cluster(%s) is joined successfully\n", opts.Name)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&clusterKubeconfig, "cluster-kubeconfig", "", "Member cluster kubeconfig.")
	f.StringVar(&clusterContext, "cluster-context", "", "Context in the member kubeconfig.")
	f.StringVar(&opts.Provider, "cluster-provider", "", "Provider of the member cluster.")
	f.StringVar(&opts.Region, "cluster-region", "", "Region of the member cluster.")
	f.StringSliceVar(&opts.Zones, "cluster-zones", nil, "Zones of the member cluster.")
	_ = cmd.MarkFlagRequired("cluster-kubeconfig")
	return cmd
}

func newUnjoinCommand(controlPlane *controlPlaneFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:               "unjoin CLUSTER_NAME",
		Short:             "Remove a member cluster from the control plane; what it runs stays",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeClusterNames(controlPlane),
		RunE: func(cmd *cobra.Command, args []string) error {
			cp, err := controlPlane.restConfig()
			if err != nil {
				return err
			}
			if err := join.Unjoin(cmd.Context(), cp, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "cluster(%s) is unjoined successfully\n", args[0])
			return nil
		},
	}
	return cmd
}
