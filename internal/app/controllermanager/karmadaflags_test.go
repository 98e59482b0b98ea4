package controllermanager

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/spf13/pflag"

	"github.com/propel-mc/propel/internal/app/commandline"
)

// karmadaFlag is one row of testdata/karmada-controller-manager.tsv, a
// copy of /work/shared/reference/karmada-flags (karmada-controller-manager
// --help at Karmada f8fdd02).
type karmadaFlag struct{ name, typ, def string }

func readKarmadaFlags(t *testing.T, path string) []karmadaFlag {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []karmadaFlag
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 3 || cols[0] == "flag" {
			continue
		}
		out = append(out, karmadaFlag{strings.TrimPrefix(cols[0], "--"), cols[1], strings.Trim(cols[2], `"`)})
	}
	if len(out) < 50 {
		t.Fatalf("%s: only %d flags read", path, len(out))
	}
	return out
}

// commandLine is propel-controller-manager's flag set, as main builds it.
func commandLine() (*Options, *pflag.FlagSet) {
	o := NewOptions()
	fs := pflag.NewFlagSet("propel-controller-manager", pflag.ContinueOnError)
	fs.SetOutput(&strings.Builder{})
	o.AddFlags(fs)
	commandline.AddLoggingFlags(fs)
	return o, fs
}

// pflagType maps the type column of Karmada's --help to pflag's type
// names; types not listed (klog's severity, Level, ...) are not compared.
var pflagType = map[string]string{
	"bool": "bool", "string": "string", "strings": "stringSlice", "int": "int",
	"float32": "float32", "float": "float64", "duration": "duration", "mapStringBool": "mapStringBool",
}

// TestAcceptsEveryKarmadaFlag fails when a flag of karmada-controller-manager
// is missing, has another type, or another default.
func TestAcceptsEveryKarmadaFlag(t *testing.T) {
	_, fs := commandLine()
	for _, kf := range readKarmadaFlags(t, "testdata/karmada-controller-manager.tsv") {
		f := fs.Lookup(kf.name)
		if f == nil {
			t.Errorf("--%s (Karmada's) is not accepted", kf.name)
			continue
		}
		if want, ok := pflagType[kf.typ]; ok && f.Value.Type() != want {
			t.Errorf("--%s: type %s, Karmada's is %s", kf.name, f.Value.Type(), kf.typ)
		}
		if kf.def != "" && strings.Trim(f.DefValue, "[]") != kf.def {
			t.Errorf("--%s: default %q, Karmada's is %q", kf.name, f.DefValue, kf.def)
		}
	}
}

// stockArgs are the arguments of Karmada's own karmada-controller-manager
// Deployment (karmada-flags/README.md).
var stockArgs = []string{
	"--kubeconfig=/etc/karmada/config/karmada.config",
	"--cluster-status-update-frequency=10s",
	"--controllers=*,hpaScaleTargetMarker,deploymentReplicasSyncer",
	"--feature-gates=AllAlpha=true,AllBeta=true",
	"--metrics-bind-address=10.0.0.1:8080",
	"--health-probe-bind-address=10.0.0.1:10357",
	"--enable-no-execute-taint-eviction=true",
	"--logging-format=json",
	"--v=4",
}

func TestStockArgumentsParseAndWarnOnce(t *testing.T) {
	o, fs := commandLine()
	// The stock gates set no inactive gate; one is added to see it warned.
	if err := fs.Parse(append(stockArgs, "--feature-gates=ControllerPriorityQueue=false")); err != nil {
		t.Fatalf("Karmada's stock arguments: %v", err)
	}
	if err := NewControllerRegistry().Validate(o.Controllers); err != nil {
		t.Fatal(err)
	}
	if !o.FeatureGates.Enabled(commandline.PropagationPolicyPreemption) {
		t.Error("AllAlpha=true did not enable PropagationPolicyPreemption")
	}
	var lines []string
	logger := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{})
	o.WarnInactive(logger)
	all := strings.Join(lines, "\n")
	for _, want := range []string{`"featureGate"="ControllerPriorityQueue"`} {
		if strings.Count(all, want) != 1 {
			t.Errorf("warnings name %s %d times, want once:\n%s", want, strings.Count(all, want), all)
		}
	}
	for _, implemented := range []string{"PropagationPolicyPreemption", "PropagateDeps", `"--v"`, "cluster-status-update-frequency", `"controller"="binding"`,
		"--enable-no-execute-taint-eviction", `"featureGate"="Failover"`,
		`"controller"="hpaScaleTargetMarker"`, `"controller"="deploymentReplicasSyncer"`, `"featureGate"="FederatedQuotaEnforcement"`,
		`"featureGate"="WorkloadAffinity"`, `"featureGate"="SchedulingOvercommitProtection"`,
		`"featureGate"="MultiClusterService"`, `"controller"="serviceExport"`, `"controller"="endpointsliceDispatch"`} {
		if strings.Contains(all, implemented) {
			t.Errorf("warnings name %s, which Propel implements:\n%s", implemented, all)
		}
	}
}

func TestTyposFail(t *testing.T) {
	for _, args := range [][]string{
		{"--enable-no-execute-taint-evictoin=true"},
		{"--feature-gates=AllAlpah=true"},
		{"--v=four"},
	} {
		_, fs := commandLine()
		err := fs.Parse(args)
		if err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	if err := NewControllerRegistry().Validate([]string{"*", "hpaScaleTargetMarkr"}); err == nil || !strings.Contains(err.Error(), "hpaScaleTargetMarkr") {
		t.Errorf("controller typo: %v", err)
	}
	for _, name := range karmadaControllers {
		if err := NewControllerRegistry().Validate([]string{"*", name, "-" + name}); err != nil {
			t.Errorf("Karmada controller %s: %v", name, err)
		}
	}
}

func TestInactiveFlagsAreKarmadas(t *testing.T) {
	flags := readKarmadaFlags(t, "testdata/karmada-controller-manager.tsv")
	for _, f := range inactiveFlags {
		if !slices.ContainsFunc(flags, func(k karmadaFlag) bool { return k.name == f.Name }) {
			t.Errorf("inactive flag --%s is not Karmada's", f.Name)
		}
	}
}
