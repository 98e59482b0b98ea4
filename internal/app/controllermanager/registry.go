package controllermanager

import (
	"context"
	"fmt"
	"strings"
)

// setupFunc adds one controller to the manager.
type setupFunc func(ctx context.Context, c *Context) error

// Controller is one controller the manager can run.
type Controller struct {
	// Name is the controller's name in --controllers (Karmada's names).
	Name  string
	Setup setupFunc
	// AlwaysOn controllers run whatever --controllers says and are set up
	// before the others (as in Karmada, they are not named in the flag).
	AlwaysOn bool
	// OffByDefault controllers run only when named explicitly.
	OffByDefault bool
}

// ControllerRegistry is the ordered list of every controller Propel has.
// Build sets them up in this order.
type ControllerRegistry struct {
	controllers []Controller
}

// NewControllerRegistry lists every controller with its name and setup.
// The order is the setup order: the detector first (the others read
// templates through its informers), then the dependencies distributor,
// then the controllers named in --controllers.
func NewControllerRegistry() ControllerRegistry {
	return ControllerRegistry{controllers: []Controller{
		{Name: "resourceDetector", Setup: setupDetector, AlwaysOn: true},
		{Name: "dependenciesDistributor", Setup: setupDependenciesDistributor, AlwaysOn: true},
		{Name: "binding", Setup: setupBinding},
		{Name: "bindingStatus", Setup: setupBindingStatus},
		{Name: "cluster", Setup: setupCluster},
		{Name: "clusterStatus", Setup: setupClusterStatus},
		{Name: "clustertaintpolicy", Setup: setupClusterTaintPolicy},
		{Name: "execution", Setup: setupExecution},
		{Name: "gracefulEviction", Setup: setupGracefulEviction},
		{Name: "namespace", Setup: setupNamespaceSync},
		// The scheduler is Propel's addition: karmada-controller-manager has
		// none (karmada-scheduler is its own Deployment), so '*' leaves it
		// off and Karmada's stock arguments never start a second scheduler.
		{Name: "scheduler", Setup: setupScheduler, OffByDefault: true},
		{Name: "workStatus", Setup: setupWorkStatus},
		{Name: "workloadRebalancer", Setup: setupWorkloadRebalancer},
		{Name: "applicationFailover", Setup: setupApplicationFailover},
		{Name: "remedy", Setup: setupRemedy},
		{Name: "unifiedAuth", Setup: setupUnifiedAuth},
		{Name: "agentcsrapproving", Setup: setupAgentCSRApproving},
		{Name: "federatedResourceQuotaSync", Setup: setupFederatedResourceQuotaSync},
		{Name: "federatedResourceQuotaStatus", Setup: setupFederatedResourceQuotaStatus},
		{Name: "federatedResourceQuotaEnforcement", Setup: setupFederatedResourceQuotaEnforcement},
		{Name: "serviceExport", Setup: setupServiceExport},
		{Name: "endpointSlice", Setup: setupEndpointSlice},
		{Name: "serviceImport", Setup: setupServiceImport},
		{Name: "multiclusterservice", Setup: setupMultiClusterService},
		{Name: "endpointsliceCollect", Setup: setupEndpointSliceCollect},
		{Name: "endpointsliceDispatch", Setup: setupEndpointSliceDispatch},
		{Name: "federatedHorizontalPodAutoscaler", Setup: setupFederatedHPA},
		{Name: "cronFederatedHorizontalPodAutoscaler", Setup: setupCronFederatedHPA},
		{Name: "hpaScaleTargetMarker", Setup: setupHPAScaleTargetMarker, OffByDefault: true},
		{Name: "deploymentReplicasSyncer", Setup: setupDeploymentReplicasSyncer, OffByDefault: true},
	}}
}

// Controllers returns the registered controllers in setup order.
func (r ControllerRegistry) Controllers() []Controller {
	return append([]Controller(nil), r.controllers...)
}

func (r ControllerRegistry) lookup(name string) (Controller, bool) {
	for _, c := range r.controllers {
		if c.Name == name {
			return c, true
		}
	}
	return Controller{}, false
}

// Names lists the controllers' names, comma-separated, in setup order.
func (r ControllerRegistry) Names() string {
	names := make([]string, 0, len(r.controllers))
	for _, c := range r.controllers {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// DisabledByDefault lists the controllers '*' leaves off, comma-separated,
// in setup order.
func (r ControllerRegistry) DisabledByDefault() string {
	var names []string
	for _, c := range r.controllers {
		if c.OffByDefault {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, ", ")
}

// Usage is the --controllers help: the rule, every controller and the
// ones '*' leaves off, as karmada-controller-manager's help lists them.
func (r ControllerRegistry) Usage() string {
	return "A list of controllers to enable: '*' enables every on-by-default controller (Karmada's default set), 'foo' enables the controller foo, '-foo' disables it; the first entry naming a controller wins. " +
		"Karmada's controller names Propel has no controller for are accepted and reported as having no effect.\n" +
		"All controllers: " + r.Names() + "\n" +
		"Disabled-by-default controllers: " + r.DisabledByDefault()
}

// Enabled applies Karmada's (and Kubernetes') --controllers rule to the
// controller name: the first entry naming it ("foo" or "-foo") wins
// wherever it stands; otherwise '*' enables the on-by-default ones. So
// "*,-binding" and "-binding,*" both disable the binding controller. Always-on
// controllers are enabled whatever list says.
func (r ControllerRegistry) Enabled(name string, list []string) bool {
	c, known := r.lookup(name)
	if c.AlwaysOn {
		return true
	}
	star := false
	for _, entry := range list {
		switch entry {
		case name:
			return known
		case "-" + name:
			return false
		case "*":
			star = true
		}
	}
	return known && star && !c.OffByDefault
}

// IsRegistered reports whether Propel has a controller named name.
func (r ControllerRegistry) IsRegistered(name string) bool {
	_, ok := r.lookup(name)
	return ok
}

// Validate rejects names that are neither Propel's nor Karmada's, so a
// typo does not silently disable a controller.
func (r ControllerRegistry) Validate(list []string) error {
	for _, entry := range list {
		if entry == "*" {
			continue
		}
		name := strings.TrimPrefix(entry, "-")
		if !r.IsRegistered(name) && !isKarmadaController(name) {
			return fmt.Errorf("--controllers: unknown controller %q (Propel's: %s; Karmada's names are accepted too)", name, r.Names())
		}
	}
	return nil
}
