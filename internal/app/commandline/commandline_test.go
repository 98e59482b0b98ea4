package commandline

import (
	"context"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
)

func TestLoggingFormatValidated(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	l := AddLoggingFlags(fs)
	if err := fs.Parse([]string{"--logging-format=yaml"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Apply(nil); err == nil || !strings.Contains(err.Error(), "yaml") {
		t.Fatalf("--logging-format=yaml: error %v, want one naming the format", err)
	}
	for _, name := range []string{"v", "vmodule", "logging-format", "log-flush-frequency", "log-json-split-stream", "log-dir", "skip-headers", "stderrthreshold"} {
		if fs.Lookup(name) == nil {
			t.Errorf("--%s not registered", name)
		}
	}
}

func TestInactiveFlags(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	in := AddInactiveFlags(fs, "karmada-x", []Flag{
		{Name: "a", Type: "bool", Default: "true"}, {Name: "b", Type: "duration", Default: "5m0s"},
		{Name: "c", Type: "float", Default: "0.1"}, {Name: "d", Type: "string", Default: `"Gracefully"`},
	})
	if got := fs.Lookup("d").DefValue; got != "Gracefully" {
		t.Errorf("default of --d = %q", got)
	}
	if err := fs.Parse([]string{"--b=1m", "--c=0.5"}); err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--b=soon"}); err == nil {
		t.Error("a malformed value of an inactive flag was accepted")
	}
	var lines []string
	in.Warn(funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{}))
	if len(lines) != 2 || !strings.Contains(lines[0], `"--b"`) || !strings.Contains(lines[1], `"--c"`) {
		t.Errorf("warnings %q, want one for --b and one for --c", lines)
	}
}

// TestLoggingFeatureGates: Karmada's binaries register component-base's
// logging gates, so its command lines may set them. LoggingAlphaOptions
// unlocks the alpha logging flags, and ContextualLogging=false reaches
// klog. (The logging configuration applies once per process, so this is
// the only test that applies one successfully.)
func TestLoggingFeatureGates(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	l := AddLoggingFlags(fs)
	gates := NewFeatureGates()
	AddFeatureGatesFlag(fs, gates)
	if err := fs.Parse([]string{"--log-text-split-stream"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Apply(gates); err == nil || !strings.Contains(err.Error(), "LoggingAlphaOptions") {
		t.Fatalf("--log-text-split-stream without LoggingAlphaOptions: error %v, want one naming the gate", err)
	}
	if err := fs.Parse([]string{"--feature-gates=ContextualLogging=false,LoggingAlphaOptions=true,LoggingBetaOptions=true"}); err != nil {
		t.Fatalf("Karmada's logging gates rejected: %v", err)
	}
	if err := l.Apply(gates); err != nil {
		t.Fatalf("--log-text-split-stream with LoggingAlphaOptions=true: %v", err)
	}
	var got []string
	own := funcr.New(func(_, args string) { got = append(got, args) }, funcr.Options{})
	klog.FromContext(klog.NewContext(context.Background(), own)).Info("probe")
	if len(got) != 0 {
		t.Error("ContextualLogging=false: klog still takes the logger from the context")
	}
}
