package main

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// completionTimeout bounds the control plane requests of one completion:
// a shell waits for them.
const completionTimeout = 5 * time.Second

// completeResourceNames completes a RESOURCE/NAME argument: the resources
// the control plane serves, then, after the slash, the names of that
// resource in the namespace of the context (or -n).
func completeResourceNames(cp *controlPlaneFlags) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
		defer cancel()
		resource, prefix, named := strings.Cut(toComplete, "/")
		if !named {
			return completeResources(cp, toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
		}
		clients, err := cp.clients()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		gvk, namespaced, err := clients.ResolveKind(resource)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		var opts []client.ListOption
		if namespaced {
			ns, err := cp.namespace()
			if err != nil {
				return nil, cobra.ShellCompDirectiveError
			}
			opts = append(opts, client.InNamespace(ns))
		}
		if err := clients.Client.List(ctx, list, opts...); err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var out []string
		for _, item := range list.Items {
			if strings.HasPrefix(item.Name, prefix) {
				out = append(out, resource+"/"+item.Name)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeResources lists the listable resources of the control plane, as
// "plural/" (core group) or "plural.group/".
func completeResources(cp *controlPlaneFlags, prefix string) []string {
	cfg, err := cp.restConfig()
	if err != nil {
		return nil
	}
	cfg.Timeout = completionTimeout
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil
	}
	// A group that fails discovery leaves the others' resources.
	lists, _ := dc.ServerPreferredResources()
	var out []string
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") {
				continue
			}
			name := r.Name
			if gv.Group != "" {
				name += "." + gv.Group
			}
			if strings.HasPrefix(name, prefix) {
				out = append(out, name+"/")
			}
		}
	}
	slices.Sort(out)
	return out
}

// completeClusterNames completes a member cluster's name from the control
// plane's Cluster objects.
func completeClusterNames(cp *controlPlaneFlags) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return completeListedNames(cmd, cp, &clusterv1alpha1.ClusterList{}, toComplete)
	}
}

// completeListedNames completes the names of the control plane's objects
// of list's type that start with toComplete.
func completeListedNames(cmd *cobra.Command, cp *controlPlaneFlags, list client.ObjectList, toComplete string) ([]string, cobra.ShellCompDirective) {
	clients, err := cp.clients()
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
	defer cancel()
	if err := clients.Client.List(ctx, list); err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	var out []string
	if err := meta.EachListItem(list, func(o runtime.Object) error {
		if name := o.(metav1.Object).GetName(); strings.HasPrefix(name, toComplete) {
			out = append(out, name)
		}
		return nil
	}); err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// registerFlagCompletions completes the root's --namespace from the
// control plane and --context, --karmada-context, --cluster and --user
// from the kubeconfig, as kubectl does.
func registerFlagCompletions(root *cobra.Command, cp *controlPlaneFlags) {
	_ = root.RegisterFlagCompletionFunc("namespace", func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeListedNames(cmd, cp, &corev1.NamespaceList{}, toComplete)
	})
	fromKubeconfig := func(names func(contexts, clusters, users []string) []string) cobra.CompletionFunc {
		return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			raw, err := cp.config.ToRawKubeConfigLoader().RawConfig()
			if err != nil {
				return nil, cobra.ShellCompDirectiveError
			}
			var contexts, clusters, users []string
			for name := range raw.Contexts {
				contexts = append(contexts, name)
			}
			for name := range raw.Clusters {
				clusters = append(clusters, name)
			}
			for name := range raw.AuthInfos {
				users = append(users, name)
			}
			var out []string
			for _, name := range names(contexts, clusters, users) {
				if strings.HasPrefix(name, toComplete) {
					out = append(out, name)
				}
			}
			slices.Sort(out)
			return out, cobra.ShellCompDirectiveNoFileComp
		}
	}
	contexts := fromKubeconfig(func(contexts, _, _ []string) []string { return contexts })
	_ = root.RegisterFlagCompletionFunc("context", contexts)
	_ = root.RegisterFlagCompletionFunc("karmada-context", contexts)
	_ = root.RegisterFlagCompletionFunc("cluster", fromKubeconfig(func(_, clusters, _ []string) []string { return clusters }))
	_ = root.RegisterFlagCompletionFunc("user", fromKubeconfig(func(_, _, users []string) []string { return users }))
}
