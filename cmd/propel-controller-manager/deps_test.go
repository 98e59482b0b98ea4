package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDoesNotLinkAPIServerLibraries: the controller manager's binary is
// mapped into its memory, so packages it never needs at run time cost
// resident pages. k8s.io/apiserver's authentication and authorization
// (which bring CEL, OpenTelemetry's gRPC exporter and the konnectivity
// client) came in with controller-runtime's secure metrics filter alone;
// Propel serves --metrics-secure with its own.
func TestDoesNotLinkAPIServerLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	banned := []string{
		"k8s.io/apiserver/",
		"github.com/google/cel-go/",
		"github.com/antlr4-go/",
		"go.opentelemetry.io/otel/exporters/",
		"go.opentelemetry.io/otel/sdk",
		"sigs.k8s.io/apiserver-network-proxy/",
		"sigs.k8s.io/controller-runtime/pkg/metrics/filters",
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, b := range banned {
			if strings.HasPrefix(pkg, b) {
				t.Errorf("propel-controller-manager links %s", pkg)
			}
		}
	}
}
