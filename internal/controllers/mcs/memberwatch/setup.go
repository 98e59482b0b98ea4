package memberwatch

import (
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/propel-mc/propel/internal/shared/workcluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// SetupWithManager registers the collector's two controllers with mgr:
// one named after the collector's owner over the Works of Push clusters
// that starts passes (and those of a Cluster whose readiness changes),
// handled by onWork, which starts the member watches; and one named
// "<owner>-member-objects" over the member objects' keys, from the
// watches and from more, handled by onKey.
func (c Collector) SetupWithManager(mgr manager.Manager, starts func(*workv1alpha1.Work) bool, onWork reconcile.Func, onKey reconcile.TypedFunc[Key], more ...source.TypedSource[Key]) error {
	startWorks := predicate.NewPredicateFuncs(func(obj client.Object) bool {
		w, ok := obj.(*workv1alpha1.Work)
		return ok && starts(w)
	})
	err := builder.ControllerManagedBy(mgr).Named(c.Watcher.Owner).
		For(&workv1alpha1.Work{}, builder.WithPredicates(startWorks, workcluster.PushPredicate(c.Client))).
		Watches(&clusterv1alpha1.Cluster{}, workcluster.EnqueueWorksOnReadiness(c.Client)).
		Complete(onWork)
	if err != nil {
		return err
	}
	keys := builder.TypedControllerManagedBy[Key](mgr).Named(c.Watcher.Owner + "-member-objects").
		WatchesRawSource(c.Watcher.Source())
	for _, src := range more {
		keys = keys.WatchesRawSource(src)
	}
	return keys.Complete(onKey)
}
