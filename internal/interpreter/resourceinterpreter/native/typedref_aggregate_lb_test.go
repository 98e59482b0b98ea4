package native_test

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Unchanged since the typed implementation: production code serves as
// the reference (export_test.go).
var (
	dedupeServiceIngress = native.DedupeServiceIngress
	dedupeIngressIngress = native.DedupeIngressIngress
)

// aggregateService collects the load-balancer ingress points of every
// member, for LoadBalancer Services only. The status is replaced.
func aggregateService(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var svc corev1.Service
	if err := toTyped(obj, &svc); err != nil {
		return nil, err
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return obj, nil
	}
	var ingress []corev1.LoadBalancerIngress
	err := decodeEach(items, func(_ *workv1alpha2.AggregatedStatusItem, m *corev1.ServiceStatus) {
		ingress = append(ingress, m.LoadBalancer.Ingress...)
	})
	if err != nil {
		return nil, err
	}
	status := corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: dedupeServiceIngress(ingress)}}
	if equality.Semantic.DeepEqual(svc.Status, status) {
		return obj, nil
	}
	svc.Status = status
	return toUnstructured(&svc)
}

// aggregateIngress collects the load-balancer ingress points of every
// member. The status is replaced.
func aggregateIngress(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var ing networkingv1.Ingress
	if err := toTyped(obj, &ing); err != nil {
		return nil, err
	}
	var ingress []networkingv1.IngressLoadBalancerIngress
	err := decodeEach(items, func(_ *workv1alpha2.AggregatedStatusItem, m *networkingv1.IngressStatus) {
		ingress = append(ingress, m.LoadBalancer.Ingress...)
	})
	if err != nil {
		return nil, err
	}
	status := networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: dedupeIngressIngress(ingress)}}
	if equality.Semantic.DeepEqual(ing.Status, status) {
		return obj, nil
	}
	ing.Status = status
	return toUnstructured(&ing)
}
