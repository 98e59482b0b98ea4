package localup

import (
	"context"
	"fmt"
	"net"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/shared/names"
)

// estimatorBinary is cmd/propel-scheduler-estimator, the drop-in for
// karmada-scheduler-estimator.
const estimatorBinary = "propel-scheduler-estimator"

// Where karmada-scheduler looks for the estimator of member C with its
// default flags: the Service karmada-scheduler-estimator-C in
// karmada-system, port 10352.
const (
	estimatorServicePrefix = "karmada-scheduler-estimator"
	estimatorServicePort   = 10352
)

// enableEstimatorsFlag tells the scheduler to ask the estimators.
const enableEstimatorsFlag = "--enable-scheduler-estimator=true"

// EstimatorEndpoint is one member's propel-scheduler-estimator.
type EstimatorEndpoint struct {
	Cluster string `json:"cluster"`
	// GRPC is host:port of its gRPC server.
	GRPC string `json:"grpc"`
	Serving
}

// estimatorFlags are propel-scheduler-estimator's flags for one member:
// the member's admin kubeconfig, gRPC, health probes and metrics on the
// given loopback ports, local-up's feature gates, then extra (a later flag
// wins).
func estimatorFlags(cluster, kubeconfig string, grpcPort, healthPort, metricsPort int, extra []string) []string {
	out := []string{
		"--kubeconfig=" + kubeconfig,
		"--cluster-name=" + cluster,
		"--bind-address=127.0.0.1",
		"--server-port=" + strconv.Itoa(grpcPort),
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(healthPort),
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(metricsPort),
		"--feature-gates=" + FeatureGates,
	}
	return append(out, extra...)
}

// estimatorService is the ExternalName Service through which the scheduler
// finds cluster's estimator on this machine: karmada-scheduler's port
// mapped to the port the estimator serves on, as Karmada resolves it.
func estimatorService(cluster string, grpcPort int) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: names.SystemNamespace, Name: estimatorServicePrefix + "-" + cluster},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeExternalName, ExternalName: "127.0.0.1",
			Ports: []corev1.ServicePort{{Name: "grpc", Protocol: corev1.ProtocolTCP, Port: estimatorServicePort, TargetPort: intstr.FromInt(grpcPort)}},
		},
	}
}

// startEstimators runs one propel-scheduler-estimator per member, waits
// until each is ready and registers its Service in the control plane. On
// error the processes started are returned, for the caller to stop.
func startEstimators(ctx context.Context, o Options, progress *localenv.Progress, env *localenv.Environment, bin string) ([]*localenv.Process, []EstimatorEndpoint, error) {
	kube, err := kubernetes.NewForConfig(env.ControlPlane.Config)
	if err != nil {
		return nil, nil, err
	}
	var procs []*localenv.Process
	var eps []EstimatorEndpoint
	for _, m := range env.Members {
		cluster := m.Options.Name
		name := estimatorBinary + "-" + cluster
		ports := make([]int, 3)
		for i := range ports {
			if ports[i], err = localenv.FreePort(); err != nil {
				return procs, eps, fmt.Errorf("%s: %w", name, err)
			}
		}
		flags := estimatorFlags(cluster, m.Kubeconfig, ports[0], ports[1], ports[2], o.EstimatorArgs)
		progress.Starting(name)
		p, err := localenv.StartProcess(name, bin, flags, env.LogDir)
		if err != nil {
			return procs, eps, err
		}
		procs = append(procs, p)
		health := net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[1]))
		eps = append(eps, EstimatorEndpoint{Cluster: cluster, GRPC: net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0])), Serving: Serving{
			Metrics: "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[2])) + "/metrics",
			Healthz: "http://" + health + "/healthz", Readyz: "http://" + health + "/readyz",
		}})
	}
	for i, p := range procs {
		if err := waitReady(ctx, progress, p, eps[i].Serving); err != nil {
			return procs, eps, err
		}
		if err := applyService(ctx, kube, estimatorService(eps[i].Cluster, portOf(eps[i].GRPC))); err != nil {
			return procs, eps, err
		}
	}
	return procs, eps, nil
}

// applyService creates svc, or updates the one a previous run left (its
// target port changes from run to run).
func applyService(ctx context.Context, kube kubernetes.Interface, svc *corev1.Service) error {
	services := kube.CoreV1().Services(svc.Namespace)
	existing, err := services.Get(ctx, svc.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = services.Create(ctx, svc, metav1.CreateOptions{})
	case err == nil:
		existing.Spec = svc.Spec
		_, err = services.Update(ctx, existing, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("apply Service %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	return nil
}
