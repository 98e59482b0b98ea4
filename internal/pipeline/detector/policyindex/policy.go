package policyindex

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// Policy is what matching needs of a PropagationPolicy or
// ClusterPropagationPolicy; the two kinds share PropagationSpec.
type Policy struct {
	// Cluster is true for a ClusterPropagationPolicy.
	Cluster   bool
	Namespace string
	Name      string
	// ID is the policy's permanent-id label value ("" until assigned).
	ID       string
	Deleting bool
	Spec     *policyv1alpha1.PropagationSpec
}

// FromPP is the view of a PropagationPolicy (sharing its spec).
func FromPP(pp *policyv1alpha1.PropagationPolicy) *Policy {
	return &Policy{
		Namespace: pp.Namespace, Name: pp.Name,
		ID:       pp.Labels[names.PropagationPolicyPermanentIDLabel],
		Deleting: pp.DeletionTimestamp != nil,
		Spec:     &pp.Spec,
	}
}

// FromCPP is the view of a ClusterPropagationPolicy (sharing its spec).
func FromCPP(cpp *policyv1alpha1.ClusterPropagationPolicy) *Policy {
	return &Policy{
		Cluster: true, Name: cpp.Name,
		ID:       cpp.Labels[names.ClusterPropagationPolicyPermanentIDLabel],
		Deleting: cpp.DeletionTimestamp != nil,
		Spec:     &cpp.Spec,
	}
}

// FromObject is the view of a PropagationPolicy or ClusterPropagationPolicy.
func FromObject(obj client.Object) *Policy {
	if pp, ok := obj.(*policyv1alpha1.PropagationPolicy); ok {
		return FromPP(pp)
	}
	return FromCPP(obj.(*policyv1alpha1.ClusterPropagationPolicy))
}

// Key is "namespace/name" ("/name" for a ClusterPropagationPolicy).
func (p *Policy) Key() string { return p.Namespace + "/" + p.Name }

// Priority is the explicit priority (0 when unset).
func (p *Policy) Priority() int32 {
	if p.Spec.Priority == nil {
		return 0
	}
	return *p.Spec.Priority
}

// Describe names p the way events do: "PropagationPolicy(ns/name)" or
// "ClusterPropagationPolicy(name)".
func (p *Policy) Describe() string {
	if p.Cluster {
		return "ClusterPropagationPolicy(" + p.Name + ")"
	}
	return "PropagationPolicy(" + p.Namespace + "/" + p.Name + ")"
}

// Implicit priorities of a selector match (Karmada's values).
const (
	PriorityMisMatch           = 0
	PriorityMatchAll           = 1
	PriorityMatchLabelSelector = 2
	PriorityMatchName          = 3
)

// Selectable is what matching reads of a template: the cached form (which
// keeps these decoded) or an Unstructured.
type Selectable interface {
	GetAPIVersion() string
	GetKind() string
	GetNamespace() string
	GetName() string
	GetLabels() map[string]string
}

// SelectorPriority is the implicit priority of one selector for a template.
func SelectorPriority(s *policyv1alpha1.ResourceSelector, obj Selectable) int {
	if s.APIVersion != obj.GetAPIVersion() || s.Kind != obj.GetKind() {
		return PriorityMisMatch
	}
	if s.Namespace != "" && s.Namespace != obj.GetNamespace() {
		return PriorityMisMatch
	}
	if s.Name != "" {
		if s.Name == obj.GetName() {
			return PriorityMatchName
		}
		return PriorityMisMatch
	}
	if s.LabelSelector == nil {
		return PriorityMatchAll
	}
	sel, err := metav1.LabelSelectorAsSelector(s.LabelSelector)
	if err != nil || !sel.Matches(labels.Set(obj.GetLabels())) {
		return PriorityMisMatch
	}
	return PriorityMatchLabelSelector
}

// ImplicitPriority is the best selector priority of p for obj; 0 is no
// match. A PropagationPolicy selector without a namespace selects its own
// namespace (Karmada's webhook fills it in).
func (p *Policy) ImplicitPriority(obj Selectable) int {
	best := PriorityMisMatch
	for i := range p.Spec.ResourceSelectors {
		s := p.Spec.ResourceSelectors[i]
		if !p.Cluster && s.Namespace == "" {
			s.Namespace = p.Namespace
		}
		if prio := SelectorPriority(&s, obj); prio > best {
			best = prio
		}
	}
	return best
}

// Selects reports whether p selects obj at all.
func (p *Policy) Selects(obj Selectable) bool { return p.ImplicitPriority(obj) != PriorityMisMatch }

// Best picks among candidates of one kind: explicit priority, then
// implicit priority, then the smaller name. Deleting policies never match.
func Best(candidates []*Policy, obj Selectable) *Policy {
	var best *Policy
	bestImplicit := 0
	for _, p := range candidates {
		if p.Deleting {
			continue
		}
		implicit := p.ImplicitPriority(obj)
		if implicit == PriorityMisMatch {
			continue
		}
		if best == nil || better(p, implicit, best, bestImplicit) {
			best, bestImplicit = p, implicit
		}
	}
	return best
}

func better(p *Policy, implicit int, q *Policy, qImplicit int) bool {
	if p.Priority() != q.Priority() {
		return p.Priority() > q.Priority()
	}
	if implicit != qImplicit {
		return implicit > qImplicit
	}
	return p.Name < q.Name
}

// Get reads the policy ref names through r (the manager's cache).
func Get(ctx context.Context, r client.Reader, ref ClaimRef) (*Policy, error) {
	key := types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
	if ref.Cluster {
		cpp := &policyv1alpha1.ClusterPropagationPolicy{}
		if err := r.Get(ctx, key, cpp); err != nil {
			return nil, err
		}
		return FromCPP(cpp), nil
	}
	pp := &policyv1alpha1.PropagationPolicy{}
	if err := r.Get(ctx, key, pp); err != nil {
		return nil, err
	}
	return FromPP(pp), nil
}
