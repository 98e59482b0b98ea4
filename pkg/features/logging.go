package features

import (
	"fmt"

	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
)

// The logging gates of k8s.io/component-base, which Karmada's binaries
// register through its logs API: ContextualLogging, LoggingAlphaOptions
// (unlocks --log-{text,json}-split-stream and -info-buffer-size) and
// LoggingBetaOptions. They are read from component-base so that their
// maturity and defaults follow the vendored version.
const (
	ContextualLogging   = Gate(logsapi.ContextualLogging)
	LoggingAlphaOptions = Gate(logsapi.LoggingAlphaOptions)
	LoggingBetaOptions  = Gate(logsapi.LoggingBetaOptions)
)

// loggingGates is component-base's table of the logging gates.
func loggingGates() map[featuregate.Feature]featuregate.FeatureSpec {
	fg := featuregate.NewFeatureGate()
	if err := logsapi.AddFeatureGates(fg); err != nil {
		panic(fmt.Sprintf("register component-base logging gates: %v", err))
	}
	out := fg.GetAll()
	delete(out, featuregate.Feature(AllAlpha))
	delete(out, featuregate.Feature(AllBeta))
	return out
}

func init() {
	for name, s := range loggingGates() {
		known[Gate(name)] = spec{enabled: s.Default, stage: string(s.PreRelease), implemented: true}
	}
}

// Logging returns the logging gates' state as a component-base feature
// gate, which k8s.io/component-base/logs/api/v1 takes to validate and
// apply the logging flags.
func (g *Gates) Logging() (featuregate.FeatureGate, error) {
	fg := featuregate.NewFeatureGate()
	if err := logsapi.AddFeatureGates(fg); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for name := range loggingGates() {
		set[string(name)] = g.Enabled(Gate(name))
	}
	if err := fg.SetFromMap(set); err != nil {
		return nil, fmt.Errorf("logging feature gates: %w", err)
	}
	return fg, nil
}
