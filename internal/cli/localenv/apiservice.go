package localenv

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

var apiServices = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// AggregatedAPI is an API group version served by a process on loopback
// through an API server's aggregation layer.
type AggregatedAPI struct {
	Group, Version string
	// Namespace and Service name the Service the APIService points at: an
	// ExternalName Service "localhost", which the aggregator dials directly.
	Namespace, Service string
	// Port is where the process serves HTTPS on 127.0.0.1.
	Port int
	// GroupPriorityMinimum and VersionPriority order the group in
	// discovery (default 100 each).
	GroupPriorityMinimum, VersionPriority int64
}

// RegisterAggregatedAPI creates the Service and the APIService for api
// with cfg, or points existing ones at api.Port (a restarted environment
// reuses etcd but picks new ports).
func RegisterAggregatedAPI(ctx context.Context, cfg *rest.Config, api AggregatedAPI) error {
	if api.GroupPriorityMinimum == 0 {
		api.GroupPriorityMinimum = 100
	}
	if api.VersionPriority == 0 {
		api.VersionPriority = 100
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := ensureNamespace(ctx, kube, api.Namespace); err != nil {
		return err
	}
	ports := []corev1.ServicePort{{Name: "https", Port: int32(api.Port), Protocol: corev1.ProtocolTCP}}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: api.Namespace, Name: api.Service},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost", Ports: ports},
	}
	services := kube.CoreV1().Services(api.Namespace)
	_, err = services.Create(ctx, svc, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		var current *corev1.Service
		if current, err = services.Get(ctx, api.Service, metav1.GetOptions{}); err == nil {
			current.Spec.Ports = ports
			_, err = services.Update(ctx, current, metav1.UpdateOptions{})
		}
	}
	if err != nil {
		return fmt.Errorf("service %s/%s for %s/%s: %w", api.Namespace, api.Service, api.Group, api.Version, err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	name := api.APIServiceName()
	apiService := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata":   map[string]interface{}{"name": name},
		"spec": map[string]interface{}{
			"group": api.Group, "version": api.Version,
			"service":               map[string]interface{}{"namespace": api.Namespace, "name": api.Service, "port": int64(api.Port)},
			"insecureSkipTLSVerify": true, "groupPriorityMinimum": api.GroupPriorityMinimum, "versionPriority": api.VersionPriority,
		},
	}}
	existing, err := dyn.Resource(apiServices).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = dyn.Resource(apiServices).Create(ctx, apiService, metav1.CreateOptions{})
	case err == nil:
		apiService.SetResourceVersion(existing.GetResourceVersion())
		_, err = dyn.Resource(apiServices).Update(ctx, apiService, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("register %s: %w", name, err)
	}
	return nil
}

// APIServiceName is the name of api's APIService ("<version>.<group>").
func (api AggregatedAPI) APIServiceName() string { return api.Version + "." + api.Group }

// APIServiceAvailable returns nil once the APIService name has the
// condition Available=True (the aggregator reached the server behind it),
// and otherwise an error naming the APIService and the condition's reason
// and message: until then requests to its group fail with "the server is
// currently unable to handle the request".
func APIServiceAvailable(ctx context.Context, dyn dynamic.Interface, name string) error {
	u, err := dyn.Resource(apiServices).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("read APIService %s: %w", name, err)
	}
	return apiServiceAvailable(u)
}

// apiServiceAvailable reads the Available condition of an APIService.
func apiServiceAvailable(u *unstructured.Unstructured) error {
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conditions {
		m, ok := c.(map[string]interface{})
		if !ok || m["type"] != "Available" {
			continue
		}
		if m["status"] == "True" {
			return nil
		}
		return fmt.Errorf("APIService %s is not Available: %v: %v", u.GetName(), m["reason"], m["message"])
	}
	return fmt.Errorf("APIService %s has no Available condition yet", u.GetName())
}
