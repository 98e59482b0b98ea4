package execution

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/metrics"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workapply"
	"github.com/propel-mc/propel/internal/shared/workcluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// RBAC: the execution controller removes its finalizer from Works (patch);
// member objects are written with the member's own credentials.
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch;patch

// finalize cleans up the member objects of a deleted Work and then
// releases it by removing the execution finalizer. Any failure keeps the
// finalizer: the Work stays until its objects are really gone.
func (r *Reconciler) finalize(ctx context.Context, work *workv1alpha1.Work, cluster *clusterv1alpha1.Cluster) error {
	if !controllerutil.ContainsFinalizer(work, names.ExecutionControllerFinalizer) {
		return nil
	}
	if err := r.cleanup(ctx, work, cluster); err != nil {
		return fmt.Errorf("work %s/%s: clean up in cluster %s: %w", work.Namespace, work.Name, cluster.Name, err)
	}
	return r.removeFinalizer(ctx, work)
}

// cleanup strips Propel's metadata from the member objects when the Work
// preserves them, deletes them when the cluster is Ready, waits while a
// live cluster is not Ready, and gives up on a terminating, unready one.
func (r *Reconciler) cleanup(ctx context.Context, work *workv1alpha1.Work, cluster *clusterv1alpha1.Cluster) error {
	switch {
	case work.Spec.PreserveResourcesOnDeletion != nil && *work.Spec.PreserveResourcesOnDeletion:
		return r.forEachObject(ctx, work, cluster, r.release)
	case workcluster.IsReady(cluster):
		return r.forEachObject(ctx, work, cluster, r.remove)
	case cluster.DeletionTimestamp.IsZero():
		return fmt.Errorf("cluster(%s) %w", cluster.Name, errClusterNotReady)
	default:
		log.FromContext(ctx).Info("cluster is terminating and not ready, leaving member objects")
		return nil
	}
}

type objectFunc func(ctx context.Context, set *membercluster.ClusterInformers, work *workv1alpha1.Work, ref workapply.Ref) error

func (r *Reconciler) forEachObject(ctx context.Context, work *workv1alpha1.Work, cluster *clusterv1alpha1.Cluster, fn objectFunc) error {
	refs, err := workapply.Refs(work)
	if err != nil {
		return err
	}
	set, err := r.memberInformers(ctx, cluster)
	if err != nil {
		return err
	}
	var errs []error
	for _, ref := range refs {
		if err := fn(ctx, set, work, ref); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ref, err))
			continue
		}
		r.records.forget(objectKey{cluster: cluster.Name, gvk: ref.GVK, namespace: ref.Namespace, name: ref.Name})
	}
	return errors.Join(errs...)
}

// liveManaged reads the member object of ref from the API server (never
// from a possibly cold cache); nil when it is absent or not Propel's.
func liveManaged(ctx context.Context, set *membercluster.ClusterInformers, work *workv1alpha1.Work, ref workapply.Ref) (*unstructured.Unstructured, error) {
	obj, err := set.Live(ctx, ref.GVK, ref.Namespace, ref.Name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if meta.IsNoMatchError(err) {
		// The member does not serve the kind, so it holds no such object
		// (a Work that was never applied, such as a suspended marker):
		// nothing to clean, and nothing is lost by leaving.
		log.FromContext(ctx).Info("member does not serve the kind, nothing to clean", "object", ref.String())
		return nil, nil
	}
	if err != nil {
		return nil, memberErr(err)
	}
	logger := log.FromContext(ctx).WithValues("object", ref.String())
	if obj.GetLabels()[names.ManagedLabel] != names.TrueValue {
		logger.Info("member object is not managed by Karmada, leaving it")
		return nil, nil
	}
	if owner, ok := membercluster.OwningWork(obj); ok && owner != (types.NamespacedName{Namespace: work.Namespace, Name: work.Name}) {
		logger.Info("member object belongs to another Work, leaving it", "owner", owner.String())
		return nil, nil
	}
	return obj, nil
}

// remove deletes the member object of ref (background propagation, so a
// Job's pods go too), only if it is the very object Propel manages.
func (r *Reconciler) remove(ctx context.Context, set *membercluster.ClusterInformers, work *workv1alpha1.Work, ref workapply.Ref) error {
	obj, err := liveManaged(ctx, set, work, ref)
	if obj == nil || err != nil {
		return err
	}
	res, err := set.Resource(ref.GVK, ref.Namespace)
	if err != nil {
		return memberErr(err)
	}
	background, uid := metav1.DeletePropagationBackground, obj.GetUID()
	err = res.Delete(ctx, ref.Name, metav1.DeleteOptions{PropagationPolicy: &background, Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) {
		err = nil
	}
	metrics.ResourceDeleted(err, obj.GetAPIVersion(), obj.GetKind(), set.Cluster())
	if err != nil {
		return memberErr(err)
	}
	log.FromContext(ctx).Info("deleted member object", "object", ref.String())
	return nil
}

// release strips Propel's metadata from the member object of ref, which
// then lives on unmanaged (preserveResourcesOnDeletion).
func (r *Reconciler) release(ctx context.Context, set *membercluster.ClusterInformers, work *workv1alpha1.Work, ref workapply.Ref) error {
	obj, err := liveManaged(ctx, set, work, ref)
	if obj == nil || err != nil {
		return err
	}
	obj = obj.DeepCopy()
	if !stripPropelMetadata(obj, ref.Namespace != "") {
		return nil
	}
	res, err := set.Resource(ref.GVK, ref.Namespace)
	if err != nil {
		return memberErr(err)
	}
	released, err := res.Update(ctx, obj, metav1.UpdateOptions{})
	metrics.ResourceUpdated(err, obj.GetAPIVersion(), obj.GetKind(), set.Cluster(), updateResult(opUpdated, obj, released))
	if err != nil {
		return memberErr(err)
	}
	log.FromContext(ctx).Info("released member object", "object", ref.String())
	return nil
}

// Keys removed from an object released on Work deletion.
var (
	releasedLabels = []string{
		names.ResourceBindingPermanentIDLabel, names.WorkPermanentIDLabel, names.ManagedLabel,
	}
	releasedAnnotations = []string{
		names.ManagedAnnotationsAnnotation, names.ManagedLabelsAnnotation,
		names.ResourceBindingNamespaceAnnotation, names.ResourceBindingNameAnnotation,
		names.ResourceTemplateUIDAnnotation, names.ResourceTemplateGenerationAnnotation,
		names.WorkNameAnnotation, names.WorkNamespaceAnnotation,
	}
)

// stripPropelMetadata removes the claim of the policy kind that can claim
// the object (PropagationPolicy for namespaced objects, else
// ClusterPropagationPolicy) and Propel's labels and annotations. It
// reports whether anything was removed.
func stripPropelMetadata(obj *unstructured.Unstructured, namespaced bool) bool {
	changed := policyindex.RemoveClaim(obj, !namespaced)
	l, a := obj.GetLabels(), obj.GetAnnotations()
	changed = deleteKeys(l, releasedLabels) || changed
	changed = deleteKeys(a, releasedAnnotations) || changed
	if changed {
		obj.SetLabels(l)
		obj.SetAnnotations(a)
	}
	return changed
}

func deleteKeys(m map[string]string, keys []string) bool {
	changed := false
	for _, k := range keys {
		if _, ok := m[k]; ok {
			delete(m, k)
			changed = true
		}
	}
	return changed
}

// removeFinalizer releases the Work; the patch is conditional on the
// version read so that it never drops another controller's finalizer.
func (r *Reconciler) removeFinalizer(ctx context.Context, work *workv1alpha1.Work) error {
	patched := work.DeepCopy()
	controllerutil.RemoveFinalizer(patched, names.ExecutionControllerFinalizer)
	if err := r.client.Patch(ctx, patched, client.MergeFromWithOptions(work, client.MergeFromWithOptimisticLock{})); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("work %s/%s: remove finalizer: %w", work.Namespace, work.Name, err))
	}
	return nil
}

// releaseOrphan lets a deleted Work go when its Cluster no longer exists:
// there is no member left to clean up.
func (r *Reconciler) releaseOrphan(ctx context.Context, work *workv1alpha1.Work) error {
	if work.DeletionTimestamp.IsZero() || !controllerutil.ContainsFinalizer(work, names.ExecutionControllerFinalizer) {
		return nil
	}
	log.FromContext(ctx).Info("cluster of the deleted work no longer exists, releasing it")
	return r.removeFinalizer(ctx, work)
}
