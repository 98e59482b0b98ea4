package workstatus

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/boundedtext"
	"github.com/propel-mc/propel/pkg/membercluster"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/status/manifeststatus"
	"github.com/propel-mc/propel/pkg/workcluster"
)

// onMemberEvent re-queues the Work of any changed member object; the
// reconcile writes only if the reflected status changed.
func (r *Reconciler) onMemberEvent(ev membercluster.ObjectEvent) {
	if ev.Type == membercluster.ObjectUpdated && ev.Old != nil && ev.Old.GetResourceVersion() == ev.New.GetResourceVersion() {
		return // resync
	}
	r.events.Enqueue(ev)
}

// Reconcile refreshes the manifest statuses of one Work in phases: gate
// (live, applied, cluster Ready), collect from the member cache, write if
// changed.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	work := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, req.NamespacedName, work); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	set, err := r.memberInformers(ctx, work)
	if set == nil || err != nil {
		return reconcile.Result{}, err
	}
	statuses, err := r.collect(ctx, work, set)
	if err != nil {
		// An interpreter's text can be megabytes long; the error is logged.
		return reconcile.Result{}, fmt.Errorf("work %s/%s: cluster %s: %w", work.Namespace, work.Name, set.Cluster(), boundedtext.Error(err))
	}
	return reconcile.Result{}, r.write(ctx, work, statuses)
}

// memberInformers returns the informer set to read from, or nil when the
// Work is not to be reflected now: it is being deleted or not applied, or
// its cluster is gone, in Pull mode or not Ready (the last status stays).
func (r *Reconciler) memberInformers(ctx context.Context, work *workv1alpha1.Work) (*membercluster.ClusterInformers, error) {
	if !work.DeletionTimestamp.IsZero() || !applied(work) {
		return nil, nil
	}
	cluster, err := workcluster.Get(ctx, r.client, work.Namespace)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("work %s/%s: %w", work.Namespace, work.Name, err)
	}
	if !workcluster.IsPush(cluster) || !workcluster.IsReady(cluster) {
		return nil, nil
	}
	m, err := r.clients.ForCluster(ctx, cluster)
	if err != nil {
		return nil, fmt.Errorf("work %s/%s: clients of cluster %s: %w", work.Namespace, work.Name, cluster.Name, err)
	}
	return r.informers.For(m), nil
}

// collect reflects every manifest whose member object is in the synced
// cache. Objects not cached yet keep their previous entry: the informer's
// add event brings the Work back.
func (r *Reconciler) collect(ctx context.Context, work *workv1alpha1.Work, set *membercluster.ClusterInformers) ([]workv1alpha1.ManifestStatus, error) {
	refs, err := manifeststatus.Refs(work)
	if err != nil {
		return nil, err
	}
	fresh := make(map[int]workv1alpha1.ManifestStatus, len(refs))
	for _, ref := range refs {
		if err := set.Watch(ref.GVK); err != nil {
			return nil, err
		}
		obj, synced, err := set.Cached(ref.GVK, ref.Namespace, ref.Name)
		if err != nil || !synced || obj == nil {
			continue
		}
		res, err := manifeststatus.Reflect(ctx, r.interp, ref, obj)
		if err != nil {
			r.recorder.Event(work, corev1.EventTypeWarning, names.EventReasonReflectStatusFailed, boundedtext.String(err.Error()))
			return nil, err
		}
		if res.HealthErr != nil {
			r.recorder.Event(work, corev1.EventTypeWarning, names.EventReasonInterpretHealthFailed, boundedtext.String(res.HealthErr.Error()))
		}
		fresh[ref.Ordinal] = res.Status
	}
	return manifeststatus.Merge(work.Status.ManifestStatuses, refs, fresh), nil
}

// write records statuses when they differ from the Work's. The update is
// conditional on the version read, so a stale reconcile cannot overwrite
// a newer status; a conflict is retried.
func (r *Reconciler) write(ctx context.Context, work *workv1alpha1.Work, statuses []workv1alpha1.ManifestStatus) error {
	if manifeststatus.Equal(work.Status.ManifestStatuses, statuses) {
		return nil
	}
	updated := work.DeepCopy()
	updated.Status.ManifestStatuses = statuses
	// An update conditional on the version read (as the optimistic-lock
	// patch it replaces was): a patch makes the API server encode the
	// stored Work, manifests included, merge and decode the result.
	if err := r.client.Status().Update(ctx, updated); err != nil {
		return fmt.Errorf("work %s/%s: update manifest statuses: %w", work.Namespace, work.Name, err)
	}
	log.FromContext(ctx).V(1).Info("manifest statuses updated", "manifests", len(statuses))
	r.recorder.Event(work, corev1.EventTypeNormal, names.EventReasonReflectStatusSucceed, "Reflect status for object successfully.")
	return nil
}
