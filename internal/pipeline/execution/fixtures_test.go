package execution_test

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func memberClient(t *testing.T, name string) client.Client {
	t.Helper()
	c, err := env.MemberClient(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// prepareControlPlane creates the execution namespaces and marks every
// Cluster Ready, as the cluster controllers would.
func prepareControlPlane(t *testing.T) {
	ctx := context.Background()
	clusters := &clusterv1alpha1.ClusterList{}
	must(t, env.Client.List(ctx, clusters))
	for i := range clusters.Items {
		c := &clusters.Items[i]
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names.ExecutionSpace(c.Name)}}
		if err := env.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{Type: clusterv1alpha1.ClusterConditionReady,
			Status: metav1.ConditionTrue, Reason: "ClusterReady", Message: "cluster is healthy and ready to accept workloads"})
		must(t, env.Client.Status().Update(ctx, c))
	}
}

func nginxDeployment(name string, labels map[string]string) *appsv1.Deployment {
	l := map[string]string{"app": name}
	for k, v := range labels {
		l[k] = v
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: l},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
}

// createTemplate creates obj in the control plane and returns it as the
// API server stored it (defaulted), in unstructured form.
func createTemplate(t *testing.T, obj client.Object) *unstructured.Unstructured {
	t.Helper()
	ctx := context.Background()
	must(t, env.Client.Create(ctx, obj))
	u := &unstructured.Unstructured{}
	gvk, err := env.Client.GroupVersionKindFor(obj)
	must(t, err)
	u.SetGroupVersionKind(gvk)
	must(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), u))
	return u
}

// workSpec describes a Work as the binding controller builds it.
type workSpec struct {
	cluster            string
	template           *unstructured.Unstructured
	bindingID          string
	bindingName        string
	conflictResolution string
	mutate             func(manifest *unstructured.Unstructured)
	preserve           bool
	// clusterBinding derives the Work from a ClusterResourceBinding.
	clusterBinding bool
}

// buildWork returns the Work the binding controller would write for one
// cluster: a pruned copy of the template with Karmada's labels and
// annotations, in karmada-es-<cluster>, with the execution finalizer.
func buildWork(t *testing.T, s workSpec) *workv1alpha1.Work {
	t.Helper()
	tmpl := s.template
	workName := names.WorkName(tmpl.GetKind(), tmpl.GetName(), tmpl.GetNamespace())
	ns := names.ExecutionSpace(s.cluster)
	cr := s.conflictResolution
	if cr == "" {
		cr = names.ConflictResolutionAbort
	}
	workID := uuid.NewString()
	m := tmpl.DeepCopy()
	must(t, native.Prune(m, native.RemoveJobTTLSeconds))
	if s.mutate != nil {
		s.mutate(m)
	}
	labels := m.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	idLabel := names.ResourceBindingPermanentIDLabel
	if s.clusterBinding {
		idLabel = names.ClusterResourceBindingPermanentIDLabel
	}
	labels[idLabel] = s.bindingID
	labels[names.ManagedLabel] = names.TrueValue
	labels[names.WorkPermanentIDLabel] = workID
	annotations := m.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	bindingRef := map[string]string{names.ResourceBindingNamespaceAnnotation: tmpl.GetNamespace(), names.ResourceBindingNameAnnotation: s.bindingName}
	if s.clusterBinding {
		bindingRef = map[string]string{names.ClusterResourceBindingNameAnnotation: s.bindingName}
	}
	for k, v := range bindingRef {
		annotations[k] = v
	}
	for k, v := range map[string]string{
		names.ResourceTemplateGenerationAnnotation: strconv.FormatInt(tmpl.GetGeneration(), 10),
		names.ResourceTemplateUIDAnnotation:        string(tmpl.GetUID()),
		names.WorkNameAnnotation:                   workName,
		names.WorkNamespaceAnnotation:              ns,
		names.ConflictResolutionAnnotation:         cr,
		names.ManagedAnnotationsAnnotation:         "",
		names.ManagedLabelsAnnotation:              "",
	} {
		annotations[k] = v
	}
	annotations[names.ManagedAnnotationsAnnotation] = sortedKeys(annotations)
	annotations[names.ManagedLabelsAnnotation] = sortedKeys(labels)
	m.SetLabels(labels)
	m.SetAnnotations(annotations)
	raw, err := json.Marshal(m.Object)
	must(t, err)
	workAnnotations := map[string]string{names.ConflictResolutionAnnotation: cr}
	for k, v := range bindingRef {
		workAnnotations[k] = v
	}
	return &workv1alpha1.Work{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: workName, Finalizers: []string{names.ExecutionControllerFinalizer},
			Labels:      map[string]string{idLabel: s.bindingID, names.WorkPermanentIDLabel: workID},
			Annotations: workAnnotations,
		},
		Spec: workv1alpha1.WorkSpec{
			Workload:                    workv1alpha1.WorkloadTemplate{Manifests: []workv1alpha1.Manifest{{RawExtension: runtime.RawExtension{Raw: raw}}}},
			SuspendDispatching:          ptr.To(false),
			PreserveResourcesOnDeletion: ptr.To(s.preserve),
		},
	}
}

func sortedKeys(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func setReplicas(n int64) func(*unstructured.Unstructured) {
	return func(m *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(m.Object, n, "spec", "replicas")
	}
}

// createBinding creates the scheduled ResourceBinding of tmpl.
func createBinding(t *testing.T, tmpl *unstructured.Unstructured, id string, clusters []workv1alpha2.TargetCluster) *workv1alpha2.ResourceBinding {
	t.Helper()
	ctx := context.Background()
	rb := &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: tmpl.GetNamespace(), Name: names.BindingName(tmpl.GetKind(), tmpl.GetName()),
			Labels: map[string]string{names.ResourceBindingPermanentIDLabel: id}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: tmpl.GetAPIVersion(), Kind: tmpl.GetKind(), Namespace: tmpl.GetNamespace(),
				Name: tmpl.GetName(), UID: tmpl.GetUID(), ResourceVersion: tmpl.GetResourceVersion()},
			Replicas: 3,
			Clusters: clusters,
		},
	}
	must(t, env.Client.Create(ctx, rb))
	rb.Status.LastScheduledTime = ptr.To(metav1.Now())
	meta.SetStatusCondition(&rb.Status.Conditions, metav1.Condition{Type: workv1alpha2.Scheduled, Status: metav1.ConditionTrue,
		Reason: workv1alpha2.BindingReasonSuccess, Message: workv1alpha2.BindingScheduleSuccessMessage})
	must(t, env.Client.Status().Update(ctx, rb))
	return rb
}

func getWork(ctx context.Context, w *workv1alpha1.Work) (*workv1alpha1.Work, error) {
	out := &workv1alpha1.Work{}
	return out, env.Client.Get(ctx, client.ObjectKeyFromObject(w), out)
}

func condition(w *workv1alpha1.Work, typ string) *metav1.Condition {
	return meta.FindStatusCondition(w.Status.Conditions, typ)
}

// memberDeployment reads a Deployment from a member.
func memberDeployment(ctx context.Context, c client.Client, name string) (*appsv1.Deployment, error) {
	d := &appsv1.Deployment{}
	return d, c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, d)
}

// reflected decodes the first manifest status of w.
func reflected(w *workv1alpha1.Work) (map[string]interface{}, workv1alpha1.ResourceHealth, bool) {
	if len(w.Status.ManifestStatuses) == 0 || w.Status.ManifestStatuses[0].Status == nil {
		return nil, "", false
	}
	var s map[string]interface{}
	if json.Unmarshal(w.Status.ManifestStatuses[0].Status.Raw, &s) != nil {
		return nil, "", false
	}
	return s, w.Status.ManifestStatuses[0].Health, true
}

// mutate reads obj (its key set), applies fn and updates it, retrying when
// a controller wrote in between.
func mutate(t *testing.T, c client.Client, obj client.Object, fn func()) {
	t.Helper()
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		fn()
		return c.Update(ctx, obj)
	})
	must(t, err)
}
