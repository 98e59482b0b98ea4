package multiclusterservice

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/controllers/mcs/clusterset"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
)

// RBAC: a MultiClusterService gets its finalizer (patch) and status; its
// Service is claimed (update) and gets a ResourceBinding; marker Works are
// written and deleted.
// +kubebuilder:rbac:groups=networking.karmada.io,resources=multiclusterservices,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=networking.karmada.io,resources=multiclusterservices/status,verbs=update
// +kubebuilder:rbac:groups=core,resources=services,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings,verbs=get;list;watch;create;update
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch;create;update;delete

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads from the manager's cache and writes to the control
	// plane.
	Client client.Client
	// APIReader reads Works past the cache when writing them (workwriter).
	APIReader client.Reader
	// Recorder records the MultiClusterService's events (events.go).
	Recorder record.EventRecorder
}

// Reconciler keeps the marker Works, the claim and the binding of each
// MultiClusterService; its requests are MultiClusterServices.
type Reconciler struct {
	client   client.Client
	reader   client.Reader
	recorder record.EventRecorder
}

// New returns the controller; SetupWithManager registers it.
func New(deps Deps) *Reconciler {
	return &Reconciler{client: deps.Client, reader: deps.APIReader, recorder: deps.Recorder}
}

// SetupWithManager registers the controller with mgr: CrossCluster MCS
// changes, changes of the Service of the same name, and every Cluster
// event (for the MCSs that select the cluster).
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	return builder.ControllerManagedBy(mgr).Named(names.MultiClusterServiceControllerName).
		For(&networkingv1alpha1.MultiClusterService{}, builder.WithPredicates(crossClusterChanges())).
		Watches(&corev1.Service{}, handler.EnqueueRequestsFromMapFunc(r.mcsOfService), builder.WithPredicates(serviceChanges())).
		Watches(&clusterv1alpha1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.mcsSelecting), builder.WithPredicates(clusterset.FitnessChanged())).
		Complete(r)
}
