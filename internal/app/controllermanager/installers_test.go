package controllermanager

import (
	"strings"
	"testing"
	"time"

	"github.com/propel-mc/propel/internal/shared/names"
)

// installerCommands are the karmada-controller-manager commands Karmada's
// installers render (docs/installing.md), with $(POD_IP) expanded as the
// kubelet does. The image swap keeps them unchanged.
var installerCommands = map[string]string{
	"helm": "--kubeconfig=/etc/kubeconfig --cluster-status-update-frequency=10s --leader-elect-resource-namespace=karmada-system " +
		"--metrics-bind-address=10.0.0.1:8080 --health-probe-bind-address=10.0.0.1:10357 --v=2 --feature-gates=PropagateDeps=false",
	"karmadactl init": "--kubeconfig=/etc/karmada/config/karmada.config --metrics-bind-address=10.0.0.1:8080 " +
		"--health-probe-bind-address=10.0.0.1:10357 --cluster-status-update-frequency=10s --leader-elect-resource-namespace=karmada-system --v=2",
	"operator": "--cluster-status-update-frequency=10s --health-probe-bind-address=10.0.0.1:10357 --kubeconfig=/etc/karmada/config/karmada.config " +
		"--leader-elect-resource-namespace=karmada-system --metrics-bind-address=10.0.0.1:8080 --v=2",
	"manifests": strings.Join(stockArgs, " "),
}

// TestInstallerCommandsTakeKarmadasLease: with the command of each of
// Karmada's installers, Propel elects a leader on karmada-controller-
// manager's Lease (same name, namespace and timings), so that during a
// rolling image swap the old Karmada pod and the new Propel pod never run
// controllers at the same time.
func TestInstallerCommandsTakeKarmadasLease(t *testing.T) {
	for installer, command := range installerCommands {
		o, fs := commandLine()
		if err := fs.Parse(strings.Fields(command)); err != nil {
			t.Errorf("%s: %v", installer, err)
			continue
		}
		if err := NewControllerRegistry().Validate(o.Controllers); err != nil {
			t.Errorf("%s: %v", installer, err)
		}
		if !o.LeaderElect || o.LeaderElectResourceName != names.ControllerManagerLease || o.LeaderElectResourceNamespace != names.SystemNamespace {
			t.Errorf("%s: leader election %v on Lease %s/%s, want on %s/%s", installer, o.LeaderElect,
				o.LeaderElectResourceNamespace, o.LeaderElectResourceName, names.SystemNamespace, names.ControllerManagerLease)
		}
		if o.LeaseDuration != 15*time.Second || o.RenewDeadline != 10*time.Second || o.RetryPeriod != 2*time.Second {
			t.Errorf("%s: lease %v, renew %v, retry %v, want Karmada's 15s, 10s, 2s", installer, o.LeaseDuration, o.RenewDeadline, o.RetryPeriod)
		}
	}
}
