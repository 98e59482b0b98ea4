package managerbase

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func parse(t *testing.T, f ServingFlags, args ...string) (LeaderElection, Serving) {
	t.Helper()
	l, s := NewLeaderElection("lease-x"), NewServing(":10351")
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.SetOutput(&strings.Builder{})
	l.AddFlags(fs, "writes", "karmada-x")
	s.AddFlags(fs, f)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return l, s
}

// TestManagerOptionsDefaults: Karmada's leader election and endpoints,
// pprof off, plain HTTP metrics.
func TestManagerOptionsDefaults(t *testing.T) {
	l, s := parse(t, ServingFlags{SecureMetrics: true, Pprof: true})
	o := ManagerOptions(l, s)
	if !o.LeaderElection || o.LeaderElectionID != "lease-x" || o.LeaderElectionNamespace != "karmada-system" || !o.LeaderElectionReleaseOnCancel {
		t.Errorf("leader election: %v %q %q release %v", o.LeaderElection, o.LeaderElectionID, o.LeaderElectionNamespace, o.LeaderElectionReleaseOnCancel)
	}
	if *o.LeaseDuration != 15*time.Second || *o.RenewDeadline != 10*time.Second || *o.RetryPeriod != 2*time.Second {
		t.Errorf("timings: %v %v %v", *o.LeaseDuration, *o.RenewDeadline, *o.RetryPeriod)
	}
	if o.PprofBindAddress != "0" || o.HealthProbeBindAddress != ":10351" || o.Metrics.BindAddress != ":8080" || o.Metrics.SecureServing || o.Metrics.FilterProvider != nil {
		t.Errorf("endpoints: pprof %q health %q metrics %q secure %v", o.PprofBindAddress, o.HealthProbeBindAddress, o.Metrics.BindAddress, o.Metrics.SecureServing)
	}
	if o.Scheme == nil || o.Cache.DefaultTransform == nil {
		t.Error("the manager has no scheme or does not strip managedFields")
	}
}

func TestManagerOptionsFollowFlags(t *testing.T) {
	l, s := parse(t, ServingFlags{SecureMetrics: true, Pprof: true},
		"--leader-elect=false", "--leader-elect-resource-name=other", "--leader-elect-resource-namespace=ns",
		"--leader-elect-lease-duration=30s", "--enable-pprof", "--profiling-bind-address=:7070",
		"--metrics-secure", "--metrics-cert-dir=/certs", "--metrics-bind-address=:9443", "--health-probe-bind-address=0")
	o := ManagerOptions(l, s)
	if o.LeaderElection || o.LeaderElectionID != "other" || o.LeaderElectionNamespace != "ns" || *o.LeaseDuration != 30*time.Second {
		t.Errorf("leader election: %v %q %q %v", o.LeaderElection, o.LeaderElectionID, o.LeaderElectionNamespace, *o.LeaseDuration)
	}
	if o.PprofBindAddress != ":7070" || o.HealthProbeBindAddress != "0" {
		t.Errorf("pprof %q health %q", o.PprofBindAddress, o.HealthProbeBindAddress)
	}
	if !o.Metrics.SecureServing || o.Metrics.FilterProvider == nil || o.Metrics.CertDir != "/certs" || o.Metrics.BindAddress != ":9443" {
		t.Errorf("secure metrics: %+v", o.Metrics)
	}
}

// TestOptionalFlagsAbsent: a binary without secure metrics or pprof does
// not accept their flags.
func TestOptionalFlagsAbsent(t *testing.T) {
	for _, arg := range []string{"--metrics-secure", "--enable-pprof", "--profiling-bind-address=:1"} {
		l, s := NewLeaderElection("x"), NewServing(":1")
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		fs.SetOutput(&strings.Builder{})
		l.AddFlags(fs, "writes", "x")
		s.AddFlags(fs, ServingFlags{})
		if err := fs.Parse([]string{arg}); err == nil {
			t.Errorf("%s accepted without being asked for", arg)
		}
	}
}

func TestRESTConfigAppliesRateLimits(t *testing.T) {
	c := Connection{Master: "https://127.0.0.1:6443", KubeAPIQPS: 7, KubeAPIBurst: 9}
	cfg, err := c.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://127.0.0.1:6443" || cfg.QPS != 7 || cfg.Burst != 9 {
		t.Errorf("config: host %q qps %v burst %d", cfg.Host, cfg.QPS, cfg.Burst)
	}
	c = Connection{Kubeconfig: "/nonexistent/kubeconfig"}
	if _, err := c.RESTConfig(); err == nil || !strings.Contains(err.Error(), "/nonexistent/kubeconfig") {
		t.Errorf("missing kubeconfig: %v", err)
	}
}
