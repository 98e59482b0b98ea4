package detector

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/names"
)

// SetupWithManager adds the detector and its two policy controllers.
func (d *Detector) SetupWithManager(mgr ctrl.Manager) error {
	if err := mgr.Add(d); err != nil {
		return err
	}
	if err := d.policyController(mgr, "propagation-policy", &policyv1alpha1.PropagationPolicy{}).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			return reconcile.Result{}, d.reconcilePolicyObject(ctx, req, &policyv1alpha1.PropagationPolicy{})
		})); err != nil {
		return err
	}
	return d.policyController(mgr, "cluster-propagation-policy", &policyv1alpha1.ClusterPropagationPolicy{}).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			return reconcile.Result{}, d.reconcilePolicyObject(ctx, req, &policyv1alpha1.ClusterPropagationPolicy{})
		}))
}

// policyController builds the controller of one policy kind. Metadata-only
// updates (such as Propel's own permanent-id write) do not bump the
// generation; deletion does. With preemption on, an update that lowers a
// policy's priority also requeues the preemptors that may now outrank it.
func (d *Detector) policyController(mgr ctrl.Manager, name string, obj client.Object) *builder.Builder {
	b := ctrl.NewControllerManagedBy(mgr).Named(name).
		For(obj, builder.WithPredicates(predicate.GenerationChangedPredicate{}))
	if d.opts.PropagationPolicyPreemption {
		b = b.Watches(obj.DeepCopyObject().(client.Object), handler.Funcs{UpdateFunc: d.requeuePreemptors})
	}
	return b
}

func toPolicy(obj client.Object) *policy {
	if pp, ok := obj.(*policyv1alpha1.PropagationPolicy); ok {
		return fromPP(pp)
	}
	return fromCPP(obj.(*policyv1alpha1.ClusterPropagationPolicy))
}

// reconcilePolicyObject runs the policy phases: identity, deletion cleanup,
// release of templates no longer selected, refresh of derived bindings,
// pick-up of waiting templates, and preemption (when enabled).
func (d *Detector) reconcilePolicyObject(ctx context.Context, req reconcile.Request, obj client.Object) error {
	if err := d.client.Get(ctx, req.NamespacedName, obj); err != nil {
		return client.IgnoreNotFound(err)
	}
	p := toPolicy(obj)
	if p.deleting {
		return d.finalizePolicy(ctx, obj, p)
	}
	if err := d.ensureIdentity(ctx, obj, p); err != nil {
		return err
	}
	bindings, err := d.derivedBindings(ctx, p)
	if err != nil {
		return err
	}
	if err := d.releaseUnselected(ctx, p, bindings); err != nil {
		return err
	}
	lazy := p.spec.ActivationPreference == policyv1alpha1.LazyActivation
	for _, b := range bindings {
		d.enqueueBindingTemplate(b, lazy)
	}
	if err := d.wakeWaiting(ctx, p); err != nil {
		return err
	}
	return d.preempt(ctx, obj, p)
}

// ensureIdentity gives a new policy its permanent id and finalizer, the
// work Karmada's admission webhook does on create.
func (d *Detector) ensureIdentity(ctx context.Context, obj client.Object, p *policy) error {
	finalizer := names.PropagationPolicyControllerFinalizer
	idLabel := names.PropagationPolicyPermanentIDLabel
	if p.cluster {
		finalizer, idLabel = names.ClusterPropagationPolicyControllerFinalizer, names.ClusterPropagationPolicyPermanentIDLabel
	}
	if p.id != "" && controllerutil.ContainsFinalizer(obj, finalizer) {
		return nil
	}
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	if p.id == "" {
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		p.id = d.previousID(ctx, p)
		if p.id == "" {
			p.id = uuid.NewString()
		}
		labels[idLabel] = p.id
		obj.SetLabels(labels)
	}
	controllerutil.AddFinalizer(obj, finalizer)
	if err := d.client.Patch(ctx, obj, patch); err != nil {
		return fmt.Errorf("set permanent id of policy %s: %w", p.key(), err)
	}
	return nil
}

// previousID recovers the permanent id of a policy whose label was removed
// (for example by a full replace of the object; Karmada's webhook forbids
// that): the bindings it claimed still carry the id next to its name, and
// keeping it keeps those claims valid.
func (d *Detector) previousID(ctx context.Context, p *policy) string {
	rbs := &workv1alpha2.ResourceBindingList{}
	var opts []client.ListOption
	if !p.cluster {
		opts = append(opts, client.InNamespace(p.namespace))
	}
	if err := d.client.List(ctx, rbs, opts...); err != nil {
		return ""
	}
	for _, rb := range rbs.Items {
		a := rb.Annotations
		if p.cluster && a[names.ClusterPropagationPolicyNameAnnotation] == p.name {
			return rb.Labels[names.ClusterPropagationPolicyPermanentIDLabel]
		}
		if !p.cluster && a[names.PropagationPolicyNamespaceAnnotation] == p.namespace && a[names.PropagationPolicyNameAnnotation] == p.name {
			return rb.Labels[names.PropagationPolicyPermanentIDLabel]
		}
	}
	return ""
}

// derivedBindings lists the bindings that carry p's permanent id.
func (d *Detector) derivedBindings(ctx context.Context, p *policy) ([]client.Object, error) {
	sel := client.MatchingLabels{claimMeta{cluster: p.cluster, id: p.id}.labelKey(): p.id}
	rbs := &workv1alpha2.ResourceBindingList{}
	opts := []client.ListOption{sel}
	if !p.cluster {
		opts = append(opts, client.InNamespace(p.namespace))
	}
	if err := d.client.List(ctx, rbs, opts...); err != nil {
		return nil, err
	}
	var out []client.Object
	for i := range rbs.Items {
		out = append(out, &rbs.Items[i])
	}
	if p.cluster {
		crbs := &workv1alpha2.ClusterResourceBindingList{}
		if err := d.client.List(ctx, crbs, sel); err != nil {
			return nil, err
		}
		for i := range crbs.Items {
			out = append(out, &crbs.Items[i])
		}
	}
	return out, nil
}

// releaseUnselected drops p's claim from templates it no longer selects.
func (d *Detector) releaseUnselected(ctx context.Context, p *policy, bindings []client.Object) error {
	for _, b := range bindings {
		t, err := d.lookupTemplate(ctx, templateKeyOf(b))
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return err
		}
		if p.implicitPriority(t) != priorityMisMatch {
			continue
		}
		obj, err := t.Decode()
		if err != nil {
			return err
		}
		if err := d.releaseTemplate(ctx, obj, claimMeta{cluster: p.cluster, id: p.id}); err != nil {
			return err
		}
	}
	return nil
}

func templateKeyOf(b client.Object) templateKey {
	r := specOf(b).Resource
	gv, _ := schema.ParseGroupVersion(r.APIVersion)
	return templateKey{gvk: gv.WithKind(r.Kind), namespace: r.Namespace, name: r.Name}
}

func (d *Detector) enqueueBindingTemplate(b client.Object, lazy bool) {
	d.enqueue(templateKeyOf(b), lazy)
}

// wakeWaiting enqueues the waiting templates p now selects.
func (d *Detector) wakeWaiting(ctx context.Context, p *policy) error {
	var matched []templateKey
	for _, k := range d.waiting.snapshot() {
		t, err := d.lookupTemplate(ctx, k)
		if err != nil {
			continue
		}
		if p.implicitPriority(t) != priorityMisMatch {
			matched = append(matched, k)
		}
	}
	if len(matched) == 0 {
		return nil
	}
	if err := d.checkDependentOverrides(ctx, p); err != nil {
		return err
	}
	for _, k := range matched {
		d.waiting.remove(k)
		d.enqueue(k, false)
	}
	return nil
}

// finalizePolicy releases every template p claims, then drops the
// finalizer. Bindings, Works and member objects are kept.
func (d *Detector) finalizePolicy(ctx context.Context, obj client.Object, p *policy) error {
	if p.id != "" {
		if err := d.releaseAll(ctx, p); err != nil {
			return err
		}
	}
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	if !controllerutil.RemoveFinalizer(obj, names.PropagationPolicyControllerFinalizer) &&
		!controllerutil.RemoveFinalizer(obj, names.ClusterPropagationPolicyControllerFinalizer) {
		return nil
	}
	return client.IgnoreNotFound(d.client.Patch(ctx, obj, patch))
}

func (d *Detector) releaseAll(ctx context.Context, p *policy) error {
	c := claimMeta{cluster: p.cluster, id: p.id}
	seen := map[string]bool{}
	for _, s := range p.spec.ResourceSelectors {
		ns := s.Namespace
		if !p.cluster {
			ns = p.namespace
		}
		k := s.APIVersion + "|" + s.Kind + "|" + ns
		if seen[k] {
			continue
		}
		seen[k] = true
		templates, err := d.listClaimed(ctx, s.APIVersion, s.Kind, ns, c)
		if err != nil {
			return err
		}
		for i := range templates {
			if err := d.releaseTemplate(ctx, &templates[i], c); err != nil {
				return err
			}
		}
	}
	return nil
}

// listClaimed lists templates of a kind carrying claim c; unknown kinds
// and a namespace given for a cluster-scoped kind yield nothing.
func (d *Detector) listClaimed(ctx context.Context, apiVersion, kind, namespace string, c claimMeta) ([]unstructured.Unstructured, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, nil
	}
	r, err := d.templateMapping(gv.WithKind(kind))
	if meta.IsNoMatchError(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	opts := metav1.ListOptions{LabelSelector: c.labelKey() + "=" + c.id}
	var list *unstructured.UnstructuredList
	if r.namespaced {
		list, err = d.dynamic.Resource(r.gvr).Namespace(namespace).List(ctx, opts)
	} else {
		list, err = d.dynamic.Resource(r.gvr).List(ctx, opts)
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s claimed by %s: %w", kind, c.id, err)
	}
	return list.Items, nil
}
