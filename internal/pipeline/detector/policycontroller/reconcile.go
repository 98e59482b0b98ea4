package policycontroller

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: policies get their permanent-id labels and finalizers (patch).
// +kubebuilder:rbac:groups=policy.karmada.io,resources=propagationpolicies;clusterpropagationpolicies,verbs=get;list;watch;patch

// Reconcile runs the policy phases: identity, deletion cleanup, release of
// templates no longer selected, refresh of derived bindings, pick-up of
// waiting templates, and preemption (when enabled).
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	obj := r.newObject()
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	p := policyindex.FromObject(obj)
	if p.Deleting {
		return reconcile.Result{}, r.finalize(ctx, obj, p)
	}
	if err := r.ensureIdentity(ctx, obj, p); err != nil {
		return reconcile.Result{}, err
	}
	bindings, err := workv1alpha2.ListBindings(ctx, r.Client, p.Namespace, p.Cluster, client.MatchingLabels{policyindex.ClaimBy(p).LabelKey(): p.ID})
	if err != nil {
		return reconcile.Result{}, err
	}
	if err := r.releaseUnselected(ctx, p, bindings); err != nil {
		return reconcile.Result{}, err
	}
	lazy := p.Spec.ActivationPreference == policyv1alpha1.LazyActivation
	for _, b := range bindings {
		r.Templates.Enqueue(templateKeyOf(b), lazy)
	}
	if err := r.Templates.WakeWaiting(ctx, p); err != nil {
		return reconcile.Result{}, err
	}
	if r.Preemptor == nil {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, r.Preemptor.Preempt(ctx, obj, p)
}

// ensureIdentity gives a new policy its permanent id and finalizer, the
// work Karmada's admission webhook does on create.
func (r *Reconciler) ensureIdentity(ctx context.Context, obj client.Object, p *policyindex.Policy) error {
	finalizer := names.PropagationPolicyControllerFinalizer
	idLabel := names.PropagationPolicyPermanentIDLabel
	if p.Cluster {
		finalizer, idLabel = names.ClusterPropagationPolicyControllerFinalizer, names.ClusterPropagationPolicyPermanentIDLabel
	}
	if p.ID != "" && controllerutil.ContainsFinalizer(obj, finalizer) {
		return nil
	}
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	if p.ID == "" {
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		p.ID = r.previousID(ctx, p)
		if p.ID == "" {
			p.ID = uuid.NewString()
		}
		labels[idLabel] = p.ID
		obj.SetLabels(labels)
	}
	controllerutil.AddFinalizer(obj, finalizer)
	if err := r.Client.Patch(ctx, obj, patch); err != nil {
		return fmt.Errorf("set permanent id of policy %s: %w", p.Key(), err)
	}
	return nil
}

// previousID recovers the permanent id of a policy whose label was removed
// (for example by a full replace of the object; Karmada's webhook forbids
// that): the bindings it claimed still carry the id next to its name, and
// keeping it keeps those claims valid.
func (r *Reconciler) previousID(ctx context.Context, p *policyindex.Policy) string {
	// A ClusterPropagationPolicy claims ResourceBindings in any namespace
	// and ClusterResourceBindings; a PropagationPolicy only the
	// ResourceBindings of its namespace.
	bindings, err := workv1alpha2.ListBindings(ctx, r.Client, p.Namespace, p.Cluster)
	if err != nil {
		log.FromContext(ctx).Error(err, "recover the permanent id of a policy", "policy", klog.KRef(p.Namespace, p.Name))
		return ""
	}
	for _, b := range bindings {
		a := b.GetAnnotations()
		if p.Cluster && a[names.ClusterPropagationPolicyNameAnnotation] == p.Name {
			return b.GetLabels()[names.ClusterPropagationPolicyPermanentIDLabel]
		}
		if !p.Cluster && a[names.PropagationPolicyNamespaceAnnotation] == p.Namespace && a[names.PropagationPolicyNameAnnotation] == p.Name {
			return b.GetLabels()[names.PropagationPolicyPermanentIDLabel]
		}
	}
	return ""
}

// releaseUnselected drops p's claim from templates it no longer selects.
func (r *Reconciler) releaseUnselected(ctx context.Context, p *policyindex.Policy, bindings []workv1alpha2.Binding) error {
	for _, b := range bindings {
		t, err := r.TemplateData.Lookup(ctx, templateKeyOf(b))
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return err
		}
		if p.Selects(t) {
			continue
		}
		obj, err := t.Decode()
		if err != nil {
			return err
		}
		if err := r.Templates.Release(ctx, obj, policyindex.ClaimBy(p)); err != nil {
			return err
		}
	}
	return nil
}

func templateKeyOf(b workv1alpha2.Binding) templatecache.Key {
	ref := b.BindingSpec().Resource
	gv, _ := schema.ParseGroupVersion(ref.APIVersion)
	return templatecache.Key{GVK: gv.WithKind(ref.Kind), Namespace: ref.Namespace, Name: ref.Name}
}

// finalize releases every template p claims, then drops the finalizer.
// Bindings, Works and member objects are kept.
func (r *Reconciler) finalize(ctx context.Context, obj client.Object, p *policyindex.Policy) error {
	if p.ID != "" {
		if err := r.releaseAll(ctx, p); err != nil {
			return err
		}
	}
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	if !controllerutil.RemoveFinalizer(obj, names.PropagationPolicyControllerFinalizer) &&
		!controllerutil.RemoveFinalizer(obj, names.ClusterPropagationPolicyControllerFinalizer) {
		return nil
	}
	return client.IgnoreNotFound(r.Client.Patch(ctx, obj, patch))
}

func (r *Reconciler) releaseAll(ctx context.Context, p *policyindex.Policy) error {
	c := policyindex.ClaimBy(p)
	seen := map[string]bool{}
	for _, s := range p.Spec.ResourceSelectors {
		ns := s.Namespace
		if !p.Cluster {
			ns = p.Namespace
		}
		k := s.APIVersion + "|" + s.Kind + "|" + ns
		if seen[k] {
			continue
		}
		seen[k] = true
		templates, err := r.listClaimed(ctx, s.APIVersion, s.Kind, ns, c)
		if err != nil {
			return err
		}
		for i := range templates {
			if err := r.Templates.Release(ctx, &templates[i], c); err != nil {
				return err
			}
		}
	}
	return nil
}

// listClaimed lists templates of a kind carrying claim c; unknown kinds
// and a namespace given for a cluster-scoped kind yield nothing.
func (r *Reconciler) listClaimed(ctx context.Context, apiVersion, kind, namespace string, c policyindex.Claim) ([]unstructured.Unstructured, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, nil
	}
	res, err := r.TemplateData.Mapping(gv.WithKind(kind))
	if meta.IsNoMatchError(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	list, err := r.TemplateData.List(ctx, res, namespace, c.LabelKey()+"="+c.ID)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s claimed by %s: %w", kind, c.ID, err)
	}
	return list.Items, nil
}
