package templatecontroller

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/detector/policyindex"
	"github.com/propel-mc/propel/pkg/names"
)

// This file is the only place in the detector that tells ResourceBinding
// from ClusterResourceBinding; everything else handles a client.Object
// through these functions.

// getBinding returns the ResourceBinding (namespaced template) or
// ClusterResourceBinding of a template, from the cache. On error the
// returned object is still an empty binding with the key set.
func (r *Reconciler) getBinding(ctx context.Context, obj *unstructured.Unstructured) (client.Object, error) {
	key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: names.BindingName(obj.GetKind(), obj.GetName())}
	var b client.Object = &workv1alpha2.ResourceBinding{}
	if obj.GetNamespace() == "" {
		b = &workv1alpha2.ClusterResourceBinding{}
	}
	b.SetNamespace(key.Namespace)
	b.SetName(key.Name)
	return b, r.client.Get(ctx, key, b)
}

// setBindingMeta merges the claim, the binding's permanent id, the
// controller reference to the template and the finalizer into b.
func setBindingMeta(b client.Object, obj *unstructured.Unstructured, p *policyindex.Policy) {
	policyindex.SetClaim(b, p)
	idLabel, finalizer := names.ResourceBindingPermanentIDLabel, names.BindingControllerFinalizer
	if _, ok := b.(*workv1alpha2.ClusterResourceBinding); ok {
		idLabel, finalizer = names.ClusterResourceBindingPermanentIDLabel, names.ClusterResourceBindingControllerFinalizer
	}
	if b.GetLabels()[idLabel] == "" {
		labels := b.GetLabels()
		labels[idLabel] = uuid.NewString()
		b.SetLabels(labels)
	}
	controllerutil.AddFinalizer(b, finalizer)
	b.SetOwnerReferences([]metav1.OwnerReference{{
		APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Name: obj.GetName(), UID: obj.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}})
}

// SpecOf is the spec of a ResourceBinding or ClusterResourceBinding.
func SpecOf(b client.Object) *workv1alpha2.ResourceBindingSpec {
	switch t := b.(type) {
	case *workv1alpha2.ResourceBinding:
		return &t.Spec
	case *workv1alpha2.ClusterResourceBinding:
		return &t.Spec
	}
	panic(fmt.Sprintf("not a binding: %T", b))
}

// ListBindings lists the bindings carrying the labels: the
// ResourceBindings of namespace ("" for all) and, with cluster, every
// ClusterResourceBinding too.
func ListBindings(ctx context.Context, c client.Reader, cluster bool, namespace string, labels client.MatchingLabels) ([]client.Object, error) {
	rbs := &workv1alpha2.ResourceBindingList{}
	opts := []client.ListOption{labels}
	if namespace != "" {
		opts = append(opts, client.InNamespace(namespace))
	}
	if err := c.List(ctx, rbs, opts...); err != nil {
		return nil, err
	}
	var out []client.Object
	for i := range rbs.Items {
		out = append(out, &rbs.Items[i])
	}
	if cluster {
		crbs := &workv1alpha2.ClusterResourceBindingList{}
		if err := c.List(ctx, crbs, labels); err != nil {
			return nil, err
		}
		for i := range crbs.Items {
			out = append(out, &crbs.Items[i])
		}
	}
	return out, nil
}
