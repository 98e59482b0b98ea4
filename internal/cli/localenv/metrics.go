package localenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Member metrics: kwok simulates each pod's usage (from the pod
// annotations kwok.x-k8s.io/usage-cpu and kwok.x-k8s.io/usage-memory,
// defaulting to 1m and 1Mi) and serves it in the kubelet's
// /metrics/resource format; a real metrics-server scrapes kwok as the
// nodes' kubelet and serves metrics.k8s.io through the member API
// server's aggregation layer.

// UsageCPUAnnotation and UsageMemoryAnnotation set a kwok pod's simulated
// usage.
const (
	UsageCPUAnnotation    = "kwok.x-k8s.io/usage-cpu"
	UsageMemoryAnnotation = "kwok.x-k8s.io/usage-memory"
)

// resourceMetricsPathAnnotation tells metrics-server where a node's
// resource metrics are (kwok serves them per node on one port).
const resourceMetricsPathAnnotation = "metrics.k8s.io/resource-metrics-path"

// kwokMetricsConfig is kwok's configuration for the simulation: usage from
// the pod annotations, and the kubelet resource metrics computed from it.
const kwokMetricsConfig = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterResourceUsage
metadata:
  name: usage-from-pod-annotations
spec:
  usages:
  - usage:
      cpu:
        expression: |
          "` + UsageCPUAnnotation + `" in pod.metadata.annotations ? Quantity(pod.metadata.annotations["` + UsageCPUAnnotation + `"]) : Quantity("1m")
      memory:
        expression: |
          "` + UsageMemoryAnnotation + `" in pod.metadata.annotations ? Quantity(pod.metadata.annotations["` + UsageMemoryAnnotation + `"]) : Quantity("1Mi")
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Metric
metadata:
  name: kubelet-resource-metrics
spec:
  path: /metrics/nodes/{nodeName}/metrics/resource
  metrics:
  - name: scrape_error
    dimension: node
    kind: gauge
    help: 0 when the node's metrics were collected
    value: "0"
  - name: node_cpu_usage_seconds_total
    dimension: node
    kind: counter
    help: cpu time the node used, in core-seconds
    value: node.CumulativeUsage("cpu")
  - name: node_memory_working_set_bytes
    dimension: node
    kind: gauge
    help: memory working set of the node, in bytes
    value: node.Usage("memory")
  - name: container_start_time_seconds
    dimension: container
    kind: gauge
    help: when the container started, in seconds since the epoch
    labels:
    - {name: container, value: container.name}
    - {name: namespace, value: pod.metadata.namespace}
    - {name: pod, value: pod.metadata.name}
    value: pod.SinceSecond()
  - name: container_cpu_usage_seconds_total
    dimension: container
    kind: counter
    help: cpu time the container used, in core-seconds
    labels:
    - {name: container, value: container.name}
    - {name: namespace, value: pod.metadata.namespace}
    - {name: pod, value: pod.metadata.name}
    value: pod.CumulativeUsage("cpu", container.name)
  - name: container_memory_working_set_bytes
    dimension: container
    kind: gauge
    help: memory working set of the container, in bytes
    labels:
    - {name: container, value: container.name}
    - {name: namespace, value: pod.metadata.namespace}
    - {name: pod, value: pod.metadata.name}
    value: pod.Usage("memory", container.name)
`

// kwokContainerConfig makes the rest of the nodes' kubelet API answer:
// `logs` of any container reads logsFile (kwok containers run nothing, so
// there is no output of their own), and `exec` runs the command on this
// machine in workDir, as the local-up user. Karmada's karmadactl specs
// read logs and exec `echo hello` through the cluster proxy; exec is
// reachable only with the member's pods/exec permission, which local-up
// gives its admin alone.
func kwokContainerConfig(logsFile, workDir string) string {
	return `---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: every-container
spec:
  logs:
  - logsFile: ` + strconv.Quote(logsFile) + `
    follow: false
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterExec
metadata:
  name: every-container
spec:
  execs:
  - local:
      workDir: ` + strconv.Quote(workDir) + `
`
}

// containerLog is what `logs` shows for every kwok container, in the
// CRI log format kwok reads (time, stream, full-line tag, text).
const containerLog = "2026-01-01T00:00:00.000000000Z stdout F kwok simulates this container; it runs no process and writes no log of its own\n"

// kwokMetricsArgs are kwok's extra arguments for the simulation: it serves
// the metrics, logs and exec on port as the nodes' kubelet (address
// 127.0.0.1).
func (m *Member) kwokMetricsArgs(dir string, port int) ([]string, error) {
	logsFile := filepath.Join(dir, m.Options.Name+"-container.log")
	if err := os.WriteFile(logsFile, []byte(containerLog), 0o600); err != nil {
		return nil, err
	}
	workDir := filepath.Join(dir, m.Options.Name+"-exec")
	if err := os.MkdirAll(workDir, 0o700); err != nil {
		return nil, err
	}
	config := filepath.Join(dir, m.Options.Name+"-kwok-metrics.yaml")
	if err := os.WriteFile(config, []byte(kwokMetricsConfig+kwokContainerConfig(logsFile, workDir)), 0o600); err != nil {
		return nil, err
	}
	return []string{
		"--config=" + config,
		"--server-address=127.0.0.1:" + strconv.Itoa(port),
		"--node-ip=127.0.0.1",
		"--node-port=" + strconv.Itoa(port),
	}, nil
}

// startMetricsServer runs metrics-server against the member and registers
// it as the member's metrics.k8s.io/v1beta1 (an ExternalName Service
// "localhost", which the aggregator dials directly).
func (m *Member) startMetricsServer(ctx context.Context, dir string) error {
	port, err := FreePort()
	if err != nil {
		return err
	}
	certDir := filepath.Join(dir, m.Options.Name+"-metrics-server")
	if m.MetricsServer, err = StartProcess(m.Options.Name+"-metrics-server", bin("metrics-server"), []string{
		"--kubeconfig=" + m.Kubeconfig,
		"--authentication-kubeconfig=" + m.Kubeconfig,
		"--authorization-kubeconfig=" + m.Kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + certDir,
		"--deprecated-kubelet-completely-insecure",
		"--kubelet-use-node-status-port",
		"--kubelet-preferred-address-types=InternalIP",
		"--metric-resolution=10s",
		"--kubelet-request-timeout=5s",
		"--v=1",
	}, m.logDir); err != nil {
		return err
	}
	err = RegisterAggregatedAPI(ctx, m.Config, AggregatedAPI{Group: "metrics.k8s.io", Version: "v1beta1", Namespace: "kube-system", Service: "metrics-server", Port: port})
	if err != nil {
		return fmt.Errorf("member %s: %w", m.Options.Name, err)
	}
	return nil
}
