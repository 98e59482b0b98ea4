package overrides

import (
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/affinity"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// Set is a snapshot of the override policies that can apply to objects of
// one namespace. It caches compiled selectors and is not safe for
// concurrent use.
type Set struct {
	cluster    []*Policy
	namespaced []*Policy

	selectors  map[*metav1.LabelSelector]labels.Selector
	affinities map[*policyv1alpha1.ClusterAffinity]*affinity.Matcher
}

// NewSet builds a Set from cluster-scoped and namespaced policies (the
// namespaced ones must all be in the namespace of the objects the Set is
// applied to).
func NewSet(cluster, namespaced []*Policy) *Set {
	return &Set{cluster: cluster, namespaced: namespaced}
}

// Empty reports whether the Set holds no policy at all.
func (s *Set) Empty() bool { return len(s.cluster) == 0 && len(s.namespaced) == 0 }

// Implicit priorities of a selector match (Karmada's values).
const (
	priorityMisMatch           = 0
	priorityMatchAll           = 1
	priorityMatchLabelSelector = 2
	priorityMatchName          = 3
)

// selectorPriority is Karmada's implicit priority of selector rs for obj.
// An invalid label selector never matches.
func (s *Set) selectorPriority(rs *policyv1alpha1.ResourceSelector, obj *unstructured.Unstructured) int {
	if rs.APIVersion != obj.GetAPIVersion() || rs.Kind != obj.GetKind() ||
		(rs.Namespace != "" && rs.Namespace != obj.GetNamespace()) {
		return priorityMisMatch
	}
	if rs.Name != "" {
		if rs.Name == obj.GetName() {
			return priorityMatchName
		}
		return priorityMisMatch
	}
	if rs.LabelSelector == nil {
		return priorityMatchAll
	}
	sel := s.labelSelector(rs.LabelSelector)
	if sel == nil || !sel.Matches(labels.Set(obj.GetLabels())) {
		return priorityMisMatch
	}
	return priorityMatchLabelSelector
}

func (s *Set) labelSelector(ls *metav1.LabelSelector) labels.Selector {
	if sel, ok := s.selectors[ls]; ok {
		return sel
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		sel = nil
	}
	if s.selectors == nil {
		s.selectors = map[*metav1.LabelSelector]labels.Selector{}
	}
	s.selectors[ls] = sel
	return sel
}

// implicitPriority is the best selector priority of p for obj; a policy
// without selectors matches everything with priority match-all.
func (s *Set) implicitPriority(p *Policy, obj *unstructured.Unstructured) int {
	if len(p.Spec.ResourceSelectors) == 0 {
		return priorityMatchAll
	}
	best := priorityMisMatch
	for i := range p.Spec.ResourceSelectors {
		if prio := s.selectorPriority(&p.Spec.ResourceSelectors[i], obj); prio > best {
			best = prio
		}
	}
	return best
}

// clusterMatches is Karmada's ClusterMatches with a cached matcher; a nil
// target cluster matches every cluster.
func (s *Set) clusterMatches(a *policyv1alpha1.ClusterAffinity, c *clusterv1alpha1.Cluster) bool {
	if a == nil {
		return true
	}
	m, ok := s.affinities[a]
	if !ok {
		m = affinity.MustCompile(a)
		if s.affinities == nil {
			s.affinities = map[*policyv1alpha1.ClusterAffinity]*affinity.Matcher{}
		}
		s.affinities[a] = m
	}
	return m.Matches(c)
}

// matchedRule is one rule to apply, with its policy.
type matchedRule struct {
	policy *Policy
	indexedRule
}

// rulesFor selects, among policies, those matching obj, orders them by
// implicit priority ascending then name (more specific policies apply
// later and win), and expands their rules that target cluster c.
func (s *Set) rulesFor(policies []*Policy, obj *unstructured.Unstructured, c *clusterv1alpha1.Cluster) []matchedRule {
	type ranked struct {
		p    *Policy
		prio int
	}
	var matched []ranked
	for _, p := range policies {
		if prio := s.implicitPriority(p, obj); prio > priorityMisMatch {
			matched = append(matched, ranked{p, prio})
		}
	}
	if len(matched) == 0 {
		return nil
	}
	sort.SliceStable(matched, func(i, j int) bool {
		if matched[i].prio != matched[j].prio {
			return matched[i].prio < matched[j].prio
		}
		return matched[i].p.Name < matched[j].p.Name
	})
	var out []matchedRule
	for _, m := range matched {
		for _, r := range m.p.rules() {
			if s.clusterMatches(r.rule.TargetCluster, c) {
				out = append(out, matchedRule{policy: m.p, indexedRule: r})
			}
		}
	}
	return out
}
