package binding

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/index"
	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// RBAC: orphaned Works are listed (also uncached) and deleted; the binding
// gets its finalizer removed (patch).
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings;clusterresourcebindings,verbs=get;list;watch;patch

// cachedWorks lists the binding's Works from the cache index on its
// permanent id, in every namespace. The Works are shared with the cache.
func (r *reconciler) cachedWorks(ctx context.Context, b *binding) ([]*workv1alpha1.Work, error) {
	var list workv1alpha1.WorkList
	err := r.Client.List(ctx, &list, index.WorksOf(b.obj), client.UnsafeDisableDeepCopy)
	if err != nil {
		return nil, fmt.Errorf("%s: list Works: %w", b, err)
	}
	return workPointers(list.Items), nil
}

// liveWorks lists the binding's Works from the API server, so that a Work
// created moments ago is not missed when the binding goes away.
func (r *reconciler) liveWorks(ctx context.Context, b *binding) ([]*workv1alpha1.Work, error) {
	var list workv1alpha1.WorkList
	if err := r.APIReader.List(ctx, &list, client.MatchingLabels{b.obj.PermanentIDLabel(): b.id()}); err != nil {
		return nil, fmt.Errorf("%s: list Works: %w", b, err)
	}
	return workPointers(list.Items), nil
}

func workPointers(items []workv1alpha1.Work) []*workv1alpha1.Work {
	out := make([]*workv1alpha1.Work, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// removeOrphans deletes the binding's Works in clusters that are no longer
// expected (neither targets nor gracefully evicted sources).
func (r *reconciler) removeOrphans(ctx context.Context, b *binding, works []*workv1alpha1.Work) error {
	expected := b.expectedClusters()
	var errs []error
	for _, w := range works {
		cluster, err := names.ClusterOfExecutionSpace(w.Namespace)
		if err != nil {
			log.FromContext(ctx).Info("ignoring a Work outside execution spaces", "work", client.ObjectKeyFromObject(w))
			continue
		}
		if expected[cluster] {
			continue
		}
		if err := r.deleteWork(ctx, w); err != nil {
			errs = append(errs, fmt.Errorf("%s: delete Work %s/%s of cluster %s: %w", b, w.Namespace, w.Name, cluster, err))
		}
	}
	if err := kerrors.NewAggregate(errs); err != nil {
		r.Recorder.Event(b.obj, corev1.EventTypeWarning, EventReasonCleanupWorkFailed, boundedtext.String(err.Error()))
		return err
	}
	return nil
}

// deleteWork deletes w unless it is already being deleted.
func (r *reconciler) deleteWork(ctx context.Context, w *workv1alpha1.Work) error {
	if !w.DeletionTimestamp.IsZero() {
		return nil
	}
	log.FromContext(ctx).V(1).Info("deleting Work", "work", client.ObjectKeyFromObject(w))
	return client.IgnoreNotFound(r.Client.Delete(ctx, w))
}

// waitingForDirectPurge reports whether a Work still exists in a cluster
// the binding is evicted from with purge mode Directly.
func waitingForDirectPurge(b *binding, works []*workv1alpha1.Work) bool {
	purged := b.directlyPurged()
	if len(purged) == 0 {
		return false
	}
	for _, w := range works {
		if cluster, err := names.ClusterOfExecutionSpace(w.Namespace); err == nil && purged[cluster] {
			return true
		}
	}
	return false
}

// finalize deletes every Work of a binding being deleted, then releases
// the binding's finalizer.
func (r *reconciler) finalize(ctx context.Context, b *binding) error {
	if !controllerutil.ContainsFinalizer(b.obj, b.kind.finalizer) {
		return nil
	}
	if b.id() != "" {
		works, err := r.liveWorks(ctx, b)
		if err != nil {
			return err
		}
		var errs []error
		for _, w := range works {
			if err := r.deleteWork(ctx, w); err != nil {
				errs = append(errs, fmt.Errorf("%s: delete Work %s/%s: %w", b, w.Namespace, w.Name, err))
			}
		}
		if err := kerrors.NewAggregate(errs); err != nil {
			return err
		}
	}
	return r.patchFinalizer(ctx, b, false)
}

// ensureFinalizer adds the binding's finalizer if it is missing (the
// detector normally sets it), so that its Works are cleaned up.
func (r *reconciler) ensureFinalizer(ctx context.Context, b *binding) error {
	if controllerutil.ContainsFinalizer(b.obj, b.kind.finalizer) {
		return nil
	}
	return r.patchFinalizer(ctx, b, true)
}

// patchFinalizer adds or removes the binding finalizer with a merge patch
// guarded by the resourceVersion.
func (r *reconciler) patchFinalizer(ctx context.Context, b *binding, add bool) error {
	orig := b.obj.DeepCopyObject().(client.Object)
	changed := controllerutil.RemoveFinalizer(b.obj, b.kind.finalizer)
	if add {
		changed = controllerutil.AddFinalizer(b.obj, b.kind.finalizer)
	}
	if !changed {
		return nil
	}
	err := r.Client.Patch(ctx, b.obj, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
	if add {
		return wrapFinalizerErr(b, "add", err)
	}
	return client.IgnoreNotFound(wrapFinalizerErr(b, "remove", err))
}

func wrapFinalizerErr(b *binding, verb string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %s finalizer %s: %w", b, verb, b.kind.finalizer, err)
}
