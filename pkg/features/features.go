// Package features holds the feature gates of Propel's binaries and parses
// their --feature-gates flag. Gate names, maturity, defaults and the flag
// syntax ("Name=true,Other=false", plus AllAlpha and AllBeta) are
// Karmada's, so Karmada's deployment arguments are accepted unchanged.
// Every Karmada gate is known; the ones Propel does not implement are
// accepted and reported by Inactive so the binaries can say they have no
// effect. A name that is not a Karmada gate is an error, so a typo is
// never silently ignored.
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

// Karmada's feature gates.
const (
	// PropagateDeps runs the dependencies distributor (propagateDeps).
	PropagateDeps Gate = "PropagateDeps"
	// PropagationPolicyPreemption lets a (Cluster)PropagationPolicy with
	// `preemption: Always` take over templates claimed by a weaker policy.
	PropagationPolicyPreemption Gate = "PropagationPolicyPreemption"
	// CustomizedClusterResourceModeling lets the general estimator use the
	// clusters' resource models (allocatableModelings).
	CustomizedClusterResourceModeling Gate = "CustomizedClusterResourceModeling"
	// PriorityBasedScheduling makes the scheduler serve bindings with a
	// higher spec.schedulePriority first.
	PriorityBasedScheduling Gate = "PriorityBasedScheduling"

	// ResourceQuotaEstimate names the workload's namespace and its pods'
	// priorityClassName in the bindings' replica requirements.
	ResourceQuotaEstimate Gate = "ResourceQuotaEstimate"
	// MultiplePodTemplatesScheduling fills the bindings' components from
	// InterpretComponent; the estimators count complete component sets.
	MultiplePodTemplatesScheduling Gate = "MultiplePodTemplatesScheduling"

	Failover                       Gate = "Failover"
	GracefulEviction               Gate = "GracefulEviction"
	MultiClusterService            Gate = "MultiClusterService"
	StatefulFailoverInjection      Gate = "StatefulFailoverInjection"
	FederatedQuotaEnforcement      Gate = "FederatedQuotaEnforcement"
	ControllerPriorityQueue        Gate = "ControllerPriorityQueue"
	WorkloadAffinity               Gate = "WorkloadAffinity"
	SchedulingOvercommitProtection Gate = "SchedulingOvercommitProtection"

	// AllAlpha and AllBeta set every alpha (beta) gate not set by name, as
	// in Kubernetes' component-base.
	AllAlpha Gate = "AllAlpha"
	AllBeta  Gate = "AllBeta"
)

// Maturity stages.
const (
	alpha = "ALPHA"
	beta  = "BETA"
)

// spec is a gate's default and maturity as Karmada declares them, and
// whether Propel implements it.
type spec struct {
	enabled     bool
	stage       string
	implemented bool
}

// known is the data table of every gate: Karmada's list (v1.16 line); the
// logging gates of component-base are added from its table (logging.go).
var known = map[Gate]spec{
	PropagateDeps:                     {enabled: true, stage: beta, implemented: true},
	PropagationPolicyPreemption:       {enabled: false, stage: alpha, implemented: true},
	CustomizedClusterResourceModeling: {enabled: true, stage: beta, implemented: true},
	PriorityBasedScheduling:           {enabled: true, stage: beta, implemented: true},
	Failover:                          {enabled: false, stage: beta, implemented: true},
	GracefulEviction:                  {enabled: true, stage: beta, implemented: true},
	MultiClusterService:               {enabled: false, stage: alpha, implemented: true},
	ResourceQuotaEstimate:             {enabled: false, stage: alpha, implemented: true},
	StatefulFailoverInjection:         {enabled: false, stage: alpha, implemented: true},
	FederatedQuotaEnforcement:         {enabled: false, stage: alpha, implemented: true},
	MultiplePodTemplatesScheduling:    {enabled: false, stage: alpha, implemented: true},
	ControllerPriorityQueue:           {enabled: true, stage: beta},
	WorkloadAffinity:                  {enabled: false, stage: alpha},
	SchedulingOvercommitProtection:    {enabled: false, stage: alpha},
}

// Known lists the gate names, sorted (AllAlpha and AllBeta excluded).
func Known() []Gate {
	return slices.Sorted(maps.Keys(known))
}

// Implemented reports whether Propel acts on gate g.
func Implemented(g Gate) bool { return known[g].implemented }

// Default reports a gate's default; unknown gates are off.
func Default(g Gate) bool { return known[g].enabled }

// Gates is the state of every known gate: the defaults plus what was set.
// The zero value (and nil) has every gate at its default. It implements
// pflag.Value, so repeated flags accumulate as in Kubernetes.
type Gates struct {
	set map[Gate]bool
}

// Enabled reports whether gate name is on: a value set by name wins, then
// AllAlpha / AllBeta for gates of that stage, then the default.
func (g *Gates) Enabled(name Gate) bool {
	if g != nil {
		if v, ok := g.set[name]; ok {
			return v
		}
		s := known[name]
		if v, ok := g.set[AllAlpha]; ok && s.stage == alpha {
			return v
		}
		if v, ok := g.set[AllBeta]; ok && s.stage == beta {
			return v
		}
	}
	return Default(name)
}

// Inactive lists the gates that are set (by name, or through AllAlpha /
// AllBeta) to a value other than their default although Propel does not
// implement them: setting them has no effect.
func (g *Gates) Inactive() []Gate {
	var out []Gate
	for _, name := range Known() {
		if !known[name].implemented && g.Enabled(name) != Default(name) {
			out = append(out, name)
		}
	}
	return out
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
		if _, ok := known[gate]; !ok && gate != AllAlpha && gate != AllBeta {
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
// maturity and default, as Kubernetes components print them; gates Propel
// accepts without acting on them are marked.
func Usage() string {
	lines := []string{
		"A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:",
		"AllAlpha=true|false (ALPHA - default=false)",
		"AllBeta=true|false (BETA - default=false)",
	}
	for _, g := range Known() {
		note := ""
		if !known[g].implemented {
			note = " [accepted, no effect in Propel]"
		}
		lines = append(lines, fmt.Sprintf("%s=true|false (%s - default=%t)%s", g, known[g].stage, known[g].enabled, note))
	}
	return strings.Join(lines, "\n")
}

func knownNames() string {
	names := []string{string(AllAlpha), string(AllBeta)}
	for _, g := range Known() {
		names = append(names, string(g))
	}
	return strings.Join(names, ", ")
}
