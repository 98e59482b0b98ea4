package workstatus

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/pipeline/status/manifeststatus"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/workapply"
	"github.com/propel-mc/propel/internal/shared/workcluster"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
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
	// EventReasonInterpretHealthSucceed is recorded on a Work when a
	// written status carries a new interpreted health of a member object.
	EventReasonInterpretHealthSucceed = "InterpretHealthSucceed"
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
	key := req.NamespacedName
	work := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, key, work); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(key)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !work.DeletionTimestamp.IsZero() {
		r.forget(key)
		return reconcile.Result{}, nil
	}
	work = r.latest(key, work)
	outcome := r.outcomes.get(key)
	if outcome != nil && outcome.outcome.WorkUID != work.UID {
		r.outcomes.done(key, outcome)
		outcome = nil
	}
	updated := work.DeepCopy()
	if outcome != nil {
		setConditions(updated, &outcome.outcome)
	}
	refl, reflectErr := r.reflect(ctx, updated, outcome)
	written, err := r.write(ctx, work, updated, outcome == nil)
	if err != nil {
		return reconcile.Result{}, err
	}
	if refl != nil {
		if written {
			r.recordHealth(work, updated, refl)
		}
		r.observed.put(key, work.UID, refl.refs, refl.observed)
	}
	if outcome != nil {
		r.outcomes.done(key, outcome)
	}
	if reflectErr != nil || refl == nil {
		return reconcile.Result{}, reflectErr
	}
	if refl.unsynced {
		// An informer hands out its first events while it is still
		// listing, before it counts as synced: the event that brought
		// this reconcile will not come again, so read the cache again
		// once it has listed (backing off while it does not list).
		return reconcile.Result{RequeueAfter: r.unsynced.When(key)}, nil
	}
	r.unsynced.Forget(key)
	if r.opts.ResyncPeriod > 0 {
		return reconcile.Result{RequeueAfter: wait.Jitter(r.opts.ResyncPeriod, 0.1)}, nil
	}
	return reconcile.Result{}, nil
}

// latest returns the controller's own last status write over work when the
// cache still holds a version that write superseded. Deciding on the
// cached Work then would start from a status older than the one written:
// a Work the cache does not show Applied yet reflects nothing, and a
// reflection equal to the stale status writes nothing, so a member change
// arriving right after an outcome's write was dropped for good.
func (r *Reconciler) latest(key types.NamespacedName, work *workv1alpha1.Work) *workv1alpha1.Work {
	w, ok := r.written.Resolve(key, work.ResourceVersion)
	if !ok {
		return work
	}
	out := work.DeepCopy()
	out.ResourceVersion = w.resourceVersion
	w.status.DeepCopyInto(&out.Status)
	return out
}

// forget drops what the controller keeps of a Work that is gone.
func (r *Reconciler) forget(key types.NamespacedName) {
	r.outcomes.done(key, r.outcomes.get(key))
	r.unsynced.Forget(key)
	r.written.Forget(key)
	r.observed.forget(key)
}

// reflection is what one reflection of a Work's manifests found.
type reflection struct {
	refs []workapply.Ref
	// observed holds, per manifest ordinal, the member object state each
	// refreshed entry was reflected from.
	observed map[int]observation
	// unsynced says a member cache the Work needs has not listed yet.
	unsynced bool
	// healthInterpreted holds the manifests of the refreshed entries whose
	// health a layer interpreted.
	healthInterpreted []workapply.Ref
}

// reflect refreshes work's manifest statuses when it is applied and its
// cluster is a Ready Push cluster; it returns nil when it did not reflect.
// An error leaves them as they were; the conditions are written anyway
// and the reflection retried.
func (r *Reconciler) reflect(ctx context.Context, work *workv1alpha1.Work, outcome *heldOutcome) (*reflection, error) {
	if r.opts.OutcomesOnly || !meta.IsStatusConditionTrue(work.Status.Conditions, workv1alpha1.WorkApplied) {
		return nil, nil
	}
	set, err := r.memberInformers(ctx, work)
	if set == nil || err != nil {
		return nil, err
	}
	last := r.observed.get(types.NamespacedName{Namespace: work.Namespace, Name: work.Name}, work.UID)
	statuses, refl, err := r.collect(ctx, work, set, outcome, last)
	if err != nil {
		// An interpreter's text can be megabytes long; the error is logged.
		return nil, fmt.Errorf("work %s/%s: cluster %s: %w", work.Namespace, work.Name, set.Cluster(), boundedtext.Error(err))
	}
	work.Status.ManifestStatuses = statuses
	return refl, nil
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

// memberCache is what collect reads of a member (a
// membercluster.ClusterInformers).
type memberCache interface {
	Watch(gvk schema.GroupVersionKind) error
	Cached(gvk schema.GroupVersionKind, namespace, name string) (obj *unstructured.Unstructured, synced bool, err error)
}

// collect reflects every manifest from the later of the object the
// execution controller just applied and the member cache's copy, unless
// the entry written before came from a later state still (pick). Objects
// not cached yet keep their previous entry: the informer's add event
// brings the Work back, or, while the cache has not listed, the
// reconcile's retry.
func (r *Reconciler) collect(ctx context.Context, work *workv1alpha1.Work, set memberCache, outcome *heldOutcome, last map[int]observation) ([]workv1alpha1.ManifestStatus, *reflection, error) {
	refs, err := workapply.Refs(work)
	if err != nil {
		return nil, nil, err
	}
	var applied map[int]*unstructured.Unstructured
	if outcome != nil {
		applied = outcome.appliedObjects()
	}
	// What the entries were reflected from counts only for entries the
	// status still has (someone else may have rewritten it).
	written := make(map[workv1alpha1.ResourceIdentifier]bool, len(last))
	if len(last) > 0 {
		for _, s := range work.Status.ManifestStatuses {
			written[s.Identifier] = true
		}
	}
	refl := &reflection{refs: refs, observed: make(map[int]observation, len(refs))}
	fresh := make(map[int]workv1alpha1.ManifestStatus, len(refs))
	for _, ref := range refs {
		// Watch even when the applied object is at hand: later changes
		// arrive through the informer.
		if err := set.Watch(ref.GVK); err != nil {
			return nil, nil, err
		}
		obj := applied[ref.Ordinal]
		if obj != nil && (obj.GroupVersionKind() != ref.GVK || obj.GetName() != ref.Name || obj.GetNamespace() != ref.Namespace) {
			obj = nil
		}
		cached, synced, err := set.Cached(ref.GVK, ref.Namespace, ref.Name)
		if err != nil {
			// A cache entry that does not decode: the applied object (if
			// any) or the previous entry stands until the next event.
			cached = nil
		}
		refl.unsynced = refl.unsynced || !synced
		var prev *observation
		if ob, ok := last[ref.Ordinal]; ok && written[ref.Identifier()] {
			prev = &ob
		}
		if obj = pick(obj, cached, prev); obj == nil {
			continue
		}
		res, err := manifeststatus.Reflect(ctx, r.interp, ref, obj)
		if err != nil {
			r.recorder.Event(work, corev1.EventTypeWarning, EventReasonReflectStatusFailed, boundedtext.String(err.Error()))
			return nil, nil, err
		}
		if res.HealthErr != nil {
			r.recorder.Event(work, corev1.EventTypeWarning, EventReasonInterpretHealthFailed, boundedtext.String(res.HealthErr.Error()))
		}
		if res.HealthInterpreted {
			refl.healthInterpreted = append(refl.healthInterpreted, ref)
		}
		fresh[ref.Ordinal] = res.Status
		refl.observed[ref.Ordinal] = observationOf(obj)
	}
	return manifeststatus.Merge(work.Status.ManifestStatuses, refs, fresh), refl, nil
}

// write records updated when its status differs from work's and reports
// whether it did. The update is conditional on the version read, so a
// stale reconcile cannot overwrite a newer status; a conflict is retried.
// A write of member changes alone (reflected) is announced with
// ReflectStatusSucceed.
func (r *Reconciler) write(ctx context.Context, work, updated *workv1alpha1.Work, reflected bool) (bool, error) {
	statusesChanged := !manifeststatus.Equal(work.Status.ManifestStatuses, updated.Status.ManifestStatuses)
	if !statusesChanged && conditionsEqual(work.Status.Conditions, updated.Status.Conditions) {
		return false, nil
	}
	// An update conditional on the version read (as an optimistic-lock
	// patch would be): a patch makes the API server encode the stored
	// Work, manifests included, merge and decode the result.
	if err := r.client.Status().Update(ctx, updated); err != nil {
		return false, fmt.Errorf("work %s/%s: update status: %w", work.Namespace, work.Name, err)
	}
	r.written.Remember(types.NamespacedName{Namespace: work.Namespace, Name: work.Name}, work.ResourceVersion, updated.ResourceVersion,
		writtenStatus{resourceVersion: updated.ResourceVersion, status: *updated.Status.DeepCopy()})
	log.FromContext(ctx).V(1).Info("work status updated", "manifests", len(updated.Status.ManifestStatuses))
	if reflected && statusesChanged {
		r.recorder.Event(work, corev1.EventTypeNormal, EventReasonReflectStatusSucceed, "Reflect status for object successfully.")
	}
	return true, nil
}

// recordHealth records InterpretHealthSucceed on work for every entry of
// the written status (updated) whose health a layer interpreted and which
// is new or changed its health, as Karmada records it whenever it
// interprets one; an unchanged health is not announced again.
func (r *Reconciler) recordHealth(work, updated *workv1alpha1.Work, refl *reflection) {
	for _, ref := range refl.healthInterpreted {
		id := ref.Identifier()
		now, ok := healthOf(updated.Status.ManifestStatuses, id)
		if !ok {
			continue
		}
		if before, ok := healthOf(work.Status.ManifestStatuses, id); ok && before == now {
			continue
		}
		r.recorder.Event(work, corev1.EventTypeNormal, EventReasonInterpretHealthSucceed,
			fmt.Sprintf("Interpreted the health of object(%s/%s/%s) as %s.", ref.GVK.Kind, ref.Namespace, ref.Name, now))
	}
}

// healthOf is the health of the entry of id in statuses.
func healthOf(statuses []workv1alpha1.ManifestStatus, id workv1alpha1.ResourceIdentifier) (workv1alpha1.ResourceHealth, bool) {
	for _, s := range statuses {
		if s.Identifier == id {
			return s.Health, true
		}
	}
	return "", false
}
