package binding

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// bindingsOfPolicy maps an OverridePolicy or ClusterOverridePolicy event
// to the bindings it may affect: every binding in its scope (the policy's
// namespace for an OverridePolicy) when it has no resource selectors,
// otherwise those whose template matches a selector.
func (r *reconciler) bindingsOfPolicy(ctx context.Context, obj client.Object) []reconcile.Request {
	var selectors []policyv1alpha1.ResourceSelector
	var opts []client.ListOption
	switch p := obj.(type) {
	case *policyv1alpha1.ClusterOverridePolicy:
		selectors = p.Spec.ResourceSelectors
	case *policyv1alpha1.OverridePolicy:
		selectors = p.Spec.ResourceSelectors
		opts = append(opts, client.InNamespace(p.Namespace))
	default:
		return nil
	}
	list := workv1alpha2.NewBindingList(r.kind.namespaced)
	if err := r.Client.List(ctx, list, append(opts, client.UnsafeDisableDeepCopy)...); err != nil {
		log.FromContext(ctx).Error(err, "cannot list bindings for an override policy change", "policy", client.ObjectKeyFromObject(obj))
		return nil
	}
	var out []reconcile.Request
	for _, b := range list.Bindings() {
		if len(selectors) == 0 || r.templateSelected(ctx, &r.kind.wrap(b).spec.Resource, selectors) {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: b.GetNamespace(), Name: b.GetName()}})
		}
	}
	return out
}

// templateSelected reports whether any selector matches the template ref
// points to. The template is read only when a label selector decides.
func (r *reconciler) templateSelected(ctx context.Context, ref *workv1alpha2.ObjectReference, selectors []policyv1alpha1.ResourceSelector) bool {
	var byLabels []*metav1.LabelSelector
	for i := range selectors {
		s := &selectors[i]
		if s.APIVersion != ref.APIVersion || s.Kind != ref.Kind || (s.Namespace != "" && s.Namespace != ref.Namespace) {
			continue
		}
		switch {
		case s.Name != "":
			if s.Name == ref.Name {
				return true
			}
		case s.LabelSelector == nil:
			return true
		default:
			byLabels = append(byLabels, s.LabelSelector)
		}
	}
	if len(byLabels) == 0 {
		return false
	}
	tmpl, err := r.Templates.Get(ctx, schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind), ref.Namespace, ref.Name)
	if err != nil {
		if l := log.FromContext(ctx).V(1); l.Enabled() {
			l.Error(boundedtext.Error(err), "cannot read a template to match override selectors",
				"template", klog.KRef(ref.Namespace, ref.Name), "kind", ref.Kind)
		}
		return false
	}
	set := labels.Set(tmpl.GetLabels())
	for _, ls := range byLabels {
		if sel, err := metav1.LabelSelectorAsSelector(ls); err == nil && sel.Matches(set) {
			return true
		}
	}
	return false
}
