package detector

import (
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	"github.com/propel-mc/propel/pkg/names"
)

// policy is what matching needs of a PropagationPolicy or
// ClusterPropagationPolicy; the two kinds share PropagationSpec.
type policy struct {
	// cluster is true for a ClusterPropagationPolicy.
	cluster   bool
	namespace string
	name      string
	// id is the policy's permanent-id label value ("" until assigned).
	id       string
	deleting bool
	spec     *policyv1alpha1.PropagationSpec
}

func fromPP(pp *policyv1alpha1.PropagationPolicy) *policy {
	return &policy{
		namespace: pp.Namespace, name: pp.Name,
		id:       pp.Labels[names.PropagationPolicyPermanentIDLabel],
		deleting: pp.DeletionTimestamp != nil,
		spec:     &pp.Spec,
	}
}

func fromCPP(cpp *policyv1alpha1.ClusterPropagationPolicy) *policy {
	return &policy{
		cluster: true, name: cpp.Name,
		id:       cpp.Labels[names.ClusterPropagationPolicyPermanentIDLabel],
		deleting: cpp.DeletionTimestamp != nil,
		spec:     &cpp.Spec,
	}
}

func (p *policy) key() string { return p.namespace + "/" + p.name }

func (p *policy) priority() int32 {
	if p.spec.Priority == nil {
		return 0
	}
	return *p.spec.Priority
}

// Implicit priorities of a selector match (Karmada's values).
const (
	priorityMisMatch           = 0
	priorityMatchAll           = 1
	priorityMatchLabelSelector = 2
	priorityMatchName          = 3
)

// selectable is what matching reads of a template: the cached form (which
// keeps these decoded) or an Unstructured.
type selectable interface {
	GetAPIVersion() string
	GetKind() string
	GetNamespace() string
	GetName() string
	GetLabels() map[string]string
}

// selectorPriority is the implicit priority of one selector for a template.
func selectorPriority(s *policyv1alpha1.ResourceSelector, obj selectable) int {
	if s.APIVersion != obj.GetAPIVersion() || s.Kind != obj.GetKind() {
		return priorityMisMatch
	}
	if s.Namespace != "" && s.Namespace != obj.GetNamespace() {
		return priorityMisMatch
	}
	if s.Name != "" {
		if s.Name == obj.GetName() {
			return priorityMatchName
		}
		return priorityMisMatch
	}
	if s.LabelSelector == nil {
		return priorityMatchAll
	}
	sel, err := metav1.LabelSelectorAsSelector(s.LabelSelector)
	if err != nil || !sel.Matches(labels.Set(obj.GetLabels())) {
		return priorityMisMatch
	}
	return priorityMatchLabelSelector
}

// implicitPriority is the best selector priority of p for obj; 0 is no match.
// A PropagationPolicy selector without a namespace selects its own namespace
// (Karmada's webhook fills it in).
func (p *policy) implicitPriority(obj selectable) int {
	best := priorityMisMatch
	for i := range p.spec.ResourceSelectors {
		s := p.spec.ResourceSelectors[i]
		if !p.cluster && s.Namespace == "" {
			s.Namespace = p.namespace
		}
		if prio := selectorPriority(&s, obj); prio > best {
			best = prio
		}
	}
	return best
}

// bestPolicy picks among candidates of one kind: explicit priority, then
// implicit priority, then the smaller name. Deleting policies never match.
func bestPolicy(candidates []*policy, obj selectable) *policy {
	var best *policy
	bestImplicit := 0
	for _, p := range candidates {
		if p.deleting {
			continue
		}
		implicit := p.implicitPriority(obj)
		if implicit == priorityMisMatch {
			continue
		}
		if best == nil || better(p, implicit, best, bestImplicit) {
			best, bestImplicit = p, implicit
		}
	}
	return best
}

func better(p *policy, implicit int, q *policy, qImplicit int) bool {
	if p.priority() != q.priority() {
		return p.priority() > q.priority()
	}
	if implicit != qImplicit {
		return implicit > qImplicit
	}
	return p.name < q.name
}

// policyIndex indexes policies by the apiVersion/kind of their selectors, so
// matching a template only looks at policies that can select its kind:
// matching cost does not grow with the number of unrelated policies.
type policyIndex struct {
	mu sync.RWMutex
	// byKind maps apiVersion and kind to policies by key.
	byKind map[kindKey]map[string]*policy
	// kinds remembers each policy's index keys for removal.
	kinds map[string][]kindKey
}

// kindKey is a selector's apiVersion and kind.
type kindKey struct{ apiVersion, kind string }

func newPolicyIndex() *policyIndex {
	return &policyIndex{byKind: map[kindKey]map[string]*policy{}, kinds: map[string][]kindKey{}}
}

// upsert replaces the indexed copy of p.
func (ix *policyIndex) upsert(p *policy) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.removeLocked(p.key())
	var keys []kindKey
	for _, s := range p.spec.ResourceSelectors {
		k := kindKey{s.APIVersion, s.Kind}
		if ix.byKind[k] == nil {
			ix.byKind[k] = map[string]*policy{}
		}
		if _, dup := ix.byKind[k][p.key()]; !dup {
			keys = append(keys, k)
		}
		ix.byKind[k][p.key()] = p
	}
	ix.kinds[p.key()] = keys
}

func (ix *policyIndex) remove(key string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.removeLocked(key)
}

func (ix *policyIndex) removeLocked(key string) {
	for _, k := range ix.kinds[key] {
		delete(ix.byKind[k], key)
		if len(ix.byKind[k]) == 0 {
			delete(ix.byKind, k)
		}
	}
	delete(ix.kinds, key)
}

// candidates returns the policies that may select obj: for a namespaced
// index only those of obj's namespace. Sorted by key for determinism.
func (ix *policyIndex) candidates(obj selectable, namespaced bool) []*policy {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []*policy
	for _, p := range ix.byKind[kindKey{obj.GetAPIVersion(), obj.GetKind()}] {
		if namespaced && p.namespace != obj.GetNamespace() {
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *policy) int { return strings.Compare(a.key(), b.key()) })
	return out
}

// get returns the indexed policy by key.
func (ix *policyIndex) get(apiVersion, kind, key string) *policy {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.byKind[kindKey{apiVersion, kind}][key]
}
