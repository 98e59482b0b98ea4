package localenv

import (
	"context"
	"fmt"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// IdentityOptions sets up the identity Propel runs as on the control plane
// instead of the admin: Objects (its ServiceAccount, roles and bindings)
// are applied, and a client certificate is issued for User with no group,
// so the API server grants it exactly what the objects bind to User.
type IdentityOptions struct {
	// User is the user name, e.g. a ServiceAccount's
	// system:serviceaccount:<namespace>:<name>: RBAC matches a
	// ServiceAccount subject by that name.
	User    string
	Objects []*unstructured.Unstructured
}

// Identity is a non-admin user of the control plane.
type Identity struct {
	User string
	// Kubeconfig is a file with the user's client certificate.
	Kubeconfig string
	Config     *rest.Config
}

// NewIdentity issues a client certificate for user (in no group) and
// writes its kubeconfig as <dir>/<name>.kubeconfig.
func (s *APIServer) NewIdentity(pki *PKI, dir, name, user string) (*Identity, error) {
	cert, err := pki.IssueClient(s.Name+"-"+name, user)
	if err != nil {
		return nil, err
	}
	id := &Identity{
		User:       user,
		Kubeconfig: filepath.Join(dir, s.Name+"-"+name+".kubeconfig"),
		Config: &rest.Config{
			Host:            s.URL,
			TLSClientConfig: rest.TLSClientConfig{CAData: s.CAPEM, CertData: cert.CertPEM, KeyData: cert.KeyPEM},
			QPS:             s.Config.QPS,
			Burst:           s.Config.Burst,
		},
	}
	if err := writeKubeconfig(id.Kubeconfig, s.Name, s.URL, s.CAPEM, cert); err != nil {
		return nil, err
	}
	return id, nil
}

// ApplyObjects creates objs with cfg's credentials, or updates those that
// exist; the namespace of a namespaced object is created when missing.
func ApplyObjects(ctx context.Context, cfg *rest.Config, objs []*unstructured.Unstructured) error {
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("apply %s %s: %w", gvk.Kind, obj.GetName(), err)
		}
		res := dynamic.ResourceInterface(dyn.Resource(m.Resource))
		if ns := obj.GetNamespace(); ns != "" {
			if err := ensureNamespace(ctx, kube, ns); err != nil {
				return err
			}
			res = dyn.Resource(m.Resource).Namespace(ns)
		}
		_, err = res.Create(ctx, obj, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			var existing *unstructured.Unstructured
			if existing, err = res.Get(ctx, obj.GetName(), metav1.GetOptions{}); err == nil {
				update := obj.DeepCopy()
				update.SetResourceVersion(existing.GetResourceVersion())
				_, err = res.Update(ctx, update, metav1.UpdateOptions{})
			}
		}
		if err != nil {
			return fmt.Errorf("apply %s %s/%s: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
		}
	}
	return nil
}

func ensureNamespace(ctx context.Context, kube kubernetes.Interface, name string) error {
	_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", name, err)
	}
	return nil
}
