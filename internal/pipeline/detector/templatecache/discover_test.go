package templatecache_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
	fakedynamic "k8s.io/client-go/dynamic/fake"
	kubetesting "k8s.io/client-go/testing"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
)

// partialDiscovery serves lists and fails the groups of failed (as the
// discovery client does when an aggregated API is unavailable).
type partialDiscovery struct {
	fakediscovery.FakeDiscovery
	lists  []*metav1.APIResourceList
	failed map[schema.GroupVersion]error
}

func (d *partialDiscovery) ServerPreferredResources() ([]*metav1.APIResourceList, error) {
	if len(d.failed) == 0 {
		return d.lists, nil
	}
	return d.lists, &discovery.ErrGroupDiscoveryFailed{Groups: d.failed}
}

func resourceList(gv string, kind, name string) *metav1.APIResourceList {
	return &metav1.APIResourceList{GroupVersion: gv, APIResources: []metav1.APIResource{{
		Name: name, Kind: kind, Namespaced: true, Verbs: []string{"create", "delete", "get", "list", "watch"},
	}}}
}

// A discovery that fails an aggregated group still yields the groups it
// found, before and after the failing one: their kinds are watched, and
// the failing group versions are logged and returned for a retry, and
// the failing group's kinds are added once it is served.
func TestDiscoverUsesPartialResults(t *testing.T) {
	disc := &partialDiscovery{
		FakeDiscovery: fakediscovery.FakeDiscovery{Fake: &kubetesting.Fake{}},
		lists: []*metav1.APIResourceList{
			resourceList("apps/v1", "Deployment", "deployments"),
			resourceList("rbac.authorization.k8s.io/v1", "Role", "roles"),
		},
		failed: map[schema.GroupVersion]error{{Group: "aggregated.example.io", Version: "v1"}: errors.New("the server is currently unable to handle the request")},
	}
	dyn := fakedynamic.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		{Group: "apps", Version: "v1", Resource: "deployments"}:                "DeploymentList",
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}: "RoleList",
		{Group: "aggregated.example.io", Version: "v1", Resource: "things"}:    "ThingList",
	})
	c, err := templatecache.New(dyn, disc, nil, templatecache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var logged []string
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), funcr.New(func(prefix, args string) {
		logged = append(logged, args)
	}, funcr.Options{})))
	defer cancel()
	var added []schema.GroupVersionKind
	onNew := func(gvk schema.GroupVersionKind, _ toolscache.SharedIndexInformer) error {
		added = append(added, gvk)
		return nil
	}
	failed := c.Discover(ctx, onNew)
	if failed == nil || !strings.Contains(failed.Error(), "aggregated.example.io/v1") {
		t.Fatalf("partial discovery returned %v, want the failing group version for a retry", failed)
	}
	if !strings.Contains(strings.Join(logged, "\n"), "aggregated.example.io/v1") {
		t.Fatalf("the failing group version was not logged: %q", logged)
	}
	want := []schema.GroupVersionKind{{Group: "apps", Version: "v1", Kind: "Deployment"}, {Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"}}
	if len(added) != 2 || added[0] != want[0] || added[1] != want[1] {
		t.Fatalf("partial discovery watched %v, want %v", added, want)
	}

	added = nil
	disc.lists = append(disc.lists, resourceList("aggregated.example.io/v1", "Thing", "things"))
	disc.failed = nil
	if err := c.Discover(ctx, onNew); err != nil {
		t.Fatalf("complete discovery returned %v", err)
	}
	if len(added) != 1 || added[0].Group != "aggregated.example.io" {
		t.Fatalf("rediscovery watched %v, want the recovered group's kind only", added)
	}
}
