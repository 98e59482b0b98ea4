package commandline

import (
	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"k8s.io/component-base/featuregate"
)

// Compatibility is the part of a binary's options that exists for
// Karmada's command line: --feature-gates (Karmada's gate names, which
// its installers pass to every component) and the Karmada flags accepted
// without effect. A binary's Options embed it.
type Compatibility struct {
	// FeatureGates is --feature-gates; nil means every gate at its default.
	FeatureGates featuregate.MutableFeatureGate

	inactive *Inactive
}

// NewCompatibility returns every gate at its default.
func NewCompatibility() Compatibility {
	return Compatibility{FeatureGates: NewFeatureGates()}
}

// AddFlags registers --feature-gates and the inactive flags of the Karmada
// binary named binary on fs.
func (c *Compatibility) AddFlags(fs *pflag.FlagSet, binary string, inactive []Flag) {
	if c.FeatureGates == nil {
		c.FeatureGates = NewFeatureGates()
	}
	AddFeatureGatesFlag(fs, c.FeatureGates)
	c.inactive = AddInactiveFlags(fs, binary, inactive)
}

// WarnInactive logs, once, every inactive flag and feature gate given on
// the command line.
func (c *Compatibility) WarnInactive(logger logr.Logger) {
	if c.inactive != nil {
		c.inactive.Warn(logger)
	}
	WarnInactiveGates(logger, c.FeatureGates)
}
