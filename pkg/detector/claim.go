package detector

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/names"
)

// claimMeta is the claim a template or binding carries.
type claimMeta struct {
	cluster bool
	id      string
}

// claimOf reads obj's claim; a PropagationPolicy claim wins if both exist.
func claimOf(obj metav1.Object) claimMeta {
	if id := obj.GetLabels()[names.PropagationPolicyPermanentIDLabel]; id != "" {
		return claimMeta{id: id}
	}
	return claimMeta{cluster: true, id: obj.GetLabels()[names.ClusterPropagationPolicyPermanentIDLabel]}
}

// claimRef names the policy a template's claim metadata points to.
type claimRef struct {
	cluster   bool
	namespace string
	name      string
}

// claimRefOf reads who claims obj: a PropagationPolicy when its namespace
// and name annotations and id label are all set, else a
// ClusterPropagationPolicy when its name annotation and id label are set.
func claimRefOf(obj metav1.Object) (claimRef, bool) {
	l, a := obj.GetLabels(), obj.GetAnnotations()
	if ns, name := a[names.PropagationPolicyNamespaceAnnotation], a[names.PropagationPolicyNameAnnotation]; ns != "" && name != "" && l[names.PropagationPolicyPermanentIDLabel] != "" {
		return claimRef{namespace: ns, name: name}, true
	}
	if name := a[names.ClusterPropagationPolicyNameAnnotation]; name != "" && l[names.ClusterPropagationPolicyPermanentIDLabel] != "" {
		return claimRef{cluster: true, name: name}, true
	}
	return claimRef{}, false
}

// refersTo reports whether r names policy p.
func (r claimRef) refersTo(p *policy) bool {
	return r.cluster == p.cluster && r.namespace == p.namespace && r.name == p.name
}

func (c claimMeta) labelKey() string {
	if c.cluster {
		return names.ClusterPropagationPolicyPermanentIDLabel
	}
	return names.PropagationPolicyPermanentIDLabel
}

// setClaim writes p's claim labels and annotations on obj; a
// PropagationPolicy claim replaces a ClusterPropagationPolicy one.
func setClaim(obj metav1.Object, p *policy) {
	labels, annotations := obj.GetLabels(), obj.GetAnnotations()
	if labels == nil {
		labels = map[string]string{}
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	if p.cluster {
		labels[names.ClusterPropagationPolicyPermanentIDLabel] = p.id
		annotations[names.ClusterPropagationPolicyNameAnnotation] = p.name
	} else {
		removeClaimKeys(labels, annotations, true)
		labels[names.PropagationPolicyPermanentIDLabel] = p.id
		annotations[names.PropagationPolicyNamespaceAnnotation] = p.namespace
		annotations[names.PropagationPolicyNameAnnotation] = p.name
	}
	obj.SetLabels(labels)
	obj.SetAnnotations(annotations)
}

// removeClaim strips the PropagationPolicy (cluster=false) or
// ClusterPropagationPolicy claim from obj.
func removeClaim(obj metav1.Object, cluster bool) {
	labels, annotations := obj.GetLabels(), obj.GetAnnotations()
	removeClaimKeys(labels, annotations, cluster)
	obj.SetLabels(labels)
	obj.SetAnnotations(annotations)
}

func removeClaimKeys(labels, annotations map[string]string, cluster bool) {
	if cluster {
		delete(labels, names.ClusterPropagationPolicyPermanentIDLabel)
		delete(annotations, names.ClusterPropagationPolicyNameAnnotation)
		return
	}
	delete(labels, names.PropagationPolicyPermanentIDLabel)
	delete(annotations, names.PropagationPolicyNamespaceAnnotation)
	delete(annotations, names.PropagationPolicyNameAnnotation)
}

// claimed reports whether obj already carries exactly p's claim.
func claimed(obj metav1.Object, p *policy) bool {
	l, a := obj.GetLabels(), obj.GetAnnotations()
	if p.cluster {
		return l[names.ClusterPropagationPolicyPermanentIDLabel] == p.id && a[names.ClusterPropagationPolicyNameAnnotation] == p.name
	}
	return l[names.PropagationPolicyPermanentIDLabel] == p.id && l[names.ClusterPropagationPolicyPermanentIDLabel] == "" &&
		a[names.PropagationPolicyNamespaceAnnotation] == p.namespace && a[names.PropagationPolicyNameAnnotation] == p.name
}

// claim writes p's claim on the template when missing and returns the
// server's copy, whose resourceVersion the binding then records (so the
// claim's own update event causes no second binding write).
func (d *Detector) claim(ctx context.Context, obj *unstructured.Unstructured, p *policy) (*unstructured.Unstructured, error) {
	if claimed(obj, p) {
		return obj, nil
	}
	obj = obj.DeepCopy()
	setClaim(obj, p)
	updated, err := d.updateTemplate(ctx, obj)
	if err != nil {
		return nil, err
	}
	if k, ok := d.templateKey(updated.GroupVersionKind(), updated.GetNamespace(), updated.GetName()); ok {
		d.ownClaims.Store(k, updated.GetResourceVersion())
	}
	return updated, nil
}

// releaseTemplate removes claim c from the template's binding, then from
// the template, each only while it still carries c (another policy may have
// re-claimed it). The binding goes first so a retry still finds the template.
func (d *Detector) releaseTemplate(ctx context.Context, obj *unstructured.Unstructured, c claimMeta) error {
	if c.id == "" {
		return nil
	}
	binding, err := d.getBinding(ctx, obj)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err == nil && binding.GetLabels()[c.labelKey()] == c.id {
		removeClaim(binding, c.cluster)
		if err := d.client.Update(ctx, binding); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("release binding %s: %w", binding.GetName(), err)
		}
	}
	if obj.GetLabels()[c.labelKey()] != c.id {
		return nil
	}
	obj = obj.DeepCopy()
	removeClaim(obj, c.cluster)
	if _, err := d.updateTemplate(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("release template: %w", err)
	}
	return nil
}

// getBinding returns the ResourceBinding (namespaced template) or
// ClusterResourceBinding of a template.
func (d *Detector) getBinding(ctx context.Context, obj *unstructured.Unstructured) (client.Object, error) {
	key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: names.BindingName(obj.GetKind(), obj.GetName())}
	var b client.Object = &workv1alpha2.ResourceBinding{}
	if obj.GetNamespace() == "" {
		b = &workv1alpha2.ClusterResourceBinding{}
	}
	b.SetNamespace(key.Namespace)
	b.SetName(key.Name)
	return b, d.client.Get(ctx, key, b)
}
