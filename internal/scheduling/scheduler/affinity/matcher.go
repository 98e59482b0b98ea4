package affinity

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// Matcher is a compiled ClusterAffinity. The zero value matches every
// cluster.
type Matcher struct {
	names    []string
	exclude  []string
	selector labels.Selector
	zones    []zoneRequirement
	fields   []labels.Requirement
	// never is set when a selector is invalid: Karmada treats an invalid
	// selector as "does not match".
	never bool
}

// zoneRequirement tests spec.zones.
type zoneRequirement struct {
	op     corev1.NodeSelectorOperator
	values []string
}

// Compile compiles a. A nil affinity matches everything. An invalid label
// or field selector yields a Matcher that matches nothing, plus the error.
func Compile(a *policyv1alpha1.ClusterAffinity) (*Matcher, error) {
	m := &Matcher{}
	if a == nil {
		return m, nil
	}
	m.names, m.exclude = a.ClusterNames, a.ExcludeClusters
	if a.LabelSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(a.LabelSelector)
		if err != nil {
			m.never = true
			return m, fmt.Errorf("labelSelector: %w", err)
		}
		m.selector = sel
	}
	if a.FieldSelector != nil {
		for i, req := range a.FieldSelector.MatchExpressions {
			if err := m.addField(req); err != nil {
				m.never = true
				return m, fmt.Errorf("fieldSelector.matchExpressions[%d]: %w", i, err)
			}
		}
	}
	return m, nil
}

// MustCompile compiles a, ignoring selector errors (the Matcher then matches
// nothing), for callers that only need Karmada's matching semantics.
func MustCompile(a *policyv1alpha1.ClusterAffinity) *Matcher {
	m, _ := Compile(a)
	return m
}

func (m *Matcher) addField(req corev1.NodeSelectorRequirement) error {
	if req.Key == names.ClusterFieldZone {
		m.zones = append(m.zones, zoneRequirement{op: req.Operator, values: req.Values})
		return nil
	}
	op, ok := fieldOperators[req.Operator]
	if !ok {
		return fmt.Errorf("operator %q is not supported", req.Operator)
	}
	r, err := labels.NewRequirement(req.Key, op, req.Values)
	if err != nil {
		return err
	}
	m.fields = append(m.fields, *r)
	return nil
}

var fieldOperators = map[corev1.NodeSelectorOperator]selection.Operator{
	corev1.NodeSelectorOpIn:           selection.In,
	corev1.NodeSelectorOpNotIn:        selection.NotIn,
	corev1.NodeSelectorOpExists:       selection.Exists,
	corev1.NodeSelectorOpDoesNotExist: selection.DoesNotExist,
	corev1.NodeSelectorOpGt:           selection.GreaterThan,
	corev1.NodeSelectorOpLt:           selection.LessThan,
}

// Matches is Karmada's ClusterMatches: not excluded, label selector
// matches, field selector matches, and listed in clusterNames when that is
// non-empty.
func (m *Matcher) Matches(c *clusterv1alpha1.Cluster) bool {
	if m.never || slices.Contains(m.exclude, c.Name) {
		return false
	}
	if m.selector != nil && !m.selector.Matches(labels.Set(c.Labels)) {
		return false
	}
	for i := range m.zones {
		if !m.zones[i].matches(c.Spec.Zones) {
			return false
		}
	}
	fields := clusterFields{c}
	for i := range m.fields {
		if !m.fields[i].Matches(fields) {
			return false
		}
	}
	return len(m.names) == 0 || slices.Contains(m.names, c.Name)
}

func (z *zoneRequirement) matches(zones []string) bool {
	switch z.op {
	case corev1.NodeSelectorOpIn:
		return len(zones) > 0 && overlaps(zones, z.values)
	case corev1.NodeSelectorOpNotIn:
		return !overlaps(zones, z.values)
	case corev1.NodeSelectorOpExists:
		return len(zones) > 0
	case corev1.NodeSelectorOpDoesNotExist:
		return len(zones) == 0
	default:
		return false
	}
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// clusterFields exposes spec.provider and spec.region as a label set;
// empty fields are absent.
type clusterFields struct{ c *clusterv1alpha1.Cluster }

func (f clusterFields) Has(key string) bool { return f.Get(key) != "" }

func (f clusterFields) Lookup(key string) (string, bool) {
	v := f.Get(key)
	return v, v != ""
}

func (f clusterFields) Get(key string) string {
	switch key {
	case names.ClusterFieldProvider:
		return f.c.Spec.Provider
	case names.ClusterFieldRegion:
		return f.c.Spec.Region
	default:
		return ""
	}
}

// ClusterMatches reports whether c matches a with Karmada's semantics (an
// invalid selector never matches).
func ClusterMatches(c *clusterv1alpha1.Cluster, a *policyv1alpha1.ClusterAffinity) bool {
	return MustCompile(a).Matches(c)
}
