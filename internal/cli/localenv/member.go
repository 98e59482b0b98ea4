package localenv

import (
	"context"
	"fmt"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// NodeSpec describes one kwok fake node of a member.
type NodeSpec struct {
	Name   string
	CPU    string // e.g. "8"
	Memory string // e.g. "32Gi"
	Pods   string // e.g. "110"
	Labels map[string]string
}

// MemberOptions configures one member cluster.
type MemberOptions struct {
	Name string
	// Workloads starts kube-controller-manager, kube-scheduler and kwok so
	// that Deployments get pods that become Running and Ready, except pods
	// of an image that cannot be pulled (kwokPodStages).
	Workloads bool
	// Nodes are the fake nodes kwok manages; default one 8-CPU node.
	Nodes []NodeSpec
	// Region, Zone and Provider are labels for the Cluster object.
	Region, Zone, Provider string
	// Port pins the API server port; 0 picks a free one.
	Port int
	// Metrics (with Workloads) serves metrics.k8s.io from a real
	// metrics-server scraping kwok's simulated pod usage (metrics.go).
	Metrics bool
	// LowMemory runs the member's API server without watch cache and with
	// a tighter Go heap, for benchmarks with tens of members on one
	// machine; see lowMemoryMemberArgs.
	LowMemory bool
}

// Member is a member cluster: an API server and, with Workloads, the
// processes that make pods real.
type Member struct {
	*APIServer
	Options           MemberOptions
	ControllerManager *Process
	Scheduler         *Process
	Kwok              *Process
	MetricsServer     *Process
	// kwokPort is where kwok serves the nodes' kubelet endpoints (Metrics).
	kwokPort int
}

// kwokNodeAnnotation selects the nodes kwok manages.
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

func startMember(ctx context.Context, progress *Progress, opts MemberOptions, pki *PKI, etcd *Etcd, dir, logDir string) (*Member, error) {
	args, env := memberArgs, []string(nil)
	if opts.LowMemory {
		args, env = append(append([]string{}, memberArgs...), lowMemoryMemberArgs...), lowMemoryMemberEnv
	}
	api, err := startAPIServer(ctx, progress, opts.Name, pki, etcd, dir, logDir, opts.Port, args, env)
	if err != nil {
		return nil, err
	}
	m := &Member{APIServer: api, Options: opts}
	if !opts.Workloads {
		return m, nil
	}
	since := progress.Now()
	if err := m.startWorkloadProcesses(ctx, pki, dir); err != nil {
		m.Stop()
		return nil, err
	}
	started := "controller manager, scheduler and kwok"
	if opts.Metrics {
		started = "controller manager, scheduler, kwok and metrics-server"
	}
	progress.Step(fmt.Sprintf("%s: %s started, %s created", opts.Name, started, nodeCount(len(opts.Nodes))), since)
	return m, nil
}

func (m *Member) startWorkloadProcesses(ctx context.Context, pki *PKI, dir string) error {
	saKey, _, err := pki.ServiceAccountKey()
	if err != nil {
		return err
	}
	name := m.Options.Name
	// The node-lifecycle controller must run: it lifts the not-ready taint
	// that admission puts on new nodes.
	if m.ControllerManager, err = StartProcess(name+"-controller-manager", bin("kube-controller-manager"), []string{
		"--kubeconfig=" + m.Kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--controllers=*",
		"--use-service-account-credentials=false",
		"--service-account-private-key-file=" + saKey,
		"--root-ca-file=" + filepath.Join(pki.Dir, "ca.crt"),
		"--node-monitor-period=2s",
		"--v=1",
	}, m.logDir); err != nil {
		return err
	}
	if m.Scheduler, err = StartProcess(name+"-scheduler", bin("kube-scheduler"), []string{
		"--kubeconfig=" + m.Kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--v=1",
	}, m.logDir); err != nil {
		return err
	}
	kwokArgs := []string{
		"--kubeconfig=" + m.Kubeconfig,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + kwokNodeAnnotation + "=fake",
		"--manage-nodes-with-label-selector=",
		"--manage-single-node=",
		"--cidr=10.244.0.1/16",
		"--node-lease-duration-seconds=40",
	}
	stages, err := m.writeKwokPodStages(dir)
	if err != nil {
		return err
	}
	kwokArgs = append(kwokArgs, stages)
	if m.Options.Metrics {
		if m.kwokPort, err = FreePort(); err != nil {
			return err
		}
		extra, err := m.kwokMetricsArgs(dir, m.kwokPort)
		if err != nil {
			return err
		}
		kwokArgs = append(kwokArgs, extra...)
	} else {
		kwokArgs = append(kwokArgs, "--node-ip=10.0.0.1")
	}
	if m.Kwok, err = StartProcess(name+"-kwok", bin("kwok"), kwokArgs, m.logDir); err != nil {
		return err
	}
	if err := m.createNodes(ctx); err != nil {
		return err
	}
	if m.Options.Metrics {
		return m.startMetricsServer(ctx, dir)
	}
	return nil
}

// controlPlaneControllers are the kube-controller-manager controllers
// Karmada runs against its API server.
const controlPlaneControllers = "namespace,garbagecollector,serviceaccount-token,clusterrole-aggregation,ttl-after-finished"

func startControlPlaneControllers(cp *APIServer, pki *PKI) (*Process, error) {
	saKey, _, err := pki.ServiceAccountKey()
	if err != nil {
		return nil, err
	}
	return StartProcess(cp.Name+"-controller-manager", bin("kube-controller-manager"), []string{
		"--kubeconfig=" + cp.Kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--controllers=" + controlPlaneControllers,
		"--service-account-private-key-file=" + saKey,
		"--root-ca-file=" + filepath.Join(pki.Dir, "ca.crt"),
		"--v=1",
	}, cp.logDir)
}

func (m *Member) createNodes(ctx context.Context) error {
	client, err := kubernetes.NewForConfig(m.Config)
	if err != nil {
		return err
	}
	nodes := m.Options.Nodes
	if len(nodes) == 0 {
		nodes = []NodeSpec{{Name: m.Options.Name + "-node-1", CPU: "8", Memory: "32Gi", Pods: "110"}}
	}
	for _, n := range nodes {
		node, err := fakeNode(n)
		if err != nil {
			return fmt.Errorf("member %s: node %s: %w", m.Options.Name, n.Name, err)
		}
		if m.Options.Metrics {
			node.Annotations[resourceMetricsPathAnnotation] = "/metrics/nodes/" + n.Name + "/metrics/resource"
		}
		_, err = client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) && m.Options.Metrics {
			// A restarted environment's nodes still name the previous
			// kwok's port as their kubelet port, which kwok does not
			// rewrite: point metrics-server at the new one.
			patch := fmt.Sprintf(`{"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":%d}}}}`, m.kwokPort)
			_, err = client.CoreV1().Nodes().PatchStatus(ctx, n.Name, []byte(patch))
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("member %s: create node %s: %w", m.Options.Name, n.Name, err)
		}
	}
	return nil
}

func fakeNode(n NodeSpec) (*corev1.Node, error) {
	list := corev1.ResourceList{}
	for res, v := range map[corev1.ResourceName]string{corev1.ResourceCPU: n.CPU, corev1.ResourceMemory: n.Memory, corev1.ResourcePods: n.Pods} {
		if v == "" {
			continue
		}
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", res, v, err)
		}
		list[res] = q
	}
	labels := map[string]string{"kubernetes.io/hostname": n.Name, "kubernetes.io/os": "linux", "type": "kwok"}
	for k, v := range n.Labels {
		labels[k] = v
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        n.Name,
			Labels:      labels,
			Annotations: map[string]string{kwokNodeAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"},
		},
		Status: corev1.NodeStatus{Capacity: list, Allocatable: list},
	}, nil
}

// nodeCount is "1 node" or "N nodes"; a member without NodeSpecs has one.
func nodeCount(n int) string {
	if n <= 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}

// Stop ends every process of the member, the API server last.
func (m *Member) Stop() {
	for _, p := range []*Process{m.MetricsServer, m.Kwok, m.Scheduler, m.ControllerManager} {
		p.Stop()
	}
	m.APIServer.Stop()
}
