package localup

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/propel-mc/propel/internal/app/managerbase"
	"github.com/propel-mc/propel/internal/cli/localenv"
)

// Ports are the loopback ports local-up asks for the controller manager's
// and the scheduler's HTTP endpoints. Karmada's components default to
// metrics :8080 and pprof :6060 in both, health :10357 (controller
// manager) and :10351 (scheduler); on one machine the two would collide,
// so the scheduler's metrics and pprof take the next port. A port that is
// taken falls back to a free one; either way the address is printed and
// written to EndpointsFile.
type Ports struct {
	ControllerManagerMetrics, ControllerManagerHealth, ControllerManagerPprof int
	SchedulerMetrics, SchedulerHealth, SchedulerPprof                         int
}

// DefaultPorts are local-up's defaults (see Ports).
var DefaultPorts = Ports{
	ControllerManagerMetrics: 8080, ControllerManagerHealth: 10357, ControllerManagerPprof: 6060,
	SchedulerMetrics: 8081, SchedulerHealth: 10351, SchedulerPprof: 6061,
}

// EndpointsFile, in the state directory, is Endpoints as JSON, for tools
// and tests that need an address of a running local-up.
const EndpointsFile = "endpoints.json"

// Endpoints is where everything of a running local-up is.
type Endpoints struct {
	ControlPlane APIServerEndpoint   `json:"controlPlane"`
	Members      []APIServerEndpoint `json:"members"`
	// SuiteKubeconfig has the contexts karmada-apiserver and karmada-host;
	// MembersKubeconfig one context per member (Karmada's e2e layout).
	SuiteKubeconfig   string  `json:"suiteKubeconfig"`
	MembersKubeconfig string  `json:"membersKubeconfig"`
	ControllerManager Serving `json:"controllerManager"`
	// Scheduler is nil when the controller manager schedules in-process.
	Scheduler *Serving `json:"scheduler,omitempty"`
	// Estimators are the members' propel-scheduler-estimators.
	Estimators []EstimatorEndpoint `json:"estimators,omitempty"`
	// ExampleWebhook is the Workload interpreter webhook's URL ("" when
	// its binary is missing).
	ExampleWebhook string `json:"exampleWebhook,omitempty"`
	// Karmada maps each of Karmada's components run beside Propel to its URL.
	Karmada map[string]string `json:"karmada,omitempty"`
	Logs    string            `json:"logs"`
}

// APIServerEndpoint is one API server and the admin kubeconfig reaching it.
type APIServerEndpoint struct {
	Name       string `json:"name"`
	URL        string `json:"url"`
	Kubeconfig string `json:"kubeconfig"`
}

// Serving are a manager's HTTP endpoints as URLs; "" is off.
type Serving struct {
	Metrics string `json:"metrics,omitempty"`
	Healthz string `json:"healthz,omitempty"`
	Readyz  string `json:"readyz,omitempty"`
	Pprof   string `json:"pprof,omitempty"`
}

// servingOf turns a manager's bind addresses into URLs on loopback.
func servingOf(s managerbase.Serving) Serving {
	var out Serving
	scheme := "http"
	if s.MetricsSecure {
		scheme = "https"
	}
	if a := loopback(s.MetricsBindAddress); a != "" {
		out.Metrics = scheme + "://" + a + "/metrics"
	}
	if a := loopback(s.HealthProbeBindAddress); a != "" {
		out.Healthz, out.Readyz = "http://"+a+"/healthz", "http://"+a+"/readyz"
	}
	if a := loopback(s.PprofAddress()); a != "" {
		out.Pprof = "http://" + a + "/debug/pprof/"
	}
	return out
}

// loopback is addr with an empty or unspecified host made 127.0.0.1; ""
// when addr is "0" or "" (off) or has no port.
func loopback(addr string) string {
	if addr == "" || addr == "0" {
		return ""
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "0" {
		return ""
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// localAddress is 127.0.0.1:want when want is free, else 127.0.0.1 on a
// free port, saying so on out.
func localAddress(out io.Writer, what string, want int) (string, error) {
	if want <= 0 {
		return "0", nil
	}
	if localenv.PortFree(want) == nil {
		return "127.0.0.1:" + strconv.Itoa(want), nil
	}
	port, err := localenv.FreePort()
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	fmt.Fprintf(out, "local-up: port %d for the %s is taken; using %d\n", want, what, port)
	return "127.0.0.1:" + strconv.Itoa(port), nil
}

// Print writes the endpoints as an indented list.
func (e *Endpoints) Print(w io.Writer) {
	fmt.Fprintf(w, "Endpoints:\n  control plane %s  kubeconfig %s\n", e.ControlPlane.URL, e.ControlPlane.Kubeconfig)
	for _, m := range e.Members {
		fmt.Fprintf(w, "  %-13s %s  kubeconfig %s\n", m.Name, m.URL, m.Kubeconfig)
	}
	fmt.Fprintf(w, "  Karmada's e2e kubeconfigs: %s (contexts %s, %s), %s (a context per member)\n",
		e.SuiteKubeconfig, KarmadaAPIServerContext, KarmadaHostContext, e.MembersKubeconfig)
	printServing(w, "propel-controller-manager", e.ControllerManager)
	if e.Scheduler != nil {
		printServing(w, schedulerBinary, *e.Scheduler)
	}
	for _, est := range e.Estimators {
		printServing(w, estimatorBinary+"-"+est.Cluster+" (gRPC "+est.GRPC+")", est.Serving)
	}
	if e.ExampleWebhook != "" {
		fmt.Fprintf(w, "  %s: %s\n", exampleWebhookBinary, e.ExampleWebhook)
	}
	for _, name := range slices.Sorted(maps.Keys(e.Karmada)) {
		fmt.Fprintf(w, "  %s: %s\n", name, e.Karmada[name])
	}
}

func printServing(w io.Writer, name string, s Serving) {
	fmt.Fprintf(w, "  %s:\n", name)
	for _, kv := range [][2]string{{"metrics", s.Metrics}, {"healthz", s.Healthz}, {"readyz", s.Readyz}, {"pprof", s.Pprof}} {
		v := kv[1]
		if v == "" {
			v = "off"
		}
		fmt.Fprintf(w, "    %-8s %s\n", kv[0], v)
	}
}

// write saves the endpoints to EndpointsFile in dir.
func (e *Endpoints) write(dir string) error {
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, EndpointsFile), append(data, '\n'), 0o644)
}

// ReadEndpoints reads EndpointsFile of a running local-up in dir.
func ReadEndpoints(dir string) (*Endpoints, error) {
	data, err := os.ReadFile(filepath.Join(dir, EndpointsFile))
	if err != nil {
		return nil, err
	}
	e := &Endpoints{}
	if err := json.Unmarshal(data, e); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, EndpointsFile), err)
	}
	return e, nil
}

// httpOK is a readiness check: GET url answers 200.
func httpOK(url string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		return nil
	}
}
