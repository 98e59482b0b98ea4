package preemption

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
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	"github.com/propel-mc/propel/internal/shared/metrics"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// RBAC: preemption lists the policies that claim templates (templates are
// written through the detector's rule).
// +kubebuilder:rbac:groups=policy.karmada.io,resources=propagationpolicies;clusterpropagationpolicies,verbs=get;list;watch

// Preemptor runs preemption for the policy controller.
type Preemptor struct {
	client    client.Client
	templates *templatecache.Cache
	recorder  record.EventRecorder
}

// New returns the preemption phase of the policy controller.
func New(c client.Client, templates *templatecache.Cache, recorder record.EventRecorder) *Preemptor {
	return &Preemptor{client: c, templates: templates, recorder: recorder}
}

// mayPreempt says whether preemptor may take a template claimed by claimer:
// a PropagationPolicy takes it from any ClusterPropagationPolicy and from a
// PropagationPolicy of strictly lower priority; a ClusterPropagationPolicy
// only from a ClusterPropagationPolicy of strictly lower priority.
func mayPreempt(preemptor, claimer *policyindex.Policy) bool {
	if preemptor.Cluster != claimer.Cluster {
		return !preemptor.Cluster
	}
	return preemptor.Priority() > claimer.Priority()
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
func preemptionTarget(p *policyindex.Policy, s policyv1alpha1.ResourceSelector) (templatecache.Key, bool) {
	gv, err := schema.ParseGroupVersion(s.APIVersion)
	if err != nil || s.Name == "" {
		return templatecache.Key{}, false
	}
	ns := s.Namespace
	if !p.Cluster {
		if ns != "" && ns != p.Namespace {
			return templatecache.Key{}, false
		}
		ns = p.Namespace
	}
	return templatecache.Key{GVK: gv.WithKind(s.Kind), Namespace: ns, Name: s.Name}, true
}

// Preempt runs preemption for p when p asks for it (the gate is on when a
// Preemptor exists).
// obj is the policy object, which gets a warning event when a selector has
// no name. Errors of single templates are joined; the others still run.
func (pr *Preemptor) Preempt(ctx context.Context, obj client.Object, p *policyindex.Policy) error {
	if p.Spec.Preemption != policyv1alpha1.PreemptAlways {
		return nil
	}
	logger := log.FromContext(ctx).WithValues("policy", klog.KRef(p.Namespace, p.Name), "preemptor", p.Describe())
	if i, ok := unnamedSelector(p.Spec); ok {
		logger.Info("not preempting: preemption Always requires every resourceSelector to have a name", "selector", i)
		pr.recorder.Eventf(obj, "Warning", ReasonPreemptFailed,
			"preemption: Always requires every resourceSelector to have a name; resourceSelectors[%d] has none", i)
		return nil
	}
	var errs []error
	for _, s := range p.Spec.ResourceSelectors {
		key, ok := preemptionTarget(p, s)
		if !ok {
			continue
		}
		if err := pr.preemptTemplate(log.IntoContext(ctx, logger.WithValues("template", klog.KRef(key.Namespace, key.Name), "kind", key.GVK.Kind)), key, p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// preemptTemplate re-claims the template key for p when a weaker policy
// claims it. Missing, terminating and unclaimed templates are left alone
// (an unclaimed one is matched by the ordinary template reconcile).
func (pr *Preemptor) preemptTemplate(ctx context.Context, key templatecache.Key, p *policyindex.Policy) error {
	logger := log.FromContext(ctx)
	t, err := pr.preemptionCandidate(ctx, key, p)
	if err != nil || t == nil {
		return err
	}
	ref, claimed := policyindex.ClaimRefOf(t)
	if !claimed || ref.RefersTo(p) {
		return nil
	}
	claimer, err := policyindex.Get(ctx, pr.client, ref)
	if apierrors.IsNotFound(err) {
		logger.V(1).Info("not preempting: the claiming policy is gone; the template reconcile releases it")
		return nil
	}
	if err != nil {
		return fmt.Errorf("preempt %s: get claiming policy: %w", key, err)
	}
	if !mayPreempt(p, claimer) {
		logger.V(1).Info("not preempting a policy of equal or higher rank", "claimer", claimer.Describe(),
			"priority", p.Priority(), "claimerPriority", claimer.Priority())
		return nil
	}
	obj, err := t.Decode()
	if err != nil {
		metrics.PolicyPreempted(err)
		return fmt.Errorf("preempt %s: %w", key, err)
	}
	err = pr.reclaim(ctx, obj, p)
	metrics.PolicyPreempted(err)
	if err != nil {
		pr.recorder.Eventf(obj, "Warning", ReasonPreemptFailed, "%s failed to preempt %s: %v", p.Describe(), claimer.Describe(), err)
		return fmt.Errorf("preempt %s from %s: %w", key, claimer.Describe(), err)
	}
	logger.Info("preempted", "claimer", claimer.Describe())
	pr.recorder.Eventf(obj, "Normal", ReasonPreemptSucceed, "%s preempted %s successfully", p.Describe(), claimer.Describe())
	return nil
}

// reclaim replaces obj's claim with p's (a full Update, so a concurrent
// change of the template is a conflict and the policy is retried). Unlike
// claim, the write is not marked as the detector's own: its update event is
// what makes the template reconcile apply p to the binding, and that event
// is delivered only once the informer cache holds the new claim.
func (pr *Preemptor) reclaim(ctx context.Context, obj *unstructured.Unstructured, p *policyindex.Policy) error {
	obj = obj.DeepCopy()
	policyindex.SetClaim(obj, p)
	if _, err := pr.templates.Update(ctx, obj); err != nil {
		return fmt.Errorf("claim template: %w", err)
	}
	return nil
}

// preemptionCandidate fetches the template key if p may preempt it at all:
// its kind is served with the scope the key implies, it exists, is not
// terminating, is propagated by this detector (not skipped, not claimed by
// another system) and is selected by p. It returns nil without error
// otherwise.
func (pr *Preemptor) preemptionCandidate(ctx context.Context, key templatecache.Key, p *policyindex.Policy) (*templatecache.Template, error) {
	if pr.templates.Skipped(key.GVK) || pr.templates.Ignored(key.GVK, key.Namespace, key.Name) {
		return nil, nil
	}
	r, err := pr.templates.Mapping(key.GVK)
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
	if r.Namespaced != (key.Namespace != "") {
		return nil, nil
	}
	t, err := pr.templates.Lookup(ctx, key)
	if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("preempt %s: get template: %w", key, err)
	}
	if t.DeletionTimestamp != nil || t.Labels[names.ClaimedByLabel] != "" {
		return nil, nil
	}
	if !p.Selects(t) {
		return nil, nil
	}
	return t, nil
}

// RequeuePreemptors is the policy update handler of the gate: when an
// update lowers a policy's priority, the preemptors that may now outrank it
// are reconciled again, so that they take over its templates.
func (pr *Preemptor) RequeuePreemptors(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	if e.ObjectOld == nil || e.ObjectNew == nil {
		return
	}
	oldP, newP := policyindex.FromObject(e.ObjectOld), policyindex.FromObject(e.ObjectNew)
	if newP.Priority() >= oldP.Priority() {
		return
	}
	logger := log.FromContext(ctx).WithValues("policy", klog.KRef(newP.Namespace, newP.Name), "kind", kindOf(newP))
	peers, err := pr.peerPolicies(ctx, newP)
	if err != nil {
		logger.Error(err, "priority lowered, but the preemptors to requeue could not be listed")
		return
	}
	for _, p := range preemptorsBetween(peers, newP.Priority(), oldP.Priority()) {
		logger.V(1).Info("priority lowered: requeue preemptor", "preemptor", klog.KRef(p.Namespace, p.Name))
		q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}})
	}
}

// peerPolicies lists the policies of p's scope: the PropagationPolicies of
// its namespace, or every ClusterPropagationPolicy.
func (pr *Preemptor) peerPolicies(ctx context.Context, p *policyindex.Policy) ([]*policyindex.Policy, error) {
	var out []*policyindex.Policy
	if p.Cluster {
		list := &policyv1alpha1.ClusterPropagationPolicyList{}
		if err := pr.client.List(ctx, list); err != nil {
			return nil, fmt.Errorf("list ClusterPropagationPolicies: %w", err)
		}
		for i := range list.Items {
			out = append(out, policyindex.FromCPP(&list.Items[i]))
		}
		return out, nil
	}
	list := &policyv1alpha1.PropagationPolicyList{}
	if err := pr.client.List(ctx, list, client.InNamespace(p.Namespace)); err != nil {
		return nil, fmt.Errorf("list PropagationPolicies of %s: %w", p.Namespace, err)
	}
	for i := range list.Items {
		out = append(out, policyindex.FromPP(&list.Items[i]))
	}
	return out, nil
}

// preemptorsBetween picks the policies with an explicit priority strictly
// between low and high and `preemption: Always`, highest priority first
// (then by name), so the strongest preemptor claims first.
func preemptorsBetween(candidates []*policyindex.Policy, low, high int32) []*policyindex.Policy {
	var out []*policyindex.Policy
	for _, p := range candidates {
		if p.Deleting || p.Spec.Priority == nil || p.Spec.Preemption != policyv1alpha1.PreemptAlways {
			continue
		}
		if prio := *p.Spec.Priority; prio > low && prio < high {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Priority() != out[j].Priority() {
			return out[i].Priority() > out[j].Priority()
		}
		return out[i].Key() < out[j].Key()
	})
	return out
}

// kindOf is the kind of p, for logs.
func kindOf(p *policyindex.Policy) string {
	if p.Cluster {
		return "ClusterPropagationPolicy"
	}
	return "PropagationPolicy"
}
