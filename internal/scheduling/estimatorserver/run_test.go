package estimatorserver

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// freePort is a loopback port nothing listens on (as far as this process
// knows).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// unreachableMember writes a kubeconfig whose API server refuses
// connections.
func unreachableMember(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "kubeconfig")
	config := `apiVersion: v1
kind: Config
clusters: [{name: m, cluster: {server: "https://` + loopback(freePort(t)) + `", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: m, user: u}}]
current-context: c
`
	if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// leftovers are the stacks of goroutines still serving or watching.
func leftovers() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "testing.tRunner") {
			continue
		}
		for _, frame := range []string{"net/http.(*Server).Serve", "grpc.(*Server).Serve", "k8s.io/client-go/tools/cache", "k8s.io/client-go/informers", "estimatorserver.Run"} {
			if strings.Contains(g, frame) {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// TestRunStopsEverythingOnFailure: when the start fails (an address in
// use, or a member whose informers never sync before the context ends),
// Run returns having closed every listener and stopped every server and
// informer it started: the ports are free again and no goroutine remains.
func TestRunStopsEverythingOnFailure(t *testing.T) {
	tests := []struct {
		name  string
		taken string // "grpc", "health", "metrics" or ""
		want  string
	}{
		{"gRPC port in use", "grpc", "listen on"},
		{"metrics port in use", "metrics", "listen on"},
		{"member unreachable", "", "informer did not sync"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ports := map[string]int{"grpc": freePort(t), "health": freePort(t), "metrics": freePort(t)}
			if tt.taken != "" {
				l, err := net.Listen("tcp", loopback(ports[tt.taken]))
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
			}
			o := NewOptions()
			o.ClusterName, o.Kubeconfig = "m1", unreachableMember(t)
			o.BindAddress, o.ServerPort = "127.0.0.1", ports["grpc"]
			o.HealthProbeBindAddress, o.MetricsBindAddress = loopback(ports["health"]), loopback(ports["metrics"])
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			err := Run(ctx, o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run: got %v, want an error containing %q", err, tt.want)
			}
			t.Log(err)
			for name, port := range ports {
				if name == tt.taken {
					continue
				}
				l, err := net.Listen("tcp", loopback(port))
				if err != nil {
					t.Errorf("%s port still in use after Run returned: %v", name, err)
					continue
				}
				l.Close()
			}
			deadline := time.Now().Add(5 * time.Second)
			left := leftovers()
			for len(left) > 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
				left = leftovers()
			}
			if len(left) > 0 {
				t.Fatalf("%d goroutines left after Run returned:\n%s", len(left), strings.Join(left, "\n\n"))
			}
		})
	}
}
