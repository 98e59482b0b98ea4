// Package controlplaneclient builds what a command-line tool needs to read
// a control plane: a direct (uncached) client with Propel's scheme, a
// discovery-backed RESTMapper that understands short names, and the
// resolution of a user's resource argument ("deploy", "deployments.apps",
// "Workload") to a kind.
package controlplaneclient

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/pkg/apis"
)

// Clients read one control plane.
type Clients struct {
	Config *rest.Config
	Client client.Client
	Mapper meta.RESTMapper
}

// New builds the clients of cfg.
func New(cfg *rest.Config) (*Clients, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	mapper := restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), dc, nil)
	c, err := client.New(cfg, client.Options{Scheme: apis.Scheme, Mapper: mapper})
	if err != nil {
		return nil, fmt.Errorf("control plane client: %w", err)
	}
	return &Clients{Config: cfg, Client: c, Mapper: mapper}, nil
}

// ResolveKind maps a resource argument ("deployment", "deploy",
// "deployments.apps", "deployments.v1.apps", "Deployment") to its kind
// and reports whether the kind is namespaced.
func (c *Clients) ResolveKind(resource string) (schema.GroupVersionKind, bool, error) {
	arg := strings.ToLower(resource)
	var gvk schema.GroupVersionKind
	var err error
	gvr, gr := schema.ParseResourceArg(arg)
	if gvr != nil {
		gvk, err = c.Mapper.KindFor(*gvr)
	}
	if gvr == nil || err != nil {
		gvk, err = c.Mapper.KindFor(gr.WithVersion(""))
	}
	if err != nil {
		return schema.GroupVersionKind{}, false, fmt.Errorf("resource %q: %w", resource, err)
	}
	mapping, err := c.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return schema.GroupVersionKind{}, false, fmt.Errorf("resource %q: %w", resource, err)
	}
	return gvk, mapping.Scope.Name() == meta.RESTScopeNameNamespace, nil
}
