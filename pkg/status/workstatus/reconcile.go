package workstatus

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/boundedtext"
	"github.com/propel-mc/propel/pkg/membercluster"
	"github.com/propel-mc/propel/pkg/status/manifeststatus"
	"github.com/propel-mc/propel/pkg/workapply"
	"github.com/propel-mc/propel/pkg/workcluster"
)

// RBAC: the work-status controller is the one writer of Work status.
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch
// +kubebuilder:rbac:groups=work.karmada.io,resources=works/status,verbs=update

// Event reasons of the work-status controller (Karmada's strings).
const (
	// EventReasonReflectStatusSucceed is recorded on a Work when member
	// changes updated its manifest statuses.
	EventReasonReflectStatusSucceed = "ReflectStatusSucceed"
	// EventReasonReflectStatusFailed is recorded on a Work when the status
	// of a member object could not be reflected.
	EventReasonReflectStatusFailed = "ReflectStatusFailed"
	// EventReasonInterpretHealthFailed is recorded on a Work when the
	// health of a member object could not be interpreted.
	EventReasonInterpretHealthFailed = "InterpretHealthFailed"
)

// onMemberEvent re-queues the Work of any changed member object; the
// reconcile writes only if the reflected status changed.
func (r *Reconciler) onMemberEvent(ev membercluster.ObjectEvent) {
	if ev.Type == membercluster.ObjectUpdated && ev.Old != nil && ev.Old.GetResourceVersion() == ev.New.GetResourceVersion() {
		return // resync
	}
	r.memberEvents.Enqueue(ev)
}

// Reconcile brings one Work's status up to date in phases: take the
// execution controller's latest Outcome into the conditions, reflect the
// manifest statuses (from the applied objects, else the member cache),
// write once if anything changed.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	work := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, req.NamespacedName, work); err != nil {
		if apierrors.IsNotFound(err) {
			r.outcomes.done(req.NamespacedName, r.outcomes.get(req.NamespacedName))
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !work.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, nil
	}
	outcome := r.outcomes.get(req.NamespacedName)
	if outcome != nil && outcome.WorkUID != work.UID {
		r.outcomes.done(req.NamespacedName, outcome)
		outcome = nil
	}
	updated := work.DeepCopy()
	if outcome != nil {
		setConditions(updated, outcome)
	}
	reflectErr := r.reflect(ctx, updated, outcome)
	if err := r.write(ctx, work, updated, outcome == nil); err != nil {
		return reconcile.Result{}, err
	}
	if outcome != nil {
		r.outcomes.done(req.NamespacedName, outcome)
	}
	return reconcile.Result{}, reflectErr
}

// reflect refreshes work's manifest statuses when it is applied and its
// cluster is a Ready Push cluster. An error leaves them as they were; the
// conditions are written anyway and the reflection retried.
func (r *Reconciler) reflect(ctx context.Context, work *workv1alpha1.Work, outcome *workapply.Outcome) error {
	if r.opts.OutcomesOnly || !meta.IsStatusConditionTrue(work.Status.Conditions, workv1alpha1.WorkApplied) {
		return nil
	}
	set, err := r.memberInformers(ctx, work)
	if set == nil || err != nil {
		return err
	}
	statuses, err := r.collect(ctx, work, set, outcome)
	if err != nil {
		// An interpreter's text can be megabytes long; the error is logged.
		return fmt.Errorf("work %s/%s: cluster %s: %w", work.Namespace, work.Name, set.Cluster(), boundedtext.Error(err))
	}
	work.Status.ManifestStatuses = statuses
	return nil
}

// memberInformers returns the informer set to read from, or nil when the
// Work's cluster is gone, in Pull mode or not Ready (the last status
// stays).
func (r *Reconciler) memberInformers(ctx context.Context, work *workv1alpha1.Work) (*membercluster.ClusterInformers, error) {
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

// collect reflects every manifest: from the object the execution
// controller just applied (usually fresher than the cache), unless the
// synced member cache holds a newer version of it. Objects not cached yet keep their previous entry: the
// informer's add event brings the Work back.
func (r *Reconciler) collect(ctx context.Context, work *workv1alpha1.Work, set *membercluster.ClusterInformers, outcome *workapply.Outcome) ([]workv1alpha1.ManifestStatus, error) {
	refs, err := workapply.Refs(work)
	if err != nil {
		return nil, err
	}
	applied := map[int]*unstructured.Unstructured{}
	if outcome != nil {
		for _, m := range outcome.Manifests {
			if m.Object != nil {
				applied[m.Ref.Ordinal] = m.Object
			}
		}
	}
	fresh := make(map[int]workv1alpha1.ManifestStatus, len(refs))
	for _, ref := range refs {
		// Watch even when the applied object is at hand: later changes
		// arrive through the informer.
		if err := set.Watch(ref.GVK); err != nil {
			return nil, err
		}
		obj := applied[ref.Ordinal]
		if obj != nil && (obj.GroupVersionKind() != ref.GVK || obj.GetName() != ref.Name || obj.GetNamespace() != ref.Namespace) {
			obj = nil
		}
		cached, synced, err := set.Cached(ref.GVK, ref.Namespace, ref.Name)
		if err == nil && synced && cached != nil && newer(cached, obj) {
			obj = cached
		}
		if obj == nil {
			continue
		}
		res, err := manifeststatus.Reflect(ctx, r.interp, ref, obj)
		if err != nil {
			r.recorder.Event(work, corev1.EventTypeWarning, EventReasonReflectStatusFailed, boundedtext.String(err.Error()))
			return nil, err
		}
		if res.HealthErr != nil {
			r.recorder.Event(work, corev1.EventTypeWarning, EventReasonInterpretHealthFailed, boundedtext.String(res.HealthErr.Error()))
		}
		fresh[ref.Ordinal] = res.Status
	}
	return manifeststatus.Merge(work.Status.ManifestStatuses, refs, fresh), nil
}

// newer reports whether the cached member object is more recent than the
// applied one (or there is no applied one). A member event that arrives
// between the apply and the reconcile carrying its Outcome is folded into
// that reconcile by the work queue; reading the applied object then would
// write a status older than the cache's and nothing would bring the Work
// back. Resource versions of one resource compare as integers on every
// API server this talks to; an unparsable one keeps the applied object.
func newer(cached, applied *unstructured.Unstructured) bool {
	if applied == nil {
		return true
	}
	cmp, err := resourceversion.CompareResourceVersion(cached.GetResourceVersion(), applied.GetResourceVersion())
	return err == nil && cmp > 0
}

// write records updated when its status differs from work's. The update is
// conditional on the version read, so a stale reconcile cannot overwrite
// a newer status; a conflict is retried. A write of member changes alone
// (reflected) is announced with ReflectStatusSucceed.
func (r *Reconciler) write(ctx context.Context, work, updated *workv1alpha1.Work, reflected bool) error {
	statusesChanged := !manifeststatus.Equal(work.Status.ManifestStatuses, updated.Status.ManifestStatuses)
	if !statusesChanged && conditionsEqual(work.Status.Conditions, updated.Status.Conditions) {
		return nil
	}
	// An update conditional on the version read (as an optimistic-lock
	// patch would be): a patch makes the API server encode the stored
	// Work, manifests included, merge and decode the result.
	if err := r.client.Status().Update(ctx, updated); err != nil {
		return fmt.Errorf("work %s/%s: update status: %w", work.Namespace, work.Name, err)
	}
	log.FromContext(ctx).V(1).Info("work status updated", "manifests", len(updated.Status.ManifestStatuses))
	if reflected && statusesChanged {
		r.recorder.Event(work, corev1.EventTypeNormal, EventReasonReflectStatusSucceed, "Reflect status for object successfully.")
	}
	return nil
}
