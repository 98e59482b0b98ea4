package detector

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/pkg/names"
)

// cachedCopy is u as the template informers cache it; u is left alone.
func cachedCopy(tb testing.TB, u *unstructured.Unstructured) *cachedTemplate {
	tb.Helper()
	t, err := compactTemplate(u.DeepCopy())
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func TestCompactTemplate(t *testing.T) {
	u := decodedDeployment(t, "web")
	setAnnotation(u, "kubectl.kubernetes.io/last-applied-configuration", strings.Repeat("x", 1000))
	now := metav1.Now()
	u.SetDeletionTimestamp(&now)
	_ = unstructured.SetNestedField(u.Object, 0.5, "spec", "ratio")
	c := cachedCopy(t, u)

	if c.Name != "web" || c.Namespace != "default" || c.ResourceVersion != "123456" || c.GetAPIVersion() != "apps/v1" || c.GetKind() != "Deployment" ||
		c.GroupVersionKind() != (schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}) || c.DeletionTimestamp == nil {
		t.Errorf("metadata %+v %s %s", c.ObjectMeta, c.apiVersion, c.kind)
	}
	if !reflect.DeepEqual(c.Labels, u.GetLabels()) {
		t.Errorf("labels %v", c.Labels)
	}
	if want := map[string]string{names.PropagationPolicyNameAnnotation: "bench", names.PropagationPolicyNamespaceAnnotation: "default"}; !reflect.DeepEqual(c.Annotations, want) {
		t.Errorf("annotations %v, want only Karmada's", c.Annotations)
	}
	if ref, ok := claimRefOf(c); !ok || ref != (claimRef{namespace: "default", name: "bench"}) {
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
	tr := templateTransform(gvk)
	a, _ := tr(decodedDeployment(t, "a"))
	b, _ := tr(decodedDeployment(t, "b"))
	if unsafe.StringData(a.(*cachedTemplate).apiVersion) != unsafe.StringData(b.(*cachedTemplate).apiVersion) {
		t.Error("each template holds its own apiVersion string")
	}
	if again, _ := tr(a); again != a {
		t.Error("a cached template must pass the transform unchanged")
	}
}

// changes are template updates and what the update handler must make of
// them (TestTemplateUpdateFilter checks the table against oldDecision too).
var changes = []struct {
	name   string
	change func(u *unstructured.Unstructured)
	// ignored: dropped; lazy: enqueued as a Karmada-only change.
	ignored, lazy bool
}{
	{"status", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, int64(1), "status", "readyReplicas")
	}, true, false},
	{"status removed", func(u *unstructured.Unstructured) { delete(u.Object, "status") }, true, false},
	{"resourceVersion", func(u *unstructured.Unstructured) { u.SetResourceVersion("999") }, true, false},
	{"managedFields", func(u *unstructured.Unstructured) { u.SetManagedFields(nil) }, true, false},
	{"spec", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, int64(3), "spec", "replicas")
	}, false, false},
	{"spec int to float", func(u *unstructured.Unstructured) { _ = unstructured.SetNestedField(u.Object, 2.5, "spec", "replicas") }, false, false},
	{"user label", func(u *unstructured.Unstructured) { setLabel(u, "app", "web") }, false, false},
	{"user annotation", func(u *unstructured.Unstructured) { setAnnotation(u, "note", "x") }, false, false},
	{"generation", func(u *unstructured.Unstructured) { u.SetGeneration(2) }, false, true},
	{"karmada label", func(u *unstructured.Unstructured) { setLabel(u, names.PropagationPolicyPermanentIDLabel, "other") }, false, true},
	{"karmada label removed", func(u *unstructured.Unstructured) {
		l := u.GetLabels()
		delete(l, names.PropagationPolicyPermanentIDLabel)
		u.SetLabels(l)
	}, false, true},
	{"karmada annotation", func(u *unstructured.Unstructured) {
		setAnnotation(u, names.ClusterPropagationPolicyNameAnnotation, "c")
	}, false, true},
	{"all annotations removed", func(u *unstructured.Unstructured) { u.SetAnnotations(nil) }, false, true},
	{"skip-auto-propagation label", func(u *unstructured.Unstructured) { setLabel(u, names.SkipAutoPropagationNamespaceLabel, "true") }, false, false},
	{"generation and spec", func(u *unstructured.Unstructured) {
		u.SetGeneration(2)
		_ = unstructured.SetNestedSlice(u.Object, []interface{}{map[string]interface{}{"name": "nginx", "image": "nginx:2"}}, "spec", "template", "spec", "containers")
	}, false, false},
	{"field added", func(u *unstructured.Unstructured) { u.Object["data"] = map[string]interface{}{} }, false, false},
}

func setLabel(u *unstructured.Unstructured, k, v string) { u.SetLabels(with(u.GetLabels(), k, v)) }

func setAnnotation(u *unstructured.Unstructured, k, v string) {
	u.SetAnnotations(with(u.GetAnnotations(), k, v))
}

func with(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// oldDecision is the update filter of spec section 2.2 on decoded
// objects, as the detector ran it before: compare without status,
// managedFields and resourceVersion; lazy when also equal without
// generation and *.karmada.io keys (but the skip-auto-propagation label).
func oldDecision(o, n *unstructured.Unstructured) (ignored, lazy bool) {
	strip := func(u *unstructured.Unstructured) *unstructured.Unstructured {
		c := u.DeepCopy()
		delete(c.Object, "status")
		c.SetManagedFields(nil)
		c.SetResourceVersion("")
		return c
	}
	user := func(u *unstructured.Unstructured) map[string]interface{} {
		c := strip(u)
		c.SetGeneration(0)
		l, a := c.GetLabels(), c.GetAnnotations()
		for _, m := range []map[string]string{l, a} {
			for k := range m {
				if strings.Contains(k, ".karmada.io") && k != names.SkipAutoPropagationNamespaceLabel {
					delete(m, k)
				}
			}
		}
		c.SetLabels(nil)
		c.SetAnnotations(nil)
		if len(l) > 0 {
			c.SetLabels(l)
		}
		if len(a) > 0 {
			c.SetAnnotations(a)
		}
		return c.Object
	}
	if reflect.DeepEqual(strip(o).Object, strip(n).Object) {
		return true, false
	}
	return false, reflect.DeepEqual(user(o), user(n))
}

func TestTemplateUpdateFilter(t *testing.T) {
	d, err := New(Deps{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		o := decodedDeployment(t, "web")
		n := decodedDeployment(t, "web")
		c.change(n)
		if ignored, lazy := oldDecision(o, n); ignored != c.ignored || lazy != c.lazy {
			t.Fatalf("%s: the table says ignored=%v lazy=%v, section 2.2 ignored=%v lazy=%v", c.name, c.ignored, c.lazy, ignored, lazy)
		}
		d.onTemplateUpdate(cachedCopy(t, o), cachedCopy(t, n))
		if got := d.queue.Len() == 0; got != c.ignored {
			t.Errorf("%s: ignored=%v, want %v", c.name, got, c.ignored)
			continue
		}
		if c.ignored {
			continue
		}
		k, _ := d.queue.Get()
		if lazy := d.lazy.take(k); lazy != c.lazy {
			t.Errorf("%s: lazy=%v, want %v", c.name, lazy, c.lazy)
		}
		d.queue.Done(k)
		d.queue.Forget(k)
	}
}

func TestOwnClaimEventSkippedOnce(t *testing.T) {
	d, err := New(Deps{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := decodedDeployment(t, "web")
	n := decodedDeployment(t, "web")
	setLabel(n, names.PropagationPolicyPermanentIDLabel, "new")
	n.SetResourceVersion("200")
	k := templateKey{gvk: n.GroupVersionKind(), namespace: "default", name: "web"}
	d.ownClaims.Store(k, "200")
	d.onTemplateUpdate(cachedCopy(t, o), cachedCopy(t, n))
	if d.queue.Len() != 0 {
		t.Fatal("the detector's own claim was reconciled again")
	}
	d.onTemplateUpdate(cachedCopy(t, o), cachedCopy(t, n))
	if d.queue.Len() != 1 {
		t.Fatal("the own-claim mark outlived its event")
	}
}

// TestTemplatesFromCache reads templates through a (not started) informer
// filled the way its watch would.
func TestTemplatesFromCache(t *testing.T) {
	d, err := New(Deps{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	if err := d.watch(gvk, watchedResource{gvr: gvk.GroupVersion().WithResource("deployments"), namespaced: true}); err != nil {
		t.Fatal(err)
	}
	store := d.informers.ForResource(gvk.GroupVersion().WithResource("deployments")).Informer().GetStore()
	unclaimed := decodedDeployment(t, "unclaimed")
	unclaimed.SetLabels(map[string]string{"app": "x"})
	for _, u := range []*unstructured.Unstructured{decodedDeployment(t, "claimed"), unclaimed} {
		obj, err := templateTransform(gvk)(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	got, err := d.Templates().Get(context.Background(), gvk, "default", "claimed")
	if err != nil {
		t.Fatal(err)
	}
	if got.GetName() != "claimed" || got.Object["status"] == nil {
		t.Fatalf("got %v", got.Object)
	}
	unstructured.RemoveNestedField(got.Object, "spec")
	if again, _ := d.Templates().Get(context.Background(), gvk, "default", "claimed"); again.Object["spec"] == nil {
		t.Error("Get returned state shared with the cache")
	}
	d.RequeueClaimed()
	if d.queue.Len() != 1 {
		t.Fatalf("requeued %d templates, want only the claimed one", d.queue.Len())
	}
	if k, _ := d.queue.Get(); k.name != "claimed" {
		t.Errorf("requeued %s", k)
	}
}
