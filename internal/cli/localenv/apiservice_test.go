package localenv

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakedynamic "k8s.io/client-go/dynamic/fake"
)

func apiService(conditions ...interface{}) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]interface{}{"name": "v1alpha1.cluster.karmada.io"},
	}}
	if conditions != nil {
		u.Object["status"] = map[string]interface{}{"conditions": conditions}
	}
	return u
}

// An aggregated API is usable only once its APIService is Available; until
// then the error names the APIService and why it is not.
func TestAPIServiceAvailable(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  *unstructured.Unstructured
		want string // "" means available
	}{
		{"available", apiService(map[string]interface{}{"type": "Available", "status": "True", "reason": "Passed"}), ""},
		{"discovery check failing", apiService(map[string]interface{}{"type": "Available", "status": "False", "reason": "FailedDiscoveryCheck", "message": "failing or missing response"}),
			"APIService v1alpha1.cluster.karmada.io is not Available: FailedDiscoveryCheck: failing or missing response"},
		{"no status yet", apiService(), "APIService v1alpha1.cluster.karmada.io has no Available condition yet"},
	} {
		dyn := fakedynamic.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{apiServices: "APIServiceList"}, tc.obj)
		err := APIServiceAvailable(context.Background(), dyn, "v1alpha1.cluster.karmada.io")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	dyn := fakedynamic.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{apiServices: "APIServiceList"})
	if err := APIServiceAvailable(context.Background(), dyn, "v1alpha1.cluster.karmada.io"); err == nil || !strings.Contains(err.Error(), "read APIService v1alpha1.cluster.karmada.io") {
		t.Errorf("missing APIService: got %v", err)
	}
}
