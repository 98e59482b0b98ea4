// Package serviceimport is Karmada's service-import-controller
// ("serviceImport"): for each ClusterSetIP ServiceImport it keeps the
// selector-less Service derived-<name> in the same namespace, whose
// endpoints are the imported EndpointSlices; the ServiceImport's
// dependencies then propagate both to the consumer clusters.
package serviceimport

import (
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/shared/names"
	mcsv1alpha1 "github.com/propel-mc/propel/pkg/apis/multicluster/v1alpha1"
)

// RBAC: a ServiceImport gets its derived Service derived-<name> (created,
// updated, deleted; its load-balancer status copied from the source).
// +kubebuilder:rbac:groups=multicluster.x-k8s.io,resources=serviceimports,verbs=get;list;watch
// +kubebuilder:rbac:groups=core,resources=services,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=core,resources=services/status,verbs=update

// Reconciler keeps derived Services; its requests are ServiceImports.
type Reconciler struct {
	client   client.Client
	recorder record.EventRecorder
}

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads from the manager's cache and writes to the control
	// plane.
	Client client.Client
	// Recorder records the ServiceImport's events (events.go).
	Recorder record.EventRecorder
}

// New returns the controller; SetupWithManager registers it.
func New(deps Deps) *Reconciler { return &Reconciler{client: deps.Client, recorder: deps.Recorder} }

// SetupWithManager registers the controller with mgr for every
// ServiceImport event.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	return builder.ControllerManagedBy(mgr).Named(names.ServiceImportControllerName).
		For(&mcsv1alpha1.ServiceImport{}).
		Complete(r)
}
