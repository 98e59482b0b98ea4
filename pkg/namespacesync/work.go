package namespacesync

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/names"
)

// desiredWork is the Work for ns in cluster, and its manifest before the
// last step that depends on the existing Work (see finishManifest).
func (r *Reconciler) desiredWork(ctx context.Context, ns *corev1.Namespace, cluster *clusterv1alpha1.Cluster) (*workv1alpha1.Work, *unstructured.Unstructured, error) {
	obj, err := namespaceObject(ns)
	if err != nil {
		return nil, nil, fmt.Errorf("namespace %s: %w", ns.Name, err)
	}
	applied := ""
	if r.opts.Overrides != nil {
		if applied, err = r.opts.Overrides.ApplyClusterOverrides(ctx, obj, cluster); err != nil {
			return nil, nil, fmt.Errorf("namespace %s: cluster %s: apply cluster overrides: %w", ns.Name, cluster.Name, err)
		}
	}
	work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{
		Namespace:       names.ExecutionSpace(cluster.Name),
		Name:            names.WorkName("Namespace", ns.Name, ""),
		Finalizers:      []string{names.ExecutionControllerFinalizer},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ns, corev1.SchemeGroupVersion.WithKind("Namespace"))},
	}}
	if applied != "" {
		work.Annotations = map[string]string{names.AppliedClusterOverridesAnnotation: applied}
	}
	markManaged(obj, string(ns.UID), work.Namespace, work.Name)
	prune(obj)
	return work, obj, nil
}

// namespaceObject is ns as an unstructured v1 Namespace.
func namespaceObject(ns *corev1.Namespace) (*unstructured.Unstructured, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ns.DeepCopy())
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{Object: content}
	obj.SetAPIVersion("v1")
	obj.SetKind("Namespace")
	return obj, nil
}

// markManaged adds what the Work writer adds to every manifest: the
// managed label, the template uid and the back-reference to the Work.
func markManaged(obj *unstructured.Unstructured, uid, workNamespace, workName string) {
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[names.ManagedLabel] = names.TrueValue
	obj.SetLabels(labels)
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[names.ResourceTemplateUIDAnnotation] = uid
	annotations[names.WorkNamespaceAnnotation] = workNamespace
	annotations[names.WorkNameAnnotation] = workName
	obj.SetAnnotations(annotations)
}

// prunedMetadata are the server-populated metadata fields a manifest never
// carries.
var prunedMetadata = []string{
	"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation", "managedFields",
	"resourceVersion", "selfLink", "uid", "ownerReferences", "finalizers",
}

func prune(obj *unstructured.Unstructured) {
	for _, f := range prunedMetadata {
		unstructured.RemoveNestedField(obj.Object, "metadata", f)
	}
	unstructured.RemoveNestedField(obj.Object, "status")
}

// finishManifest records the managed annotation keys, copies the Work's
// permanent id (once the webhook assigned one) and records the managed
// label keys, in Karmada's order, and returns the manifest.
func finishManifest(obj *unstructured.Unstructured, workPermanentID string) (workv1alpha1.Manifest, error) {
	obj = obj.DeepCopy()
	annotations := obj.GetAnnotations()
	annotations[names.ManagedAnnotationsAnnotation] = ""
	annotations[names.ManagedLabelsAnnotation] = ""
	annotations[names.ManagedAnnotationsAnnotation] = sortedKeys(annotations)
	labels := obj.GetLabels()
	if workPermanentID != "" {
		labels[names.WorkPermanentIDLabel] = workPermanentID
	}
	obj.SetLabels(labels)
	annotations[names.ManagedLabelsAnnotation] = sortedKeys(labels)
	obj.SetAnnotations(annotations)
	raw, err := obj.MarshalJSON()
	if err != nil {
		return workv1alpha1.Manifest{}, fmt.Errorf("encode namespace manifest %s: %w", obj.GetName(), err)
	}
	return workv1alpha1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}}, nil
}

func sortedKeys(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// mergeWork returns existing updated with desired the way Karmada updates
// Works: labels and annotations merged (desired wins), finalizers as a
// sorted union, the controller reference and spec replaced. The
// applied-cluster-overrides annotation, which this controller owns, is
// removed when no override applies any more.
func mergeWork(existing, desired *workv1alpha1.Work) *workv1alpha1.Work {
	out := existing.DeepCopy()
	for k, v := range desired.Labels {
		metav1.SetMetaDataLabel(&out.ObjectMeta, k, v)
	}
	if _, ok := desired.Annotations[names.AppliedClusterOverridesAnnotation]; !ok {
		delete(out.Annotations, names.AppliedClusterOverridesAnnotation)
	}
	for k, v := range desired.Annotations {
		metav1.SetMetaDataAnnotation(&out.ObjectMeta, k, v)
	}
	out.Finalizers = sortedUnion(out.Finalizers, desired.Finalizers)
	out.OwnerReferences = withController(out.OwnerReferences, desired.OwnerReferences[0])
	out.Spec = desired.Spec
	return out
}

func sortedUnion(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// withController replaces the controller reference in refs with ref, in
// place, or appends ref when refs has none.
func withController(refs []metav1.OwnerReference, ref metav1.OwnerReference) []metav1.OwnerReference {
	out := slices.Clone(refs)
	for i := range out {
		if ptr.Deref(out[i].Controller, false) {
			out[i] = ref
			return out
		}
	}
	return append(out, ref)
}
