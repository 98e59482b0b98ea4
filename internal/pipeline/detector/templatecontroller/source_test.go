package templatecontroller

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache/templatetest"
	"github.com/propel-mc/propel/internal/shared/names"
)

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
	d := newTestReconciler(t)
	for _, c := range changes {
		o := templatetest.DecodedDeployment(t, "web")
		n := templatetest.DecodedDeployment(t, "web")
		c.change(n)
		if ignored, lazy := oldDecision(o, n); ignored != c.ignored || lazy != c.lazy {
			t.Fatalf("%s: the table says ignored=%v lazy=%v, section 2.2 ignored=%v lazy=%v", c.name, c.ignored, c.lazy, ignored, lazy)
		}
		d.onTemplateUpdate(templatetest.Cached(t, o), templatetest.Cached(t, n))
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
	d := newTestReconciler(t)
	o := templatetest.DecodedDeployment(t, "web")
	n := templatetest.DecodedDeployment(t, "web")
	setLabel(n, names.PropagationPolicyPermanentIDLabel, "new")
	n.SetResourceVersion("200")
	k := Key{GVK: n.GroupVersionKind(), Namespace: "default", Name: "web"}
	d.ownClaims.Remember(k, "100", "200", struct{}{})
	d.onTemplateUpdate(templatetest.Cached(t, o), templatetest.Cached(t, n))
	if d.queue.Len() != 0 {
		t.Fatal("the detector's own claim was reconciled again")
	}
	d.onTemplateUpdate(templatetest.Cached(t, o), templatetest.Cached(t, n))
	if d.queue.Len() != 1 {
		t.Fatal("the own-claim mark outlived its event")
	}
}

// An event still showing the version the claim replaced (a user's change
// the cache delivers late) is reconciled, and the claim's echo after it is
// still recognised.
func TestOwnClaimSurvivesOlderEvent(t *testing.T) {
	d := newTestReconciler(t)
	o := templatetest.DecodedDeployment(t, "web")
	older := templatetest.DecodedDeployment(t, "web")
	older.Object["spec"].(map[string]interface{})["replicas"] = int64(9)
	older.SetResourceVersion("100")
	k := Key{GVK: older.GroupVersionKind(), Namespace: "default", Name: "web"}
	d.ownClaims.Remember(k, "100", "200", struct{}{})
	d.onTemplateUpdate(templatetest.Cached(t, o), templatetest.Cached(t, older))
	if d.queue.Len() != 1 {
		t.Fatalf("the user's change before the claim was not reconciled (queue %d)", d.queue.Len())
	}
	own := older.DeepCopy()
	setLabel(own, names.PropagationPolicyPermanentIDLabel, "new")
	own.Object["spec"].(map[string]interface{})["replicas"] = int64(10)
	own.SetResourceVersion("200")
	got, _ := d.queue.Get()
	d.queue.Done(got)
	d.queue.Forget(got)
	d.onTemplateUpdate(templatetest.Cached(t, older), templatetest.Cached(t, own))
	if d.queue.Len() != 0 {
		t.Fatal("the claim's echo after an older event was reconciled again")
	}
}

// TestRequeueClaimed: only claimed templates are requeued when the
// interpreter's configuration changes.
func TestRequeueClaimed(t *testing.T) {
	d := newTestReconciler(t)
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	inf, err := d.templates.Watch(gvk, templatecache.Resource{GVR: gvk.GroupVersion().WithResource("deployments"), Namespaced: true})
	if err != nil {
		t.Fatal(err)
	}
	unclaimed := templatetest.DecodedDeployment(t, "unclaimed")
	unclaimed.SetLabels(map[string]string{"app": "x"})
	for _, u := range []*unstructured.Unstructured{templatetest.DecodedDeployment(t, "claimed"), unclaimed} {
		obj, err := templatecache.Transform(gvk)(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := inf.GetStore().Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	d.RequeueClaimed()
	if d.queue.Len() != 1 {
		t.Fatalf("requeued %d templates, want only the claimed one", d.queue.Len())
	}
	if k, _ := d.queue.Get(); k.Name != "claimed" {
		t.Errorf("requeued %s", k)
	}
}

// newTestReconciler is a template controller over an empty, unstarted
// template cache, without API clients.
func newTestReconciler(tb testing.TB) *Reconciler {
	tb.Helper()
	c, err := templatecache.New(nil, nil, nil, templatecache.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return New(Deps{Templates: c, Policies: policyindex.New()}, Options{})
}
