package rebalancer

import (
	"time"

	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/shared/eventfilter"
	"github.com/propel-mc/propel/internal/shared/names"
	appsv1alpha1 "github.com/propel-mc/propel/pkg/apis/apps/v1alpha1"
)

// RBAC: WorkloadRebalancers: status written, deleted after their TTL; the
// bindings they name get rescheduleTriggeredAt (patch).
// +kubebuilder:rbac:groups=apps.karmada.io,resources=workloadrebalancers,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=apps.karmada.io,resources=workloadrebalancers/status,verbs=patch
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings;clusterresourcebindings,verbs=get;list;watch;patch

// Reconciler is the workload-rebalancer controller.
type Reconciler struct {
	client client.Client
	// now is the clock (tests replace it).
	now func() time.Time
}

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads from the manager's cache and writes to the control
	// plane.
	Client client.Client
}

// New returns the controller; SetupWithManager registers it.
func New(deps Deps) *Reconciler { return &Reconciler{client: deps.Client, now: time.Now} }

// SetupWithManager registers the controller with mgr: it handles
// creations and spec (generation) changes of WorkloadRebalancers; status
// updates and deletions are ignored, as in Karmada.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	return builder.ControllerManagedBy(mgr).Named(names.WorkloadRebalancerControllerName).
		For(&appsv1alpha1.WorkloadRebalancer{}, builder.WithPredicates(eventfilter.UpdatesOf(func(o, n *appsv1alpha1.WorkloadRebalancer) bool {
			return o.Generation != n.Generation
		}, eventfilter.Creates))).
		Complete(r)
}
