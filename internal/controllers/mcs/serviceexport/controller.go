// Package serviceexport is Karmada's service-export-controller
// ("serviceExport"): once a ServiceExport is applied to a Push member
// cluster, it watches that member's ServiceExports and EndpointSlices and
// reports each EndpointSlice of an exported Service back to the control
// plane as a suspended Work (internal/controllers/mcs/collectedwork), and withdraws the
// Works when the slice or the export goes away.
package serviceexport

import (
	"time"

	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch"
	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// RBAC: exports are found through Works and their Clusters (the member's
// ServiceExports and EndpointSlices are read with the member's credentials).
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch

// Reconciler starts the member watches from applied ServiceExport Works
// and reconciles the member objects' keys.
type Reconciler struct {
	memberwatch.Collector
}

// Deps are the controller's collaborators.
type Deps = memberwatch.Deps

// New returns the controller; SetupWithManager registers it. syncTimeout
// bounds the wait for a member's informers to sync.
func New(deps Deps, syncTimeout time.Duration) *Reconciler {
	return &Reconciler{memberwatch.NewCollector(names.ServiceExportControllerName, deps, syncTimeout)}
}

// SetupWithManager registers two controllers with mgr: one over the
// dispatched Works of Push clusters that hold a ServiceExport, one over
// the member objects' keys. The second also receives, for each collected
// Work of the ServiceExport path in the initial list of Works, the key of
// its ServiceExport: an export deleted while Propel was down is then
// withdrawn at start-up.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	collected := source.TypedKind(mgr.GetCache(), &workv1alpha1.Work{}, exportKeysOfCollectedWorks(), onlyCreate[*workv1alpha1.Work]())
	return r.Collector.SetupWithManager(mgr, holdsExport, r.reconcileWork, r.reconcileKey, collected)
}
