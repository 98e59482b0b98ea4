package v1alpha2

import (
	"context"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	corev1 "k8s.io/api/core/v1"
)

func TestIsWorkload(t *testing.T) {
	cases := []struct {
		name string
		spec ResourceBindingSpec
		want bool
	}{
		{"no replicas, no requirements, no components (a ConfigMap)", ResourceBindingSpec{}, false},
		{"replicas", ResourceBindingSpec{Replicas: 3}, true},
		// A Deployment scaled to 0 with requests still is a workload: it
		// is not propagated whole to clusters the strategy dropped.
		{"requirements only (scaled to zero)", ResourceBindingSpec{ReplicaRequirements: &ReplicaRequirements{
			ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}, true},
		// Under MultiplePodTemplatesScheduling the detector sets components
		// instead of replicas and requirements.
		{"one component", ResourceBindingSpec{Components: []Component{{Name: "a", Replicas: 1}}}, true},
		{"two components", ResourceBindingSpec{Components: []Component{{Name: "a"}, {Name: "b"}}}, true},
		{"placement alone does not make a workload", ResourceBindingSpec{Clusters: []TargetCluster{{Name: "m1", Replicas: 2}}}, false},
	}
	for _, c := range cases {
		if got := c.spec.IsWorkload(); got != c.want {
			t.Errorf("%s: IsWorkload() = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestBindingAccessors(t *testing.T) {
	rb := &ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nginx-deployment",
		Labels: map[string]string{ResourceBindingPermanentIDLabel: "id-1"}}}
	crb := &ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "crd-foo",
		Labels: map[string]string{ClusterResourceBindingPermanentIDLabel: "id-2"}}}

	for _, c := range []struct {
		b           Binding
		kind, name  string
		namespaced  bool
		label, id   string
		annotations map[string]string
	}{
		{rb, ResourceBindingKind, "ResourceBinding default/nginx-deployment", true, ResourceBindingPermanentIDLabel, "id-1",
			map[string]string{ResourceBindingNamespaceAnnotation: "default", ResourceBindingNameAnnotation: "nginx-deployment"}},
		{crb, ClusterResourceBindingKind, "ClusterResourceBinding crd-foo", false, ClusterResourceBindingPermanentIDLabel, "id-2",
			map[string]string{ClusterResourceBindingNameAnnotation: "crd-foo"}},
	} {
		if c.b.BindingKind() != c.kind || c.b.Namespaced() != c.namespaced || BindingName(c.b) != c.name {
			t.Errorf("%s: kind %q namespaced %v name %q", c.name, c.b.BindingKind(), c.b.Namespaced(), BindingName(c.b))
		}
		if c.b.PermanentIDLabel() != c.label || PermanentID(c.b) != c.id {
			t.Errorf("%s: permanent id %q=%q", c.name, c.b.PermanentIDLabel(), PermanentID(c.b))
		}
		a := c.b.WorkAnnotations()
		if len(a) != len(c.annotations) {
			t.Errorf("%s: work annotations %v, want %v", c.name, a, c.annotations)
		}
		for k, v := range c.annotations {
			if a[k] != v {
				t.Errorf("%s: work annotation %s=%q, want %q", c.name, k, a[k], v)
			}
		}
		// The Work's annotations lead back to the binding, and only for
		// its own kind.
		if key, ok := BindingOfWork(a, c.namespaced); !ok || key.Namespace != c.b.GetNamespace() || key.Name != c.b.GetName() {
			t.Errorf("%s: BindingOfWork(%v) = %v, %v", c.name, a, key, ok)
		}
		if key, ok := BindingOfWork(a, !c.namespaced); ok {
			t.Errorf("%s: BindingOfWork of the other kind = %v, want none", c.name, key)
		}
		// Spec and status are the object's own, not copies.
		c.b.BindingSpec().Replicas = 7
		c.b.BindingStatus().SchedulerObservedGeneration = 4
		if got, ok := AsBinding(c.b); !ok || got.BindingSpec().Replicas != 7 || got.BindingStatus().SchedulerObservedGeneration != 4 {
			t.Errorf("%s: spec/status accessors do not point into the object", c.name)
		}
	}
	if rb.Spec.Replicas != 7 || crb.Status.SchedulerObservedGeneration != 4 {
		t.Error("accessors returned copies")
	}
	if _, ok := AsBinding(&corev1.ConfigMap{}); ok {
		t.Error("AsBinding accepted a non-binding")
	}
	if _, ok := NewBindingFor(types.NamespacedName{Name: "x"}).(*ClusterResourceBinding); !ok {
		t.Error("a key without namespace must address a ClusterResourceBinding")
	}
	if _, ok := NewBindingFor(types.NamespacedName{Namespace: "ns", Name: "x"}).(*ResourceBinding); !ok {
		t.Error("a namespaced key must address a ResourceBinding")
	}
}

// ListBindings lists ResourceBindings of one namespace (or all) and, when
// asked, the ClusterResourceBindings; the list options apply to both.
func TestListBindings(t *testing.T) {
	objs := []client.Object{
		&ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "rb-a", Labels: map[string]string{"x": "1"}}},
		&ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "rb-b", Labels: map[string]string{"x": "1"}}},
		&ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "crb", Labels: map[string]string{"x": "1"}}},
		&ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "crb-other"}},
	}
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	for _, tc := range []struct {
		namespace     string
		clusterScoped bool
		want          []string
	}{
		{"a", false, []string{"ResourceBinding a/rb-a"}},
		{"", false, []string{"ResourceBinding a/rb-a", "ResourceBinding b/rb-b"}},
		{"a", true, []string{"ResourceBinding a/rb-a", "ClusterResourceBinding crb"}},
		{"", true, []string{"ResourceBinding a/rb-a", "ResourceBinding b/rb-b", "ClusterResourceBinding crb"}},
	} {
		bindings, err := ListBindings(context.Background(), c, tc.namespace, tc.clusterScoped, client.MatchingLabels{"x": "1"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range bindings {
			got = append(got, BindingName(b))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("ListBindings(%q, %v) = %v, want %v", tc.namespace, tc.clusterScoped, got, tc.want)
		}
	}
}
