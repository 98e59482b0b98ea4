package binding

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// fakeTemplates serves one template and counts reads.
type fakeTemplates struct {
	obj   *unstructured.Unstructured
	reads int
}

func (f *fakeTemplates) Get(_ context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	f.reads++
	if f.obj == nil || f.obj.GetName() != name || f.obj.GetNamespace() != namespace || f.obj.GroupVersionKind() != gvk {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "things"}, name)
	}
	return f.obj, nil
}

func TestTemplateSelected(t *testing.T) {
	ref := &workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "nginx"}
	labelSel := func(v string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": v}}
	}
	cases := []struct {
		name      string
		selectors []policyv1alpha1.ResourceSelector
		missing   bool
		want      bool
		reads     int
	}{
		{"by name", []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "nginx"}}, false, true, 0},
		{"other name", []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}}, false, false, 0},
		{"other kind", []policyv1alpha1.ResourceSelector{{APIVersion: "v1", Kind: "Service", LabelSelector: labelSel("nginx")}}, false, false, 0},
		{"other namespace", []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "prod"}}, false, false, 0},
		{"match all of the kind", []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}}, false, true, 0},
		{"labels match", []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", LabelSelector: labelSel("nginx")}}, false, true, 1},
		{"labels differ", []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", LabelSelector: labelSel("web")}}, false, false, 1},
		{"template gone", []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", LabelSelector: labelSel("nginx")}}, true, false, 1},
	}
	for _, c := range cases {
		templates := &fakeTemplates{obj: exampleTemplate(t)}
		if c.missing {
			templates.obj = nil
		}
		r := &reconciler{Deps: Deps{Templates: templates}, kind: rbKind}
		if got := r.templateSelected(context.Background(), ref, c.selectors); got != c.want || templates.reads != c.reads {
			t.Errorf("%s: selected %v with %d reads, want %v with %d", c.name, got, templates.reads, c.want, c.reads)
		}
	}
}

func TestWaitingForDirectPurge(t *testing.T) {
	rb := exampleBinding()
	rb.Spec.GracefulEvictionTasks = []workv1alpha2.GracefulEvictionTask{{FromCluster: "member3", PurgeMode: policyv1alpha1.PurgeModeDirectly}}
	b := rbKind.wrap(rb)
	works := []*workv1alpha1.Work{{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-member1"}}}
	if waitingForDirectPurge(b, works) {
		t.Error("waiting although member3 has no Work")
	}
	works = append(works, &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-member3"}})
	if !waitingForDirectPurge(b, works) {
		t.Error("not waiting for member3's Work")
	}
	if expected := b.expectedClusters(); expected["member3"] {
		t.Error("a directly purged cluster is expected")
	}
}

func TestNoPermanentID(t *testing.T) {
	rb := exampleBinding()
	delete(rb.Labels, "resourcebinding.karmada.io/permanent-id")
	r := &reconciler{kind: rbKind}
	if _, err := r.sync(context.Background(), rbKind.wrap(rb)); !errors.Is(err, errNoPermanentID) {
		t.Fatalf("sync without a permanent id: %v", err)
	}
}
