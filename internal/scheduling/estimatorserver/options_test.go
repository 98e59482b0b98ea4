package estimatorserver

import (
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/spf13/pflag"

	"github.com/propel-mc/propel/internal/app/commandline"
)

// stockArgs are the arguments of Karmada's own karmada-scheduler-estimator
// Deployment (artifacts/deploy, karmada-installers.md).
var stockArgs = []string{
	"--kubeconfig=/etc/member1-kubeconfig",
	"--cluster-name=member1",
	"--grpc-auth-cert-file=/etc/karmada/pki/server/tls.crt",
	"--grpc-auth-key-file=/etc/karmada/pki/server/tls.key",
	"--grpc-client-ca-file=/etc/karmada/pki/server/ca.crt",
	"--metrics-bind-address=10.0.0.1:8080",
	"--health-probe-bind-address=10.0.0.1:10351",
	"--feature-gates=AllAlpha=true,AllBeta=true",
	"--logging-format=json",
	"--v=4",
}

func TestStockArguments(t *testing.T) {
	o := NewOptions()
	fs := pflag.NewFlagSet("propel-scheduler-estimator", pflag.ContinueOnError)
	fs.SetOutput(&strings.Builder{})
	o.AddFlags(fs)
	commandline.AddLoggingFlags(fs)
	// The stock gates set no inactive gate; one is added to see it warned.
	if err := fs.Parse(append(stockArgs, "--feature-gates=ControllerPriorityQueue=false")); err != nil {
		t.Fatalf("Karmada's stock estimator arguments: %v", err)
	}
	if o.ClusterName != "member1" || o.HealthProbeBindAddress != "10.0.0.1:10351" {
		t.Errorf("cluster %q, health %q", o.ClusterName, o.HealthProbeBindAddress)
	}
	var lines []string
	o.WarnInactive(funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{}))
	all := strings.Join(lines, "\n")
	if !strings.Contains(all, `"featureGate"="ControllerPriorityQueue"`) {
		t.Errorf("no warning for the inactive gate ControllerPriorityQueue:\n%s", all)
	}
	// The estimator deducts the assumed workloads a scheduler sends, which
	// it sends with the gate on.
	if strings.Contains(all, `"featureGate"="SchedulingOvercommitProtection"`) {
		t.Errorf("a warning for SchedulingOvercommitProtection, which Propel implements:\n%s", all)
	}
	if err := fs.Parse([]string{"--feature-gates=Bogus=true"}); err == nil || !strings.Contains(err.Error(), "Bogus") {
		t.Errorf("unknown gate: %v, want an error naming it", err)
	}
}
