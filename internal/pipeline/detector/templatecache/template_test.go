package templatecache_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache/templatetest"
	"github.com/propel-mc/propel/internal/shared/names"
)

func TestCompactTemplate(t *testing.T) {
	u := templatetest.DecodedDeployment(t, "web")
	setAnnotation(u, "kubectl.kubernetes.io/last-applied-configuration", strings.Repeat("x", 1000))
	now := metav1.Now()
	u.SetDeletionTimestamp(&now)
	_ = unstructured.SetNestedField(u.Object, 0.5, "spec", "ratio")
	c := templatetest.Cached(t, u)

	if c.Name != "web" || c.Namespace != "default" || c.ResourceVersion != "123456" || c.GetAPIVersion() != "apps/v1" || c.GetKind() != "Deployment" ||
		c.GroupVersionKind() != (schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}) || c.DeletionTimestamp == nil {
		t.Errorf("metadata %+v %s %s", c.ObjectMeta, c.GetAPIVersion(), c.GetKind())
	}
	if !reflect.DeepEqual(c.Labels, u.GetLabels()) {
		t.Errorf("labels %v", c.Labels)
	}
	if want := map[string]string{names.PropagationPolicyNameAnnotation: "bench", names.PropagationPolicyNamespaceAnnotation: "default"}; !reflect.DeepEqual(c.Annotations, want) {
		t.Errorf("annotations %v, want only Karmada's", c.Annotations)
	}
	if ref, ok := policyindex.ClaimRefOf(c); !ok || ref != (policyindex.ClaimRef{Namespace: "default", Name: "bench"}) {
		t.Errorf("claim %+v %v", ref, ok)
	}

	back, err := c.Decode()
	if err != nil {
		t.Fatal(err)
	}
	want := u.DeepCopy()
	want.SetManagedFields(nil)
	if !reflect.DeepEqual(back.Object, want.Object) {
		t.Fatalf("round trip (status and all annotations kept, int64 stays int64, float64 float64):\n got %#v\nwant %#v", back.Object, want.Object)
	}
	if r, _, _ := unstructured.NestedInt64(back.Object, "spec", "replicas"); r != 2 {
		t.Errorf("replicas %v", back.Object["spec"])
	}
	back.SetLabels(nil)
	if again, _ := c.Decode(); len(again.GetLabels()) == 0 {
		t.Error("decoded copies share state with the cache")
	}
}

func TestTemplateTransformSharesKindStrings(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	tr := templatecache.Transform(gvk)
	a, _ := tr(templatetest.DecodedDeployment(t, "a"))
	b, _ := tr(templatetest.DecodedDeployment(t, "b"))
	if unsafe.StringData(a.(*templatecache.Template).GetAPIVersion()) != unsafe.StringData(b.(*templatecache.Template).GetAPIVersion()) {
		t.Error("each template holds its own apiVersion string")
	}
	if again, _ := tr(a); again != a {
		t.Error("a cached template must pass the transform unchanged")
	}
}

func setAnnotation(u *unstructured.Unstructured, k, v string) {
	a := u.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[k] = v
	u.SetAnnotations(a)
}

// TestTemplatesFromCache reads templates through a (not started) informer
// filled the way its watch would.
func TestTemplatesFromCache(t *testing.T) {
	c, store := fill(t, templatetest.DecodedDeployment(t, "claimed"))
	_ = store
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	got, err := c.Get(context.Background(), templatecache.Key{GVK: gvk, Namespace: "default", Name: "claimed"})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetName() != "claimed" || got.Object["status"] == nil {
		t.Fatalf("got %v", got.Object)
	}
	unstructured.RemoveNestedField(got.Object, "spec")
	if again, _ := c.Get(context.Background(), templatecache.Key{GVK: gvk, Namespace: "default", Name: "claimed"}); again.Object["spec"] == nil {
		t.Error("Get returned state shared with the cache")
	}
	n := 0
	c.Each(func(*templatecache.Template) { n++ })
	if n != 1 {
		t.Errorf("Each saw %d templates, want 1", n)
	}
}

// fill returns a cache watching Deployments (not started) whose informer
// holds templates, added the way its watch would.
func fill(t *testing.T, templates ...*unstructured.Unstructured) (*templatecache.Cache, toolscache.Store) {
	t.Helper()
	c, err := templatecache.New(nil, nil, nil, templatecache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	inf, err := c.Watch(gvk, templatecache.Resource{GVR: gvk.GroupVersion().WithResource("deployments"), Namespaced: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range templates {
		obj, err := templatecache.Transform(gvk)(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := inf.GetStore().Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	return c, inf.GetStore()
}
