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
// gives a cluster's reason in the FitError.
func allFilters() []framework.FilterPlugin {
	return []framework.FilterPlugin{APIEnablement{}, TaintToleration{}, ClusterAffinity{}, SpreadConstraint{}, ClusterEviction{}}
}

func allScores() []framework.ScorePlugin {
	return []framework.ScorePlugin{ClusterLocality{}, ClusterAffinity{}}
}

// Names lists every in-tree plugin name.
func Names() []string {
	return []string{APIEnablementName, TaintTolerationName, ClusterAffinityName, SpreadConstraintName, ClusterEvictionName, ClusterLocalityName}
}

// Default enables every in-tree plugin (--plugins=*).
func Default() *Set {
	return &Set{Filters: allFilters(), Scores: allScores()}
}

// Parse interprets --plugins: "*" enables all, "-Name" disables one, a bare
// name enables one. An empty list means "*". Unknown names are errors.
func Parse(spec []string) (*Set, error) {
	if len(spec) == 0 {
		return Default(), nil
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
	for _, f := range allFilters() {
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
