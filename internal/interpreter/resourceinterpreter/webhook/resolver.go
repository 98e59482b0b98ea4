package webhook

import (
	"context"
	"fmt"
	"net"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// dialFunc returns the host:port to dial.
type dialFunc func(ctx context.Context) (string, error)

// serviceResolver finds where a webhook Service listens, the way Karmada
// does: through the control plane's Services, at dial time.
type serviceResolver struct {
	reader          client.Reader
	namespace, name string
	port            int32
}

func (r *serviceResolver) dnsAddress() string {
	return net.JoinHostPort(r.name+"."+r.namespace+".svc", strconv.Itoa(int(r.port)))
}

// dial resolves the Service. Not found in the control plane: its cluster
// DNS name. ClusterIP, NodePort, LoadBalancer: <clusterIP>:<port>, the port
// being one of the Service's ports. ExternalName: <externalName>:<port>.
func (r *serviceResolver) dial(ctx context.Context) (string, error) {
	if r.reader == nil {
		return r.dnsAddress(), nil
	}
	svc := &corev1.Service{}
	err := r.reader.Get(ctx, client.ObjectKey{Namespace: r.namespace, Name: r.name}, svc)
	switch {
	case apierrors.IsNotFound(err):
		return r.dnsAddress(), nil
	case err != nil:
		return "", fmt.Errorf("resolve service %s/%s: %w", r.namespace, r.name, err)
	}
	return r.address(svc)
}

func (r *serviceResolver) address(svc *corev1.Service) (string, error) {
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
		if svc.Spec.Type == corev1.ServiceTypeClusterIP && svc.Spec.ClusterIP == corev1.ClusterIPNone {
			return "", fmt.Errorf("cannot route to service with ClusterIP %q", svc.Spec.ClusterIP)
		}
		for _, p := range svc.Spec.Ports {
			if p.Port == r.port {
				return net.JoinHostPort(svc.Spec.ClusterIP, strconv.Itoa(int(p.Port))), nil
			}
		}
		return "", fmt.Errorf("no service port %d found for service %q", r.port, svc.Name)
	case corev1.ServiceTypeExternalName:
		return net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(r.port))), nil
	default:
		return "", fmt.Errorf("unsupported service type %q", svc.Spec.Type)
	}
}
