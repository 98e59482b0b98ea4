package templatecontroller

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache/templatetest"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// TestWakeWaitingLazy: a Lazy policy created after its template queues the
// waiting template as a Karmada-only change (claimed, not propagated); an
// eager policy queues it as a real change.
func TestWakeWaitingLazy(t *testing.T) {
	for _, pref := range []policyv1alpha1.ActivationPreference{policyv1alpha1.LazyActivation, ""} {
		d := newTestReconciler(t)
		gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
		inf, err := d.templates.Watch(gvk, templatecache.Resource{GVR: gvk.GroupVersion().WithResource("deployments"), Namespaced: true})
		if err != nil {
			t.Fatal(err)
		}
		u := templatetest.DecodedDeployment(t, "waiting")
		u.SetLabels(map[string]string{"app": "x"})
		obj, err := templatecache.Transform(gvk)(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := inf.GetStore().Add(obj); err != nil {
			t.Fatal(err)
		}
		k := Key{GVK: gvk, Namespace: u.GetNamespace(), Name: "waiting"}
		d.waiting.add(k)
		p := policyindex.FromObject(&policyv1alpha1.PropagationPolicy{
			ObjectMeta: metav1.ObjectMeta{Namespace: u.GetNamespace(), Name: "p"},
			Spec: policyv1alpha1.PropagationSpec{ActivationPreference: pref,
				ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "waiting"}}},
		})
		if err := d.WakeWaiting(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		if d.queue.Len() != 1 {
			t.Fatalf("%q: queued %d templates, want the waiting one", pref, d.queue.Len())
		}
		if got, want := d.lazy.take(k), pref == policyv1alpha1.LazyActivation; got != want {
			t.Errorf("%q: queued with lazy %v, want %v", pref, got, want)
		}
	}
}
