package templatecache

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/shared/names"
)

// skipList decides which APIs are never propagated: Karmada's own groups,
// events and leases, plus the user's --skipped-propagating-apis entries.
type skipList struct {
	groups        map[string]bool
	groupVersions map[string]bool
	gvks          map[schema.GroupVersionKind]bool
}

var defaultSkippedGroups = []string{
	"cluster.karmada.io", "policy.karmada.io", "work.karmada.io", "config.karmada.io",
	"networking.karmada.io", "autoscaling.karmada.io", "remedy.karmada.io", "apps.karmada.io",
	"events.k8s.io",
}

// newSkipList parses entries separated by ';': "<group>",
// "<group>/<version>", "<group>/<version>/<Kind>[,<Kind>]" or, for the core
// group, "v1/<Kind>[,<Kind>]".
func newSkipList(spec string) (*skipList, error) {
	s := &skipList{groups: map[string]bool{}, groupVersions: map[string]bool{}, gvks: map[schema.GroupVersionKind]bool{}}
	for _, g := range defaultSkippedGroups {
		s.groups[g] = true
	}
	s.gvks[schema.GroupVersionKind{Version: "v1", Kind: "Event"}] = true
	s.groupVersions["coordination.k8s.io/v1"] = true
	for _, entry := range strings.Split(spec, ";") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		parts := strings.Split(entry, "/")
		switch {
		case len(parts) == 1:
			s.groups[parts[0]] = true
		case len(parts) == 2 && parts[0] == "v1" && parts[1] != "":
			for _, k := range strings.Split(parts[1], ",") {
				s.gvks[schema.GroupVersionKind{Version: "v1", Kind: k}] = true
			}
		case len(parts) == 2:
			s.groupVersions[entry] = true
		case len(parts) == 3:
			for _, k := range strings.Split(parts[2], ",") {
				s.gvks[schema.GroupVersionKind{Group: parts[0], Version: parts[1], Kind: k}] = true
			}
		default:
			return nil, fmt.Errorf("--skipped-propagating-apis: invalid entry %q", entry)
		}
	}
	return s, nil
}

func (s *skipList) skipped(gvk schema.GroupVersionKind) bool {
	return s.groups[gvk.Group] || s.groupVersions[gvk.GroupVersion().String()] || s.gvks[gvk]
}

// namespaceFilter drops templates in reserved or user-skipped namespaces.
type namespaceFilter struct {
	skipped []*regexp.Regexp
}

func newNamespaceFilter(patterns []string) (*namespaceFilter, error) {
	f := &namespaceFilter{}
	for _, p := range patterns {
		re, err := regexp.Compile("^" + p + "$")
		if err != nil {
			return nil, fmt.Errorf("--skipped-propagating-namespaces %q: %w", p, err)
		}
		f.skipped = append(f.skipped, re)
	}
	return f, nil
}

// ignored reports whether a template in namespace ns, of gvk and name,
// must never be propagated.
func (f *namespaceFilter) ignored(gvk schema.GroupVersionKind, ns, name string) bool {
	if ns == names.SystemNamespace || ns == names.ClusterNamespace || strings.HasPrefix(ns, names.ExecutionSpacePrefix) {
		return true
	}
	if ns != "" {
		for _, re := range f.skipped {
			if re.MatchString(ns) {
				return true
			}
		}
	}
	return ns == "kube-system" && gvk.Group == "" && gvk.Kind == "ConfigMap" && name == "extension-apiserver-authentication"
}
