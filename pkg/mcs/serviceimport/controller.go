// Package serviceimport is Karmada's service-import-controller
// ("serviceImport"): for each ClusterSetIP ServiceImport it keeps the
// selector-less Service derived-<name> in the same namespace, whose
// endpoints are the imported EndpointSlices; the ServiceImport's
// dependencies then propagate both to the consumer clusters.
package serviceimport

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcsv1alpha1 "github.com/propel-mc/propel/pkg/apis/multicluster/v1alpha1"
	"github.com/propel-mc/propel/pkg/boundedtext"
	"github.com/propel-mc/propel/pkg/controllermanager/recorder"
	"github.com/propel-mc/propel/pkg/names"
)

// RBAC: a ServiceImport gets its derived Service derived-<name> (created,
// updated, deleted; its load-balancer status copied from the source).
// +kubebuilder:rbac:groups=multicluster.x-k8s.io,resources=serviceimports,verbs=get;list;watch
// +kubebuilder:rbac:groups=core,resources=services,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=core,resources=services/status,verbs=update

// Event reasons (Karmada's), on the ServiceImport.
const (
	EventReasonSyncDerivedServiceSucceed = "SyncDerivedServiceSucceed"
	EventReasonSyncDerivedServiceFailed  = "SyncDerivedServiceFailed"
)

// Reconciler keeps derived Services; its requests are ServiceImports.
type Reconciler struct {
	client   client.Client
	recorder record.EventRecorder
}

// New returns the controller; SetupWithManager wires it.
func New() *Reconciler { return &Reconciler{} }

// SetupWithManager registers the controller with mgr for every
// ServiceImport event.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	r.client = mgr.GetClient()
	r.recorder = recorder.For(mgr, names.ServiceImportControllerName)
	return builder.ControllerManagedBy(mgr).Named(names.ServiceImportControllerName).
		For(&mcsv1alpha1.ServiceImport{}).
		Complete(r)
}

// Reconcile writes the derived Service of a ClusterSetIP import, or
// deletes it when the import is gone. A terminating or Headless import
// leaves an existing derived Service alone (as Karmada does).
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	imp := &mcsv1alpha1.ServiceImport{}
	if err := r.client.Get(ctx, req.NamespacedName, imp); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, r.deleteDerived(ctx, req.Namespace, req.Name)
		}
		return reconcile.Result{}, err
	}
	if !imp.DeletionTimestamp.IsZero() || imp.Spec.Type != mcsv1alpha1.ClusterSetIP {
		return reconcile.Result{}, nil
	}
	if err := r.sync(ctx, imp); err != nil {
		r.recorder.Eventf(imp, corev1.EventTypeWarning, EventReasonSyncDerivedServiceFailed, "Sync derived service for serviceImport(%s) failed: %v", imp.Name, boundedtext.Error(err))
		return reconcile.Result{}, err
	}
	r.recorder.Eventf(imp, corev1.EventTypeNormal, EventReasonSyncDerivedServiceSucceed, "Sync derived service for serviceImport(%s) succeed.", imp.Name)
	return reconcile.Result{}, nil
}

func (r *Reconciler) deleteDerived(ctx context.Context, namespace, name string) error {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: names.DerivedServiceName(name)}}
	if err := r.client.Delete(ctx, svc); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("delete derived service %s/%s: %w", namespace, svc.Name, err)
	}
	return nil
}

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
