package webhook

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

const wildcard = "*"

// ruleKey is one (operation, group, version, kind) a rule covers; each part
// is an exact value or "*".
type ruleKey struct {
	op, group, version, kind string
}

// Bits of a wildcard pattern: which parts of a ruleKey are "*".
const (
	wildOp uint8 = 1 << iota
	wildGroup
	wildVersion
	wildKind
)

// index maps every ruleKey of every rule to the position, in uid order, of
// the first hook declaring it. patterns lists the wildcard shapes present,
// so a lookup probes only those (one probe when no rule uses "*").
type index struct {
	first    map[ruleKey]int
	patterns []uint8
}

func buildIndex(hooks []*hook) index {
	idx := index{first: map[ruleKey]int{}}
	seen := map[uint8]bool{}
	for pos, h := range hooks {
		for _, r := range h.spec.Rules {
			idx.addRule(pos, r, seen)
		}
	}
	return idx
}

// addRule expands the rule's lists; an empty list expands to nothing, so
// it never matches.
func (idx *index) addRule(pos int, r configv1alpha1.RuleWithOperations, seen map[uint8]bool) {
	for _, op := range r.Operations {
		for _, g := range r.APIGroups {
			for _, v := range r.APIVersions {
				for _, k := range r.Kinds {
					key := ruleKey{op: string(op), group: g, version: v, kind: k}
					if _, dup := idx.first[key]; !dup {
						idx.first[key] = pos
					}
					if p := pattern(key); !seen[p] {
						seen[p] = true
						idx.patterns = append(idx.patterns, p)
					}
				}
			}
		}
	}
}

func pattern(k ruleKey) uint8 {
	var p uint8
	if k.op == wildcard {
		p |= wildOp
	}
	if k.group == wildcard {
		p |= wildGroup
	}
	if k.version == wildcard {
		p |= wildVersion
	}
	if k.kind == wildcard {
		p |= wildKind
	}
	return p
}

// lookup returns the position of the first hook (by uid) matching, or -1.
func (idx *index) lookup(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) int {
	best := -1
	for _, p := range idx.patterns {
		key := ruleKey{op: string(op), group: gvk.Group, version: gvk.Version, kind: gvk.Kind}
		if p&wildOp != 0 {
			key.op = wildcard
		}
		if p&wildGroup != 0 {
			key.group = wildcard
		}
		if p&wildVersion != 0 {
			key.version = wildcard
		}
		if p&wildKind != 0 {
			key.kind = wildcard
		}
		if pos, ok := idx.first[key]; ok && (best < 0 || pos < best) {
			best = pos
		}
	}
	return best
}
