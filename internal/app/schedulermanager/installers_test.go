package schedulermanager

import (
	"strings"
	"testing"
	"time"

	"github.com/propel-mc/propel/internal/shared/names"
)

// installerCommands are the karmada-scheduler commands Karmada's
// installers render (docs/installing.md), with $(POD_IP) expanded as the
// kubelet does. The image swap keeps them unchanged.
var installerCommands = map[string]string{
	"helm": "--kubeconfig=/etc/kubeconfig --metrics-bind-address=10.0.0.1:8080 --health-probe-bind-address=10.0.0.1:10351 " +
		"--leader-elect-resource-namespace=karmada-system --scheduler-estimator-ca-file=/etc/karmada/pki/server-ca.crt " +
		"--scheduler-estimator-cert-file=/etc/karmada/pki/karmada.crt --scheduler-estimator-key-file=/etc/karmada/pki/karmada.key --v=2",
	"karmadactl init": "--kubeconfig=/etc/karmada/config/karmada.config --metrics-bind-address=10.0.0.1:8080 " +
		"--health-probe-bind-address=10.0.0.1:10351 --enable-scheduler-estimator=true --leader-elect=true " +
		"--scheduler-estimator-ca-file=/etc/karmada/pki/ca.crt --scheduler-estimator-cert-file=/etc/karmada/pki/karmada.crt " +
		"--scheduler-estimator-key-file=/etc/karmada/pki/karmada.key --leader-elect-resource-namespace=karmada-system --v=2",
	"operator": "--enable-scheduler-estimator=true --health-probe-bind-address=10.0.0.1:10351 --kubeconfig=/etc/karmada/config/karmada.config " +
		"--leader-elect-resource-namespace=karmada-system --metrics-bind-address=10.0.0.1:8080 --scheduler-estimator-ca-file=/etc/karmada/pki/ca.crt " +
		"--scheduler-estimator-cert-file=/etc/karmada/pki/karmada.crt --scheduler-estimator-key-file=/etc/karmada/pki/karmada.key --v=2",
	"manifests": strings.Join(stockArgs, " "),
}

// TestInstallerCommandsTakeKarmadasLease: with the command of each of
// Karmada's installers, propel-scheduler elects a leader on
// karmada-scheduler's Lease (same name, namespace and timings), so that
// during a rolling image swap the old and the new pod never schedule at
// the same time.
func TestInstallerCommandsTakeKarmadasLease(t *testing.T) {
	for installer, command := range installerCommands {
		o, fs := commandLine()
		if err := fs.Parse(strings.Fields(command)); err != nil {
			t.Errorf("%s: %v", installer, err)
			continue
		}
		if !o.LeaderElect || o.LeaderElectResourceName != names.SchedulerLease || o.LeaderElectResourceNamespace != names.SystemNamespace {
			t.Errorf("%s: leader election %v on Lease %s/%s, want on %s/%s", installer, o.LeaderElect,
				o.LeaderElectResourceNamespace, o.LeaderElectResourceName, names.SystemNamespace, names.SchedulerLease)
		}
		if o.LeaseDuration != 15*time.Second || o.RenewDeadline != 10*time.Second || o.RetryPeriod != 2*time.Second {
			t.Errorf("%s: lease %v, renew %v, retry %v, want Karmada's 15s, 10s, 2s", installer, o.LeaseDuration, o.RenewDeadline, o.RetryPeriod)
		}
	}
}
