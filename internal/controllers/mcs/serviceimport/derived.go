package serviceimport

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	"github.com/propel-mc/propel/internal/shared/names"
	mcsv1alpha1 "github.com/propel-mc/propel/pkg/apis/multicluster/v1alpha1"
)

// sync creates derived-<name>, or updates its spec keeping the cluster IP
// the API server allocated, then records the import's IPs as the
// Service's load-balancer ingress.
func (r *Reconciler) sync(ctx context.Context, imp *mcsv1alpha1.ServiceImport) error {
	desired := derivedService(imp)
	key := types.NamespacedName{Namespace: desired.Namespace, Name: desired.Name}
	current := &corev1.Service{}
	err := r.client.Get(ctx, key, current)
	switch {
	case apierrors.IsNotFound(err):
		if err := r.client.Create(ctx, desired); err != nil {
			return fmt.Errorf("create derived service %s: %w", key, err)
		}
		current = desired
	case err != nil:
		return fmt.Errorf("get derived service %s: %w", key, err)
	default:
		spec := desired.Spec
		spec.ClusterIP, spec.ClusterIPs = current.Spec.ClusterIP, current.Spec.ClusterIPs
		if !specMatches(&current.Spec, &spec) {
			updated := current.DeepCopy()
			updated.Spec.Type, updated.Spec.Selector, updated.Spec.Ports = spec.Type, nil, spec.Ports
			if err := r.client.Update(ctx, updated); err != nil {
				return fmt.Errorf("update derived service %s: %w", key, err)
			}
			current = updated
		}
	}
	return r.syncIngress(ctx, key, imp.Spec.IPs, current)
}

func derivedService(imp *mcsv1alpha1.ServiceImport) *corev1.Service {
	ports := make([]corev1.ServicePort, 0, len(imp.Spec.Ports))
	for _, p := range imp.Spec.Ports {
		ports = append(ports, corev1.ServicePort{Name: p.Name, Protocol: p.Protocol, Port: p.Port, AppProtocol: p.AppProtocol})
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: imp.Namespace, Name: names.DerivedServiceName(imp.Name)},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: ports},
	}
}

// specMatches compares what the controller owns: type, no selector, and
// each port's name, protocol, port and app protocol (the API server fills
// the rest, such as the target port).
func specMatches(current, desired *corev1.ServiceSpec) bool {
	if current.Type != desired.Type || len(current.Selector) != 0 || len(current.Ports) != len(desired.Ports) {
		return false
	}
	for i, p := range desired.Ports {
		c := current.Ports[i]
		protocol := p.Protocol
		if protocol == "" {
			protocol = corev1.ProtocolTCP
		}
		if c.Name != p.Name || c.Protocol != protocol || c.Port != p.Port || !apiequality.Semantic.DeepEqual(c.AppProtocol, p.AppProtocol) {
			return false
		}
	}
	return true
}

// syncIngress writes status.loadBalancer.ingress: one entry per IP of the
// import.
func (r *Reconciler) syncIngress(ctx context.Context, key types.NamespacedName, ips []string, svc *corev1.Service) error {
	ingress := make([]corev1.LoadBalancerIngress, 0, len(ips))
	for _, ip := range ips {
		ingress = append(ingress, corev1.LoadBalancerIngress{IP: ip})
	}
	if len(ingress) == 0 && len(svc.Status.LoadBalancer.Ingress) == 0 {
		return nil
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current := &corev1.Service{}
		if err := r.client.Get(ctx, key, current); err != nil {
			return err
		}
		if apiequality.Semantic.DeepEqual(current.Status.LoadBalancer.Ingress, ingress) {
			return nil
		}
		current.Status.LoadBalancer.Ingress = ingress
		if err := r.client.Status().Update(ctx, current); err != nil {
			return fmt.Errorf("update status of derived service %s: %w", key, err)
		}
		return nil
	})
}
