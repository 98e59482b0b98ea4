package detector

import (
	"context"
	"errors"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	"github.com/propel-mc/propel/pkg/names"
)

// Preemption (feature gate PropagationPolicyPreemption): a policy with
// `preemption: Always` re-claims the templates its selectors name when they
// are claimed by a weaker policy. Only the template's claim is rewritten;
// its update event then makes the template reconcile apply the new policy
// to the binding (placement, claim labels), exactly as for a first claim.

// Event reasons on the template (Karmada's).
const (
	reasonPreemptSucceed = "PreemptPolicySucceed"
	reasonPreemptFailed  = "PreemptPolicyFailed"
)

// mayPreempt says whether preemptor may take a template claimed by claimer:
// a PropagationPolicy takes it from any ClusterPropagationPolicy and from a
// PropagationPolicy of strictly lower priority; a ClusterPropagationPolicy
// only from a ClusterPropagationPolicy of strictly lower priority.
func mayPreempt(preemptor, claimer *policy) bool {
	if preemptor.cluster != claimer.cluster {
		return !preemptor.cluster
	}
	return preemptor.priority() > claimer.priority()
}

// unnamedSelector returns the index of the first selector without a name.
// Karmada's webhook rejects `preemption: Always` with such a selector;
// Propel, running without it, does not preempt for such a policy.
func unnamedSelector(spec *policyv1alpha1.PropagationSpec) (int, bool) {
	for i, s := range spec.ResourceSelectors {
		if s.Name == "" {
			return i, true
		}
	}
	return 0, false
}

// preemptionTarget is the template a named selector of p points to. A
// PropagationPolicy selector without a namespace means the policy's own;
// one naming another namespace selects nothing (PropagationPolicies only
// claim templates of their namespace).
func preemptionTarget(p *policy, s policyv1alpha1.ResourceSelector) (templateKey, bool) {
	gv, err := schema.ParseGroupVersion(s.APIVersion)
	if err != nil || s.Name == "" {
		return templateKey{}, false
	}
	ns := s.Namespace
	if !p.cluster {
		if ns != "" && ns != p.namespace {
			return templateKey{}, false
		}
		ns = p.namespace
	}
	return templateKey{gvk: gv.WithKind(s.Kind), namespace: ns, name: s.Name}, true
}

// preempt runs preemption for p when the gate is on and p asks for it.
// obj is the policy object, which gets a warning event when a selector has
// no name. Errors of single templates are joined; the others still run.
func (d *Detector) preempt(ctx context.Context, obj client.Object, p *policy) error {
	if !d.opts.PropagationPolicyPreemption || p.spec.Preemption != policyv1alpha1.PreemptAlways {
		return nil
	}
	logger := log.FromContext(ctx).WithValues("preemptor", p.describe())
	if i, ok := unnamedSelector(p.spec); ok {
		logger.Info("not preempting: preemption Always requires every resourceSelector to have a name", "selector", i)
		d.recorder.Eventf(obj, "Warning", reasonPreemptFailed,
			"preemption: Always requires every resourceSelector to have a name; resourceSelectors[%d] has none", i)
		return nil
	}
	var errs []error
	for _, s := range p.spec.ResourceSelectors {
		key, ok := preemptionTarget(p, s)
		if !ok {
			continue
		}
		if err := d.preemptTemplate(log.IntoContext(ctx, logger.WithValues("template", key.String())), key, p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// preemptTemplate re-claims the template key for p when a weaker policy
// claims it. Missing, terminating and unclaimed templates are left alone
// (an unclaimed one is matched by the ordinary template reconcile).
func (d *Detector) preemptTemplate(ctx context.Context, key templateKey, p *policy) error {
	logger := log.FromContext(ctx)
	t, err := d.preemptionCandidate(ctx, key, p)
	if err != nil || t == nil {
		return err
	}
	ref, claimed := claimRefOf(t)
	if !claimed || ref.refersTo(p) {
		return nil
	}
	claimer, err := d.getPolicy(ctx, ref)
	if apierrors.IsNotFound(err) {
		logger.V(1).Info("not preempting: the claiming policy is gone; the template reconcile releases it")
		return nil
	}
	if err != nil {
		return fmt.Errorf("preempt %s: get claiming policy: %w", key, err)
	}
	if !mayPreempt(p, claimer) {
		logger.V(1).Info("not preempting a policy of equal or higher rank", "claimer", claimer.describe(),
			"priority", p.priority(), "claimerPriority", claimer.priority())
		return nil
	}
	obj, err := t.Decode()
	if err != nil {
		return fmt.Errorf("preempt %s: %w", key, err)
	}
	if err := d.reclaim(ctx, obj, p); err != nil {
		d.recorder.Eventf(obj, "Warning", reasonPreemptFailed, "%s failed to preempt %s: %v", p.describe(), claimer.describe(), err)
		return fmt.Errorf("preempt %s from %s: %w", key, claimer.describe(), err)
	}
	logger.Info("preempted", "claimer", claimer.describe())
	d.recorder.Eventf(obj, "Normal", reasonPreemptSucceed, "%s preempted %s successfully", p.describe(), claimer.describe())
	return nil
}

// reclaim replaces obj's claim with p's (a full Update, so a concurrent
// change of the template is a conflict and the policy is retried). Unlike
// claim, the write is not marked as the detector's own: its update event is
// what makes the template reconcile apply p to the binding, and that event
// is delivered only once the informer cache holds the new claim.
func (d *Detector) reclaim(ctx context.Context, obj *unstructured.Unstructured, p *policy) error {
	obj = obj.DeepCopy()
	setClaim(obj, p)
	if _, err := d.updateTemplate(ctx, obj); err != nil {
		return fmt.Errorf("claim template: %w", err)
	}
	return nil
}

// preemptionCandidate fetches the template key if p may preempt it at all:
// its kind is served with the scope the key implies, it exists, is not
// terminating, is propagated by this detector (not skipped, not claimed by
// another system) and is selected by p. It returns nil without error
// otherwise.
func (d *Detector) preemptionCandidate(ctx context.Context, key templateKey, p *policy) (*cachedTemplate, error) {
	if d.skip.skipped(key.gvk) || d.nsFilter.ignored(key.gvk, key.namespace, key.name) {
		return nil, nil
	}
	r, err := d.templateMapping(key.gvk)
	if meta.IsNoMatchError(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("preempt %s: %w", key, err)
	}
	// A PropagationPolicy never claims a cluster-scoped kind; a
	// ClusterPropagationPolicy selector without a namespace names no single
	// template of a namespaced kind, and one with a namespace selects no
	// cluster-scoped template.
	if r.namespaced != (key.namespace != "") {
		return nil, nil
	}
	t, err := d.lookupTemplate(ctx, key)
	if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("preempt %s: get template: %w", key, err)
	}
	if t.DeletionTimestamp != nil || t.Labels[names.ClaimedByLabel] != "" {
		return nil, nil
	}
	if p.implicitPriority(t) == priorityMisMatch {
		return nil, nil
	}
	return t, nil
}

// describe names p the way events do: "PropagationPolicy(ns/name)" or
// "ClusterPropagationPolicy(name)".
func (p *policy) describe() string {
	if p.cluster {
		return "ClusterPropagationPolicy(" + p.name + ")"
	}
	return "PropagationPolicy(" + p.namespace + "/" + p.name + ")"
}

// requeuePreemptors is the policy update handler of the gate: when an
// update lowers a policy's priority, the preemptors that may now outrank it
// are reconciled again, so that they take over its templates.
func (d *Detector) requeuePreemptors(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return
	}
	oldP, newP := toPolicy(e.ObjectOld), toPolicy(e.ObjectNew)
	if newP.priority() >= oldP.priority() {
		return
	}
	logger := log.FromContext(ctx).WithValues("policy", newP.describe())
	peers, err := d.peerPolicies(ctx, newP)
	if err != nil {
		logger.Error(err, "priority lowered, but the preemptors to requeue could not be listed")
		return
	}
	for _, p := range preemptorsBetween(peers, newP.priority(), oldP.priority()) {
		logger.V(1).Info("priority lowered: requeue preemptor", "preemptor", p.describe())
		q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.namespace, Name: p.name}})
	}
}

// peerPolicies lists the policies of p's scope: the PropagationPolicies of
// its namespace, or every ClusterPropagationPolicy.
func (d *Detector) peerPolicies(ctx context.Context, p *policy) ([]*policy, error) {
	var out []*policy
	if p.cluster {
		list := &policyv1alpha1.ClusterPropagationPolicyList{}
		if err := d.client.List(ctx, list); err != nil {
			return nil, fmt.Errorf("list ClusterPropagationPolicies: %w", err)
		}
		for i := range list.Items {
			out = append(out, fromCPP(&list.Items[i]))
		}
		return out, nil
	}
	list := &policyv1alpha1.PropagationPolicyList{}
	if err := d.client.List(ctx, list, client.InNamespace(p.namespace)); err != nil {
		return nil, fmt.Errorf("list PropagationPolicies of %s: %w", p.namespace, err)
	}
	for i := range list.Items {
		out = append(out, fromPP(&list.Items[i]))
	}
	return out, nil
}

// preemptorsBetween picks the policies with an explicit priority strictly
// between low and high and `preemption: Always`, highest priority first
// (then by name), so the strongest preemptor claims first.
func preemptorsBetween(candidates []*policy, low, high int32) []*policy {
	var out []*policy
	for _, p := range candidates {
		if p.deleting || p.spec.Priority == nil || p.spec.Preemption != policyv1alpha1.PreemptAlways {
			continue
		}
		if prio := *p.spec.Priority; prio > low && prio < high {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].priority() != out[j].priority() {
			return out[i].priority() > out[j].priority()
		}
		return out[i].key() < out[j].key()
	})
	return out
}
