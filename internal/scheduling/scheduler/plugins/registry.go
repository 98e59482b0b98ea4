package plugins

import (
	"fmt"
	"slices"
	"strings"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
)

// Set is the enabled plugins, in the order they run.
type Set struct {
	Filters []framework.FilterPlugin
	Scores  []framework.ScorePlugin
}

// allFilters lists the filters in the order they run; the first failing one
// gives a cluster's reason in the FitError. The workload affinity filters
// exist only under their gate, as in Karmada, and run last: they are the
// only ones that look beyond the binding and the cluster.
func allFilters(workloadAffinity bool) []framework.FilterPlugin {
	filters := []framework.FilterPlugin{APIEnablement{}, TaintToleration{}, ClusterAffinity{}, SpreadConstraint{}, ClusterEviction{}}
	if workloadAffinity {
		filters = append(filters, WorkloadAffinity{}, WorkloadAntiAffinity{})
	}
	return filters
}

func allScores() []framework.ScorePlugin {
	return []framework.ScorePlugin{ClusterLocality{}, ClusterAffinity{}}
}

// Names lists every in-tree plugin name, the gated ones included.
func Names() []string {
	return []string{APIEnablementName, TaintTolerationName, ClusterAffinityName, SpreadConstraintName, ClusterEvictionName, ClusterLocalityName,
		WorkloadAffinityName, WorkloadAntiAffinityName}
}

// Default enables every in-tree plugin (--plugins=*) with the feature
// gates at their defaults.
func Default() *Set {
	return &Set{Filters: allFilters(false), Scores: allScores()}
}

// Parse interprets --plugins: "*" enables all, "-Name" disables one, a bare
// name enables one. An empty list means "*". Unknown names are errors; the
// names of gated plugins are known whatever the gate, but those plugins
// exist only with workloadAffinity (the WorkloadAffinity gate) on.
func Parse(spec []string, workloadAffinity bool) (*Set, error) {
	if len(spec) == 0 {
		return &Set{Filters: allFilters(workloadAffinity), Scores: allScores()}, nil
	}
	enabled := map[string]bool{}
	for _, item := range spec {
		item = strings.TrimSpace(item)
		name, disable := strings.CutPrefix(item, "-")
		switch {
		case item == "*":
			for _, n := range Names() {
				enabled[n] = true
			}
		case slices.Contains(Names(), name):
			enabled[name] = !disable
		default:
			return nil, fmt.Errorf("unknown scheduler plugin %q in --plugins (known: %s)", item, strings.Join(Names(), ", "))
		}
	}
	set := &Set{}
	for _, f := range allFilters(workloadAffinity) {
		if enabled[f.Name()] {
			set.Filters = append(set.Filters, f)
		}
	}
	for _, s := range allScores() {
		if enabled[s.Name()] {
			set.Scores = append(set.Scores, s)
		}
	}
	return set, nil
}
