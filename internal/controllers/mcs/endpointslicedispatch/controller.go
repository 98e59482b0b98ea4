// Package endpointslicedispatch is Karmada's
// endpointslice-dispatch-controller ("endpointsliceDispatch", behind the
// MultiClusterService gate): it copies each EndpointSlice collected from a
// provider cluster into a Work of every consumer cluster, as the slice
// <provider>-<slice> of the Service the MultiClusterService names, and
// records the outcome in the EndpointSliceDispatched condition.
package endpointslicedispatch

import (
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/controllers/mcs/clusterset"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// RBAC: collected slices are dispatched to consumers' Works (created,
// updated, deleted).
// +kubebuilder:rbac:groups=networking.karmada.io,resources=multiclusterservices,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch;create;update;delete

// Reconciler dispatches collected slices; its requests are provider slice
// Works.
type Reconciler struct {
	client   client.Client
	reader   client.Reader
	recorder record.EventRecorder
}

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

// New returns the controller; SetupWithManager registers it.
func New(deps Deps) *Reconciler {
	return &Reconciler{client: deps.Client, reader: deps.APIReader, recorder: deps.Recorder}
}

// SetupWithManager registers the controller with mgr: provider slice
// Works, and the provider slice Works of an MCS that changes or whose
// consumer cluster changes.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	return builder.ControllerManagedBy(mgr).Named(names.EndpointSliceDispatchControllerName).
		For(&workv1alpha1.Work{}, builder.WithPredicates(providerSliceWorks())).
		Watches(&networkingv1alpha1.MultiClusterService{}, handler.EnqueueRequestsFromMapFunc(r.worksOfMCS)).
		Watches(&clusterv1alpha1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.worksOfConsumer), builder.WithPredicates(clusterset.FitnessChanged())).
		Complete(r)
}
