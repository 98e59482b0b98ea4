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

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch"
	"github.com/propel-mc/propel/internal/shared/names"
)

// RBAC: marker Works name the providers whose EndpointSlices are collected.
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch

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
	return r.Collector.SetupWithManager(mgr, isMarker, r.reconcileMarker, r.reconcileKey)
}
