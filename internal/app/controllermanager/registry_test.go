package controllermanager

import (
	"strings"
	"testing"
)

func TestEnabled(t *testing.T) {
	r := ControllerRegistry{controllers: []Controller{{Name: "always", AlwaysOn: true}, {Name: "a"}, {Name: "b"}, {Name: "c", OffByDefault: true}}}
	cases := []struct {
		list []string
		want map[string]bool
	}{
		{[]string{"*"}, map[string]bool{"a": true, "b": true, "c": false}},
		{[]string{"-a", "*"}, map[string]bool{"a": false, "b": true, "c": false}},
		{[]string{"*", "-a"}, map[string]bool{"a": false, "b": true, "c": false}}, // explicit entries beat '*'
		{[]string{"a", "-a"}, map[string]bool{"a": true, "b": false, "c": false}}, // first explicit entry wins
		{[]string{"c", "*"}, map[string]bool{"a": true, "b": true, "c": true}},
		{[]string{"b"}, map[string]bool{"a": false, "b": true, "c": false}},
		{[]string{"-always"}, map[string]bool{"always": true, "a": false}},
		{[]string{"*"}, map[string]bool{"unknown": false}},
	}
	for _, tc := range cases {
		for name, want := range tc.want {
			if got := r.Enabled(name, tc.list); got != want {
				t.Errorf("Enabled(%s, %v) = %v, want %v", name, tc.list, got, want)
			}
		}
	}
	if err := r.Validate([]string{"*", "-a", "typo"}); err == nil || !strings.Contains(err.Error(), `"typo"`) {
		t.Errorf("unknown controller: got %v, want an error naming it", err)
	}
	if err := r.Validate([]string{"*", "-a", "c", "always"}); err != nil {
		t.Errorf("known controllers rejected: %v", err)
	}
}

// TestRegistryListsEveryController pins Karmada's controller names and the
// setup order: the detector first, since the others read templates
// through its informers.
func TestRegistryListsEveryController(t *testing.T) {
	r := NewControllerRegistry()
	want := "resourceDetector, dependenciesDistributor, binding, bindingStatus, cluster, clusterStatus, clustertaintpolicy, execution, gracefulEviction, namespace, scheduler, workStatus, workloadRebalancer, applicationFailover, remedy, unifiedAuth, agentcsrapproving, federatedResourceQuotaSync, federatedResourceQuotaStatus, federatedResourceQuotaEnforcement, serviceExport, endpointSlice, serviceImport, multiclusterservice, endpointsliceCollect, endpointsliceDispatch, federatedHorizontalPodAutoscaler, cronFederatedHorizontalPodAutoscaler, hpaScaleTargetMarker, deploymentReplicasSyncer"
	if got := r.Names(); got != want {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	for _, c := range r.Controllers() {
		if c.Setup == nil {
			t.Errorf("controller %s has no setup", c.Name)
		}
		if c.AlwaysOn != (c.Name == "resourceDetector" || c.Name == "dependenciesDistributor") {
			t.Errorf("controller %s: AlwaysOn = %v", c.Name, c.AlwaysOn)
		}
	}
}

// TestEveryKarmadaControllerRuns: each of karmada-controller-manager's
// controller names has a Propel controller, so none is reported as having
// no effect.
func TestEveryKarmadaControllerRuns(t *testing.T) {
	if got := inactiveControllers(karmadaControllers, NewControllerRegistry().IsRegistered); len(got) != 0 {
		t.Errorf("Karmada's controllers without a Propel controller: %v", got)
	}
}

// TestStarIsKarmadasDefaultSet: '*' enables exactly the controllers
// karmada-controller-manager runs by default, so Karmada's stock
// --controllers never starts the in-process scheduler (karmada-scheduler,
// or propel-scheduler, runs beside it); naming it enables it.
func TestStarIsKarmadasDefaultSet(t *testing.T) {
	r := NewControllerRegistry()
	stock := []string{"*", "hpaScaleTargetMarker", "deploymentReplicasSyncer"}
	if r.Enabled("scheduler", []string{"*"}) || r.Enabled("scheduler", stock) {
		t.Error("'*' enables the in-process scheduler, which karmada-controller-manager does not have")
	}
	if !r.Enabled("scheduler", []string{"*", "scheduler"}) || !r.Enabled("binding", []string{"*", "scheduler"}) {
		t.Error("--controllers=*,scheduler must add the scheduler to the default set")
	}
	for _, c := range r.Controllers() {
		if c.AlwaysOn || c.Name == "scheduler" {
			continue
		}
		if !isKarmadaController(c.Name) {
			t.Errorf("controller %s is not Karmada's but '*' enables it", c.Name)
		}
		if !r.Enabled(c.Name, stock) {
			t.Errorf("Karmada's stock --controllers does not enable %s", c.Name)
		}
	}
	if got, want := r.DisabledByDefault(), "scheduler, hpaScaleTargetMarker, deploymentReplicasSyncer"; got != want {
		t.Errorf("DisabledByDefault() = %q, want %q", got, want)
	}
	_, fs := commandLine()
	usage := fs.Lookup("controllers").Usage
	for _, want := range []string{r.Names(), "Disabled-by-default controllers: " + r.DisabledByDefault()} {
		if !strings.Contains(usage, want) {
			t.Errorf("--controllers help lacks %q:\n%s", want, usage)
		}
	}
}
