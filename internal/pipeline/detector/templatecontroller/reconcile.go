package templatecontroller

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/metrics"
	"github.com/propel-mc/propel/internal/shared/names"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

var errNoMatchedPolicy = errors.New("no matched propagation policy")

// reconcileTemplate brings one template's claim and binding in line with
// the policies: the claiming policy if any, else the best matching one.
// It decodes the template only to apply a policy to it.
func (r *Reconciler) reconcileTemplate(ctx context.Context, key Key, lazyChange bool) error {
	t, err := r.templates.Lookup(ctx, key)
	if apierrors.IsNotFound(err) {
		r.waiting.remove(key)
		return nil
	}
	if err != nil {
		return err
	}
	if t.Labels[names.ClaimedByLabel] != "" {
		r.waiting.remove(key)
		return nil
	}
	if p, claimed, err := r.claimingPolicy(ctx, t); claimed {
		if err != nil || p == nil {
			return err
		}
		return r.applyClaimed(ctx, t, p, lazyChange)
	}
	start := time.Now()
	p := r.policies.Match(t)
	if p == nil {
		if r.waiting.add(key) {
			return errNoMatchedPolicy // one rate-limited retry covers a policy arriving together
		}
		return nil
	}
	if err := r.checkDependentOverrides(ctx, p); err != nil {
		return err
	}
	metrics.PolicyMatched(start)
	r.waiting.remove(key)
	return r.applyPolicy(ctx, t, p, lazyChange)
}

// claimingPolicy returns the policy that claims t, if its claim metadata
// says one does. A claim whose policy is gone is cleaned up (nil policy);
// a terminating policy is an error so the template is retried.
func (r *Reconciler) claimingPolicy(ctx context.Context, t *templatecache.Template) (*policyindex.Policy, bool, error) {
	ref, ok := policyindex.ClaimRefOf(t)
	if !ok {
		return nil, false, nil
	}
	p, err := policyindex.Get(ctx, r.client, ref)
	switch {
	case apierrors.IsNotFound(err):
		obj, err := t.Decode()
		if err != nil {
			return nil, true, err
		}
		return nil, true, r.Release(ctx, obj, policyindex.ClaimOf(t))
	case err != nil:
		return nil, true, err
	case p.Deleting:
		return nil, true, fmt.Errorf("claiming policy %s is being deleted", p.Key())
	}
	return p, true, nil
}

// applyClaimed re-applies the claiming policy unless the template no longer
// matches it: claims are sticky and released only from the policy side.
func (r *Reconciler) applyClaimed(ctx context.Context, t *templatecache.Template, p *policyindex.Policy, lazyChange bool) error {
	if !p.Selects(t) {
		return nil
	}
	if err := r.checkDependentOverrides(ctx, p); err != nil {
		return err
	}
	return r.applyPolicy(ctx, t, p, lazyChange)
}

// applyPolicy claims the template for p and creates or updates its
// binding. Every application is counted in Karmada's policy apply
// metrics, except a template parked until the policy has its id (nothing
// was attempted).
func (r *Reconciler) applyPolicy(ctx context.Context, t *templatecache.Template, p *policyindex.Policy, lazyChange bool) (err error) {
	start := time.Now()
	parked := false
	defer func() {
		if !parked {
			metrics.PolicyApplied(start, err)
		}
	}()
	if p.ID == "" {
		// The policy controller is about to write the id; its arrival in
		// the policy index requeues the template.
		if !r.idWaiters.park(p.Key(), t.Key(), lazyChange) {
			// The id reached the index since p was read: retry.
			return fmt.Errorf("policy %s has no permanent id yet", p.Key())
		}
		parked = true
		return nil
	}
	obj, err := t.Decode()
	if err != nil {
		return err
	}
	claimedObj, err := r.claim(ctx, obj, p)
	if err != nil {
		return r.applyFailed(obj, p, fmt.Errorf("claim: %w", err))
	}
	obj = claimedObj
	if lazyChange && p.Spec.ActivationPreference == policyv1alpha1.LazyActivation {
		return nil
	}
	written, err := r.ensureBinding(ctx, obj, p)
	if err != nil {
		return r.applyFailed(obj, p, err)
	}
	if written {
		r.applySucceeded(obj, p)
	}
	return nil
}

// applySucceeded records a binding write: the replica or component
// interpretation that went into it (Karmada records one whenever it builds
// a binding; like ApplyPolicySucceed, Propel announces only a write), then
// the policy.
func (r *Reconciler) applySucceeded(obj *unstructured.Unstructured, p *policyindex.Policy) {
	switch r.workloadOperation(obj) {
	case configv1alpha1.InterpreterOperationInterpretComponent:
		r.recorder.Event(obj, "Normal", ReasonGetComponentsSucceed, "Interpreted the components of the resource template.")
	case configv1alpha1.InterpreterOperationInterpretReplica:
		r.recorder.Event(obj, "Normal", ReasonGetReplicasSucceed, "Interpreted the replicas of the resource template.")
	}
	r.recorder.Eventf(obj, "Normal", ReasonApplyPolicySucceed, "Apply %s succeed", policyInMessage(p))
}

// policyInMessage names p in the ApplyPolicy messages as Karmada's do:
// "policy(namespace/name)" or "cluster policy(name)".
func policyInMessage(p *policyindex.Policy) string {
	if p.Cluster {
		return "cluster policy(" + p.Name + ")"
	}
	return "policy(" + p.Namespace + "/" + p.Name + ")"
}

// applyFailed records a failed claim or binding write: first the
// interpretation that failed, if that was the cause, then the policy.
func (r *Reconciler) applyFailed(obj *unstructured.Unstructured, p *policyindex.Policy, err error) error {
	if ie, ok := asInterpreterError(err); ok {
		reason := ReasonGetReplicasFailed
		if ie.op == configv1alpha1.InterpreterOperationInterpretComponent {
			reason = ReasonGetComponentsFailed
		}
		r.recorder.Event(obj, "Warning", reason, boundedtext.String(ie.err.Error()))
	}
	r.recorder.Eventf(obj, "Warning", ReasonApplyPolicyFailed, "Apply %s failed: %s", policyInMessage(p), boundedtext.String(err.Error()))
	return err
}
