package commandline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
)

// Karmada's feature gates: names, maturity and defaults are Karmada's, so
// its --feature-gates arguments are accepted unchanged.
const (
	// Failover runs the cluster taint policy controller and the taint
	// manager.
	Failover featuregate.Feature = "Failover"
	// GracefulEviction keeps workloads on the old cluster until they are
	// ready on the new one.
	GracefulEviction featuregate.Feature = "GracefulEviction"
	// PropagateDeps runs the dependencies distributor (propagateDeps).
	PropagateDeps featuregate.Feature = "PropagateDeps"
	// CustomizedClusterResourceModeling lets the general estimator use the
	// clusters' resource models (allocatableModelings).
	CustomizedClusterResourceModeling featuregate.Feature = "CustomizedClusterResourceModeling"
	// PropagationPolicyPreemption lets a (Cluster)PropagationPolicy with
	// `preemption: Always` take over templates claimed by a weaker policy.
	PropagationPolicyPreemption featuregate.Feature = "PropagationPolicyPreemption"
	// MultiClusterService runs the MultiClusterService controllers.
	MultiClusterService featuregate.Feature = "MultiClusterService"
	// ResourceQuotaEstimate names the workload's namespace and its pods'
	// priorityClassName in the bindings' replica requirements, and makes
	// propel-scheduler-estimator cap its answers by that namespace's
	// ResourceQuotas.
	ResourceQuotaEstimate featuregate.Feature = "ResourceQuotaEstimate"
	// StatefulFailoverInjection carries the state of a stateful workload
	// to the cluster it fails over to.
	StatefulFailoverInjection featuregate.Feature = "StatefulFailoverInjection"
	// PriorityBasedScheduling makes the scheduler serve bindings with a
	// higher spec.schedulePriority first.
	PriorityBasedScheduling featuregate.Feature = "PriorityBasedScheduling"
	// FederatedQuotaEnforcement enforces FederatedResourceQuotas.
	FederatedQuotaEnforcement featuregate.Feature = "FederatedQuotaEnforcement"
	// MultiplePodTemplatesScheduling fills the bindings' components from
	// InterpretComponent; the estimators count complete component sets.
	MultiplePodTemplatesScheduling featuregate.Feature = "MultiplePodTemplatesScheduling"
	// WorkloadAffinity names the templates' workload affinity groups in
	// their ResourceBindings, and the scheduler co-locates or separates
	// the members of a group.
	WorkloadAffinity featuregate.Feature = "WorkloadAffinity"
	// SchedulingOvercommitProtection makes the scheduler remember the
	// workloads it placed until they are Healthy, deduct them from its
	// estimates and send them to the accurate estimators.
	SchedulingOvercommitProtection featuregate.Feature = "SchedulingOvercommitProtection"
	// ControllerPriorityQueue is accepted without effect (see
	// inactiveGates).
	ControllerPriorityQueue featuregate.Feature = "ControllerPriorityQueue"
)

// karmadaGates is Karmada's table of its own gates (v1.16 line). The
// logging gates (ContextualLogging, LoggingAlphaOptions,
// LoggingBetaOptions) come from component-base's logs API, as their
// maturity follows the vendored version.
var karmadaGates = map[featuregate.Feature]featuregate.FeatureSpec{
	Failover:                          {Default: false, PreRelease: featuregate.Beta},
	GracefulEviction:                  {Default: true, PreRelease: featuregate.Beta},
	PropagateDeps:                     {Default: true, PreRelease: featuregate.Beta},
	CustomizedClusterResourceModeling: {Default: true, PreRelease: featuregate.Beta},
	PropagationPolicyPreemption:       {Default: false, PreRelease: featuregate.Alpha},
	MultiClusterService:               {Default: false, PreRelease: featuregate.Alpha},
	ResourceQuotaEstimate:             {Default: false, PreRelease: featuregate.Alpha},
	StatefulFailoverInjection:         {Default: false, PreRelease: featuregate.Alpha},
	PriorityBasedScheduling:           {Default: true, PreRelease: featuregate.Beta},
	FederatedQuotaEnforcement:         {Default: false, PreRelease: featuregate.Alpha},
	MultiplePodTemplatesScheduling:    {Default: false, PreRelease: featuregate.Alpha},
	ControllerPriorityQueue:           {Default: true, PreRelease: featuregate.Beta},
	WorkloadAffinity:                  {Default: false, PreRelease: featuregate.Alpha},
	SchedulingOvercommitProtection:    {Default: false, PreRelease: featuregate.Alpha},
}

// inactiveGates are the Karmada gates Propel accepts without acting on
// them.
var inactiveGates = []featuregate.Feature{ControllerPriorityQueue}

// NewFeatureGates returns a feature gate (k8s.io/component-base) that
// knows Karmada's gates and the logging gates, every one at its default.
// A name that is not a gate is an error when set, so a typo is never
// silently ignored.
func NewFeatureGates() featuregate.MutableFeatureGate {
	fg := featuregate.NewFeatureGate()
	if err := fg.Add(karmadaGates); err != nil {
		panic(fmt.Sprintf("register Karmada's feature gates: %v", err))
	}
	if err := logsapi.AddFeatureGates(fg); err != nil {
		panic(fmt.Sprintf("register component-base's logging gates: %v", err))
	}
	return fg
}

// AddFeatureGatesFlag registers --feature-gates on fs for fg, with
// component-base's help text (one line per gate, its maturity and
// default) and the gates Propel accepts without effect marked.
func AddFeatureGatesFlag(fs *pflag.FlagSet, fg featuregate.MutableFeatureGate) {
	known := fg.KnownFeatures()
	for i, line := range known {
		name, _, _ := strings.Cut(line, "=")
		if slices.Contains(inactiveGates, featuregate.Feature(name)) {
			known[i] = line + " [accepted, no effect in Propel]"
		}
	}
	fg.AddFlag(fs)
	fs.Lookup("feature-gates").Usage = "A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n" + strings.Join(known, "\n")
}

// InactiveGates lists, sorted, the gates Propel does not implement that fg
// sets (by name, or through AllAlpha / AllBeta) to a value other than
// their default: setting them has no effect.
func InactiveGates(fg featuregate.FeatureGate) []featuregate.Feature {
	var out []featuregate.Feature
	for _, g := range inactiveGates {
		if fg.Enabled(g) != karmadaGates[g].Default {
			out = append(out, g)
		}
	}
	return out
}

// WarnInactiveGates logs one warning per gate of InactiveGates.
func WarnInactiveGates(logger logr.Logger, fg featuregate.FeatureGate) {
	for _, g := range InactiveGates(fg) {
		logger.Info("warning: feature gate accepted for compatibility has no effect in Propel", "featureGate", g, "value", fg.Enabled(g))
	}
}
