package templatecache

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestSkipList(t *testing.T) {
	s, err := newSkipList("apps/v1/StatefulSet,DaemonSet; batch/v1 ;v1/Secret;example.io")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[schema.GroupVersionKind]bool{
		{Group: "apps", Version: "v1", Kind: "StatefulSet"}:           true,
		{Group: "apps", Version: "v1", Kind: "DaemonSet"}:             true,
		{Group: "apps", Version: "v1", Kind: "Deployment"}:            false,
		{Group: "batch", Version: "v1", Kind: "Job"}:                  true,
		{Version: "v1", Kind: "Secret"}:                               true,
		{Version: "v1", Kind: "ConfigMap"}:                            false,
		{Version: "v1", Kind: "Event"}:                                true,
		{Group: "example.io", Version: "v9", Kind: "Any"}:             true,
		{Group: "policy.karmada.io", Version: "v1alpha1", Kind: "PP"}: true,
		{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}:  true,
	}
	for gvk, want := range cases {
		if got := s.skipped(gvk); got != want {
			t.Errorf("skipped(%s) = %v, want %v", gvk, got, want)
		}
	}
	if _, err := newSkipList("a/b/c/d"); err == nil {
		t.Error("invalid entry accepted")
	}
}

func TestNamespaceFilter(t *testing.T) {
	f, err := newNamespaceFilter([]string{"kube-.*"})
	if err != nil {
		t.Fatal(err)
	}
	cm := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	for ns, want := range map[string]bool{"karmada-system": true, "karmada-cluster": true, "karmada-es-member1": true,
		"kube-public": true, "default": false, "my-kube-ns": false, "": false} {
		if got := f.ignored(cm, ns, "x"); got != want {
			t.Errorf("ignored(%q) = %v, want %v", ns, got, want)
		}
	}
}
