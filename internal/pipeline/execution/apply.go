package execution

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	kjson "sigs.k8s.io/json"

	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/metrics"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workapply"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// operation is what applying a manifest did to its member object.
type operation string

const (
	opNone    operation = "none"
	opCreated operation = "created"
	opUpdated operation = "updated"
)

// applied is the outcome of one manifest.
type applied struct {
	ref workapply.Ref
	op  operation
	// object is the member object after the apply (nil on error).
	object *unstructured.Unstructured
	// template is the resource template events are recorded on.
	template *corev1.ObjectReference
	err      error
}

// applyAll applies every manifest of work to the member behind set.
func (r *Reconciler) applyAll(ctx context.Context, work *workv1alpha1.Work, set *membercluster.ClusterInformers) []applied {
	refs, err := r.refs.of(work)
	if err != nil {
		out := make([]applied, len(work.Spec.Workload.Manifests))
		for i := range out {
			out[i] = applied{ref: workapply.Ref{Ordinal: i}, err: err}
		}
		return out
	}
	out := make([]applied, 0, len(refs))
	for _, ref := range refs {
		out = append(out, r.applyManifest(ctx, work, set, ref))
	}
	return out
}

// applyManifest brings the member object of ref in line with its
// manifest. An object unchanged on both sides since Propel last wrote or
// verified it is left alone without decoding the manifest; otherwise the
// manifest is created or updated, retrying write conflicts with a fresh
// read of the member object.
func (r *Reconciler) applyManifest(ctx context.Context, work *workv1alpha1.Work, set *membercluster.ClusterInformers, ref workapply.Ref) applied {
	res := applied{ref: ref}
	if err := set.Watch(ref.GVK); err != nil {
		res.err = memberErr(err)
		return res
	}
	if obj := r.unchanged(set, work, ref); obj != nil {
		res.op, res.object = opNone, obj
		metrics.ResourceUpdated(nil, obj.GetAPIVersion(), obj.GetKind(), set.Cluster(), metrics.UpdateNone)
		return res
	}
	raw := work.Spec.Workload.Manifests[ref.Ordinal].Raw
	attempt := 0
	res.err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		desired, err := decodeManifest(raw)
		if err != nil {
			return fmt.Errorf("manifest %d: %w", ref.Ordinal, err)
		}
		res.template = templateRef(desired)
		ensureOwnershipMetadata(desired, work)
		attempt++
		res.op, res.object, err = r.createOrUpdate(ctx, work, set, desired, attempt > 1)
		return err
	})
	return res
}

// unchanged returns the cached member object of ref when its version
// record says that neither it nor the Work changed since Propel last
// wrote or verified it.
func (r *Reconciler) unchanged(set *membercluster.ClusterInformers, work *workv1alpha1.Work, ref workapply.Ref) *unstructured.Unstructured {
	key := objectKey{cluster: set.Cluster(), gvk: ref.GVK, namespace: ref.Namespace, name: ref.Name}
	if _, ok := r.records.get(key); !ok {
		return nil
	}
	obj, synced, err := set.Cached(ref.GVK, ref.Namespace, ref.Name)
	if err != nil || !synced || obj == nil || !r.recordedUpToDate(key, work, obj) {
		return nil
	}
	return obj
}

// recordedUpToDate reports whether the version record of key vouches for
// obj being up to date with work.
func (r *Reconciler) recordedUpToDate(key objectKey, work *workv1alpha1.Work, obj *unstructured.Unstructured) bool {
	rec, ok := r.records.get(key)
	return ok && rec.unchangedSince(work, obj)
}

// decodeManifest decodes a manifest in one pass, integers as int64 (as the
// API machinery does).
func decodeManifest(raw []byte) (*unstructured.Unstructured, error) {
	var m map[string]interface{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &m); err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{Object: m}
	if obj.GetKind() == "" || obj.GetAPIVersion() == "" || obj.GetName() == "" {
		return nil, fmt.Errorf("manifest without apiVersion, kind or name")
	}
	return obj, nil
}

// createOrUpdate applies desired. A member object missing from a synced
// cache is created; if it exists after all (it is not Propel's, so the
// cache skips it, or the cache lags) the update path decides, with the
// ownership rules. live forces a read from the member API server.
func (r *Reconciler) createOrUpdate(ctx context.Context, work *workv1alpha1.Work, set *membercluster.ClusterInformers, desired *unstructured.Unstructured, live bool) (operation, *unstructured.Unstructured, error) {
	observed, err := r.observe(ctx, set, desired, live)
	if err != nil {
		return opNone, nil, err
	}
	if observed == nil {
		created, err := r.create(ctx, work, set, desired)
		metrics.ResourceCreated(err, desired.GetAPIVersion(), desired.GetKind(), set.Cluster(), false)
		if !apierrors.IsAlreadyExists(err) {
			return opCreated, created, err
		}
		if observed, err = set.Live(ctx, desired.GroupVersionKind(), desired.GetNamespace(), desired.GetName()); err != nil {
			return opNone, nil, memberErr(err)
		}
	}
	op, updated, err := r.update(ctx, work, set, desired, observed)
	metrics.ResourceUpdated(err, desired.GetAPIVersion(), desired.GetKind(), set.Cluster(), updateResult(op, observed, updated))
	return op, updated, err
}

// updateResult is Karmada's operationResult of an update decision: none
// when no update was written, unchanged when the write left the
// resourceVersion as observed, updated otherwise.
func updateResult(op operation, observed, updated *unstructured.Unstructured) string {
	switch {
	case op != opUpdated || updated == nil:
		return metrics.UpdateNone
	case updated.GetResourceVersion() == observed.GetResourceVersion():
		return metrics.UpdateUnchanged
	}
	return metrics.UpdateUpdated
}

// observe returns the member object of desired, nil when it is absent:
// from the cache when the informer has synced, else (or when the object is
// known to exist unmanaged, which the cache leaves out) from the API
// server.
func (r *Reconciler) observe(ctx context.Context, set *membercluster.ClusterInformers, desired *unstructured.Unstructured, live bool) (*unstructured.Unstructured, error) {
	gvk, ns, name := desired.GroupVersionKind(), desired.GetNamespace(), desired.GetName()
	if !live && !r.records.isUnmanaged(keyOf(set.Cluster(), desired)) {
		obj, synced, err := set.Cached(gvk, ns, name)
		if err != nil || synced {
			return obj, err
		}
	}
	obj, err := set.Live(ctx, gvk, ns, name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return obj, memberErr(err)
}

func (r *Reconciler) create(ctx context.Context, work *workv1alpha1.Work, set *membercluster.ClusterInformers, desired *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	res, err := set.Resource(desired.GroupVersionKind(), desired.GetNamespace())
	if err != nil {
		return nil, memberErr(err)
	}
	unstructured.RemoveNestedField(desired.Object, "metadata", "resourceVersion")
	created, err := res.Create(ctx, desired, metav1.CreateOptions{})
	if err != nil {
		return nil, memberErr(err)
	}
	r.records.store(keyOf(set.Cluster(), created), work, created)
	return created, nil
}

// update writes desired over observed when Propel may (ownership rules)
// and must (the retained desired state differs from observed).
func (r *Reconciler) update(ctx context.Context, work *workv1alpha1.Work, set *membercluster.ClusterInformers, desired, observed *unstructured.Unstructured) (operation, *unstructured.Unstructured, error) {
	if err := checkOwnership(set.Cluster(), desired, observed); err != nil {
		r.records.markUnmanaged(keyOf(set.Cluster(), observed))
		return opNone, nil, err
	}
	desired, err := r.retain(ctx, desired, observed)
	if err != nil {
		return opNone, nil, err
	}
	key := keyOf(set.Cluster(), observed)
	if upToDate(desired, observed) {
		r.records.store(key, work, observed)
		return opNone, observed, nil
	}
	res, err := set.Resource(desired.GroupVersionKind(), desired.GetNamespace())
	if err != nil {
		return opNone, nil, memberErr(err)
	}
	updated, err := res.Update(ctx, desired, metav1.UpdateOptions{})
	if err != nil {
		return opNone, nil, memberErr(err)
	}
	r.records.store(key, work, updated)
	return opUpdated, updated, nil
}

// templateRef is the resource template a manifest came from, identified
// by the manifest's identity and resourcetemplate.karmada.io/uid; nil
// without the uid.
func templateRef(manifest *unstructured.Unstructured) *corev1.ObjectReference {
	uid := manifest.GetAnnotations()[names.ResourceTemplateUIDAnnotation]
	if uid == "" {
		return nil
	}
	return &corev1.ObjectReference{
		APIVersion: manifest.GetAPIVersion(), Kind: manifest.GetKind(),
		Namespace: manifest.GetNamespace(), Name: manifest.GetName(), UID: types.UID(uid),
	}
}
