package controllermanager

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// An aggregated API server that never answers its discovery request fails
// its group instead of stalling the detector's discovery: the groups that
// answer are returned with ErrGroupDiscoveryFailed naming the silent one.
func TestDetectorDiscoveryBoundsASilentGroup(t *testing.T) {
	release := make(chan struct{})
	write := func(w http.ResponseWriter, v interface{}) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api":
			write(w, &metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}})
		case "/apis":
			group := func(name string) metav1.APIGroup {
				gv := metav1.GroupVersionForDiscovery{GroupVersion: name + "/v1", Version: "v1"}
				return metav1.APIGroup{Name: name, Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv}
			}
			write(w, &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList"}, Groups: []metav1.APIGroup{group("rbac.authorization.k8s.io"), group("silent.example.io")}})
		case "/api/v1", "/apis/rbac.authorization.k8s.io/v1":
			gv := "v1"
			if r.URL.Path != "/api/v1" {
				gv = "rbac.authorization.k8s.io/v1"
			}
			write(w, &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList"}, GroupVersion: gv,
				APIResources: []metav1.APIResource{{Name: "things", Kind: "Thing", Namespaced: true, Verbs: []string{"list", "watch", "delete"}}}})
		case "/apis/silent.example.io/v1":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	defer close(release)

	disc, err := detectorDiscovery(&rest.Config{Host: srv.URL}, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		lists []*metav1.APIResourceList
		err   error
	}
	done := make(chan result, 1)
	go func() {
		lists, err := disc.ServerPreferredResources()
		done <- result{lists, err}
	}()
	var got result
	select {
	case got = <-done:
	case <-time.After(time.Minute):
		t.Fatal("discovery is still waiting for the silent group")
	}
	var groupErr *discovery.ErrGroupDiscoveryFailed
	if !errors.As(got.err, &groupErr) || len(groupErr.Groups) != 1 {
		t.Fatalf("got error %v, want the silent group failed", got.err)
	}
	found := map[string]bool{}
	for _, l := range got.lists {
		found[l.GroupVersion] = len(l.APIResources) > 0
	}
	if !found["v1"] || !found["rbac.authorization.k8s.io/v1"] {
		t.Fatalf("discovered %v, want v1 and rbac.authorization.k8s.io/v1", found)
	}
}
