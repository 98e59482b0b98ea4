// Package features holds the feature gates of propel-controller-manager and
// parses its --feature-gates flag. Gate names, defaults and the flag syntax
// ("Name=true,Other=false") are Karmada's. Only gates Propel implements are
// known: any other name is an error, so a gate is never silently ignored.
package features

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Gate is the name of a feature gate.
type Gate string

// The gates Propel implements.
const (
	// PropagateDeps runs the dependencies distributor (propagateDeps).
	PropagateDeps Gate = "PropagateDeps"
	// PropagationPolicyPreemption lets a (Cluster)PropagationPolicy with
	// `preemption: Always` take over templates claimed by a weaker policy.
	PropagationPolicyPreemption Gate = "PropagationPolicyPreemption"
)

// spec is a gate's default and maturity, as Karmada declares them.
type spec struct {
	enabled bool
	stage   string
}

var known = map[Gate]spec{
	PropagateDeps:               {enabled: true, stage: "BETA"},
	PropagationPolicyPreemption: {enabled: false, stage: "ALPHA"},
}

// Known lists the gate names, sorted.
func Known() []Gate {
	return slices.Sorted(maps.Keys(known))
}

// Default reports a gate's default; unknown gates are off.
func Default(g Gate) bool { return known[g].enabled }

// Gates is the state of every known gate: the defaults plus what was set.
// The zero value (and nil) has every gate at its default. It implements
// pflag.Value, so repeated flags accumulate as in Kubernetes.
type Gates struct {
	set map[Gate]bool
}

// Enabled reports whether gate g is on.
func (g *Gates) Enabled(name Gate) bool {
	if g != nil {
		if v, ok := g.set[name]; ok {
			return v
		}
	}
	return Default(name)
}

// Set parses "Name=bool[,Name=bool...]" and applies it over earlier values.
// Nothing is applied when any entry is invalid.
func (g *Gates) Set(value string) error {
	parsed, err := Parse(value)
	if err != nil {
		return err
	}
	if g.set == nil {
		g.set = map[Gate]bool{}
	}
	maps.Copy(g.set, parsed)
	return nil
}

// String renders the explicitly set gates, sorted ("" when none).
func (g *Gates) String() string {
	if g == nil {
		return ""
	}
	entries := make([]string, 0, len(g.set))
	for _, name := range slices.Sorted(maps.Keys(g.set)) {
		entries = append(entries, fmt.Sprintf("%s=%t", name, g.set[name]))
	}
	return strings.Join(entries, ",")
}

// Type names the flag's value type in --help (pflag.Value).
func (g *Gates) Type() string { return "mapStringBool" }

// Parse reads "Name=bool[,Name=bool...]"; blanks around entries are
// ignored. An unknown gate, a missing '=' or a non-boolean value is an
// error naming the entry.
func Parse(value string) (map[Gate]bool, error) {
	out := map[Gate]bool{}
	for _, entry := range strings.Split(value, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		name, raw, found := strings.Cut(entry, "=")
		gate := Gate(strings.TrimSpace(name))
		if _, ok := known[gate]; !ok {
			return nil, fmt.Errorf("unknown feature gate %q (known: %s)", gate, knownNames())
		}
		if !found {
			return nil, fmt.Errorf("feature gate %s: missing value, want %s=true or %s=false", gate, gate, gate)
		}
		v, err := strconv.ParseBool(strings.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("feature gate %s: invalid value %q: want true or false", gate, raw)
		}
		out[gate] = v
	}
	return out, nil
}

// Usage is the --feature-gates help text: one line per gate with its
// maturity and default, as Kubernetes components print them.
func Usage() string {
	lines := []string{"A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:"}
	for _, g := range Known() {
		lines = append(lines, fmt.Sprintf("%s=true|false (%s - default=%t)", g, known[g].stage, known[g].enabled))
	}
	return strings.Join(lines, "\n")
}

func knownNames() string {
	names := make([]string, 0, len(known))
	for _, g := range Known() {
		names = append(names, string(g))
	}
	return strings.Join(names, ", ")
}
