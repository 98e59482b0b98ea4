package templatebinding

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/pkg/apis"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func template(namespace string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("apps/v1")
	obj.SetKind("Deployment")
	obj.SetNamespace(namespace)
	obj.SetName("web")
	obj.SetUID("tmpl-uid")
	obj.SetResourceVersion("5")
	return obj
}

// A new binding gets a permanent id, the finalizer of its kind, the
// template as its only owner (controller or not) and spec.resource; an
// existing id is kept.
func TestBind(t *testing.T) {
	rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{
		OwnerReferences: []metav1.OwnerReference{{Kind: "Other", UID: "other"}},
		Finalizers:      []string{"x/keep"},
	}}
	ref := ReferenceTo(template("app"))
	Bind(rb, ref, Controlled)
	id := rb.Labels[workv1alpha2.ResourceBindingPermanentIDLabel]
	if id == "" {
		t.Fatalf("no permanent id: %v", rb.Labels)
	}
	if len(rb.Finalizers) != 2 || rb.Finalizers[1] != "karmada.io/binding-controller" {
		t.Errorf("finalizers %v", rb.Finalizers)
	}
	want := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "tmpl-uid", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	if len(rb.OwnerReferences) != 1 || !equalRef(rb.OwnerReferences[0], want) {
		t.Errorf("owner references %+v", rb.OwnerReferences)
	}
	if rb.Spec.Resource != ref || ref.ResourceVersion != "5" || ref.Namespace != "app" {
		t.Errorf("spec.resource %+v", rb.Spec.Resource)
	}
	Bind(rb, ref, Owned)
	if rb.Labels[workv1alpha2.ResourceBindingPermanentIDLabel] != id || rb.OwnerReferences[0].Controller != nil || len(rb.Finalizers) != 2 {
		t.Errorf("second bind: labels %v owner %+v finalizers %v", rb.Labels, rb.OwnerReferences, rb.Finalizers)
	}

	crb := &workv1alpha2.ClusterResourceBinding{}
	Bind(crb, ReferenceTo(template("")), Controlled)
	if crb.Labels[workv1alpha2.ClusterResourceBindingPermanentIDLabel] == "" || len(crb.Finalizers) != 1 ||
		crb.Finalizers[0] != "karmada.io/cluster-resource-binding-controller" {
		t.Errorf("cluster binding labels %v finalizers %v", crb.Labels, crb.Finalizers)
	}
}

func equalRef(a, b metav1.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		ptr.Equal(a.Controller, b.Controller) && ptr.Equal(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

// Get finds a namespaced template's ResourceBinding and a cluster-scoped
// template's ClusterResourceBinding by Karmada's name rule; on error the
// binding still names the key.
func TestGet(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(
		&workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "web-deployment"}},
		&workv1alpha2.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "web-clusterrole"}},
	).Build()
	ctx := context.Background()
	if b, err := Get(ctx, c, "app", "Deployment", "web"); err != nil || !b.Namespaced() || b.GetName() != "web-deployment" {
		t.Errorf("resource binding: %v, %v", b, err)
	}
	if b, err := Get(ctx, c, "", "ClusterRole", "web"); err != nil || b.Namespaced() {
		t.Errorf("cluster resource binding: %v, %v", b, err)
	}
	b, err := Get(ctx, c, "app", "Service", "web")
	if err == nil || b.GetNamespace() != "app" || b.GetName() != "web-service" {
		t.Errorf("missing binding: %s/%s, %v", b.GetNamespace(), b.GetName(), err)
	}
}
