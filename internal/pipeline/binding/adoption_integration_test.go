package binding

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestAdoptionAndClusterBindings: a Work as Karmada writes it (built here
// from the reference's tables, independently of the renderer) is adopted
// without a write; a ClusterResourceBinding gets its Work.
func TestAdoptionAndClusterBindings(t *testing.T) {
	e := startEnv(t)
	t.Run("a Karmada Work is adopted without a write", func(t *testing.T) { e.adoptKarmadaWork(t) })
	t.Run("a ClusterResourceBinding gets its Work", func(t *testing.T) { e.clusterRoleWork(t) })
}

func (e *testEnv) adoptKarmadaWork(t *testing.T) {
	ctx := context.Background()
	deploy := sampleDeployment(t)
	deploy.Name = "web"
	e.create(t, deploy)
	live := &appsv1.Deployment{}
	if err := e.Client.Get(ctx, client.ObjectKeyFromObject(deploy), live); err != nil {
		t.Fatal(err)
	}
	work := karmadaWork(t, live, "member1", 2)
	e.create(t, work)
	rb := nginxBinding(live.UID)
	rb.Name, rb.Labels[names.ResourceBindingPermanentIDLabel] = "web-deployment", "rb-id-web"
	rb.Spec.Resource.Name = "web"
	rb.Spec.Clusters = []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 2}}

	e.writes.Quiet(t, 0)
	before := e.writes.Len()
	e.create(t, rb)
	// The reconcile below must see both objects, as the controller would
	// when the binding's event reaches it.
	harness.Eventually(t, "the controller's cache shows the binding and the Work", func(ctx context.Context) (bool, error) {
		for _, obj := range []client.Object{rb.DeepCopy(), work.DeepCopy()} {
			if err := e.rb.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				return false, client.IgnoreNotFound(err)
			}
		}
		return true, nil
	})
	if _, err := e.rb.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(rb)}); err != nil {
		t.Fatal(err)
	}
	e.writes.Quiet(t, 0)
	if got := e.writes.Len() - before; got != 0 {
		t.Errorf("adopting a Karmada Work wrote %d times", got)
	}
	after := &workv1alpha1.Work{}
	if err := e.Client.Get(ctx, client.ObjectKeyFromObject(work), after); err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion != work.ResourceVersion {
		t.Errorf("Work rewritten: resourceVersion %s -> %s", work.ResourceVersion, after.ResourceVersion)
	}
}

// karmadaWork is the Work Karmada writes for template in cluster, built
// from the reference (4.5 and appendix D): template as read, minus server
// fields and status, plus Karmada's labels and annotations.
func karmadaWork(t *testing.T, template *appsv1.Deployment, cluster string, replicas int32) *workv1alpha1.Work {
	t.Helper()
	m := template.DeepCopy()
	m.Spec.Replicas = ptr.To(replicas)
	workName, workNS := names.WorkName("Deployment", m.Name, m.Namespace), names.ExecutionSpace(cluster)
	m.Labels[names.ResourceBindingPermanentIDLabel] = "rb-id-web"
	m.Labels[names.ManagedLabel] = "true"
	m.Labels[names.WorkPermanentIDLabel] = "karmada-assigned-work-id"
	m.Annotations = map[string]string{
		names.ResourceTemplateGenerationAnnotation: "1",
		names.ResourceBindingNamespaceAnnotation:   m.Namespace, names.ResourceBindingNameAnnotation: "web-deployment",
		names.ResourceTemplateUIDAnnotation: string(m.UID),
		names.WorkNameAnnotation:            workName, names.WorkNamespaceAnnotation: workNS,
		names.ConflictResolutionAnnotation: "abort",
	}
	m.Annotations[names.ManagedAnnotationsAnnotation] = joinKeys(m.Annotations, names.ManagedAnnotationsAnnotation, names.ManagedLabelsAnnotation)
	m.Annotations[names.ManagedLabelsAnnotation] = joinKeys(m.Labels)
	m.ObjectMeta = metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, Labels: m.Labels, Annotations: m.Annotations}
	m.Status = appsv1.DeploymentStatus{}
	gvk, _, _ := apis.Scheme.ObjectKinds(m)
	m.SetGroupVersionKind(gvk[0])
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(m)
	if err != nil {
		t.Fatal(err)
	}
	delete(obj, "status")
	delete(obj["metadata"].(map[string]interface{}), "creationTimestamp")
	raw, err := json.MarshalIndent(obj, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	return &workv1alpha1.Work{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: workNS, Name: workName, Finalizers: []string{names.ExecutionControllerFinalizer},
			Labels: map[string]string{names.ResourceBindingPermanentIDLabel: "rb-id-web", names.WorkPermanentIDLabel: "karmada-assigned-work-id"},
			Annotations: map[string]string{
				names.ResourceBindingNamespaceAnnotation: m.Namespace, names.ResourceBindingNameAnnotation: "web-deployment",
				names.ConflictResolutionAnnotation: "abort",
			},
		},
		Spec: workv1alpha1.WorkSpec{
			Workload:           workv1alpha1.WorkloadTemplate{Manifests: []workv1alpha1.Manifest{{RawExtension: runtime.RawExtension{Raw: raw}}}},
			SuspendDispatching: ptr.To(false), PreserveResourcesOnDeletion: ptr.To(false),
		},
	}
}

func joinKeys(m map[string]string, extra ...string) string {
	keys := append([]string{}, extra...)
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func (e *testEnv) clusterRoleWork(t *testing.T) {
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "propel:reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}}
	e.create(t, role)
	crb := &workv1alpha2.ClusterResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: names.BindingName("ClusterRole", role.Name),
			Labels: map[string]string{names.ClusterResourceBindingPermanentIDLabel: "crb-id"}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: role.Name, UID: role.UID},
			Clusters: []workv1alpha2.TargetCluster{{Name: "member2"}},
		},
	}
	e.create(t, crb)
	name := names.WorkName("ClusterRole", role.Name, "")
	harness.Eventually(t, "ClusterRole Work", func(ctx context.Context) (bool, error) {
		w, err := e.work(ctx, "member2", name)
		if err != nil {
			return false, client.IgnoreNotFound(err)
		}
		m := manifestOf(t, w)
		return w.Labels[names.ClusterResourceBindingPermanentIDLabel] == "crb-id" &&
			w.Annotations[names.ClusterResourceBindingNameAnnotation] == crb.Name &&
			m.GetLabels()[names.ClusterResourceBindingPermanentIDLabel] == "crb-id", nil
	})
	// The controller added the missing finalizer before writing.
	if err := e.Client.Get(context.Background(), client.ObjectKeyFromObject(crb), crb); err != nil {
		t.Fatal(err)
	}
	if len(crb.Finalizers) != 1 || crb.Finalizers[0] != names.ClusterResourceBindingControllerFinalizer {
		t.Errorf("CRB finalizers %v", crb.Finalizers)
	}
}
