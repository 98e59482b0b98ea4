package remedy

import (
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	remedyv1alpha1 "github.com/propel-mc/propel/pkg/apis/remedy/v1alpha1"
)

// RBAC: Remedies are read; their actions go into Cluster status (patch).
// +kubebuilder:rbac:groups=remedy.karmada.io,resources=remedies,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters/status,verbs=patch

// Reconciler is the remedy controller; its requests are Clusters.
type Reconciler struct {
	client client.Client
}

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads from the manager's cache and writes to the control
	// plane.
	Client client.Client
}

// New returns the controller; SetupWithManager registers it.
func New(deps Deps) *Reconciler { return &Reconciler{client: deps.Client} }

// SetupWithManager registers the controller with mgr.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	return builder.ControllerManagedBy(mgr).Named(names.RemedyControllerName).
		For(&clusterv1alpha1.Cluster{}, builder.WithPredicates(clusterChanges())).
		Watches(&remedyv1alpha1.Remedy{}, r.remedyClusters()).
		Complete(r)
}
