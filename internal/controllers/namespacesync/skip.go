package namespacesync

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/propel-mc/propel/internal/shared/names"
)

// skipper decides which namespaces are not propagated.
type skipper struct{ patterns []*regexp.Regexp }

// newSkipper compiles --skipped-propagating-namespaces; each regex must
// match the whole name.
func newSkipper(patterns []string) (*skipper, error) {
	s := &skipper{}
	for _, p := range patterns {
		re, err := regexp.Compile("^(?:" + p + ")$")
		if err != nil {
			return nil, fmt.Errorf("skipped propagating namespace %q: %w", p, err)
		}
		s.patterns = append(s.patterns, re)
	}
	return s, nil
}

// skipName reports namespaces never propagated by name: Karmada's reserved
// ones, default, and the configured patterns.
func (s *skipper) skipName(name string) bool {
	if name == names.SystemNamespace || name == names.ClusterNamespace ||
		strings.HasPrefix(name, names.ExecutionSpacePrefix) || name == metav1.NamespaceDefault {
		return true
	}
	for _, re := range s.patterns {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// skip adds the per-object rules: terminating namespaces (garbage
// collection removes their Works) and the skip-auto-propagation label.
func (s *skipper) skip(ns *corev1.Namespace) bool {
	return s.skipName(ns.Name) || !ns.DeletionTimestamp.IsZero() ||
		strings.EqualFold(ns.Labels[names.SkipAutoPropagationNamespaceLabel], names.TrueValue)
}
