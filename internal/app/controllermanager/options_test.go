package controllermanager

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/propel-mc/propel/internal/app/commandline"
)

func parseFlags(args ...string) (*Options, error) {
	o := NewOptions()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.SetOutput(&strings.Builder{})
	o.AddFlags(fs)
	return o, fs.Parse(args)
}

func TestFeatureGatesFlag(t *testing.T) {
	o, err := parseFlags()
	if err != nil {
		t.Fatal(err)
	}
	if o.FeatureGates.Enabled(commandline.PropagationPolicyPreemption) || !o.FeatureGates.Enabled(commandline.PropagateDeps) {
		t.Fatalf("defaults: %s", o.FeatureGates)
	}
	o, err = parseFlags("--feature-gates=PropagationPolicyPreemption=true,PropagateDeps=false")
	if err != nil {
		t.Fatal(err)
	}
	if !o.FeatureGates.Enabled(commandline.PropagationPolicyPreemption) || o.FeatureGates.Enabled(commandline.PropagateDeps) {
		t.Fatalf("after --feature-gates: %s", o.FeatureGates)
	}
	_, err = parseFlags("--feature-gates=PropagationPolicyPreemption=true,Failovr=true")
	if err == nil || !strings.Contains(err.Error(), "feature gate: Failovr") {
		t.Fatalf("unknown gate: error %v, want one naming Failovr", err)
	}
}

// TestMetricsPlainByDefault: as in Karmada, metrics are plain HTTP on
// :8080 unless --metrics-secure asks for HTTPS behind the authentication
// and authorization filter; --metrics-bind-address keeps its meaning
// either way.
func TestMetricsPlainByDefault(t *testing.T) {
	o, err := parseFlags()
	if err != nil {
		t.Fatal(err)
	}
	m := o.MetricsOptions()
	if m.SecureServing || m.FilterProvider != nil || m.BindAddress != ":8080" {
		t.Fatalf("default metrics options: secure=%v filter=%v bind=%q, want Karmada's plain HTTP on :8080", m.SecureServing, m.FilterProvider != nil, m.BindAddress)
	}
	o, err = parseFlags("--metrics-secure", "--metrics-bind-address=:9443")
	if err != nil {
		t.Fatal(err)
	}
	m = o.MetricsOptions()
	if !m.SecureServing || m.FilterProvider == nil || m.BindAddress != ":9443" {
		t.Fatalf("--metrics-secure: secure=%v filter=%v bind=%q", m.SecureServing, m.FilterProvider != nil, m.BindAddress)
	}
}

func TestAllowHTTPMemberEndpointsOffByDefault(t *testing.T) {
	o, err := parseFlags()
	if err != nil || o.AllowHTTPMemberEndpoints {
		t.Fatalf("default: %v, %v", o.AllowHTTPMemberEndpoints, err)
	}
	o, err = parseFlags("--allow-http-member-endpoints")
	if err != nil || !o.AllowHTTPMemberEndpoints {
		t.Fatalf("--allow-http-member-endpoints: %v, %v", o.AllowHTTPMemberEndpoints, err)
	}
}

func TestValidateFailoverFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--cluster-monitor-period=0s"}, "--cluster-monitor-period"},
		{[]string{"--cluster-startup-grace-period=-1s"}, "--cluster-startup-grace-period"},
		{[]string{"--resource-eviction-rate=-1"}, "--resource-eviction-rate"},
		{[]string{"--no-execute-taint-eviction-purge-mode=Never"}, ""}, // validated only with the eviction on
		{[]string{"--enable-no-execute-taint-eviction", "--no-execute-taint-eviction-purge-mode=Never"}, "Never"},
		{[]string{"--enable-no-execute-taint-eviction", "--no-execute-taint-eviction-purge-mode=Directly"}, ""},
	} {
		o, err := parseFlags(tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		err = validateFailoverFlags(o)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: error %v, want one naming %q", tc.args, err, tc.want)
		}
	}
}
