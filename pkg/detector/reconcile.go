package detector

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	"github.com/propel-mc/propel/pkg/names"
)

var (
	errNoMatchedPolicy          = errors.New("no matched propagation policy")
	errWaitingDependentOverride = errors.New("waiting for dependent overrides")
)

// reconcileTemplate brings one template's claim and binding in line with
// the policies: the claiming policy if any, else the best matching one.
// It decodes the template only to apply a policy to it.
func (d *Detector) reconcileTemplate(ctx context.Context, key templateKey, lazyChange bool) error {
	t, err := d.lookupTemplate(ctx, key)
	if apierrors.IsNotFound(err) {
		d.waiting.remove(key)
		return nil
	}
	if err != nil {
		return err
	}
	if t.Labels[names.ClaimedByLabel] != "" {
		d.waiting.remove(key)
		return nil
	}
	if p, claimed, err := d.claimingPolicy(ctx, t); claimed {
		if err != nil || p == nil {
			return err
		}
		return d.applyClaimed(ctx, t, p, lazyChange)
	}
	p := d.matchPolicy(t)
	if p == nil {
		if d.waiting.add(key) {
			return errNoMatchedPolicy // one rate-limited retry covers a policy arriving together
		}
		return nil
	}
	if err := d.checkDependentOverrides(ctx, p); err != nil {
		return err
	}
	d.waiting.remove(key)
	return d.applyPolicy(ctx, t, p, lazyChange)
}

// matchPolicy finds the best policy for obj: a PropagationPolicy of its
// namespace always beats any ClusterPropagationPolicy.
func (d *Detector) matchPolicy(obj selectable) *policy {
	if obj.GetNamespace() != "" {
		if p := bestPolicy(d.pps.candidates(obj, true), obj); p != nil {
			return p
		}
	}
	return bestPolicy(d.cpps.candidates(obj, false), obj)
}

// claimingPolicy returns the policy that claims obj, if its claim metadata
// says one does. A claim whose policy is gone is cleaned up (nil policy);
// a terminating policy is an error so the template is retried.
func (d *Detector) claimingPolicy(ctx context.Context, t *cachedTemplate) (*policy, bool, error) {
	ref, ok := claimRefOf(t)
	if !ok {
		return nil, false, nil
	}
	p, err := d.getPolicy(ctx, ref)
	switch {
	case apierrors.IsNotFound(err):
		obj, err := t.Decode()
		if err != nil {
			return nil, true, err
		}
		return nil, true, d.releaseTemplate(ctx, obj, claimOf(t))
	case err != nil:
		return nil, true, err
	case p.deleting:
		return nil, true, fmt.Errorf("claiming policy %s is being deleted", p.key())
	}
	return p, true, nil
}

// getPolicy reads the policy ref names (from the cache).
func (d *Detector) getPolicy(ctx context.Context, ref claimRef) (*policy, error) {
	key := types.NamespacedName{Namespace: ref.namespace, Name: ref.name}
	if ref.cluster {
		cpp := &policyv1alpha1.ClusterPropagationPolicy{}
		if err := d.client.Get(ctx, key, cpp); err != nil {
			return nil, err
		}
		return fromCPP(cpp), nil
	}
	pp := &policyv1alpha1.PropagationPolicy{}
	if err := d.client.Get(ctx, key, pp); err != nil {
		return nil, err
	}
	return fromPP(pp), nil
}

// applyClaimed re-applies the claiming policy unless the template no longer
// matches it: claims are sticky and released only from the policy side.
func (d *Detector) applyClaimed(ctx context.Context, t *cachedTemplate, p *policy, lazyChange bool) error {
	if p.implicitPriority(t) == priorityMisMatch {
		return nil
	}
	if err := d.checkDependentOverrides(ctx, p); err != nil {
		return err
	}
	return d.applyPolicy(ctx, t, p, lazyChange)
}

// checkDependentOverrides fails until every override the policy depends on exists.
func (d *Detector) checkDependentOverrides(ctx context.Context, p *policy) error {
	for _, name := range p.spec.DependentOverrides {
		var obj client.Object = &policyv1alpha1.ClusterOverridePolicy{}
		key := types.NamespacedName{Name: name}
		if !p.cluster {
			obj, key.Namespace = &policyv1alpha1.OverridePolicy{}, p.namespace
		}
		if err := d.client.Get(ctx, key, obj); err != nil {
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("%w: %s of policy %s", errWaitingDependentOverride, name, p.key())
			}
			return err
		}
	}
	return nil
}

// applyPolicy claims the template for p and creates or updates its binding.
func (d *Detector) applyPolicy(ctx context.Context, t *cachedTemplate, p *policy, lazyChange bool) error {
	if p.id == "" {
		// The policy controller is about to write the id; its arrival in
		// the policy index requeues the template.
		if !d.idWaiters.park(p.key(), t.key()) {
			// The id reached the index since p was read: retry.
			return fmt.Errorf("policy %s has no permanent id yet", p.key())
		}
		return nil
	}
	obj, err := t.Decode()
	if err != nil {
		return err
	}
	claimedObj, err := d.claim(ctx, obj, p)
	if err != nil {
		return d.applyFailed(obj, p, fmt.Errorf("claim: %w", err))
	}
	obj = claimedObj
	if lazyChange && p.spec.ActivationPreference == policyv1alpha1.LazyActivation {
		return nil
	}
	written, err := d.ensureBinding(ctx, obj, p)
	if err != nil {
		return d.applyFailed(obj, p, err)
	}
	if written {
		d.recorder.Eventf(obj, "Normal", "ApplyPolicySucceed", "Apply policy(%s) succeed", p.key())
	}
	return nil
}

func (d *Detector) applyFailed(obj *unstructured.Unstructured, p *policy, err error) error {
	d.recorder.Eventf(obj, "Warning", "ApplyPolicyFailed", "Apply policy(%s) failed: %v", p.key(), err)
	return err
}

// updateTemplate writes obj (a full update) and returns the server's copy.
func (d *Detector) updateTemplate(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	r, err := d.templateMapping(obj.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	if r.namespaced {
		return d.dynamic.Resource(r.gvr).Namespace(obj.GetNamespace()).Update(ctx, obj, metav1.UpdateOptions{})
	}
	return d.dynamic.Resource(r.gvr).Update(ctx, obj, metav1.UpdateOptions{})
}
