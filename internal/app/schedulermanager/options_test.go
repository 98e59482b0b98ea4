package schedulermanager

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/spf13/pflag"

	"github.com/propel-mc/propel/internal/app/commandline"
)

func commandLine() (*Options, *pflag.FlagSet) {
	o := NewOptions()
	fs := pflag.NewFlagSet("propel-scheduler", pflag.ContinueOnError)
	fs.SetOutput(&strings.Builder{})
	o.AddFlags(fs)
	commandline.AddLoggingFlags(fs)
	return o, fs
}

var pflagType = map[string]string{
	"bool": "bool", "string": "string", "strings": "stringSlice", "int": "int",
	"float32": "float32", "float": "float64", "duration": "duration", "mapStringBool": "mapStringBool",
}

// TestAcceptsEveryKarmadaFlag fails when a flag of karmada-scheduler
// (testdata/karmada-scheduler.tsv, its --help at Karmada f8fdd02) is
// missing, has another type, or another default.
func TestAcceptsEveryKarmadaFlag(t *testing.T) {
	f, err := os.Open("testdata/karmada-scheduler.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, fs := commandLine()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 3 || cols[0] == "flag" {
			continue
		}
		n++
		name, typ, def := strings.TrimPrefix(cols[0], "--"), cols[1], strings.Trim(cols[2], `"`)
		fl := fs.Lookup(name)
		if fl == nil {
			t.Errorf("--%s (Karmada's) is not accepted", name)
			continue
		}
		if want, ok := pflagType[typ]; ok && fl.Value.Type() != want {
			t.Errorf("--%s: type %s, Karmada's is %s", name, fl.Value.Type(), typ)
		}
		if def != "" && strings.Trim(fl.DefValue, "[]") != def {
			t.Errorf("--%s: default %q, Karmada's is %q", name, fl.DefValue, def)
		}
	}
	if n < 40 {
		t.Fatalf("only %d flags read", n)
	}
}

// stockArgs are the arguments of Karmada's own karmada-scheduler
// Deployment (karmada-flags/README.md).
var stockArgs = []string{
	"--kubeconfig=/etc/karmada/config/karmada.config",
	"--metrics-bind-address=10.0.0.1:8080",
	"--health-probe-bind-address=10.0.0.1:10351",
	"--enable-scheduler-estimator=true",
	"--scheduler-estimator-ca-file=/etc/karmada/pki/scheduler-estimator-client/ca.crt",
	"--scheduler-estimator-cert-file=/etc/karmada/pki/scheduler-estimator-client/tls.crt",
	"--scheduler-estimator-key-file=/etc/karmada/pki/scheduler-estimator-client/tls.key",
	"--feature-gates=AllAlpha=true,AllBeta=true",
	"--logging-format=json",
	"--v=4",
}

func TestStockArguments(t *testing.T) {
	o, fs := commandLine()
	// The stock gates set no inactive gate; one is added to see it warned.
	if err := fs.Parse(append(stockArgs, "--feature-gates=ControllerPriorityQueue=false")); err != nil {
		t.Fatalf("Karmada's stock arguments: %v", err)
	}
	if o.LeaderElectResourceName != "karmada-scheduler" || o.HealthProbeBindAddress != "10.0.0.1:10351" {
		t.Errorf("lease %q, health %q", o.LeaderElectResourceName, o.HealthProbeBindAddress)
	}
	var lines []string
	o.WarnInactive(funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{}))
	all := strings.Join(lines, "\n")
	if !strings.Contains(all, `"featureGate"="ControllerPriorityQueue"`) {
		t.Errorf("no warning for the inactive gate ControllerPriorityQueue:\n%s", all)
	}
	for _, implemented := range []string{"WorkloadAffinity", "SchedulingOvercommitProtection"} {
		if strings.Contains(all, `"featureGate"="`+implemented+`"`) {
			t.Errorf("a warning for %s, which the scheduler implements:\n%s", implemented, all)
		}
	}
	if err := fs.Parse([]string{"--scheduler-estimator-prot=1"}); err == nil {
		t.Error("a typo was accepted")
	}
}
