// Package endpointslicecollect is Karmada's
// endpointslice-collect-controller ("endpointsliceCollect", behind the
// MultiClusterService gate): for each provider cluster that holds a
// MultiClusterService marker Work, it watches the member's EndpointSlices
// and reports those of the MCS's Service back as suspended Works
// (internal/controllers/mcs/collectedwork, MultiClusterService path), withdrawing them when
// the slices go.
package endpointslicecollect

import (
	"time"

	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workcluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// RBAC: marker Works name the providers whose EndpointSlices are collected.
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch

const memberObjectsControllerName = names.EndpointSliceCollectControllerName + "-member-objects"

// Reconciler starts the member watches from marker Works and reconciles
// the member slices' keys.
type Reconciler struct {
	memberwatch.Collector
}

// Deps are the controller's collaborators.
type Deps = memberwatch.Deps

// New returns the controller; SetupWithManager registers it. syncTimeout
// bounds the wait for a member's informers to sync.
func New(deps Deps, syncTimeout time.Duration) *Reconciler {
	return &Reconciler{memberwatch.NewCollector(names.EndpointSliceCollectControllerName, deps, syncTimeout)}
}

// SetupWithManager registers two controllers with mgr: one over the
// marker Works of Push clusters, one over the member slices' keys.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	err := builder.ControllerManagedBy(mgr).Named(names.EndpointSliceCollectControllerName).
		For(&workv1alpha1.Work{}, builder.WithPredicates(markerWorks(), workcluster.PushPredicate(r.Client))).
		Watches(&clusterv1alpha1.Cluster{}, workcluster.EnqueueWorksOnReadiness(r.Client)).
		Complete(reconcile.Func(r.reconcileMarker))
	if err != nil {
		return err
	}
	return builder.TypedControllerManagedBy[memberwatch.Key](mgr).Named(memberObjectsControllerName).
		WatchesRawSource(r.Watcher.Source()).
		Complete(reconcile.TypedFunc[memberwatch.Key](r.reconcileKey))
}
